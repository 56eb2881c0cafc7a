//! `VisionJudge`: the handle the wait code holds. It implements `Judge` by asking the
//! Vision actor (looked up in the directory per request, so a restarted actor is found),
//! and reads a wait's accounting straight from the ledger.

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use ractor::rpc::CallResult;

use crate::condition::Reach;
use crate::condition::judge::JUDGE_TIMEOUT;
use crate::condition::judge::{Judge, JudgeFailure, JudgeRequest, Verdict};
use crate::directory::Directory;
use crate::sight::content::Content;
use crate::vision::image::content_key;
use crate::vision::ledger::{VisionLedger, VisionUsage};
use crate::vision::{Ask, VisionMsg};

/// Cheap to clone; every clone talks to the same Vision actor and ledger.
#[derive(Clone)]
pub struct VisionJudge {
    directory: Directory,
    ledger: VisionLedger,
    description: Arc<str>,
    reach: Reach,
}

impl fmt::Debug for VisionJudge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VisionJudge({})", self.description)
    }
}

impl VisionJudge {
    pub(crate) fn new(
        directory: Directory,
        ledger: VisionLedger,
        description: Arc<str>,
        reach: Reach,
    ) -> Self {
        Self {
            directory,
            ledger,
            description,
            reach,
        }
    }

    /// What judging cost this wait since the daemon started: calls (retries included, as
    /// the provider counts them), failures, retries, cache hits, tokens, latency. `None`
    /// when it was never judged.
    pub fn usage(&self, wait_id: &str) -> Option<VisionUsage> {
        self.ledger.usage(wait_id)
    }

    /// Everything judged since the daemon started.
    pub fn totals(&self) -> VisionUsage {
        self.ledger.totals()
    }

    /// Drops a finished wait's numbers (the totals keep them). Optional: the ledger drops
    /// the least recently active waits by itself past a bound.
    pub fn forget(&self, wait_id: &str) {
        self.ledger.forget(wait_id);
    }
}

fn failure(message: impl Into<String>) -> JudgeFailure {
    JudgeFailure {
        message: message.into(),
        model_call: false,
    }
}

impl Judge for VisionJudge {
    fn describe(&self) -> String {
        self.description.to_string()
    }

    fn reach(&self) -> Reach {
        self.reach
    }

    fn judge(&self, request: JudgeRequest) -> BoxFuture<'static, Result<Verdict, JudgeFailure>> {
        let directory = self.directory.clone();
        Box::pin(async move {
            // Hashing a whole frame is image work: keep it off the runtime's threads.
            let content_key = match &request.content {
                Content::Frame(_) => {
                    let content = request.content.clone();
                    tokio::task::spawn_blocking(move || content_key(&content))
                        .await
                        .map_err(|error| failure(format!("hashing the frame failed: {error}")))?
                }
                other => content_key(other),
            };
            let vision = directory.vision().map_err(|error| failure(error.message))?;
            let outcome = vision
                .call(
                    |reply| {
                        VisionMsg::Judge(
                            Box::new(Ask {
                                request,
                                content_key,
                            }),
                            reply,
                        )
                    },
                    Some(JUDGE_TIMEOUT),
                )
                .await;
            match outcome {
                Ok(CallResult::Success(verdict)) => verdict,
                Ok(CallResult::Timeout) => Err(failure(format!(
                    "no verdict within {} min; the model is slow or overloaded (see daemon.status \
                     vision.queued and the daemon log)",
                    JUDGE_TIMEOUT.as_secs() / 60
                ))),
                Ok(CallResult::SenderError) | Err(_) => Err(failure(
                    "the vision actor stopped before answering; it is being restarted and the next \
                     change will be judged",
                )),
            }
        })
    }
}
