//! The directory: where each long-lived actor of the tree currently lives.
//!
//! A restarted actor has a new `ActorRef`; the Root writes it here, and everyone (the
//! other actors and the socket edge) looks peers up here per request instead of keeping a
//! ref that may have gone stale. It also carries what the whole tree shares and what must
//! outlive any one actor: the clock and the timer registry, the fault switches, the event
//! sequence, the live event broadcast, the count of the database's commits, the tree's
//! health and the lanes of blocking work.
//! Domain state lives in the handles that use it, not here: the terminal sessions in their
//! table (held by the Terminals actor and the `pty:` sources), the cost of judging in the
//! vision handle (`Tree::judge`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use ractor::ActorRef;
use storage::Timestamp;
use tokio::sync::{broadcast, watch};

use crate::clock::{Clock, ClockMsg, Timers};
use crate::error::CallError;
use crate::faults::Faults;
use crate::lanes::Lanes;
use crate::recall::RecallMsg;
use crate::recall::recorder::RecorderMsg;
use crate::registry::RegistryMsg;
use crate::tasks::TasksMsg;
use crate::terminals::TerminalsMsg;
use crate::vision::VisionMsg;
use crate::waits::WaitsMsg;
use crate::wake::WakeMsg;
use crate::wake::event::WakeEvent;

/// Events a slow subscriber may fall behind by before it misses some.
pub const SUBSCRIBER_BACKLOG: usize = 1024;

/// Whether the tree is serving. Failed means the root gave up and the daemon must exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Health {
    Starting,
    Serving,
    Failed(String),
}

#[derive(Clone)]
pub struct Directory {
    peers: Arc<RwLock<Peers>>,
    clock: Arc<dyn Clock>,
    timers: Timers,
    faults: Faults,
    health: Arc<watch::Sender<Health>>,
    events: broadcast::Sender<WakeEvent>,
    /// The seq of the newest event allocated.
    event_sequence: Arc<AtomicU64>,
    /// The threads blocking work runs on, one pool per kind (storage, commits, targets).
    lanes: Lanes,
    /// How many transactions the Registry committed since the daemon started: what tells
    /// the recall index that the record moved on.
    commits: Arc<watch::Sender<u64>>,
}

#[derive(Default)]
struct Peers {
    registry: Option<ActorRef<RegistryMsg>>,
    clock: Option<ActorRef<ClockMsg>>,
    wake: Option<ActorRef<WakeMsg>>,
    tasks: Option<ActorRef<TasksMsg>>,
    waits: Option<ActorRef<WaitsMsg>>,
    terminals: Option<ActorRef<TerminalsMsg>>,
    vision: Option<ActorRef<VisionMsg>>,
    recall: Option<ActorRef<RecallMsg>>,
    recorder: Option<ActorRef<RecorderMsg>>,
}

/// An actor slot in the directory, for the Root to fill and clear.
#[derive(Clone)]
pub(crate) enum Slot {
    Registry(Option<ActorRef<RegistryMsg>>),
    Clock(Option<ActorRef<ClockMsg>>),
    Wake(Option<ActorRef<WakeMsg>>),
    Tasks(Option<ActorRef<TasksMsg>>),
    Waits(Option<ActorRef<WaitsMsg>>),
    Terminals(Option<ActorRef<TerminalsMsg>>),
    Vision(Option<ActorRef<VisionMsg>>),
    Recall(Option<ActorRef<RecallMsg>>),
    Recorder(Option<ActorRef<RecorderMsg>>),
}

impl Directory {
    pub(crate) fn new(clock: Arc<dyn Clock>, faults: Faults) -> Self {
        let (health, _) = watch::channel(Health::Starting);
        let (events, _) = broadcast::channel(SUBSCRIBER_BACKLOG);
        Self {
            peers: Arc::default(),
            clock,
            timers: Timers::default(),
            faults,
            health: Arc::new(health),
            events,
            event_sequence: Arc::default(),
            lanes: Lanes::default(),
            commits: Arc::new(watch::channel(0).0),
        }
    }

    /// The count of the database's commits since the daemon started, and each new one.
    pub fn database_commits(&self) -> watch::Receiver<u64> {
        self.commits.subscribe()
    }

    /// For the Registry: counts a transaction committed.
    pub(crate) fn commits_counter(&self) -> Arc<watch::Sender<u64>> {
        self.commits.clone()
    }

    /// The threads blocking work runs on.
    pub fn lanes(&self) -> &Lanes {
        &self.lanes
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    pub fn timers(&self) -> &Timers {
        &self.timers
    }

    /// Runs `action` once, `delay` from now, sooner than the timer registry's tick allows:
    /// on a clock that moves by itself, after a runtime sleep of `delay`; on a clock moved
    /// by hand (tests, the harness), as the registry's timer `key`, when the clock is moved
    /// past it. For short delays a tick would dwarf (the settle probe of a changing window).
    pub fn after<F, Fut>(&self, key: impl Into<String>, delay: Duration, action: F)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        if self.clock.moves_by_itself() {
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                action().await;
            });
        } else {
            let at = self.now().saturating_add_millis(delay.as_millis() as u64);
            self.timers.at(key, at, action);
        }
    }

    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// Live wake events, for subscribers.
    pub fn events(&self) -> &broadcast::Sender<WakeEvent> {
        &self.events
    }

    /// A fresh event seq. Gaps (a write that failed) are fine; reuse never happens.
    pub fn next_event_seq(&self) -> u64 {
        self.event_sequence.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Continues the event sequence after the newest stored event.
    pub(crate) fn resume_event_sequence(&self, newest: u64) {
        self.event_sequence.fetch_max(newest, Ordering::SeqCst);
    }

    pub fn registry(&self) -> Result<ActorRef<RegistryMsg>, CallError> {
        self.read(|peers| peers.registry.clone(), "registry")
    }

    pub fn clock_actor(&self) -> Result<ActorRef<ClockMsg>, CallError> {
        self.read(|peers| peers.clock.clone(), "clock")
    }

    pub fn wake(&self) -> Result<ActorRef<WakeMsg>, CallError> {
        self.read(|peers| peers.wake.clone(), "wake actor")
    }

    pub fn tasks(&self) -> Result<ActorRef<TasksMsg>, CallError> {
        self.read(|peers| peers.tasks.clone(), "tasks supervisor")
    }

    pub fn waits(&self) -> Result<ActorRef<WaitsMsg>, CallError> {
        self.read(|peers| peers.waits.clone(), "waits supervisor")
    }

    pub fn terminals(&self) -> Result<ActorRef<TerminalsMsg>, CallError> {
        self.read(|peers| peers.terminals.clone(), "terminals actor")
    }

    pub fn vision(&self) -> Result<ActorRef<VisionMsg>, CallError> {
        self.read(|peers| peers.vision.clone(), "vision actor")
    }

    pub fn recall(&self) -> Result<ActorRef<RecallMsg>, CallError> {
        self.read(|peers| peers.recall.clone(), "recall actor")
    }

    pub fn recorder(&self) -> Result<ActorRef<RecorderMsg>, CallError> {
        self.read(|peers| peers.recorder.clone(), "screen recorder")
    }

    fn read<T>(&self, pick: impl FnOnce(&Peers) -> Option<T>, what: &str) -> Result<T, CallError> {
        let peers = crate::locks::read(&self.peers);
        pick(&peers).ok_or_else(|| {
            CallError::unavailable(
                format!("the {what} is restarting"),
                "retry in a moment; nothing acknowledged was lost",
            )
        })
    }

    pub(crate) fn set(&self, slot: Slot) {
        let mut peers = crate::locks::write(&self.peers);
        match slot {
            Slot::Registry(actor) => peers.registry = actor,
            Slot::Clock(actor) => peers.clock = actor,
            Slot::Wake(actor) => peers.wake = actor,
            Slot::Tasks(actor) => peers.tasks = actor,
            Slot::Waits(actor) => peers.waits = actor,
            Slot::Terminals(actor) => peers.terminals = actor,
            Slot::Vision(actor) => peers.vision = actor,
            Slot::Recall(actor) => peers.recall = actor,
            Slot::Recorder(actor) => peers.recorder = actor,
        }
    }

    pub fn health(&self) -> Health {
        self.health.borrow().clone()
    }

    /// Resolves when the health changes from what it was at subscription.
    pub fn watch_health(&self) -> watch::Receiver<Health> {
        self.health.subscribe()
    }

    pub(crate) fn set_health(&self, health: Health) {
        self.health.send_replace(health);
    }
}
