//! `Tree`: boots the supervision tree and is the one doorway into it.
//!
//! The socket edge, the harness and the tests call these methods; each routes a request to
//! the actor that owns the answer, with a named timeout, and returns a `CallError` with a
//! hint when it cannot be served.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorRef, RpcReplyPort};
use storage::{EventRecord, StatusFilter, Store, StoreStats, TaskId, TaskRecord};
use tokio::sync::broadcast;

use crate::clock::{Clock, ClockMsg, TICK_ACTIONS_TIMEOUT};
use crate::directory::{Directory, Health};
use crate::error::{CallError, from_call};
use crate::faults::Faults;
use crate::policy::RestartPolicy;
use crate::process::{ProcessSpawner, Spawner};
use crate::registry::{self, RegistryMsg, RegistryStats};
use crate::root::{RootActor, RootArgs, RootMsg, SHUTDOWN_TIMEOUT};
use crate::tasks::actor::not_found;
use crate::tasks::stuck::StuckPolicy;
use crate::tasks::types::{
    PlanChange, PlanUpdated, RegisterTask, TaskListing, TaskUpdated, ThreadPage, UpdateTask,
};
use crate::tasks::{SCAN_TIMEOUT, ScanReport, TASK_CALL_TIMEOUT, TaskMsg, TasksMsg, TasksStats};
use crate::vision::backend::build_backend;
use crate::vision::ledger::{VisionLedger, VisionUsage};
use crate::vision::{
    VISION_STATUS_TIMEOUT, VisionJudge, VisionMsg, VisionSetup, VisionSpec, VisionStatus,
};
use crate::wake::event::WakeEvent;
use crate::wake::sinks::{SinkSpec, build_sinks};
use crate::wake::{WakeMsg, WakeSettings, WakeStats};

/// How long status calls wait for each actor.
const STATUS_TIMEOUT: Duration = Duration::from_secs(5);
/// How long `settle` keeps ticking before it gives up, and how often it looks.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(60);
const SETTLE_POLL: Duration = Duration::from_millis(2);
/// How long a liveness ping waits for each actor it asks.
pub const PING_TIMEOUT: Duration = Duration::from_secs(5);

pub struct TreeArgs {
    pub store: Arc<Store>,
    pub clock: Arc<dyn Clock>,
    pub group_commit: bool,
    pub faults: Faults,
    pub policy: RestartPolicy,
    pub task_policy: RestartPolicy,
    pub stuck: StuckPolicy,
    /// Where wake events go (built when the tree starts).
    pub sinks: Vec<SinkSpec>,
    /// Attempts per event and sink before it is recorded as dead.
    pub max_delivery_attempts: u32,
    /// How command sinks and the OCR backend start programs.
    pub spawner: Arc<dyn Spawner>,
    /// The vision backend and its limits.
    pub vision: VisionSpec,
}

impl TreeArgs {
    /// Production defaults around a store and a clock.
    pub fn new(store: Arc<Store>, clock: Arc<dyn Clock>) -> Self {
        Self {
            store,
            clock,
            group_commit: true,
            faults: Faults::default(),
            policy: RestartPolicy::default(),
            task_policy: RestartPolicy {
                max_restarts: 20,
                ..RestartPolicy::default()
            },
            stuck: StuckPolicy::default(),
            sinks: Vec::new(),
            max_delivery_attempts: WakeSettings::default().max_attempts,
            spawner: Arc::new(ProcessSpawner),
            vision: VisionSpec::default(),
        }
    }
}

/// Everything `daemon.status` reports from inside the tree.
#[derive(Clone, Debug)]
pub struct TreeStatus {
    pub store: StoreStats,
    pub registry: RegistryStats,
    pub tasks: TasksStats,
    pub restarts: HashMap<&'static str, u64>,
    pub wake: WakeStats,
    pub vision: VisionStatus,
    pub health: Health,
}

pub struct Tree {
    directory: Directory,
    root: ActorRef<RootMsg>,
}

impl Tree {
    pub async fn start(args: TreeArgs) -> Result<Tree, CallError> {
        let VisionSpec {
            backend,
            settings,
            image,
        } = args.vision;
        let backend = build_backend(backend, image, settings.timeout, &args.spawner)?;
        let ledger = VisionLedger::default();
        let directory = Directory::new(args.clock, args.faults)
            .with_vision(ledger.clone(), &backend.describe());
        let vision = VisionSetup {
            backend,
            settings,
            ledger,
        };
        let wake = WakeSettings {
            sinks: build_sinks(args.sinks, &args.spawner)?,
            max_attempts: args.max_delivery_attempts.max(1),
        };
        let root_args = RootArgs {
            directory: directory.clone(),
            store: args.store,
            group_commit: args.group_commit,
            policy: args.policy,
            task_policy: args.task_policy,
            stuck: args.stuck,
            wake,
            vision,
        };
        let (root, _) = Actor::spawn(None, RootActor, root_args)
            .await
            .map_err(|error| {
                CallError::internal(
                    format!("the actor tree failed to start: {error}"),
                    "see the daemon log",
                )
            })?;
        Ok(Tree { directory, root })
    }

    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    pub fn faults(&self) -> &Faults {
        self.directory.faults()
    }

    /// The vision judge: what the wait code asks whether a condition holds.
    pub fn judge(&self) -> VisionJudge {
        self.directory.judge()
    }

    /// What judging cost one wait since the daemon started; `None` if it was never judged.
    pub fn vision_usage(&self, wait_id: &str) -> Option<VisionUsage> {
        self.directory.judge().usage(wait_id)
    }

    pub async fn register_task(&self, request: RegisterTask) -> Result<TaskRecord, CallError> {
        self.ask_tasks(|reply| TasksMsg::Register(request, reply))
            .await
    }

    pub async fn update_task(
        &self,
        id: TaskId,
        request: UpdateTask,
    ) -> Result<TaskUpdated, CallError> {
        self.ask_tasks(|reply| TasksMsg::Forward(id, TaskMsg::Update(request, reply)))
            .await
    }

    pub async fn revise_plan(
        &self,
        id: TaskId,
        change: PlanChange,
    ) -> Result<PlanUpdated, CallError> {
        self.ask_tasks(|reply| TasksMsg::Forward(id, TaskMsg::RevisePlan(change, reply)))
            .await
    }

    /// Sends a request built around a reply port to the Tasks supervisor and waits for the
    /// answer of whichever actor serves it.
    async fn ask_tasks<T: Send + 'static>(
        &self,
        request: impl FnOnce(RpcReplyPort<Result<T, CallError>>) -> TasksMsg,
    ) -> Result<T, CallError> {
        let outcome = self
            .directory
            .tasks()?
            .call(request, Some(TASK_CALL_TIMEOUT))
            .await;
        from_call("task actor", TASK_CALL_TIMEOUT, outcome)
    }

    pub async fn list_tasks(
        &self,
        filter: StatusFilter,
        limit: usize,
    ) -> Result<TaskListing, CallError> {
        let page = registry::read(&self.directory.registry()?, move |store: &Store| {
            store.list_tasks(&filter, limit)
        })
        .await?;
        Ok(TaskListing {
            tasks: page.tasks,
            more: page.more,
        })
    }

    /// Up to `limit` messages before seq `before` (newest when `None`), oldest first.
    pub async fn thread(
        &self,
        id: TaskId,
        limit: usize,
        before: Option<u64>,
    ) -> Result<ThreadPage, CallError> {
        let lookup = id.clone();
        let (task, messages) = registry::read(&self.directory.registry()?, move |store: &Store| {
            let Some(task) = store.task(&lookup)? else {
                return Ok((None, Vec::new()));
            };
            let messages = store.thread(&lookup, before, limit)?;
            Ok((Some(task), messages))
        })
        .await?;
        let task = task.ok_or_else(|| not_found(&id))?;
        Ok(ThreadPage {
            task_id: id,
            messages,
            total: task.last_seq,
        })
    }

    pub async fn status(&self) -> Result<TreeStatus, CallError> {
        let store =
            registry::read(&self.directory.registry()?, |store: &Store| store.stats()).await?;
        let registry = registry::stats(&self.directory.registry()?).await?;
        let tasks_outcome = self
            .directory
            .tasks()?
            .call(TasksMsg::Stats, Some(STATUS_TIMEOUT))
            .await;
        let tasks = from_call(
            "tasks supervisor",
            STATUS_TIMEOUT,
            tasks_outcome.map(|r| r.map(Ok)),
        )?;
        let restarts_outcome = self
            .root
            .call(RootMsg::Restarts, Some(STATUS_TIMEOUT))
            .await;
        let restarts = from_call("root", STATUS_TIMEOUT, restarts_outcome.map(|r| r.map(Ok)))?;
        let wake_outcome = self
            .directory
            .wake()?
            .call(WakeMsg::Stats, Some(STATUS_TIMEOUT))
            .await;
        let wake = from_call(
            "wake actor",
            STATUS_TIMEOUT,
            wake_outcome.map(|r| r.map(Ok)),
        )?;
        let vision = self.vision_status().await?;
        Ok(TreeStatus {
            store,
            registry,
            tasks,
            restarts,
            wake,
            vision,
            health: self.directory.health(),
        })
    }

    /// The Vision actor's queue, limits and totals.
    pub async fn vision_status(&self) -> Result<VisionStatus, CallError> {
        let outcome = self
            .directory
            .vision()?
            .call(VisionMsg::Status, Some(VISION_STATUS_TIMEOUT))
            .await;
        from_call(
            "vision actor",
            VISION_STATUS_TIMEOUT,
            outcome.map(|r| r.map(Ok)),
        )
    }

    /// Fires every due timer and waits for what they set off (alerts committed, deliveries
    /// attempted and recorded). The way tests on a ManualClock move the daemon along.
    pub async fn tick(&self) -> Result<usize, CallError> {
        let clock = self.directory.clock_actor()?;
        let outcome = clock
            .call(
                |reply| ClockMsg::Tick(Some(reply)),
                Some(TICK_ACTIONS_TIMEOUT),
            )
            .await;
        from_call("clock", TICK_ACTIONS_TIMEOUT, outcome.map(|r| r.map(Ok)))
    }

    /// Ticks until the tree is quiet: no timer due and no delivery attempt in flight. What a
    /// test on a ManualClock calls after moving time, so every effect of the move is done.
    pub async fn settle(&self) -> Result<(), CallError> {
        let deadline = tokio::time::Instant::now() + SETTLE_TIMEOUT;
        loop {
            let fired = self.tick().await?;
            let wake = self
                .directory
                .wake()?
                .call(WakeMsg::Stats, Some(STATUS_TIMEOUT))
                .await;
            let wake = from_call("wake actor", STATUS_TIMEOUT, wake.map(|r| r.map(Ok)))?;
            if fired == 0 && wake.in_flight == 0 {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(CallError::timed_out("tree to settle", SETTLE_TIMEOUT));
            }
            tokio::time::sleep(SETTLE_POLL).await;
        }
    }

    /// Runs the stuck scan now, whatever the timer says, and waits for its alerts.
    pub async fn scan_stuck(&self) -> Result<ScanReport, CallError> {
        let tasks = self.directory.tasks()?;
        let outcome = tasks
            .call(|reply| TasksMsg::ScanStuck(Some(reply)), Some(SCAN_TIMEOUT))
            .await;
        from_call("tasks supervisor", SCAN_TIMEOUT, outcome.map(|r| r.map(Ok)))
    }

    /// Every new wake event, live, from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<WakeEvent> {
        self.directory.events().subscribe()
    }

    /// The newest `limit` events of the outbox, with their delivery state, oldest first.
    pub async fn recent_events(&self, limit: usize) -> Result<Vec<EventRecord>, CallError> {
        registry::read(&self.directory.registry()?, move |store: &Store| {
            store.recent_events(limit)
        })
        .await
    }

    /// A liveness round trip through the tree: the Registry, the Tasks supervisor, the
    /// Wake actor and the Vision actor each answer a cheap question through their mailboxes. A dead, restarting or wedged actor
    /// fails it (a wedged one by timing out), so the systemd watchdog is petted only while
    /// the tree really serves.
    pub async fn ping(&self) -> Result<(), CallError> {
        if let Health::Failed(reason) = self.directory.health() {
            return Err(CallError::unavailable(
                format!("the actor tree gave up: {reason}"),
                "the daemon is exiting; its service manager restarts it",
            ));
        }
        let registry_outcome = self
            .directory
            .registry()?
            .call(RegistryMsg::Stats, Some(PING_TIMEOUT))
            .await;
        from_call(
            "registry",
            PING_TIMEOUT,
            registry_outcome.map(|r| r.map(Ok)),
        )?;
        let tasks_outcome = self
            .directory
            .tasks()?
            .call(TasksMsg::Stats, Some(PING_TIMEOUT))
            .await;
        from_call(
            "tasks supervisor",
            PING_TIMEOUT,
            tasks_outcome.map(|r| r.map(Ok)),
        )?;
        let wake_outcome = self
            .directory
            .wake()?
            .call(WakeMsg::Stats, Some(PING_TIMEOUT))
            .await;
        from_call("wake actor", PING_TIMEOUT, wake_outcome.map(|r| r.map(Ok)))?;
        let vision_outcome = self
            .directory
            .vision()?
            .call(VisionMsg::Status, Some(PING_TIMEOUT))
            .await;
        from_call(
            "vision actor",
            PING_TIMEOUT,
            vision_outcome.map(|r| r.map(Ok)),
        )?;
        Ok(())
    }

    /// Resolves when the root gives up (the daemon must then exit non-zero).
    pub async fn failed(&self) -> String {
        let mut health = self.directory.watch_health();
        loop {
            if let Health::Failed(reason) = &*health.borrow_and_update() {
                return reason.clone();
            }
            if health.changed().await.is_err() {
                return "the actor tree stopped".to_owned();
            }
        }
    }

    /// Stops every actor, dependants first, and waits for them. Idempotent.
    pub async fn shutdown(&self) {
        let _ = self.root.stop_and_wait(None, Some(SHUTDOWN_TIMEOUT)).await;
    }
}
