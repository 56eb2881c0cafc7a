//! Tests of decoding and checking params.

use actors::process::pty::Signal;
use actors::terminals::types::{CommandLine, TermSize};
use serde_json::json;
use storage::{ListCursor, Status, StatusFilter};

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
        list(
            json!({"status": "all", "limit": 1000, "cursor": cursor.encode(), "max_bytes": 65536})
        )
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
