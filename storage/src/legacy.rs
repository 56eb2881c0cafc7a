//! Record formats that are no longer written, kept so that older files still decode.
//!
//! Each old format converts into the current record; nothing here is ever encoded again.

use std::collections::BTreeSet;

use serde::Deserialize;

use crate::model::{Status, TaskId, TaskRecord, Timestamp, WaitState};

/// `TaskRecord` as schema version 1 wrote it (before the typed stuck threshold).
#[derive(Deserialize)]
pub struct TaskRecordV1 {
    id: TaskId,
    name: String,
    status: Status,
    plan: Vec<String>,
    completed_steps: BTreeSet<u32>,
    current_step: Option<u32>,
    metadata_json: String,
    session_key: Option<String>,
    agent_id: Option<String>,
    created_at: Timestamp,
    updated_at: Timestamp,
    last_seq: u64,
    plan_revisions: u32,
    active_wait_ids: Vec<String>,
    last_wait_state: Option<WaitState>,
    last_wait_event_at: Option<Timestamp>,
    last_stuck_alert_at: Option<Timestamp>,
}

impl From<TaskRecordV1> for TaskRecord {
    fn from(old: TaskRecordV1) -> Self {
        // V1 kept a per-task threshold only inside the metadata object.
        let stuck_threshold_s = serde_json::from_str::<serde_json::Value>(&old.metadata_json)
            .ok()
            .and_then(|metadata| metadata.get("stuck_threshold_s")?.as_u64())
            .filter(|seconds| *seconds >= 1);
        TaskRecord {
            id: old.id,
            name: old.name,
            status: old.status,
            plan: old.plan,
            completed_steps: old.completed_steps,
            current_step: old.current_step,
            metadata_json: old.metadata_json,
            session_key: old.session_key,
            agent_id: old.agent_id,
            created_at: old.created_at,
            updated_at: old.updated_at,
            last_seq: old.last_seq,
            plan_revisions: old.plan_revisions,
            active_wait_ids: old.active_wait_ids,
            last_wait_state: old.last_wait_state,
            last_wait_event_at: old.last_wait_event_at,
            last_stuck_alert_at: old.last_stuck_alert_at,
            stuck_threshold_s,
        }
    }
}
