//! The task tools' entries: task_register, task_update, task_plan_update, task_list,
//! task_thread, task_get.

use serde_json::json;

use super::{Hints, Tool};
use crate::tools::limits::*;
use crate::tools::spine::Method;

const STATUS_VALUES: [&str; 5] = ["active", "paused", "completed", "failed", "cancelled"];

pub(super) static TASK_REGISTER: Tool = Tool {
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

pub(super) static TASK_UPDATE: Tool = Tool {
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

pub(super) static TASK_PLAN_UPDATE: Tool = Tool {
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

pub(super) static TASK_LIST: Tool = Tool {
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

pub(super) static TASK_THREAD: Tool = Tool {
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

pub(super) static TASK_GET: Tool = Tool {
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
