//! The directory: where each long-lived actor of the tree currently lives.
//!
//! A restarted actor has a new `ActorRef`; the Root writes it here, and everyone (the
//! other actors and the socket edge) looks peers up here per request instead of keeping a
//! ref that may have gone stale. Also carries what every actor shares: the clock, the
//! fault switches and the tree's health.

use std::sync::{Arc, RwLock};

use ractor::ActorRef;
use storage::Timestamp;
use tokio::sync::watch;

use crate::clock::{Clock, ClockMsg};
use crate::error::CallError;
use crate::faults::Faults;
use crate::registry::RegistryMsg;
use crate::tasks::TasksMsg;

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
    faults: Faults,
    health: Arc<watch::Sender<Health>>,
}

#[derive(Default)]
struct Peers {
    registry: Option<ActorRef<RegistryMsg>>,
    clock: Option<ActorRef<ClockMsg>>,
    tasks: Option<ActorRef<TasksMsg>>,
}

/// An actor slot in the directory, for the Root to fill and clear.
#[derive(Clone)]
pub(crate) enum Slot {
    Registry(Option<ActorRef<RegistryMsg>>),
    Clock(Option<ActorRef<ClockMsg>>),
    Tasks(Option<ActorRef<TasksMsg>>),
}

impl Directory {
    pub(crate) fn new(clock: Arc<dyn Clock>, faults: Faults) -> Self {
        let (health, _) = watch::channel(Health::Starting);
        Self {
            peers: Arc::default(),
            clock,
            faults,
            health: Arc::new(health),
        }
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    pub fn registry(&self) -> Result<ActorRef<RegistryMsg>, CallError> {
        self.read(|peers| peers.registry.clone(), "registry")
    }

    pub fn clock_actor(&self) -> Result<ActorRef<ClockMsg>, CallError> {
        self.read(|peers| peers.clock.clone(), "clock")
    }

    pub fn tasks(&self) -> Result<ActorRef<TasksMsg>, CallError> {
        self.read(|peers| peers.tasks.clone(), "tasks supervisor")
    }

    fn read<T>(&self, pick: impl FnOnce(&Peers) -> Option<T>, what: &str) -> Result<T, CallError> {
        let peers = self.peers.read().unwrap_or_else(|e| e.into_inner());
        pick(&peers).ok_or_else(|| {
            CallError::unavailable(
                format!("the {what} is restarting"),
                "retry in a moment; nothing acknowledged was lost",
            )
        })
    }

    pub(crate) fn set(&self, slot: Slot) {
        let mut peers = self.peers.write().unwrap_or_else(|e| e.into_inner());
        match slot {
            Slot::Registry(actor) => peers.registry = actor,
            Slot::Clock(actor) => peers.clock = actor,
            Slot::Tasks(actor) => peers.tasks = actor,
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
