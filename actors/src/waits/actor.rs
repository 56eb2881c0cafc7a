//! WaitActor: one live smart wait. It owns the wait's record, its Watcher child (the capture
//! loop), its timers (the poll and the deadline) and its judgments, and ends the wait —
//! resolved, timeout, error or cancelled — in one transaction with the task linkage and the
//! wake event. A wait that ended retires its actor; `wait_update` on it starts a new one that
//! revives it from storage.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use storage::{
    Counter, EventKind, EventRecord, Mutation, Store, TaskId, Timestamp, WaitCounters, WaitEvent,
    WaitHistoryEntry, WaitId, WaitRecord, WaitState, WriteBatch,
};
use tokio::task::JoinHandle;

use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::registry;
use crate::tasks::{TASK_CALL_TIMEOUT, TaskMsg, TasksMsg};
use crate::waits::WaitsMsg;
use crate::waits::content::Content;
use crate::waits::gate::{Readiness, fingerprint};
use crate::waits::judge::{Judge, JudgeFailure, JudgeProgress, JudgeRequest, Verdict};
use crate::waits::source::CaptureError;
use crate::waits::sources::SourceFactory;
use crate::waits::target::Target;
use crate::waits::text_judge::{Condition, Decision, TextJudge};
use crate::waits::texts::{self, FirstChange};
use crate::waits::watcher::{WatchCounters, WatcherActor, WatcherArgs, WatcherMsg};
use crate::wake;

/// How long a model judgment may take before it counts as a judge failure.
pub const JUDGE_TIMEOUT: Duration = Duration::from_secs(120);
/// How long an attempt waits for its verdict to be recorded.
const RECORD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a poll timer waits for the poll and what it set off.
pub const POLL_TIMEOUT: Duration = Duration::from_secs(180);
/// History entries kept per wait (the oldest, `created`, always stays).
pub const MAX_HISTORY: usize = 50;

/// What every wait shares: where sources come from, how content is judged, when to give up.
#[derive(Debug)]
pub struct WaitSettings {
    pub sources: Arc<dyn SourceFactory>,
    /// The judging pipeline of text targets (with the model, if one is configured).
    pub text_judge: TextJudge,
    /// The model for pixel targets; without one, a window wait wakes on the first change.
    pub pixel_judge: Option<Arc<dyn Judge>>,
    /// Capture or judge failures in a row that end a wait in `error`.
    pub max_consecutive_failures: u32,
    /// How long a watched window may stay closed before the wait ends in `error`.
    pub window_gone_grace: Duration,
}

/// A new wait, validated.
#[derive(Clone, Debug)]
pub struct NewWait {
    pub target: Target,
    pub condition: String,
    pub timeout_s: u64,
    pub poll_interval: Duration,
    pub task_id: Option<TaskId>,
    pub session_key: Option<String>,
}

/// `wait_update`'s changes.
#[derive(Clone, Debug, Default)]
pub struct WaitUpdate {
    pub wake_when: Option<String>,
    pub timeout_s: Option<u64>,
    pub message: Option<String>,
}

/// A wait as callers see it.
#[derive(Clone, Debug)]
pub struct WaitView {
    pub record: WaitRecord,
    pub now: Timestamp,
    /// What just happened, for the reply's `message`.
    pub message: String,
}

type ViewReply = RpcReplyPort<Result<WaitView, CallError>>;

pub enum WaitMsg {
    /// Create the wait this actor was spawned for.
    Create(NewWait, u64, ViewReply),
    /// Resume a wait that was watching when the daemon stopped (or this actor died); with a
    /// reply port, answer once it is watching again (or has ended).
    Resume(Option<RpcReplyPort<()>>),
    /// Bring back an ended wait from storage (`wait_update` on it).
    Revive(WaitUpdate, ViewReply),
    /// From the poll timer: capture now; the reply carries the judgment it set off.
    Poll(RpcReplyPort<Option<JoinHandle<()>>>),
    /// From the Watcher: news the gate let through.
    Observe {
        seq: u64,
        content: Content,
        readiness: Readiness,
        reply: RpcReplyPort<Option<JoinHandle<()>>>,
    },
    CaptureFailed(CaptureError, RpcReplyPort<()>),
    /// From the Watcher, at every poll once the watched window has been closed for the grace
    /// period.
    WindowClosed {
        closed_for: Duration,
        reply: RpcReplyPort<()>,
    },
    /// A capture worked after failures: the failure streak is over.
    CaptureSucceeded,
    /// A model's verdict on observation `seq`.
    Judgment {
        generation: u64,
        seq: u64,
        outcome: Result<Verdict, JudgeFailure>,
        reply: RpcReplyPort<()>,
    },
    /// From the deadline timer.
    Deadline(RpcReplyPort<()>),
    Update(WaitUpdate, ViewReply),
    Cancel(Option<String>, ViewReply),
    Status(RpcReplyPort<WaitView>),
}

pub struct WaitActor;

pub struct WaitArgs {
    pub id: WaitId,
    pub directory: Directory,
    pub settings: Arc<WaitSettings>,
}

pub struct WaitActorState {
    id: WaitId,
    directory: Directory,
    settings: Arc<WaitSettings>,
    record: Option<WaitRecord>,
    target: Option<Target>,
    condition: Condition,
    watcher: Option<ActorRef<WatcherMsg>>,
    counters: Arc<WatchCounters>,
    /// Failures in a row, counted apart: a capture that works does not excuse a judge that
    /// keeps failing, nor the other way round.
    capture_failures_in_a_row: u32,
    judge_failures_in_a_row: u32,
    /// Bumped when the condition changes: verdicts on the old one are dropped.
    generation: u64,
    /// The fingerprint of the first content this watch saw: without a model, a condition
    /// wakes only on settled content that differs from it.
    baseline: Option<u64>,
    /// A model judgment is in flight (one at a time).
    judging: bool,
    /// The end of the wait could not be saved: the actor fails after this message, and the
    /// supervisor resumes the wait from storage (where it is still live).
    unsaved_end: Option<String>,
}

impl Actor for WaitActor {
    type Msg = WaitMsg;
    type State = WaitActorState;
    type Arguments = WaitArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<WaitMsg>,
        args: WaitArgs,
    ) -> Result<WaitActorState, ActorProcessingErr> {
        Ok(WaitActorState {
            id: args.id,
            directory: args.directory,
            settings: args.settings,
            record: None,
            target: None,
            condition: Condition::parse(""),
            watcher: None,
            counters: Arc::default(),
            capture_failures_in_a_row: 0,
            judge_failures_in_a_row: 0,
            generation: 0,
            baseline: None,
            judging: false,
            unsaved_end: None,
        })
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<WaitMsg>,
        state: &mut WaitActorState,
    ) -> Result<(), ActorProcessingErr> {
        disarm_timers(state);
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<WaitMsg>,
        msg: WaitMsg,
        state: &mut WaitActorState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.faults().check(ActorKind::Wait);
        match msg {
            WaitMsg::Create(new, sequence, reply) => {
                let outcome = create(&myself, state, new, sequence).await;
                if outcome.is_err() {
                    retire(&myself, state);
                }
                let _ = reply.send(outcome);
            }
            WaitMsg::Resume(reply) => {
                resume(&myself, state).await;
                if let Some(reply) = reply {
                    let _ = reply.send(());
                }
            }
            WaitMsg::Revive(update, reply) => {
                let outcome = revive(&myself, state, update).await;
                if outcome.is_err() {
                    retire(&myself, state);
                }
                let _ = reply.send(outcome);
            }
            WaitMsg::Poll(reply) => {
                let _ = reply.send(poll_now(state));
            }
            WaitMsg::Observe {
                seq,
                content,
                readiness,
                reply,
            } => {
                let judging = observe(&myself, state, seq, content, readiness).await;
                let _ = reply.send(judging);
            }
            WaitMsg::CaptureFailed(error, reply) => {
                capture_failed(&myself, state, error).await;
                let _ = reply.send(());
            }
            WaitMsg::WindowClosed { closed_for, reply } => {
                window_closed(&myself, state, closed_for).await;
                let _ = reply.send(());
            }
            WaitMsg::CaptureSucceeded => state.capture_failures_in_a_row = 0,
            WaitMsg::Judgment {
                generation,
                seq,
                outcome,
                reply,
            } => {
                judgment(&myself, state, generation, seq, outcome).await;
                let _ = reply.send(());
            }
            WaitMsg::Deadline(reply) => {
                if is_watching(state) {
                    let observation = state
                        .record
                        .as_ref()
                        .and_then(|r| r.last_observation.clone());
                    finish(
                        &myself,
                        state,
                        Ending::Timeout {
                            observation,
                            while_down: false,
                        },
                    )
                    .await;
                }
                let _ = reply.send(());
            }
            WaitMsg::Update(update, reply) => {
                let outcome = if is_watching(state) {
                    update_watching(&myself, state, update).await
                } else {
                    revive(&myself, state, update).await
                };
                let _ = reply.send(outcome);
            }
            WaitMsg::Cancel(reason, reply) => {
                let _ = reply.send(cancel(&myself, state, reason).await);
            }
            WaitMsg::Status(reply) => {
                let _ = reply.send(view(state, String::new()));
            }
        }
        fail_if_end_unsaved(state)
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<WaitMsg>,
        event: SupervisionEvent,
        state: &mut WaitActorState,
    ) -> Result<(), ActorProcessingErr> {
        if let SupervisionEvent::ActorFailed(_, error) = event {
            // The Watcher died (a panicking source): count it, then start a fresh one.
            state.watcher = None;
            let error = CaptureError::retryable(format!(
                "the watcher of {} crashed: {error}",
                target_text(state)
            ));
            capture_failed(&myself, state, error).await;
            if is_watching(state)
                && let Err(error) = start_watcher(&myself, state).await
            {
                finish(&myself, state, Ending::Error(error.message)).await;
            }
        }
        fail_if_end_unsaved(state)
    }
}

/// An end that could not be saved fails the actor: restarted from storage, where the wait
/// is still live, it watches again and ends again once storage works.
fn fail_if_end_unsaved(state: &mut WaitActorState) -> Result<(), ActorProcessingErr> {
    match state.unsaved_end.take() {
        Some(error) => Err(format!("cannot save the end of wait {}: {error}", state.id).into()),
        None => Ok(()),
    }
}

fn is_watching(state: &WaitActorState) -> bool {
    state.record.as_ref().is_some_and(WaitRecord::is_live)
}

fn target_text(state: &WaitActorState) -> String {
    state
        .record
        .as_ref()
        .map(|r| r.target.clone())
        .unwrap_or_default()
}

fn record_mut(state: &mut WaitActorState) -> &mut WaitRecord {
    state.record.as_mut().expect("a started wait has a record")
}

fn add_history(
    record: &mut WaitRecord,
    at: Timestamp,
    event: WaitEvent,
    met: Option<bool>,
    detail: Option<String>,
) {
    record.history.push(WaitHistoryEntry {
        at,
        event,
        met,
        detail,
    });
    if record.history.len() > MAX_HISTORY {
        // Keep `created`, drop the oldest after it.
        record.history.remove(1);
    }
}

fn counters_now(state: &WaitActorState) -> WaitCounters {
    let mut counters = state
        .record
        .as_ref()
        .map(|r| r.counters)
        .unwrap_or_default();
    counters.captures += state.counters.captures.swap(0, Ordering::Relaxed);
    counters.skipped_by_gate += state.counters.skipped_by_gate.swap(0, Ordering::Relaxed);
    counters
}

/// Folds the Watcher's capture counts into the record.
fn sync_counters(state: &mut WaitActorState) {
    let counters = counters_now(state);
    if let Some(record) = state.record.as_mut() {
        record.counters = counters;
    }
}

fn view(state: &mut WaitActorState, message: String) -> WaitView {
    sync_counters(state);
    WaitView {
        record: state.record.clone().expect("a started wait has a record"),
        now: state.directory.now(),
        message,
    }
}

async fn create(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    new: NewWait,
    sequence: u64,
) -> Result<WaitView, CallError> {
    let now = state.directory.now();
    // Can it be watched at all? (A bad tmux pane fails later; no X display fails here.)
    let sources = &state.settings.sources;
    sources.check_new(&new.target, &state.directory).await?;
    drop(sources.source(&new.target, &state.directory)?);
    let mut record = WaitRecord {
        id: state.id.clone(),
        target: new.target.to_string(),
        condition: new.condition.clone(),
        task_id: new.task_id.clone(),
        session_key: new.session_key.clone(),
        state: WaitState::Watching,
        created_at: now,
        started_at: now,
        deadline: now.saturating_add_millis(new.timeout_s * 1000),
        timeout_s: new.timeout_s,
        poll_interval_ms: new.poll_interval.as_millis() as u64,
        last_observation: None,
        ended_at: None,
        counters: WaitCounters::default(),
        history: Vec::new(),
    };
    add_history(&mut record, now, WaitEvent::Created, None, None);
    let counter = Mutation::RaiseCounter {
        counter: Counter::WaitSequence,
        at_least: sequence,
    };
    let note = texts::created_note(
        &record.id,
        &record.target,
        &record.condition,
        record.timeout_s,
    );
    let stored = persist_link(state, record, Link::Add, note, None, vec![counter]).await?;
    state.condition = Condition::parse(&stored.condition);
    state.target = Some(new.target);
    state.record = Some(stored);
    start_watcher(myself, state).await?;
    // The first poll is due now: the content is judged at once.
    arm_timers(myself, state);
    let first_change = first_change_note(state);
    let message = texts::monitoring(&new.condition, new.timeout_s, first_change);
    Ok(view(state, message))
}

/// Whether this wait, with no model, wakes at the first change rather than on its words.
fn first_change_note(state: &WaitActorState) -> FirstChange {
    let Some(target) = &state.target else {
        return FirstChange::No;
    };
    if target.is_pixels() {
        return match state.settings.pixel_judge {
            None => FirstChange::Pixels,
            Some(_) => FirstChange::No,
        };
    }
    let exit_known = state.settings.sources.reports_exit(target);
    let literal = state.condition.literal_only
        && (!state.condition.exit_clause || exit_known || !state.condition.phrases.is_empty());
    if !state.settings.text_judge.has_model() && !literal {
        FirstChange::Text
    } else {
        FirstChange::No
    }
}

async fn resume(myself: &ActorRef<WaitMsg>, state: &mut WaitActorState) {
    let id = state.id.clone();
    let loaded = match state.directory.registry() {
        Ok(registry) => registry::read(&registry, move |store: &Store| store.wait(&id)).await,
        Err(error) => Err(error),
    };
    let record = match loaded {
        Ok(Some(record)) if record.is_live() => record,
        Ok(_) => return retire(myself, state),
        Err(error) => {
            tracing::error!(wait = %state.id, %error, "cannot load the wait to resume it; the next start retries");
            return retire(myself, state);
        }
    };
    state.condition = Condition::parse(&record.condition);
    state.target = Target::parse(&record.target).ok();
    let deadline_passed = record.deadline <= state.directory.now();
    let observation = record.last_observation.clone();
    state.record = Some(record);
    if deadline_passed {
        return finish(
            myself,
            state,
            Ending::Timeout {
                observation,
                while_down: true,
            },
        )
        .await;
    }
    if let Err(error) = start_watcher(myself, state).await {
        return finish(myself, state, Ending::Error(error.message)).await;
    }
    arm_timers(myself, state);
    tracing::info!(wait = %state.id, "resumed a wait");
}

async fn revive(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    update: WaitUpdate,
) -> Result<WaitView, CallError> {
    if state.record.is_none() {
        let id = state.id.clone();
        let found = registry::read(&state.directory.registry()?, move |store: &Store| {
            store.wait(&id)
        })
        .await?;
        state.record = Some(found.ok_or_else(|| not_found(&state.id))?);
    }
    let record = state.record.clone().expect("just loaded");
    if record.state == WaitState::Cancelled {
        return Err(CallError::conflict(
            format!(
                "wait {} was cancelled; a cancelled wait cannot be revived",
                record.id
            ),
            "start a new wait with smart_wait(target, wake_when)",
        ));
    }
    if record.is_live() {
        return update_watching(myself, state, update).await;
    }
    let target = Target::parse(&record.target)?;
    let now = state.directory.now();
    let mut revived = record;
    if let Some(condition) = &update.wake_when {
        revived.condition = condition.clone();
    }
    if let Some(timeout_s) = update.timeout_s {
        revived.timeout_s = timeout_s;
    }
    revived.state = WaitState::Watching;
    revived.started_at = now;
    revived.deadline = now.saturating_add_millis(revived.timeout_s * 1000);
    revived.ended_at = None;
    add_history(
        &mut revived,
        now,
        WaitEvent::Revived,
        None,
        update.message.clone(),
    );
    let note = texts::revived_note(
        &revived.id,
        &revived.target,
        &revived.condition,
        revived.timeout_s,
    );
    let stored = persist_link(state, revived, Link::Add, note, None, Vec::new()).await?;
    state.condition = Condition::parse(&stored.condition);
    state.target = Some(target);
    state.generation += 1;
    state.baseline = None;
    state.capture_failures_in_a_row = 0;
    state.judge_failures_in_a_row = 0;
    let message = texts::resumed(&stored.condition, stored.timeout_s);
    state.record = Some(stored);
    start_watcher(myself, state).await?;
    arm_timers(myself, state);
    Ok(view(state, message))
}

async fn update_watching(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    update: WaitUpdate,
) -> Result<WaitView, CallError> {
    let now = state.directory.now();
    let record = record_mut(state);
    let mut changed = Vec::new();
    if let Some(condition) = &update.wake_when {
        record.condition = condition.clone();
        changed.push(format!("wake_when: {condition}"));
    }
    if let Some(timeout_s) = update.timeout_s {
        record.timeout_s = timeout_s;
        record.started_at = now;
        record.deadline = now.saturating_add_millis(timeout_s * 1000);
        changed.push(format!("timeout: {timeout_s}s"));
    }
    if let Some(message) = &update.message {
        changed.push(format!("note: {message}"));
    }
    add_history(
        record,
        now,
        WaitEvent::Updated,
        None,
        Some(changed.join("; ")),
    );
    let (condition, timeout_s) = (record.condition.clone(), record.timeout_s);
    if update.wake_when.is_some() {
        state.condition = Condition::parse(&condition);
        state.generation += 1;
        state.baseline = None;
        if let Some(watcher) = &state.watcher {
            let _ = watcher.cast(WatcherMsg::Reset);
        }
    }
    save(state).await?;
    // The deadline may have moved, and the current content is judged against the new
    // condition at once: the next poll is due now.
    arm_timers(myself, state);
    Ok(view(state, texts::resumed(&condition, timeout_s)))
}

async fn cancel(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    reason: Option<String>,
) -> Result<WaitView, CallError> {
    if state.record.is_none() {
        return Err(not_found(&state.id));
    }
    if !is_watching(state) {
        let ended = state
            .record
            .as_ref()
            .map(|r| r.state.as_str())
            .unwrap_or("ended");
        return Ok(view(
            state,
            format!(
                "Wait {} had already ended ({ended}); nothing to cancel.",
                state.id
            ),
        ));
    }
    let now = state.directory.now();
    stop_watching(state);
    sync_counters(state);
    let record = record_mut(state);
    record.state = WaitState::Cancelled;
    record.ended_at = Some(now);
    add_history(record, now, WaitEvent::Cancelled, None, reason.clone());
    let note = texts::cancelled_note(&record.id, reason.as_deref());
    let ended = record.clone();
    let stored = persist_link(state, ended, Link::Remove, note, None, Vec::new()).await;
    retire(myself, state);
    let stored = stored?;
    state.record = Some(stored);
    Ok(view(state, texts::cancelled(reason.as_deref())))
}

/// Hands a poll to the Watcher and returns the task that waits for it and its judgment.
fn poll_now(state: &WaitActorState) -> Option<JoinHandle<()>> {
    let watcher = state.watcher.clone()?;
    Some(tokio::spawn(async move {
        let outcome = watcher
            .call(|reply| WatcherMsg::Poll(Some(reply)), Some(POLL_TIMEOUT))
            .await;
        if let Ok(ractor::rpc::CallResult::Success(Some(judging))) = outcome {
            let _ = judging.await;
        }
    }))
}

async fn observe(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    seq: u64,
    content: Content,
    readiness: Readiness,
) -> Option<JoinHandle<()>> {
    state.capture_failures_in_a_row = 0;
    if !is_watching(state) || state.judging {
        // Not judged: the gate hands it over again at the next poll.
        return None;
    }
    let target = state.target.clone()?;
    let print = fingerprint(&content);
    let is_baseline = *state.baseline.get_or_insert(print) == print;
    let decision = if target.is_pixels() {
        match (&state.settings.pixel_judge, readiness) {
            (_, Readiness::Changing) => Decision::NotMet(String::new()),
            (Some(_), Readiness::Settled) => Decision::AskModel,
            (None, Readiness::Settled) if !is_baseline => {
                Decision::Met(first_settled_change(&content))
            }
            (None, Readiness::Settled) => {
                Decision::NotMet("watching for the first change".to_owned())
            }
        }
    } else {
        let exit_known = state.settings.sources.reports_exit(&target);
        state.settings.text_judge.decide(
            &state.condition,
            &content,
            readiness,
            is_baseline,
            exit_known,
        )
    };
    match decision {
        Decision::Met(observation) => {
            judged(state, seq);
            let now = state.directory.now();
            let record = record_mut(state);
            record.last_observation = Some(observation.clone());
            add_history(
                record,
                now,
                WaitEvent::Judged,
                Some(true),
                Some(observation.clone()),
            );
            finish(myself, state, Ending::Resolved(observation)).await;
            None
        }
        Decision::NotMet(observation) => {
            judged(state, seq);
            if !observation.is_empty() {
                record_mut(state).last_observation = Some(observation);
            }
            None
        }
        Decision::AskModel => {
            state.judging = true;
            let started_at = record_mut(state).started_at;
            let request = JudgeRequest {
                wait_id: state.id.to_string(),
                condition: state.condition_text(),
                target: target.to_string(),
                content,
                elapsed: Duration::from_millis(state.directory.now().millis_since(started_at)),
                progress: JudgeProgress::default(),
            };
            let progress = request.progress.clone();
            let model = if target.is_pixels() {
                state.settings.pixel_judge.clone()
            } else {
                None
            };
            let text_judge = state.settings.text_judge.clone();
            let (wait, generation) = (myself.clone(), state.generation);
            let done = progress.done_on_drop();
            tokio::spawn(async move {
                let _done = done;
                let asked = async {
                    match model {
                        Some(model) => model.judge(request).await,
                        None => text_judge.ask_model(request).await,
                    }
                };
                let outcome = match tokio::time::timeout(JUDGE_TIMEOUT, asked).await {
                    Ok(outcome) => outcome,
                    Err(_) => Err(JudgeFailure {
                        message: format!(
                            "the judge did not answer within {}s",
                            JUDGE_TIMEOUT.as_secs()
                        ),
                        model_call: true,
                    }),
                };
                let _ = wait
                    .call(
                        |reply| WaitMsg::Judgment {
                            generation,
                            seq,
                            outcome,
                            reply,
                        },
                        Some(RECORD_TIMEOUT),
                    )
                    .await;
            });
            // What a tick waits for: the judgment, unless it is parked on the clock.
            Some(tokio::spawn(
                async move { progress.until_not_running().await },
            ))
        }
    }
}

/// The observation of a window or screen wait with no model, at the first settled change:
/// what changed (a closed window says so), and why that woke the agent.
fn first_settled_change(content: &Content) -> String {
    let what = match content {
        Content::Absent { description } => description.as_str(),
        Content::Text { .. } | Content::Frame(_) => "the window changed",
    };
    format!(
        "{what} (no vision model is configured to judge the condition, so lookout woke you at the \
         first settled change; configure [vision] to have a model judge it)"
    )
}

impl WaitActorState {
    fn condition_text(&self) -> String {
        self.record
            .as_ref()
            .map(|r| r.condition.clone())
            .unwrap_or_default()
    }
}

/// The judge saw observation `seq`: the Watcher's gate takes it as its new reference.
fn judged(state: &WaitActorState, seq: u64) {
    if let Some(watcher) = &state.watcher {
        let _ = watcher.cast(WatcherMsg::Judged(seq));
    }
}

async fn judgment(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    generation: u64,
    seq: u64,
    outcome: Result<Verdict, JudgeFailure>,
) {
    state.judging = false;
    if generation != state.generation || !is_watching(state) {
        return;
    }
    let now = state.directory.now();
    match outcome {
        Ok(verdict) => {
            state.judge_failures_in_a_row = 0;
            judged(state, seq);
            let record = record_mut(state);
            if let Some(usage) = verdict.model_call {
                record.counters.judge_calls += 1;
                record.counters.input_tokens += usage.input_tokens;
                record.counters.output_tokens += usage.output_tokens;
            }
            record.last_observation = Some(verdict.observation.clone());
            add_history(
                record,
                now,
                WaitEvent::Judged,
                Some(verdict.met),
                Some(verdict.observation.clone()),
            );
            if verdict.met {
                finish(myself, state, Ending::Resolved(verdict.observation)).await;
            } else if let Err(error) = save(state).await {
                tracing::warn!(wait = %state.id, %error, "cannot save a judgment");
            }
        }
        Err(failure) => {
            state.judge_failures_in_a_row += 1;
            let record = record_mut(state);
            record.counters.judge_failures += 1;
            if failure.model_call {
                record.counters.judge_calls += 1;
            }
            add_history(
                record,
                now,
                WaitEvent::JudgeFailed,
                None,
                Some(failure.message.clone()),
            );
            if state.judge_failures_in_a_row >= state.settings.max_consecutive_failures {
                let cause =
                    failed_in_a_row(state.judge_failures_in_a_row, "judge", &failure.message);
                finish(myself, state, Ending::Error(cause)).await;
            } else if let Err(error) = save(state).await {
                tracing::warn!(wait = %state.id, %error, "cannot save a judge failure");
            }
        }
    }
}

fn failed_in_a_row(count: u32, what: &str, last: &str) -> String {
    format!("{count} {what} failures in a row; the last: {last}")
}

async fn capture_failed(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    error: CaptureError,
) {
    if !is_watching(state) {
        return;
    }
    state.capture_failures_in_a_row += 1;
    let now = state.directory.now();
    add_history(
        record_mut(state),
        now,
        WaitEvent::CaptureFailed,
        None,
        Some(error.message.clone()),
    );
    if error.permanent {
        finish(myself, state, Ending::Error(error.message)).await;
    } else if state.capture_failures_in_a_row >= state.settings.max_consecutive_failures {
        let cause = failed_in_a_row(state.capture_failures_in_a_row, "capture", &error.message);
        finish(myself, state, Ending::Error(cause)).await;
    }
}

/// The watched window stayed closed for the grace period. Unless a model is still judging
/// (it may find the condition met by the absence; the Watcher reports again at the next
/// poll), the wait ends in `error` saying what to do.
async fn window_closed(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    closed_for: Duration,
) {
    if !is_watching(state) || state.judging {
        return;
    }
    let cause = texts::window_closed_cause(&state.id, &target_text(state), closed_for.as_secs());
    finish(myself, state, Ending::Error(cause)).await;
}

async fn start_watcher(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
) -> Result<(), CallError> {
    let target = state.target.clone().ok_or_else(|| {
        CallError::internal(
            format!("wait {} has an unreadable target", state.id),
            "start a new wait",
        )
    })?;
    let source = state.settings.sources.source(&target, &state.directory)?;
    let args = WatcherArgs {
        wait: myself.clone(),
        source,
        gate: state.settings.sources.gate(&target),
        counters: state.counters.clone(),
        directory: state.directory.clone(),
        window_gone_grace: state.settings.window_gone_grace,
    };
    let (watcher, _) = Actor::spawn_linked(None, WatcherActor, args, myself.get_cell())
        .await
        .map_err(|error| {
            CallError::internal(
                format!("cannot start the watcher: {error}"),
                "retry the call",
            )
        })?;
    state.watcher = Some(watcher);
    Ok(())
}

fn stop_watching(state: &mut WaitActorState) {
    disarm_timers(state);
    if let Some(watcher) = state.watcher.take() {
        watcher.stop(None);
    }
}

fn poll_timer(id: &WaitId) -> String {
    format!("wait-poll-{id}")
}

fn deadline_timer(id: &WaitId) -> String {
    format!("wait-deadline-{id}")
}

/// Arms the poll (first one due now) and the deadline, replacing earlier ones.
fn arm_timers(myself: &ActorRef<WaitMsg>, state: &WaitActorState) {
    let Some(record) = &state.record else { return };
    let period = Duration::from_millis(record.poll_interval_ms);
    let first = state.directory.now();
    let wait = myself.clone();
    state
        .directory
        .timers()
        .every(poll_timer(&state.id), first, period, move || {
            let wait = wait.clone();
            async move {
                if let Ok(ractor::rpc::CallResult::Success(Some(poll))) =
                    wait.call(WaitMsg::Poll, Some(POLL_TIMEOUT)).await
                {
                    let _ = poll.await;
                }
            }
        });
    arm_deadline_for(myself.clone(), state);
}

fn arm_deadline_for(wait: ActorRef<WaitMsg>, state: &WaitActorState) {
    let Some(record) = &state.record else { return };
    state.directory.timers().at(
        deadline_timer(&state.id),
        record.deadline,
        move || async move {
            let _ = wait.call(WaitMsg::Deadline, Some(RECORD_TIMEOUT)).await;
        },
    );
}

fn disarm_timers(state: &WaitActorState) {
    state.directory.timers().cancel(&poll_timer(&state.id));
    state.directory.timers().cancel(&deadline_timer(&state.id));
}

/// How a wait ends (other than by cancellation).
enum Ending {
    Resolved(String),
    Timeout {
        observation: Option<String>,
        while_down: bool,
    },
    Error(String),
}

/// Ends the wait: stops watching, stores the final record, removes the task's link, posts
/// the thread message and the wake event — all in one transaction — then retires the actor.
async fn finish(myself: &ActorRef<WaitMsg>, state: &mut WaitActorState, ending: Ending) {
    stop_watching(state);
    sync_counters(state);
    let now = state.directory.now();
    let record = record_mut(state);
    let elapsed_s = now.millis_since(record.started_at) / 1000;
    let (wait_state, kind, event, note, head) = match &ending {
        Ending::Resolved(observation) => (
            WaitState::Resolved,
            EventKind::WaitResolved,
            WaitEvent::Resolved,
            texts::resolved_note(&record.id, elapsed_s, observation),
            texts::wake_head(EventKind::WaitResolved, &record.id, observation, elapsed_s),
        ),
        Ending::Timeout {
            observation,
            while_down,
        } => {
            let mut last = observation.clone().unwrap_or_else(|| "none yet".to_owned());
            if *while_down {
                last.push_str(" (the deadline passed while the daemon was not running)");
            }
            (
                WaitState::Timeout,
                EventKind::WaitTimeout,
                WaitEvent::TimedOut,
                texts::timeout_note(&record.id, record.timeout_s, Some(&last)),
                texts::wake_head(EventKind::WaitTimeout, &record.id, &last, record.timeout_s),
            )
        }
        Ending::Error(cause) => (
            WaitState::Error,
            EventKind::WaitError,
            WaitEvent::Failed,
            texts::error_note(&record.id, cause),
            texts::wake_head(EventKind::WaitError, &record.id, cause, elapsed_s),
        ),
    };
    record.state = wait_state;
    record.ended_at = Some(now);
    let detail = match ending {
        Ending::Resolved(observation) => observation,
        Ending::Timeout { observation, .. } => observation.unwrap_or_default(),
        Ending::Error(cause) => cause,
    };
    add_history(record, now, event, None, Some(detail));
    let ended = record.clone();
    match persist_link(
        state,
        ended,
        Link::Remove,
        note,
        Some((kind, head)),
        Vec::new(),
    )
    .await
    {
        Ok(stored) => {
            state.record = Some(stored);
            retire(myself, state);
        }
        Err(error) => {
            // Still live in storage: failing the actor resumes it from there.
            tracing::error!(wait = %state.id, %error, "cannot save the end of a wait; resuming it from storage");
            state.unsaved_end = Some(error.message);
        }
    }
}

/// Saves the record alone (no task change).
async fn save(state: &mut WaitActorState) -> Result<(), CallError> {
    sync_counters(state);
    let record = state.record.clone().expect("a started wait has a record");
    registry::write(
        &state.directory.registry()?,
        WriteBatch {
            mutations: vec![Mutation::PutWait(record)],
        },
    )
    .await
}

/// What a wait change does to its task's linkage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    Add,
    Remove,
}

/// A wait change the TaskActor applies in one transaction with the task.
#[derive(Clone, Debug)]
pub struct WaitChange {
    pub wait: WaitRecord,
    pub link: Link,
    /// The thread message (msg_type `wait`).
    pub note: String,
    /// A wake event: its kind and the head of its text (the TaskActor adds the task part).
    pub event: Option<(EventKind, String)>,
    /// More mutations for the same transaction (the wait counter).
    pub extra: Vec<Mutation>,
}

/// Stores the wait with its linkage: through the task's actor when it has a task, else
/// directly. Returns the stored record (which may have inherited the task's session key).
async fn persist_link(
    state: &WaitActorState,
    wait: WaitRecord,
    link: Link,
    note: String,
    event: Option<(EventKind, String)>,
    extra: Vec<Mutation>,
) -> Result<WaitRecord, CallError> {
    match wait.task_id.clone() {
        Some(task_id) => {
            let change = WaitChange {
                wait,
                link,
                note,
                event,
                extra,
            };
            let tasks = state.directory.tasks()?;
            let outcome = tasks
                .call(
                    |reply| TasksMsg::Forward(task_id, TaskMsg::Wait(Box::new(change), reply)),
                    Some(TASK_CALL_TIMEOUT),
                )
                .await;
            crate::error::from_call("task actor", TASK_CALL_TIMEOUT, outcome)
        }
        None => {
            let mut batch = WriteBatch::new();
            batch.push(Mutation::PutWait(wait.clone()));
            batch.mutations.extend(extra);
            let seq = event.map(|(kind, head)| {
                let seq = state.directory.next_event_seq();
                let text = head + &texts::taskless_tail(kind, &wait.id);
                batch.push(Mutation::PutEvent(wait_event(
                    seq,
                    kind,
                    text,
                    &wait,
                    state.directory.now(),
                )));
                batch.push(Mutation::RaiseCounter {
                    counter: Counter::EventSequence,
                    at_least: seq,
                });
                seq
            });
            let written = registry::write(&state.directory.registry()?, batch).await;
            // Told even when the commit failed: an I/O error may still have stored the
            // event, and the wake actor skips events that are not there.
            if let Some(seq) = seq {
                wake::notify(&state.directory, vec![seq]);
            }
            written?;
            Ok(wait)
        }
    }
}

/// The outbox event of a wait's end.
pub fn wait_event(
    seq: u64,
    kind: EventKind,
    text: String,
    wait: &WaitRecord,
    now: Timestamp,
) -> EventRecord {
    EventRecord {
        seq,
        kind,
        text,
        task_id: wait.task_id.clone(),
        wait_id: Some(wait.id.to_string()),
        session_key: wait.session_key.clone(),
        created_at: now,
        deliveries: Vec::new(),
        settled: false,
    }
}

pub(crate) fn not_found(id: &WaitId) -> CallError {
    CallError::not_found(
        format!("no wait with id '{id}'"),
        "wait ids look like w-4hx8q2; wait_status() lists the live waits",
    )
}

/// Asks the Waits supervisor to drain and stop this actor: the wait ended (or never began).
/// Sent to the supervisor's cell, which exists even while it is still starting.
fn retire(myself: &ActorRef<WaitMsg>, state: &WaitActorState) {
    if let Some(supervisor) = myself.get_cell().try_get_supervisor() {
        let _ = supervisor.send_message(WaitsMsg::Retire(state.id.clone(), myself.get_id()));
    }
}
