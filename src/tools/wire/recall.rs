//! The `memory_recall` result: the seed's fields for each result (`timestamp`,
//! `duration_seconds`, `confidence`, `summary`, `steps`, `video_url`, `video_start_ms`,
//! `video_end_ms`), what lookout adds (`source`, `task_id`; for screen history `app`, `step`
//! and `frames`), and a `message` saying what was searched and how to see more. Also the
//! screen recorder's status, for `daemon.status` and `recall.pause`/`resume`.

use actors::recall::recorder::{RecordMode, RecorderState, RecorderStatus};
use actors::recall::{RecallAnswer, RecallRequest};
use actors::words::count;
use recall::{Frame, Ranked, Source, Step};
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use storage::Timestamp;

use crate::tools::limits::MAX_RECALL_LIMIT;

/// The answer to `memory_recall`, written as JSON text straight from the documents: building
/// three results with their steps as a `Value` first cost more than the call's hops to the
/// recall actor and back (`cargo bench --bench recall -- end-to-end`).
pub fn recalled(
    answer: &RecallAnswer,
    request: &RecallRequest,
    recorder: Option<&RecorderStatus>,
) -> Box<RawValue> {
    let recalled = Recalled {
        results: Results(answer),
        read_as: &answer.read_as,
        unmatched: &answer.unmatched,
        message: message(answer, request, recorder),
    };
    serde_json::value::to_raw_value(&recalled).expect("a recall answer is JSON")
}

#[derive(Serialize)]
struct Recalled<'a> {
    results: Results<'a>,
    read_as: &'a [String],
    unmatched: &'a [String],
    message: String,
}

/// The results, best first.
struct Results<'a>(&'a RecallAnswer);

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.results.iter().map(|ranked| RecalledResult {
            ranked,
            words: &self.0.words,
        }))
    }
}

/// One result: the seed's fields, then what lookout adds for its source.
struct RecalledResult<'a> {
    ranked: &'a Ranked,
    /// The words searched for: where a screen segment's video starts.
    words: &'a [String],
}

impl Serialize for RecalledResult<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let document = &self.ranked.document;
        let duration_ms = document.end_ms.saturating_sub(document.start_ms);
        // Only screen history has a recording to point at.
        let folder = (document.source == Source::Screen)
            .then(|| document.frames.first())
            .flatten()
            .and_then(|frame| std::path::Path::new(&frame.path).parent());
        let video_start_ms = folder.map(|_| {
            let first_match = document.steps.iter().find(|step| {
                let text = step.text.to_lowercase();
                self.words.iter().any(|word| text.contains(word.as_str()))
            });
            first_match.map_or(0, |step| step.at_ms.saturating_sub(document.start_ms))
        });
        let mut map = serializer.serialize_map(None)?;
        let started = Timestamp::from_millis(document.start_ms).rfc3339();
        map.serialize_entry("timestamp", &Shown(started))?;
        map.serialize_entry("duration_seconds", &(duration_ms / 1000))?;
        map.serialize_entry("confidence", &self.ranked.confidence)?;
        map.serialize_entry("weak", &self.ranked.weak)?;
        map.serialize_entry("summary", &document.summary)?;
        map.serialize_entry("steps", &Steps(&document.steps))?;
        map.serialize_entry(
            "video_url",
            &folder.map(|folder| format!("file://{}", folder.display())),
        )?;
        map.serialize_entry("video_start_ms", &video_start_ms)?;
        map.serialize_entry("video_end_ms", &folder.map(|_| duration_ms))?;
        map.serialize_entry("source", document.source.as_str())?;
        map.serialize_entry("task_id", &document.task_id)?;
        if document.source == Source::Transcript {
            // The session's project folder, as Claude Code names it.
            map.serialize_entry("project", &document.app)?;
        }
        if document.source == Source::Screen {
            map.serialize_entry("app", &document.app)?;
            map.serialize_entry("step", &document.step)?;
            map.serialize_entry("frames", &Frames(&document.frames))?;
        }
        map.end()
    }
}

/// What was searched (per source, with screen recording's state), for which words, and
/// what the results are.
fn message(
    answer: &RecallAnswer,
    request: &RecallRequest,
    recorder: Option<&RecorderStatus>,
) -> String {
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
    let read_as = match answer.read_as.as_slice() {
        [] => String::new(),
        read_as => format!(" Read {}.", read_as.join(", ")),
    };
    let unmatched = answer.unmatched.join(", ");
    let mut read = read_as.clone();
    if !answer.unmatched.is_empty() {
        read.push_str(&format!(
            " Nothing indexed holds {unmatched} in any form (nor a synonym or a near spelling)."
        ));
    }
    // A weak first result that lacks only what nothing indexed holds is the answer if those
    // words are another name for what it is about: the caller knows, the index cannot.
    let first_lacks_only_unindexed = (answer.results.first())
        .is_some_and(|first| first.lacks_only_unindexed && !answer.unmatched.is_empty());
    if answer.words.is_empty() {
        format!(
            "{searched}. The question has no word to look for: name the thing, e.g. \"deploy coursefolio\"."
        )
    } else if answer.results.is_empty() {
        format!(
            "{searched}{scope} for {words}: nothing matched.{read} Try other words (the tool, \
             the project or the host name)."
        )
    } else if answer.results.iter().all(|ranked| ranked.weak) && first_lacks_only_unindexed {
        format!(
            "{searched}{scope} for {words}: only weak matches — {}. The first holds every word \
             of the question that anything indexed holds; it lacks {unmatched}, which nothing \
             indexed holds in any form (nor a synonym or a near spelling). If that is another \
             name for what the first is about (a product for its kind, an abbreviation, a \
             paraphrase), it is the answer; if it names something else, nothing recorded \
             answers the question.{read_as} Asking again with the word the records would use \
             tells which.",
            count(answer.results.len() as u64, "result", None)
        )
    } else if answer.results.iter().all(|ranked| ranked.weak) {
        format!(
            "{searched}{scope} for {words}: only weak matches — {}, each holding less than half \
             of the question's words, so likely not what you look for.{read} Try other words, \
             or fewer.",
            count(answer.results.len() as u64, "result", None)
        )
    } else {
        format!(
            "{searched}{scope} for {words}: {}, in the order of their confidence.{read} \
             confidence is a ranking score, not a probability: how much of the question a \
             result holds (a synonym or a corrected word counts less), how well it matches \
             beside the others, and how recent it is by recency_bias; 1.0 holds every word, in \
             its title. For more, raise limit (now {}, max {MAX_RECALL_LIMIT}), try other \
             words, or read a task whole with task_get.",
            count(answer.results.len() as u64, "result", None),
            request.limit
        )
    }
}

/// A step as the seed shows it: its time, then its text.
struct Steps<'a>(&'a [Step]);

impl Serialize for Steps<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut steps = serializer.serialize_seq(Some(self.0.len()))?;
        for step in self.0 {
            let at = Timestamp::from_millis(step.at_ms).rfc3339();
            steps.serialize_element(&Shown(format_args!("{at} {}", step.text)))?;
        }
        steps.end()
    }
}

/// A screen segment's keyframes.
struct Frames<'a>(&'a [Frame]);

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Keyframe<'a> {
            offset_ms: u64,
            path: &'a str,
        }
        serializer.collect_seq(self.0.iter().map(|frame| Keyframe {
            offset_ms: frame.offset_ms,
            path: &frame.path,
        }))
    }
}

/// Text written as a JSON string without a `String` of its own.
struct Shown<T>(T);

impl<T: std::fmt::Display> Serialize for Shown<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
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
