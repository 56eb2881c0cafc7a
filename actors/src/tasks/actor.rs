//! TaskActor: owns one task. Every change to the task goes through it, one request at a
//! time, so two updates can never interleave; each reply is sent only after its write is
//! durable. The record is loaded from storage on the first request, which is also how a
//! restarted TaskActor recovers.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::{
    Counter, EventKind, MessageRecord, MsgType, Mutation, Role, Store, TaskId, TaskRecord,
    WaitRecord, WriteBatch,
};

use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::linkage::{Link, SessionChange, WaitChange};
use crate::registry;
use crate::tasks::TasksMsg;
use crate::tasks::relevance::most_relevant;
use crate::tasks::report;
use crate::tasks::resume;
use crate::tasks::stuck::{self, StuckPolicy};
use crate::tasks::transition::{self, Transition, progress_of};
use crate::tasks::types::{
    PlanChange, PlanUpdated, RegisterTask, TaskReport, TaskUpdated, UpdateTask,
};
use crate::wake::event::with_event_id;
use crate::wake::outbox::{NewEvent, Staged};

/// How long a caller waits for a task request, storage included.
pub const TASK_CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Thread messages a query searches for relevant ones.
const QUERY_SEARCH_DEPTH: usize = 500;
/// Relevant messages a query returns.
const QUERY_RELEVANT_MESSAGES: usize = 3;
/// Recent messages the summary scans for blockers.
const SUMMARY_LOOKBACK: usize = 20;
/// Thread messages read to build a resume packet (it keeps the last few meaningful ones).
const RESUME_LOOKBACK: usize = 50;

pub enum TaskMsg {
    /// Create the task this actor was spawned for; `sequence` is its number among all tasks.
    Create(
        RegisterTask,
        u64,
        RpcReplyPort<Result<TaskRecord, CallError>>,
    ),
    Update(UpdateTask, RpcReplyPort<Result<TaskUpdated, CallError>>),
    RevisePlan(PlanChange, RpcReplyPort<Result<PlanUpdated, CallError>>),
    /// Alert if the task is stuck under `StuckPolicy`; replies with the alert's event seq.
    CheckStuck(StuckPolicy, RpcReplyPort<Result<Option<u64>, CallError>>),
    /// A wait of this task began, ended or came back (docs/contract.md §4): stored in one transaction
    /// with the task's linkage, a `wait` message and the wake event. Replies with the stored
    /// wait (it takes the task's session key when it has none).
    Wait(Box<WaitChange>, RpcReplyPort<Result<WaitRecord, CallError>>),
    /// A terminal session linked to this task: checked before it starts, noted when it
    /// started, and when it ended its step proven or blocked. The pump sends the end
    /// without a reply port.
    Session(
        Box<SessionChange>,
        Option<RpcReplyPort<Result<(), CallError>>>,
    ),
}

pub struct TaskActor;

pub struct TaskArgs {
    pub id: TaskId,
    pub directory: Directory,
}

pub struct TaskState {
    id: TaskId,
    directory: Directory,
    /// None until loaded (or created).
    record: Option<TaskRecord>,
}

impl Actor for TaskActor {
    type Msg = TaskMsg;
    type State = TaskState;
    type Arguments = TaskArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<TaskMsg>,
        args: TaskArgs,
    ) -> Result<TaskState, ActorProcessingErr> {
        Ok(TaskState {
            id: args.id,
            directory: args.directory,
            record: None,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<TaskMsg>,
        msg: TaskMsg,
        state: &mut TaskState,
    ) -> Result<(), ActorProcessingErr> {
        // A panic is caught here rather than killing the actor: requests already queued in
        // its mailbox would die with it. Its caller still gets an error (the reply port is
        // dropped while unwinding), the cached record is dropped so the next request reloads
        // the task from storage (a restart in place), and the supervisor counts the failure
        // against its intensity limit.
        let handled = AssertUnwindSafe(handle_message(&myself, msg, state))
            .catch_unwind()
            .await;
        if let Err(panic) = handled {
            let reason = panic_text(panic.as_ref());
            tracing::error!(task = %state.id, %reason, "task actor panicked; reloading the task from storage");
            state.record = None;
            if let Ok(tasks) = state.directory.tasks() {
                let _ = tasks.cast(TasksMsg::TaskPanicked(state.id.clone(), reason));
            }
        }
        if state
            .record
            .as_ref()
            .is_some_and(|record| record.status.is_terminal())
        {
            retire(&myself, state);
        }
        Ok(())
    }
}

async fn handle_message(myself: &ActorRef<TaskMsg>, msg: TaskMsg, state: &mut TaskState) {
    state.directory.faults().check(ActorKind::Task);
    match msg {
        TaskMsg::Create(request, sequence, reply) => {
            let outcome = create(state, request, sequence).await;
            if outcome.is_err() {
                retire(myself, state);
            }
            let _ = reply.send(outcome);
        }
        TaskMsg::Update(request, reply) => {
            let outcome = match load(myself, state).await {
                Ok(current) => apply_update(state, &current, request).await,
                Err(error) => Err(error),
            };
            let _ = reply.send(outcome);
        }
        TaskMsg::RevisePlan(change, reply) => {
            let request = UpdateTask {
                plan: Some(change),
                ..UpdateTask::default()
            };
            let outcome = match load(myself, state).await {
                Ok(current) => {
                    apply_update(state, &current, request)
                        .await
                        .map(|updated| PlanUpdated {
                            revised: updated
                                .effects
                                .revision
                                .clone()
                                .expect("an update with a plan revises it"),
                            task: updated.task,
                            progress: updated.progress,
                        })
                }
                Err(error) => Err(error),
            };
            let _ = reply.send(outcome);
        }
        TaskMsg::CheckStuck(policy, reply) => {
            let outcome = match load(myself, state).await {
                Ok(current) => alert_if_stuck(state, &current, &policy).await,
                Err(error) => Err(error),
            };
            let _ = reply.send(outcome);
        }
        TaskMsg::Wait(change, reply) => {
            let outcome = match load(myself, state).await {
                Ok(current) => apply_wait_change(state, &current, *change).await,
                Err(error) => Err(error),
            };
            let _ = reply.send(outcome);
        }
        TaskMsg::Session(change, reply) => {
            let outcome = match load(myself, state).await {
                Ok(current) => apply_session_change(state, &current, &change).await,
                Err(error) => Err(error),
            };
            if let Err(error) = &outcome
                && reply.is_none()
            {
                tracing::warn!(task = %state.id, %error, "a terminal session's end was not recorded");
            }
            if let Some(reply) = reply {
                let _ = reply.send(outcome);
            }
        }
    }
}

/// Writes what a linked terminal session changed: its thread messages, and the step it
/// proved (verified) or blocked.
async fn apply_session_change(
    state: &mut TaskState,
    current: &TaskRecord,
    change: &SessionChange,
) -> Result<(), CallError> {
    let now = state.directory.now();
    let mut task = current.clone();
    let messages = transition::session_change(&mut task, change, now)?;
    if messages.is_empty() {
        return Ok(());
    }
    task.updated_at = now;
    let mut batch = WriteBatch::new();
    append_messages(&mut task, &mut batch, messages);
    batch.push(Mutation::PutTask(task.clone()));
    commit(state, batch).await?;
    state.record = Some(task);
    Ok(())
}

/// The message a panic carried.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

async fn create(
    state: &mut TaskState,
    request: RegisterTask,
    sequence: u64,
) -> Result<TaskRecord, CallError> {
    let transition = transition::register(state.id.clone(), request, state.directory.now());
    let mut batch = batch_for(&transition, 0);
    batch.push(Mutation::RaiseCounter {
        counter: Counter::TaskSequence,
        at_least: sequence,
    });
    commit(state, batch).await?;
    state.record = Some(transition.record.clone());
    Ok(transition.record)
}

/// Commits a batch. On failure the cached record is dropped and the next request reloads it
/// from storage: after an I/O error it is unknown whether the write landed, and a record
/// ahead of or behind storage would misnumber the next message.
async fn commit(state: &mut TaskState, batch: WriteBatch) -> Result<(), CallError> {
    commit_announcing(state, batch, Staged::default()).await
}

/// [`commit`], announcing the wake events staged into the batch once it returns.
async fn commit_announcing(
    state: &mut TaskState,
    batch: WriteBatch,
    staged: Staged,
) -> Result<(), CallError> {
    let outcome = crate::wake::outbox::commit_and_announce(&state.directory, batch, staged).await;
    if outcome.is_err() {
        state.record = None;
    }
    outcome
}

/// The stored record, loaded on first use. A missing task retires this actor.
async fn load(myself: &ActorRef<TaskMsg>, state: &mut TaskState) -> Result<TaskRecord, CallError> {
    if let Some(record) = &state.record {
        return Ok(record.clone());
    }
    let id = state.id.clone();
    let found = registry::read(&state.directory.registry()?, move |store: &Store| {
        store.task(&id)
    })
    .await?;
    match found {
        Some(record) => {
            state.record = Some(record.clone());
            Ok(record)
        }
        None => {
            retire(myself, state);
            Err(not_found(&state.id))
        }
    }
}

pub(crate) fn not_found(id: &TaskId) -> CallError {
    CallError::not_found(
        format!("no task with id '{id}'"),
        "task ids look like t-7k2m9q; list them with task_list(status: \"all\"), or register the task first",
    )
}

async fn apply_update(
    state: &mut TaskState,
    current: &TaskRecord,
    request: UpdateTask,
) -> Result<TaskUpdated, CallError> {
    let transition = transition::update(current, &request, state.directory.now())?;
    if transition.record != *current {
        commit(state, batch_for(&transition, current.last_seq)).await?;
        state.record = Some(transition.record.clone());
    }
    let report = match &request.query {
        Some(query) => Some(build_report(state, &transition.record, query).await?),
        None => None,
    };
    Ok(TaskUpdated {
        changed: request.changes_something(),
        progress: progress_of(&transition.record),
        task: transition.record,
        effects: transition.effects,
        report,
    })
}

/// The write for a transition: the record, the new messages numbered after `last_seq`, and
/// the plan revision if any.
fn batch_for(transition: &Transition, last_seq: u64) -> WriteBatch {
    let mut batch = WriteBatch::new();
    batch.push(Mutation::PutTask(transition.record.clone()));
    for (offset, message) in transition.messages.iter().enumerate() {
        batch.push(Mutation::AppendMessage {
            task_id: transition.record.id.clone(),
            seq: last_seq + 1 + offset as u64,
            message: message.clone(),
        });
    }
    if let Some(revision) = &transition.revision {
        batch.push(Mutation::PutPlanRevision(revision.clone()));
    }
    batch
}

/// Appends `messages` to the task's thread in `batch`, numbered after its `last_seq`,
/// which moves on with them.
fn append_messages(task: &mut TaskRecord, batch: &mut WriteBatch, messages: Vec<MessageRecord>) {
    for message in messages {
        task.last_seq += 1;
        batch.push(Mutation::AppendMessage {
            task_id: task.id.clone(),
            seq: task.last_seq,
            message,
        });
    }
}

/// Answers "where am I?": the summary, the next step and the messages that match the query.
async fn build_report(
    state: &TaskState,
    record: &TaskRecord,
    query: &str,
) -> Result<TaskReport, CallError> {
    let id = record.id.clone();
    let thread = registry::read(&state.directory.registry()?, move |store: &Store| {
        store.thread(&id, None, QUERY_SEARCH_DEPTH)
    })
    .await?;
    let searchable: Vec<(u64, &str)> = thread
        .iter()
        .filter(|(_, message)| message.msg_type != MsgType::Stuck)
        .map(|(seq, message)| (*seq, message.content.as_str()))
        .collect();
    let relevant_messages = most_relevant(query, &searchable, QUERY_RELEVANT_MESSAGES)
        .into_iter()
        .filter_map(|seq| thread.iter().find(|(found, _)| *found == seq).cloned())
        .collect();
    let recent = &thread[thread.len().saturating_sub(SUMMARY_LOOKBACK)..];
    let progress = progress_of(record);
    Ok(TaskReport {
        query: query.to_owned(),
        summary: report::summary(record, &progress, recent),
        next: report::next_line(record, &progress),
        relevant_messages,
        progress,
        task: record.clone(),
        inventory: Default::default(),
    })
}

/// Seed 004 §5–§6: re-checks the rule against the authoritative record and, when the task is
/// stuck, commits the cooldown stamp, a `stuck` thread message and the outbox event with the
/// resume packet in one transaction. `updated_at` is left alone: an alert is not activity.
async fn alert_if_stuck(
    state: &mut TaskState,
    current: &TaskRecord,
    policy: &StuckPolicy,
) -> Result<Option<u64>, CallError> {
    let now = state.directory.now();
    if !current.is_stuck_candidate()
        || !policy.is_due(now, current.updated_at, &current.stuck_info())
    {
        return Ok(None);
    }
    let reason = stuck::reason(now, current.updated_at);
    let id = current.id.clone();
    let thread = match state.directory.registry() {
        Ok(registry) => {
            registry::read(&registry, move |store: &Store| {
                store.thread(&id, None, RESUME_LOOKBACK)
            })
            .await
        }
        Err(error) => Err(error),
    };
    let thread = thread
        .inspect_err(|error| tracing::warn!(task = %current.id, %error, "cannot read the thread; sending the minimal resume packet"))
        .ok();
    let mut record = current.clone();
    record.last_stuck_alert_at = Some(now);
    record.last_seq += 1;
    let mut batch = WriteBatch::new();
    batch
        .push(Mutation::PutTask(record.clone()))
        .push(Mutation::AppendMessage {
            task_id: record.id.clone(),
            seq: record.last_seq,
            message: MessageRecord {
                role: Role::System,
                msg_type: MsgType::Stuck,
                content: format!("Task appears stuck: {reason}"),
                created_at: now,
            },
        });
    let mut staged = Staged::default();
    let seq = staged.stage(
        &state.directory,
        &mut batch,
        NewEvent {
            kind: EventKind::TaskStuck,
            task_id: Some(record.id.clone()),
            wait_id: None,
            session_key: record.session_key.clone(),
        },
        |id| match &thread {
            Some(thread) => {
                resume::wake_text(current, thread, &reason, id, policy.max_packet_bytes)
            }
            None => resume::minimal_wake_text(current, &reason, id),
        },
    );
    commit_announcing(state, batch, staged).await?;
    tracing::info!(task = %record.id, event = seq, %reason, "task appears stuck; waking the agent");
    state.record = Some(record);
    Ok(Some(seq))
}

/// Seed 004 §4: `active_wait_ids`, `last_wait_state`, `last_wait_event_at` follow the wait;
/// the wait record, a `wait` thread message and the wake event (its text finished with the
/// task and what to do next) commit with the task. A wait event is activity.
async fn apply_wait_change(
    state: &mut TaskState,
    current: &TaskRecord,
    change: WaitChange,
) -> Result<WaitRecord, CallError> {
    if change.link == Link::Add && current.status.is_terminal() {
        return Err(CallError::conflict(
            format!(
                "task {} is {}; a wait cannot be linked to it",
                current.id, current.status
            ),
            "reopen the task with task_update(status: \"active\") first, or wait without task_id",
        ));
    }
    if change.link == Link::Add
        && let Some(step) = change.wait.step
        && !(1..=current.plan.len() as u32).contains(&step)
    {
        return Err(CallError::invalid(
            format!(
                "step {step} is not in the plan of task {} ({})",
                current.id,
                crate::words::count(current.plan.len() as u64, "step", None)
            ),
            format!(
                "name the step this wait proves, 1 to {}, or leave step out",
                current.plan.len()
            ),
        ));
    }
    let now = state.directory.now();
    let mut task = current.clone();
    let mut wait = change.wait;
    if wait.session_key.is_none() {
        wait.session_key = task.session_key.clone();
    }
    let id = wait.id.to_string();
    match change.link {
        Link::Add if !task.active_wait_ids.contains(&id) => task.active_wait_ids.push(id),
        Link::Add => {}
        Link::Remove => task.active_wait_ids.retain(|live| *live != id),
    }
    task.last_wait_state = Some(wait.state);
    task.last_wait_event_at = Some(now);
    task.updated_at = now;
    let mut messages = vec![MessageRecord {
        role: Role::System,
        msg_type: MsgType::Wait,
        content: change.note,
        created_at: now,
    }];
    let step_outcome = match (change.link, wait.step) {
        (Link::Remove, Some(step)) => {
            let (outcome, message) = transition::settle_step(&mut task, &wait, step, now);
            messages.extend(message);
            outcome
        }
        _ => None,
    };
    let mut batch = WriteBatch::new();
    append_messages(&mut task, &mut batch, messages);
    batch
        .push(Mutation::PutTask(task.clone()))
        .push(Mutation::PutWait(wait.clone()));
    batch.mutations.extend(change.extra);
    let mut staged = Staged::default();
    if let Some((kind, head)) = change.event {
        let tail = report::wait_event_tail(
            kind,
            &wait.id,
            &task,
            &progress_of(&task),
            step_outcome.as_deref(),
        );
        staged.stage(
            &state.directory,
            &mut batch,
            NewEvent {
                kind,
                task_id: wait.task_id.clone(),
                wait_id: Some(wait.id.to_string()),
                session_key: wait.session_key.clone(),
            },
            |id| with_event_id(&(head + &tail), id),
        );
    }
    commit_announcing(state, batch, staged).await?;
    state.record = Some(task);
    Ok(wait)
}

/// Asks the supervisor to drain and stop this actor: the task is terminal or missing.
/// Sent to the supervisor's cell, which is there even while the Directory is not.
fn retire(myself: &ActorRef<TaskMsg>, state: &TaskState) {
    if let Some(supervisor) = myself.get_cell().try_get_supervisor() {
        let _ = supervisor.send_message(TasksMsg::Retire(state.id.clone(), myself.get_id()));
    }
}
