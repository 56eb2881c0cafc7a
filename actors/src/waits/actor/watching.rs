//! The watch of a live wait, the WaitActor's other half: its timers (the poll and the
//! deadline, on the Clock's registry so a ManualClock drives them), its Watcher child (the
//! capture loop), and what happens to what the Watcher reports — observations decided by
//! the judges, questions put to the model, verdicts, capture failures, a closed window.
//! The decisions themselves are [`super::transition`]'s; this file carries them out.

use std::time::Duration;

use ractor::{Actor, ActorRef};
use storage::{Timestamp, WaitId};
use tokio::task::JoinHandle;

use super::{
    LastContent, POLL_TIMEOUT, RECORD_TIMEOUT, WaitActorState, WaitMsg, finish, is_watching,
    record_mut, save, target_text,
};
use crate::condition::judge::{JUDGE_TIMEOUT, JudgeFailure, JudgeProgress, JudgeRequest, Verdict};
use crate::error::CallError;
use crate::sight::capture::CaptureError;
use crate::sight::content::Content;
use crate::sight::gate::{Readiness, fingerprint};
use crate::sight::target::Target;
use crate::waits::fresh;
use crate::waits::judge::decide::{Decision, Observed, decide};
use crate::waits::texts;
use crate::waits::transition;
use crate::waits::types::{Ending, Step};
use crate::waits::watcher::{SettleProbe, WatcherActor, WatcherArgs, WatcherMsg};

/// Hands a poll to the Watcher and returns the task that waits for it and its judgment.
pub(super) fn poll_now(state: &WaitActorState) -> Option<JoinHandle<()>> {
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

pub(super) async fn observe(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    seq: u64,
    content: Content,
    readiness: Readiness,
) -> Option<JoinHandle<()>> {
    state.watch.capture_failures_in_a_row = 0;
    if !is_watching(state) || state.watch.judging {
        // Not judged: the gate hands it over again at the next poll.
        return None;
    }
    let target = state.target.clone()?;
    if let Content::Absent { description } = &content
        && target.is_pixels()
        && !content.is_closed_window()
    {
        // A window never seen (or hidden): nothing for a judge to look at, and not where the
        // watch begins; the first frame of the window is.
        record_mut(state).last_observation = Some(description.clone());
        judged(state, seq);
        return None;
    }
    let now = state.directory.now();
    let print = fingerprint(&content);
    let is_baseline = state.watch.is_baseline(print);
    let quiet_for = state.watch.observed_at(print, now);
    let last = LastContent::of(&content);
    let decision = decide_on(state, &target, &last, readiness, is_baseline, quiet_for);
    state.last_content = Some(last);
    let record = state.record.as_mut()?;
    match transition::observed(record, &mut state.watch, decision, now) {
        Step::AskModel => {
            // A model judges text on what counts for this wait: the output since it began.
            let asked = match &content {
                Content::Text { exit, origin, .. } => Content::Text {
                    text: fresh::new_text(&content, record.baseline.as_ref()).into(),
                    exit: *exit,
                    origin: origin.clone(),
                },
                other => other.clone(),
            };
            Some(ask_model(myself, state, seq, &target, asked))
        }
        step => {
            judged(state, seq);
            apply(myself, state, step).await;
            None
        }
    }
}

/// At a poll with no news: a condition about time passing without change ("the output
/// stops changing for 30s") may hold now. Only a met condition acts here; everything else
/// waits for the next change.
pub(super) async fn check_quiet(myself: &ActorRef<WaitMsg>, state: &mut WaitActorState) {
    if !is_watching(state) || state.watch.judging || state.reading.quiet_clause().is_none() {
        return;
    }
    let (Some(target), Some(content)) = (state.target.clone(), state.last_content.clone()) else {
        return;
    };
    let now = state.directory.now();
    let quiet_for = state.watch.quiet_for(now);
    let is_baseline = state.watch.last_print == state.watch.baseline;
    let decision = decide_on(
        state,
        &target,
        &content,
        Readiness::Settled,
        is_baseline,
        quiet_for,
    );
    if let Decision::Met(_) = decision
        && let Some(record) = state.record.as_mut()
    {
        let step = transition::observed(record, &mut state.watch, decision, now);
        apply(myself, state, step).await;
    }
}

/// The reading's decision on a capture.
fn decide_on(
    state: &WaitActorState,
    target: &Target,
    content: &LastContent,
    readiness: Readiness,
    is_baseline: bool,
    quiet_for: Duration,
) -> Decision {
    let baseline = state.record.as_ref().and_then(|r| r.baseline.as_ref());
    let fresh_text;
    let observed = match content {
        LastContent::Other(content @ Content::Text { text, exit, .. }) => {
            fresh_text = fresh::new_text(content, baseline);
            Observed {
                text,
                fresh: &fresh_text,
                exit: *exit,
                quiet_for,
                changed: !fresh_text.trim().is_empty(),
                description: None,
                pixels: false,
            }
        }
        LastContent::Frame | LastContent::Other(Content::Frame(_)) => Observed {
            text: "",
            fresh: "",
            exit: None,
            quiet_for,
            changed: !is_baseline,
            description: Some("the window changed"),
            pixels: true,
        },
        LastContent::Other(Content::Absent { description }) => Observed {
            text: "",
            fresh: "",
            exit: None,
            quiet_for,
            // A window that closed is a change to look at; a file not there yet is not.
            changed: target.is_pixels() && !is_baseline,
            description: Some(description),
            pixels: target.is_pixels(),
        },
    };
    decide(
        &state.reading,
        state.settings.judges(target),
        &observed,
        readiness,
    )
}

/// Asks the model about observation `seq`; its verdict comes back as a `Judgment`. Returns
/// what a tick waits for: the judgment, unless it is parked on the clock.
fn ask_model(
    myself: &ActorRef<WaitMsg>,
    state: &WaitActorState,
    seq: u64,
    target: &Target,
    content: Content,
) -> JoinHandle<()> {
    let started_at = state
        .record
        .as_ref()
        .map(|r| r.started_at)
        .unwrap_or_default();
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
        state.settings.pixel_model.clone()
    } else {
        state.settings.text_model.clone()
    };
    let (wait, generation) = (myself.clone(), state.watch.generation);
    let done = progress.done_on_drop();
    tokio::spawn(async move {
        let _done = done;
        let asked = async {
            match model {
                Some(model) => model.judge(request).await,
                None => Err(JudgeFailure {
                    message: "no model is configured".to_owned(),
                    model_call: false,
                }),
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
    tokio::spawn(async move { progress.until_not_running().await })
}

/// Takes the step a transition asked for.
async fn apply(myself: &ActorRef<WaitMsg>, state: &mut WaitActorState, step: Step) {
    match step {
        Step::Keep | Step::AskModel => {}
        Step::Save => {
            if let Err(error) = save(state).await {
                tracing::warn!(wait = %state.id, %error, "cannot save the wait");
            }
        }
        Step::End(ending) => finish(myself, state, ending).await,
    }
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

pub(super) async fn judgment(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    generation: u64,
    seq: u64,
    outcome: Result<Verdict, JudgeFailure>,
) {
    if generation != state.watch.generation || !is_watching(state) {
        state.watch.judging = false;
        return;
    }
    if outcome.is_ok() {
        judged(state, seq);
    }
    let now = state.directory.now();
    let max_failures = state.settings.max_consecutive_failures;
    let Some(record) = state.record.as_mut() else {
        return;
    };
    let step = transition::judged(record, &mut state.watch, outcome, now, max_failures);
    apply(myself, state, step).await;
}

pub(super) async fn capture_failed(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    error: CaptureError,
) {
    if !is_watching(state) {
        return;
    }
    let now = state.directory.now();
    let max_failures = state.settings.max_consecutive_failures;
    let Some(record) = state.record.as_mut() else {
        return;
    };
    let step = transition::capture_failed(record, &mut state.watch, error, now, max_failures);
    apply(myself, state, step).await;
}

/// The watched window stayed closed, or the watched file deleted, for the grace period.
/// Unless a model is still judging (it may find the condition met by the absence; the
/// Watcher reports again at the next poll), the wait ends: in `error` for a window, saying
/// what to do; as changed for a file, whose condition can no longer hold.
pub(super) async fn target_gone(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
    gone_for: Duration,
) {
    if !is_watching(state) || state.watch.judging {
        return;
    }
    let ending = if state.target.as_ref().is_some_and(Target::is_pixels) {
        Ending::Error(texts::window_closed_cause(
            &state.id,
            &target_text(state),
            gone_for.as_secs(),
        ))
    } else {
        let last = state
            .record
            .as_ref()
            .and_then(|record| record.last_observation.clone());
        Ending::Over {
            why: texts::file_deleted_why(&target_text(state), gone_for.as_secs()),
            observation: last.unwrap_or_else(|| "nothing was written to it".to_owned()),
        }
    };
    finish(myself, state, ending).await;
}

pub(super) async fn start_watcher(
    myself: &ActorRef<WaitMsg>,
    state: &mut WaitActorState,
) -> Result<(), CallError> {
    let target = state.target.clone().ok_or_else(|| {
        CallError::internal(
            format!("wait {} has an unreadable target", state.id),
            "start a new wait",
        )
    })?;
    let settings = &state.settings;
    let feed = (settings.feeds).join(&target, || {
        settings.sources.source(&target, &state.directory)
    })?;
    let args = WatcherArgs {
        wait: myself.clone(),
        feed,
        gate: state.settings.sources.gate(&target),
        counters: state.counters.clone(),
        directory: state.directory.clone(),
        window_gone_grace: match &target {
            // A rotated log comes back at once; a deleted one is news within two polls.
            Target::File(_) => {
                let poll = state.record.as_ref().map_or(0, |r| r.poll_interval_ms);
                (state.settings.window_gone_grace).min(Duration::from_millis(2 * poll.max(500)))
            }
            _ => state.settings.window_gone_grace,
        },
        settle_probe: target
            .is_pixels()
            .then(|| {
                let poll = state.record.as_ref().map(|r| r.poll_interval_ms)?;
                SettleProbe::within(state.settings.settle_probe, Duration::from_millis(poll))
            })
            .flatten(),
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

pub(super) fn stop_watching(state: &mut WaitActorState) {
    disarm_timers(state);
    if let Some(watcher) = state.watcher.take() {
        watcher.stop(None);
    }
}

fn poll_timer(id: &WaitId) -> String {
    format!("wait-poll-{id}")
}

fn first_poll_timer(id: &WaitId) -> String {
    format!("wait-first-poll-{id}")
}

fn deadline_timer(id: &WaitId) -> String {
    format!("wait-deadline-{id}")
}

/// Arms the polls and the deadline, replacing earlier ones: a first poll now, then one at
/// every multiple of the interval (since the epoch), so that waits on one target with the
/// same interval poll on the same clock tick and share its capture (`feed`).
pub(super) fn arm_timers(myself: &ActorRef<WaitMsg>, state: &WaitActorState) {
    let Some(record) = &state.record else { return };
    let period_ms = record.poll_interval_ms.max(1);
    let now = state.directory.now();
    let aligned = Timestamp::from_millis((now.as_millis() / period_ms + 1) * period_ms);
    let poll = |wait: ActorRef<WaitMsg>| async move {
        if let Ok(ractor::rpc::CallResult::Success(Some(poll))) =
            wait.call(WaitMsg::Poll, Some(POLL_TIMEOUT)).await
        {
            let _ = poll.await;
        }
    };
    let timers = state.directory.timers();
    let wait = myself.clone();
    timers.at(first_poll_timer(&state.id), now, move || poll(wait));
    let wait = myself.clone();
    let period = Duration::from_millis(period_ms);
    timers.every(poll_timer(&state.id), aligned, period, move || {
        poll(wait.clone())
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

pub(super) fn disarm_timers(state: &WaitActorState) {
    state
        .directory
        .timers()
        .cancel(&first_poll_timer(&state.id));
    state.directory.timers().cancel(&poll_timer(&state.id));
    state.directory.timers().cancel(&deadline_timer(&state.id));
}
