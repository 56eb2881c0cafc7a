//! Agent-runtime hooks. `lookout hook session-start` is Claude Code's `SessionStart` hook
//! (matcher `compact`): it prints where each active task stands, bounded to a few KiB, and
//! Claude Code adds that to the freshly compacted context so the agent knows where it was.
//!
//! Claude Code passes the hook a JSON object on stdin (`session_id`, `cwd`, `source`): the
//! tasks registered from that session come first, then those of the same folder, so they
//! are the ones kept when the byte budget runs out. With no stdin it lists by recency.
//!
//! It never fails the session: without a daemon it prints one line saying so.

use std::io::{IsTerminal, Read};
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::client::{Client, ClientError};

/// The default bound on what the hook prints.
pub const DEFAULT_MAX_BYTES: usize = 4096;
/// The smallest bound accepted: the header, one shortened task and the footer fit in it.
pub const MIN_MAX_BYTES: usize = 512;
/// One task's block is cut to this, so one huge plan cannot crowd out the other tasks.
const MAX_TASK_BYTES: usize = 1024;
/// Most active tasks listed before the budget is spent anyway.
const TASKS_LISTED: usize = 100;
/// Room kept for the "…and N more" line.
const FOOTER_RESERVE: usize = 120;

const HEADER: &str = "[lookout] Your active tasks, from lookout's task memory. Continue where \
    each stands: report progress with task_update, and call task_update with a query for details.";

/// The most of stdin the hook reads, and how long it waits for it.
const MAX_INPUT_BYTES: u64 = 64 * 1024;
const INPUT_WAIT: Duration = Duration::from_secs(2);

/// What Claude Code tells a SessionStart hook on stdin.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
pub struct SessionStartInput {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    /// `startup`, `resume`, `clear` or `compact`.
    #[serde(default)]
    pub source: Option<String>,
}

impl SessionStartInput {
    /// The input, when stdin is a pipe carrying a JSON object; `None` otherwise (a terminal,
    /// nothing, or not JSON), and the hook then behaves as without it.
    pub async fn from_stdin() -> Option<Self> {
        if std::io::stdin().is_terminal() {
            return None;
        }
        // A thread of its own: a writer that never closes stdin must not hold the hook.
        let (sender, received) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::stdin()
                .take(MAX_INPUT_BYTES)
                .read_to_string(&mut text);
            let _ = sender.send(text);
        });
        let text = tokio::time::timeout(INPUT_WAIT, received)
            .await
            .ok()?
            .ok()?;
        Self::parse(&text)
    }

    pub fn parse(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }

    /// 0 for a task of this session, 1 for one of this folder, 2 for the rest.
    fn rank(&self, task: &Value) -> u8 {
        let origin = &task["origin"];
        let same = |key: &str, mine: &Option<String>| {
            mine.as_deref()
                .is_some_and(|mine| origin[key].as_str() == Some(mine))
        };
        if same("session_id", &self.session_id) {
            0
        } else if same("cwd", &self.cwd) {
            1
        } else {
            2
        }
    }
}

/// The context text for a session start, at most `max_bytes` long, ending in a newline.
/// With `input`, that session's tasks come first.
pub async fn session_start(
    socket: &Path,
    max_bytes: usize,
    input: Option<&SessionStartInput>,
) -> String {
    let max_bytes = max_bytes.max(MIN_MAX_BYTES);
    let mut text = match read_tasks(socket, max_bytes, input).await {
        Ok(text) => text,
        Err(error) => cut(
            &format!("[lookout] Task memory is unavailable: {error}"),
            max_bytes - 1,
        ),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

async fn read_tasks(
    socket: &Path,
    max_bytes: usize,
    input: Option<&SessionStartInput>,
) -> Result<String, ClientError> {
    let mut client = Client::connect(socket).await?;
    let listing = match client
        .call(
            "task_list",
            json!({"status": "active", "limit": TASKS_LISTED}),
        )
        .await?
    {
        Ok(listing) => listing,
        Err(error) => {
            return Ok(cut(
                &format!(
                    "[lookout] Cannot list your tasks: {} ({})",
                    error.message, error.hint
                ),
                max_bytes - 1,
            ));
        }
    };
    // Each task with its rank (this session, this folder, the rest), ranked once; the sort
    // is stable, so the most recently updated come first within each rank.
    let mut tasks: Vec<(u8, Value)> = listing["tasks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|task| (input.map_or(2, |input| input.rank(&task)), task))
        .collect();
    tasks.sort_by_key(|(rank, _)| *rank);
    if tasks.is_empty() {
        return Ok(
            "[lookout] No active tasks. Register multi-step work with task_register.".into(),
        );
    }
    let mut context = BoundedContext::new(max_bytes);
    for (shown, (rank, task)) in tasks.iter().enumerate() {
        let task_id = task["task_id"].as_str().unwrap_or_default();
        let answer = client
            .call(
                "task_update",
                json!({"task_id": task_id, "query": "where am I on this task?"}),
            )
            .await?;
        let block = task_block(task, *rank, answer.as_ref().ok());
        if !context.push(&block) {
            return Ok(context.finish(tasks.len() - shown));
        }
    }
    Ok(context.finish(0))
}

/// `t-7k2m9q "Deploy" (40% done, this session)`, the summary and the next step.
fn task_block(task: &Value, rank: u8, answer: Option<&Value>) -> String {
    let whose = match rank {
        0 => ", this session",
        1 => ", this folder",
        _ => "",
    };
    let mut block = format!(
        "{} \"{}\" ({}% done{whose})",
        task["task_id"].as_str().unwrap_or("?"),
        task["name"].as_str().unwrap_or(""),
        task["progress_pct"].as_u64().unwrap_or(0)
    );
    match answer {
        Some(answer) => {
            for line in [&answer["summary"], &answer["message"]] {
                if let Some(text) = line.as_str().filter(|text| !text.is_empty()) {
                    block.push('\n');
                    block.push_str(text);
                }
            }
            for line in inventory_lines(&answer["inventory"]) {
                block.push_str("\n- ");
                block.push_str(&line);
            }
        }
        None => block.push_str("\n(could not read its summary; ask task_update with a query)"),
    }
    block
}

/// One line per wait still watching and session still running, each with the call that
/// continues it: a fresh session must not start them again.
fn inventory_lines(inventory: &Value) -> Vec<String> {
    let text = |value: &Value, key: &str| value[key].as_str().unwrap_or("").to_owned();
    let step = |value: &Value| {
        value["step"]
            .as_u64()
            .map_or_else(String::new, |step| format!(" for step {step}"))
    };
    let mut lines = Vec::new();
    for wait in inventory["waits"].as_array().into_iter().flatten() {
        let last = wait["last_observation"]
            .as_str()
            .map_or_else(String::new, |seen| format!(", last seen: {seen}"));
        lines.push(format!(
            "still watching{}: {} on {} until {} ({}s so far{last}) → {}",
            step(wait),
            text(wait, "wait_id"),
            text(wait, "target"),
            text(wait, "wake_when"),
            wait["running_for_s"].as_u64().unwrap_or(0),
            text(wait, "continue"),
        ));
    }
    for session in inventory["sessions"].as_array().into_iter().flatten() {
        let last = session["last_line"]
            .as_str()
            .map_or_else(String::new, |line| format!(", last line: {line}"));
        lines.push(format!(
            "still running{}: {} `{}` ({}s so far{last}) → {}",
            step(session),
            text(session, "session_id"),
            text(session, "command"),
            session["running_for_s"].as_u64().unwrap_or(0),
            text(session, "continue"),
        ));
    }
    for wake in inventory["wakes_not_taken"]
        .as_array()
        .into_iter()
        .flatten()
    {
        lines.push(format!(
            "wake not taken ({}s ago): {} → {}",
            wake["ago_s"].as_u64().unwrap_or(0),
            text(wake, "text"),
            text(wake, "continue"),
        ));
    }
    lines
}

/// Text built block by block that never grows past its bound.
pub struct BoundedContext {
    text: String,
    max_bytes: usize,
}

impl BoundedContext {
    pub fn new(max_bytes: usize) -> Self {
        let max_bytes = max_bytes.max(MIN_MAX_BYTES);
        Self {
            text: cut(HEADER, max_bytes - FOOTER_RESERVE),
            max_bytes,
        }
    }

    /// Adds a task's block (cut to its own bound); false when it no longer fits.
    pub fn push(&mut self, block: &str) -> bool {
        let room = self.max_bytes - FOOTER_RESERVE - self.text.len();
        let block = cut(block, MAX_TASK_BYTES.min(room.saturating_sub(2)));
        // A block cut to almost nothing helps nobody: better the footer's pointer to task_list.
        if block.len() < 64 || self.text.len() + 2 + block.len() > self.max_bytes - FOOTER_RESERVE {
            return false;
        }
        self.text.push_str("\n\n");
        self.text.push_str(&block);
        true
    }

    /// The text, with a line about the `left_out` tasks that did not fit.
    pub fn finish(mut self, left_out: usize) -> String {
        if left_out > 0 {
            let plural = if left_out == 1 { "task" } else { "tasks" };
            self.text.push_str(&format!(
                "\n\n…and {left_out} more active {plural}: call task_list to see them."
            ));
        }
        self.text.push('\n');
        self.text
    }
}

/// `text` cut to at most `max_bytes` on a character boundary, ending in "…" when cut.
fn cut(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_owned();
    }
    let ellipsis = "…";
    let mut end = max_bytes.saturating_sub(ellipsis.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{ellipsis}", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_block(index: usize) -> String {
        format!(
            "t-{index:06} \"Migrate the ✓ database {index}\" (40% done)\n{}",
            "Completed steps 1-2 (Build é image, Push to registry). ".repeat(40)
        )
    }

    #[test]
    fn the_context_never_exceeds_its_bound_and_says_what_it_left_out() {
        for max_bytes in [MIN_MAX_BYTES, 1000, DEFAULT_MAX_BYTES, 10_000] {
            let mut context = BoundedContext::new(max_bytes);
            let total = 50;
            let mut shown = 0;
            while shown < total && context.push(&long_block(shown)) {
                shown += 1;
            }
            assert!(shown >= 1, "at least one task fits in {max_bytes} bytes");
            assert!(shown < total);
            let text = context.finish(total - shown);
            assert!(text.len() <= max_bytes, "{} > {max_bytes}", text.len());
            assert!(
                text.contains(&format!(
                    "…and {} more active tasks: call task_list",
                    total - shown
                )),
                "{text}"
            );
            assert!(text.starts_with("[lookout] Your active tasks"));
        }
    }

    #[test]
    fn short_blocks_are_kept_whole() {
        let mut context = BoundedContext::new(DEFAULT_MAX_BYTES);
        let block = "t-1 \"Deploy\" (40% done)\nCompleted step 1 (Build). Currently on step 2 (Push).\nNext: step 2, Push.";
        assert!(context.push(block));
        let text = context.finish(0);
        assert!(text.ends_with(&format!("\n\n{block}\n")), "{text}");
        assert!(!text.contains("more active"));
    }

    #[test]
    fn the_input_ranks_this_sessions_tasks_then_this_folders() {
        let input = SessionStartInput::parse(
            r#"{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"SessionStart","source":"compact"}"#,
        )
        .unwrap();
        assert_eq!(input.source.as_deref(), Some("compact"));
        let task =
            |session: &str, cwd: &str| json!({"origin": {"session_id": session, "cwd": cwd}});
        assert_eq!(input.rank(&task("abc", "/elsewhere")), 0);
        assert_eq!(input.rank(&task("xyz", "/p")), 1);
        assert_eq!(input.rank(&task("xyz", "/q")), 2);
        assert_eq!(input.rank(&json!({"task_id": "t-1"})), 2);
        assert_eq!(SessionStartInput::parse("not json"), None);
    }

    #[test]
    fn cutting_respects_character_boundaries() {
        let text = "✓✓✓✓";
        let short = cut(text, 7);
        assert!(short.len() <= 7, "{short}");
        assert_eq!(short, "✓…");
        assert_eq!(cut("abc", 3), "abc");
    }
}
