//! The agent's own OpenClaw exec sessions, read from the gateway's task ledger.
//!
//! When an OpenClaw agent backgrounds a command with its `exec` tool, the gateway gives it a
//! session id (`crisp-ridge`) and records a task in its ledger: `kind: "exec"`, `sourceId` the
//! session id, `status` `running` until the command ends, then `succeeded` (`completed` in lists), `failed` (its
//! `error` says `Command failed (exit code N)`), `timed_out` or `cancelled`. `tasks.list` and
//! `tasks.get` read that ledger with the gateway token alone (`operator.read`): no tool
//! policy to allow, and nothing the agent would read is consumed.
//!
//! What the ledger does not hold is the command's output: the gateway keeps it in memory for
//! its `process` tool, which it builds only for the agent's own runs (not for `/tools/invoke`
//! or `tools.invoke`, whatever `gateway.tools.allow` says; checked on OpenClaw 2026.9.6). So
//! lookout sees an exec session's state and exit status, not what it prints.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::openclaw::client::{GatewayClient, GatewayError};

/// The ledger's `kind` of a backgrounded exec command.
const EXEC_KIND: &str = "exec";

/// How many ledger entries one lookup reads (the gateway's maximum page).
const LEDGER_PAGE: u64 = 500;

/// One exec session, as the ledger describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecSession {
    /// The id the agent got from `exec`: `crisp-ridge`.
    pub session_id: String,
    /// The ledger's id for it, for `tasks.get`.
    pub task_id: String,
    /// The command, as the ledger titles it (shortened by the gateway to 80 characters).
    pub command: String,
    pub state: ExecState,
    /// When it started and when its output last changed (ms since the epoch), when known.
    pub started_ms: Option<u64>,
    pub last_activity_ms: Option<u64>,
}

/// Where an exec session stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecState {
    Running,
    /// The command exited with this status.
    Exited(i32),
    /// It ended without an exit status: timed out, cancelled, lost. The gateway's words.
    Ended(String),
}

impl ExecSession {
    /// A ledger entry (`tasks.list`'s items, `tasks.get`'s `task`), when it is an exec
    /// session.
    pub fn from_ledger(task: &Value) -> Option<ExecSession> {
        if task["kind"] != EXEC_KIND {
            return None;
        }
        let session_id = task["sourceId"]
            .as_str()
            .or_else(|| task["runId"].as_str()?.strip_prefix("exec:"))?
            .to_owned();
        let task_id = task["taskId"].as_str().or_else(|| task["id"].as_str())?;
        let command = task["prompt"]
            .as_str()
            .or_else(|| task["title"].as_str())
            .unwrap_or("")
            .to_owned();
        let error = task["error"].as_str().unwrap_or("");
        let state = match task["status"].as_str().unwrap_or("") {
            "queued" | "running" => ExecState::Running,
            // `tasks.get` says `succeeded`, `tasks.list` `completed` (OpenClaw 2026.9.6).
            "succeeded" | "completed" => ExecState::Exited(0),
            "failed" => match exit_code_in(error) {
                Some(code) => ExecState::Exited(code),
                None => ExecState::Ended(non_empty(error, "failed")),
            },
            "timed_out" => ExecState::Ended(non_empty(error, "timed out")),
            "cancelled" => ExecState::Ended(non_empty(error, "cancelled")),
            other => ExecState::Ended(non_empty(error, other)),
        };
        Some(ExecSession {
            session_id,
            task_id: task_id.to_owned(),
            command,
            state,
            started_ms: task["startedAt"].as_u64(),
            last_activity_ms: task["execution"]["lastActivityAt"].as_u64(),
        })
    }

    /// The session the agent calls `session_id` among `sessions` (newest first): a running
    /// one, else the newest with that id (the gateway reuses ids of sessions long gone).
    pub fn chosen<'a>(sessions: &'a [ExecSession], session_id: &str) -> Option<&'a ExecSession> {
        sessions
            .iter()
            .filter(|session| session.session_id == session_id)
            .min_by_key(|session| session.state != ExecState::Running)
    }

    /// "crisp-ridge (`make test`, running)", for lists in errors.
    pub fn describe(&self) -> String {
        let state = match &self.state {
            ExecState::Running => "running".to_owned(),
            ExecState::Exited(code) => format!("exited with status {code}"),
            ExecState::Ended(how) => how.clone(),
        };
        format!("{} (`{}`, {state})", self.session_id, self.command)
    }
}

/// "Command failed (exit code 3)" → 3.
fn exit_code_in(error: &str) -> Option<i32> {
    let rest = &error[error.find("exit code")? + "exit code".len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

fn non_empty(text: &str, otherwise: &str) -> String {
    if text.trim().is_empty() {
        otherwise.to_owned()
    } else {
        text.trim().to_owned()
    }
}

/// Where the daemon reads the agent's OpenClaw exec sessions: the `pty:` ids it does not
/// run itself.
#[derive(Clone, Debug)]
pub enum ExecSessions {
    /// The task ledger of the user's gateway.
    Gateway(ExecLedger),
    /// No gateway was found; `looked` says where the daemon looked, for the agent that
    /// names an exec session anyway.
    NoGateway { looked: String },
}

impl ExecSessions {
    /// No gateway, and none looked for: the runtime's wakes go to sinks attached in-process
    /// (tests, the harness), and the machine's own OpenClaw is left alone.
    pub fn not_looked_for() -> ExecSessions {
        ExecSessions::NoGateway {
            looked: "nowhere: wake sinks are attached in-process".to_owned(),
        }
    }

    /// The gateway's ledger, when there is one.
    pub fn ledger(&self) -> Option<&ExecLedger> {
        match self {
            ExecSessions::Gateway(ledger) => Some(ledger),
            ExecSessions::NoGateway { .. } => None,
        }
    }
}

/// The exec sessions of one gateway.
#[derive(Clone, Debug)]
pub struct ExecLedger {
    client: Arc<GatewayClient>,
}

impl ExecLedger {
    pub fn new(client: Arc<GatewayClient>) -> ExecLedger {
        ExecLedger { client }
    }

    /// The gateway's client (shared with recall, which reads its sessions).
    pub fn client(&self) -> &Arc<GatewayClient> {
        &self.client
    }

    /// Where the gateway is, for messages.
    pub fn url(&self) -> &str {
        self.client.url()
    }

    /// Every exec session the ledger holds, newest first.
    pub async fn sessions(&self) -> Result<Vec<ExecSession>, GatewayError> {
        let payload = self
            .client
            .request("tasks.list", json!({"limit": LEDGER_PAGE}))
            .await
            .map_err(|error| self.explained(error, "tasks.list"))?;
        let mut sessions: Vec<ExecSession> = payload["tasks"]
            .as_array()
            .map(|tasks| tasks.iter().filter_map(ExecSession::from_ledger).collect())
            .unwrap_or_default();
        sessions.sort_by_key(|session| std::cmp::Reverse(session.started_ms));
        Ok(sessions)
    }

    /// The session the agent calls `session_id` ([`ExecSession::chosen`]).
    pub async fn find(&self, session_id: &str) -> Result<Option<ExecSession>, GatewayError> {
        let sessions = self.sessions().await?;
        Ok(ExecSession::chosen(&sessions, session_id).cloned())
    }

    /// The session's current entry, by its ledger id; `None` when the ledger dropped it.
    pub async fn get(&self, task_id: &str) -> Result<Option<ExecSession>, GatewayError> {
        match self
            .client
            .request("tasks.get", json!({"taskId": task_id}))
            .await
        {
            Ok(payload) => Ok(ExecSession::from_ledger(&payload["task"])),
            // `task not found: …`, the gateway's answer for an id its ledger dropped.
            Err(error) if error.refused && error.message.contains("not found") => Ok(None),
            Err(error) => Err(self.explained(error, "tasks.get")),
        }
    }

    /// A refused ledger read says what to change; an unreachable gateway says so as it is.
    fn explained(&self, error: GatewayError, method: &str) -> GatewayError {
        if error.code.is_none() {
            return error;
        }
        GatewayError {
            message: format!(
                "{} when lookout read its task ledger ({method}); lookout needs the gateway \
                 token with the operator.read scope (gateway.auth.token in the OpenClaw config, \
                 or $OPENCLAW_GATEWAY_TOKEN where lookout runs) and OpenClaw 2026.9 or later",
                error.message
            ),
            refused: error.refused,
            code: error.code,
            unreachable: error.unreachable,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Ledger entries as OpenClaw 2026.9.6 gives them for `/bash` and agent `exec` commands.
    #[test]
    fn ledger_entries_become_exec_sessions() {
        let running = json!({
            "id": "a518", "taskId": "a518", "kind": "exec", "runtime": "cli",
            "status": "running", "execution": {"state": "running", "lastActivityAt": 1795626850687u64},
            "title": "make test", "runId": "exec:tidal-otter", "sourceId": "tidal-otter",
            "startedAt": 1795626844653u64, "deliveryStatus": "not_applicable"
        });
        let session = ExecSession::from_ledger(&running).unwrap();
        assert_eq!(session.session_id, "tidal-otter");
        assert_eq!(session.task_id, "a518");
        assert_eq!(session.state, ExecState::Running);
        assert_eq!(session.last_activity_ms, Some(1795626850687));
        assert_eq!(session.describe(), "tidal-otter (`make test`, running)");
        let failed = json!({
            "taskId": "7e7b", "kind": "exec", "status": "failed", "sourceId": "oceanic-lobster",
            "error": "Command failed (exit code 3)", "prompt": "bash build.sh", "title": "bash b…"
        });
        let session = ExecSession::from_ledger(&failed).unwrap();
        assert_eq!(session.state, ExecState::Exited(3));
        assert_eq!(session.command, "bash build.sh");
        let succeeded =
            json!({"taskId": "1", "kind": "exec", "status": "succeeded", "sourceId": "a-b"});
        assert_eq!(
            ExecSession::from_ledger(&succeeded).unwrap().state,
            ExecState::Exited(0)
        );
        let timed_out = json!({"taskId": "2", "kind": "exec", "status": "timed_out", "sourceId": "c-d", "error": "Command timed out"});
        assert_eq!(
            ExecSession::from_ledger(&timed_out).unwrap().state,
            ExecState::Ended("Command timed out".into())
        );
        // Not an exec: a subagent or an automation run.
        let subagent = json!({"taskId": "3", "kind": "subagent", "status": "running"});
        assert_eq!(ExecSession::from_ledger(&subagent), None);
    }
}
