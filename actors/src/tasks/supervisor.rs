//! The Tasks supervisor: one TaskActor per task in use.
//!
//! It routes each request to the task's actor, spawning it on first use (it loads its
//! record from storage). A task that turns terminal retires its actor: the supervisor drains
//! it, and requests that arrive meanwhile wait in a buffer until it has stopped, so two
//! actors never own one task. A TaskActor that panics is dropped; its callers get an error,
//! and the next request starts a fresh actor from storage. Every `[stuck] scan_interval_s`
//! it starts the stuck scan ([`super::scan`]) beside its mailbox.
//!
//! A task nobody has asked about for `[storage] task_unload_after_s` is unloaded: its actor
//! is retired like a terminal task's (drained, requests meanwhile held), so memory follows
//! the tasks in use rather than every active task; the next request loads it again.

use std::collections::HashMap;
use std::time::Duration;

use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use storage::{Counter, Store, TaskId, TaskRecord, Timestamp};

use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::keyed::{KeyedChildren, Route};
use crate::policy::{Decision, RestartHistory, RestartPolicy};
use crate::registry;
use crate::tasks::actor::{TaskActor, TaskArgs, TaskMsg};
use crate::tasks::scan::{ScanReport, scan_stuck};
use crate::tasks::stuck::StuckPolicy;
use crate::tasks::types::RegisterTask;

/// The stuck scan's name in the timer registry.
const STUCK_SCAN_TIMER: &str = "stuck-scan";
/// The idle-task sweep's name in the timer registry.
const UNLOAD_TIMER: &str = "task-unload";
/// The longest spacing of idle-task sweeps.
const MAX_UNLOAD_SWEEP: Duration = Duration::from_secs(60);
/// How long a scan may take, alerts included, before its caller stops waiting.
pub const SCAN_TIMEOUT: Duration = Duration::from_secs(120);

pub enum TasksMsg {
    Register(RegisterTask, RpcReplyPort<Result<TaskRecord, CallError>>),
    /// Deliver a request to the actor of this task.
    Forward(TaskId, TaskMsg),
    /// From a TaskActor whose task turned terminal or does not exist.
    Retire(TaskId, ActorId),
    /// From a TaskActor that caught a panic and reloads its task from storage.
    TaskPanicked(TaskId, String),
    Stats(RpcReplyPort<TasksStats>),
    /// Run the stuck scan now; with a reply port, answer once every alert is committed.
    ScanStuck(Option<RpcReplyPort<ScanReport>>),
    /// From a finished scan.
    ScanFinished(ScanReport),
    /// Unload the tasks nobody asked about for `unload_after`.
    UnloadIdle,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TasksStats {
    pub live_task_actors: usize,
    /// Task actors retired because nobody asked about their task for a while.
    pub unloaded_task_actors: u64,
    pub task_actor_failures: u64,
    pub stuck_scans: u64,
    pub stuck_alerts: u64,
    pub last_scan: Option<ScanReport>,
}

pub struct TasksSupervisor;

pub struct TasksArgs {
    pub directory: Directory,
    /// Intensity limit for TaskActor panics; past it the supervisor itself fails.
    pub policy: RestartPolicy,
    pub stuck: StuckPolicy,
    /// How long a task nobody asks about stays loaded.
    pub unload_after: Duration,
}

pub struct TasksState {
    directory: Directory,
    policy: RestartPolicy,
    history: RestartHistory,
    next_sequence: u64,
    /// Where this database's ids start (`Counter::IdSeed`).
    id_seed: u64,
    children: KeyedChildren<TaskId, TaskMsg>,
    /// When each loaded task was last asked about.
    used_at: HashMap<TaskId, Timestamp>,
    unload_after: Duration,
    unloaded: u64,
    failures: u64,
    stuck: StuckPolicy,
    scans: u64,
    alerts: u64,
    last_scan: Option<ScanReport>,
}

/// How long the supervisor waits for the task counter when it starts.
const START_TIMEOUT: Duration = Duration::from_secs(30);

impl Actor for TasksSupervisor {
    type Msg = TasksMsg;
    type State = TasksState;
    type Arguments = TasksArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<TasksMsg>,
        args: TasksArgs,
    ) -> Result<TasksState, ActorProcessingErr> {
        let registry = args.directory.registry()?;
        let (last, id_seed) = tokio::time::timeout(
            START_TIMEOUT,
            registry::read(&registry, |store: &Store| {
                Ok((
                    store.counter(Counter::TaskSequence)?,
                    store.counter(Counter::IdSeed)?,
                ))
            }),
        )
        .await??;
        Ok(TasksState {
            directory: args.directory,
            policy: args.policy,
            history: RestartHistory::default(),
            next_sequence: last + 1,
            id_seed,
            children: KeyedChildren::default(),
            used_at: HashMap::new(),
            unload_after: args.unload_after,
            unloaded: 0,
            failures: 0,
            stuck: args.stuck,
            scans: 0,
            alerts: 0,
            last_scan: None,
        })
    }

    async fn post_start(
        &self,
        myself: ActorRef<TasksMsg>,
        state: &mut TasksState,
    ) -> Result<(), ActorProcessingErr> {
        let sweep = state.unload_after.min(MAX_UNLOAD_SWEEP);
        let first = state
            .directory
            .now()
            .saturating_add_millis(sweep.as_millis() as u64);
        state
            .directory
            .timers()
            .every(UNLOAD_TIMER, first, sweep, move || {
                let _ = myself.cast(TasksMsg::UnloadIdle);
                async {}
            });
        if state.stuck.enabled {
            let directory = state.directory.clone();
            let first = directory
                .now()
                .saturating_add_millis(state.stuck.scan_interval.as_millis() as u64);
            directory.clone().timers().every(
                STUCK_SCAN_TIMER,
                first,
                state.stuck.scan_interval,
                move || {
                    let directory = directory.clone();
                    async move {
                        if let Ok(tasks) = directory.tasks() {
                            let _ = tasks
                                .call(|reply| TasksMsg::ScanStuck(Some(reply)), Some(SCAN_TIMEOUT))
                                .await;
                        }
                    }
                },
            );
        }
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<TasksMsg>,
        msg: TasksMsg,
        state: &mut TasksState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.faults().check(ActorKind::Tasks);
        match msg {
            TasksMsg::Register(request, reply) => {
                let sequence = state.next_sequence;
                state.next_sequence += 1;
                let id = TaskId::from_sequence(storage::model::seeded(sequence, state.id_seed));
                deliver(
                    &myself,
                    state,
                    id,
                    TaskMsg::Create(request, sequence, reply),
                )
                .await;
            }
            TasksMsg::Forward(id, msg) => deliver(&myself, state, id, msg).await,
            TasksMsg::Retire(id, actor_id) => state.children.retire(&id, actor_id),
            TasksMsg::Stats(reply) => {
                let _ = reply.send(TasksStats {
                    live_task_actors: state.children.len(),
                    unloaded_task_actors: state.unloaded,
                    task_actor_failures: state.failures,
                    stuck_scans: state.scans,
                    stuck_alerts: state.alerts,
                    last_scan: state.last_scan.clone(),
                });
            }
            TasksMsg::ScanStuck(reply) => {
                tokio::spawn(scan_stuck(
                    myself.clone(),
                    state.directory.clone(),
                    state.stuck.clone(),
                    reply,
                ));
            }
            TasksMsg::TaskPanicked(id, reason) => {
                tracing::warn!(task = %id, %reason, "counting a task actor panic against the restart intensity");
                count_failure(state)?;
            }
            TasksMsg::ScanFinished(report) => {
                state.scans += 1;
                state.alerts += report.alerts.len() as u64;
                state.last_scan = Some(report);
            }
            TasksMsg::UnloadIdle => unload_idle(state),
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<TasksMsg>,
        event: SupervisionEvent,
        state: &mut TasksState,
    ) -> Result<(), ActorProcessingErr> {
        match event {
            SupervisionEvent::ActorTerminated(cell, _, _) => {
                child_gone(&myself, state, cell.get_id()).await;
            }
            SupervisionEvent::ActorFailed(cell, error) => {
                let id = state.children.key_of(&cell.get_id()).cloned();
                tracing::error!(task = ?id, %error, "task actor failed; it restarts from storage on the next request");
                child_gone(&myself, state, cell.get_id()).await;
                count_failure(state)?;
            }
            SupervisionEvent::ActorStarted(_) | SupervisionEvent::ProcessGroupChanged(_) => {}
        }
        Ok(())
    }
}

/// Counts a TaskActor failure; past the intensity limit the supervisor gives up (the Root
/// then restarts it, and the task actors with it).
fn count_failure(state: &mut TasksState) -> Result<(), ActorProcessingErr> {
    state.failures += 1;
    match state
        .policy
        .on_failure(&mut state.history, state.directory.now().as_millis())
    {
        Decision::GiveUp { failures, window } => Err(format!(
            "{failures} task actor failures within {}s; giving up",
            window.as_secs()
        )
        .into()),
        Decision::Restart { .. } => Ok(()),
    }
}

/// Retires the actors of tasks nobody asked about for `unload_after` (their records are in
/// storage; the next request loads them again).
fn unload_idle(state: &mut TasksState) {
    let now = state.directory.now();
    let idle_ms = state.unload_after.as_millis() as u64;
    let idle: Vec<TaskId> = state
        .used_at
        .iter()
        .filter(|(_, used)| now.millis_since(**used) >= idle_ms)
        .map(|(id, _)| id.clone())
        .collect();
    for id in idle {
        state.used_at.remove(&id);
        if let Some(actor) = state.children.get(&id).map(|child| child.get_id()) {
            state.children.retire(&id, actor);
            state.unloaded += 1;
        }
    }
}

/// Sends `msg` to the task's actor, starting one if needed, or buffers it while the
/// task's previous actor drains.
async fn deliver(myself: &ActorRef<TasksMsg>, state: &mut TasksState, id: TaskId, msg: TaskMsg) {
    // The stuck scan's check is not a use: an actor it loads unloads a period later.
    let now = state.directory.now();
    if matches!(msg, TaskMsg::CheckStuck(..)) {
        state.used_at.entry(id.clone()).or_insert(now);
    } else {
        state.used_at.insert(id.clone(), now);
    }
    let Route::Spawn(msg) = state.children.route(&id, msg) else {
        return;
    };
    match spawn_child(myself, state, id.clone()).await {
        Ok(child) => {
            let _ = child.cast(msg);
        }
        Err(error) => fail_request(msg, error),
    }
}

async fn spawn_child(
    myself: &ActorRef<TasksMsg>,
    state: &mut TasksState,
    id: TaskId,
) -> Result<ActorRef<TaskMsg>, CallError> {
    let args = TaskArgs {
        id: id.clone(),
        directory: state.directory.clone(),
    };
    let (child, _) = Actor::spawn_linked(None, TaskActor, args, myself.get_cell())
        .await
        .map_err(|error| {
            CallError::internal(
                format!("cannot start the task actor: {error}"),
                "retry the call",
            )
        })?;
    state.children.insert(id, child.clone());
    Ok(child)
}

/// Forgets a stopped or failed child; if requests waited for it, starts a successor.
async fn child_gone(myself: &ActorRef<TasksMsg>, state: &mut TasksState, actor_id: ActorId) {
    let Some((id, held)) = state.children.gone(actor_id) else {
        return;
    };
    state.used_at.remove(&id);
    for msg in held {
        deliver(myself, state, id.clone(), msg).await;
    }
}

/// Answers a request that cannot reach any actor.
fn fail_request(msg: TaskMsg, error: CallError) {
    match msg {
        TaskMsg::Create(_, _, reply) => {
            let _ = reply.send(Err(error));
        }
        TaskMsg::Update(_, reply) => {
            let _ = reply.send(Err(error));
        }
        TaskMsg::RevisePlan(_, reply) => {
            let _ = reply.send(Err(error));
        }
        TaskMsg::CheckStuck(_, reply) => {
            let _ = reply.send(Err(error));
        }
        TaskMsg::Wait(_, reply) => {
            let _ = reply.send(Err(error));
        }
        TaskMsg::Session(_, Some(reply)) => {
            let _ = reply.send(Err(error));
        }
        TaskMsg::Session(change, None) => {
            tracing::warn!(?change, %error, "a terminal session's end reached no task");
        }
    }
}
