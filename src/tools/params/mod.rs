//! Decoding and validating each method's params into the typed requests of the tree.
//!
//! Serde rejects unknown fields, missing fields and wrong types; the checks here turn what
//! is left (limits, statuses, step numbers) into typed values once, with errors that quote
//! the method's signature so the caller can fix the call.

use actors::CallError;
use actors::tasks::types::bounded_text;
use serde::de::DeserializeOwned;
use serde_json::Value;
use storage::{Status, TaskId};

use crate::jsonrpc::RpcError;
use crate::tools::catalogue;
use crate::tools::limits::*;
use crate::tools::spine::Method;

pub const STATUS_HINT: &str =
    "status must be one of active, paused, completed, failed, cancelled (alias: canceled)";

/// Deserializes `params` for `method`, turning serde's complaint into an invalid-params
/// error whose hint shows the method's signature.
pub fn decode<T: DeserializeOwned>(method: Method, params: Value) -> Result<T, RpcError> {
    serde_json::from_value(whole_numbers_as_integers(params)).map_err(|error| {
        let signature = catalogue::entry(method)
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

/// The task a wait or a session works for, and the step of it that it proves: a step needs
/// its task, and steps count from 1.
pub fn step_link(
    task: Option<&str>,
    step: Option<u32>,
) -> Result<(Option<TaskId>, Option<u32>), CallError> {
    let task = task.map(task_id).transpose()?;
    match (task.is_some(), step) {
        (_, Some(0)) => Err(CallError::invalid(
            "step 0 is not a step",
            "steps count from 1: pass the number task_register's plan gave the step",
        )),
        (false, Some(step)) => Err(CallError::invalid(
            format!("step {step} was given without task_id"),
            "a step belongs to a task: pass task_id with it, e.g. task_id: \"t-7k2m9q\", step: 2",
        )),
        _ => Ok((task, step)),
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

mod events;
mod memory;
mod tasks;
mod terminals;
mod waits;

pub use events::*;
pub use memory::*;
pub use tasks::*;
pub use terminals::*;
pub use waits::*;

#[cfg(test)]
mod tests;
