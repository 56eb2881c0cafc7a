//! WaitActor: one live smart wait. It owns the wait's record, its Watcher child (the capture
//! loop), its timers (the poll and the deadline) and its judgments, and ends the wait —
//! resolved, timeout, error or cancelled — in one transaction with the task linkage and the
//! wake event. A wait that ended retires its actor; `wait_update` on it starts a new one that
//! revives it from storage.
//!
//! One module: [`watching`] is the watch (timers, the Watcher child, what it reports),
//! [`deadline`] the wait's time, [`persist`] how a record is stored; the state they share
//! is [`WaitActorState`], private to this module.

mod deadline;
mod persist;
mod watching;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use storage::{Counter, EventKind, Mutation, Store, WaitCounters, WaitId, WaitRecord};
use tokio::task::JoinHandle;

use crate::condition::judge::{JudgeFailure, Verdict};
use crate::condition::{JudgedBy, Reading, Test};
use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::linkage::{Link, WaitChange};
use crate::registry;
use crate::sight::capture::CaptureError;
use crate::sight::content::Content;
use crate::sight::gate::Readiness;
use crate::sight::target::Target;
use crate::waits::WaitsMsg;
use crate::waits::feed::CAPTURE_TIMEOUT;
use crate::waits::fresh;
use crate::waits::texts;
use crate::waits::transition::{self, EndOfWait};
use crate::waits::types::{Ending, NewWait, WaitSettings, WaitUpdate, WaitView, Watch};
use crate::waits::watcher::{WatchCounters, WatcherMsg};
use deadline::{anchor_deadline, check_quiet_fits, check_update_fits, deadline_from_boot};
use watching::{
    arm_timers, capture_failed, check_quiet, disarm_timers, judgment, observe, poll_now,
    start_watcher, stop_watching, target_gone,
};

/// How long an attempt waits for its verdict to be recorded.
const RECORD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a poll timer waits for the poll and what it set off.
pub const POLL_TIMEOUT: Duration = Duration::from_secs(180);

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
    /// From the Watcher, at every poll once the watched window has been closed (or the
    /// watched file deleted) for the grace period.
    TargetGone {
        gone_for: Duration,
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
    reading: Reading,
    /// What is kept of the last content observed (for conditions about time passing
    /// without change).
    last_content: Option<LastContent>,
    watcher: Option<ActorRef<WatcherMsg>>,
    counters: Arc<WatchCounters>,
    watch: Watch,
    /// The end of the wait could not be saved: the actor fails after this message, and the
    /// supervisor resumes the wait from storage (where it is still live).
    unsaved_end: Option<String>,
}

/// What a wait keeps of the last content observed: text and absences whole, of a frame
/// only that it was one (a quiet condition is decided on time, not pixels, and the gate
/// keeps what it needs of them), so a wait holds no frame between captures.
#[derive(Clone, Debug)]
enum LastContent {
    Frame,
    Other(Content),
}

impl LastContent {
    fn of(content: &Content) -> LastContent {
        match content {
            Content::Frame(_) => LastContent::Frame,
            other => LastContent::Other(other.clone()),
        }
    }
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
            reading: Reading::parse(""),
            last_content: None,
            watcher: None,
            counters: Arc::default(),
            watch: Watch::default(),
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
                check_quiet(&myself, state).await;
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
            WaitMsg::TargetGone { gone_for, reply } => {
                target_gone(&myself, state, gone_for).await;
                let _ = reply.send(());
            }
            WaitMsg::CaptureSucceeded => state.watch.capture_failures_in_a_row = 0,
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
                    let ending = transition::timed_out(record_mut(state));
                    finish(&myself, state, ending).await;
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
    let record = state.record.clone().expect("a started wait has a record");
    WaitView {
        reading: state.settings.reading_view(&record),
        record,
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
    let target_notes = sources.check_new(&new.target, &state.directory).await?;
    check_visible(state, &new.target, &new.condition)?;
    check_quiet_fits(&new.condition, new.timeout_s)?;
    let start = first_capture(state, &new.target).await?;
    let baseline = start.as_ref().and_then(fresh::baseline_of);
    let mut record = transition::new_record(state.id.clone(), &new, baseline, now);
    anchor_deadline(&mut record, &state.directory);
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
    state.reading = Reading::parse(&stored.condition);
    state.target = Some(new.target.clone());
    state.record = Some(stored);
    start_watcher(myself, state).await?;
    // The first poll is due now: the content is judged at once.
    arm_timers(myself, state);
    let message = monitoring_message(state, &new, start.as_ref(), target_notes);
    Ok(view(state, message))
}

/// Refuses a condition the target cannot show: on an OpenClaw exec session, whose output
/// lookout does not see, only its end can be judged.
fn check_visible(
    state: &WaitActorState,
    target: &Target,
    condition: &str,
) -> Result<(), CallError> {
    if state.settings.sources.shows_output(target) {
        return Ok(());
    }
    let unseen: Vec<String> = Reading::parse(condition)
        .clauses()
        .filter(|clause| !matches!(clause.test, Test::Ends(_)))
        .map(|clause| clause.text.clone())
        .collect();
    if unseen.is_empty() {
        Ok(())
    } else {
        Err(texts::output_not_seen(&target.to_string(), &unseen))
    }
}

/// What a text target shows as the wait starts (its baseline). `None` for pixels (their
/// watch compares frames) and for a target that cannot be captured yet (a missing pane
/// fails at the first poll, which says why); a target that can never be captured (a
/// session that is gone) refuses the wait now.
async fn first_capture(
    state: &WaitActorState,
    target: &Target,
) -> Result<Option<Content>, CallError> {
    let mut source = state.settings.sources.source(target, &state.directory)?;
    if target.is_pixels() {
        return Ok(None);
    }
    let captured = tokio::time::timeout(CAPTURE_TIMEOUT, source.capture()).await;
    match captured {
        Ok(Ok(content)) => Ok(Some(content)),
        Ok(Err(error)) if error.permanent => Err(CallError::unavailable(
            error.message,
            "check the target (term_start lists nothing for a session that is gone); start \
             a new wait on one that exists",
        )),
        Ok(Err(_)) | Err(_) => Ok(None),
    }
}

/// The reply to `smart_wait`: the condition, how it was read, and what the agent should
/// know — clauses nobody can judge, phrases already on screen.
fn monitoring_message(
    state: &WaitActorState,
    new: &NewWait,
    start: Option<&Content>,
    mut notes: Vec<String>,
) -> String {
    let judges = state.settings.judges(&new.target);
    let reading = texts::reading_sentence(&state.reading, judges);
    let unjudged: Vec<String> = state
        .reading
        .judged_by(judges)
        .into_iter()
        .filter(|(_, by)| *by == JudgedBy::Nobody)
        .map(|(clause, _)| clause.text.clone())
        .collect();
    if !unjudged.is_empty() {
        notes.push(texts::unjudged_note(&unjudged, new.target.is_pixels()));
    }
    if !new.match_existing
        && let Some(Content::Text { text, .. }) = start
    {
        for phrase in state.reading.phrases() {
            if let Some((line, from_end)) = last_line_with(text, phrase) {
                notes.push(texts::already_present_note(phrase, line, from_end));
            }
        }
    }
    if let (Some(task), Some(step)) = (&new.task_id, new.step) {
        notes.push(texts::step_note(task, step));
    }
    texts::monitoring(&new.condition, new.timeout_s, &reading, &notes)
}

/// The last line of `text` containing `phrase` (case-insensitive), and how many non-empty
/// lines follow it.
fn last_line_with<'t>(text: &'t str, phrase: &str) -> Option<(&'t str, usize)> {
    let phrase = phrase.to_lowercase();
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let at = lines
        .iter()
        .rposition(|line| line.to_lowercase().contains(&phrase))?;
    Some((lines[at], lines.len() - 1 - at))
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
    state.reading = Reading::parse(&record.condition);
    state.target = Target::parse(&record.target).ok();
    let mut record = record;
    deadline_from_boot(&mut record, &state.directory);
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
    if record.is_live() {
        return update_watching(myself, state, update).await;
    }
    let target = Target::parse(&record.target)?;
    if let Some(condition) = &update.wake_when {
        check_visible(state, &target, condition)?;
    }
    check_update_fits(&record, &update)?;
    let start = first_capture(state, &target).await?;
    let baseline = start.as_ref().and_then(fresh::baseline_of);
    let mut revived = transition::revive(&record, &update, baseline, state.directory.now())?;
    anchor_deadline(&mut revived, &state.directory);
    let note = texts::revived_note(
        &revived.id,
        &revived.target,
        &revived.condition,
        revived.timeout_s,
    );
    let stored = persist_link(state, revived, Link::Add, note, None, Vec::new()).await?;
    state.reading = Reading::parse(&stored.condition);
    state.target = Some(target);
    state.watch.restart();
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
    if let (Some(condition), Some(target)) = (&update.wake_when, &state.target) {
        check_visible(state, target, condition)?;
    }
    if let Some(record) = &state.record {
        check_update_fits(record, &update)?;
    }
    let directory = state.directory.clone();
    let record = record_mut(state);
    let condition_changed = transition::update(record, &update, now);
    if record.deadline_boot.is_none() {
        anchor_deadline(record, &directory);
    }
    let (condition, timeout_s) = (record.condition.clone(), record.timeout_s);
    if condition_changed {
        state.reading = Reading::parse(&condition);
        state.watch.restart();
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
    let note = transition::cancel(record, reason.as_deref(), now);
    let ended = record.clone();
    let stored = persist_link(state, ended, Link::Remove, note, None, Vec::new()).await;
    retire(myself, state);
    let stored = stored?;
    state.record = Some(stored);
    Ok(view(state, texts::cancelled(reason.as_deref())))
}

/// Ends the wait: stops watching, stores the final record, removes the task's link, posts
/// the thread message and the wake event — all in one transaction — then retires the actor.
async fn finish(myself: &ActorRef<WaitMsg>, state: &mut WaitActorState, ending: Ending) {
    stop_watching(state);
    sync_counters(state);
    let now = state.directory.now();
    let record = record_mut(state);
    let EndOfWait { note, kind, head } = transition::end(record, ending, now);
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
    persist::save(&state.directory, record).await
}

/// Stores the wait with its linkage (see [`persist::store_change`]).
async fn persist_link(
    state: &WaitActorState,
    wait: WaitRecord,
    link: Link,
    note: String,
    event: Option<(EventKind, String)>,
    extra: Vec<Mutation>,
) -> Result<WaitRecord, CallError> {
    let change = WaitChange {
        wait,
        link,
        note,
        event,
        extra,
    };
    persist::store_change(&state.directory, change).await
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
