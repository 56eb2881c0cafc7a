//! Record formats that are no longer written, kept so that older files still decode.
//!
//! Each old format converts into the current record; nothing here is ever encoded again.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::model::{
    BootDeadline, Origin, Status, TaskId, TaskRecord, TextBaseline, Timestamp, WaitCounters,
    WaitHistoryEntry, WaitId, WaitRecord, WaitState,
};

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
        TaskRecordV2::from(old).into()
    }
}

/// One step at a time: a V1 record is a V2 record whose threshold sat in its metadata.
impl From<TaskRecordV1> for TaskRecordV2 {
    fn from(old: TaskRecordV1) -> Self {
        // V1 kept a per-task threshold only inside the metadata object.
        let stuck_threshold_s = serde_json::from_str::<serde_json::Value>(&old.metadata_json)
            .ok()
            .and_then(|metadata| metadata.get("stuck_threshold_s")?.as_u64())
            .filter(|seconds| *seconds >= 1);
        TaskRecordV2 {
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

/// `TaskRecord` as record format V2 wrote it (before tasks recorded their origin).
#[derive(Deserialize)]
pub struct TaskRecordV2 {
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
    stuck_threshold_s: Option<u64>,
}

impl From<TaskRecordV2> for TaskRecord {
    fn from(old: TaskRecordV2) -> Self {
        TaskRecordV3::from(old).into()
    }
}

/// One step at a time: a V2 record is a V3 record with no origin.
impl From<TaskRecordV2> for TaskRecordV3 {
    fn from(old: TaskRecordV2) -> Self {
        TaskRecordV3 {
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
            stuck_threshold_s: old.stuck_threshold_s,
            origin: None,
        }
    }
}

/// `TaskRecord` as record format V3 wrote it (before steps kept their evidence): its
/// completed steps read as claimed.
#[derive(Deserialize)]
pub struct TaskRecordV3 {
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
    stuck_threshold_s: Option<u64>,
    origin: Option<Origin>,
}

impl From<TaskRecordV3> for TaskRecord {
    fn from(old: TaskRecordV3) -> Self {
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
            stuck_threshold_s: old.stuck_threshold_s,
            origin: old.origin,
            step_evidence: BTreeMap::new(),
        }
    }
}

/// `WaitRecord` as schema versions 3 and 4 wrote it (before text targets matched only new
/// output): it watched everything, so it converts with `match_existing`.
#[derive(Deserialize)]
pub struct WaitRecordV1 {
    id: WaitId,
    target: String,
    condition: String,
    task_id: Option<TaskId>,
    session_key: Option<String>,
    state: WaitState,
    created_at: Timestamp,
    started_at: Timestamp,
    deadline: Timestamp,
    timeout_s: u64,
    poll_interval_ms: u64,
    last_observation: Option<String>,
    ended_at: Option<Timestamp>,
    counters: WaitCounters,
    history: Vec<WaitHistoryEntry>,
}

impl From<WaitRecordV1> for WaitRecord {
    fn from(old: WaitRecordV1) -> Self {
        WaitRecordV2::from(old).into()
    }
}

/// One step at a time: a V1 record is a V2 record that watched everything.
impl From<WaitRecordV1> for WaitRecordV2 {
    fn from(old: WaitRecordV1) -> Self {
        WaitRecordV2 {
            id: old.id,
            target: old.target,
            condition: old.condition,
            task_id: old.task_id,
            session_key: old.session_key,
            state: old.state,
            created_at: old.created_at,
            started_at: old.started_at,
            deadline: old.deadline,
            timeout_s: old.timeout_s,
            poll_interval_ms: old.poll_interval_ms,
            last_observation: old.last_observation,
            ended_at: old.ended_at,
            counters: old.counters,
            history: old.history,
            match_existing: true,
            baseline: None,
        }
    }
}

/// `WaitRecord` as schema version 5 wrote it before the boot-relative deadline.
#[derive(Deserialize)]
pub struct WaitRecordV2 {
    id: WaitId,
    target: String,
    condition: String,
    task_id: Option<TaskId>,
    session_key: Option<String>,
    state: WaitState,
    created_at: Timestamp,
    started_at: Timestamp,
    deadline: Timestamp,
    timeout_s: u64,
    poll_interval_ms: u64,
    last_observation: Option<String>,
    ended_at: Option<Timestamp>,
    counters: WaitCounters,
    history: Vec<WaitHistoryEntry>,
    match_existing: bool,
    baseline: Option<TextBaseline>,
}

impl From<WaitRecordV2> for WaitRecord {
    fn from(old: WaitRecordV2) -> Self {
        WaitRecordV3::from(old).into()
    }
}

/// One step at a time: a V2 record is a V3 record with no boot-relative deadline.
impl From<WaitRecordV2> for WaitRecordV3 {
    fn from(old: WaitRecordV2) -> Self {
        WaitRecordV3 {
            id: old.id,
            target: old.target,
            condition: old.condition,
            task_id: old.task_id,
            session_key: old.session_key,
            state: old.state,
            created_at: old.created_at,
            started_at: old.started_at,
            deadline: old.deadline,
            timeout_s: old.timeout_s,
            poll_interval_ms: old.poll_interval_ms,
            last_observation: old.last_observation,
            ended_at: old.ended_at,
            counters: old.counters,
            history: old.history,
            match_existing: old.match_existing,
            baseline: old.baseline,
            deadline_boot: None,
        }
    }
}

/// `WaitRecord` as record format V3 wrote it (before a wait could prove a step).
#[derive(Deserialize)]
pub struct WaitRecordV3 {
    id: WaitId,
    target: String,
    condition: String,
    task_id: Option<TaskId>,
    session_key: Option<String>,
    state: WaitState,
    created_at: Timestamp,
    started_at: Timestamp,
    deadline: Timestamp,
    timeout_s: u64,
    poll_interval_ms: u64,
    last_observation: Option<String>,
    ended_at: Option<Timestamp>,
    counters: WaitCounters,
    history: Vec<WaitHistoryEntry>,
    match_existing: bool,
    baseline: Option<TextBaseline>,
    deadline_boot: Option<BootDeadline>,
}

impl From<WaitRecordV3> for WaitRecord {
    fn from(old: WaitRecordV3) -> Self {
        WaitRecord {
            id: old.id,
            target: old.target,
            condition: old.condition,
            task_id: old.task_id,
            session_key: old.session_key,
            state: old.state,
            created_at: old.created_at,
            started_at: old.started_at,
            deadline: old.deadline,
            timeout_s: old.timeout_s,
            poll_interval_ms: old.poll_interval_ms,
            last_observation: old.last_observation,
            ended_at: old.ended_at,
            counters: old.counters,
            history: old.history,
            match_existing: old.match_existing,
            baseline: old.baseline,
            deadline_boot: old.deadline_boot,
            step: None,
        }
    }
}
