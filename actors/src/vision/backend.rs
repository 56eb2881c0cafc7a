//! The `Backend` seam: one attempt at answering "does this content meet the condition?".
//!
//! A backend prepares what it looks at once per judge request (`prepare`, on a blocking
//! thread: shrinking and encoding frames), then answers in attempts (`ask`); the Vision actor
//! around it adds the queue, the concurrency bound, the per-wait rate limit, the retries, the
//! cache and the accounting. Implementations are named for their mechanism: `OpenAiJudge`,
//! `AnthropicJudge`, `OcrJudge`, `NoModelJudge`. A backend never sees a config file or an
//! environment variable: `src/` resolves keys into [`BackendSpec`].

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::BoxFuture;
use crate::condition::Reach;
use crate::condition::judge::Usage;
use crate::error::CallError;
use crate::process::Spawner;
use crate::sight::content::{Content, ProcessExit};
use crate::vision::anthropic::AnthropicJudge;
use crate::vision::image::ImageSettings;
use crate::vision::none::NoModelJudge;
use crate::vision::ocr::OcrJudge;
use crate::vision::openai::OpenAiJudge;
use crate::wake::sinks::Secret;

/// What answering costs, which decides what the Vision actor puts around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// Instant and local (no model, or text matched in memory): answered at once, never
    /// queued, rate-limited, cached or counted as a call.
    Free,
    /// A local program (tesseract): bounded, rate-limited, cached and counted, never retried.
    Local,
    /// A model behind HTTP: all of the above, plus retries and token accounting.
    Remote,
}

/// What a backend looks at, prepared once per judge request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Material {
    Image(EncodedImage),
    Text {
        /// Shared with the capture it came from.
        text: Arc<str>,
        exit: Option<ProcessExit>,
    },
    Absent {
        description: String,
    },
}

/// An encoded (and usually shrunk) frame.
#[derive(Clone, PartialEq, Eq)]
pub struct EncodedImage {
    pub bytes: Vec<u8>,
    /// `image/png` or `image/jpeg`.
    pub media_type: &'static str,
    pub width: u32,
    pub height: u32,
}

impl Debug for EncodedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "EncodedImage({} {}x{}, {} bytes)",
            self.media_type,
            self.width,
            self.height,
            self.bytes.len()
        )
    }
}

/// One question, as the backend sees it.
#[derive(Clone, Debug)]
pub struct Question {
    /// The agent's `wake_when`, verbatim.
    pub condition: String,
    /// What is watched, in words.
    pub target: String,
    /// Time since the wait started.
    pub elapsed: Duration,
    pub material: Arc<Material>,
}

/// A request for free text from a model (a screen segment's procedure): the role and
/// answer format, the question, and pictures to look at.
#[derive(Clone, Debug)]
pub struct Prompt {
    pub system: String,
    pub text: String,
    pub images: Vec<EncodedImage>,
    /// Room for the answer, where the API requires a limit (Anthropic's).
    pub answer_tokens: u32,
}

/// What a model said to a [`Prompt`], and what it cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    pub usage: Usage,
}

/// A backend's answer to one attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub met: bool,
    pub observation: String,
    /// Tokens the provider reports (zero for local backends).
    pub usage: Usage,
}

/// Why an attempt gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptError {
    /// What failed and how to fix it; never contains a key.
    pub message: String,
    /// Whether trying again later can help, and when.
    pub retry: Option<RetryHint>,
    /// The request reached the model (the provider may count or bill it).
    pub reached_model: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryHint {
    /// The provider said when (`Retry-After`); otherwise the actor backs off.
    pub after: Option<Duration>,
    /// HTTP 429: the whole backend waits, not just this request.
    pub rate_limited: bool,
}

impl AttemptError {
    /// A failure retrying cannot fix (a bad key, an unparseable answer).
    pub fn permanent(message: impl Into<String>, reached_model: bool) -> Self {
        Self {
            message: message.into(),
            retry: None,
            reached_model,
        }
    }

    /// A failure that may pass (a timeout, a 5xx, a refused connection).
    pub fn transient(message: impl Into<String>, reached_model: bool) -> Self {
        Self {
            message: message.into(),
            retry: Some(RetryHint {
                after: None,
                rate_limited: false,
            }),
            reached_model,
        }
    }
}

/// Answers questions about what a wait sees.
pub trait Backend: Debug + Send + Sync + 'static {
    /// "openai gpt-4o-mini at https://api.openai.com/v1": for status, logs and wake texts.
    fn describe(&self) -> String;

    /// What answering about this content costs.
    fn cost(&self, content: &Content) -> Cost;

    /// Turns content into what this backend sends (shrunk, encoded). Blocking: the Vision
    /// actor runs it on a blocking thread, once per judge request.
    fn prepare(&self, content: &Content) -> Result<Material, String>;

    /// One attempt. Retries, rate limits and accounting are the actor's business.
    fn ask(&self, question: Question) -> BoxFuture<Result<Answer, AttemptError>>;

    /// What it can read: anything (a model), or only quoted phrases (OCR).
    fn reach(&self) -> Reach {
        Reach::Full
    }

    /// One attempt at a free-text answer, when a model is behind it (`None`: no model, or
    /// only tesseract).
    fn complete(&self, _prompt: Prompt) -> Option<BoxFuture<Result<Completion, AttemptError>>> {
        None
    }
}

/// An API key and the environment variable it came from (named in error messages).
#[derive(Clone, Debug)]
pub struct ApiKey {
    pub variable: String,
    pub secret: Secret,
}

/// The backend as `src/` resolved it from `[vision]`.
#[derive(Debug, Default)]
pub enum BackendSpec {
    /// No model: the first settled change meets the condition, and the observation says so.
    #[default]
    None,
    OpenAi {
        /// The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
        base_url: String,
        model: String,
        /// `None` for local servers that need no key.
        api_key: Option<ApiKey>,
    },
    Anthropic {
        /// e.g. `https://api.anthropic.com` (the request goes to `{base_url}/v1/messages`).
        base_url: String,
        model: String,
        api_key: ApiKey,
    },
    Ocr {
        /// The tesseract program (an absolute path or a name on PATH).
        program: String,
    },
    /// An already built backend (tests, the harness).
    Custom(Arc<dyn Backend>),
}

/// Builds the configured backend. `timeout` bounds each HTTP request or tesseract run.
pub fn build_backend(
    spec: BackendSpec,
    image: ImageSettings,
    timeout: Duration,
    spawner: &Arc<dyn Spawner>,
) -> Result<Arc<dyn Backend>, CallError> {
    Ok(match spec {
        BackendSpec::None => Arc::new(NoModelJudge),
        BackendSpec::OpenAi {
            base_url,
            model,
            api_key,
        } => Arc::new(OpenAiJudge::new(&base_url, model, api_key, image, timeout)?),
        BackendSpec::Anthropic {
            base_url,
            model,
            api_key,
        } => Arc::new(AnthropicJudge::new(
            &base_url, model, api_key, image, timeout,
        )?),
        BackendSpec::Ocr { program } => Arc::new(OcrJudge::new(program, spawner.clone(), timeout)),
        BackendSpec::Custom(backend) => backend,
    })
}
