//! The tool catalogue: every tool's name, description and JSON Schema, in one place.
//!
//! `tools.list` serves it, the parameter errors quote it, and the MCP server and the
//! function-tool export are generated from it. The descriptions are written for the agent
//! that will call the tools: when to use each one and what it gets back.

use serde_json::{Value, json};

pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: fn() -> Value,
}

impl Tool {
    pub fn to_json(&self) -> Value {
        json!({"name": self.name, "description": self.description, "inputSchema": (self.input_schema)()})
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
        format!("{}({})", self.name, params.join(", "))
    }
}

/// The README's tool reference: one row per tool, generated so it cannot drift.
pub fn markdown_reference() -> String {
    let mut table =
        String::from("| tool | parameters (`?` = optional) | what it is for |\n|---|---|---|\n");
    for tool in tools() {
        let signature = tool.signature();
        let params = signature
            .trim_start_matches(tool.name)
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
            tool.name
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

pub fn tools() -> &'static [Tool] {
    TOOLS
}

pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|tool| tool.name == name)
}

const STATUS_VALUES: [&str; 5] = ["active", "paused", "completed", "failed", "cancelled"];

static TOOLS: &[Tool] = &[
    Tool {
        name: "task_register",
        description: "Start tracking a long, multi-step task so you cannot lose your place in it. Call this \
            before you begin any work with several steps (a deploy, a migration, a multi-file change). \
            Give an ordered plan; steps are numbered from 1. Returns the task_id to use with task_update. \
            Narrate progress with task_update as you go, and after your context is compacted ask \
            task_update(query: \"where am I?\") to get your place back.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Short human-readable task name, at most 200 characters", "maxLength": 200},
                    "plan": {"type": "array", "items": {"type": "string", "maxLength": 500}, "minItems": 1, "maxItems": 100,
                             "description": "Ordered checklist of steps (1 to 100), e.g. [\"Build Docker image\", \"Push to registry\", \"Deploy\"]"},
                    "metadata": {"type": "object", "description": "Optional key-value context, e.g. {\"repo\": \"coursefolio\", \"branch\": \"main\"}; at most 16 KiB"},
                    "session_key": {"type": "string", "description": "Optional agent session to wake about this task (e.g. an OpenClaw session key)"},
                    "agent_id": {"type": "string", "description": "Optional id of the agent that owns the task"}
                },
                "required": ["name", "plan"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "task_update",
        description: "Report progress on a task, change its status or plan, or ask where it stands. \
            Report each step as you finish it, in plain words (\"Step 2 done — pushed v1.2.3\"): step \
            numbers in your message are read as progress, and completed_steps marks them explicitly. \
            Set status \"completed\" (or failed / cancelled / paused) when it applies — do not just say \
            you are done. With query (e.g. \"where am I?\", \"what tag did I push?\") it returns a \
            summary, plan progress and the thread messages that answer the question; use it after a \
            context compaction. At least one of message, query, status or plan is required.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "task_id": {"type": "string", "description": "The task's id from task_register, e.g. t-7k2m9q"},
                    "message": {"type": "string", "description": "Progress note for the task thread, e.g. \"Step 2 done — pushed to ghcr.io\""},
                    "query": {"type": "string", "description": "A question about the task, e.g. \"where am I on this task?\""},
                    "status": {"type": "string", "enum": STATUS_VALUES, "description": "New status; \"canceled\" is accepted for cancelled. Omit to keep the current status"},
                    "plan": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 100,
                             "description": "A replacement plan (same as task_plan_update); done marks of unchanged steps are kept"},
                    "plan_reason": {"type": "string", "description": "Why the plan changed (with plan)"},
                    "completed_steps": {"type": "array", "items": {"type": "integer", "minimum": 1}, "description": "Step numbers (from 1) to mark done"},
                    "current_step": {"type": "integer", "minimum": 1, "description": "The step number you are working on now"}
                },
                "required": ["task_id"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "task_plan_update",
        description: "Revise a task's plan when the work turns out different than planned (a step is \
            missing, obsolete or must be split). The old and new plans and your reason are kept in the \
            task's history; steps whose text is unchanged keep their done marks, and the result lists \
            which marks were kept and which were dropped.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "task_id": {"type": "string", "description": "The task's id, e.g. t-7k2m9q"},
                    "new_plan": {"type": "array", "items": {"type": "string", "maxLength": 500}, "minItems": 1, "maxItems": 100,
                                 "description": "The full new ordered checklist"},
                    "reason": {"type": "string", "description": "Why the plan changed, e.g. \"the release needs a schema migration\""}
                },
                "required": ["task_id", "new_plan"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "task_list",
        description: "List your tasks, most recently updated first: what am I working on? Defaults to \
            active tasks; pass status \"all\" (or one status) to see others.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "status": {"type": "string", "enum": ["active", "paused", "completed", "failed", "cancelled", "all"],
                               "description": "Which tasks to list. Default: active"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Max results. Default: 10"}
                },
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "task_thread",
        description: "Read a task's message thread (your notes, progress marks, status and plan \
            changes), newest last. Page back with before (a seq number).",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "task_id": {"type": "string", "description": "The task's id, e.g. t-7k2m9q"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Max messages. Default: 50"},
                    "before": {"type": "integer", "minimum": 1, "description": "Only messages with a seq below this, to page back"}
                },
                "required": ["task_id"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "smart_wait",
        description: "Hand a wait to lookout instead of sleeping or polling; end your turn and you are woken \
            when wake_when holds, at the timeout, or if watching fails. Targets: pty:<id from term_start>, \
            tmux:<pane>, file:<absolute path> (a log; a backgrounded command's .output file), \
            window:<title or 0xID>, screen. Quote exact text ('BUILD SUCCESSFUL'). Judged without a model: \
            quoted text, the command finishing, an error appearing, the prompt returning, no change for N \
            seconds, a number reaching a value; anything else needs a [vision] model, else you get a \
            wait_changed wake at the first change (never a false resolved). Only output after the wait \
            starts counts. The reply's reading shows who judges each clause.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "target": {"type": "string", "description": "What to watch: pty:<session id>, tmux:<pane>, file:<absolute path>, window:<title substring or 0xID>, or screen"},
                    "wake_when": {"type": "string", "description": "The condition in plain words, e.g. \"wake me when 'ALL DONE' is printed or an error appears\""},
                    "timeout": {"type": "integer", "minimum": 1, "maximum": 86400, "description": "Seconds before giving up (you are woken with the last observation). Default: 300"},
                    "task_id": {"type": "string", "description": "The task this wait belongs to, e.g. t-7k2m9q"},
                    "poll_interval": {"type": "number", "minimum": 0.2, "maximum": 60, "description": "Seconds between looks at the target. Default: 2.0"},
                    "session_key": {"type": "string", "description": "The agent session to wake (defaults to the task's)"},
                    "match_existing": {"type": "boolean", "description": "Also count text already there when the wait starts. Default: false"}
                },
                "required": ["target", "wake_when"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "wait_update",
        description: "Change or resume a wait after you were woken: a new wake_when (judged against what is \
            there now), a new timeout (restarts the clock), and a note for its history. On a wait that \
            resolved, timed out or failed, it sends the wait back to watching (linked to its task again); a \
            cancelled wait cannot be resumed.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "wait_id": {"type": "string", "description": "The wait's id from smart_wait, e.g. w-4hx8q2"},
                    "wake_when": {"type": "string", "description": "The new condition (replaces the old one)"},
                    "timeout": {"type": "integer", "minimum": 1, "maximum": 86400, "description": "New timeout in seconds, counted from now"},
                    "message": {"type": "string", "description": "A note for the wait's history, e.g. \"page loaded but table still rendering\""}
                },
                "required": ["wait_id"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "wait_cancel",
        description: "Stop a wait you no longer need (you found another way, the task was abandoned). No wake \
            is sent; the reason goes into the wait's history and the task's thread.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "wait_id": {"type": "string", "description": "The wait's id, e.g. w-4hx8q2"},
                    "reason": {"type": "string", "description": "Why it is no longer needed"}
                },
                "required": ["wait_id"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "wait_status",
        description: "How a wait is doing: its target and condition, state, time elapsed and left, the last \
            observation, what it cost (captures, captures skipped as unchanged, model calls and tokens) and its \
            history. Without wait_id, every live wait.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "wait_id": {"type": "string", "description": "One wait's id; leave out to list every live wait"}
                },
                "additionalProperties": false
            })
        },
    },
    // ---- terminal sessions ----
    Tool {
        name: "term_start",
        description: "Run a command in a terminal session that lookout owns, so it keeps running in the \
            background while you do other work (it survives your disconnects, not a daemon restart). \
            Use it for long builds, test suites, deploys, servers and interactive programs, then hand the \
            waiting to smart_wait with target \"pty:<session_id>\" (e.g. wake_when: \"'BUILD SUCCESSFUL' \
            is printed or the command exits\") instead of polling. command is either an array \
            [program, arg, …], run directly with no shell (use it for arguments you did not write), or one \
            string, run by /bin/sh -c (pipes, &&, redirections, globs). The program sees a real terminal \
            (default 120x40, TERM=xterm-256color). Returns session_id and pid. Output is kept in memory \
            only; at most 64 sessions run at once.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "command": {
                        "oneOf": [
                            {"type": "string", "minLength": 1},
                            {"type": "array", "items": {"type": "string"}, "minItems": 1}
                        ],
                        "description": "What to run: an argv array run without a shell, e.g. [\"cargo\", \"build\", \"--release\"], or one string run by /bin/sh -c, e.g. \"make -j8 2>&1 | tee build.log\""
                    },
                    "cwd": {"type": "string", "description": "Absolute path of the working directory. Default: the daemon's"},
                    "env": {"type": "object", "additionalProperties": {"type": "string"},
                            "description": "Environment variables to set on top of the daemon's, e.g. {\"RUST_LOG\": \"debug\"}"},
                    "cols": {"type": "integer", "minimum": 20, "maximum": 300, "description": "Terminal width in columns. Default: 120"},
                    "rows": {"type": "integer", "minimum": 5, "maximum": 100, "description": "Terminal height in rows. Default: 40"}
                },
                "required": ["command"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "term_send",
        description: "Type into a terminal session started with term_start: text is typed exactly as \
            given (no Enter is added), then keys are pressed in order. Use it to answer prompts, drive a \
            REPL or a full-screen program, or interrupt with Ctrl-C. Key names: Enter, Tab, BackTab, \
            Escape, Backspace, Delete, Insert, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, \
            F1-F12, Ctrl-<letter> (Ctrl-C, Ctrl-D, Ctrl-Z, …). Read the result with term_read.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "session_id": {"type": "string", "description": "The session's id from term_start, e.g. s-4k9x2m"},
                    "text": {"type": "string", "description": "Text to type as is, e.g. \"yes\"; add keys: [\"Enter\"] to submit it"},
                    "keys": {"type": "array", "items": {"type": "string"}, "maxItems": 256,
                             "description": "Keys to press after the text, in order, e.g. [\"Enter\"], [\"Ctrl-C\"], [\"Down\", \"Down\", \"Enter\"]"}
                },
                "required": ["session_id"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "term_read",
        description: "Read a terminal session: its screen as it looks now, the newest scrollback lines \
            above it, and whether its program still runs or how it ended (exit_code or exit_signal). The \
            screen is rendered like a real terminal, so progress bars redrawn with \\r and full-screen \
            programs read as what they show. The session keeps its last 1000 scrollback lines; lines says \
            how many to return. Ended sessions stay readable (the last 32).",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "session_id": {"type": "string", "description": "The session's id from term_start, e.g. s-4k9x2m"},
                    "lines": {"type": "integer", "minimum": 0, "maximum": 1000, "description": "Scrollback lines to return above the screen. Default: 50"}
                },
                "required": ["session_id"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "term_stop",
        description: "Stop a terminal session's program with a signal: TERM (the default: ask it to \
            finish), INT (like Ctrl-C), HUP (like closing the terminal) or KILL (cannot be ignored). The \
            signal goes to the program and to the terminal's foreground job. Waits up to 3 s and says \
            whether and how it ended; its last screen stays readable with term_read.",
        input_schema: || {
            json!({
                "type": "object",
                "properties": {
                    "session_id": {"type": "string", "description": "The session's id from term_start, e.g. s-4k9x2m"},
                    "signal": {"type": "string", "enum": ["TERM", "INT", "HUP", "KILL"], "description": "The signal to send. Default: TERM"}
                },
                "required": ["session_id"],
                "additionalProperties": false
            })
        },
    },
    // ---- end of terminal sessions ----
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_with_described_properties() {
        for tool in tools() {
            let schema = (tool.input_schema)();
            assert_eq!(schema["type"], "object", "{}", tool.name);
            assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
            for (name, spec) in schema["properties"].as_object().unwrap() {
                assert!(
                    spec["description"].is_string(),
                    "{}.{name} lacks a description",
                    tool.name
                );
            }
            assert!(
                tool.description.len() > 80,
                "{} needs a real description",
                tool.name
            );
        }
    }

    #[test]
    /// `LOOKOUT_WRITE_README=1 cargo test -p lookout readme` rewrites the table.
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
            "the README's tool table drifted from the catalogue; LOOKOUT_WRITE_README=1 cargo test -p lookout readme rewrites it"
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

    #[test]
    fn the_key_names_term_send_lists_are_all_accepted() {
        let description = find("term_send").unwrap().description;
        let names = description
            .split("Key names: ")
            .nth(1)
            .and_then(|rest| rest.split(" (").next())
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
