//! The `memory_recall` result: the seed's fields for each result (`timestamp`,
//! `duration_seconds`, `confidence`, `summary`, `steps`, `video_url`, `video_start_ms`,
//! `video_end_ms`), what lookout adds (`source`, `task_id`), and a `message` saying what was
//! searched and how to see more.

use actors::recall::{RecallAnswer, RecallRequest};
use actors::words::count;
use recall::Source;
use serde_json::{Value, json};
use storage::Timestamp;

use crate::params::MAX_RECALL_LIMIT;

pub fn recalled(answer: &RecallAnswer, request: &RecallRequest) -> Value {
    let results: Vec<Value> = answer
        .results
        .iter()
        .map(|ranked| {
            let document = &ranked.document;
            let at = |ms: u64| Timestamp::from_millis(ms).to_rfc3339();
            json!({
                "timestamp": at(document.start_ms),
                "duration_seconds": document.end_ms.saturating_sub(document.start_ms) / 1000,
                "confidence": ranked.confidence,
                "summary": document.summary,
                "steps": document.steps.iter().map(|step| format!("{} {}", at(step.at_ms), step.text)).collect::<Vec<_>>(),
                // Only screen history has a recording to point at.
                "video_url": Value::Null,
                "video_start_ms": Value::Null,
                "video_end_ms": Value::Null,
                "source": document.source.as_str(),
                "task_id": document.task_id,
            })
        })
        .collect();
    let indexed = |source: Source| {
        answer
            .indexed
            .iter()
            .find(|(of, _)| *of == source)
            .map_or(0, |(_, n)| *n)
    };
    let searched = format!(
        "Searched {} (names, plans, notes, outcomes), {} (observations, wake texts) and {} \
         (commands, output, exit); screen recording is off",
        count(indexed(Source::Task), "task", None),
        count(indexed(Source::Wait), "wait", None),
        count(indexed(Source::Terminal), "ended terminal session", None)
    );
    let scope = request
        .task_id
        .as_deref()
        .map(|id| format!(" within task {id}"))
        .unwrap_or_default();
    let message = if answer.words.is_empty() {
        format!(
            "{searched}. The question has no word to look for: name the thing, e.g. \"deploy coursefolio\"."
        )
    } else if results.is_empty() {
        format!(
            "{searched}{scope} for {}: nothing matched. Try other words (synonyms, the tool or project name).",
            answer.words.join(", ")
        )
    } else {
        format!(
            "{searched}{scope} for {}: {}, best first. confidence is a ranking score relative to the \
             best match (1.0 = the best match, holding every word), not a probability. For more, raise \
             limit (now {}, max {MAX_RECALL_LIMIT}), try other words, or read a task whole with task_get.",
            answer.words.join(", "),
            count(results.len() as u64, "result", None),
            request.limit
        )
    };
    json!({"results": results, "message": message})
}
