//! Hints as commands. The daemon's texts say what to call next in the tools' call syntax
//! (`task_list(status: "all")`), which is what an agent types; on a terminal the CLI names
//! the command a person types instead (`lookout task list --status all`). A call whose
//! arguments cannot be read exactly (a placeholder like `…`) is left as it is.

use actors::terminals::types::quote;
use serde_json::{Map, Value};

use crate::tools::spine::Method;

/// `text` with every tool call in it written as the command that does the same.
pub fn as_commands(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, name, args, after)) = next_call(rest) {
        out.push_str(before);
        match command_for(name, args) {
            Some(command) => out.push_str(&command),
            None => out.push_str(&rest[before.len()..rest.len() - after.len()]),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The first `tool(…)` in `text`: what precedes it, the tool's name, the text between the
/// parentheses, and what follows.
fn next_call(text: &str) -> Option<(&str, &str, &str, &str)> {
    let mut from = 0;
    while let Some(open) = text[from..].find('(').map(|at| at + from) {
        let start = text[..open]
            .rfind(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .map_or(0, |at| at + 1);
        let name = &text[start..open];
        let is_tool = Method::named(name).is_some_and(Method::is_tool);
        if let (true, Some(close)) = (is_tool, closing(&text[open + 1..])) {
            let args = &text[open + 1..open + 1 + close];
            return Some((&text[..start], name, args, &text[open + 2 + close..]));
        }
        from = open + 1;
    }
    None
}

/// Where the `)` closing a call's arguments is, outside quoted strings.
fn closing(text: &str) -> Option<usize> {
    let mut quoted = false;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ')' if !quoted => return Some(at),
            _ => {}
        }
    }
    None
}

/// `key: value, key: value` as JSON values; `None` when a value is not exact JSON.
fn arguments(text: &str) -> Option<Map<String, Value>> {
    let mut found = Map::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once(':')?;
        let key = key.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            return None;
        }
        let after = after.trim_start();
        let mut stream = serde_json::Deserializer::from_str(after).into_iter::<Value>();
        let value = stream.next()?.ok()?;
        let used = stream.byte_offset();
        found.insert(key.to_owned(), value);
        rest = after[used..].trim_start();
        rest = match rest.strip_prefix(',') {
            Some(more) => more.trim_start(),
            None if rest.is_empty() => rest,
            None => return None,
        };
    }
    Some(found)
}

/// The command that makes the call, or `None` to leave the call as written.
fn command_for(name: &str, args: &str) -> Option<String> {
    let mut args = arguments(args)?;
    let task = |args: &mut Map<String, Value>| {
        args.remove("task_id")
            .map_or_else(|| "<task_id>".to_owned(), |id| word(&id))
    };
    let mut command = match name {
        "task_list" => "lookout task list".to_owned(),
        "task_get" => format!("lookout task show {}", task(&mut args)),
        "task_thread" => format!("lookout task thread {}", task(&mut args)),
        "task_update" => format!("lookout task update {}", task(&mut args)),
        "memory_recall" => format!("lookout recall {}", word(&args.remove("query")?)),
        _ => {
            let params = Value::Object(args).to_string();
            return Some(format!("lookout call {name} {}", quote(&params)));
        }
    };
    for (key, value) in args {
        let flag = match (name, key.as_str()) {
            ("task_update", "message") => "--message",
            ("task_update", "status") | ("task_list", "status") => "--status",
            ("task_update", "query") => "--query",
            ("task_update", "current_step") => "--current",
            ("task_list", "cursor") => "--cursor",
            ("task_thread", "before") => "--before",
            (_, "limit") => "--limit",
            // A parameter the command has no flag for: the generic call says it exactly.
            _ => return None,
        };
        command.push_str(&format!(" {flag} {}", word(&value)));
    }
    Some(command)
}

/// A value as one shell word.
fn word(value: &Value) -> String {
    match value {
        Value::String(text) => quote(text),
        other => quote(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_become_the_commands_that_make_them() {
        for (text, expected) in [
            (
                "none active; task_list(status: \"all\") lists every task.",
                "none active; lookout task list --status all lists every task.",
            ),
            (
                "older ones: task_thread(task_id: \"t-7k2m9q\", before: 12)",
                "older ones: lookout task thread t-7k2m9q --before 12",
            ),
            (
                "task_get(task_id: \"t-7k2m9q\") shows it whole",
                "lookout task show t-7k2m9q shows it whole",
            ),
            (
                "then task_update(status: \"completed\").",
                "then lookout task update <task_id> --status completed.",
            ),
            (
                "task_update(task_id: \"t-1\", query: \"where am I?\")",
                "lookout task update t-1 --query 'where am I?'",
            ),
            (
                "wait_status(wait_id: \"w-4hx8q2\") says how it ended",
                "lookout call wait_status '{\"wait_id\":\"w-4hx8q2\"}' says how it ended",
            ),
        ] {
            assert_eq!(as_commands(text), expected, "{text}");
        }
    }

    #[test]
    fn what_cannot_be_read_exactly_is_left_as_written() {
        for text in [
            "wait_update(wait_id: \"w-1\", timeout: …) extends it",
            "a parenthesis (like this) is not a call",
            "task_update(completed_steps: [2])",
            "unclosed task_list(status: \"all\"",
            "not_a_tool(x: 1)",
        ] {
            assert_eq!(as_commands(text), text);
        }
    }
}
