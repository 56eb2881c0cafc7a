//! Sample records for the tests and benchmarks of every crate (feature `testkit`, and this
//! crate's own tests; never in the daemon): the task the examples use, written once.

use std::collections::BTreeSet;

use crate::{Status, TaskId, TaskRecord, Timestamp};

/// The plan of the examples' deploy.
pub const DEPLOY_PLAN: [&str; 5] = [
    "Build Docker image",
    "Push to registry",
    "SSH into server",
    "Pull and run",
    "Verify",
];

/// "Deploy coursefolio to production" (`t-7k2m9q`), active, with `plan` and its steps `done`
/// (1-based) completed; created and updated at time 0, no messages, waits or metadata.
/// Change what a test needs with struct update syntax.
pub fn deploy_task(plan: &[&str], done: &[u32]) -> TaskRecord {
    TaskRecord {
        id: TaskId::new("t-7k2m9q"),
        name: "Deploy coursefolio to production".into(),
        status: Status::Active,
        plan: plan.iter().map(|step| (*step).to_owned()).collect(),
        completed_steps: done.iter().copied().collect::<BTreeSet<_>>(),
        current_step: None,
        metadata_json: "{}".into(),
        session_key: None,
        agent_id: None,
        created_at: Timestamp(0),
        updated_at: Timestamp(0),
        last_seq: 0,
        plan_revisions: 0,
        active_wait_ids: vec![],
        last_wait_state: None,
        last_wait_event_at: None,
        last_stuck_alert_at: None,
        stuck_threshold_s: None,
        origin: None,
        step_evidence: Default::default(),
    }
}
