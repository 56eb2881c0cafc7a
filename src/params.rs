//! Decoding and validating each method's params into the typed requests of the tree.
//!
//! Serde rejects unknown fields, missing fields and wrong types; the checks here turn what
//! is left (limits, statuses, step numbers) into typed values once, with errors that quote
//! the method's signature so the caller can fix the call.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use actors::CallError;
use actors::process::pty::Signal;
use actors::recall::RecallRequest;
use actors::sight::target::Target;
use actors::tasks::types::{
    MAX_KEY_CHARS, MAX_MESSAGE_CHARS, MAX_QUERY_CHARS, MAX_REASON_CHARS, Metadata, Plan,
    PlanChange, RegisterTask, TaskName, UpdateTask, bounded_text,
};
use actors::terminals::keys::Key;
use actors::terminals::screen::SCROLLBACK_LINES;
use actors::terminals::types::{CommandLine, SessionId, StartSession, TermInput, TermSize};
use actors::waits::{NewWait, WaitUpdate};
use recall::Source;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use storage::{ListCursor, Status, StatusFilter, TaskId, WaitId};

use crate::jsonrpc::RpcError;
use crate::spine::Method;
use crate::wire::tasks::{
    DEFAULT_QUERY_BYTES, DEFAULT_READ_BYTES, DEFAULT_TASK_GET_BYTES, MAX_ANSWER_BYTES,
    MAX_TASK_GET_BYTES, MIN_ANSWER_BYTES,
};

pub const DEFAULT_LIST_LIMIT: usize = 10;
pub const DEFAULT_THREAD_LIMIT: usize = 50;
pub const MAX_LIMIT: u32 = 1000;
const MAX_TASK_ID_CHARS: usize = 100;

pub const STATUS_HINT: &str =
    "status must be one of active, paused, completed, failed, cancelled (alias: canceled)";

/// Deserializes `params` for `method`, turning serde's complaint into an invalid-params
/// error whose hint shows the method's signature.
pub fn decode<T: DeserializeOwned>(method: Method, params: Value) -> Result<T, RpcError> {
    serde_json::from_value(whole_numbers_as_integers(params)).map_err(|error| {
        let signature = method
            .tool()
            .map(|tool| format!("{} (see tools.list for the full schema)", tool.signature()))
            .unwrap_or_else(|| "see tools.list for the parameters".to_owned());
        RpcError::invalid_params(
            format!("invalid params for {method}: {error}"),
            format!("call it as {signature}"),
        )
    })
}

/// Params whose whole numbers written as floats (`60.0`, as many JSON encoders and models
/// write them) are integers, so an integer field takes them; a float field takes either.
/// Only the params' own fields and the lists in them: the caller's `metadata` and `env`
/// objects stay exactly as given.
fn whole_numbers_as_integers(params: Value) -> Value {
    fn integral(value: Value) -> Value {
        match value {
            Value::Number(number) => match number.as_f64() {
                Some(float)
                    if number.is_f64()
                        && float.fract() == 0.0
                        && (0.0..=u64::MAX as f64).contains(&float) =>
                {
                    Value::from(float as u64)
                }
                _ => Value::Number(number),
            },
            Value::Array(items) => Value::Array(items.into_iter().map(integral).collect()),
            other => other,
        }
    }
    match params {
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(key, value)| (key, integral(value)))
                .collect(),
        ),
        other => other,
    }
}

pub fn task_id(text: &str) -> Result<TaskId, CallError> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_TASK_ID_CHARS {
        return Err(CallError::invalid(
            "task_id is blank or too long",
            "pass the id task_register returned, e.g. \"t-7k2m9q\"; task_list shows your tasks",
        ));
    }
    Ok(TaskId::new(text))
}

pub fn status(text: &str) -> Result<Status, CallError> {
    Status::parse(text)
        .ok_or_else(|| CallError::invalid(format!("invalid status '{text}'"), STATUS_HINT))
}

fn optional_key(what: &str, value: Option<String>) -> Result<Option<String>, CallError> {
    value
        .map(|v| bounded_text(what, v.trim(), MAX_KEY_CHARS))
        .transpose()
}

/// A required text field: blank is refused with `hint` (what to put in it).
fn required_text(
    what: &str,
    text: &str,
    max_chars: usize,
    hint: &str,
) -> Result<String, CallError> {
    if text.trim().is_empty() {
        return Err(CallError::invalid(format!("{what} is blank"), hint));
    }
    bounded_text(what, text, max_chars)
}

/// An optional text field: blank is refused, saying to leave it out or fill it.
fn non_blank(what: &str, text: &str, max_chars: usize) -> Result<String, CallError> {
    if text.trim().is_empty() {
        return Err(CallError::invalid(
            format!("{what} is blank"),
            format!("leave {what} out, or say something in it"),
        ));
    }
    bounded_text(what, text, max_chars)
}

/// A reply's byte budget: `default` when not given, else within [`MIN_ANSWER_BYTES`]..=`max`.
fn max_bytes(value: Option<u64>, default: usize, max: usize) -> Result<usize, CallError> {
    match value {
        None => Ok(default),
        Some(n) if (MIN_ANSWER_BYTES as u64..=max as u64).contains(&n) => Ok(n as usize),
        Some(n) => Err(CallError::invalid(
            format!("max_bytes {n} is out of range"),
            format!(
                "max_bytes must be between {MIN_ANSWER_BYTES} and {max}; leave it out for the default ({default})"
            ),
        )),
    }
}

fn limit(value: Option<u32>, default: usize) -> Result<usize, CallError> {
    match value {
        None => Ok(default),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n as usize),
        Some(n) => Err(CallError::invalid(
            format!("limit {n} is out of range"),
            format!("limit must be between 1 and {MAX_LIMIT}"),
        )),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskRegisterParams {
    name: String,
    plan: Vec<String>,
    #[serde(default)]
    metadata: Option<Value>,
    #[serde(default)]
    session_key: Option<String>,
    #[serde(default)]
    agent_id: Option<String>,
    /// Set by clients that know the agent's session (`lookout mcp` under Claude Code), not
    /// by agents: it is not in the tool schema.
    #[serde(default)]
    origin: Option<OriginParams>,
}

/// Where a task is registered from: `{"session_id": "…", "cwd": "/abs/path"}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OriginParams {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

impl OriginParams {
    fn validate(self) -> Result<Option<storage::Origin>, CallError> {
        let origin = storage::Origin {
            session_id: optional_key("origin.session_id", self.session_id)?,
            cwd: self
                .cwd
                .map(|cwd| bounded_text("origin.cwd", &cwd, MAX_ORIGIN_CWD_CHARS))
                .transpose()?,
        };
        Ok((origin != storage::Origin::default()).then_some(origin))
    }
}

/// An origin's folder is a path: room for a deep one.
const MAX_ORIGIN_CWD_CHARS: usize = 4096;

impl TaskRegisterParams {
    pub fn validate(self) -> Result<RegisterTask, CallError> {
        Ok(RegisterTask {
            name: TaskName::new(&self.name)?,
            plan: Plan::new(&self.plan)?,
            metadata: match &self.metadata {
                None => Metadata::empty(),
                // The strict function-tool form: the object written as a string of JSON.
                Some(Value::String(text)) if text.trim().is_empty() => Metadata::empty(),
                Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                    Ok(value) if value.is_object() => Metadata::new(&value)?,
                    _ => {
                        return Err(CallError::invalid(
                            "metadata is a string that does not hold a JSON object",
                            "pass an object, {\"repo\": \"coursefolio\"}, or (strict function \
                             tools) that object written as a string, \"{\\\"repo\\\": \\\"coursefolio\\\"}\"",
                        ));
                    }
                },
                Some(value) => Metadata::new(value)?,
            },
            session_key: optional_key("session_key", self.session_key)?,
            agent_id: optional_key("agent_id", self.agent_id)?,
            origin: self
                .origin
                .map(OriginParams::validate)
                .transpose()?
                .flatten(),
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskUpdateParams {
    task_id: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    plan: Option<Vec<String>>,
    #[serde(default)]
    plan_reason: Option<String>,
    #[serde(default)]
    completed_steps: Option<Vec<u32>>,
    #[serde(default)]
    current_step: Option<u32>,
    #[serde(default)]
    max_bytes: Option<u64>,
}

impl TaskUpdateParams {
    /// The task, the update, and the byte budget of the query answer.
    pub fn validate(self) -> Result<(TaskId, UpdateTask, usize), CallError> {
        let id = task_id(&self.task_id)?;
        if self.max_bytes.is_some() && self.query.is_none() {
            return Err(CallError::invalid(
                "max_bytes was given without query",
                "max_bytes sizes the answer to a query: pass query with it (\"where am I?\"), or leave max_bytes out",
            ));
        }
        let budget = max_bytes(self.max_bytes, DEFAULT_QUERY_BYTES, MAX_ANSWER_BYTES)?;
        if self.plan_reason.is_some() && self.plan.is_none() {
            return Err(CallError::invalid(
                "plan_reason was given without plan",
                "pass the new plan with it, or use task_plan_update(task_id, new_plan, reason)",
            ));
        }
        let request = UpdateTask {
            message: self
                .message
                .as_deref()
                .map(|m| non_blank("message", m, MAX_MESSAGE_CHARS))
                .transpose()?,
            query: self
                .query
                .as_deref()
                .map(|q| non_blank("query", q, MAX_QUERY_CHARS))
                .transpose()?,
            status: self.status.as_deref().map(status).transpose()?,
            plan: match self.plan {
                Some(steps) => Some(PlanChange {
                    new_plan: Plan::new(&steps)?,
                    reason: self
                        .plan_reason
                        .map(|r| bounded_text("plan_reason", &r, MAX_REASON_CHARS))
                        .transpose()?,
                }),
                None => None,
            },
            completed_steps: self
                .completed_steps
                .unwrap_or_default()
                .into_iter()
                .collect::<BTreeSet<u32>>(),
            current_step: self.current_step,
        };
        if !request.changes_something() && request.query.is_none() {
            return Err(CallError::invalid(
                "task_update needs at least one of message, query, status or plan",
                "report progress with message (\"Step 2 done — pushed v1.2.3\"), ask where you are with \
                 query (\"where am I?\"), or set status (\"completed\")",
            ));
        }
        Ok((id, request, budget))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskPlanUpdateParams {
    task_id: String,
    new_plan: Vec<String>,
    #[serde(default)]
    reason: Option<String>,
}

impl TaskPlanUpdateParams {
    pub fn validate(self) -> Result<(TaskId, PlanChange), CallError> {
        Ok((
            task_id(&self.task_id)?,
            PlanChange {
                new_plan: Plan::new(&self.new_plan)?,
                reason: self
                    .reason
                    .map(|r| bounded_text("reason", &r, MAX_REASON_CHARS))
                    .transpose()?,
            },
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskListParams {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    cursor: Option<String>,
    #[serde(default)]
    max_bytes: Option<u64>,
}

/// A validated `task_list`.
pub struct ListRequest {
    pub filter: StatusFilter,
    pub limit: usize,
    pub after: Option<ListCursor>,
    pub max_bytes: usize,
}

impl TaskListParams {
    pub fn validate(self) -> Result<ListRequest, CallError> {
        let after = match self.cursor.as_deref().map(str::trim) {
            None => None,
            Some(text) => Some(ListCursor::parse(text).ok_or_else(|| {
                CallError::invalid(
                    format!("cursor '{text}' is not one task_list gave"),
                    "pass the next_cursor of the previous task_list answer as it was, or leave cursor out for the first page",
                )
            })?),
        };
        let (filter, limit) = self.filter_and_limit()?;
        Ok(ListRequest {
            filter,
            limit,
            after,
            max_bytes: max_bytes(self.max_bytes, DEFAULT_READ_BYTES, MAX_ANSWER_BYTES)?,
        })
    }

    fn filter_and_limit(&self) -> Result<(StatusFilter, usize), CallError> {
        let filter = match self.status.as_deref().map(str::trim) {
            None => StatusFilter::Only(Status::Active),
            Some(text) if text.eq_ignore_ascii_case("all") => StatusFilter::All,
            Some(text) => StatusFilter::Only(Status::parse(text).ok_or_else(|| {
                CallError::invalid(
                    format!("invalid status '{text}'"),
                    format!("{STATUS_HINT}, or \"all\""),
                )
            })?),
        };
        Ok((filter, limit(self.limit, DEFAULT_LIST_LIMIT)?))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskThreadParams {
    task_id: String,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    before: Option<u64>,
    #[serde(default)]
    max_bytes: Option<u64>,
}

/// A validated `task_thread`.
pub struct ThreadRequest {
    pub task_id: TaskId,
    pub limit: usize,
    pub before: Option<u64>,
    pub max_bytes: usize,
}

impl TaskThreadParams {
    pub fn validate(self) -> Result<ThreadRequest, CallError> {
        Ok(ThreadRequest {
            task_id: task_id(&self.task_id)?,
            limit: limit(self.limit, DEFAULT_THREAD_LIMIT)?,
            before: match self.before {
                Some(0) => {
                    return Err(CallError::invalid(
                        "before is 0, which names no message",
                        "before is a message seq and seqs start at 1: pass the seq of the oldest \
                         message you have to page back, or leave before out for the newest",
                    ));
                }
                before => before,
            },
            max_bytes: max_bytes(self.max_bytes, DEFAULT_READ_BYTES, MAX_ANSWER_BYTES)?,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskGetParams {
    task_id: String,
    #[serde(default)]
    max_bytes: Option<u64>,
}

impl TaskGetParams {
    pub fn validate(self) -> Result<(TaskId, usize), CallError> {
        Ok((
            task_id(&self.task_id)?,
            max_bytes(self.max_bytes, DEFAULT_TASK_GET_BYTES, MAX_TASK_GET_BYTES)?,
        ))
    }
}

/// Results `memory_recall` returns unless asked, and at most.
pub const DEFAULT_RECALL_LIMIT: usize = 3;
pub const MAX_RECALL_LIMIT: u32 = 20;
/// `memory_recall`'s balance of match and age unless asked: halfway.
pub const DEFAULT_RECENCY_BIAS: f64 = 0.5;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryRecallParams {
    query: String,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    recency_bias: Option<f64>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    source: Option<String>,
}

impl MemoryRecallParams {
    pub fn validate(self) -> Result<RecallRequest, CallError> {
        let query = required_text(
            "query",
            &self.query,
            MAX_QUERY_CHARS,
            "say what to look for in a few keywords, e.g. \"deploy coursefolio\"",
        )?;
        let limit = match self.limit {
            None => DEFAULT_RECALL_LIMIT,
            Some(n) if (1..=MAX_RECALL_LIMIT).contains(&n) => n as usize,
            Some(n) => {
                return Err(CallError::invalid(
                    format!("limit {n} is out of range"),
                    format!("limit must be between 1 and {MAX_RECALL_LIMIT}"),
                ));
            }
        };
        let recency_bias = match self.recency_bias {
            None => DEFAULT_RECENCY_BIAS,
            Some(bias) if (0.0..=1.0).contains(&bias) => bias,
            Some(bias) => {
                return Err(CallError::invalid(
                    format!("recency_bias {bias} is out of range"),
                    format!(
                        "recency_bias goes from 0 (best match first, however old) to 1 (newest first); default {DEFAULT_RECENCY_BIAS}"
                    ),
                ));
            }
        };
        let source = match self.source.as_deref().map(str::trim) {
            None => None,
            Some(text) => Some(Source::parse(text).ok_or_else(|| {
                CallError::invalid(
                    format!("invalid source '{text}'"),
                    "source must be one of task, wait, terminal, screen; leave it out to search everything",
                )
            })?),
        };
        Ok(RecallRequest {
            query,
            limit,
            recency_bias,
            task_id: self
                .task_id
                .as_deref()
                .map(task_id)
                .transpose()?
                .map(|id| id.as_str().to_owned()),
            source,
        })
    }
}

/// The longest `recall.pause` with an end (a pause without one lasts until resumed).
pub const MAX_PAUSE: Duration = Duration::from_secs(30 * 86_400);

/// `recall.pause`: stop screen recording for a while, or until `recall.resume`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallPauseParams {
    #[serde(default, rename = "for")]
    duration: Option<String>,
}

impl RecallPauseParams {
    pub fn validate(self) -> Result<Option<Duration>, CallError> {
        let Some(text) = self.duration else {
            return Ok(None);
        };
        match parse_duration(&text) {
            Some(duration) if !duration.is_zero() && duration <= MAX_PAUSE => Ok(Some(duration)),
            _ => Err(CallError::invalid(
                format!("for: '{text}' is not a duration from 1s to 30d"),
                "give a number with a unit, e.g. for: \"30m\", \"2h\", \"1d\"; leave it out to pause until recall.resume",
            )),
        }
    }
}

/// `recall.forget`: what to remove from the screen and terminal history.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallForgetParams {
    #[serde(default)]
    since: Option<String>,
    #[serde(default)]
    app: Option<String>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    all: Option<bool>,
}

impl RecallForgetParams {
    /// The filter, with `since` (an RFC 3339 time, or a duration meaning that long ago)
    /// resolved against `now`.
    pub fn validate(self, now: storage::Timestamp) -> Result<recall::Forget, CallError> {
        let since_ms = match self.since.as_deref().map(str::trim) {
            None => None,
            Some(text) => Some(
                storage::Timestamp::parse_rfc3339(text)
                    .map(|at| at.as_millis())
                    .or_else(|| {
                        parse_duration(text)
                            .map(|ago| now.as_millis().saturating_sub(ago.as_millis() as u64))
                    })
                    .ok_or_else(|| {
                        CallError::invalid(
                            format!("since: '{text}' is neither a time nor a duration"),
                            "give how far back to forget, e.g. since: \"2h\" or \"7d\", or a time like \"2026-11-24T09:00:00Z\"",
                        )
                    })?,
            ),
        };
        let app = self
            .app
            .map(|app| app.trim().to_owned())
            .filter(|app| !app.is_empty());
        let task_id = self.task_id.as_deref().map(task_id).transpose()?;
        let everything = self.all == Some(true);
        if since_ms.is_none() && app.is_none() && task_id.is_none() && !everything {
            return Err(CallError::invalid(
                "recall.forget needs something to forget",
                "name it with since (\"2h\"), app (\"firefox\") or task_id, or pass all: true to forget every screen segment and terminal session",
            ));
        }
        Ok(recall::Forget {
            since_ms,
            before_ms: None,
            app,
            task_id: task_id.map(|id| id.as_str().to_owned()),
        })
    }
}

/// "90s", "30m", "2h", "7d" or a number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "" | "s" => 1,
        "m" | "min" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return None,
    };
    number.checked_mul(seconds).map(Duration::from_secs)
}

pub const DEFAULT_WAIT_TIMEOUT_S: u64 = 300;
pub const MAX_WAIT_TIMEOUT_S: u64 = 86_400;
pub const DEFAULT_POLL_INTERVAL_S: f64 = 2.0;
pub const POLL_INTERVAL_RANGE_S: (f64, f64) = (0.2, 60.0);
const MAX_CONDITION_CHARS: usize = 2_000;

fn wait_id(text: &str) -> Result<WaitId, CallError> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_TASK_ID_CHARS {
        return Err(CallError::invalid(
            "wait_id is blank or too long",
            "pass the id smart_wait returned, e.g. \"w-4hx8q2\"; wait_status() lists the live waits",
        ));
    }
    Ok(WaitId::new(text))
}

fn wait_timeout(value: Option<u64>) -> Result<Option<u64>, CallError> {
    match value {
        Some(seconds) if !(1..=MAX_WAIT_TIMEOUT_S).contains(&seconds) => Err(CallError::invalid(
            format!("timeout {seconds} is out of range"),
            format!("timeout is in seconds, from 1 to {MAX_WAIT_TIMEOUT_S} (a day)"),
        )),
        other => Ok(other),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmartWaitParams {
    target: String,
    wake_when: String,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    poll_interval: Option<f64>,
    #[serde(default)]
    session_key: Option<String>,
    #[serde(default)]
    match_existing: Option<bool>,
}

impl SmartWaitParams {
    pub fn validate(self) -> Result<NewWait, CallError> {
        let poll_interval = self.poll_interval.unwrap_or(DEFAULT_POLL_INTERVAL_S);
        let (low, high) = POLL_INTERVAL_RANGE_S;
        if !(low..=high).contains(&poll_interval) {
            return Err(CallError::invalid(
                format!("poll_interval {poll_interval} is out of range"),
                format!(
                    "poll_interval is in seconds, from {low} to {high}; the default {DEFAULT_POLL_INTERVAL_S} suits most waits"
                ),
            ));
        }
        let target = Target::parse(&self.target)?;
        // A background command's output file is new when the command starts: what it holds
        // is the command's output, all of it news.
        let match_existing = self
            .match_existing
            .unwrap_or_else(|| target.is_background_output());
        Ok(NewWait {
            target,
            condition: required_text(
                "wake_when",
                self.wake_when.trim(),
                MAX_CONDITION_CHARS,
                "say what to wait for, e.g. \"'BUILD SUCCESSFUL' is printed or an error appears\"",
            )?,
            timeout_s: wait_timeout(self.timeout)?.unwrap_or(DEFAULT_WAIT_TIMEOUT_S),
            poll_interval: Duration::from_secs_f64(poll_interval),
            task_id: self.task_id.as_deref().map(task_id).transpose()?,
            session_key: optional_key("session_key", self.session_key)?,
            match_existing,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitUpdateParams {
    wait_id: String,
    #[serde(default)]
    wake_when: Option<String>,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    message: Option<String>,
}

impl WaitUpdateParams {
    pub fn validate(self) -> Result<(WaitId, WaitUpdate), CallError> {
        Ok((
            wait_id(&self.wait_id)?,
            WaitUpdate {
                wake_when: self
                    .wake_when
                    .as_deref()
                    .map(|c| non_blank("wake_when", c.trim(), MAX_CONDITION_CHARS))
                    .transpose()?,
                timeout_s: wait_timeout(self.timeout)?,
                message: self
                    .message
                    .as_deref()
                    .map(|m| non_blank("message", m, MAX_REASON_CHARS))
                    .transpose()?,
            },
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitCancelParams {
    wait_id: String,
    #[serde(default)]
    reason: Option<String>,
}

impl WaitCancelParams {
    pub fn validate(self) -> Result<(WaitId, Option<String>), CallError> {
        let reason = self.reason.filter(|r| !r.trim().is_empty());
        Ok((
            wait_id(&self.wait_id)?,
            reason
                .map(|r| bounded_text("reason", r.trim(), MAX_REASON_CHARS))
                .transpose()?,
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitStatusParams {
    #[serde(default)]
    wait_id: Option<String>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    max_bytes: Option<u64>,
}

/// A validated `wait_status`: one wait, or the live waits (of one task).
pub struct WaitStatusRequest {
    pub wait_id: Option<WaitId>,
    pub task_id: Option<TaskId>,
    pub max_bytes: usize,
}

impl WaitStatusParams {
    pub fn validate(self) -> Result<WaitStatusRequest, CallError> {
        if self.wait_id.is_some() && self.task_id.is_some() {
            return Err(CallError::invalid(
                "wait_status takes wait_id or task_id, not both",
                "pass wait_id for one wait, task_id for the live waits of one task, or neither for every live wait",
            ));
        }
        Ok(WaitStatusRequest {
            wait_id: self.wait_id.as_deref().map(wait_id).transpose()?,
            task_id: self.task_id.as_deref().map(task_id).transpose()?,
            max_bytes: max_bytes(self.max_bytes, DEFAULT_READ_BYTES, MAX_ANSWER_BYTES)?,
        })
    }
}

// ---- terminal sessions (term_start, term_send, term_read, term_stop) ----

/// Scrollback lines `term_read` returns unless asked.
pub const DEFAULT_TERM_READ_LINES: usize = 50;

const COMMAND_HINT: &str = "pass command as an array [program, arg, …] run without a shell, e.g. \
     [\"cargo\", \"build\", \"--release\"], or as one string run by /bin/sh -c, e.g. \"make 2>&1 | tee build.log\"";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermStartParams {
    /// A string or an array of strings; checked by hand for a better error than serde's.
    command: Value,
    #[serde(default)]
    cwd: Option<String>,
    /// An object of strings, or (strict function tools) `[{name, value}]` pairs.
    #[serde(default)]
    env: Option<Value>,
    #[serde(default)]
    cols: Option<u32>,
    #[serde(default)]
    rows: Option<u32>,
}

impl TermStartParams {
    pub fn validate(self) -> Result<StartSession, CallError> {
        let command = match self.command {
            Value::String(line) => CommandLine::shell(line)?,
            Value::Array(items) => {
                let argv = items
                    .into_iter()
                    .map(|item| match item {
                        Value::String(arg) => Ok(arg),
                        other => Err(CallError::invalid(
                            format!("command entry {other} is not a string"),
                            COMMAND_HINT,
                        )),
                    })
                    .collect::<Result<Vec<String>, CallError>>()?;
                CommandLine::argv(argv)?
            }
            other => {
                return Err(CallError::invalid(
                    format!("command must be a string or an array of strings, not {other}"),
                    COMMAND_HINT,
                ));
            }
        };
        StartSession::new(
            command,
            self.cwd,
            environment_of(self.env)?,
            TermSize::new(self.cols, self.rows)?,
        )
    }
}

const ENV_HINT: &str = "pass env as an object of strings, {\"RUST_LOG\": \"debug\"}, or as \
     [{\"name\": \"RUST_LOG\", \"value\": \"debug\"}] pairs";

/// `term_start.env` in either form.
fn environment_of(env: Option<Value>) -> Result<BTreeMap<String, String>, CallError> {
    let text = |value: &Value, what: &str| {
        value.as_str().map(str::to_owned).ok_or_else(|| {
            CallError::invalid(format!("env {what} {value} is not a string"), ENV_HINT)
        })
    };
    match env {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(variables)) => variables
            .into_iter()
            .map(|(name, value)| Ok((name, text(&value, "value")?)))
            .collect(),
        Some(Value::Array(pairs)) => pairs
            .iter()
            .map(|pair| match pair.as_object() {
                Some(fields) if fields.len() == 2 => {
                    Ok((text(&pair["name"], "name")?, text(&pair["value"], "value")?))
                }
                _ => Err(CallError::invalid(
                    format!("env entry {pair} is not a {{\"name\", \"value\"}} pair"),
                    ENV_HINT,
                )),
            })
            .collect(),
        Some(other) => Err(CallError::invalid(
            format!("env must be an object or a list of pairs, not {other}"),
            ENV_HINT,
        )),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermSendParams {
    session_id: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    keys: Option<Vec<String>>,
}

impl TermSendParams {
    pub fn validate(self) -> Result<(SessionId, TermInput), CallError> {
        let keys = self
            .keys
            .unwrap_or_default()
            .iter()
            .map(|name| Key::parse(name))
            .collect::<Result<Vec<Key>, CallError>>()?;
        Ok((
            SessionId::parse(&self.session_id)?,
            TermInput::new(self.text, keys)?,
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermReadParams {
    session_id: String,
    #[serde(default)]
    lines: Option<u32>,
}

impl TermReadParams {
    pub fn validate(self) -> Result<(SessionId, usize), CallError> {
        let lines = match self.lines {
            None => DEFAULT_TERM_READ_LINES,
            Some(n) if n as usize <= SCROLLBACK_LINES => n as usize,
            Some(n) => {
                return Err(CallError::invalid(
                    format!("lines {n} is out of range"),
                    format!(
                        "lines must be between 0 and {SCROLLBACK_LINES} (the scrollback a session keeps)"
                    ),
                ));
            }
        };
        Ok((SessionId::parse(&self.session_id)?, lines))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermStopParams {
    session_id: String,
    #[serde(default)]
    signal: Option<String>,
}

impl TermStopParams {
    pub fn validate(self) -> Result<(SessionId, Signal), CallError> {
        let signal = match self.signal.as_deref() {
            None => Signal::Term,
            Some(name) => Signal::parse(name).ok_or_else(|| {
                CallError::invalid(
                    format!("unknown signal '{name}'"),
                    "signal must be one of TERM (the default), INT, HUP or KILL",
                )
            })?,
        };
        Ok((SessionId::parse(&self.session_id)?, signal))
    }
}

// ---- end of terminal sessions ----

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::jsonrpc::codes;

    #[test]
    fn serde_errors_quote_the_signature() {
        let error = decode::<TaskRegisterParams>(
            Method::TaskRegister,
            json!({"name": "x", "plan": ["a"], "colour": 1}),
        )
        .err()
        .unwrap();
        assert_eq!(error.code, codes::INVALID_PARAMS);
        assert!(
            error.message.contains("unknown field `colour`"),
            "{}",
            error.message
        );
        assert!(
            error
                .hint
                .contains("task_register(name: string, plan: string[]"),
            "{}",
            error.hint
        );
        let missing = decode::<TaskRegisterParams>(Method::TaskRegister, json!({"plan": ["a"]}))
            .err()
            .unwrap();
        assert!(
            missing.message.contains("missing field `name`"),
            "{}",
            missing.message
        );
        let wrong = decode::<TaskListParams>(Method::TaskList, json!({"limit": "ten"}))
            .err()
            .unwrap();
        assert!(wrong.message.contains("invalid type"), "{}", wrong.message);
    }

    #[test]
    fn update_needs_something_to_do_and_a_valid_status() {
        let empty = decode::<TaskUpdateParams>(Method::TaskUpdate, json!({"task_id": "t-1"}))
            .ok()
            .unwrap();
        assert!(
            empty
                .validate()
                .unwrap_err()
                .message
                .contains("at least one of message, query, status or plan")
        );
        let bad = decode::<TaskUpdateParams>(
            Method::TaskUpdate,
            json!({"task_id": "t-1", "status": "done-ish"}),
        )
        .ok()
        .unwrap();
        let error = bad.validate().unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.hint.as_str()),
            ("invalid status 'done-ish'", STATUS_HINT)
        );
        let alias = decode::<TaskUpdateParams>(
            Method::TaskUpdate,
            json!({"task_id": "t-1", "status": "canceled"}),
        )
        .ok()
        .unwrap();
        assert_eq!(alias.validate().unwrap().1.status, Some(Status::Cancelled));
    }

    #[test]
    fn list_limits_and_statuses_are_checked() {
        let list = |params: Value| {
            decode::<TaskListParams>(Method::TaskList, params)
                .ok()
                .unwrap()
                .validate()
                .map(|request| {
                    (
                        request.filter,
                        request.limit,
                        request.after,
                        request.max_bytes,
                    )
                })
        };
        assert_eq!(
            list(json!({})).unwrap(),
            (
                StatusFilter::Only(Status::Active),
                10,
                None,
                DEFAULT_READ_BYTES
            )
        );
        let cursor = ListCursor {
            updated_at_ms: 1_771_000_000_123,
            task_id: "t-7k2m9q".into(),
        };
        assert_eq!(
            list(json!({"status": "all", "limit": 1000, "cursor": cursor.encode(), "max_bytes": 65536}))
                .unwrap(),
            (StatusFilter::All, 1000, Some(cursor), 65536)
        );
        assert!(list(json!({"limit": 1001})).is_err());
        assert!(list(json!({"limit": 0})).is_err());
        assert!(
            list(json!({"max_bytes": 1000}))
                .unwrap_err()
                .hint
                .contains("between 1024")
        );
        assert!(
            list(json!({"cursor": "page 2"}))
                .unwrap_err()
                .hint
                .contains("next_cursor")
        );
        assert!(
            list(json!({"status": "finished"}))
                .unwrap_err()
                .hint
                .contains("\"all\"")
        );
    }

    // ---- terminal sessions ----

    #[test]
    fn term_start_takes_a_shell_line_or_an_argv() {
        let start = |params: Value| {
            decode::<TermStartParams>(Method::TermStart, params)
                .ok()
                .unwrap()
                .validate()
        };
        let line = start(json!({"command": "make | tee log"})).unwrap();
        assert_eq!(line.command, CommandLine::Shell("make | tee log".into()));
        assert_eq!(line.size, TermSize::default());
        let argv = start(
            json!({"command": ["ls", "-l; rm -rf /"], "cols": 80, "rows": 24,
                                "cwd": "/tmp", "env": {"A": "1"}}),
        )
        .unwrap();
        assert_eq!(
            argv.command,
            CommandLine::Argv(vec!["ls".into(), "-l; rm -rf /".into()])
        );
        assert_eq!((argv.size.cols, argv.size.rows), (80, 24));
        assert_eq!(argv.env, [("A".to_owned(), "1".to_owned())]);
        for (params, words) in [
            (json!({"command": 42}), "must be a string or an array"),
            (json!({"command": ["ls", 3]}), "is not a string"),
            (json!({"command": []}), "empty array"),
            (
                json!({"command": "ls", "cols": 5}),
                "cols 5 is out of range",
            ),
            (
                json!({"command": "ls", "cwd": "relative"}),
                "not an absolute path",
            ),
        ] {
            let error = start(params.clone()).unwrap_err();
            assert!(error.message.contains(words), "{params}: {}", error.message);
        }
        let missing = decode::<TermStartParams>(Method::TermStart, json!({}))
            .err()
            .unwrap();
        assert!(
            missing.hint.contains("command: string | string[]"),
            "{}",
            missing.hint
        );
    }

    #[test]
    fn term_send_read_and_stop_check_their_values() {
        let send = decode::<TermSendParams>(
            Method::TermSend,
            json!({"session_id": "s-abc123", "text": "y", "keys": ["Enter", "ctrl-c"]}),
        )
        .ok()
        .unwrap()
        .validate()
        .unwrap();
        assert_eq!(send.1.bytes(false), b"y\r\x03");
        let bad_key = decode::<TermSendParams>(
            Method::TermSend,
            json!({"session_id": "s-abc123", "keys": ["Enterr"]}),
        )
        .ok()
        .unwrap()
        .validate()
        .unwrap_err();
        assert!(bad_key.hint.contains("Ctrl-<letter>"), "{}", bad_key.hint);
        let nothing = decode::<TermSendParams>(Method::TermSend, json!({"session_id": "s-abc123"}))
            .ok()
            .unwrap()
            .validate()
            .unwrap_err();
        assert!(nothing.message.contains("needs text or keys"));

        let read = |params: Value| {
            decode::<TermReadParams>(Method::TermRead, params)
                .ok()
                .unwrap()
                .validate()
        };
        assert_eq!(read(json!({"session_id": "s-abc123"})).unwrap().1, 50);
        assert_eq!(
            read(json!({"session_id": "s-abc123", "lines": 0}))
                .unwrap()
                .1,
            0
        );
        assert!(read(json!({"session_id": "s-abc123", "lines": 1001})).is_err());
        assert!(read(json!({"session_id": " "})).is_err());

        let stop = |params: Value| {
            decode::<TermStopParams>(Method::TermStop, params)
                .ok()
                .unwrap()
                .validate()
        };
        assert_eq!(stop(json!({"session_id": "s-1"})).unwrap().1, Signal::Term);
        assert_eq!(
            stop(json!({"session_id": "s-1", "signal": "sigkill"}))
                .unwrap()
                .1,
            Signal::Kill
        );
        let error = stop(json!({"session_id": "s-1", "signal": "STOP"})).unwrap_err();
        assert!(error.hint.contains("TERM (the default), INT, HUP or KILL"));
    }
}
