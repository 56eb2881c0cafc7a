//! The wait tools' entries: smart_wait, wait_update, wait_cancel, wait_status.

use serde_json::json;

use super::{Hints, Tool};

/// What `smart_wait`'s target may be: every kind of `actors::sight::target::KINDS` (a test
/// holds the two together), with what each is for.
pub(super) const SMART_WAIT_TARGET_DESCRIPTION: &str = "pty:<term_start id, or your OpenClaw exec sessionId: its end only>, tmux:<pane>, file:<absolute path> (a log, or the .output file of a command Claude Code backgrounded), window:<title or 0xID>, or screen";
use crate::tools::limits::*;
use crate::tools::spine::Method;

pub(super) static SMART_WAIT: Tool = Tool {
    method: Method::SmartWait,
    description: "Hand a wait to lookout instead of sleeping or polling: end your turn and be woken \
        when wake_when holds, at the timeout, or if watching fails. Quote exact text ('BUILD \
        SUCCESSFUL'). Judged without a model: quoted text, the command finishing, an error, the \
        prompt returning, no change for N seconds, a number reaching a value; anything else needs a \
        [vision] model, else a wait_changed wake (not resolved) comes at the first change. Only \
        output after the wait starts counts, except in a background command's .output file. \
        The reply's reading says who judges what.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "target": {"type": "string", "description": SMART_WAIT_TARGET_DESCRIPTION},
                "wake_when": {"type": "string", "description": "e.g. \"'ALL DONE' is printed or an error appears\""},
                "timeout": {"type": "integer", "minimum": 1, "maximum": MAX_WAIT_TIMEOUT_S, "description": format!("Seconds. Default: {DEFAULT_WAIT_TIMEOUT_S}")},
                "task_id": {"type": "string", "description": "The task it belongs to"},
                "step": {"type": "integer", "minimum": 1, "description": "The task's step it proves: resolved marks it done as verified; a timeout posts a blocker"},
                "poll_interval": {"type": "number", "minimum": POLL_INTERVAL_RANGE_S.0, "maximum": POLL_INTERVAL_RANGE_S.1, "description": format!("Seconds between looks. Default: {DEFAULT_POLL_INTERVAL_S}")},
                "session_key": {"type": "string", "description": "Session to wake (default: the task's)"},
                "match_existing": {"type": "boolean", "description": "Count text already there. Default: false (true for a background .output file)"}
            },
            "required": ["target", "wake_when"],
            "additionalProperties": false
        })
    },
    output: &[
        ("wait_id", "string"),
        ("status", "string"),
        ("target", "string"),
        ("reading", "object"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Wait for a condition",
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: true,
    },
};

pub(super) static WAIT_UPDATE: Tool = Tool {
    method: Method::WaitUpdate,
    description: "After a wake: change wake_when or the timeout (counted from now), or send an ended \
        wait back to watching. A cancelled wait stays cancelled.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "wait_id": {"type": "string", "description": "From smart_wait, e.g. w-4hx8q2"},
                "wake_when": {"type": "string", "description": "The new condition"},
                "timeout": {"type": "integer", "minimum": 1, "maximum": MAX_WAIT_TIMEOUT_S, "description": "Seconds from now"},
                "message": {"type": "string", "description": "A note for its history"}
            },
            "required": ["wait_id"],
            "additionalProperties": false
        })
    },
    output: &[
        ("wait_id", "string"),
        ("status", "string"),
        ("reading", "object"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Change or revive a wait",
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: false,
    },
};

pub(super) static WAIT_CANCEL: Tool = Tool {
    method: Method::WaitCancel,
    description: "Stop a wait you no longer need; no wake is sent.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "wait_id": {"type": "string", "description": "The wait's id"},
                "reason": {"type": "string", "description": "Why"}
            },
            "required": ["wait_id"],
            "additionalProperties": false
        })
    },
    output: &[
        ("wait_id", "string"),
        ("status", "string"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Cancel a wait",
        read_only: false,
        destructive: true,
        idempotent: true,
        open_world: false,
    },
};

pub(super) static WAIT_STATUS: Tool = Tool {
    method: Method::WaitStatus,
    description: "A wait's state, last observation, cost and history; without wait_id, every live wait \
        (of task_id, if given).",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "wait_id": {"type": "string", "description": "The wait's id"},
                "task_id": {"type": "string", "description": "Only this task's live waits"},
                "max_bytes": {"type": "integer", "minimum": MIN_ANSWER_BYTES, "maximum": MAX_ANSWER_BYTES, "description": format!("Default: {DEFAULT_READ_BYTES}")}
            },
            "additionalProperties": false
        })
    },
    output: &[("message", "string")],
    hints: Hints {
        title: "Show waits",
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
};
