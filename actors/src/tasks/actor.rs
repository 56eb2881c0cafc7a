//! TaskActor: owns one task. Every change to the task goes through it, one request at a
//! time, so two updates can never interleave; each reply is sent only after its write is
//! durable. The record is loaded from storage on the first request, which is also how a
//! restarted TaskActor recovers.

use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::{Counter, MsgType, Mutation, Store, TaskId, TaskRecord, WriteBatch};

use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::registry;
use crate::tasks::TasksMsg;
use crate::tasks::relevance::most_relevant;
use crate::tasks::report;
use crate::tasks::transition::{self, Transition, progress_of};
use crate::tasks::types::{
    PlanChange, PlanUpdated, RegisterTask, TaskReport, TaskUpdated, UpdateTask,
};

/// How long a caller waits for a task request, storage included.
pub const TASK_CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Thread messages a query searches for relevant ones.
const QUERY_SEARCH_DEPTH: usize = 500;
/// Relevant messages a query returns.
const QUERY_RELEVANT_MESSAGES: usize = 3;
/// Recent messages the summary scans for blockers.
const SUMMARY_LOOKBACK: usize = 20;

pub enum TaskMsg {
    /// Create the task this actor was spawned for; `sequence` is its number among all tasks.
    Create(
        RegisterTask,
        u64,
        RpcReplyPort<Result<TaskRecord, CallError>>,
    ),
    Update(UpdateTask, RpcReplyPort<Result<TaskUpdated, CallError>>),
    RevisePlan(PlanChange, RpcReplyPort<Result<PlanUpdated, CallError>>),
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
        state.directory.faults().check(ActorKind::Task);
        match msg {
            TaskMsg::Create(request, sequence, reply) => {
                let outcome = create(state, request, sequence).await;
                if outcome.is_err() {
                    retire(&myself, state);
                }
                let _ = reply.send(outcome);
            }
            TaskMsg::Update(request, reply) => {
                let outcome = match load(&myself, state).await {
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
                let outcome = match load(&myself, state).await {
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
    registry::write(&state.directory.registry()?, batch).await?;
    state.record = Some(transition.record.clone());
    Ok(transition.record)
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
        registry::write(
            &state.directory.registry()?,
            batch_for(&transition, current.last_seq),
        )
        .await?;
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
    let chosen = most_relevant(query, &searchable, QUERY_RELEVANT_MESSAGES);
    let relevant_messages = thread
        .iter()
        .filter(|(seq, _)| chosen.contains(seq))
        .cloned()
        .collect();
    let recent = &thread[thread.len().saturating_sub(SUMMARY_LOOKBACK)..];
    let progress = progress_of(record);
    Ok(TaskReport {
        summary: report::summary(record, &progress, recent),
        next: report::next_line(record, &progress),
        relevant_messages,
        progress,
        task: record.clone(),
    })
}

/// Asks the supervisor to drain and stop this actor: the task is terminal or missing.
fn retire(myself: &ActorRef<TaskMsg>, state: &TaskState) {
    if let Ok(tasks) = state.directory.tasks() {
        let _ = tasks.cast(TasksMsg::Retire(state.id.clone(), myself.get_id()));
    }
}
