//! The Root supervisor: starts the tree's long-lived actors, restarts one that dies (with
//! backoff, per the restart policy) and gives up past the intensity limit, marking the tree
//! failed so the daemon exits non-zero and systemd restarts the process.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorCell, ActorId, ActorProcessingErr, ActorRef, SupervisionEvent};
use storage::{Counter, Store};

use crate::clock::{ClockActor, ClockArgs};
use crate::directory::{Directory, Health, Slot};
use crate::policy::{Decision, RestartHistory, RestartPolicy};
use crate::recall::recorder::{RecorderActor, RecorderArgs, RecorderSettings};
use crate::recall::{RecallActor, RecallArgs};
use crate::registry::{self, RegistryActor, RegistryArgs};
use crate::tasks::stuck::StuckPolicy;
use crate::tasks::{TasksArgs, TasksSupervisor};
use crate::terminals::session::{SessionTable, TerminalLimits};
use crate::terminals::{TerminalsActor, TerminalsArgs};
use crate::vision::{VisionActor, VisionArgs, VisionSetup};
use crate::waits::WaitSettings;
use crate::waits::supervisor::{WaitsArgs, WaitsSupervisor};
use crate::wake::{WakeActor, WakeArgs, WakeSettings};

/// How long the root waits for its children to stop at shutdown.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// The root's children, in start order (later ones depend on earlier ones; they stop in
/// reverse, so the terminal sessions outlive every wait that watches them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Child {
    Clock,
    Registry,
    Recall,
    Vision,
    Wake,
    Terminals,
    Tasks,
    Waits,
    Recorder,
}

impl Child {
    pub(crate) const START_ORDER: [Child; 9] = [
        Child::Clock,
        Child::Registry,
        Child::Recall,
        Child::Vision,
        Child::Wake,
        Child::Terminals,
        Child::Tasks,
        Child::Waits,
        Child::Recorder,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Child::Clock => "clock",
            Child::Registry => "registry",
            Child::Recall => "recall actor",
            Child::Vision => "vision actor",
            Child::Wake => "wake actor",
            Child::Tasks => "tasks supervisor",
            Child::Waits => "waits supervisor",
            Child::Terminals => "terminals actor",
            Child::Recorder => "screen recorder",
        }
    }
}

pub enum RootMsg {
    /// Start `Child` again (sent to itself after the backoff).
    Restart(Child),
    Restarts(ractor::RpcReplyPort<HashMap<&'static str, u64>>),
}

pub struct RootActor;

pub struct RootArgs {
    pub directory: Directory,
    pub store: Arc<Store>,
    pub group_commit: bool,
    /// For the root's own children.
    pub policy: RestartPolicy,
    /// For TaskActors under the Tasks supervisor.
    pub task_policy: RestartPolicy,
    pub stuck: StuckPolicy,
    /// How long a task nobody asks about keeps its actor.
    pub task_unload_after: Duration,
    pub wake: WakeSettings,
    pub waits: Arc<WaitSettings>,
    pub terminal_limits: TerminalLimits,
    /// The terminal sessions, handed to every Terminals actor the Root starts.
    pub terminal_sessions: SessionTable,
    pub vision: VisionSetup,
    /// The recall index's file.
    pub recall_path: std::path::PathBuf,
    /// How long screen and terminal history is kept (`None`: forever).
    pub recall_retention: Option<Duration>,
    /// Claude Code's projects folder, when its transcripts are a recall source.
    pub recall_transcripts: Option<std::path::PathBuf>,
    /// The OpenClaw gateway, when its sessions are a recall source.
    pub recall_openclaw: Option<Arc<crate::openclaw::client::GatewayClient>>,
    pub recorder: Arc<RecorderSettings>,
}

pub struct RootState {
    args: RootArgs,
    running: HashMap<ActorId, Child>,
    histories: HashMap<Child, RestartHistory>,
    restarts: HashMap<Child, u64>,
}

impl Actor for RootActor {
    type Msg = RootMsg;
    type State = RootState;
    type Arguments = RootArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<RootMsg>,
        args: RootArgs,
    ) -> Result<RootState, ActorProcessingErr> {
        let mut state = RootState {
            args,
            running: HashMap::new(),
            histories: HashMap::new(),
            restarts: HashMap::new(),
        };
        for child in Child::START_ORDER {
            start_child(&myself, &mut state, child).await?;
        }
        state.args.directory.set_health(Health::Serving);
        Ok(state)
    }

    async fn post_stop(
        &self,
        myself: ActorRef<RootMsg>,
        state: &mut RootState,
    ) -> Result<(), ActorProcessingErr> {
        // Stop dependants first: tasks, then the registry, then the clock.
        let mut children: Vec<(Child, ActorCell)> = myself
            .get_children()
            .into_iter()
            .filter_map(|cell| {
                state
                    .running
                    .get(&cell.get_id())
                    .map(|child| (*child, cell))
            })
            .collect();
        children.sort_by_key(|(child, _)| {
            std::cmp::Reverse(Child::START_ORDER.iter().position(|c| c == child))
        });
        for (_, cell) in children {
            let _ = cell.stop_and_wait(None, Some(SHUTDOWN_TIMEOUT)).await;
        }
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<RootMsg>,
        msg: RootMsg,
        state: &mut RootState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            RootMsg::Restart(child) => {
                *state.restarts.entry(child).or_default() += 1;
                if let Err(error) = start_child(&myself, state, child).await {
                    tracing::error!(child = child.name(), %error, "restart failed");
                    on_child_down(&myself, state, child, &error.to_string());
                }
            }
            RootMsg::Restarts(reply) => {
                let counts = state
                    .restarts
                    .iter()
                    .map(|(child, n)| (child.name(), *n))
                    .collect();
                let _ = reply.send(counts);
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<RootMsg>,
        event: SupervisionEvent,
        state: &mut RootState,
    ) -> Result<(), ActorProcessingErr> {
        let (cell, reason) = match event {
            SupervisionEvent::ActorFailed(cell, error) => (cell, error.to_string()),
            SupervisionEvent::ActorTerminated(cell, _, reason) => {
                (cell, reason.unwrap_or_else(|| "stopped".to_owned()))
            }
            SupervisionEvent::ActorStarted(_) | SupervisionEvent::ProcessGroupChanged(_) => {
                return Ok(());
            }
        };
        if let Some(child) = state.running.remove(&cell.get_id()) {
            tracing::error!(child = child.name(), %reason, "actor went down");
            on_child_down(&myself, state, child, &reason);
        }
        Ok(())
    }
}

async fn start_child(
    myself: &ActorRef<RootMsg>,
    state: &mut RootState,
    child: Child,
) -> Result<(), ActorProcessingErr> {
    let directory = state.args.directory.clone();
    let supervisor = myself.get_cell();
    let cell = match child {
        Child::Clock => {
            let args = ClockArgs {
                clock: directory.clock().clone(),
                timers: directory.timers().clone(),
                faults: directory.faults().clone(),
            };
            let (actor, _) = Actor::spawn_linked(None, ClockActor, args, supervisor).await?;
            directory.set(Slot::Clock(Some(actor.clone())));
            actor.get_cell()
        }
        Child::Registry => {
            let args = RegistryArgs {
                store: state.args.store.clone(),
                lanes: directory.lanes().clone(),
                group_commit: state.args.group_commit,
                faults: directory.faults().clone(),
                commits: directory.commits_counter(),
            };
            let (actor, _) = Actor::spawn_linked(None, RegistryActor, args, supervisor).await?;
            directory.set(Slot::Registry(Some(actor.clone())));
            let newest_event = registry::read(&actor, |store: &Store| {
                store.counter(Counter::EventSequence)
            })
            .await?;
            directory.resume_event_sequence(newest_event);
            actor.get_cell()
        }
        Child::Recall => {
            let args = RecallArgs {
                directory: directory.clone(),
                path: state.args.recall_path.clone(),
                retention: state.args.recall_retention,
                transcripts: state.args.recall_transcripts.clone(),
                openclaw: state.args.recall_openclaw.clone(),
            };
            let (actor, _) = Actor::spawn_linked(None, RecallActor, args, supervisor).await?;
            directory.set(Slot::Recall(Some(actor.clone())));
            actor.get_cell()
        }
        Child::Vision => {
            let args = VisionArgs {
                directory: directory.clone(),
                setup: state.args.vision.clone(),
            };
            let (actor, _) = Actor::spawn_linked(None, VisionActor, args, supervisor).await?;
            directory.set(Slot::Vision(Some(actor.clone())));
            actor.get_cell()
        }
        Child::Wake => {
            let args = WakeArgs {
                directory: directory.clone(),
                settings: state.args.wake.clone(),
            };
            let (actor, _) = Actor::spawn_linked(None, WakeActor, args, supervisor).await?;
            directory.set(Slot::Wake(Some(actor.clone())));
            actor.get_cell()
        }
        Child::Terminals => {
            let args = TerminalsArgs {
                directory: directory.clone(),
                sessions: state.args.terminal_sessions.clone(),
                limits: state.args.terminal_limits,
            };
            let (actor, _) = Actor::spawn_linked(None, TerminalsActor, args, supervisor).await?;
            directory.set(Slot::Terminals(Some(actor.clone())));
            actor.get_cell()
        }
        Child::Tasks => {
            let args = TasksArgs {
                directory: directory.clone(),
                policy: state.args.task_policy.clone(),
                stuck: state.args.stuck.clone(),
                unload_after: state.args.task_unload_after,
            };
            let (actor, _) = Actor::spawn_linked(None, TasksSupervisor, args, supervisor).await?;
            directory.set(Slot::Tasks(Some(actor.clone())));
            actor.get_cell()
        }
        Child::Waits => {
            let args = WaitsArgs {
                directory: directory.clone(),
                settings: state.args.waits.clone(),
                policy: state.args.task_policy.clone(),
            };
            let (actor, _) = Actor::spawn_linked(None, WaitsSupervisor, args, supervisor).await?;
            directory.set(Slot::Waits(Some(actor.clone())));
            actor.get_cell()
        }
        Child::Recorder => {
            let args = RecorderArgs {
                directory: directory.clone(),
                settings: state.args.recorder.clone(),
            };
            let (actor, _) = Actor::spawn_linked(None, RecorderActor, args, supervisor).await?;
            directory.set(Slot::Recorder(Some(actor.clone())));
            actor.get_cell()
        }
    };
    state.running.insert(cell.get_id(), child);
    Ok(())
}

/// A child is down: clear its slot, then restart it after a backoff or give up.
fn on_child_down(myself: &ActorRef<RootMsg>, state: &mut RootState, child: Child, reason: &str) {
    let directory = &state.args.directory;
    directory.set(match child {
        Child::Clock => Slot::Clock(None),
        Child::Registry => Slot::Registry(None),
        Child::Vision => Slot::Vision(None),
        Child::Recall => Slot::Recall(None),
        Child::Wake => Slot::Wake(None),
        Child::Tasks => Slot::Tasks(None),
        Child::Waits => Slot::Waits(None),
        Child::Terminals => Slot::Terminals(None),
        Child::Recorder => Slot::Recorder(None),
    });
    let history = state.histories.entry(child).or_default();
    match state
        .args
        .policy
        .on_failure(history, directory.now().as_millis())
    {
        Decision::Restart { after } => {
            tracing::warn!(
                child = child.name(),
                after_ms = after.as_millis() as u64,
                "restarting"
            );
            myself.send_after(after, move || RootMsg::Restart(child));
        }
        Decision::GiveUp { failures, window } => {
            let message = format!(
                "the {} failed {failures} times within {}s (last: {reason}); giving up so the \
                 service manager restarts the daemon",
                child.name(),
                window.as_secs()
            );
            tracing::error!("{message}");
            directory.set_health(Health::Failed(message.clone()));
            myself.stop(Some(message));
        }
    }
}
