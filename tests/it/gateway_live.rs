//! Opt-in: wakes into a real, running OpenClaw gateway while two busy loops load the CPU,
//! through the native `openclaw` sink and through the `openclaw-cli` preset. Each path
//! delivers 100 wakes; each must be queued exactly once with its text intact; the delivery
//! latencies (deciding line written → text in the gateway's queue) are printed. And a
//! command backgrounded as an agent's exec is watched as `pty:<its id>` to its exit, after
//! which the agent's own poll still gets all of its output.
//!
//! Run it against a gateway started as BENCHMARKS.md "Wakes into a real OpenClaw gateway"
//! describes (heartbeats disabled, so the queue keeps what arrives), with `openclaw` on PATH:
//!
//! ```sh
//! LOOKOUT_OPENCLAW_CONFIG=$OC/home/.openclaw/openclaw.json \
//!   cargo test --all-features --test it gateway_live -- --ignored --nocapture
//! ```
//!
//! `LOOKOUT_GATEWAY_WAKES` changes the count (default 100), `LOOKOUT_GATEWAY_PATHS` the
//! paths (default `native,cli`). The exec-session test starts its command with the chat
//! command `/bash`, which the gateway runs through its `exec` tool as an agent's call; it
//! needs (for the test only; lookout itself needs nothing allowed):
//!
//! ```sh
//! openclaw config set commands.bash true
//! openclaw config set tools.elevated.enabled true
//! openclaw config set tools.elevated.allowFrom.webchat '["*"]'
//! ```

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use lookout::client::Client;
use lookout::client::subscription::{Heard, Patience, listen};

use crate::support::{DaemonProcess, append, ok};

/// How long one wake may take to reach the gateway's queue (the CLI takes tens of seconds
/// on a loaded machine).
const ARRIVAL: Duration = Duration::from_secs(150);
/// How long late repeats are looked for after the last wake.
const SETTLE: Duration = Duration::from_secs(10);

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Two shell loops that spin until dropped.
struct BusyLoops(Vec<Child>);

impl BusyLoops {
    fn start() -> BusyLoops {
        BusyLoops(
            (0..2)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdout(Stdio::null())
                        .spawn()
                        .unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for BusyLoops {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A read-only operator connection to the gateway, asking its `status`.
struct Observer {
    socket: Socket,
    next_id: u64,
}

impl Observer {
    async fn connect(url: &str, token: &str) -> Observer {
        let client =
            json!({"id": "gateway-client", "version": "0", "platform": "linux", "mode": "backend"});
        Self::connect_as(url, token, client, &["operator.read"]).await
    }

    /// Connected as the `openclaw` CLI is, able to send chat messages.
    async fn connect_as_cli(url: &str, token: &str) -> Observer {
        let client = json!({"id": "cli", "version": "0", "platform": "linux", "mode": "cli"});
        Self::connect_as(url, token, client, &["operator.read", "operator.write"]).await
    }

    async fn connect_as(url: &str, token: &str, client: Value, scopes: &[&str]) -> Observer {
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let mut observer = Observer { socket, next_id: 0 };
        let challenge = observer.frame().await;
        assert_eq!(challenge["event"], "connect.challenge", "{challenge}");
        let hello = observer
            .request(
                "connect",
                json!({"minProtocol": 4, "maxProtocol": 4, "client": client,
                   "role": "operator", "scopes": scopes, "caps": [],
                   "auth": {"token": token}}),
            )
            .await;
        assert_eq!(hello["ok"], true, "the gateway took the token: {hello}");
        observer
    }

    async fn frame(&mut self) -> Value {
        loop {
            match self.socket.next().await.unwrap().unwrap() {
                Message::Text(text) => return serde_json::from_str(&text).unwrap(),
                Message::Close(_) => panic!("the gateway closed the connection"),
                _ => {}
            }
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = format!("o{}", self.next_id);
        let request = json!({"type": "req", "id": id, "method": method, "params": params});
        self.socket
            .send(Message::text(request.to_string()))
            .await
            .unwrap();
        loop {
            let frame = self.frame().await;
            if frame["type"] == "res" && frame["id"] == id.as_str() {
                return frame;
            }
        }
    }

    /// The texts the gateway holds for the main session, oldest first (it keeps 20).
    async fn queued(&mut self) -> Vec<String> {
        let status = self.request("status", json!({})).await;
        status["payload"]["queuedSystemEvents"]
            .as_array()
            .unwrap_or_else(|| panic!("no queuedSystemEvents in {status}"))
            .iter()
            .map(|text| text.as_str().unwrap().to_owned())
            .collect()
    }
}

/// The gateway's URL and token from its config, as lookout itself reads them.
fn gateway_from(config: &Path) -> (String, String) {
    let text = std::fs::read_to_string(config).unwrap();
    let config: Value = json5::from_str(&text).unwrap();
    let port = config["gateway"]["port"].as_u64().unwrap_or(18789);
    let token = config["gateway"]["auth"]["token"].as_str().unwrap();
    (format!("ws://127.0.0.1:{port}"), token.to_owned())
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index]
}

/// Delivers `count` wakes through the daemon's sink (`sink_config`) and checks each is
/// queued once, intact; returns the latencies from the deciding line and from the event.
async fn deliver(
    label: &str,
    config: &Path,
    sink_config: &str,
    observer: &mut Observer,
    count: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    let dir = tempfile::tempdir().unwrap();
    let config_path = config.to_str().unwrap();
    let daemon = DaemonProcess::start_with(
        dir.path(),
        sink_config,
        &[
            ("OPENCLAW_CONFIG_PATH", config_path),
            ("LOOKOUT_LOG", "info"),
        ],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut events = listen(&daemon.socket, Patience::Bounded);
    assert!(matches!(events.recv().await, Some(Heard::Subscribed)));
    let log = dir.path().join("build.log");
    append(&log, "building");
    // Unique to this run: the gateway keeps earlier runs' texts, and a fresh database
    // numbers its waits and events as the last one did.
    let run = dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let label = format!("{label} {run}");
    let mut from_line = Vec::with_capacity(count);
    let mut from_event = Vec::with_capacity(count);
    for round in 0..count {
        let wait = ok(
            &mut client,
            "smart_wait",
            json!({"target": format!("file:{}", log.display()),
                   "wake_when": format!("when 'DONE {label} {round}' appears"), "timeout": 600}),
        )
        .await;
        let wait_id = wait["wait_id"].as_str().unwrap().to_owned();
        let written = Instant::now();
        append(&log, &format!("DONE {label} {round}"));
        let (text, heard) = loop {
            match tokio::time::timeout(ARRIVAL, events.recv()).await {
                Ok(Some(Heard::Event(event))) if event["params"]["wait_id"] == wait_id.as_str() => {
                    let text = event["params"]["text"].as_str().unwrap().to_owned();
                    break (text, Instant::now());
                }
                Ok(Some(_)) => {}
                other => panic!("no wake event for {wait_id}: {}", other.is_ok()),
            }
        };
        loop {
            let queued = observer.queued().await;
            let copies = queued.iter().filter(|queued| **queued == text).count();
            assert!(
                copies <= 1,
                "{label}: {wait_id} queued {copies} times: {queued:?}"
            );
            if copies == 1 {
                from_line.push(written.elapsed());
                from_event.push(heard.elapsed());
                break;
            }
            assert!(
                written.elapsed() < ARRIVAL,
                "{label}: {wait_id} not queued intact within {ARRIVAL:?}: {text:?} vs {queued:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    tokio::time::sleep(SETTLE).await;
    let queued = observer.queued().await;
    let mut distinct = queued.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        queued.len(),
        "{label}: a late repeat: {queued:?}"
    );
    let status = ok(&mut client, "daemon.status", json!({})).await;
    assert_eq!(status["wake"]["pending"], 0, "{status}");
    (from_line, from_event)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a running OpenClaw gateway: set LOOKOUT_OPENCLAW_CONFIG and run with --ignored"]
async fn wakes_reach_a_real_gateway_once_under_load() {
    let config = PathBuf::from(
        lookout::config::environment::non_empty("LOOKOUT_OPENCLAW_CONFIG")
            .expect("LOOKOUT_OPENCLAW_CONFIG names the running gateway's openclaw.json"),
    );
    let count = lookout::config::environment::non_empty("LOOKOUT_GATEWAY_WAKES")
        .map_or(100, |count| count.parse().unwrap());
    assert!(
        lookout::config::environment::find_on_path("openclaw").is_some(),
        "the openclaw-cli half needs `openclaw` on PATH"
    );
    let (url, token) = gateway_from(&config);
    let mut observer = Observer::connect(&url, &token).await;
    let _load = BusyLoops::start();
    let paths = lookout::config::environment::non_empty("LOOKOUT_GATEWAY_PATHS")
        .unwrap_or_else(|| "native,cli".to_owned());
    for (label, sink_config) in [
        ("native", ""),
        ("cli", "[[wake.sinks]]\nkind = \"openclaw-cli\"\n"),
    ] {
        if !paths.split(',').any(|path| path == label) {
            continue;
        }
        let (mut from_line, mut from_event) =
            deliver(label, &config, sink_config, &mut observer, count).await;
        from_line.sort();
        from_event.sort();
        println!(
            "{label}: {count} wakes, each queued once; from the deciding line p50 {:?}, p99 {:?}, \
             max {:?}; from the event p50 {:?}, p99 {:?}, max {:?}",
            percentile(&from_line, 0.5),
            percentile(&from_line, 0.99),
            from_line.last().unwrap(),
            percentile(&from_event, 0.5),
            percentile(&from_event, 0.99),
            from_event.last().unwrap(),
        );
    }
}

/// Sends `message` to the main session as its owner would, and returns the gateway's
/// replies that arrive in the session's history within `patience` and contain `needle`.
async fn chat(operator: &mut Observer, message: &str, needle: &str, patience: Duration) -> String {
    let newest = |history: &Value| {
        history["payload"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|message| message["timestamp"].as_u64())
            .max()
            .unwrap_or(0)
    };
    let before = operator
        .request(
            "chat.history",
            json!({"sessionKey": "agent:main:main", "limit": 20}),
        )
        .await;
    let since = newest(&before);
    let key = format!("lookout-live-{}-{since}", std::process::id());
    let sent = operator
        .request(
            "chat.send",
            json!({"sessionKey": "agent:main:main", "message": message, "idempotencyKey": key}),
        )
        .await;
    assert_eq!(sent["ok"], true, "{sent}");
    let started = Instant::now();
    loop {
        let history = operator
            .request(
                "chat.history",
                json!({"sessionKey": "agent:main:main", "limit": 20}),
            )
            .await;
        let replies: Vec<String> = history["payload"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|message| message["role"] == "assistant")
            .filter(|message| message["timestamp"].as_u64().unwrap_or(0) > since)
            .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
            .filter_map(|part| part["text"].as_str().map(str::to_owned))
            .collect();
        if let Some(reply) = replies.iter().rev().find(|reply| reply.contains(needle)) {
            return reply.clone();
        }
        assert!(
            started.elapsed() < patience,
            "no reply containing {needle:?} to {message:?}; the gateway needs commands.bash and \
             tools.elevated set as this file's header says: {replies:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a running OpenClaw gateway: set LOOKOUT_OPENCLAW_CONFIG and run with --ignored"]
async fn an_exec_session_of_a_real_gateway_is_watched_to_its_exit_and_nothing_is_drained() {
    let config = PathBuf::from(
        lookout::config::environment::non_empty("LOOKOUT_OPENCLAW_CONFIG")
            .expect("LOOKOUT_OPENCLAW_CONFIG names the running gateway's openclaw.json"),
    );
    let (url, token) = gateway_from(&config);
    let mut operator = Observer::connect_as_cli(&url, &token).await;
    let mark = format!("m{}", std::process::id());
    let command = format!(
        "bash -c 'for i in 1 2 3 4 5 6; do echo line-$i-{mark}; sleep 1; done; echo DONE-{mark}; exit 3'"
    );
    let started = chat(
        &mut operator,
        &format!("/bash {command}"),
        "bash started (session ",
        Duration::from_secs(30),
    )
    .await;
    let session = started
        .split("bash started (session ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap()
        .to_owned();

    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start_with(
        dir.path(),
        "",
        &[("OPENCLAW_CONFIG_PATH", config.to_str().unwrap())],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let wait = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("pty:{session}"), "wake_when": "the command finishes",
               "poll_interval": 0.5, "timeout": 120}),
    )
    .await;
    let message = wait["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("your OpenClaw exec session {session}")),
        "{message}"
    );
    let refused = crate::support::err(
        &mut client,
        "smart_wait",
        json!({"target": format!("pty:{session}"), "wake_when": format!("'DONE-{mark}' is printed")}),
    )
    .await;
    assert!(
        refused.message.contains("not what it prints"),
        "{}",
        refused.message
    );
    let wait_id = wait["wait_id"].as_str().unwrap().to_owned();
    let resolved = Instant::now();
    let state = loop {
        let state = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
        if state["status"] != "watching" {
            break state;
        }
        assert!(resolved.elapsed() < Duration::from_secs(60), "{state}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(state["status"], "resolved", "{state}");
    let observation = state["last_observation"].as_str().unwrap();
    assert!(
        observation.starts_with("the process exited with status 3"),
        "{observation}"
    );
    println!("exec session {session}: {observation}");

    // The agent's own poll still gets every line: lookout consumed nothing.
    let polled = chat(
        &mut operator,
        &format!("/bash poll {session}"),
        &format!("DONE-{mark}"),
        Duration::from_secs(30),
    )
    .await;
    for line in 1..=6 {
        assert!(polled.contains(&format!("line-{line}-{mark}")), "{polled}");
    }
    assert!(polled.contains("Exit: code 3"), "{polled}");
}
