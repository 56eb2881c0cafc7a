//! Params of the terminal tools: term_start, term_send, term_read, term_stop.

use std::collections::BTreeMap;

use actors::CallError;
use actors::linkage::StepLink;
use actors::process::pty::Signal;
use actors::terminals::keys::Key;
use actors::terminals::types::{CommandLine, SessionId, StartSession, TermInput, TermSize};
use serde::Deserialize;
use serde_json::Value;

use crate::tools::limits::*;

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
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    step: Option<u32>,
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
        let (task_id, step) = super::step_link(self.task_id.as_deref(), self.step)?;
        let mut request = StartSession::new(
            command,
            self.cwd,
            environment_of(self.env)?,
            TermSize::new(self.cols, self.rows)?,
        )?;
        request.link = task_id.map(|task_id| StepLink { task_id, step });
        Ok(request)
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
