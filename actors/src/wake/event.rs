//! A wake event as sinks and subscribers see it.
//!
//! One JSON shape for every consumer: the command sink's stdin, the webhook body's `event`,
//! and the `events.subscribe` notification all carry [`WakeEvent::to_json`].

use serde_json::{Value, json};
use storage::{EventKind, EventRecord, TaskId, Timestamp};

/// An event's id: `e-000123`, from its seq.
pub fn event_id(seq: u64) -> String {
    format!("e-{seq:06}")
}

/// The seq of an event id (`e-000123` → 123), as [`event_id`] writes it.
pub fn event_seq(id: &str) -> Option<u64> {
    let digits = id.strip_prefix("e-")?;
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The prefix of the session keys lookout gives Claude Code sessions (`claude-code:<session
/// id>`): their wakes go to that session's monitor and bridge, never to another runtime's
/// sink.
pub const CLAUDE_CODE_SESSION: &str = "claude-code:";

/// The session key of the Claude Code session `id` (`CLAUDE_CODE_SESSION_ID`).
pub fn claude_code_session_key(id: &str) -> String {
    format!("{CLAUDE_CODE_SESSION}{id}")
}

/// How a wake text ends: ` [lookout e-000123]`, so a receiver that is handed the same event
/// twice (a retry after a lost acknowledgement) can tell. The stuck packet carries the id as
/// its `event_id` key instead, so its JSON stays the last thing in the text.
pub fn with_event_id(text: &str, id: &str) -> String {
    format!("{text} [lookout {id}]")
}

/// The text [`with_event_id`] was given, when `text` ends with event `id`'s mark.
pub fn without_event_id<'t>(text: &'t str, id: &str) -> Option<&'t str> {
    text.strip_suffix(&format!(" [lookout {id}]"))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WakeEvent {
    pub seq: u64,
    pub kind: EventKind,
    /// Stands on its own for an agent that lost its context.
    pub text: String,
    pub task_id: Option<TaskId>,
    pub wait_id: Option<String>,
    /// The agent session to wake, when the task or wait named one.
    pub session_key: Option<String>,
    pub created_at: Timestamp,
}

impl WakeEvent {
    pub fn from_record(record: &EventRecord) -> Self {
        Self {
            seq: record.seq,
            kind: record.kind,
            text: record.text.clone(),
            task_id: record.task_id.clone(),
            wait_id: record.wait_id.clone(),
            session_key: record.session_key.clone(),
            created_at: record.created_at,
        }
    }

    /// `e-000123`
    pub fn id(&self) -> String {
        event_id(self.seq)
    }

    /// `{id, kind, text, task_id, wait_id, session_key, created_at}`
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id(),
            "kind": self.kind.as_str(),
            "text": self.text,
            "task_id": self.task_id.as_ref().map(TaskId::as_str),
            "wait_id": self.wait_id,
            "session_key": self.session_key,
            "created_at": self.created_at.to_rfc3339(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_id_reads_back_as_its_seq() {
        assert_eq!(event_seq(&event_id(123)), Some(123));
        assert_eq!(event_seq(&event_id(12_345_678)), Some(12_345_678));
        for not_an_id in ["e-", "e-12a", "w-000123", "123", "e--1"] {
            assert_eq!(event_seq(not_an_id), None, "{not_an_id}");
        }
    }

    #[test]
    fn a_marked_text_gives_back_what_was_marked() {
        let marked = with_event_id("Build done.", "e-000007");
        assert_eq!(without_event_id(&marked, "e-000007"), Some("Build done."));
        assert_eq!(without_event_id(&marked, "e-000008"), None);
    }
}
