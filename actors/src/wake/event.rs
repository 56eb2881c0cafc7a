//! A wake event as sinks and subscribers see it.
//!
//! One JSON shape for every consumer: the command sink's stdin, the webhook body's `event`,
//! and the `events.subscribe` notification all carry [`WakeEvent::to_json`].

use serde_json::{Value, json};
use storage::{EventKind, EventRecord, TaskId, Timestamp};

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
        format!("e-{:06}", self.seq)
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
