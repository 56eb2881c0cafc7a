//! Params of the wait tools: smart_wait, wait_update, wait_cancel, wait_status.

use std::time::Duration;

use actors::CallError;
use actors::sight::target::Target;
use actors::tasks::types::bounded_text;
use actors::waits::{NewWait, WaitUpdate};
use serde::Deserialize;
use storage::{TaskId, WaitId};

use super::{max_bytes, non_blank, optional_key, required_text, step_link, task_id};
use crate::tools::limits::*;

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
    #[serde(default)]
    step: Option<u32>,
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
        let (task_id, step) = step_link(self.task_id.as_deref(), self.step)?;
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
            task_id,
            session_key: optional_key("session_key", self.session_key)?,
            match_existing,
            step,
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
