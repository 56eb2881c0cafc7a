//! The JSON-RPC 2.0 envelope: one line in, zero or one line out.
//!
//! Parses a request line (one object or a batch array), checks the envelope, and builds
//! the response objects. The one place where an error kind becomes an error code.

use actors::{CallError, ErrorKind};
use serde::de::{Deserialize, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::value::RawValue;
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
pub enum Incoming<'line> {
    Single(Result<Request, Value>),
    /// The entries of a batch as they stand in the line (at most [`MAX_BATCH_ENTRIES`]),
    /// each read with [`check_entry`] when its turn comes: a batch of many entries is never
    /// held as many values at once.
    Batch(Vec<&'line RawValue>),
}

/// The most entries one batch may hold; a longer batch is refused whole, nothing in it run.
pub const MAX_BATCH_ENTRIES: usize = 1000;

/// A batch as parsed: its first [`MAX_BATCH_ENTRIES`] entries (unparsed) and how many it has.
struct BatchEntries<'line> {
    kept: Vec<&'line RawValue>,
    total: usize,
}

impl<'de> Deserialize<'de> for BatchEntries<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = BatchEntries<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a batch array")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut kept = Vec::new();
                while kept.len() < MAX_BATCH_ENTRIES {
                    match seq.next_element::<&'de RawValue>()? {
                        Some(entry) => kept.push(entry),
                        None => {
                            let total = kept.len();
                            return Ok(BatchEntries { kept, total });
                        }
                    }
                }
                // Past the limit the entries are only checked and counted, never kept.
                let mut total = kept.len();
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    total += 1;
                }
                Ok(BatchEntries { kept, total })
            }
        }
        deserializer.deserialize_seq(Entries)
    }
}

const SEND_ONE_REQUEST: &str = "send one JSON-RPC 2.0 request object (or a batch array) per line, \
     e.g. {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"task_list\",\"params\":{}}";

/// Parses one line. `Err` carries the complete error response to send.
pub fn parse_line(line: &[u8]) -> Result<Incoming<'_>, Value> {
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
    if text.trim_start().starts_with('[') {
        // Entries are read later, one by one: nesting too deep to read is refused now, as
        // it is for a single request.
        if nests_deeper_than(text, MAX_NESTING) {
            return Err(error_response(
                &Value::Null,
                &RpcError::new(
                    codes::PARSE_ERROR,
                    format!("parse error: the JSON nests deeper than {MAX_NESTING} levels"),
                    SEND_ONE_REQUEST,
                ),
            ));
        }
        let batch: BatchEntries =
            serde_json::from_str(text).map_err(|error| parse_error(&error))?;
        return match batch.total {
            0 => Err(error_response(
                &Value::Null,
                &RpcError::new(
                    codes::INVALID_REQUEST,
                    "empty batch",
                    "a batch array needs at least one request",
                ),
            )),
            total if total > MAX_BATCH_ENTRIES => Err(error_response(
                &Value::Null,
                &RpcError::new(
                    codes::TOO_LARGE,
                    format!(
                        "a batch of {total} entries is over the limit of {MAX_BATCH_ENTRIES}; \
                         nothing in it was run"
                    ),
                    format!("send batches of at most {MAX_BATCH_ENTRIES} requests"),
                ),
            )),
            _ => Ok(Incoming::Batch(batch.kept)),
        };
    }
    let value: Value = serde_json::from_str(text).map_err(|error| parse_error(&error))?;
    Ok(Incoming::Single(check_envelope(value)))
}

/// How deep JSON may nest: serde_json's own limit for one value.
const MAX_NESTING: usize = 128;

/// Whether arrays and objects in `text` nest deeper than `limit` (strings skipped).
fn nests_deeper_than(text: &str, limit: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The error response for a line that is not JSON.
fn parse_error(error: &serde_json::Error) -> Value {
    {
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
    }
}

/// Reads one batch entry: the request, or the error response for a malformed entry.
pub fn check_entry(entry: &RawValue) -> Result<Request, Value> {
    match serde_json::from_str(entry.get()) {
        Ok(value) => check_envelope(value),
        // The batch's parse checked it already.
        Err(error) => Err(parse_error(&error)),
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

/// A success response's text, the result written into it in place.
pub fn success_response(id: &Value, result: &impl serde::Serialize) -> String {
    #[derive(serde::Serialize)]
    struct Success<'a, R> {
        jsonrpc: &'static str,
        id: &'a Value,
        result: &'a R,
    }
    serde_json::to_string(&Success {
        jsonrpc: "2.0",
        id,
        result,
    })
    .expect("a response is JSON")
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
