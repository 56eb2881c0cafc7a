//! `lookout monitor` as a Claude Code plugin runs it, against the real binary: started before
//! the daemon, it waits; each wake of its own session is one line of stdout, the wake text
//! and nothing else; another session's monitor prints nothing; it follows the daemon across
//! a restart. And the stream under it: `events.subscribe` with `after` hands back what a
//! subscriber missed, once.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp::McpSession;
use crate::support::{BINARY, DaemonProcess, TestDaemon, cli, lines_of, ok, stderr_of};

/// How long a wake may take to reach a monitor's stdout (polls at 0.2 s, a restart between).
const WAKE_WITHIN: Duration = Duration::from_secs(20);

/// A `lookout monitor` of one Claude Code session and the lines it prints.
struct Monitor {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Monitor {
    fn start(socket: &Path, claude_session: &str) -> Monitor {
        let mut child = Command::new(BINARY)
            .args(["monitor", "--socket"])
            .arg(socket)
            .env("CLAUDE_CODE_SESSION_ID", claude_session)
            .env("LOOKOUT_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = lines_of(child.stdout.take().unwrap());
        Monitor { child, lines }
    }

    fn next_line(&mut self, what: &str) -> String {
        self.lines
            .recv_timeout(WAKE_WITHIN)
            .unwrap_or_else(|_| panic!("the monitor printed no line for {what}: {}", self.stderr()))
    }

    fn still_running(&mut self) {
        if let Some(status) = self.child.try_wait().unwrap() {
            panic!(
                "a monitor must never end on its own; it ended with {status}: {}",
                self.stderr()
            );
        }
    }

    /// What it said on stderr (it is stopped first: a running monitor's stderr never ends).
    fn stderr(&mut self) -> String {
        let _ = self.child.kill();
        stderr_of(&mut self.child)
    }

    fn printed_nothing_more(&self) -> Vec<String> {
        self.lines.try_iter().collect()
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A wait on `log` for `phrase`, made through the bridge; returns its id.
fn wait_for(bridge: &mut McpSession, log: &Path, phrase: &str) -> String {
    std::fs::write(log, "").unwrap();
    let made = bridge.call_tool(
        "smart_wait",
        &json!({"target": format!("file:{}", log.display()),
                "wake_when": format!("'{phrase}'"), "timeout": 120, "poll_interval": 0.2}),
    );
    assert_eq!(made["isError"], false, "{made}");
    made["structuredContent"]["wait_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn append(log: &Path, line: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(log).unwrap();
    writeln!(file, "{line}").unwrap();
}

#[test]
fn a_monitor_prints_each_wake_of_its_session_once_and_follows_the_daemon_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("lookout.sock");
    // Started before the daemon, as Claude Code starts a plugin's monitor with the session.
    let mut alice = Monitor::start(&socket, "alice");
    let mut bob = Monitor::start(&socket, "bob");
    std::thread::sleep(Duration::from_millis(500));
    alice.still_running();
    bob.still_running();

    let daemon = DaemonProcess::start(dir.path());
    let mut bridge = McpSession::start_with(
        &daemon.socket,
        &["--wakes", "monitor"],
        &[("CLAUDE_CODE_SESSION_ID", "alice")],
    );
    let hello = bridge.initialize();
    assert!(
        hello["result"]["capabilities"]["experimental"]["claude/channel"].is_null(),
        "a bridge whose wakes come from the monitor offers no channel: {hello}"
    );
    assert!(
        hello["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("never run `lookout wait`"),
        "{hello}"
    );
    let log = dir.path().join("build.log");
    let first = wait_for(&mut bridge, &log, "BUILD OK");
    append(&log, "BUILD OK");
    let line = alice.next_line("the first wake");
    assert!(
        line.starts_with(&format!("smart_wait resolved ({first})")) && line.contains("[lookout e-"),
        "one line, the wake text itself: {line}"
    );

    // The daemon restarts; the monitor finds it again and the next wake arrives.
    assert!(daemon.terminate().success());
    std::thread::sleep(Duration::from_millis(500));
    alice.still_running();
    let daemon = DaemonProcess::start(dir.path());
    let second = wait_for(&mut bridge, &log, "DEPLOY OK");
    append(&log, "DEPLOY OK");
    let line = alice.next_line("the wake after the restart");
    assert!(
        line.starts_with(&format!("smart_wait resolved ({second})")),
        "{line}"
    );

    // A wait of nobody's session (made with the plain CLI) is nobody's monitor's.
    let socket_arg = daemon.socket.display().to_string();
    let params = json!({"target": format!("file:{}", log.display()), "wake_when": "'STRANGER'",
                        "timeout": 120, "poll_interval": 0.2});
    let (code, made, said) = cli(&[
        "--json",
        "--socket",
        &socket_arg,
        "call",
        "smart_wait",
        &params.to_string(),
    ]);
    assert_eq!(code, 0, "{said}");
    let stranger: Value = serde_json::from_str(&made).unwrap();
    let stranger = stranger["wait_id"].as_str().unwrap();
    append(&log, "STRANGER");
    let (code, _, said) = cli(&["--socket", &socket_arg, "wait", stranger, "--timeout", "20"]);
    assert_eq!(code, 0, "the stranger's wait resolves: {said}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(alice.printed_nothing_more(), Vec::<String>::new());
    assert_eq!(
        bob.printed_nothing_more(),
        Vec::<String>::new(),
        "bob's monitor heard others' wakes"
    );
    alice.still_running();
    bob.still_running();
    let (status, _) = bridge.close();
    assert!(status.success());
    drop(daemon);
}

#[test]
fn a_monitor_with_no_session_to_follow_says_how_to_name_one() {
    let output = Command::new(BINARY)
        .args(["monitor", "--socket", "/nonexistent/lookout.sock"])
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("--session KEY") && said.contains("CLAUDE_CODE_SESSION_ID"),
        "{said}"
    );
}

/// A subscriber that lost its connection names the last event it heard and gets, in the
/// answer, the events stored since — each once: the stream goes on after the last of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_that_names_the_last_event_it_heard_gets_what_it_missed_once() {
    let daemon = TestDaemon::start().await;
    let mut first = daemon.client().await;
    let answer = ok(&mut first, "events.subscribe", json!({})).await;
    assert_eq!(answer["last_event_id"], Value::Null, "{answer}");
    let heard = end_a_wait(&daemon).await;
    let live = first.read_json().await.unwrap();
    assert_eq!(live["params"]["id"], json!(heard), "{live}");
    drop(first);

    // Two events while nobody listens.
    let missed_one = end_a_wait(&daemon).await;
    let missed_two = end_a_wait(&daemon).await;
    let mut again = daemon.client().await;
    let answer = ok(&mut again, "events.subscribe", json!({"after": heard})).await;
    let ids: Vec<&str> = answer["missed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [missed_one.as_str(), missed_two.as_str()], "{answer}");
    assert_eq!(answer["last_event_id"], json!(missed_two));
    assert_eq!(answer["missed_left_out"], false);
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("2 missed events"),
        "{answer}"
    );
    // The stream goes on after them, with nothing repeated.
    let next = end_a_wait(&daemon).await;
    let live = again.read_json().await.unwrap();
    assert_eq!(live["params"]["id"], json!(next), "{live}");

    // A listener that started before it could connect names the time it started instead.
    let mut late = daemon.client().await;
    let answer = ok(
        &mut late,
        "events.subscribe",
        json!({"since": "2000-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(answer["missed"].as_array().unwrap().len(), 4, "{answer}");
    let answer = daemon
        .ok("events.subscribe", json!({"since": "2999-01-01T00:00:00Z"}))
        .await;
    assert_eq!(answer["missed"], json!([]), "{answer}");
    let both = daemon
        .err(
            "events.subscribe",
            json!({"after": heard, "since": "2000-01-01T00:00:00Z"}),
        )
        .await;
    assert!(both.message.contains("not both"), "{both:?}");

    let refused = daemon
        .err("events.subscribe", json!({"after": "yesterday"}))
        .await;
    assert!(
        refused.message.contains("'yesterday' is not an event id"),
        "{refused:?}"
    );
    assert!(refused.hint.contains("e-000123"), "{refused:?}");
}

/// Makes a wait that times out at once and returns the id of its wake event.
async fn end_a_wait(daemon: &TestDaemon) -> String {
    let dir = tempfile::tempdir().unwrap();
    let made = daemon
        .ok(
            "smart_wait",
            json!({"target": format!("file:{}", dir.path().join("quiet.log").display()),
                   "wake_when": "'NEVER'", "timeout": 1, "poll_interval": 0.2}),
        )
        .await;
    let wait_id = made["wait_id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + WAKE_WITHIN;
    loop {
        let events = daemon.tree().recent_events(1).await.unwrap();
        if let Some(event) = events
            .last()
            .filter(|event| event.wait_id.as_deref() == Some(wait_id.as_str()))
        {
            return actors::wake::event::event_id(event.seq);
        }
        assert!(Instant::now() < deadline, "{wait_id} did not time out");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
