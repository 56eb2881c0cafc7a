//! memory_recall's entry.

use serde_json::json;

use super::{Hints, Tool};
use crate::tools::limits::*;
use crate::tools::spine::Method;

pub(super) static MEMORY_RECALL: Tool = Tool {
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
                "source": {"type": "string", "enum": ["task", "wait", "terminal", "screen", "transcript"], "description": "Only this source (transcript: your own past Claude Code sessions, when [recall] sources enables them)"}
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
