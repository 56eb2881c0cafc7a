//! `Tree`: boots the supervision tree and is the one doorway into it.
//!
//! The socket edge, the harness and the tests call these methods; each routes a request to
//! the actor that owns the answer, with a named timeout, and returns a `CallError` with a
//! hint when it cannot be served.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorRef, RpcReplyPort};
use storage::{EventRecord, Store, StoreStats, TaskId, WaitId};
use tokio::sync::broadcast;

use crate::clock::{ClockMsg, TICK_ACTIONS_TIMEOUT};
use crate::condition::{Reach, judge::Judge};
use crate::directory::{Directory, Health};
use crate::error::{CallError, from_call};
use crate::faults::Faults;
use crate::linkage::SessionChange;
use crate::process::pty::Signal;
use crate::recall::RecallMsg;
use crate::recall::recorder::{RecorderMsg, RecorderSettings, RecorderStatus};
use crate::registry::{self, RegistryStats};
use crate::root::{Child, RootActor, RootArgs, RootMsg, SHUTDOWN_TIMEOUT};
use crate::tasks::{SCAN_TIMEOUT, ScanReport, TaskMsg, TasksMsg, TasksStats};
use crate::terminals::session::SessionTable;
use crate::terminals::types::{
    InputSent, SessionId, SessionSnapshot, SessionStarted, SessionStopped, StartSession, TermInput,
    TerminalsStats,
};
use crate::terminals::{TERMINAL_CALL_TIMEOUT, TerminalsMsg};
use crate::vision::backend::{BackendSpec, build_backend};
use crate::vision::ledger::{VisionLedger, VisionUsage};
use crate::vision::{
    VISION_STATUS_TIMEOUT, VisionJudge, VisionMsg, VisionSetup, VisionSpec, VisionStatus,
};
use crate::waits::feed::Feeds;
use crate::waits::sources::ProductionSources;
use crate::waits::{
    NewWait, WAIT_CALL_TIMEOUT, WaitSettings, WaitUpdate, WaitView, WaitsMsg, WaitsStats,
};
use crate::wake::event::WakeEvent;
use crate::wake::reminders::{Attention, WakeAttention};
use crate::wake::sinks::build_sinks;
use crate::wake::{WakeMsg, WakeSettings, WakeStats};

/// How long status calls wait for each actor.
pub(crate) const STATUS_TIMEOUT: Duration = Duration::from_secs(5);
/// How long `settle` keeps ticking before it gives up, and how often it looks.
mod args;
mod tasks;

const SETTLE_TIMEOUT: Duration = Duration::from_secs(60);
const SETTLE_POLL: Duration = Duration::from_millis(2);
/// How long a liveness ping waits for each actor it asks.
pub const PING_TIMEOUT: Duration = Duration::from_secs(5);

pub use args::{
    DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_MAX_LIVE_WAITS, DEFAULT_PIXEL_FLOOR,
    DEFAULT_RECALL_RETENTION, DEFAULT_SETTLE_PROBE, DEFAULT_TASK_UNLOAD_AFTER,
    DEFAULT_WINDOW_GONE_GRACE, FRAMES_DIR, RECALL_FILE, RecallArgs, TaskArgs, TreeArgs, WaitArgs,
    WakeArgs,
};

/// Everything `daemon.status` reports from inside the tree.
#[derive(Clone, Debug)]
pub struct TreeStatus {
    pub store: StoreStats,
    pub registry: RegistryStats,
    pub tasks: TasksStats,
    pub restarts: HashMap<&'static str, u64>,
    pub wake: WakeStats,
    /// How this run's wakes fared with the agent (taken, not taken, reminded).
    pub wake_attention: WakeAttention,
    pub waits: WaitsStats,
    pub vision: VisionStatus,
    pub recorder: RecorderStatus,
    pub health: Health,
}

pub struct Tree {
    directory: Directory,
    root: ActorRef<RootMsg>,
    /// The handle waits ask the Vision actor through; it carries what judging cost.
    judge: VisionJudge,
    /// The daemon's terminal sessions, shared with the Terminals actor and `pty:` sources.
    terminal_sessions: SessionTable,
    /// What the agent called about, shared with the Wake actor's reminders.
    attention: Arc<Attention>,
}

impl Tree {
    pub async fn start(args: TreeArgs) -> Result<Tree, CallError> {
        let VisionSpec {
            backend,
            settings,
            image,
        } = args.vision;
        let has_model = !matches!(backend, BackendSpec::None);
        let backend = build_backend(backend, image, settings.timeout, &args.spawner)?;
        let ledger = VisionLedger::default();
        let reach = if has_model {
            backend.reach()
        } else {
            Reach::None
        };
        let directory = Directory::new(args.clock, args.faults);
        let judge = VisionJudge::new(
            directory.clone(),
            ledger.clone(),
            Arc::from(backend.describe()),
            reach,
        );
        // The terminal sessions outlive a restart of the Terminals actor: the Root hands the
        // same table to every one it starts, and `pty:` sources read it directly.
        let terminal_sessions = SessionTable::default();
        // A configured model judges what the local judges cannot (text: only a model that
        // reads anything; OCR adds nothing to phrase matching there) and settled frames.
        let model = |wanted: Reach| {
            (has_model && (reach == wanted || reach == Reach::Full))
                .then(|| Arc::new(judge.clone()) as Arc<dyn Judge>)
        };
        let text_model = args.waits.text_model.or_else(|| model(Reach::Full));
        let pixel_model = args.waits.pixel_judge.or_else(|| model(Reach::Phrases));
        // A model the recorder may ask to describe closed segments (tesseract cannot).
        let describer =
            (args.recall.procedures && has_model && reach == Reach::Full).then(|| backend.clone());
        let vision = VisionSetup {
            backend,
            settings,
            ledger,
        };
        // The data folder owns the sinks' programs: what a killed daemon left of them ends now.
        let owner = args.store.path().parent().map_or_else(
            || args.store.path().display().to_string(),
            |folder| folder.display().to_string(),
        );
        let orphans = crate::process::end_orphaned_sinks(&owner);
        if orphans > 0 {
            tracing::warn!(
                orphans,
                "ended wake sink programs that a daemon killed before this start left running"
            );
        }
        let attention = Arc::new(Attention::default());
        let wake = WakeSettings {
            sinks: build_sinks(args.wake.sinks, &args.spawner, &owner)?,
            max_attempts: args.wake.max_delivery_attempts.max(1),
            in_flight: Default::default(),
            attention: attention.clone(),
            remind_after: args.wake.remind_after.filter(|after| !after.is_zero()),
        };
        let sources = args.waits.sources.unwrap_or_else(|| {
            Arc::new(ProductionSources {
                spawner: args.spawner.clone(),
                display: args.waits.x11_display,
                wayland: args.waits.wayland,
                pixel_floor: args.waits.pixel_floor,
                openclaw: args.waits.openclaw,
                terminals: terminal_sessions.clone(),
                tmux_pipes: (args.waits.tmux_pipes)
                    .filter(|_| args.waits.follow_changes)
                    .filter(|pipes| crate::sight::capture::tmux::prepare_pipes(pipes)),
            })
        });
        let waits = Arc::new(WaitSettings {
            sources,
            feeds: Arc::new(Feeds::new(args.waits.follow_changes)),
            text_model,
            pixel_model,
            max_consecutive_failures: args.waits.max_consecutive_failures.max(1),
            max_live: args.waits.max_live.max(1),
            window_gone_grace: args.waits.window_gone_grace,
            settle_probe: args.waits.settle_probe,
        });
        let root_args = RootArgs {
            recall_path: args.recall.path,
            recall_retention: args.recall.retention,
            recall_transcripts: args.recall.transcripts.clone(),
            recall_openclaw: args.recall.openclaw.clone(),
            recorder: Arc::new(RecorderSettings {
                spawner: args.spawner.clone(),
                procedures: describer,
                ..args.recall.recorder
            }),
            directory: directory.clone(),
            store: args.store,
            group_commit: args.group_commit,
            policy: args.policy,
            task_policy: args.tasks.policy,
            stuck: args.tasks.stuck,
            task_unload_after: args.tasks.unload_after,
            wake,
            waits,
            terminal_limits: args.terminal_limits,
            terminal_sessions: terminal_sessions.clone(),
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
        Ok(Tree {
            directory,
            root,
            judge,
            terminal_sessions,
            attention,
        })
    }

    /// The agent called about this task or wait: its wakes are taken.
    pub fn took(&self, id: &str) {
        self.attention.took(id, self.directory.now());
    }

    /// How this run's wakes fared with the agent, as of the last reminder scan.
    pub fn wake_attention(&self) -> WakeAttention {
        self.attention.counts()
    }

    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    pub fn faults(&self) -> &Faults {
        self.directory.faults()
    }

    /// The vision judge: what the wait code asks whether a condition holds.
    pub fn judge(&self) -> VisionJudge {
        self.judge.clone()
    }

    /// The daemon's terminal sessions.
    pub fn terminal_sessions(&self) -> &SessionTable {
        &self.terminal_sessions
    }

    /// What judging cost one wait since the daemon started; `None` if it was never judged.
    pub fn vision_usage(&self, wait_id: &str) -> Option<VisionUsage> {
        self.judge.usage(wait_id)
    }

    /// `smart_wait`: starts watching; answers once the wait is stored and its watcher runs.
    pub async fn smart_wait(&self, new: NewWait) -> Result<WaitView, CallError> {
        self.ask_waits(|reply| WaitsMsg::Create(new, reply)).await
    }

    /// `wait_update`: a new condition or timeout for a live wait, or an ended one revived.
    pub async fn wait_update(&self, id: WaitId, update: WaitUpdate) -> Result<WaitView, CallError> {
        self.took(id.as_str());
        self.ask_waits(|reply| WaitsMsg::Update(id, update, reply))
            .await
    }

    pub async fn wait_cancel(
        &self,
        id: WaitId,
        reason: Option<String>,
    ) -> Result<WaitView, CallError> {
        self.took(id.as_str());
        self.ask_waits(|reply| WaitsMsg::Cancel(id, reason, reply))
            .await
    }

    /// One wait (live or ended), or every live wait.
    pub async fn wait_status(&self, id: Option<WaitId>) -> Result<Vec<WaitView>, CallError> {
        if let Some(id) = &id {
            self.took(id.as_str());
        }
        self.ask_waits(|reply| WaitsMsg::Status(id, reply)).await
    }

    async fn ask_waits<T: Send + 'static>(
        &self,
        request: impl FnOnce(RpcReplyPort<Result<T, CallError>>) -> WaitsMsg,
    ) -> Result<T, CallError> {
        let outcome = self
            .directory
            .waits()?
            .call(request, Some(WAIT_CALL_TIMEOUT))
            .await;
        from_call("wait actor", WAIT_CALL_TIMEOUT, outcome)
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
        let waits_outcome = self
            .directory
            .waits()?
            .call(WaitsMsg::Stats, Some(STATUS_TIMEOUT))
            .await;
        let waits = from_call(
            "waits supervisor",
            STATUS_TIMEOUT,
            waits_outcome.map(|r| r.map(Ok)),
        )?;
        let vision = self.vision_status().await?;
        let recorder = self.recorder_status().await?;
        Ok(TreeStatus {
            recorder,
            store,
            registry,
            tasks,
            restarts,
            wake,
            wake_attention: self.attention.counts(),
            waits,
            vision,
            health: self.directory.health(),
        })
    }

    // ---- terminal sessions (term_start, term_send, term_read, term_stop) ----

    /// Starts a program on a new terminal session. A session linked to a task is checked
    /// against it first (the task open, the step in its plan) and noted in its thread.
    pub async fn start_terminal(&self, request: StartSession) -> Result<SessionStarted, CallError> {
        let link = request.link.clone();
        if let Some(link) = &link {
            self.tell_task(&link.task_id, SessionChange::Check { step: link.step })
                .await?;
        }
        let started = self
            .ask_terminals(|reply| TerminalsMsg::Start(request, reply))
            .await?;
        if let Some(link) = link {
            let change = SessionChange::Started {
                session_id: started.id.to_string(),
                command: started.command.clone(),
                step: link.step,
            };
            // The session runs: a note that could not be written is not the caller's error.
            if let Err(error) = self.tell_task(&link.task_id, change).await {
                tracing::warn!(task = %link.task_id, %error, "a session's start was not noted");
            }
        }
        Ok(started)
    }

    async fn tell_task(&self, id: &TaskId, change: SessionChange) -> Result<(), CallError> {
        let message = |reply| TaskMsg::Session(Box::new(change), Some(reply));
        self.ask_tasks(|reply| TasksMsg::Forward(id.clone(), message(reply)))
            .await
    }

    /// Types text and keys into a session.
    pub async fn send_to_terminal(
        &self,
        id: SessionId,
        input: TermInput,
    ) -> Result<InputSent, CallError> {
        self.ask_terminals(|reply| TerminalsMsg::Send(id, input, reply))
            .await
    }

    /// A session's screen, its newest `lines` of scrollback and whether it still runs.
    pub async fn read_terminal(
        &self,
        id: SessionId,
        lines: usize,
    ) -> Result<SessionSnapshot, CallError> {
        self.ask_terminals(|reply| TerminalsMsg::Read(id, lines, reply))
            .await
    }

    /// Signals a session's program and waits a little for it to end.
    pub async fn stop_terminal(
        &self,
        id: SessionId,
        signal: Signal,
    ) -> Result<SessionStopped, CallError> {
        self.ask_terminals(|reply| TerminalsMsg::Stop(id, signal, reply))
            .await
    }

    pub async fn terminal_stats(&self) -> Result<TerminalsStats, CallError> {
        let outcome = self
            .directory
            .terminals()?
            .call(TerminalsMsg::Stats, Some(STATUS_TIMEOUT))
            .await;
        from_call(
            "terminals actor",
            STATUS_TIMEOUT,
            outcome.map(|r| r.map(Ok)),
        )
    }

    async fn ask_terminals<T: Send + 'static>(
        &self,
        request: impl FnOnce(RpcReplyPort<Result<T, CallError>>) -> TerminalsMsg,
    ) -> Result<T, CallError> {
        let outcome = self
            .directory
            .terminals()?
            .call(request, Some(TERMINAL_CALL_TIMEOUT))
            .await;
        from_call("terminals actor", TERMINAL_CALL_TIMEOUT, outcome)
    }

    // ---- end of terminal sessions ----

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
        let until_quiet = async {
            // A status call queues behind each wait's resume, so the resumes a start began
            // are done (and their wakes handed on) once it answers.
            self.wait_status(None).await?;
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
                tokio::time::sleep(SETTLE_POLL).await;
            }
        };
        tokio::time::timeout(SETTLE_TIMEOUT, until_quiet)
            .await
            .unwrap_or_else(|_| Err(CallError::timed_out("tree to settle", SETTLE_TIMEOUT)))
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

    /// Up to `limit` events with a seq above `after`, oldest first.
    pub async fn events_after(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<EventRecord>, CallError> {
        registry::read(&self.directory.registry()?, move |store: &Store| {
            store.events_after(after, limit)
        })
        .await
    }

    /// The newest `limit` events of the outbox, with their delivery state, oldest first.
    pub async fn recent_events(&self, limit: usize) -> Result<Vec<EventRecord>, CallError> {
        registry::read(&self.directory.registry()?, move |store: &Store| {
            store.recent_events(limit)
        })
        .await
    }

    /// A liveness round trip through the tree: every child of the root (the start order's
    /// table, so none is forgotten) answers a cheap question through its mailbox. A dead,
    /// restarting or wedged actor fails it (a wedged one by timing out), so the systemd
    /// watchdog is petted only while the tree really serves.
    pub async fn ping(&self) -> Result<(), CallError> {
        if let Health::Failed(reason) = self.directory.health() {
            return Err(CallError::unavailable(
                format!("the actor tree gave up: {reason}"),
                "the daemon is exiting; its service manager restarts it",
            ));
        }
        for child in Child::START_ORDER {
            self.ping_child(child).await?;
        }
        Ok(())
    }

    /// One child's answer to a question that costs it nothing.
    async fn ping_child(&self, child: Child) -> Result<(), CallError> {
        let directory = &self.directory;
        let timeout = Some(PING_TIMEOUT);
        let name = child.name();
        match child {
            Child::Registry => registry::probe(&directory.registry()?, PING_TIMEOUT).await,
            Child::Clock => answered(
                name,
                directory.clock_actor()?.call(ClockMsg::Now, timeout).await,
            ),
            Child::Recall => answered(
                name,
                directory.recall()?.call(RecallMsg::Ping, timeout).await,
            ),
            Child::Vision => answered(
                name,
                directory.vision()?.call(VisionMsg::Status, timeout).await,
            ),
            Child::Wake => answered(name, directory.wake()?.call(WakeMsg::Stats, timeout).await),
            Child::Terminals => answered(
                name,
                directory
                    .terminals()?
                    .call(TerminalsMsg::Stats, timeout)
                    .await,
            ),
            Child::Tasks => answered(
                name,
                directory.tasks()?.call(TasksMsg::Stats, timeout).await,
            ),
            Child::Waits => answered(
                name,
                directory.waits()?.call(WaitsMsg::Stats, timeout).await,
            ),
            Child::Recorder => answered(
                name,
                directory
                    .recorder()?
                    .call(RecorderMsg::Status, timeout)
                    .await,
            ),
        }
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

/// A ping's call answered in time, or the error that says which actor did not answer.
fn answered<T, M>(
    name: &str,
    outcome: Result<ractor::rpc::CallResult<T>, ractor::MessagingErr<M>>,
) -> Result<(), CallError> {
    from_call(name, PING_TIMEOUT, outcome.map(|r| r.map(Ok))).map(|_: T| ())
}
