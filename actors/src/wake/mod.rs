//! Wake: drains the durable outbox to the sinks.
//!
//! An event is written to the outbox in the same transaction as the change that caused it;
//! its writer then tells this actor, which also reloads every unsettled event when it
//! starts, so nothing committed is ever lost. Per sink, events of one task (or one wait) go
//! out in order: a later one waits while an earlier one is retried. A failed attempt is
//! retried after 1 s, doubling to 5 min, until `max_attempts`, then recorded as dead. Every
//! attempt's outcome is persisted. Delivery is at least once: a crash after a sink accepted
//! an event but before the outcome was written means that sink sees it again (with the same
//! event id, so receivers can de-duplicate).
//!
//! Subscribers (`events.subscribe`) get each new event live through a broadcast channel;
//! they are not tracked.

pub mod event;
pub mod gateway;
pub mod outbox;
pub mod reminders;
pub mod sinks;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::{
    Counter, DeliveryOutcome, EventRecord, Mutation, SinkDelivery, Store, Timestamp, WriteBatch,
};

use crate::directory::Directory;
use crate::faults::ActorKind;
use crate::registry;
use event::WakeEvent;
use sinks::{Delivery, Sink};

/// Attempts running at once per sink.
pub const MAX_IN_FLIGHT_PER_SINK: usize = 8;
/// The first retry waits this long; each further one twice as long, up to [`MAX_RETRY_DELAY`].
pub const FIRST_RETRY_DELAY: Duration = Duration::from_secs(1);
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(300);
/// A sink that has not answered after this long has failed the attempt (sinks have their
/// own, shorter timeouts; this bounds a misbehaving one).
pub const ATTEMPT_TIMEOUT_CAP: Duration = Duration::from_secs(600);
/// How long an attempt waits for its outcome to be recorded.
const RECORD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a waited-for pump lets its attempts run.
pub const PUMP_TIMEOUT: Duration = Duration::from_secs(660);
/// The retry timer's name in the timer registry.
const RETRY_TIMER: &str = "wake-retry";

/// How often a destination that is not there (a gateway that is down) is looked for while
/// events wait for it.
pub const DESTINATION_RECHECK: Duration = Duration::from_secs(1);

/// How long to wait before the next attempt, after `failed_attempts` failures.
pub fn retry_delay(failed_attempts: u32) -> Duration {
    let doublings = failed_attempts.saturating_sub(1).min(20);
    FIRST_RETRY_DELAY
        .saturating_mul(1 << doublings)
        .min(MAX_RETRY_DELAY)
}

#[derive(Clone)]
pub struct WakeSettings {
    pub sinks: Vec<Arc<dyn Sink>>,
    /// Attempts per event and sink before it is recorded as dead.
    pub max_attempts: u32,
    /// The attempts running, shared with the actor's restarts: a restarted Wake actor does not
    /// start an event on a sink while its predecessor's attempt at it still runs.
    pub in_flight: InFlight,
    /// What the agent called about, shared with the tree (which sees the calls).
    pub attention: Arc<reminders::Attention>,
    /// A wake not taken this long is delivered once more; `None`: never.
    pub remind_after: Option<Duration>,
}

/// The timer of the reminder scan.
const REMINDER_TIMER: &str = "wake-reminders";
/// The reminder scan runs this often at most (a tenth of `remind_after`, at least 1 s).
const LONGEST_REMINDER_SCAN: Duration = Duration::from_secs(30);

impl Default for WakeSettings {
    fn default() -> Self {
        Self {
            sinks: Vec::new(),
            max_attempts: 20,
            in_flight: InFlight::default(),
            attention: Arc::default(),
            remind_after: Some(Duration::from_secs(600)),
        }
    }
}

/// Follows the wakes from now on and scans for those not taken (see [`reminders`]).
fn start_reminders(state: &WakeState) {
    let settings = &state.settings;
    let now = state.directory.now();
    settings.attention.start(now);
    let Some(remind_after) = settings.remind_after else {
        return;
    };
    let period = (remind_after / 10).clamp(Duration::from_secs(1), LONGEST_REMINDER_SCAN);
    let first = now.saturating_add_millis(period.as_millis() as u64);
    let (directory, attention) = (state.directory.clone(), settings.attention.clone());
    state
        .directory
        .timers()
        .every(REMINDER_TIMER, first, period, move || {
            let (directory, attention) = (directory.clone(), attention.clone());
            async move {
                reminders::remind(&directory, &attention, remind_after).await;
            }
        });
}

/// (event seq, sink index) pairs being attempted.
#[derive(Clone, Debug, Default)]
pub struct InFlight(Arc<std::sync::Mutex<HashSet<(u64, usize)>>>);

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<(u64, usize)>> {
        crate::locks::lock(&self.0)
    }

    fn contains(&self, attempt: (u64, usize)) -> bool {
        self.lock().contains(&attempt)
    }

    fn insert(&self, attempt: (u64, usize)) {
        self.lock().insert(attempt);
    }

    fn remove(&self, attempt: (u64, usize)) {
        self.lock().remove(&attempt);
    }

    fn on_sink(&self, sink: usize) -> usize {
        self.lock().iter().filter(|(_, s)| *s == sink).count()
    }

    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Takes an attempt out of [`InFlight`] when its task ends, however it ends (recorded, the
/// actor gone, the task aborted).
struct Attempting(InFlight, (u64, usize));

impl Drop for Attempting {
    fn drop(&mut self) {
        self.0.remove(self.1);
    }
}

pub enum WakeMsg {
    /// These events were just committed.
    Enqueued(Vec<u64>),
    /// Start every due delivery. With a reply port, answer (with the number started) once
    /// those attempts have been recorded.
    Pump(Option<RpcReplyPort<usize>>),
    /// An attempt finished; record it.
    Attempted {
        seq: u64,
        sink: usize,
        delivery: Delivery,
        reply: RpcReplyPort<()>,
    },
    Stats(RpcReplyPort<WakeStats>),
}

/// Counters for `daemon.status`: pending now, the rest since the actor started.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WakeStats {
    pub sinks: Vec<String>,
    /// Each sink's [`Sink::state`], in the order of `sinks`.
    pub sink_states: Vec<Option<String>>,
    pub pending: usize,
    /// Attempts running right now.
    pub in_flight: usize,
    pub delivered: u64,
    pub failed_attempts: u64,
    pub dead: u64,
    pub rejected: u64,
}

pub struct WakeActor;

pub struct WakeArgs {
    pub directory: Directory,
    pub settings: WakeSettings,
}

pub struct WakeState {
    directory: Directory,
    settings: WakeSettings,
    /// Unsettled events by seq.
    pending: BTreeMap<u64, EventRecord>,
    stats: WakeStats,
}

impl Actor for WakeActor {
    type Msg = WakeMsg;
    type State = WakeState;
    type Arguments = WakeArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<WakeMsg>,
        args: WakeArgs,
    ) -> Result<WakeState, ActorProcessingErr> {
        let stored = registry::read(&args.directory.registry()?, |store: &Store| {
            store.pending_events()
        })
        .await?;
        let sinks = args
            .settings
            .sinks
            .iter()
            .map(|sink| sink.name().to_owned())
            .collect();
        let mut state = WakeState {
            directory: args.directory,
            settings: args.settings,
            pending: BTreeMap::new(),
            stats: WakeStats {
                sinks,
                ..WakeStats::default()
            },
        };
        if !stored.is_empty() {
            tracing::info!(
                events = stored.len(),
                "resuming delivery of events left pending"
            );
        }
        admit(&mut state, stored).await;
        start_reminders(&state);
        Ok(state)
    }

    async fn post_start(
        &self,
        _myself: ActorRef<WakeMsg>,
        state: &mut WakeState,
    ) -> Result<(), ActorProcessingErr> {
        pump(state);
        Ok(())
    }

    async fn handle(
        &self,
        _myself: ActorRef<WakeMsg>,
        msg: WakeMsg,
        state: &mut WakeState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.faults().check(ActorKind::Wake);
        match msg {
            WakeMsg::Enqueued(seqs) => {
                let fresh: Vec<u64> = seqs
                    .into_iter()
                    .filter(|seq| !state.pending.contains_key(seq))
                    .collect();
                let registry = state.directory.registry()?;
                let events =
                    registry::read(&registry, move |store: &Store| store.events(&fresh)).await?;
                for event in &events {
                    // No subscriber is not an error.
                    let _ = state.directory.events().send(WakeEvent::from_record(event));
                }
                admit(state, events).await;
                pump(state);
            }
            WakeMsg::Pump(reply) => {
                let started = pump(state);
                if let Some(reply) = reply {
                    let count = started.len();
                    tokio::spawn(async move {
                        let all = async {
                            for attempt in started {
                                let _ = attempt.await;
                            }
                        };
                        let _ = tokio::time::timeout(PUMP_TIMEOUT, all).await;
                        let _ = reply.send(count);
                    });
                }
            }
            WakeMsg::Attempted {
                seq,
                sink,
                delivery,
                reply,
            } => {
                state.settings.in_flight.remove((seq, sink));
                record_attempt(state, seq, sink, delivery).await;
                pump(state);
                let _ = reply.send(());
            }
            WakeMsg::Stats(reply) => {
                let _ = reply.send(WakeStats {
                    sink_states: state
                        .settings
                        .sinks
                        .iter()
                        .map(|sink| sink.state())
                        .collect(),
                    pending: state.pending.len(),
                    in_flight: state.settings.in_flight.len(),
                    ..state.stats.clone()
                });
            }
        }
        Ok(())
    }
}

/// Takes events into the queue, adding a delivery record for each configured sink; events
/// with nothing left to do are marked settled and saved.
async fn admit(state: &mut WakeState, events: Vec<EventRecord>) {
    let mut settle_now = WriteBatch::new();
    for mut event in events {
        for sink in &state.settings.sinks {
            if sink.owes(event.session_key.as_deref())
                && !event.deliveries.iter().any(|d| d.sink == sink.name())
            {
                event.deliveries.push(SinkDelivery {
                    sink: sink.name().to_owned(),
                    attempts: 0,
                    next_attempt_at: event.created_at,
                    outcome: DeliveryOutcome::Pending { last_error: None },
                });
            }
        }
        event.settled = is_settled(&state.settings, &event);
        if event.settled {
            settle_now.push(Mutation::PutEvent(event));
        } else {
            state.pending.insert(event.seq, event);
        }
    }
    if !settle_now.is_empty() {
        persist(state, settle_now).await;
    }
}

/// Every configured sink the event is for has delivered, refused or given up (true with no
/// such sink: those events are for live subscribers only).
fn is_settled(settings: &WakeSettings, event: &EventRecord) -> bool {
    let key = event.session_key.as_deref();
    settings
        .sinks
        .iter()
        .filter(|sink| sink.owes(key))
        .all(|sink| {
            event
                .deliveries
                .iter()
                .any(|d| d.sink == sink.name() && d.outcome.is_settled())
        })
}

/// Starts every due attempt whose event heads its (sink, task) queue; arms the retry timer
/// for the next one that is not due yet. Returns the started attempts.
fn pump(state: &mut WakeState) -> Vec<tokio::task::JoinHandle<()>> {
    let now = state.directory.now();
    let mut to_start: Vec<(usize, WakeEvent)> = Vec::new();
    let mut next_due: Option<Timestamp> = None;
    for (index, sink) in state.settings.sinks.iter().enumerate() {
        let mut running = state.settings.in_flight.on_sink(index);
        let mut heads_seen: HashSet<&str> = HashSet::new();
        for (seq, event) in &state.pending {
            let Some(delivery) = event.deliveries.iter().find(|d| d.sink == sink.name()) else {
                continue;
            };
            if delivery.outcome.is_settled() {
                continue;
            }
            // Only the oldest unsettled event of a task (or wait) may go to this sink.
            let key = event
                .task_id
                .as_ref()
                .map(|id| id.as_str())
                .or(event.wait_id.as_deref());
            if let Some(key) = key
                && !heads_seen.insert(key)
            {
                continue;
            }
            if state.settings.in_flight.contains((*seq, index)) {
                continue;
            }
            if delivery.next_attempt_at > now {
                let at = delivery.next_attempt_at;
                next_due = Some(next_due.map_or(at, |earliest| earliest.min(at)));
                continue;
            }
            if running < MAX_IN_FLIGHT_PER_SINK {
                running += 1;
                to_start.push((index, WakeEvent::from_record(event)));
            }
        }
    }
    arm_retry_timer(state, next_due);
    to_start
        .into_iter()
        .map(|(index, event)| {
            state.settings.in_flight.insert((event.seq, index));
            let attempting = Attempting(state.settings.in_flight.clone(), (event.seq, index));
            start_attempt(
                &state.directory,
                state.settings.sinks[index].clone(),
                index,
                event,
                attempting,
            )
        })
        .collect()
}

/// Runs one attempt and has its outcome recorded by the Wake actor serving then (a successor,
/// if this one was restarted meanwhile: it reloaded the event and kept off it while this ran).
fn start_attempt(
    directory: &Directory,
    sink: Arc<dyn Sink>,
    index: usize,
    event: WakeEvent,
    attempting: Attempting,
) -> tokio::task::JoinHandle<()> {
    let directory = directory.clone();
    let seq = event.seq;
    tokio::spawn(async move {
        let _attempting = attempting;
        let delivery = match tokio::time::timeout(ATTEMPT_TIMEOUT_CAP, sink.deliver(event)).await {
            Ok(delivery) => delivery,
            Err(_) => Delivery::Retry(format!(
                "no answer within {}s",
                ATTEMPT_TIMEOUT_CAP.as_secs()
            )),
        };
        let Ok(wake) = directory.wake() else {
            return;
        };
        let _ = wake
            .call(
                |reply| WakeMsg::Attempted {
                    seq,
                    sink: index,
                    delivery,
                    reply,
                },
                Some(RECORD_TIMEOUT),
            )
            .await;
    })
}

fn arm_retry_timer(state: &WakeState, next_due: Option<Timestamp>) {
    let timers = state.directory.timers();
    let Some(at) = next_due else {
        timers.cancel(RETRY_TIMER);
        return;
    };
    if timers
        .deadline(RETRY_TIMER)
        .is_some_and(|armed| armed <= at)
    {
        return;
    }
    let directory = state.directory.clone();
    timers.at(RETRY_TIMER, at, move || async move {
        if let Ok(wake) = directory.wake() {
            let _ = wake
                .call(|reply| WakeMsg::Pump(Some(reply)), Some(PUMP_TIMEOUT))
                .await;
        }
    });
}

/// Applies an attempt's outcome to its event and saves it.
async fn record_attempt(state: &mut WakeState, seq: u64, index: usize, delivery: Delivery) {
    let now = state.directory.now();
    let max_attempts = state.settings.max_attempts;
    let Some(sink_name) = state
        .settings
        .sinks
        .get(index)
        .map(|sink| sink.name().to_owned())
    else {
        return;
    };
    let Some(event) = state.pending.get_mut(&seq) else {
        return;
    };
    let Some(record) = event.deliveries.iter_mut().find(|d| d.sink == sink_name) else {
        return;
    };
    record.attempts += 1;
    let mut batch = WriteBatch::new();
    let id = event::event_id(seq);
    match delivery {
        Delivery::Delivered => {
            record.outcome = DeliveryOutcome::Delivered { at: now };
            state.stats.delivered += 1;
        }
        Delivery::Reject(error) => {
            tracing::warn!(event = %id, sink = %sink_name, %error, "the sink refused the event; not retrying");
            record.outcome = DeliveryOutcome::Rejected { at: now, error };
            state.stats.rejected += 1;
            batch.push(Mutation::AddToCounter {
                counter: Counter::RejectedDeliveries,
                by: 1,
            });
        }
        Delivery::Retry(error) if record.attempts >= max_attempts => {
            tracing::error!(event = %id, sink = %sink_name, attempts = record.attempts, %error, "giving up on the event");
            record.outcome = DeliveryOutcome::Dead { at: now, error };
            state.stats.failed_attempts += 1;
            state.stats.dead += 1;
            batch.push(Mutation::AddToCounter {
                counter: Counter::DeadDeliveries,
                by: 1,
            });
        }
        Delivery::Unreachable(error) => {
            // The destination's absence is not the event's fault: no attempt counted, and a
            // short fixed wait, so the event goes out within a recheck of its return.
            record.attempts -= 1;
            tracing::debug!(event = %id, sink = %sink_name, %error, "the destination is not there; looking again shortly");
            record.next_attempt_at =
                now.saturating_add_millis(DESTINATION_RECHECK.as_millis() as u64);
            record.outcome = DeliveryOutcome::Pending {
                last_error: Some(error),
            };
            state.stats.failed_attempts += 1;
        }
        Delivery::Retry(error) => {
            let delay = retry_delay(record.attempts);
            tracing::warn!(event = %id, sink = %sink_name, attempt = record.attempts, retry_in_s = delay.as_secs(), %error, "delivery failed");
            record.next_attempt_at = now.saturating_add_millis(delay.as_millis() as u64);
            record.outcome = DeliveryOutcome::Pending {
                last_error: Some(error),
            };
            state.stats.failed_attempts += 1;
        }
    }
    event.settled = is_settled(&state.settings, event);
    batch.push(Mutation::PutEvent(event.clone()));
    if event.settled {
        state.pending.remove(&seq);
    }
    persist(state, batch).await;
}

async fn persist(state: &WakeState, batch: WriteBatch) {
    let outcome = match state.directory.registry() {
        Ok(registry) => registry::write(&registry, batch).await,
        Err(error) => Err(error),
    };
    if let Err(error) = outcome {
        // The outcome stays in memory; after a restart the attempt is repeated (at least once).
        tracing::error!(%error, "cannot save a delivery outcome");
    }
}

/// Tells the Wake actor that these events were committed. If it is restarting it reloads
/// them from storage anyway.
pub fn notify(directory: &Directory, seqs: Vec<u64>) {
    if seqs.is_empty() {
        return;
    }
    if let Ok(wake) = directory.wake() {
        let _ = wake.cast(WakeMsg::Enqueued(seqs));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_from_one_second_to_five_minutes() {
        let delays: Vec<u64> = (1..=12).map(|n| retry_delay(n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
        assert_eq!(retry_delay(u32::MAX), MAX_RETRY_DELAY);
    }
}
