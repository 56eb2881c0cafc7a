//! The `memory_recall` result: the seed's fields for each result (`timestamp`,
//! `duration_seconds`, `confidence`, `summary`, `steps`, `video_url`, `video_start_ms`,
//! `video_end_ms`), what lookout adds (`source`, `task_id`; for screen history `app`, `step`
//! and `frames`), and a `message` saying what was searched and how to see more. Also the
//! screen recorder's status, for `daemon.status` and `recall.pause`/`resume`.

use actors::recall::recorder::{RecordMode, RecorderState, RecorderStatus};
use actors::recall::{RecallAnswer, RecallRequest};
use actors::words::count;
use recall::Source;
use serde_json::{Value, json};
use storage::Timestamp;

use crate::tools::limits::MAX_RECALL_LIMIT;

pub fn recalled(
    answer: &RecallAnswer,
    request: &RecallRequest,
    recorder: Option<&RecorderStatus>,
) -> Value {
    let results: Vec<Value> = answer
        .results
        .iter()
        .map(|ranked| {
            let document = &ranked.document;
            let at = |ms: u64| Timestamp::from_millis(ms).to_rfc3339();
            let duration_ms = document.end_ms.saturating_sub(document.start_ms);
            let mut result = json!({
                "timestamp": at(document.start_ms),
                "duration_seconds": duration_ms / 1000,
                "confidence": ranked.confidence,
                "weak": ranked.weak,
                "summary": document.summary,
                // Filled below, in place: `json!` would copy what it is given.
                "steps": Value::Null,
                // Only screen history has a recording to point at.
                "video_url": Value::Null,
                "video_start_ms": Value::Null,
                "video_end_ms": Value::Null,
                "source": document.source.as_str(),
                "task_id": document.task_id,
            });
            result["steps"] = (document.steps.iter())
                .map(|step| Value::String(format!("{} {}", at(step.at_ms), step.text)))
                .collect();
            if document.source == Source::Transcript {
                // The session's project folder, as Claude Code names it.
                result["project"] = json!(document.app);
            }
            if document.source == Source::Screen {
                result["app"] = json!(document.app);
                result["step"] = json!(document.step);
                result["frames"] = document
                    .frames
                    .iter()
                    .map(|frame| json!({"offset_ms": frame.offset_ms, "path": frame.path}))
                    .collect();
                if let Some(folder) = document
                    .frames
                    .first()
                    .and_then(|frame| std::path::Path::new(&frame.path).parent())
                {
                    result["video_url"] = json!(format!("file://{}", folder.display()));
                    let first_match = document.steps.iter().find(|step| {
                        let text = step.text.to_lowercase();
                        answer.words.iter().any(|word| text.contains(word.as_str()))
                    });
                    result["video_start_ms"] = json!(
                        first_match.map_or(0, |step| step.at_ms.saturating_sub(document.start_ms))
                    );
                    result["video_end_ms"] = json!(duration_ms);
                }
            }
            result
        })
        .collect();
    let indexed = |source: Source| {
        answer
            .indexed
            .iter()
            .find(|(of, _)| *of == source)
            .map_or(0, |(_, n)| *n)
    };
    let screen = match recorder.map(|status| status.mode) {
        None => "the screen recorder is restarting".to_owned(),
        Some(RecordMode::Off) if indexed(Source::Screen) == 0 => {
            "screen recording is off ([recall] mode in the config)".to_owned()
        }
        Some(mode) => format!(
            "{} of screen history (recording: {})",
            count(indexed(Source::Screen), "segment", None),
            mode.as_str()
        ),
    };
    let sessions = match indexed(Source::Transcript) {
        0 => String::new(),
        n => format!(
            ", {} (requests, commands, answers)",
            count(n, "past agent session", None)
        ),
    };
    let searched = format!(
        "Searched {} (names, plans, notes, outcomes), {} (observations, wake texts), {} \
         (commands, output, exit){sessions} and {screen}",
        count(indexed(Source::Task), "task", None),
        count(indexed(Source::Wait), "wait", None),
        count(indexed(Source::Terminal), "ended terminal session", None)
    );
    let scope = request
        .task_id
        .as_deref()
        .map(|id| format!(" within task {id}"))
        .unwrap_or_default();
    let words = answer.words.join(", ");
    let mut read = String::new();
    if !answer.read_as.is_empty() {
        read.push_str(&format!(" Read {}.", answer.read_as.join(", ")));
    }
    if !answer.unmatched.is_empty() {
        read.push_str(&format!(
            " Nothing indexed holds {} in any form (nor a synonym or a near spelling).",
            answer.unmatched.join(", ")
        ));
    }
    let message = if answer.words.is_empty() {
        format!(
            "{searched}. The question has no word to look for: name the thing, e.g. \"deploy coursefolio\"."
        )
    } else if results.is_empty() {
        format!(
            "{searched}{scope} for {words}: nothing matched.{read} Try other words (the tool, \
             the project or the host name)."
        )
    } else if answer.results.iter().all(|ranked| ranked.weak) {
        format!(
            "{searched}{scope} for {words}: only weak matches — {}, each holding less than half \
             of the question's words, so likely not what you look for.{read} Try other words, \
             or fewer.",
            count(results.len() as u64, "result", None)
        )
    } else {
        format!(
            "{searched}{scope} for {words}: {}, in the order of their confidence.{read} \
             confidence is a ranking score, not a probability: how much of the question a \
             result holds (a synonym or a corrected word counts less), how well it matches \
             beside the others, and how recent it is by recency_bias; 1.0 holds every word, in \
             its title. For more, raise limit (now {}, max {MAX_RECALL_LIMIT}), try other \
             words, or read a task whole with task_get.",
            count(results.len() as u64, "result", None),
            request.limit
        )
    };
    let mut recalled = json!({
        // Moved in below: `json!` would copy the results.
        "results": Value::Null,
        "read_as": answer.read_as,
        "unmatched": answer.unmatched,
        "message": message,
    });
    recalled["results"] = Value::Array(results);
    recalled
}

/// The screen recorder's status: its mode, what it is doing and why, and what it did.
pub fn recorder_status(status: &RecorderStatus) -> Value {
    let paused_until = (status.state == RecorderState::PausedUser)
        .then(|| status.paused_until.map(Timestamp::to_rfc3339));
    json!({
        "mode": status.mode.as_str(),
        "state": status.state.as_str(),
        "reason": status.reason,
        "paused_until": paused_until.flatten(),
        "app": status.app,
        "captures": status.captures,
        "segments": status.segments,
        "open_segments": status.open_segments,
        "ocr_runs": status.ocr_runs,
        "ocr_failures": status.ocr_failures,
        "ocr_seconds": status.ocr_ms as f64 / 1000.0,
        "redactions": status.redactions,
        "keyframes": status.keyframes,
        "keyframe_bytes": status.keyframe_bytes,
        // Closed segments the model described (`[recall] procedures = "model"`).
        "procedures": status.procedures,
        "procedure_failures": status.procedure_failures,
        "procedure_tokens": status.procedure_tokens,
        "last_error": status.last_error,
    })
}

/// The answer to `recall.forget`: how many recorded items went.
pub fn forgotten(removed: u64) -> Value {
    json!({
        "forgotten": removed,
        "message": format!(
            "Forgot {} (screen segments with their keyframes, terminal sessions, past agent sessions). \
             Tasks and waits stay: they live in the task database.",
            actors::words::count(removed, "recorded item", None)
        ),
    })
}

/// The answer to `recall.pause` and `recall.resume`.
pub fn recorder_changed(status: &RecorderStatus) -> Value {
    let message = match (status.mode, status.state) {
        (RecordMode::Off, RecorderState::PausedUser) => {
            "Paused; screen recording is off anyway ([recall] mode in the config).".to_owned()
        }
        (_, RecorderState::PausedUser) => match status.paused_until {
            Some(until) => format!(
                "Screen recording paused until {}; `lookout recall resume` ends the pause sooner.",
                until.to_rfc3339()
            ),
            None => "Screen recording paused until `lookout recall resume`.".to_owned(),
        },
        (RecordMode::Off, _) => {
            "Not paused; screen recording is off ([recall] mode in the config).".to_owned()
        }
        (mode, _) => format!(
            "Not paused: screen recording (mode {}) goes on at the next capture.",
            mode.as_str()
        ),
    };
    let mut value = recorder_status(status);
    value["message"] = json!(message);
    value
}
