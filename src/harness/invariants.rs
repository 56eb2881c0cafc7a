//! The invariants every harness scenario must leave intact, read from the database itself
//! and from what the recording sink received:
//!
//! 1. the file passes redb's integrity check;
//! 2. every acknowledged write is there: registered tasks, each `task_update` message (at
//!    least as often as it was acknowledged), waits, and the state of a wait whose last
//!    acknowledged call was a cancel; a task's `last_seq` is its newest message and the
//!    per-status task counts equal the status index (no write applied by half);
//! 3. every wait is in exactly one state: live exactly when it is in the live index; a
//!    task's `active_wait_ids` name live waits only, and every live wait of a task is there;
//! 4. no task was alerted as stuck twice within the cooldown;
//! 5. every outbox event is delivered or still pending, none lost: the pending index holds
//!    exactly the unsettled events, and an event recorded as delivered reached the sink.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

use actors::wake::event::WakeEvent;
use storage::{DeliveryOutcome, EventKind, StatusFilter, StorageError, Store, WaitState};

use super::{Harness, Ledger, SINK};

/// What the checks looked at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub tasks: usize,
    pub acknowledged_notes: usize,
    pub waits: usize,
    pub live_waits: usize,
    pub events: usize,
    pub pending_events: usize,
    pub delivered: usize,
    /// Events the sink received more than once (at-least-once delivery allows it after a
    /// crash between delivering and recording the delivery).
    pub duplicate_deliveries: usize,
    pub stuck_alerts: usize,
}

/// The invariants broken, one line each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violations(pub Vec<String>);

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} invariant(s) broken:", self.0.len())?;
        for violation in &self.0 {
            write!(f, "\n  - {violation}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Violations {}

pub(super) async fn check(harness: &Harness) -> Result<Report, Violations> {
    let store = harness.store().clone();
    let ledger = harness.ledger();
    let received = harness.sink().received();
    let cooldown = Duration::from_secs(harness.config().stuck.cooldown_s);
    tokio::task::spawn_blocking(move || {
        let mut broken = Vec::new();
        match check_store(&store, &ledger, &received, cooldown, &mut broken) {
            Ok(report) if broken.is_empty() => Ok(report),
            Ok(_) => Err(Violations(broken)),
            Err(error) => {
                broken.push(format!("cannot read the database: {error}"));
                Err(Violations(broken))
            }
        }
    })
    .await
    .unwrap_or_else(|panic| Err(Violations(vec![format!("the checks panicked: {panic}")])))
}

fn check_store(
    store: &Store,
    ledger: &Ledger,
    received: &[WakeEvent],
    cooldown: Duration,
    broken: &mut Vec<String>,
) -> Result<Report, StorageError> {
    let mut report = Report::default();
    // 1. The file.
    match store.check_integrity() {
        Ok(true) => {}
        Ok(false) => broken.push("redb's integrity check found damage (and repaired it)".into()),
        Err(error) => broken.push(format!("redb's integrity check failed: {error}")),
    }

    // 2. Acknowledged writes.
    let tasks: BTreeMap<String, _> = store
        .list_tasks(&StatusFilter::All, usize::MAX)?
        .tasks
        .into_iter()
        .map(|task| (task.id.to_string(), task))
        .collect();
    report.tasks = tasks.len();
    let counted = store.count_tasks_by_status()?;
    let kept = store.stats()?.tasks_by_status;
    if kept != counted {
        broken.push(format!(
            "the per-status task counts {kept:?} differ from the status index {counted:?}"
        ));
    }
    for id in &ledger.tasks {
        if !tasks.contains_key(id) {
            broken.push(format!("acknowledged task {id} is missing"));
        }
    }
    let mut acknowledged: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (task, note) in &ledger.notes {
        *acknowledged.entry((task, note)).or_default() += 1;
    }
    report.acknowledged_notes = ledger.notes.len();
    for (id, task) in &tasks {
        let thread = store.thread(&task.id, None, usize::MAX)?;
        let newest = thread.last().map_or(0, |(seq, _)| *seq);
        if newest != task.last_seq {
            broken.push(format!(
                "task {id} says its newest message is #{}, the thread ends at #{newest}",
                task.last_seq
            ));
        }
        for ((task_id, note), times) in acknowledged.range((id.as_str(), "")..) {
            if *task_id != id {
                break;
            }
            let stored = thread.iter().filter(|(_, m)| m.content == *note).count();
            if stored < *times {
                broken.push(format!(
                    "task {id}: message {note:?} acknowledged {times} time(s), stored {stored}"
                ));
            }
        }
    }

    // 3. Waits.
    let waits = store.waits()?;
    let live_index: BTreeSet<String> = store.live_wait_ids()?.into_iter().collect();
    report.waits = waits.len();
    report.live_waits = live_index.len();
    let by_id: BTreeMap<String, _> = waits.iter().map(|w| (w.id.to_string(), w)).collect();
    for wait in &waits {
        let id = wait.id.to_string();
        if wait.is_live() != live_index.contains(&id) {
            broken.push(format!(
                "wait {id} is {} but {} the live index",
                wait.state.as_str(),
                if wait.is_live() {
                    "missing from"
                } else {
                    "still in"
                }
            ));
        }
        if let Some(task_id) = &wait.task_id
            && wait.is_live()
            && tasks
                .get(task_id.as_str())
                .is_some_and(|task| !task.active_wait_ids.contains(&id))
        {
            broken.push(format!(
                "live wait {id} is missing from task {task_id}'s active_wait_ids"
            ));
        }
    }
    for (id, cancelled) in &ledger.waits {
        match by_id.get(id) {
            None => broken.push(format!("acknowledged wait {id} is missing")),
            Some(wait) if *cancelled && wait.state != WaitState::Cancelled => broken.push(format!(
                "wait {id} was cancelled (acknowledged) but is {}",
                wait.state.as_str()
            )),
            Some(_) => {}
        }
    }
    for (id, task) in &tasks {
        for wait_id in &task.active_wait_ids {
            match by_id.get(wait_id) {
                Some(wait) if wait.is_live() => {}
                Some(wait) => broken.push(format!(
                    "wait {wait_id} is {} yet still in task {id}'s active_wait_ids",
                    wait.state.as_str()
                )),
                None => broken.push(format!(
                    "task {id}'s active_wait_ids names {wait_id}, which does not exist"
                )),
            }
        }
    }

    // 4. Stuck alerts and 5. the outbox.
    let events = store.recent_events(usize::MAX)?;
    let pending: BTreeSet<u64> = store.pending_event_seqs()?.into_iter().collect();
    report.events = events.len();
    report.pending_events = pending.len();
    let mut times_received: BTreeMap<u64, usize> = BTreeMap::new();
    for event in received {
        *times_received.entry(event.seq).or_default() += 1;
    }
    report.duplicate_deliveries = times_received.values().filter(|n| **n > 1).count();
    let stored: BTreeSet<u64> = events.iter().map(|e| e.seq).collect();
    for seq in times_received.keys() {
        if !stored.contains(seq) {
            broken.push(format!(
                "the sink received event e-{seq:06}, which is not stored"
            ));
        }
    }
    let mut alerts: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for event in &events {
        let id = event.id();
        if event.settled == pending.contains(&event.seq) {
            broken.push(format!(
                "event {id} is {} but {} the pending index",
                if event.settled {
                    "settled"
                } else {
                    "unsettled"
                },
                if event.settled {
                    "still in"
                } else {
                    "missing from"
                }
            ));
        }
        let delivered = event.deliveries.iter().any(|delivery| {
            delivery.sink == SINK && matches!(delivery.outcome, DeliveryOutcome::Delivered { .. })
        });
        if delivered {
            report.delivered += 1;
            if !times_received.contains_key(&event.seq) {
                broken.push(format!(
                    "event {id} is recorded as delivered but the sink never received it"
                ));
            }
        }
        if event.kind == EventKind::TaskStuck
            && let Some(task) = &event.task_id
        {
            alerts
                .entry(task.to_string())
                .or_default()
                .push(event.created_at.as_millis());
        }
    }
    let cooldown_ms = u64::try_from(cooldown.as_millis()).unwrap_or(u64::MAX);
    for (task, mut times) in alerts {
        report.stuck_alerts += times.len();
        times.sort_unstable();
        for pair in times.windows(2) {
            if pair[1] - pair[0] < cooldown_ms {
                broken.push(format!(
                    "task {task} was alerted as stuck twice within {}s ({} ms apart)",
                    cooldown.as_secs(),
                    pair[1] - pair[0]
                ));
            }
        }
    }
    Ok(report)
}
