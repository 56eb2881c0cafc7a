//! `lookout mcp` as an MCP client launches it: the real binary on stdin/stdout, against an
//! in-process daemon.

use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{
    BINARY, TestDaemon, deploy_task, lines_of, stderr_of, wait_until, wait_with_timeout,
};

/// How long one MCP answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

/// A running `lookout mcp` and the JSON lines it writes to stdout.
pub struct McpSession {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl McpSession {
    fn start(socket: &Path) -> McpSession {
        Self::start_with(socket, &[], &[])
    }

    /// `lookout mcp` with more arguments and environment (as Claude Code gives it
    /// `CLAUDE_CODE_SESSION_ID`).
    pub fn start_with(socket: &Path, args: &[&str], env: &[(&str, &str)]) -> McpSession {
        let mut child = Command::new(BINARY)
            .arg("mcp")
            .arg("--socket")
            .arg(socket)
            .args(args)
            .env("LOOKOUT_LOG", "info")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = lines_of(child.stdout.take().unwrap());
        let stdin = child.stdin.take();
        McpSession {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns its response.
    pub fn request(&mut self, method: &str, params: &Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.exchange(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    }

    /// Sends `request` as it is and returns the response with its id; every stdout line
    /// must be JSON-RPC.
    pub fn exchange(&mut self, request: &Value) -> Value {
        self.send(request);
        loop {
            let message = self.next_message(&request["method"]);
            if message["id"] == request["id"] {
                return message;
            }
        }
    }

    /// The next notification the server sends, skipping nothing but answers.
    pub fn next_notification(&mut self) -> Value {
        loop {
            let message = self.next_message(&json!("a notification"));
            if message.get("id").is_none() {
                return message;
            }
        }
    }

    fn next_message(&mut self, awaited: &Value) -> Value {
        let line = self
            .lines
            .recv_timeout(ANSWER_TIMEOUT)
            .unwrap_or_else(|_| panic!("no {awaited} in time: {}", stderr_of(&mut self.child)));
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("stdout carries only JSON-RPC, got {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        message
    }

    pub fn initialize(&mut self) -> Value {
        self.initialize_with("2025-06-18")
    }

    /// The `initialize` handshake, asking for `protocol_version`.
    pub fn initialize_with(&mut self, protocol_version: &str) -> Value {
        let reply = self.request(
            "initialize",
            &json!({"protocolVersion": protocol_version, "capabilities": {},
                   "clientInfo": {"name": "lookout-tests", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        reply
    }

    pub fn call_tool(&mut self, name: &str, arguments: &Value) -> Value {
        let reply = self.request("tools/call", &json!({"name": name, "arguments": arguments}));
        reply["result"].clone()
    }

    /// Closes stdin, as a client does when it is done, and returns the exit status.
    pub fn close(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let status = wait_with_timeout(&mut self.child, ANSWER_TIMEOUT);
        (status, stderr_of(&mut self.child))
    }
}

/// Calls `name` until its result satisfies `check`, and returns that result's structured
/// content. Every call must succeed.
fn call_until(
    session: &mut McpSession,
    name: &str,
    arguments: &Value,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + ANSWER_TIMEOUT;
    loop {
        let result = session.call_tool(name, arguments);
        assert_eq!(result["isError"], false, "{result}");
        let content = &result["structuredContent"];
        if check(content) {
            return content.clone();
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {ANSWER_TIMEOUT:?} waiting for {what}; last: {content}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn text_of(result: &Value) -> &str {
    assert_eq!(result["content"][0]["type"], "text", "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_server_serves_the_catalogue_and_forwards_calls_to_the_daemon() {
    let daemon = TestDaemon::start().await;
    let mut session = McpSession::start(&daemon.socket());

    let initialized = session.initialize();
    let info = &initialized["result"];
    assert_eq!(info["serverInfo"]["name"], "lookout", "{initialized}");
    assert!(info["capabilities"]["tools"].is_object(), "{initialized}");
    assert!(
        info["instructions"]
            .as_str()
            .unwrap()
            .contains("task_register")
    );

    let listed = session.request("tools/list", &json!({}));
    let daemon_tools = daemon.ok("tools.list", json!({})).await;
    assert_eq!(
        listed["result"]["tools"], daemon_tools["tools"],
        "MCP tools are exactly the daemon's tools.list"
    );

    let registered = session.call_tool("task_register", &deploy_task());
    assert_eq!(registered["isError"], false, "{registered}");
    let task_id = registered["structuredContent"]["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let in_text: Value = serde_json::from_str(text_of(&registered)).unwrap();
    assert_eq!(
        in_text, registered["structuredContent"],
        "the text is the JSON result"
    );

    session.call_tool(
        "task_update",
        &json!({"task_id": task_id, "message": "Step 1 done — built and tagged v1.2.3"}),
    );
    let noted = session.call_tool(
        "task_update",
        &json!({"task_id": task_id, "message": "Step 2 done — pushed to ghcr.io/alex/coursefolio:v1.2.3"}),
    );
    assert_eq!(
        noted["structuredContent"]["plan_progress"]["completed"],
        json!([1, 2]),
        "{noted}"
    );
    let answer = session.call_tool(
        "task_update",
        &json!({"task_id": task_id, "query": "where am I on this task?"}),
    );
    let answer: Value = serde_json::from_str(text_of(&answer)).unwrap();
    assert_eq!(
        answer["summary"],
        "Completed steps 1-2 (Build Docker image, Push to registry). Steps 1-2 claimed, none verified. \
         Currently on step 3 (SSH into server). \
         Remaining: Pull and run, Verify. No active waits. No blockers noted."
    );
    assert_eq!(answer["message"], "Next: step 3, SSH into server.");

    let failed = session.call_tool(
        "task_update",
        &json!({"task_id": "t-nothere", "message": "x"}),
    );
    assert_eq!(failed["isError"], true, "{failed}");
    let text = text_of(&failed);
    assert!(text.contains("no task with id 't-nothere'"), "{text}");
    assert!(text.contains("hint: task ids look like t-7k2m9q"), "{text}");
    assert_eq!(failed["structuredContent"]["error"]["code"], -32001);

    let invalid = session.call_tool(
        "task_update",
        &json!({"task_id": task_id, "status": "done-ish"}),
    );
    assert_eq!(invalid["isError"], true);
    assert!(
        text_of(&invalid).contains("hint: status must be one of"),
        "{invalid}"
    );

    let unknown = session.request(
        "tools/call",
        &json!({"name": "task_frobnicate", "arguments": {}}),
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("task_register")
    );

    let (status, stderr) = session.close();
    assert!(status.success(), "{status}: {stderr}");
    assert!(
        stderr.contains("lookout MCP server on stdio"),
        "logs go to stderr: {stderr}"
    );
}

/// The way an agent waits on a long command: `term_start`, then `smart_wait` on its
/// `pty:` target, then the wait resolves on the quoted phrase — all over MCP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_smart_wait_on_a_terminal_session_started_over_mcp_resolves_on_its_phrase() {
    let daemon = TestDaemon::start().await;
    let mut session = McpSession::start(&daemon.socket());
    session.initialize();

    let started = session.call_tool(
        "term_start",
        &json!({"command": "sleep 1; echo 'deploy finished: 3 hosts'; sleep 30"}),
    );
    assert_eq!(started["isError"], false, "{started}");
    let session_id = started["structuredContent"]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(session_id.starts_with("s-"), "{started}");
    let target = format!("pty:{session_id}");

    let waiting = session.call_tool(
        "smart_wait",
        &json!({"target": target, "wake_when": "wake me when 'Deploy finished' is printed",
                "timeout": 60, "poll_interval": 0.2}),
    );
    assert_eq!(waiting["isError"], false, "{waiting}");
    let created = &waiting["structuredContent"];
    let wait_id = created["wait_id"].as_str().unwrap().to_owned();
    assert!(wait_id.starts_with("w-") && wait_id.len() == 8, "{created}");
    assert_eq!(
        created,
        &json!({"wait_id": wait_id, "status": "watching", "target": target,
                "reading": {"all_of": ["'Deploy finished' is printed"],
                            "judged_by": {"'Deploy finished' is printed": "phrase match"}},
                "message": "Monitoring. I'll wake you when: wake me when 'Deploy finished' is printed. \
                            Timeout: 60s. Read as: 'Deploy finished' is printed (phrase match)."})
    );
    let in_text: Value = serde_json::from_str(text_of(&waiting)).unwrap();
    assert_eq!(&in_text, created, "the text is the JSON result");

    let resolved = call_until(
        &mut session,
        "wait_status",
        &json!({"wait_id": wait_id}),
        "the wait to resolve",
        |status| status["status"] != "watching",
    );
    assert_eq!(resolved["status"], "resolved", "{resolved}");
    assert_eq!(resolved["target"], target);
    assert_eq!(resolved["last_observation"], "deploy finished: 3 hosts");
    wait_until("the wake", ANSWER_TIMEOUT, async || {
        !daemon.sink.received().is_empty()
    })
    .await;
    let wakes = daemon.sink.received();
    assert_eq!(wakes.len(), 1, "{wakes:?}");
    assert_eq!(wakes[0].wait_id.as_deref(), Some(wait_id.as_str()));
    assert!(
        wakes[0].text.starts_with(&format!(
            "smart_wait resolved ({wait_id}): deploy finished: 3 hosts. Elapsed: "
        )),
        "{}",
        wakes[0].text
    );

    let read = session.call_tool("term_read", &json!({"session_id": session_id}));
    assert_eq!(read["structuredContent"]["running"], true, "{read}");
    assert!(
        read["structuredContent"]["screen"]
            .as_str()
            .unwrap()
            .contains("deploy finished: 3 hosts"),
        "{read}"
    );
    let stopped = session.call_tool(
        "term_stop",
        &json!({"session_id": session_id, "signal": "KILL"}),
    );
    assert_eq!(stopped["isError"], false, "{stopped}");
    let (status, stderr) = session.close();
    assert!(status.success(), "{status}: {stderr}");
}

#[test]
fn without_a_daemon_tool_calls_fail_clearly_and_none_is_started() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("nobody-home.sock");
    let mut session = McpSession::start(&socket);
    session.initialize();
    // Listing needs no daemon: the catalogue is built in.
    let listed = session.request("tools/list", &json!({}));
    assert_eq!(listed["result"]["tools"][0]["name"], "task_register");

    let failed = session.call_tool("task_list", &json!({}));
    assert_eq!(failed["isError"], true, "{failed}");
    let text = text_of(&failed);
    assert!(text.contains(socket.to_str().unwrap()), "{text}");
    assert!(text.contains("lookout serve"), "{text}");
    let (status, _) = session.close();
    assert!(status.success());
    assert!(!socket.exists(), "the bridge never starts a daemon");
}
