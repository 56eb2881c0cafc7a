//! `lookout mcp` as a Claude Code channel, received by the official Rust MCP SDK's client
//! (rmcp): each bridge pushes the wakes of its own session as `notifications/claude/channel`
//! and never another session's, and tells a wait that ended across a daemon restart once;
//! and as Claude Code itself opens the connection, with `server/discover`.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CustomNotification};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::mcp::McpSession;
use crate::support::{BINARY, DaemonProcess, TestDaemon, append, deploy_task};

/// How long a channel message may take to arrive.
const ARRIVAL: Duration = Duration::from_secs(20);
/// How long to listen for a message that must not come.
const QUIET: Duration = Duration::from_millis(1500);

/// An MCP client that keeps every custom notification it is sent.
struct Listener {
    heard: mpsc::UnboundedSender<CustomNotification>,
}

impl ClientHandler for Listener {
    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.heard.send(notification);
    }
}

/// A `lookout mcp` child and the rmcp client talking to it.
struct Bridge {
    client: RunningService<RoleClient, Listener>,
    heard: mpsc::UnboundedReceiver<CustomNotification>,
}

impl Bridge {
    /// Starts `lookout mcp` as Claude Code would for `session_id` in `project`.
    async fn start(socket: &Path, session_id: Option<&str>, project: &Path) -> Bridge {
        let mut command = tokio::process::Command::new(BINARY);
        command
            .arg("mcp")
            .arg("--socket")
            .arg(socket)
            .env("LOOKOUT_LOG", "warn")
            .env("CLAUDE_PROJECT_DIR", project)
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        if let Some(session_id) = session_id {
            command.env("CLAUDE_CODE_SESSION_ID", session_id);
        }
        let mut child = command.spawn().unwrap();
        let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
        // The child lives as long as the test's runtime; kill_on_drop ends it with the test.
        std::mem::forget(child);
        let (heard, receiver) = mpsc::unbounded_channel();
        let client = Listener { heard }.serve(transport).await.unwrap();
        Bridge {
            client,
            heard: receiver,
        }
    }

    async fn call(&self, tool: &'static str, arguments: Value) -> Value {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object")
        };
        let result = self
            .client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
            .await
            .unwrap();
        assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
        result.structured_content.unwrap()
    }

    /// The next channel message: its `content` and `meta`.
    async fn next(&mut self) -> (String, Value) {
        let notification = tokio::time::timeout(ARRIVAL, self.heard.recv())
            .await
            .expect("a channel message within the time allowed")
            .unwrap();
        assert_eq!(notification.method, "notifications/claude/channel");
        let params = notification.params.unwrap();
        (
            params["content"].as_str().unwrap().to_owned(),
            params["meta"].clone(),
        )
    }

    async fn hears_nothing(&mut self) {
        if let Ok(Some(extra)) = tokio::time::timeout(QUIET, self.heard.recv()).await {
            panic!("an unexpected channel message: {extra:?}");
        }
    }
}

fn file_wait(path: &Path, text: &str) -> Value {
    json!({
        "target": format!("file:{}", path.display()),
        "wake_when": format!("when '{text}' appears"),
        "timeout": 120,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_bridge_pushes_its_own_sessions_wakes_and_no_one_elses() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let project = daemon.dir.path().join("coursefolio");
    std::fs::create_dir_all(&project).unwrap();
    let mut alice = Bridge::start(&socket, Some("session-alice"), &project).await;
    let mut bob = Bridge::start(&socket, Some("session-bob"), &project).await;

    let info = alice.client.peer_info().unwrap();
    assert_eq!(
        serde_json::to_value(&info.capabilities).unwrap()["experimental"]["claude/channel"],
        json!({}),
        "the bridge declares the channel capability"
    );

    // A wait created through Alice's bridge wakes Alice only.
    let log = daemon.dir.path().join("deploy.log");
    append(&log, "starting");
    let wait = alice.call("smart_wait", file_wait(&log, "DEPLOYED")).await;
    let wait_id = wait["wait_id"].as_str().unwrap().to_owned();
    append(&log, "DEPLOYED v1.2.3");
    let (content, meta) = alice.next().await;
    assert!(content.starts_with("smart_wait resolved"), "{content}");
    assert!(content.contains(&wait_id), "{content}");
    assert_eq!(meta["kind"], "wait_resolved", "{meta}");
    assert_eq!(meta["wait_id"], wait_id.as_str(), "{meta}");
    let event_id = meta["event_id"].as_str().unwrap();
    assert!(
        content.ends_with(&format!("[lookout {event_id}]")),
        "the text ends with its event id: {content}"
    );

    // Bob's own wait wakes Bob, not Alice.
    let other_log = daemon.dir.path().join("tests.log");
    append(&other_log, "running");
    let bobs = bob
        .call("smart_wait", file_wait(&other_log, "PASSED"))
        .await;
    append(&other_log, "PASSED 40 tests");
    let (content, meta) = bob.next().await;
    assert_eq!(meta["wait_id"], bobs["wait_id"], "{content}");

    // A wait registered elsewhere with Alice's session key reaches Alice.
    let keyed_log = daemon.dir.path().join("keyed.log");
    append(&keyed_log, "waiting");
    let mut keyed = file_wait(&keyed_log, "READY");
    keyed["session_key"] = json!("session-alice");
    let keyed = daemon.ok("smart_wait", keyed).await;
    append(&keyed_log, "READY");
    let (_, meta) = alice.next().await;
    assert_eq!(meta["wait_id"], keyed["wait_id"], "{meta}");

    alice.hears_nothing().await;
    bob.hears_nothing().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_remember_their_claude_code_session_and_a_new_bridge_adopts_them() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let project = daemon.dir.path().join("coursefolio");
    std::fs::create_dir_all(&project).unwrap();
    let first = Bridge::start(&socket, Some("session-carol"), &project).await;
    let task = first.call("task_register", deploy_task()).await;
    let task_id = task["task_id"].as_str().unwrap().to_owned();
    let listing = daemon.ok("task_list", json!({})).await;
    assert_eq!(
        listing["tasks"][0]["origin"],
        json!({"session_id": "session-carol", "cwd": project.display().to_string()}),
        "{listing}"
    );
    drop(first);

    // Claude Code restarts its MCP server in the same session: the new bridge adopts the
    // task, and a wait on it made by any client wakes the session.
    let mut second = Bridge::start(&socket, Some("session-carol"), &project).await;
    let mut stranger = Bridge::start(&socket, Some("session-dave"), &project).await;
    // The adoption runs once the bridge's subscription is up: wait for it through a
    // wait of its own, which also proves the subscription works.
    let probe_log = daemon.dir.path().join("probe.log");
    append(&probe_log, "x");
    second
        .call("smart_wait", file_wait(&probe_log, "PROBE"))
        .await;
    append(&probe_log, "PROBE");
    second.next().await;

    let log = daemon.dir.path().join("build.log");
    append(&log, "building");
    let mut on_task = file_wait(&log, "BUILD OK");
    on_task["task_id"] = json!(task_id);
    let wait = daemon.ok("smart_wait", on_task).await;
    append(&log, "BUILD OK");
    let (content, meta) = second.next().await;
    assert_eq!(meta["wait_id"], wait["wait_id"], "{content}");
    assert_eq!(meta["task_id"], task_id.as_str(), "{content}");
    stranger.hears_nothing().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_that_ends_across_a_daemon_restart_is_told_once() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let socket = daemon.socket.clone();
    let mut bridge = Bridge::start(&socket, None, dir.path()).await;
    let log = dir.path().join("slow.log");
    append(&log, "started");
    let wait = bridge
        .call(
            "smart_wait",
            json!({
                "target": format!("file:{}", log.display()),
                "wake_when": "when 'NEVER' appears",
                "timeout": 3,
            }),
        )
        .await;
    daemon.kill();
    // The deadline passes while no daemon runs; the next one ends the wait at start.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let _daemon = DaemonProcess::start(dir.path());
    let (content, meta) = bridge.next().await;
    assert_eq!(meta["wait_id"], wait["wait_id"], "{content}");
    assert_eq!(meta["kind"], "wait_timeout", "{content}");
    assert!(content.contains("timeout"), "{content}");
    bridge.hears_nothing().await;
}

/// Claude Code's first message to an MCP server, as 2.1.332 sends it.
const CLAUDE_CODE_DISCOVER: &str = r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.332","description":"Anthropic's agentic coding tool","websiteUrl":"https://claude.com/claude-code"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}}}}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_opening_with_server_discover_falls_back_to_a_revision_with_the_channel() {
    let daemon = TestDaemon::start().await;
    let mut session = McpSession::start_with(
        &daemon.socket(),
        &[],
        &[("CLAUDE_CODE_SESSION_ID", "session-carol")],
    );

    // Offered 2026-07-28, Claude Code would take it and drop every channel message: the
    // bridge refuses the revision and names the ones it has, the newest with a handshake last.
    let discovered = session.exchange(&serde_json::from_str(CLAUDE_CODE_DISCOVER).unwrap());
    assert_eq!(discovered["error"]["code"], -32022, "{discovered}");
    let supported = discovered["error"]["data"]["supported"].as_array().unwrap();
    assert_eq!(supported.last().unwrap(), "2025-11-25", "{discovered}");

    // Claude Code's fallback: initialize with the newest revision that has it.
    let hello = session.initialize_with("2025-11-25");
    assert_eq!(hello["result"]["protocolVersion"], "2025-11-25", "{hello}");
    assert_eq!(
        hello["result"]["capabilities"]["experimental"]["claude/channel"],
        json!({}),
        "{hello}"
    );
    // A request that names 2026-07-28 inline is refused with the revisions there are.
    let modern = session.exchange(&json!({
        "jsonrpc": "2.0", "id": "inline-1", "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}}}}));
    assert!(
        modern["error"].to_string().contains("2025-11-25"),
        "the refusal names the supported revisions: {modern}"
    );

    let log = daemon.dir.path().join("migrate.log");
    append(&log, "migrating");
    let made = session.call_tool("smart_wait", &file_wait(&log, "MIGRATED"));
    assert_eq!(made["isError"], false, "{made}");
    let wait_id = made["structuredContent"]["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    append(&log, "MIGRATED 42 tables");
    let pushed = session.next_notification();
    assert_eq!(pushed["method"], "notifications/claude/channel", "{pushed}");
    let content = pushed["params"]["content"].as_str().unwrap();
    assert!(
        content.starts_with("smart_wait resolved") && content.contains(&wait_id),
        "{content}"
    );
}
