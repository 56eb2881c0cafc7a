//! The tool catalogue: every tool's name, description and JSON Schema, in one place.
//!
//! `tools.list` serves it, the parameter errors quote it, and the MCP server and the
//! function-tool export are generated from it. The descriptions are written for the agent
//! that will call the tools: when to use each one and what it gets back.

use serde_json::{Value, json};

use crate::tools::spine::Method;

mod memory;
mod tasks;
mod terminals;
mod waits;

use memory::MEMORY_RECALL;
use tasks::{TASK_GET, TASK_LIST, TASK_PLAN_UPDATE, TASK_REGISTER, TASK_THREAD, TASK_UPDATE};
use terminals::{TERM_READ, TERM_SEND, TERM_START, TERM_STOP};
#[cfg(test)]
use waits::SMART_WAIT_TARGET_DESCRIPTION;
use waits::{SMART_WAIT, WAIT_CANCEL, WAIT_STATUS, WAIT_UPDATE};

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
    Method::tools().filter_map(entry)
}

/// The tool called `name`, if it is one (the daemon's own methods are not tools).
pub fn find(name: &str) -> Option<&'static Tool> {
    Method::named(name).and_then(entry)
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

/// The tool's catalogue entry; `None` for the daemon's own methods, which agents do not
/// see as tools.
pub fn entry(method: Method) -> Option<&'static Tool> {
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

/// The target kinds a text writes as `kind:<…>`, for the tests that tie texts to
/// `actors::sight::target::KINDS`.
#[cfg(test)]
pub(crate) fn target_kinds_named(text: &str) -> Vec<String> {
    let pieces: Vec<&str> = text.split(":<").collect();
    pieces[..pieces.len() - 1]
        .iter()
        .map(|before| {
            let kind: String = before
                .chars()
                .rev()
                .take_while(char::is_ascii_lowercase)
                .collect();
            kind.chars().rev().collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_texts_name_every_kind_and_no_other() {
        use actors::sight::target::KINDS;
        let known: Vec<&str> = KINDS.iter().map(|(kind, _)| *kind).collect();
        let target = SMART_WAIT_TARGET_DESCRIPTION;
        for (kind, _) in KINDS {
            assert!(target.contains(kind), "smart_wait's target names no {kind}");
        }
        for tool in tools() {
            let text = format!("{} {}", tool.description, (tool.input_schema)());
            for kind in target_kinds_named(&text) {
                assert!(
                    known.contains(&kind.as_str()),
                    "{kind}: is no target kind: {text}"
                );
            }
        }
        assert_eq!(
            target_kinds_named("on pty:<id> or file:<p>"),
            ["pty", "file"]
        );
    }

    #[test]
    fn each_tool_entry_belongs_to_its_method_and_only_tools_have_one() {
        for &method in Method::ALL {
            assert_eq!(entry(method).is_some(), method.is_tool(), "{method}");
            if let Some(tool) = entry(method) {
                assert_eq!(tool.method, method, "{method}'s entry is another tool's");
                assert_eq!(tool.name(), method.name());
            }
        }
    }

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
            "<!-- tools:begin (generated from src/tools/catalogue/; a test keeps it equal) -->\n";
        let start = readme
            .find(begin)
            .expect("README has the tools:begin marker")
            + begin.len();
        let end = readme
            .find("<!-- tools:end -->")
            .expect("README has the tools:end marker");
        if crate::config::environment::is_set("LOOKOUT_WRITE_README") {
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
            crate::tools::export::tool_definitions(crate::tools::export::ToolFormat::OpenAi, false)
                .unwrap();
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
