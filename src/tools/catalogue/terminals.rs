//! The terminal tools' entries: term_start, term_send, term_read, term_stop.

use serde_json::json;

use super::{Hints, Tool};
use crate::tools::limits::*;
use crate::tools::spine::Method;

pub(super) static TERM_START: Tool = Tool {
    method: Method::TermStart,
    description: "Run a command in a terminal session lookout keeps running in the background \
        (through your disconnects), then smart_wait on pty:<session_id> instead of polling. \
        Returns session_id.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "oneOf": [
                        {"type": "string", "minLength": 1},
                        {"type": "array", "items": {"type": "string"}, "minItems": 1}
                    ],
                    "description": "An argv array, run with no shell, or one string run by /bin/sh -c"
                },
                "cwd": {"type": "string", "description": "Absolute working directory"},
                "env": {"type": "object", "additionalProperties": {"type": "string"},
                        "description": "Extra environment variables"},
                "cols": {"type": "integer", "minimum": MIN_COLS, "maximum": MAX_COLS, "description": format!("Default: {DEFAULT_COLS}")},
                "rows": {"type": "integer", "minimum": MIN_ROWS, "maximum": MAX_ROWS, "description": format!("Default: {DEFAULT_ROWS}")},
                "task_id": {"type": "string", "description": "The task it works for (shown in its thread)"},
                "step": {"type": "integer", "minimum": 1, "description": "The task's step it proves: exit 0 marks it done as verified; else a blocker"}
            },
            "required": ["command"],
            "additionalProperties": false
        })
    },
    output: &[
        ("session_id", "string"),
        ("pid", "integer"),
        ("command", "string"),
        ("cols", "integer"),
        ("rows", "integer"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Run a command in a terminal",
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    },
};

pub(super) static TERM_SEND: Tool = Tool {
    method: Method::TermSend,
    description: "Type into a session: text as given (no Enter added), then keys in order: Enter, \
        Tab, Escape, Backspace, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1-F12, \
        Ctrl-<letter>.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "session_id": {"type": "string", "description": "From term_start, e.g. s-4k9x2m"},
                "text": {"type": "string", "description": "Text to type"},
                "keys": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_KEYS,
                         "description": "e.g. [\"Enter\"] or [\"Ctrl-C\"]"}
            },
            "required": ["session_id"],
            "additionalProperties": false
        })
    },
    output: &[
        ("session_id", "string"),
        ("bytes", "integer"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Type into a terminal",
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    },
};

pub(super) static TERM_READ: Tool = Tool {
    method: Method::TermRead,
    description: "A session's screen, recent scrollback, and whether its program runs or how it \
        ended.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "session_id": {"type": "string", "description": "The session's id"},
                "lines": {"type": "integer", "minimum": 0, "maximum": SCROLLBACK_LINES, "description": format!("Scrollback lines. Default: {DEFAULT_TERM_READ_LINES}")}
            },
            "required": ["session_id"],
            "additionalProperties": false
        })
    },
    output: &[
        ("session_id", "string"),
        ("command", "string"),
        ("pid", "integer"),
        ("running", "boolean"),
        ("exit_code", "integer|null"),
        ("exit_signal", "string|null"),
        ("screen", "string"),
        ("scrollback", "string"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Read a terminal",
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
};

pub(super) static TERM_STOP: Tool = Tool {
    method: Method::TermStop,
    description: "Signal a session's program (TERM by default, INT, HUP or KILL); waits up to 3 s \
        and says how it ended.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "session_id": {"type": "string", "description": "The session's id"},
                "signal": {"type": "string", "enum": ["TERM", "INT", "HUP", "KILL"], "description": "Default: TERM"}
            },
            "required": ["session_id"],
            "additionalProperties": false
        })
    },
    output: &[
        ("session_id", "string"),
        ("signal", "string"),
        ("running", "boolean"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Stop a terminal's program",
        read_only: false,
        destructive: true,
        idempotent: true,
        open_world: false,
    },
};
