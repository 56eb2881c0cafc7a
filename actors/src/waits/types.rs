//! The values of smart waits: the validated requests (`NewWait`, `WaitUpdate`), the view
//! callers get back, how a wait ends, and the judging state of a live watch. Pure data;
//! [`super::transition`] says how they change.

use std::sync::Arc;
use std::time::Duration;

use storage::{TaskId, Timestamp, WaitRecord};

use crate::waits::capture::sources::SourceFactory;
use crate::waits::judge::Judge;
use crate::waits::judge::text::TextJudge;
use crate::waits::target::Target;

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
    /// The fingerprint of the first content this watch saw: without a model, a condition
    /// wakes only on settled content that differs from it.
    pub baseline: Option<u64>,
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
