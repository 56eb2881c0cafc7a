//! The agent's own past sessions as recall documents (opt-in, `[recall] sources =
//! ["claude-code"]`): Claude Code keeps each session as JSONL under
//! `~/.claude/projects/<project folder>/<session id>.jsonl`. A session becomes one document:
//! its first request as the title; the user's requests, the assistant's answers, the
//! commands it ran and how they ended as the body and steps; the project folder as its app
//! (so `recall forget --app` covers it); and the lookout task it registered, when it did.
//! Everything is redacted with the screen recorder's rules before it is kept. Pure, but for
//! [`scan`] and [`read_tail`], which read the folder. [`SessionLog`] builds the document
//! from what a session said, for OpenClaw's sessions too (`openclaw_sessions`).

use std::path::{Path, PathBuf};

use recall::{Document, Source, Step};
use serde_json::Value;
use storage::Timestamp;

use crate::recall::recorder::privacy::redact;
use crate::words::shorten;

/// Of a long session, the last this many bytes are read.
pub const TAIL_BYTES: u64 = 32 << 20;
/// The body indexed at most, in bytes.
const MAX_BODY_BYTES: usize = 512 * 1024;
/// Steps a result shows at most (the first request, then the last ones).
const MAX_STEPS: usize = 40;
const STEP_CHARS: usize = 200;

/// The sessions under `projects`: each `<project>/<session>.jsonl` with its length.
pub fn scan(projects: &Path) -> Vec<(PathBuf, u64)> {
    let mut found = Vec::new();
    for project in std::fs::read_dir(projects).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(project.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = file.path();
            if path.extension().is_some_and(|ext| ext == "jsonl")
                && let Ok(metadata) = file.metadata()
                && metadata.is_file()
            {
                found.push((path, metadata.len()));
            }
        }
    }
    found.sort();
    found
}

/// The last [`TAIL_BYTES`] of the file, from its first whole line.
pub fn read_tail(path: &Path, length: u64) -> std::io::Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    let start = length.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok(match (start > 0, text.find('\n')) {
        (true, Some(newline)) => text[newline + 1..].to_owned(),
        _ => text,
    })
}

/// The document of the session in `path` whose JSONL is `text`; `None` when it holds no
/// request (a session opened and closed).
pub fn transcript_document(path: &Path, text: &str) -> Option<Document> {
    let session = path.file_stem()?.to_string_lossy().into_owned();
    let project = path
        .parent()
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut log = SessionLog::default();
    for line in text.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue; // a line cut by a crash, or one being written
        };
        let Some(at_ms) = entry["timestamp"]
            .as_str()
            .and_then(Timestamp::parse_rfc3339)
            .map(Timestamp::as_millis)
        else {
            continue;
        };
        for said in said_in(&entry) {
            log.add(at_ms, &said);
        }
    }
    log.into_document(
        format!("transcript:{session}"),
        &format!("Claude Code session {session} in {project}"),
        project,
    )
}

/// What one session said, gathered in order and then made one document: its first request
/// as the title; requests, commands, failures and answers as steps; everything said as the
/// body; the lookout task a `task_register` result named. Shared by every runtime whose
/// sessions are a source (Claude Code's files, OpenClaw's gateway).
pub struct SessionLog {
    body: String,
    steps: Vec<Step>,
    title: Option<String>,
    task_id: Option<String>,
    start_ms: u64,
    end_ms: u64,
}

impl Default for SessionLog {
    fn default() -> Self {
        Self {
            body: String::new(),
            steps: Vec::new(),
            title: None,
            task_id: None,
            start_ms: u64::MAX,
            end_ms: 0,
        }
    }
}

impl SessionLog {
    /// Adds what was said at `at_ms`, redacted with the screen recorder's rules.
    pub fn add(&mut self, at_ms: u64, said: &Said) {
        let said = redact(&said.text()).0;
        if self.task_id.is_none() {
            self.task_id = registered_task(&said);
        }
        if self.body.len() + said.len() < MAX_BODY_BYTES {
            self.body.push_str(&said);
            self.body.push('\n');
        }
        if let Some(step) = said_step(&said) {
            if self.title.is_none() && step.starts_with("Asked: ") {
                self.title = Some(shorten(&step["Asked: ".len()..], 120));
            }
            self.steps.push(Step {
                at_ms,
                text: shorten(&step, STEP_CHARS),
            });
        }
        self.start_ms = self.start_ms.min(at_ms);
        self.end_ms = self.end_ms.max(at_ms);
    }

    /// The session as one document keyed `key`, its summary starting with `described`
    /// ("Claude Code session abc in -home-u-coursefolio") and its project as the app (what
    /// `recall forget --app` names); `None` when no request was said.
    pub fn into_document(self, key: String, described: &str, project: String) -> Option<Document> {
        let title = self.title?;
        let mut steps = self.steps;
        if steps.len() > MAX_STEPS {
            steps.drain(1..steps.len() - (MAX_STEPS - 1));
        }
        let requests = steps
            .iter()
            .filter(|s| s.text.starts_with("Asked: "))
            .count();
        let commands = steps.iter().filter(|s| s.text.starts_with("Ran: ")).count();
        Some(Document {
            key,
            source: Source::Transcript,
            task_id: self.task_id,
            summary: format!(
                "{described}: {}, {}; first: \"{}\".",
                crate::words::count(requests as u64, "request", None),
                crate::words::count(commands as u64, "command", None),
                shorten(&title, 100)
            ),
            title,
            body: self.body,
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            steps,
            app: Some(project),
            step: None,
            frames: Vec::new(),
        })
    }
}

/// What one entry of a session says, in words.
pub enum Said {
    Request(String),
    /// A turn the runtime started, not the user: a monitor's event (a lookout wake), a
    /// command's output, a reminder. Searched, but not a step.
    Notice(String),
    Answer(String),
    Command(String),
    ToolUse(String, String),
    Result {
        text: String,
        error: bool,
    },
}

impl Said {
    /// A user's text as a request, or as a notice when the runtime said it: a turn it
    /// started (a wake, a command's output, a reminder) is wrapped in a tag.
    pub fn from_user(text: String) -> Said {
        if text.starts_with('<') {
            Said::Notice(text)
        } else {
            Said::Request(text)
        }
    }

    /// A tool call `block` made with `input`: the command it ran, when it ran one (`Bash`,
    /// `exec`), else the tool's name and its input.
    pub fn tool_call(block: &Value, input: &Value) -> Said {
        match input["command"].as_str() {
            Some(command) => Said::Command(command.to_owned()),
            None => Said::ToolUse(
                block["name"].as_str().unwrap_or("a tool").to_owned(),
                input.to_string(),
            ),
        }
    }

    /// Whether nothing was said (an empty text).
    pub fn is_empty(&self) -> bool {
        matches!(self, Said::Request(t) | Said::Notice(t) | Said::Answer(t) if t.is_empty())
    }

    fn text(&self) -> String {
        match self {
            Said::Request(text) => format!("Asked: {text}"),
            Said::Notice(text) => format!("Told: {text}"),
            Said::Answer(text) => format!("Answered: {text}"),
            Said::Command(command) => format!("Ran: {command}"),
            Said::ToolUse(tool, input) => format!("Used {tool}: {input}"),
            Said::Result { text, error: true } => format!("Failed: {text}"),
            Said::Result { text, .. } => format!("Result: {text}"),
        }
    }
}

/// A user turn of `entry` saying `text`: a request when the user said it; a notice when it
/// is a meta line, a subagent's, or a turn the runtime started (Claude Code marks those with
/// an `origin` other than `human`: `task-notification` for a monitor's event; older
/// versions wrap them in a tag such as `<task-notification>` or `<command-name>`).
fn user_said(entry: &Value, text: String) -> Said {
    let origin = entry["origin"]["kind"].as_str();
    if entry["isMeta"] != true
        && entry["isSidechain"] != true
        && origin.is_none_or(|kind| kind == "human")
    {
        Said::from_user(text)
    } else {
        Said::Notice(text)
    }
}

/// The request, answers, tool calls and results of one line.
fn said_in(entry: &Value) -> Vec<Said> {
    let role = entry["type"].as_str().unwrap_or_default();
    let content = &entry["message"]["content"];
    let mut said = Vec::new();
    if let Some(text) = content.as_str() {
        if role == "user" {
            said.push(user_said(entry, text.trim().to_owned()));
        } else if role == "assistant" {
            said.push(Said::Answer(text.trim().to_owned()));
        }
        return said;
    }
    for block in content.as_array().into_iter().flatten() {
        match (role, block["type"].as_str().unwrap_or_default()) {
            ("user", "text") => said.push(user_said(entry, text_of(&block["text"]))),
            ("assistant", "text") => said.push(Said::Answer(text_of(&block["text"]))),
            ("assistant", "tool_use") => said.push(Said::tool_call(block, &block["input"])),
            ("user", "tool_result") => said.push(Said::Result {
                text: text_of(&block["content"]),
                error: block["is_error"].as_bool().unwrap_or(false),
            }),
            _ => {}
        }
    }
    said.retain(|s| !s.is_empty());
    said
}

/// A text field, or the texts of a list of blocks, joined.
pub fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.trim().to_owned(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_owned(),
        _ => String::new(),
    }
}

/// A step of what was said: requests, commands, failures and answers, on one line; tool
/// results that went well are in the body only.
fn said_step(said: &str) -> Option<String> {
    let line = said.replace('\n', " ");
    ["Asked: ", "Ran: ", "Failed: ", "Answered: "]
        .iter()
        .any(|kind| line.starts_with(kind))
        .then_some(line)
}

/// The lookout task a `task_register` result names (`"task_id": "t-…"`).
fn registered_task(text: &str) -> Option<String> {
    let at = text.find("\"task_id\"")?;
    let rest = &text[at + "\"task_id\"".len()..];
    let start = rest.find("\"t-")? + 1;
    let id: String = rest[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    (id.len() > 2).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = r#"{"type":"user","message":{"role":"user","content":"deploy coursefolio to staging"},"timestamp":"2026-11-20T10:00:00.000Z","sessionId":"abc"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I'll register a task first."},{"type":"tool_use","id":"tu1","name":"mcp__lookout__task_register","input":{"name":"Deploy coursefolio","plan":["Build","Ship"]}}]},"timestamp":"2026-11-20T10:00:05.000Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":[{"type":"text","text":"{\"task_id\": \"t-9x8y7z\", \"message\": \"registered\"}"}]}]},"timestamp":"2026-11-20T10:00:06.000Z"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"tu2","name":"Bash","input":{"command":"OPENAI_API_KEY=sk-proj-Zq4abcdefghijklmnopqrstuvwx1234 make deploy"}}]},"timestamp":"2026-11-20T10:01:00.000Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu2","content":"make: *** [deploy] Error 2","is_error":true}]},"timestamp":"2026-11-20T10:02:00.000Z"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"The deploy failed: the staging host refused the key."}]},"timestamp":"2026-11-20T10:02:30.000Z"}
{"type":"user","origin":{"kind":"task-notification","producer":"session-task"},"message":{"role":"user","content":"<task-notification>\n<summary>Monitor event: \"lookout wakes\"</summary>\n<event>smart_wait resolved (w-1): DEPLOYED</event>"},"timestamp":"2026-11-20T10:02:20.000Z"}
{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>"},"timestamp":"2026-11-20T10:02:25.000Z"}
{"type":"user","message":{"role":"user","content":"try agai"#;

    #[test]
    fn a_session_becomes_one_redacted_document_tied_to_its_task() {
        let path = Path::new("/home/u/.claude/projects/-home-u-coursefolio/abc.jsonl");
        let document = transcript_document(path, SESSION).unwrap();
        assert_eq!(document.key, "transcript:abc");
        assert_eq!(document.source, Source::Transcript);
        assert_eq!(document.title, "deploy coursefolio to staging");
        assert_eq!(document.task_id.as_deref(), Some("t-9x8y7z"));
        assert_eq!(document.app.as_deref(), Some("-home-u-coursefolio"));
        let steps: Vec<&str> = document.steps.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(steps[0], "Asked: deploy coursefolio to staging");
        assert!(steps.iter().any(|s| s.starts_with("Ran: OPENAI_API_KEY=")));
        assert!(
            steps.contains(&"Failed: make: *** [deploy] Error 2"),
            "{steps:?}"
        );
        assert!(!document.body.contains("sk-proj-Zq4"), "{}", document.body);
        assert!(
            document.summary.contains("1 request, 1 command"),
            "{}",
            document.summary
        );
        // What the runtime said (a monitor's event, a command) is searched, not a request.
        assert!(
            document
                .body
                .contains("smart_wait resolved (w-1): DEPLOYED")
        );
        assert_eq!(
            steps.iter().filter(|s| s.starts_with("Asked: ")).count(),
            1,
            "{steps:?}"
        );
        // The last line, cut while it was written, is left for the next read.
        assert!(!document.body.contains("try agai"));
        assert_eq!(document.end_ms - document.start_ms, 150_000);
    }

    #[test]
    fn a_session_without_a_request_is_not_a_document() {
        let text = r#"{"type":"summary","summary":"x","leafUuid":"u"}"#;
        assert!(transcript_document(Path::new("/p/x/s.jsonl"), text).is_none());
    }
}
