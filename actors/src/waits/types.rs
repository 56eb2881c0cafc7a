//! The values of smart waits: the validated requests (`NewWait`, `WaitUpdate`), the view
//! callers get back, how a wait ends, and the judging state of a live watch. Pure data;
//! [`super::transition`] says how they change.

use std::sync::Arc;
use std::time::Duration;

use storage::{TaskId, Timestamp, WaitRecord};

use crate::condition::judge::Judge;
use crate::condition::{JudgedBy, Judges, Reach, Reading};
use crate::sight::target::Target;
use crate::waits::feed::Feeds;
use crate::waits::sources::SourceFactory;

/// What every wait shares: where sources come from, how content is judged, when to give up.
#[derive(Debug)]
pub struct WaitSettings {
    pub sources: Arc<dyn SourceFactory>,
    /// The feeds of watched targets: one capture per target serves all its waits.
    pub feeds: Arc<Feeds>,
    /// The model asked about text targets' conditions when no local judge decides them.
    pub text_model: Option<Arc<dyn Judge>>,
    /// The model (or OCR) that judges window and screen frames; without one, a window wait
    /// wakes as changed at the first settled change.
    pub pixel_model: Option<Arc<dyn Judge>>,
    /// Capture or judge failures in a row that end a wait in `error`.
    pub max_consecutive_failures: u32,
    /// Waits watching at once, at most.
    pub max_live: usize,
    /// How long a watched window may stay closed before the wait ends in `error`.
    pub window_gone_grace: Duration,
    /// How soon a window or screen seen changing is captured again to see it settle
    /// (`Duration::ZERO`: at the next poll).
    pub settle_probe: Duration,
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
    /// Count what a text target already shows (by default only what arrives after the
    /// wait starts counts).
    pub match_existing: bool,
    /// The step of its task this wait proves: resolved, the step is marked done as
    /// verified; timed out or failed, a blocker is posted on it.
    pub step: Option<u32>,
}

/// `wait_update`'s changes.
#[derive(Clone, Debug, Default)]
pub struct WaitUpdate {
    pub wake_when: Option<String>,
    pub timeout_s: Option<u64>,
    pub message: Option<String>,
}

impl WaitUpdate {
    pub fn is_empty(&self) -> bool {
        self.wake_when.is_none() && self.timeout_s.is_none() && self.message.is_none()
    }
}

/// A wait as callers see it.
#[derive(Clone, Debug)]
pub struct WaitView {
    pub record: WaitRecord,
    pub now: Timestamp,
    /// What just happened, for the reply's `message`.
    pub message: String,
    /// How its condition was read, and who decides each clause.
    pub reading: ReadingView,
}

/// A condition as read: alternatives (any holds it) of clauses (all must hold).
pub type ReadingView = Vec<Vec<JudgedClause>>;

/// One clause of a reading and who decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgedClause {
    pub text: String,
    pub negated: bool,
    pub judged_by: JudgedBy,
}

impl WaitSettings {
    /// What can judge a target's condition here.
    pub fn judges(&self, target: &Target) -> Judges {
        let model = if target.is_pixels() {
            &self.pixel_model
        } else {
            &self.text_model
        };
        Judges {
            text: !target.is_pixels(),
            exit_known: self.sources.reports_exit(target),
            has_prompt: self.sources.has_prompt(target),
            model: model.as_ref().map_or(Reach::None, |model| model.reach()),
        }
    }

    /// A record's condition as read for its target (an unreadable target reads as text).
    pub fn reading_view(&self, record: &WaitRecord) -> ReadingView {
        let judges = match Target::parse(&record.target) {
            Ok(target) => self.judges(&target),
            Err(_) => Judges {
                text: true,
                exit_known: false,
                has_prompt: false,
                model: Reach::None,
            },
        };
        view_of(&Reading::parse(&record.condition), judges)
    }
}

/// A reading with its judges named.
pub fn view_of(reading: &Reading, judges: Judges) -> ReadingView {
    reading
        .groups
        .iter()
        .map(|group| {
            group
                .iter()
                .map(|clause| JudgedClause {
                    text: clause.text.clone(),
                    negated: clause.negated,
                    judged_by: clause.test.judged_by(judges),
                })
                .collect()
        })
        .collect()
}

/// How a wait ends (other than by cancellation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The condition holds; the observation says what showed it.
    Resolved(String),
    Timeout {
        observation: Option<String>,
        /// The deadline passed while the daemon was not running.
        while_down: bool,
    },
    /// Watching failed; the cause says what to do.
    Error(String),
    /// The target changed and part of the condition could be judged by no one: the agent
    /// is woken to look, not told the condition held.
    Changed {
        /// What changed.
        observation: String,
        /// The clauses nobody could judge.
        unjudged: Vec<String>,
    },
    /// The watched work ended (its process exited, its output reported the end, its file
    /// was deleted) and the condition can no longer hold: the agent is woken as changed,
    /// told why, instead of sleeping to the timeout.
    Over {
        /// What the target showed last.
        observation: String,
        /// Why the condition cannot hold.
        why: String,
    },
}

/// The judging state of a live watch, beside its record: what the next observation or
/// verdict is weighed against. Reset when the condition changes or the wait is revived.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Watch {
    /// Failures in a row, counted apart: a capture that works does not excuse a judge that
    /// keeps failing, nor the other way round.
    pub capture_failures_in_a_row: u32,
    pub judge_failures_in_a_row: u32,
    /// Bumped when the condition changes: verdicts on the old one are dropped.
    pub generation: u64,
    /// The fingerprint of the first content this watch saw: a change nobody can judge wakes
    /// the agent only on settled content that differs from it.
    pub baseline: Option<u64>,
    /// The fingerprint of the last observation, and when the content last changed (for
    /// "the output stops changing").
    pub last_print: Option<u64>,
    pub last_change_at: Option<storage::Timestamp>,
    /// A model judgment is in flight (one at a time).
    pub judging: bool,
}

/// What the actor must do after a transition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing to store yet (the record changed only in memory, if at all).
    Keep,
    /// Store the record.
    Save,
    /// End the wait this way.
    End(Ending),
    /// Ask the model about the observation (the watch is now judging).
    AskModel,
}
