//! How a wait changes, without effects: each function takes the record (and the watch's
//! judging state) and what happened — a request, an observation, a verdict, a failure, the
//! deadline — and returns the new state and the [`Step`] the actor must take. The WaitActor
//! applies the steps: timers, the watcher, storage and the model call.

use storage::{
    EventKind, TextBaseline, Timestamp, WaitCounters, WaitEvent, WaitHistoryEntry, WaitId,
    WaitRecord, WaitState,
};

use crate::condition::judge::{JudgeFailure, Verdict};
use crate::error::CallError;
use crate::sight::capture::CaptureError;
use crate::waits::judge::decide::Decision;
use crate::waits::texts;
use crate::waits::types::{Ending, NewWait, Step, WaitUpdate, Watch};

/// History entries kept per wait (the oldest, `created`, always stays).
pub const MAX_HISTORY: usize = 50;

pub fn add_history(
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

/// The record of a new wait, watching from `now`; `baseline` is where its text target
/// stood (only what comes after it counts, unless the wait matches what exists).
pub fn new_record(
    id: WaitId,
    new: &NewWait,
    baseline: Option<TextBaseline>,
    now: Timestamp,
) -> WaitRecord {
    let mut record = WaitRecord {
        id,
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
        match_existing: new.match_existing,
        baseline: if new.match_existing { None } else { baseline },
        // The actor anchors the deadline on the steady clock (it asks the Clock).
        deadline_boot: None,
        step: new.step,
    };
    add_history(&mut record, now, WaitEvent::Created, None, None);
    record
}

/// An ended wait watching again from `now` (`wait_update` on it): a new condition or timeout
/// if given, a fresh deadline, and a fresh baseline (what woke it is not news again). A
/// cancelled wait stays cancelled.
pub fn revive(
    record: &WaitRecord,
    update: &WaitUpdate,
    baseline: Option<TextBaseline>,
    now: Timestamp,
) -> Result<WaitRecord, CallError> {
    if record.state == WaitState::Cancelled {
        return Err(CallError::conflict(
            format!(
                "wait {} was cancelled; a cancelled wait cannot be revived",
                record.id
            ),
            "start a new wait with smart_wait(target, wake_when)",
        ));
    }
    let mut revived = record.clone();
    if let Some(condition) = &update.wake_when {
        revived.condition = condition.clone();
    }
    if let Some(timeout_s) = update.timeout_s {
        revived.timeout_s = timeout_s;
    }
    revived.state = WaitState::Watching;
    if !revived.match_existing {
        revived.baseline = baseline;
    }
    revived.started_at = now;
    revived.deadline = now.saturating_add_millis(revived.timeout_s * 1000);
    revived.deadline_boot = None;
    revived.ended_at = None;
    add_history(
        &mut revived,
        now,
        WaitEvent::Revived,
        None,
        update.message.clone(),
    );
    Ok(revived)
}

/// `wait_update` on a live wait: a new condition and/or a new timeout counted from `now`.
/// Returns whether the condition changed (the watch then starts judging afresh).
pub fn update(record: &mut WaitRecord, update: &WaitUpdate, now: Timestamp) -> bool {
    let mut changed = Vec::new();
    if let Some(condition) = &update.wake_when {
        record.condition = condition.clone();
        changed.push(format!("wake_when: {condition}"));
    }
    if let Some(timeout_s) = update.timeout_s {
        record.timeout_s = timeout_s;
        record.started_at = now;
        record.deadline = now.saturating_add_millis(timeout_s * 1000);
        record.deadline_boot = None;
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
    update.wake_when.is_some()
}

/// Cancels a live wait; returns the thread note.
pub fn cancel(record: &mut WaitRecord, reason: Option<&str>, now: Timestamp) -> String {
    record.state = WaitState::Cancelled;
    record.ended_at = Some(now);
    add_history(
        record,
        now,
        WaitEvent::Cancelled,
        None,
        reason.map(str::to_owned),
    );
    texts::cancelled_note(&record.id, reason)
}

/// What ending a wait writes besides its record: the thread note and the wake event (its
/// kind and the head of its text; the task part follows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndOfWait {
    pub note: String,
    pub kind: EventKind,
    pub head: String,
}

/// Ends the wait at `now` the way `ending` says.
pub fn end(record: &mut WaitRecord, ending: Ending, now: Timestamp) -> EndOfWait {
    let elapsed_s = now.millis_since(record.started_at) / 1000;
    let (state, kind, event, note, head, detail) = match ending {
        Ending::Resolved(observation) => (
            WaitState::Resolved,
            EventKind::WaitResolved,
            WaitEvent::Resolved,
            texts::resolved_note(&record.id, elapsed_s, &observation),
            texts::wake_head(EventKind::WaitResolved, &record.id, &observation, elapsed_s),
            observation,
        ),
        Ending::Timeout {
            observation,
            while_down,
        } => {
            let mut last = observation.clone().unwrap_or_else(|| "none yet".to_owned());
            if while_down {
                last.push_str(" (the deadline passed while the daemon was not running)");
            }
            (
                WaitState::Timeout,
                EventKind::WaitTimeout,
                WaitEvent::TimedOut,
                texts::timeout_note(&record.id, record.timeout_s, Some(&last)),
                texts::wake_head(EventKind::WaitTimeout, &record.id, &last, record.timeout_s),
                observation.unwrap_or_default(),
            )
        }
        Ending::Error(cause) => (
            WaitState::Error,
            EventKind::WaitError,
            WaitEvent::Failed,
            texts::error_note(&record.id, &cause),
            texts::wake_head(EventKind::WaitError, &record.id, &cause, elapsed_s),
            cause,
        ),
        Ending::Changed {
            observation,
            unjudged,
        } => {
            let why = texts::not_judged_because(&unjudged);
            (
                WaitState::Changed,
                EventKind::WaitChanged,
                WaitEvent::Changed,
                texts::changed_note(&record.id, elapsed_s, &observation),
                texts::changed_head(&record.id, &observation, &why, elapsed_s),
                format!("{observation} ({why})"),
            )
        }
        Ending::Over { observation, why } => (
            WaitState::Changed,
            EventKind::WaitChanged,
            WaitEvent::Changed,
            texts::over_note(&record.id, elapsed_s, &why, &observation),
            texts::over_head(&record.id, &why, &observation, elapsed_s),
            format!("{why}; {observation}"),
        ),
    };
    record.state = state;
    record.ended_at = Some(now);
    add_history(record, now, event, None, Some(detail));
    EndOfWait { note, kind, head }
}

/// The deadline passed while watching.
pub fn timed_out(record: &WaitRecord) -> Ending {
    Ending::Timeout {
        observation: record.last_observation.clone(),
        while_down: false,
    }
}

impl Watch {
    /// Whether content with this fingerprint is the first the watch saw (remembering it if it
    /// is the first).
    pub fn is_baseline(&mut self, fingerprint: u64) -> bool {
        *self.baseline.get_or_insert(fingerprint) == fingerprint
    }

    /// A new observation with this fingerprint at `now`: remembers when the content last
    /// changed; returns how long it has been still.
    pub fn observed_at(&mut self, fingerprint: u64, now: Timestamp) -> std::time::Duration {
        if self.last_print != Some(fingerprint) {
            self.last_print = Some(fingerprint);
            self.last_change_at = Some(now);
        }
        self.quiet_for(now)
    }

    /// How long the content has not changed as of `now` (zero before the first capture).
    pub fn quiet_for(&self, now: Timestamp) -> std::time::Duration {
        self.last_change_at
            .map(|at| std::time::Duration::from_millis(now.millis_since(at)))
            .unwrap_or_default()
    }

    /// The condition changed or the wait came back: judge afresh, forgive earlier failures.
    pub fn restart(&mut self) {
        self.generation += 1;
        self.baseline = None;
        self.capture_failures_in_a_row = 0;
        self.judge_failures_in_a_row = 0;
    }
}

/// A decision on an observation (the gate let it through). A met condition ends the wait; a
/// question for the model marks the watch as judging.
pub fn observed(
    record: &mut WaitRecord,
    watch: &mut Watch,
    decision: Decision,
    now: Timestamp,
) -> Step {
    match decision {
        Decision::Met(observation) => {
            record.last_observation = Some(observation.clone());
            add_history(
                record,
                now,
                WaitEvent::Judged,
                Some(true),
                Some(observation.clone()),
            );
            Step::End(Ending::Resolved(observation))
        }
        Decision::NotMet(observation) => {
            if !observation.is_empty() {
                record.last_observation = Some(observation);
            }
            Step::Keep
        }
        Decision::AskModel => {
            watch.judging = true;
            Step::AskModel
        }
        Decision::Changed {
            observation,
            unjudged,
        } => {
            record.last_observation = Some(observation.clone());
            add_history(
                record,
                now,
                WaitEvent::Judged,
                None,
                Some(format!("{observation} (not judged)")),
            );
            Step::End(Ending::Changed {
                observation,
                unjudged,
            })
        }
        Decision::Ended { observation, why } => {
            record.last_observation = Some(observation.clone());
            add_history(
                record,
                now,
                WaitEvent::Judged,
                Some(false),
                Some(format!("{why} ({observation})")),
            );
            Step::End(Ending::Over { observation, why })
        }
    }
}

/// The model's answer (or failure) on the current condition. `max_failures` judge failures
/// in a row end the wait in `error`.
pub fn judged(
    record: &mut WaitRecord,
    watch: &mut Watch,
    outcome: Result<Verdict, JudgeFailure>,
    now: Timestamp,
    max_failures: u32,
) -> Step {
    watch.judging = false;
    match outcome {
        Ok(verdict) => {
            watch.judge_failures_in_a_row = 0;
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
                Step::End(Ending::Resolved(verdict.observation))
            } else {
                Step::Save
            }
        }
        Err(failure) => {
            watch.judge_failures_in_a_row += 1;
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
            if watch.judge_failures_in_a_row >= max_failures {
                Step::End(Ending::Error(texts::failed_in_a_row(
                    watch.judge_failures_in_a_row,
                    "judge",
                    &failure.message,
                )))
            } else {
                Step::Save
            }
        }
    }
}

/// A capture failed. A permanent failure, or `max_failures` in a row, ends the wait in
/// `error`.
pub fn capture_failed(
    record: &mut WaitRecord,
    watch: &mut Watch,
    error: CaptureError,
    now: Timestamp,
    max_failures: u32,
) -> Step {
    watch.capture_failures_in_a_row += 1;
    add_history(
        record,
        now,
        WaitEvent::CaptureFailed,
        None,
        Some(error.message.clone()),
    );
    if error.permanent {
        Step::End(Ending::Error(error.message))
    } else if watch.capture_failures_in_a_row >= max_failures {
        Step::End(Ending::Error(texts::failed_in_a_row(
            watch.capture_failures_in_a_row,
            "capture",
            &error.message,
        )))
    } else {
        Step::Keep
    }
}

#[cfg(test)]
mod tests;
