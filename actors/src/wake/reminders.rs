//! Wakes the agent never took come back once. Delivery is at least once to the sink, not to
//! the agent: a runtime that accepted a wake may still drop it (its session ended, it
//! restarted, the agent compacted before reading it). A wake counts as taken when the agent
//! next calls about its wait or its task (`wait_status`, `wait_update`, `wait_cancel`,
//! `task_update`, `task_get`; `lookout wait` asks `wait_status`). One not taken within
//! `remind_after` is delivered once more, as a new event of the same kind whose text opens
//! with "Reminder" and names the first event's id, through the same sinks and channels.
//!
//! What the agent called about is kept in memory: the wakes of a daemon's own run are
//! reminded, not those from before it started.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use storage::{EventKind, EventRecord, Store, Timestamp, WriteBatch};

use crate::directory::Directory;
use crate::locks::lock;
use crate::registry;
use crate::wake::event::{event_id, with_event_id, without_event_id};
use crate::wake::outbox::{self, NewEvent, Staged};

/// The newest events a scan looks at.
const SCANNED_EVENTS: usize = 500;

/// What the agent called about, and which wakes were reminded.
#[derive(Debug, Default)]
pub struct Attention {
    inner: Mutex<AttentionState>,
}

#[derive(Debug, Default)]
struct AttentionState {
    /// The last call about each task or wait id.
    last_call: HashMap<String, Timestamp>,
    /// Events reminded (by seq), and the reminders themselves.
    reminded: HashSet<u64>,
    reminders: HashSet<u64>,
    /// When this daemon started: older wakes are not reminded.
    since: Option<Timestamp>,
    counts: WakeAttention,
}

/// How the wakes of this run fared with the agent, as of the last scan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WakeAttention {
    pub taken: u64,
    /// Not taken yet (reminded or not).
    pub not_taken: u64,
    pub reminded: u64,
}

impl Attention {
    /// Wakes from `now` on are followed.
    pub fn start(&self, now: Timestamp) {
        lock(&self.inner).since.get_or_insert(now);
    }

    /// The agent called about this task or wait id at `now`.
    pub fn took(&self, id: &str, now: Timestamp) {
        lock(&self.inner).last_call.insert(id.to_owned(), now);
    }

    pub fn counts(&self) -> WakeAttention {
        lock(&self.inner).counts
    }

    /// Whether the agent called about the event's task or wait since it was made.
    fn is_taken(state: &AttentionState, event: &EventRecord) -> bool {
        let called_since = |id: &str| {
            state
                .last_call
                .get(id)
                .is_some_and(|at| *at >= event.created_at)
        };
        event
            .task_id
            .as_ref()
            .is_some_and(|id| called_since(id.as_str()))
            || event.wait_id.as_deref().is_some_and(called_since)
    }

    /// The wakes of this run not taken yet (reminders aside), oldest first.
    pub fn not_taken<'e>(&self, events: &'e [EventRecord]) -> Vec<&'e EventRecord> {
        let state = lock(&self.inner);
        events
            .iter()
            .filter(|event| followed(&state, event) && !Self::is_taken(&state, event))
            .collect()
    }
}

/// An event of this run that is a wake of its own: not a reminder, and not a stuck alert
/// (which comes again by itself after its cooldown).
fn followed(state: &AttentionState, event: &EventRecord) -> bool {
    state.since.is_some_and(|since| event.created_at >= since)
        && !state.reminders.contains(&event.seq)
        && event.kind != EventKind::TaskStuck
}

/// Reminds each wake of this run not taken within `remind_after` (once), and counts how
/// the wakes fared. Returns how many reminders it staged.
pub async fn remind(directory: &Directory, attention: &Attention, remind_after: Duration) -> usize {
    let Ok(registry) = directory.registry() else {
        return 0;
    };
    let Ok(events) = registry::read(&registry, |store: &Store| {
        store.recent_events(SCANNED_EVENTS)
    })
    .await
    else {
        return 0;
    };
    let now = directory.now();
    let due: Vec<EventRecord> = {
        let mut state = lock(&attention.inner);
        let mut counts = WakeAttention {
            reminded: state.reminded.len() as u64,
            ..WakeAttention::default()
        };
        let mut due = Vec::new();
        for event in events.iter().filter(|event| followed(&state, event)) {
            if Attention::is_taken(&state, event) {
                counts.taken += 1;
                continue;
            }
            counts.not_taken += 1;
            let old_enough =
                now.0.saturating_sub(event.created_at.0) >= remind_after.as_millis() as u64;
            if old_enough && !state.reminded.contains(&event.seq) {
                due.push(event.clone());
            }
        }
        counts.reminded += due.len() as u64;
        state.reminded.extend(due.iter().map(|event| event.seq));
        state.counts = counts;
        due
    };
    if due.is_empty() {
        return 0;
    }
    let mut batch = WriteBatch::new();
    let mut staged = Staged::default();
    let mut reminders = Vec::new();
    for event in &due {
        let original = event_id(event.seq);
        let text = without_event_id(&event.text, &original).unwrap_or(&event.text);
        let waited = now.0.saturating_sub(event.created_at.0) / 1000;
        let seq = staged.stage(
            directory,
            &mut batch,
            NewEvent {
                kind: event.kind,
                task_id: event.task_id.clone(),
                wait_id: event.wait_id.clone(),
                session_key: event.session_key.clone(),
            },
            |id| {
                with_event_id(
                    &format!(
                        "Reminder: nothing was asked about this wake ({original}) in {waited}s. \
                         {text}"
                    ),
                    id,
                )
            },
        );
        reminders.push(seq);
    }
    lock(&attention.inner).reminders.extend(reminders);
    let count = due.len();
    if let Err(error) = outbox::commit_and_announce(directory, batch, staged).await {
        tracing::warn!(%error, "reminders of wakes not taken were not written");
        return 0;
    }
    tracing::info!(reminders = count, "reminded wakes the agent did not take");
    count
}
