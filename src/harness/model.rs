//! The harness's model: a vision backend whose replies a test scripts (answers, errors,
//! timeouts, garbage, latencies), asked through the real Vision actor, so retries, the cache and the
//! per-wait accounting run as they do with a remote model.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use actors::condition::judge::Usage;
use actors::sight::content::Content;
use actors::vision::backend::{Answer, AttemptError, Backend, Cost, Material, Question};
use actors::vision::image::ImageSettings;
use actors::vision::openai::prepare_for_model;
use actors::vision::prompt::parse_verdict;

/// One scripted reply, used by the next question the model is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Answer {
        met: bool,
        observation: String,
    },
    /// A failure that may pass (a 5xx): the Vision actor retries it.
    Transient(String),
    /// A failure retrying cannot fix (a 401).
    Permanent(String),
    /// The model did not answer in time.
    Timeout,
    /// The model said this instead of the `{met, observation}` object.
    Garbage(String),
    /// A slow model: this reply after a real-time delay (the attempt's own timeout applies).
    Delayed(Duration, Box<Reply>),
}

/// Replies in order; with none scripted, a text is met when it contains the condition.
#[derive(Debug, Default)]
pub struct ScriptedModel {
    script: Mutex<VecDeque<Reply>>,
    asked: AtomicU64,
}

impl ScriptedModel {
    /// Queues a reply after those already queued.
    pub fn push(&self, reply: Reply) {
        actors::locks::lock(&self.script).push_back(reply);
    }

    /// Questions asked so far (retries included).
    pub fn asked(&self) -> u64 {
        self.asked.load(Ordering::SeqCst)
    }

    fn next(&self) -> Option<Reply> {
        actors::locks::lock(&self.script).pop_front()
    }
}

/// With nothing scripted: met when the watched text contains the condition, ignoring case.
fn default_reply(question: &Question) -> Reply {
    let seen = match &*question.material {
        Material::Text { text, .. } => text.to_lowercase(),
        _ => String::new(),
    };
    let met = seen.contains(&question.condition.to_lowercase());
    let last = seen.lines().last().unwrap_or("nothing").to_owned();
    Reply::Answer {
        met,
        observation: format!("the scripted model sees: {last}"),
    }
}

impl Backend for ScriptedModel {
    fn describe(&self) -> String {
        "scripted model (harness)".to_owned()
    }

    fn cost(&self, _content: &Content) -> Cost {
        Cost::Remote
    }

    fn prepare(&self, content: &Content) -> Result<Material, String> {
        prepare_for_model(content, ImageSettings::default())
    }

    fn ask(
        &self,
        question: Question,
    ) -> Pin<Box<dyn Future<Output = Result<Answer, AttemptError>> + Send + 'static>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let mut reply = self.next().unwrap_or_else(|| default_reply(&question));
        let mut delay = Duration::ZERO;
        while let Reply::Delayed(after, then) = reply {
            delay += after;
            reply = *then;
        }
        let usage = Usage {
            input_tokens: 100,
            output_tokens: 10,
        };
        let outcome = match reply {
            Reply::Answer { met, observation } => Ok(Answer {
                met,
                observation,
                usage,
            }),
            Reply::Transient(message) => Err(AttemptError::transient(message, true)),
            Reply::Permanent(message) => Err(AttemptError::permanent(message, true)),
            Reply::Timeout => Err(AttemptError::transient(
                "the scripted model did not answer within its timeout",
                true,
            )),
            Reply::Garbage(said) => parse_verdict(&said)
                .map(|(met, observation)| Answer {
                    met,
                    observation,
                    usage,
                })
                .map_err(|error| AttemptError::permanent(error, true)),
            Reply::Delayed(..) => unreachable!("unwrapped above"),
        };
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            outcome
        })
    }
}
