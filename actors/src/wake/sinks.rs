//! Where wake events go: the `Sink` seam and its implementations.
//!
//! - `command`: any program, an argv array with `{placeholders}`, the event JSON on stdin,
//!   exit 0 = delivered. Never a shell.
//! - `openclaw` ([`gateway`](super::gateway)): the OpenClaw gateway's own WebSocket RPC.
//! - `openclaw-cli`: the preset `openclaw system event --text {text} --mode now
//!   [--session-key {session_key}]`, for installs the native sink cannot reach.
//! - `webhook`: POST `{"text", "mode": "now", "sessionKey"?, "event"}` (the body OpenClaw's
//!   `/hooks/wake` accepts, plus the whole event); 2xx = delivered; a 4xx other than 408/429
//!   is a refusal, not retried.
//! - [`RecordingSink`]: keeps what it receives and fails, refuses or hangs on demand; for
//!   tests and the fault-injection harness.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use crate::clock::BoxFuture;
use crate::error::CallError;
use crate::http;
use crate::locks::lock;
use crate::process::{RunRequest, SINK_OWNER_VARIABLE, Spawner};
use crate::wake::event::WakeEvent;

/// Longest `{text}` put on a command line. Linux refuses a single argument over 128 KiB;
/// the whole event always travels on stdin as well.
pub const ARGV_TEXT_LIMIT: usize = 100 * 1024;

/// The outcome of one delivery attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    Delivered,
    /// Failed this time; try again later.
    Retry(String),
    /// Refused for good (e.g. HTTP 400); retrying cannot help.
    Reject(String),
    /// The destination is not there (the gateway is down): looked for again every
    /// [`crate::wake::DESTINATION_RECHECK`] while the event waits, so it goes out as soon as
    /// the destination is back; not the event's fault, so no attempt is counted against it.
    Unreachable(String),
}

/// A destination for wake events.
pub trait Sink: fmt::Debug + Send + Sync + 'static {
    /// Unique among the configured sinks; delivery state is recorded under it.
    fn name(&self) -> &str;
    fn deliver(&self, event: WakeEvent) -> BoxFuture<Delivery>;
    /// Whether events for this session key are this sink's to deliver (every event is,
    /// unless the sink reaches one runtime and the key names another's session).
    fn owes(&self, session_key: Option<&str>) -> bool {
        let _ = session_key;
        true
    }
    /// What the sink last learned about its destination ("connected to …", or why not and
    /// how to fix it), for `daemon.status`; `None` when it keeps no connection.
    fn state(&self) -> Option<String> {
        None
    }
}

/// A credential: never printed, logged or reported.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// A sink as the config describes it.
#[derive(Debug)]
pub enum SinkSpec {
    Command {
        name: String,
        program: String,
        args: Vec<String>,
        timeout: Duration,
    },
    /// The `openclaw` CLI preset.
    OpenClawCli {
        name: String,
        program: String,
        timeout: Duration,
    },
    Webhook {
        name: String,
        url: String,
        bearer_token: Option<Secret>,
        headers: Vec<(String, String)>,
        timeout: Duration,
        send_session_key: bool,
    },
    /// An already built sink (tests, the harness).
    Custom(Arc<dyn Sink>),
}

/// Builds the configured sinks. Names must be unique. `owner` (the daemon's data folder)
/// marks the programs of command sinks, so a next start ends what a killed daemon left.
pub fn build_sinks(
    specs: Vec<SinkSpec>,
    spawner: &Arc<dyn Spawner>,
    owner: &str,
) -> Result<Vec<Arc<dyn Sink>>, CallError> {
    let mut names = BTreeSet::new();
    let mut sinks: Vec<Arc<dyn Sink>> = Vec::with_capacity(specs.len());
    for spec in specs {
        let sink: Arc<dyn Sink> = match spec {
            SinkSpec::Command {
                name,
                program,
                args,
                timeout,
            } => Arc::new(CommandSink {
                name,
                program,
                args,
                timeout,
                spawner: spawner.clone(),
                session_key_flag: false,
                owner: owner.to_owned(),
            }),
            SinkSpec::OpenClawCli {
                name,
                program,
                timeout,
            } => Arc::new(CommandSink {
                name,
                program,
                args: ["system", "event", "--text", "{text}", "--mode", "now"]
                    .map(String::from)
                    .to_vec(),
                timeout,
                spawner: spawner.clone(),
                session_key_flag: true,
                owner: owner.to_owned(),
            }),
            SinkSpec::Webhook {
                name,
                url,
                bearer_token,
                headers,
                timeout,
                send_session_key,
            } => {
                let parsed = reqwest::Url::parse(&url).map_err(|error| {
                    CallError::invalid(
                        format!("webhook sink '{name}' has an invalid url: {error}"),
                        "use a full http:// or https:// URL, e.g. http://127.0.0.1:18789/hooks/wake",
                    )
                })?;
                Arc::new(WebhookSink {
                    client: http::client(timeout)?,
                    name,
                    url: parsed,
                    bearer_token,
                    headers,
                    send_session_key,
                })
            }
            SinkSpec::Custom(sink) => sink,
        };
        if !names.insert(sink.name().to_owned()) {
            return Err(CallError::invalid(
                format!("two wake sinks are named '{}'", sink.name()),
                "give each [[wake.sinks]] entry its own name",
            ));
        }
        sinks.push(sink);
    }
    Ok(sinks)
}

/// Runs a program per event.
#[derive(Debug)]
struct CommandSink {
    name: String,
    program: String,
    /// Argument templates with `{placeholders}`.
    args: Vec<String>,
    timeout: Duration,
    spawner: Arc<dyn Spawner>,
    /// The OpenClaw preset: append `--session-key <key>` when the event has one.
    session_key_flag: bool,
    /// The daemon's data folder, set as [`SINK_OWNER_VARIABLE`] for the program.
    owner: String,
}

impl CommandSink {
    fn argv(&self, event: &WakeEvent) -> Vec<String> {
        let mut argv: Vec<String> = self
            .args
            .iter()
            .map(|template| fill_placeholders(template, event))
            .collect();
        if self.session_key_flag
            && let Some(key) = &event.session_key
        {
            argv.extend(["--session-key".to_owned(), key.clone()]);
        }
        argv
    }
}

impl Sink for CommandSink {
    fn name(&self) -> &str {
        &self.name
    }

    fn deliver(&self, event: WakeEvent) -> BoxFuture<Delivery> {
        let request = RunRequest {
            program: self.program.clone(),
            args: self.argv(&event),
            stdin: format!("{}\n", event.to_json()).into_bytes(),
            timeout: self.timeout,
            max_stdout_bytes: 0,
            env: vec![(SINK_OWNER_VARIABLE.to_owned(), self.owner.clone())],
        };
        let spawner = self.spawner.clone();
        let program = self.program.clone();
        Box::pin(async move {
            let timeout = request.timeout;
            match spawner.run(request).await {
                Ok(outcome) if outcome.succeeded() => Delivery::Delivered,
                Ok(outcome) => Delivery::Retry(format!("{program}: {}", outcome.failure(timeout))),
                Err(error) => Delivery::Retry(format!("cannot run {program}: {error}")),
            }
        })
    }
}

/// Replaces `{text}`, `{event_id}`, `{kind}`, `{task_id}`, `{wait_id}` and `{session_key}`
/// (absent values become empty); other braces stay as they are. The result is one argument
/// whatever it contains: nothing is split or interpreted.
pub fn fill_placeholders(template: &str, event: &WakeEvent) -> String {
    let values = [
        ("{text}", shorten_for_argv(&event.text)),
        ("{event_id}", event.id()),
        ("{kind}", event.kind.as_str().to_owned()),
        (
            "{task_id}",
            event
                .task_id
                .as_ref()
                .map(|id| id.to_string())
                .unwrap_or_default(),
        ),
        ("{wait_id}", event.wait_id.clone().unwrap_or_default()),
        (
            "{session_key}",
            event.session_key.clone().unwrap_or_default(),
        ),
    ];
    // One left-to-right pass, so a value that contains "{kind}" is not substituted again.
    let mut filled = String::with_capacity(template.len());
    let mut rest = template;
    'scan: while let Some(open) = rest.find('{') {
        filled.push_str(&rest[..open]);
        for (placeholder, value) in &values {
            if rest[open..].starts_with(placeholder) {
                filled.push_str(value);
                rest = &rest[open + placeholder.len()..];
                continue 'scan;
            }
        }
        filled.push('{');
        rest = &rest[open + 1..];
    }
    filled.push_str(rest);
    filled
}

fn shorten_for_argv(text: &str) -> String {
    if text.len() <= ARGV_TEXT_LIMIT {
        return text.to_owned();
    }
    const NOTE: &str = " … (cut to fit a command line; the full event is on stdin)";
    let mut end = ARGV_TEXT_LIMIT - NOTE.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{NOTE}", &text[..end])
}

/// POSTs each event as JSON.
struct WebhookSink {
    name: String,
    url: reqwest::Url,
    bearer_token: Option<Secret>,
    headers: Vec<(String, String)>,
    send_session_key: bool,
    client: reqwest::Client,
}

impl fmt::Debug for WebhookSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL may carry a token in its query: name the host only.
        f.debug_struct("WebhookSink")
            .field("name", &self.name)
            .field("host", &self.url.host_str())
            .finish_non_exhaustive()
    }
}

/// At most this much of a refusing server's body is kept in the delivery record.
const RESPONSE_BODY_KEPT: usize = 500;

impl Sink for WebhookSink {
    fn name(&self) -> &str {
        &self.name
    }

    fn deliver(&self, event: WakeEvent) -> BoxFuture<Delivery> {
        let mut body = json!({"text": event.text, "mode": "now", "event": event.to_json()});
        if self.send_session_key
            && let Some(key) = &event.session_key
        {
            body["sessionKey"] = json!(key);
        }
        let mut request = self
            .client
            .post(self.url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(token) = &self.bearer_token {
            request = request.bearer_auth(token.expose());
        }
        // A refusing server may quote the token back; the failure text goes to the log and
        // the delivery record, so it must not carry it.
        let token = self
            .bearer_token
            .as_ref()
            .map(|token| token.expose().to_owned())
            .filter(|token| !token.is_empty());
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        Box::pin(async move {
            let response = match request.send().await {
                Ok(response) => response,
                Err(error) => return Delivery::Retry(describe_http_error(&error)),
            };
            let status = response.status();
            if status.is_success() {
                return Delivery::Delivered;
            }
            let text = response.text().await.unwrap_or_default();
            let text = match &token {
                Some(token) => text.replace(token.as_str(), "***"),
                None => text,
            };
            let snippet: String = text.chars().take(RESPONSE_BODY_KEPT).collect();
            let failure = format!("HTTP {status}: {}", snippet.trim());
            let retryable = status.is_server_error()
                || status == reqwest::StatusCode::REQUEST_TIMEOUT
                || status == reqwest::StatusCode::TOO_MANY_REQUESTS;
            if retryable {
                Delivery::Retry(failure)
            } else {
                Delivery::Reject(failure)
            }
        })
    }
}

/// A transport error in words, without the URL (which may carry a token).
fn describe_http_error(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    };
    let mut source = std::error::Error::source(error);
    let mut detail = String::new();
    while let Some(cause) = source {
        detail = cause.to_string();
        source = cause.source();
    }
    if detail.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}: {detail}")
    }
}

/// A sink that records what it receives and misbehaves on demand.
#[derive(Debug)]
pub struct RecordingSink {
    name: String,
    state: Arc<Mutex<RecordingState>>,
}

#[derive(Debug, Default)]
struct RecordingState {
    received: Vec<WakeEvent>,
    attempts: u32,
    failures_left: u32,
    refuse: bool,
    hang: Option<Duration>,
}

impl RecordingSink {
    pub fn new(name: impl Into<String>) -> Arc<Self> {
        Arc::new(Self {
            name: name.into(),
            state: Arc::default(),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, RecordingState> {
        lock(&self.state)
    }

    /// Events delivered, in delivery order.
    pub fn received(&self) -> Vec<WakeEvent> {
        self.state().received.clone()
    }

    /// Attempts made, failed ones included.
    pub fn attempts(&self) -> u32 {
        self.state().attempts
    }

    /// Fail the next `n` attempts (retryably).
    pub fn fail_next(&self, n: u32) {
        self.state().failures_left = n;
    }

    /// Refuse every attempt for good, or stop refusing.
    pub fn refuse(&self, refuse: bool) {
        self.state().refuse = refuse;
    }

    /// Take this long over every attempt (or stop hanging).
    pub fn hang(&self, how_long: Option<Duration>) {
        self.state().hang = how_long;
    }
}

impl Sink for RecordingSink {
    fn name(&self) -> &str {
        &self.name
    }

    fn deliver(&self, event: WakeEvent) -> BoxFuture<Delivery> {
        let shared = self.state.clone();
        Box::pin(async move {
            let hang = {
                let mut state = lock(&shared);
                state.attempts += 1;
                state.hang
            };
            if let Some(how_long) = hang {
                tokio::time::sleep(how_long).await;
            }
            let mut state = lock(&shared);
            if state.refuse {
                return Delivery::Reject("the recording sink refuses".to_owned());
            }
            if state.failures_left > 0 {
                state.failures_left -= 1;
                return Delivery::Retry("the recording sink fails on purpose".to_owned());
            }
            state.received.push(event);
            Delivery::Delivered
        })
    }
}

#[cfg(test)]
mod tests {
    use storage::{EventKind, TaskId, Timestamp};

    use super::*;
    use crate::process::ProcessSpawner;

    fn event(text: &str) -> WakeEvent {
        WakeEvent {
            seq: 42,
            kind: EventKind::TaskStuck,
            text: text.into(),
            task_id: Some(TaskId::new("t-abc123")),
            wait_id: None,
            session_key: Some("agent:main:main".into()),
            created_at: Timestamp::from_secs(1_771_002_000),
        }
    }

    #[test]
    fn placeholders_fill_whole_or_inside_arguments_and_only_once() {
        let event = event("say {kind} ; rm -rf ~");
        assert_eq!(fill_placeholders("{text}", &event), "say {kind} ; rm -rf ~");
        assert_eq!(
            fill_placeholders("id={event_id}/{task_id}/{wait_id}.", &event),
            "id=e-000042/t-abc123/."
        );
        assert_eq!(
            fill_placeholders("{session_key}{nope}{", &event),
            "agent:main:main{nope}{"
        );
    }

    #[test]
    fn long_texts_are_cut_for_argv_only() {
        let long = "é".repeat(ARGV_TEXT_LIMIT);
        let filled = fill_placeholders("{text}", &event(&long));
        assert!(filled.len() <= ARGV_TEXT_LIMIT, "{}", filled.len());
        assert!(filled.ends_with("the full event is on stdin)"));
    }

    #[test]
    fn the_openclaw_preset_adds_the_session_key_only_when_there_is_one() {
        let spawner: Arc<dyn Spawner> = Arc::new(ProcessSpawner);
        let spec = SinkSpec::OpenClawCli {
            name: "openclaw".into(),
            program: "openclaw".into(),
            timeout: Duration::from_secs(10),
        };
        let sinks = build_sinks(vec![spec], &spawner, "/data").unwrap();
        let debug = format!("{:?}", sinks[0]);
        assert!(debug.contains("session_key_flag: true"), "{debug}");
        let sink = CommandSink {
            name: "openclaw".into(),
            program: "openclaw".into(),
            args: ["system", "event", "--text", "{text}", "--mode", "now"]
                .map(String::from)
                .to_vec(),
            timeout: Duration::from_secs(10),
            spawner,
            session_key_flag: true,
            owner: "/data".into(),
        };
        let mut with_key = event("Task appears stuck");
        assert_eq!(
            sink.argv(&with_key),
            [
                "system",
                "event",
                "--text",
                "Task appears stuck",
                "--mode",
                "now",
                "--session-key",
                "agent:main:main"
            ]
        );
        with_key.session_key = None;
        assert_eq!(sink.argv(&with_key).len(), 6);
    }

    #[test]
    fn sink_names_must_be_unique_and_urls_valid() {
        let spawner: Arc<dyn Spawner> = Arc::new(ProcessSpawner);
        let twice = vec![
            SinkSpec::Custom(RecordingSink::new("a")),
            SinkSpec::Custom(RecordingSink::new("a")),
        ];
        assert!(
            build_sinks(twice, &spawner, "/data")
                .unwrap_err()
                .message
                .contains("two wake sinks are named 'a'")
        );
        let bad_url = SinkSpec::Webhook {
            name: "hook".into(),
            url: "not a url".into(),
            bearer_token: None,
            headers: vec![],
            timeout: Duration::from_secs(1),
            send_session_key: false,
        };
        assert!(
            build_sinks(vec![bad_url], &spawner, "/data")
                .unwrap_err()
                .message
                .contains("invalid url")
        );
    }

    #[test]
    fn secrets_never_print() {
        assert_eq!(format!("{:?}", Secret::new("sk-live-123")), "Secret(***)");
    }
}
