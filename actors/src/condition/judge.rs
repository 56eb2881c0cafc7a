//! The `Judge` seam: does the content meet the condition?
//!
//! Implementations are named for their mechanism: the text pipeline of terminal targets
//! (`waits::judge`: quoted phrases, exit clauses, then an optional model), the vision
//! backends (`vision`: OpenAI-style, Anthropic, OCR, none), and a scripted judge for tests
//! and the harness (`waits::scripted`).

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::watch;

use crate::condition::Reach;
use crate::sight::content::Content;

#[derive(Clone, Debug)]
pub struct JudgeRequest {
    pub wait_id: String,
    /// The agent's `wake_when`, verbatim.
    pub condition: String,
    /// What is watched, in words (for prompts and observations).
    pub target: String,
    pub content: Content,
    /// Time since the wait started (or was last restarted).
    pub elapsed: Duration,
    /// Where the judgment stands, for whoever waits on its effects.
    pub progress: JudgeProgress,
}

/// Where a judgment stands: running, parked until the clock reaches a later time (a retry
/// delay, the per-wait spacing, a provider's pause), or done. A tick of a manual clock
/// waits for what it set off only while that is running: a judgment parked on the clock
/// can only go on once the clock moves again, so waiting for it would wait forever.
///
/// Done is when the judge answered, or, when someone follows the judgment up (a WaitActor
/// records it), when that follower is done with it too.
#[derive(Clone, Debug, Default)]
pub struct JudgeProgress(Arc<ProgressInner>);

#[derive(Debug)]
struct ProgressInner {
    stage: watch::Sender<JudgeStage>,
    /// Live [`DoneOnDrop`] guards: while there are any, the answer alone is not done.
    followers: AtomicUsize,
}

impl Default for ProgressInner {
    fn default() -> Self {
        Self {
            stage: watch::Sender::new(JudgeStage::Running),
            followers: AtomicUsize::new(0),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JudgeStage {
    Running,
    Parked,
    Done,
}

impl JudgeProgress {
    /// Waiting for the clock: the one who parks it starts it again with [`Self::running`].
    pub fn parked(&self) {
        self.set(JudgeStage::Parked);
    }

    pub fn running(&self) {
        self.set(JudgeStage::Running);
    }

    /// The judge answered (a verdict or a failure): done, unless a follower still works on it.
    pub fn answered(&self) {
        if self.0.followers.load(Ordering::SeqCst) == 0 {
            self.set(JudgeStage::Done);
        }
    }

    /// Follows the judgment up: it is done only when the returned guard drops (the answer
    /// recorded, or the follower failed or was aborted).
    pub fn done_on_drop(&self) -> DoneOnDrop {
        self.0.followers.fetch_add(1, Ordering::SeqCst);
        DoneOnDrop(self.clone())
    }

    /// Returns once the judgment is parked or done.
    pub async fn until_not_running(&self) {
        let mut stages = self.0.stage.subscribe();
        let _ = stages.wait_for(|stage| *stage != JudgeStage::Running).await;
    }

    fn set(&self, stage: JudgeStage) {
        self.0.stage.send_if_modified(|current| {
            // Done is final: a late "parked" from a restarted Vision actor cannot undo it.
            let changed = *current != stage && *current != JudgeStage::Done;
            if changed {
                *current = stage;
            }
            changed
        });
    }
}

/// See [`JudgeProgress::done_on_drop`].
pub struct DoneOnDrop(JudgeProgress);

impl Drop for DoneOnDrop {
    fn drop(&mut self) {
        if self.0.0.followers.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.set(JudgeStage::Done);
        }
    }
}

/// Calls [`JudgeProgress::answered`] when dropped: a judge's queue entry holds one, so a
/// request ends whether it was answered or its queue was lost.
pub struct AnsweredOnDrop(pub JudgeProgress);

impl Drop for AnsweredOnDrop {
    fn drop(&mut self) {
        self.0.answered();
    }
}

/// Tokens a model call used, from the provider's `usage`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub met: bool,
    /// One sentence on what is there now, e.g. "progress bar at 85%"; it becomes the wake
    /// text and the wait's last observation.
    pub observation: String,
    /// A model was asked (counted as a judge call) and used these tokens.
    pub model_call: Option<Usage>,
}

/// The judge could not decide (HTTP 401, unparseable answer, timeout). Consecutive failures
/// end the wait in `error` with this message, which says how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeFailure {
    pub message: String,
    /// The failure involved a model call (it counts as a judge call too).
    pub model_call: bool,
}

/// How long a wait waits for one verdict before it counts a judge failure: long enough for
/// the Vision actor's queue, a provider's longest accepted pause (`vision::MAX_RETRY_AFTER`)
/// and an attempt after it; the Vision actor's callers give up at the same moment, and a job
/// whose caller gave up is dropped, never retried for nobody.
pub const JUDGE_TIMEOUT: Duration = Duration::from_secs(10 * 60);

pub trait Judge: Debug + Send + Sync + 'static {
    /// "openai gpt-4o-mini at https://api.openai.com/v1", "none": for status and wake texts.
    fn describe(&self) -> String;

    /// What it can read: anything (a model), or only quoted phrases (OCR).
    fn reach(&self) -> Reach {
        Reach::Full
    }

    fn judge(&self, request: JudgeRequest) -> BoxFuture<'static, Result<Verdict, JudgeFailure>>;
}
