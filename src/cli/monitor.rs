//! `lookout monitor`: the wakes of one agent session, one line each and nothing else on
//! stdout, for a runtime that turns every line a command prints into a new turn of that
//! session (Claude Code's plugin monitors).
//!
//! It never ends on its own — such a runtime does not start a monitor again — so it waits
//! for a daemon that is not up yet and reconnects after a restart, and the events stored
//! while it was away come first (`subscription::listen` names the last one it heard). A wake
//! belongs to the session by the rules of the bridge's channel: its `session_key` is one of
//! the session's keys (`lookout mcp` stamps `claude-code:<session id>` on the waits and tasks
//! it makes), or its task was registered from this Claude Code session (the task's
//! `origin`). Banners and trouble go to stderr.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use actors::wake::event::{claude_code_session_key, event_seq};
use actors::{Clock, SystemClock};
use serde_json::{Value, json};

use crate::cli::{EXIT_CALL_FAILED, EXIT_USAGE, fail};
use crate::client::Client;
use crate::client::subscription::{Heard, Patience, listen_since, reconnect};
use crate::tools::spine::Method;

/// Who the monitor speaks for.
#[derive(Clone, Debug, Default)]
pub struct MonitoredSession {
    /// Session keys whose events are this session's (`--session`, `claude-code:<id>`).
    pub keys: Vec<String>,
    /// Claude Code's session id, to adopt tasks registered from this session.
    pub claude_session_id: Option<String>,
}

impl MonitoredSession {
    /// `--session` keys, and the Claude Code session the monitor runs in (Claude Code gives
    /// its plugin monitors `CLAUDE_CODE_SESSION_ID`).
    pub fn new(keys: Vec<String>, claude_session_id: Option<String>) -> Self {
        let mut keys = keys;
        if let Some(id) = &claude_session_id {
            keys.push(claude_code_session_key(id));
        }
        Self {
            keys,
            claude_session_id,
        }
    }
}

/// How a wake text is printed on one line: its line breaks shown, not taken.
pub fn one_line(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join(" ⏎ ")
}

/// `lookout monitor`: prints the session's wakes until stdout closes.
pub async fn monitor(socket: &Path, session: MonitoredSession) -> ExitCode {
    if session.keys.is_empty() {
        return fail(
            "lookout monitor follows one agent session, and none was named: run it from a Claude \
             Code plugin (which sets CLAUDE_CODE_SESSION_ID) or pass --session KEY",
            EXIT_USAGE,
        );
    }
    eprintln!(
        "lookout monitor: following the wakes of {} on {} (waiting for the daemon if it is not up)",
        session.keys.join(", "),
        socket.display()
    );
    let mut owner = Owner::new(session);
    // From the moment the session started it: a wake made before the daemon let the
    // monitor in is still the session's.
    let started = SystemClock::new().now().to_rfc3339();
    let mut heard = listen_since(socket, Patience::Endless, Some(started));
    let mut printed_up_to = 0;
    while let Some(news) = heard.recv().await {
        let event = match news {
            Heard::Event(notification) if notification["method"] == "event" => {
                notification["params"].clone()
            }
            Heard::Event(_) | Heard::Subscribed => continue,
            Heard::Gone(error) => return fail(&error, EXIT_CALL_FAILED),
        };
        let seq = event["id"].as_str().and_then(event_seq).unwrap_or(0);
        if seq != 0 && seq <= printed_up_to {
            continue;
        }
        if !owner.owns(socket, &event).await {
            continue;
        }
        printed_up_to = printed_up_to.max(seq);
        let line = one_line(event["text"].as_str().unwrap_or_default());
        let mut stdout = std::io::stdout().lock();
        if writeln!(stdout, "{line}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            // Whoever read the wakes is gone: so is the reason to follow them.
            return ExitCode::SUCCESS;
        }
    }
    ExitCode::SUCCESS
}

/// Decides which events are the session's, asking the daemon about tasks it has not seen.
struct Owner {
    session: MonitoredSession,
    /// Task id → registered from this Claude Code session.
    tasks: HashMap<String, bool>,
    calls: Option<Client>,
}

impl Owner {
    fn new(session: MonitoredSession) -> Self {
        Self {
            session,
            tasks: HashMap::new(),
            calls: None,
        }
    }

    async fn owns(&mut self, socket: &Path, event: &Value) -> bool {
        if event["session_key"]
            .as_str()
            .is_some_and(|key| self.session.keys.iter().any(|mine| mine == key))
        {
            return true;
        }
        let (Some(task_id), Some(_)) = (
            event["task_id"].as_str(),
            self.session.claude_session_id.as_ref(),
        ) else {
            return false;
        };
        if let Some(mine) = self.tasks.get(task_id) {
            return *mine;
        }
        let Some(origin) = self.origin_of(socket, task_id).await else {
            // Unknown for now (the daemon went away mid-question): ask again next time.
            return false;
        };
        let mine = origin.as_deref() == self.session.claude_session_id.as_deref();
        self.tasks.insert(task_id.to_owned(), mine);
        mine
    }

    /// The Claude Code session a task was registered from (`Some(None)`: none), or `None`
    /// when the daemon could not be asked.
    async fn origin_of(&mut self, socket: &Path, task_id: &str) -> Option<Option<String>> {
        for _ in 0..2 {
            if self.calls.is_none() {
                self.calls = reconnect(socket, Patience::Bounded, || true).await.ok();
            }
            let client = self.calls.as_mut()?;
            match client
                .call(
                    Method::TaskGet.name(),
                    json!({"task_id": task_id, "max_bytes": 4096}),
                )
                .await
            {
                Ok(Ok(task)) => {
                    return Some(task["origin"]["session_id"].as_str().map(str::to_owned));
                }
                // No such task (any more): not this session's.
                Ok(Err(_)) => return Some(None),
                // The connection died with the daemon: one more try on a new one.
                Err(_) => self.calls = None,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wake_text_prints_on_one_line_with_its_breaks_shown() {
        assert_eq!(
            one_line("smart_wait changed (w-1): new output:\nstep 1\nstep 2  \n"),
            "smart_wait changed (w-1): new output: ⏎ step 1 ⏎ step 2"
        );
        assert_eq!(one_line("one line"), "one line");
    }

    #[test]
    fn a_claude_code_session_is_known_by_its_prefixed_key() {
        let session = MonitoredSession::new(vec!["mine".into()], Some("abc".into()));
        assert_eq!(session.keys, ["mine", "claude-code:abc"]);
        assert!(MonitoredSession::new(Vec::new(), None).keys.is_empty());
    }
}
