//! The `Judge` seam: does the content meet the condition?
//!
//! Implementations are named for their mechanism: the text pipeline of terminal targets
//! (quoted phrases, exit clauses, then an optional model), the vision backends (OpenAI-style,
//! Anthropic, OCR, none), and a scripted judge for tests and the harness.

use std::fmt::Debug;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::waits::content::Content;

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

pub trait Judge: Debug + Send + Sync + 'static {
    /// "openai gpt-4o-mini at https://api.openai.com/v1", "none": for status and wake texts.
    fn describe(&self) -> String;

    fn judge(&self, request: JudgeRequest) -> BoxFuture<'static, Result<Verdict, JudgeFailure>>;
}
