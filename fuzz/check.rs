//! The one check both the cargo-fuzz target and the seeded driver
//! (`examples/fuzz_decoder.rs`) run on every input: arbitrary bytes, split into lines the way
//! the socket framing splits them, through the decoder the server uses
//! (`jsonrpc::parse_line`). It must not panic, and every reply the decoder owes must be one
//! well-formed JSON-RPC error response on one line.

use lookout::jsonrpc::{Incoming, parse_line};
use serde_json::Value;

/// What the decoder made of one line, for the driver's tally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Request,
    Notification,
    Batch,
    Error(i64),
}

/// Decodes every non-blank line of `input` and checks what it owes.
pub fn decode_and_check(input: &[u8], mut seen: impl FnMut(Outcome)) {
    for line in input.split(|&byte| byte == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // The server skips blank lines before decoding.
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_line(line) {
            Err(response) | Ok(Incoming::Single(Err(response))) => {
                seen(Outcome::Error(check_error(&response)));
            }
            Ok(Incoming::Single(Ok(request))) => {
                assert!(request.params.is_object());
                seen(match request.id {
                    Some(_) => Outcome::Request,
                    None => Outcome::Notification,
                });
            }
            Ok(Incoming::Batch(entries)) => {
                assert!(!entries.is_empty());
                for entry in entries {
                    match lookout::jsonrpc::check_entry(entry) {
                        Err(response) => {
                            check_error(&response);
                        }
                        Ok(request) => assert!(request.params.is_object()),
                    }
                }
                seen(Outcome::Batch);
            }
        }
    }
}

/// Asserts the shape of an error response; returns its code.
fn check_error(response: &Value) -> i64 {
    let members = response
        .as_object()
        .expect("an error response is an object");
    assert_eq!(members.len(), 3, "{response}");
    assert_eq!(response["jsonrpc"], "2.0");
    assert!(
        matches!(
            response["id"],
            Value::Null | Value::String(_) | Value::Number(_)
        ),
        "{response}"
    );
    assert!(response["error"]["message"].is_string(), "{response}");
    assert!(response["error"]["data"]["hint"].is_string(), "{response}");
    assert!(!response.to_string().contains('\n'));
    response["error"]["code"]
        .as_i64()
        .expect("an integer error code")
}
