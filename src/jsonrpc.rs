//! The JSON-RPC 2.0 envelope: one line in, zero or one line out.
//!
//! Parses a request line (one object or a batch array), checks the envelope, and builds
//! the response objects. The one place where an error kind becomes an error code.

use actors::{CallError, ErrorKind};
use serde_json::{Map, Value, json};

pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL: i64 = -32603;
    pub const NOT_FOUND: i64 = -32001;
    pub const CONFLICT: i64 = -32002;
    pub const UNAVAILABLE: i64 = -32003;
    pub const TOO_LARGE: i64 = -32004;
}

/// An error as the client sees it: a code, a message and a hint saying how to fix the call.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub hint: String,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub fn invalid_params(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message, hint)
    }

    pub fn to_json(&self) -> Value {
        json!({"code": self.code, "message": self.message, "data": {"hint": self.hint}})
    }
}

impl From<CallError> for RpcError {
    fn from(error: CallError) -> Self {
        let code = match error.kind {
            ErrorKind::InvalidParams => codes::INVALID_PARAMS,
            ErrorKind::NotFound => codes::NOT_FOUND,
            ErrorKind::Conflict => codes::CONFLICT,
            ErrorKind::Unavailable => codes::UNAVAILABLE,
            ErrorKind::TooLarge => codes::TOO_LARGE,
            ErrorKind::Internal => codes::INTERNAL,
        };
        Self {
            code,
            message: error.message,
            hint: error.hint,
        }
    }
}

/// One well-formed request. `id` is `None` for a notification (no reply is sent).
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub id: Option<Value>,
    pub method: String,
    /// Always an object (absent or null params become `{}`).
    pub params: Value,
}

/// What a line holds.
#[derive(Debug)]
pub enum Incoming {
    Single(Result<Request, Value>),
    /// Each entry is a request or the error response for a malformed entry.
    Batch(Vec<Result<Request, Value>>),
}

const SEND_ONE_REQUEST: &str = "send one JSON-RPC 2.0 request object (or a batch array) per line, \
     e.g. {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"task_list\",\"params\":{}}";

/// Parses one line. `Err` carries the complete error response to send.
pub fn parse_line(line: &[u8]) -> Result<Incoming, Value> {
    let text = std::str::from_utf8(line).map_err(|error| {
        error_response(
            &Value::Null,
            &RpcError::new(
                codes::PARSE_ERROR,
                format!(
                    "request is not valid UTF-8 (invalid byte at offset {})",
                    error.valid_up_to()
                ),
                SEND_ONE_REQUEST,
            ),
        )
    })?;
    let value: Value = serde_json::from_str(text).map_err(|error| {
        let message = match error.classify() {
            serde_json::error::Category::Eof => {
                format!(
                    "parse error: the JSON ends early at line {} column {}",
                    error.line(),
                    error.column()
                )
            }
            _ => format!(
                "parse error at line {} column {}: {error}",
                error.line(),
                error.column()
            ),
        };
        error_response(
            &Value::Null,
            &RpcError::new(codes::PARSE_ERROR, message, SEND_ONE_REQUEST),
        )
    })?;
    match value {
        Value::Array(entries) if entries.is_empty() => Err(error_response(
            &Value::Null,
            &RpcError::new(
                codes::INVALID_REQUEST,
                "empty batch",
                "a batch array needs at least one request",
            ),
        )),
        Value::Array(entries) => Ok(Incoming::Batch(
            entries.into_iter().map(check_envelope).collect(),
        )),
        other => Ok(Incoming::Single(check_envelope(other))),
    }
}

/// Checks one request object; `Err` is the error response (with the id when there is one).
fn check_envelope(value: Value) -> Result<Request, Value> {
    let Value::Object(mut object) = value else {
        return Err(error_response(
            &Value::Null,
            &RpcError::new(
                codes::INVALID_REQUEST,
                "invalid request: expected a JSON object",
                SEND_ONE_REQUEST,
            ),
        ));
    };
    let id = match object.remove("id") {
        None => None,
        Some(id @ (Value::Null | Value::String(_) | Value::Number(_))) => Some(id),
        Some(_) => {
            return Err(invalid_request(
                &Value::Null,
                "\"id\" must be a string, a number or null",
            ));
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    match object.remove("jsonrpc") {
        Some(Value::String(version)) if version == "2.0" => {}
        _ => return Err(invalid_request(&reply_id, "\"jsonrpc\" must be \"2.0\"")),
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => return Err(invalid_request(&reply_id, "\"method\" must be a string")),
        None => return Err(invalid_request(&reply_id, "the request has no \"method\"")),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(params @ Value::Object(_)) => params,
        Some(Value::Array(_)) => {
            return Err(error_response(
                &reply_id,
                &RpcError::invalid_params(
                    "params must be an object of named parameters",
                    "pass params by name, e.g. {\"task_id\":\"t-7k2m9q\",\"message\":\"Step 2 done\"}; tools.list shows each method's parameters",
                ),
            ));
        }
        Some(_) => return Err(invalid_request(&reply_id, "\"params\" must be an object")),
    };
    if let Some(extra) = object.keys().next() {
        return Err(invalid_request(
            &reply_id,
            &format!("unexpected member \"{extra}\" in the request object"),
        ));
    }
    Ok(Request { id, method, params })
}

fn invalid_request(id: &Value, what: &str) -> Value {
    error_response(
        id,
        &RpcError::new(
            codes::INVALID_REQUEST,
            format!("invalid request: {what}"),
            SEND_ONE_REQUEST,
        ),
    )
}

pub fn success_response(id: &Value, result: Value) -> Value {
    let mut response = Map::new();
    response.insert("jsonrpc".into(), Value::from("2.0"));
    response.insert("id".into(), id.clone());
    response.insert("result".into(), result);
    Value::Object(response)
}

/// A server-to-client notification, e.g. a wake event.
pub fn notification(method: &str, params: Value) -> Value {
    let mut notification = Map::new();
    notification.insert("jsonrpc".into(), Value::from("2.0"));
    notification.insert("method".into(), Value::from(method));
    notification.insert("params".into(), params);
    Value::Object(notification)
}

pub fn error_response(id: &Value, error: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()})
}

#[cfg(test)]
mod tests;
