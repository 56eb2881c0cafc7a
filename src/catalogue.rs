//! The tool catalogue: every tool's name, description and JSON Schema, in one place.
//!
//! `tools.list` serves it, the parameter errors quote it, and the MCP server and the
//! function-tool export are generated from it. The descriptions are written for the agent
//! that will call the tools: when to use each one and what it gets back.

use serde_json::{Value, json};

use actors::tasks::types::{MAX_NAME_CHARS, MAX_STEP_CHARS, MAX_STEPS};
use actors::terminals::screen::SCROLLBACK_LINES;
use actors::terminals::types::{
    DEFAULT_COLS, DEFAULT_ROWS, MAX_COLS, MAX_KEYS, MAX_ROWS, MIN_COLS, MIN_ROWS,
};

use crate::params::{
    DEFAULT_LIST_LIMIT, DEFAULT_POLL_INTERVAL_S, DEFAULT_RECALL_LIMIT, DEFAULT_RECENCY_BIAS,
    DEFAULT_TERM_READ_LINES, DEFAULT_THREAD_LIMIT, DEFAULT_WAIT_TIMEOUT_S, MAX_LIMIT,
    MAX_RECALL_LIMIT, MAX_WAIT_TIMEOUT_S, POLL_INTERVAL_RANGE_S,
};
use crate::spine::Method;
use crate::wire::tasks::{
    DEFAULT_QUERY_BYTES, DEFAULT_READ_BYTES, DEFAULT_TASK_GET_BYTES, MAX_ANSWER_BYTES,
    MAX_TASK_GET_BYTES, MIN_ANSWER_BYTES,
};

pub struct Tool {
    pub method: Method,
    pub description: &'static str,
    pub input_schema: fn() -> Value,
    /// The fields every successful result has, with their JSON types (`"string|null"` for
    /// one that may be null); a result may carry more. MCP's `outputSchema` is made of it.
    pub output: &'static [(&'static str, &'static str)],
    pub hints: Hints,
}

/// What a client may assume of a tool (MCP's tool annotations): hints, never a guarantee.
pub struct Hints {
    /// A short human title: "Register a task".
    pub title: &'static str,
    /// It changes nothing.
    pub read_only: bool,
    /// It may end or undo something that cannot be brought back (a process, a wait).
    pub destructive: bool,
    /// Calling it again with the same arguments changes nothing more.
    pub idempotent: bool,
    /// It reaches beyond lookout's own records: programs it runs, files and windows.
    pub open_world: bool,
}

impl Tool {
    pub fn name(&self) -> &'static str {
        self.method.name()
    }

    /// The tool as MCP's `tools/list` gives it: with its title, annotations and output schema.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name(),
            "title": self.hints.title,
            "description": self.description,
            "inputSchema": (self.input_schema)(),
            "outputSchema": self.output_schema(),
            "annotations": {
                "title": self.hints.title,
                "readOnlyHint": self.hints.read_only,
                "destructiveHint": self.hints.destructive,
                "idempotentHint": self.hints.idempotent,
                "openWorldHint": self.hints.open_world,
            },
        })
    }

    /// The JSON Schema every successful result validates against.
    pub fn output_schema(&self) -> Value {
        let properties: serde_json::Map<String, Value> = self
            .output
            .iter()
            .map(|(name, kind)| {
                let kind = match kind.split_once('|') {
                    Some((kind, other)) => json!([kind, other]),
                    None => json!(kind),
                };
                ((*name).to_owned(), json!({"type": kind}))
            })
            .collect();
        let required: Vec<&str> = self.output.iter().map(|(name, _)| *name).collect();
        json!({"type": "object", "properties": properties, "required": required})
    }

    /// "task_register(name: string, plan: string[], metadata?: object, …)" for error hints.
    pub fn signature(&self) -> String {
        let schema = (self.input_schema)();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let params: Vec<String> = schema["properties"]
            .as_object()
            .map(|properties| {
                properties
                    .iter()
                    .map(|(name, spec)| {
                        let optional = if required.contains(&name.as_str()) {
                            ""
                        } else {
                            "?"
                        };
                        format!("{name}{optional}: {}", type_name(spec))
                    })
                    .collect()
            })
            .unwrap_or_default();
        format!("{}({})", self.name(), params.join(", "))
    }
}

/// The README's tool reference: one row per tool, generated so it cannot drift.
pub fn markdown_reference() -> String {
    let mut table =
        String::from("| tool | parameters (`?` = optional) | what it is for |\n|---|---|---|\n");
    for tool in tools() {
        let signature = tool.signature();
        let params = signature
            .trim_start_matches(tool.name())
            .trim_start_matches('(')
            .trim_end_matches(')');
        let first_sentence = tool
            .description
            .split(". ")
            .next()
            .unwrap_or(tool.description)
            .trim_end_matches('.');
        // A pipe splits a table cell even inside a code span.
        let params = params.replace('|', "\\|");
        table.push_str(&format!(
            "| `{}` | `{params}` | {first_sentence}. |\n",
            tool.name()
        ));
    }
    table
}

fn type_name(spec: &Value) -> String {
    if let Some(choices) = spec["oneOf"].as_array() {
        return choices
            .iter()
            .map(type_name)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match (spec["type"].as_str(), spec["items"]["type"].as_str()) {
        (Some("array"), Some(item)) => format!("{item}[]"),
        (Some(kind), _) => kind.to_owned(),
        (None, _) => "any".to_owned(),
    }
}

/// Every tool, in the spine's order.
pub fn tools() -> impl Iterator<Item = &'static Tool> {
    Method::tools().filter_map(Method::tool)
}

/// The tool called `name`, if it is one (the daemon's own methods are not tools).
pub fn find(name: &str) -> Option<&'static Tool> {
    Method::named(name).and_then(Method::tool)
}

/// `tools.list`: the catalogue, as MCP's `tools/list` gives it.
/// Built once: it never changes while the daemon runs, and clients ask for it often.
pub fn listing() -> Value {
    static LISTING: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    LISTING
        .get_or_init(|| {
            let tools: Vec<Value> = tools().map(Tool::to_json).collect();
            let count = tools.len();
            json!({"tools": tools, "message": format!("{count} tools.")})
        })
        .clone()
}

/// The catalogue entry of each method that is a tool (see [`Method::tool`]).
pub(crate) fn entry(method: Method) -> Option<&'static Tool> {
    Some(match method {
        Method::TaskRegister => &TASK_REGISTER,
        Method::TaskUpdate => &TASK_UPDATE,
        Method::TaskPlanUpdate => &TASK_PLAN_UPDATE,
        Method::TaskList => &TASK_LIST,
        Method::TaskThread => &TASK_THREAD,
        Method::TaskGet => &TASK_GET,
        Method::MemoryRecall => &MEMORY_RECALL,
        Method::SmartWait => &SMART_WAIT,
        Method::WaitUpdate => &WAIT_UPDATE,
        Method::WaitCancel => &WAIT_CANCEL,
        Method::WaitStatus => &WAIT_STATUS,
        Method::TermStart => &TERM_START,
        Method::TermSend => &TERM_SEND,
        Method::TermRead => &TERM_READ,
        Method::TermStop => &TERM_STOP,
        Method::ToolsList
        | Method::DaemonStatus
        | Method::EventsSubscribe
        | Method::RecallPause
        | Method::RecallResume
        | Method::RecallForget => return None,
    })
}

const STATUS_VALUES: [&str; 5] = ["active", "paused", "completed", "failed", "cancelled"];

static TASK_REGISTER: Tool = Tool {
    method: Method::TaskRegister,
    description: "Start tracking a multi-step task (a deploy, a migration) so you never lose your \
        place. Give an ordered plan (steps numbered from 1), narrate with task_update, and after \
        context compaction ask task_update(query: \"where am I?\").",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Short task name", "maxLength": MAX_NAME_CHARS},
                "plan": {"type": "array", "items": {"type": "string", "maxLength": MAX_STEP_CHARS}, "minItems": 1, "maxItems": MAX_STEPS,
                         "description": "Ordered steps, e.g. [\"Build image\", \"Push\", \"Deploy\"]"},
                "metadata": {"type": "object", "description": "Context to keep, e.g. {\"repo\": \"coursefolio\"}"},
                "session_key": {"type": "string", "description": "Agent session to wake about it (e.g. an OpenClaw session key)"},
                "agent_id": {"type": "string", "description": "The owning agent's id"}
            },
            "required": ["name", "plan"],
            "additionalProperties": false
        })
    },
    output: &[
        ("task_id", "string"),
        ("name", "string"),
        ("status", "string"),
        ("plan", "array"),
        ("created_at", "string"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Register a task",
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: false,
    },
};

static TASK_UPDATE: Tool = Tool {
    method: Method::TaskUpdate,
    description: "Report progress, change status or plan, or ask where a task stands. Say each step \
        as you finish it (\"Step 2 done — pushed v1.2.3\"); set status completed, failed, cancelled \
        or paused when it applies instead of just saying so. query returns a summary, progress and the \
        messages that answer it, within max_bytes. Needs message, query, status or plan.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "task_id": {"type": "string", "description": "From task_register, e.g. t-7k2m9q"},
                "message": {"type": "string", "description": "Progress note"},
                "query": {"type": "string", "description": "A question, e.g. \"where am I?\""},
                "status": {"type": "string", "enum": STATUS_VALUES, "description": "New status"},
                "plan": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_STEPS,
                         "description": "Replacement plan; done marks of unchanged steps are kept"},
                "plan_reason": {"type": "string", "description": "Why the plan changed"},
                "completed_steps": {"type": "array", "items": {"type": "integer", "minimum": 1}, "description": "Step numbers to mark done"},
                "current_step": {"type": "integer", "minimum": 1, "description": "The step you are on"},
                "max_bytes": {"type": "integer", "minimum": MIN_ANSWER_BYTES, "maximum": MAX_ANSWER_BYTES, "description": format!("Size of the query answer. Default: {DEFAULT_QUERY_BYTES}")}
            },
            "required": ["task_id"],
            "additionalProperties": false
        })
    },
    output: &[
        ("task_id", "string"),
        ("status", "string"),
        ("plan_progress", "object"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Report progress or ask where you are",
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: false,
    },
};

static TASK_PLAN_UPDATE: Tool = Tool {
    method: Method::TaskPlanUpdate,
    description: "Revise a task's plan when the work changes. The old and new plans and the reason \
        are kept; done marks of unchanged steps survive.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "task_id": {"type": "string", "description": "The task's id"},
                "new_plan": {"type": "array", "items": {"type": "string", "maxLength": MAX_STEP_CHARS}, "minItems": 1, "maxItems": MAX_STEPS,
                             "description": "The full new plan"},
                "reason": {"type": "string", "description": "Why it changed"}
            },
            "required": ["task_id", "new_plan"],
            "additionalProperties": false
        })
    },
    output: &[
        ("task_id", "string"),
        ("revision", "integer"),
        ("plan", "array"),
        ("kept_completed", "array"),
        ("dropped_completed", "array"),
        ("plan_progress", "object"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Replace a task's plan",
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: false,
    },
};

static TASK_LIST: Tool = Tool {
    method: Method::TaskList,
    description: "Your tasks, most recently updated first. Default: active ones.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "status": {"type": "string", "enum": ["active", "paused", "completed", "failed", "cancelled", "all"], "description": "Default: active"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": format!("Default: {DEFAULT_LIST_LIMIT}")},
                "cursor": {"type": "string", "description": "next_cursor of the previous page"},
                "max_bytes": {"type": "integer", "minimum": MIN_ANSWER_BYTES, "maximum": MAX_ANSWER_BYTES, "description": format!("Default: {DEFAULT_READ_BYTES}")}
            },
            "additionalProperties": false
        })
    },
    output: &[("tasks", "array"), ("message", "string")],
    hints: Hints {
        title: "List tasks",
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
};

static TASK_THREAD: Tool = Tool {
    method: Method::TaskThread,
    description: "A task's messages (notes, progress, status and plan changes), oldest first; page \
        back with before.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "task_id": {"type": "string", "description": "The task's id"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": format!("Default: {DEFAULT_THREAD_LIMIT}")},
                "before": {"type": "integer", "minimum": 1, "description": "Only messages with a lower seq"},
                "max_bytes": {"type": "integer", "minimum": MIN_ANSWER_BYTES, "maximum": MAX_ANSWER_BYTES, "description": format!("Default: {DEFAULT_READ_BYTES}")}
            },
            "required": ["task_id"],
            "additionalProperties": false
        })
    },
    output: &[
        ("task_id", "string"),
        ("messages", "array"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Read a task's thread",
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
};

static TASK_GET: Tool = Tool {
    method: Method::TaskGet,
    description: "One task whole: metadata as given (with active_wait_ids, last_wait_state, \
        last_wait_event_at), every step with its mark, plan revisions, its waits.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "task_id": {"type": "string", "description": "The task's id"},
                "max_bytes": {"type": "integer", "minimum": MIN_ANSWER_BYTES, "maximum": MAX_TASK_GET_BYTES, "description": format!("Default: {DEFAULT_TASK_GET_BYTES}")}
            },
            "required": ["task_id"],
            "additionalProperties": false
        })
    },
    output: &[
        ("task_id", "string"),
        ("name", "string"),
        ("status", "string"),
        ("session_key", "string|null"),
        ("agent_id", "string|null"),
        ("created_at", "string"),
        ("last_update", "string"),
        ("metadata", "object"),
        ("plan", "array"),
        ("plan_progress", "object"),
        ("plan_revisions", "array"),
        ("waits", "array"),
        ("messages", "integer"),
        ("message", "string"),
    ],
    hints: Hints {
        title: "Read a task whole",
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
};

static MEMORY_RECALL: Tool = Tool {
    method: Method::MemoryRecall,
    description: "Have I done this before? Search your past and current tasks (names, plans, notes, \
        outcomes), waits, terminal sessions and, when recording is on, screen history by keywords; \
        try 2-3 variants. Each result has its steps with times. confidence ranks results against \
        the best match; it is not a probability.",
    input_schema: || {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords, e.g. \"deploy coursefolio\""},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RECALL_LIMIT, "description": format!("Default: {DEFAULT_RECALL_LIMIT}")},
                "recency_bias": {"type": "number", "minimum": 0, "maximum": 1, "description": format!("0 best match, 1 newest. Default: {DEFAULT_RECENCY_BIAS}")},
                "task_id": {"type": "string", "description": "Only this task"},
                "source": {"type": "string", "enum": ["task", "wait", "terminal", "screen"], "description": "Only this source"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    },
    output: &[("results", "array"), ("message", "string")],
    hints: Hints {
        title: "Recall earlier work",
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
};

static SMART_WAIT: Tool = Tool {
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
                "target": {"type": "string", "description": "pty:<term_start id, or your OpenClaw exec sessionId: its end only>, tmux:<pane>, file:<absolute path> (a log, or the .output file of a command Claude Code backgrounded), window:<title or 0xID>, or screen"},
                "wake_when": {"type": "string", "description": "e.g. \"'ALL DONE' is printed or an error appears\""},
                "timeout": {"type": "integer", "minimum": 1, "maximum": MAX_WAIT_TIMEOUT_S, "description": format!("Seconds. Default: {DEFAULT_WAIT_TIMEOUT_S}")},
                "task_id": {"type": "string", "description": "The task it belongs to"},
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

static WAIT_UPDATE: Tool = Tool {
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

static WAIT_CANCEL: Tool = Tool {
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

static WAIT_STATUS: Tool = Tool {
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

// ---- terminal sessions ----
static TERM_START: Tool = Tool {
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
                "rows": {"type": "integer", "minimum": MIN_ROWS, "maximum": MAX_ROWS, "description": format!("Default: {DEFAULT_ROWS}")}
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

static TERM_SEND: Tool = Tool {
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

static TERM_READ: Tool = Tool {
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

static TERM_STOP: Tool = Tool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_with_described_properties() {
        for tool in tools() {
            let schema = (tool.input_schema)();
            assert_eq!(schema["type"], "object", "{}", tool.name());
            assert_eq!(schema["additionalProperties"], false, "{}", tool.name());
            for (name, spec) in schema["properties"].as_object().unwrap() {
                assert!(
                    spec["description"].is_string(),
                    "{}.{name} lacks a description",
                    tool.name()
                );
            }
            assert!(
                tool.description.len() > 40,
                "{} needs a real description",
                tool.name()
            );
        }
    }

    #[test]
    /// `LOOKOUT_WRITE_README=1 cargo test -p lookout-agent readme` rewrites the table.
    fn the_readme_tool_reference_matches_the_catalogue() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let begin =
            "<!-- tools:begin (generated from src/catalogue.rs; a test keeps it equal) -->\n";
        let start = readme
            .find(begin)
            .expect("README has the tools:begin marker")
            + begin.len();
        let end = readme
            .find("<!-- tools:end -->")
            .expect("README has the tools:end marker");
        if crate::environment::is_set("LOOKOUT_WRITE_README") {
            let rewritten = format!(
                "{}{}{}",
                &readme[..start],
                markdown_reference(),
                &readme[end..]
            );
            std::fs::write(&path, rewritten).unwrap();
            return;
        }
        assert_eq!(
            &readme[start..end],
            markdown_reference(),
            "the README's tool table drifted from the catalogue; LOOKOUT_WRITE_README=1 cargo test -p lookout-agent readme rewrites it"
        );
    }

    #[test]
    fn signatures_mark_optional_parameters() {
        let signature = find("task_register").unwrap().signature();
        assert!(signature.starts_with("task_register("), "{signature}");
        assert!(signature.contains("name: string"), "{signature}");
        assert!(signature.contains("plan: string[]"), "{signature}");
        assert!(signature.contains("metadata?: object"), "{signature}");
    }

    #[test]
    fn term_start_says_command_is_a_string_or_an_argv() {
        let signature = find("term_start").unwrap().signature();
        assert!(
            signature.contains("command: string | string[]"),
            "{signature}"
        );
        assert!(markdown_reference().contains("`command: string \\| string[], "));
    }

    /// What a model reads before it calls anything: the whole catalogue as OpenAI function
    /// tools, compact JSON, in tokens (about four characters each).
    pub fn catalogue_tokens() -> usize {
        let definitions =
            crate::export::tool_definitions(crate::export::ToolFormat::OpenAi, false).unwrap();
        serde_json::to_string(&definitions).unwrap().chars().count() / 4
    }

    #[test]
    fn the_catalogue_fits_in_three_thousand_tokens() {
        let tokens = catalogue_tokens();
        println!("the catalogue as OpenAI function tools: {tokens} tokens");
        assert!(
            tokens <= 3_000,
            "{tokens} tokens: every description must earn its words"
        );
    }

    #[test]
    fn the_key_names_term_send_lists_are_all_accepted() {
        let description = find("term_send").unwrap().description;
        let names = description
            .split("keys in order: ")
            .nth(1)
            .map(|rest| rest.trim_end_matches('.'))
            .unwrap();
        for name in names.split(", ") {
            let name = match name {
                "F1-F12" => "F12",
                "Ctrl-<letter>" => "Ctrl-Q",
                other => other,
            };
            assert!(
                actors::terminals::keys::Key::parse(name).is_ok(),
                "{name} is listed but refused"
            );
        }
    }
}
