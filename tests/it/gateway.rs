//! The `openclaw` gateway sink against a loopback stand-in that speaks the gateway's frames
//! (the `connect.challenge` event, `connect` with the token, `wake` and its `res`), taken
//! from a real OpenClaw 2026.9.6 gateway: acknowledgements, a dropped connection, a slow
//! acknowledgement, a wrong token and a refused session key; then the real daemon finding the
//! gateway from an OpenClaw config with no sink configured. The stand-in also answers the
//! task ledger's `tasks.list` and `tasks.get`, for the exec-session waits (`exec_sessions`).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actors::openclaw::client::{GatewayClient, GatewaySpec};
use actors::wake::event::WakeEvent;
use actors::wake::gateway::GatewaySink;
use actors::wake::sinks::{Delivery, Secret, Sink};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use storage::{EventKind, Timestamp};
use tokio_tungstenite::tungstenite::Message;

use lookout::client::Client;

use crate::support::{DaemonProcess, deploy_task, ok, recall_transcripts, wait_until};

/// How the stand-in answers a `wake`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    Ack,
    /// Closes the connection on the first wake, without answering.
    DropFirstWake,
    /// Answers after this long.
    SlowAck(Duration),
    /// Refuses a wake that names a session key (as for a subagent's key).
    RefuseSessionKeys,
}

pub struct StandIn {
    pub url: String,
    pub wakes: Arc<Mutex<Vec<Value>>>,
    pub connections: Arc<AtomicUsize>,
    /// The task ledger `tasks.list` and `tasks.get` answer from (entries as OpenClaw
    /// 2026.9.6 writes them); a test edits it as commands run and end.
    pub ledger: Arc<Mutex<Vec<Value>>>,
    /// Every method called, in order.
    pub methods: Arc<Mutex<Vec<String>>>,
    /// Ledger reads are refused as for a token without `operator.read`.
    pub refuse_ledger: Arc<AtomicBool>,
    /// The sessions `sessions.list` and `chat.history` answer from: each a row (as
    /// `sessions.list` gives it) and its messages (as `chat.history` gives them); a test
    /// edits them as the agent talks.
    pub sessions: Sessions,
}

/// The stand-in's sessions: each a `sessions.list` row and its `chat.history` messages.
pub type Sessions = Arc<Mutex<Vec<(Value, Vec<Value>)>>>;

impl StandIn {
    pub async fn start(token: &'static str, behaviour: Behaviour) -> StandIn {
        Self::start_at("127.0.0.1:0", token, behaviour).await
    }

    /// The same on a given address (a gateway coming back where it was).
    pub async fn start_at(address: &str, token: &'static str, behaviour: Behaviour) -> StandIn {
        let listener = tokio::net::TcpListener::bind(address).await.unwrap();
        let url = format!("ws://{}", listener.local_addr().unwrap());
        let wakes = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let ledger: Arc<Mutex<Vec<Value>>> = Arc::new(Mutex::new(Vec::new()));
        let methods: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
        let refuse_ledger = Arc::new(AtomicBool::new(false));
        let dropped = Arc::new(AtomicUsize::new(0));
        let sessions: Sessions = Arc::new(Mutex::new(Vec::new()));
        let kept = sessions.clone();
        let (seen, count) = (wakes.clone(), connections.clone());
        let (tasks, called, refusing) = (ledger.clone(), methods.clone(), refuse_ledger.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let (seen, dropped, kept) = (seen.clone(), dropped.clone(), kept.clone());
                let (tasks, called, refusing) = (tasks.clone(), called.clone(), refusing.clone());
                tokio::spawn(async move {
                    let Ok(mut socket) = tokio_tungstenite::accept_async(stream).await else {
                        return;
                    };
                    let challenge = json!({"type": "event", "event": "connect.challenge",
                        "payload": {"nonce": "24866f74", "ts": 1795466734334u64}});
                    let _ = socket.send(Message::text(challenge.to_string())).await;
                    while let Some(Ok(message)) = socket.next().await {
                        let Message::Text(text) = message else {
                            continue;
                        };
                        let frame: Value = serde_json::from_str(text.as_str()).unwrap();
                        let id = frame["id"].clone();
                        let method = frame["method"].as_str().unwrap_or("").to_owned();
                        called.lock().unwrap().push(method.clone());
                        let missing_read = json!({"type": "res", "id": id, "ok": false, "error": {
                            "code": "FORBIDDEN", "message": "missing scope: operator.read",
                            "details": {"code": "MISSING_SCOPE", "missingScope": "operator.read"}}});
                        let reply = match frame["method"].as_str() {
                            Some("tasks.list" | "tasks.get") if refusing.load(Ordering::SeqCst) => {
                                missing_read
                            }
                            Some("tasks.list") => {
                                assert_eq!(frame["params"]["limit"], 500);
                                let tasks = tasks.lock().unwrap().clone();
                                json!({"type": "res", "id": id, "ok": true, "payload": {"tasks": tasks}})
                            }
                            Some("tasks.get") => {
                                let wanted = frame["params"]["taskId"].clone();
                                let task = tasks
                                    .lock()
                                    .unwrap()
                                    .iter()
                                    .find(|t| t["taskId"] == wanted)
                                    .cloned();
                                match task {
                                    Some(task) => {
                                        json!({"type": "res", "id": id, "ok": true, "payload": {"task": task}})
                                    }
                                    None => json!({"type": "res", "id": id, "ok": false, "error": {
                                        "code": "INVALID_REQUEST",
                                        "message": format!("task not found: {}", wanted.as_str().unwrap_or(""))}}),
                                }
                            }
                            Some("sessions.list") => {
                                let params = &frame["params"];
                                let offset = params["offset"].as_u64().unwrap_or(0) as usize;
                                let limit = params["limit"].as_u64().unwrap_or(100) as usize;
                                let mut rows: Vec<Value> = kept
                                    .lock()
                                    .unwrap()
                                    .iter()
                                    .map(|(row, _)| row.clone())
                                    .collect();
                                rows.sort_by_key(|row| {
                                    std::cmp::Reverse(row["updatedAt"].as_u64())
                                });
                                let total = rows.len();
                                let page: Vec<Value> =
                                    rows.into_iter().skip(offset).take(limit).collect();
                                let more = offset + page.len() < total;
                                json!({"type": "res", "id": id, "ok": true, "payload": {
                                    "ts": 1795995363974u64, "count": page.len(), "totalCount": total,
                                    "limitApplied": limit, "hasMore": more,
                                    "nextOffset": if more { json!(offset + page.len()) } else { Value::Null },
                                    "sessions": page}})
                            }
                            Some("chat.history") => {
                                let key = frame["params"]["sessionKey"].clone();
                                let limit =
                                    frame["params"]["limit"].as_u64().unwrap_or(200) as usize;
                                let session = kept
                                    .lock()
                                    .unwrap()
                                    .iter()
                                    .find(|(row, _)| row["key"] == key)
                                    .cloned();
                                match session {
                                    Some((row, messages)) => {
                                        let tail = messages[messages.len().saturating_sub(limit)..]
                                            .to_vec();
                                        json!({"type": "res", "id": id, "ok": true, "payload": {
                                            "sessionKey": key, "sessionId": row["sessionId"],
                                            "totalMessages": messages.len(), "hasMore": tail.len() < messages.len(),
                                            "messages": tail}})
                                    }
                                    None => json!({"type": "res", "id": id, "ok": false, "error": {
                                        "code": "INVALID_REQUEST", "message": "session not found"}}),
                                }
                            }
                            Some("connect") if frame["params"]["auth"]["token"] != token => json!({
                                "type": "res", "id": id, "ok": false,
                                "error": {"code": "INVALID_REQUEST",
                                          "message": "unauthorized: gateway token mismatch",
                                          "details": {"code": "AUTH_TOKEN_MISMATCH"}}}),
                            Some("connect") => {
                                assert_eq!(frame["params"]["client"]["id"], "gateway-client");
                                assert_eq!(frame["params"]["minProtocol"], 4);
                                // Events the gateway sends unasked come between answers.
                                let health = json!({"type": "event", "event": "health", "payload": {"ok": true}});
                                let _ = socket.send(Message::text(health.to_string())).await;
                                json!({"type": "res", "id": id, "ok": true, "payload": {
                                    "type": "hello-ok", "protocol": 4,
                                    "server": {"version": "2026.9.6"}}})
                            }
                            Some("wake") => {
                                let params = frame["params"].clone();
                                match behaviour {
                                    Behaviour::DropFirstWake
                                        if dropped.fetch_add(1, Ordering::SeqCst) == 0 =>
                                    {
                                        return; // the connection drops, unanswered
                                    }
                                    Behaviour::RefuseSessionKeys
                                        if params.get("sessionKey").is_some() =>
                                    {
                                        json!({"type": "res", "id": id, "ok": false, "error": {
                                            "code": "INVALID_REQUEST",
                                            "message": "wake sessionKey cannot target a subagent session"}})
                                    }
                                    _ => {
                                        if let Behaviour::SlowAck(delay) = behaviour {
                                            tokio::time::sleep(delay).await;
                                        }
                                        seen.lock().unwrap().push(params);
                                        json!({"type": "res", "id": id, "ok": true, "payload": {"ok": true}})
                                    }
                                }
                            }
                            _ => json!({"type": "res", "id": id, "ok": false,
                                        "error": {"code": "INVALID_REQUEST", "message": "unknown method"}}),
                        };
                        if socket.send(Message::text(reply.to_string())).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        StandIn {
            url,
            wakes,
            connections,
            ledger,
            methods,
            refuse_ledger,
            sessions,
        }
    }

    /// An OpenClaw config (`openclaw.json` in a state folder under `dir`) that points at
    /// this stand-in with `token`; the folder, for `OPENCLAW_STATE_DIR`.
    pub fn config_in(&self, dir: &std::path::Path, token: &str) -> std::path::PathBuf {
        let state = dir.join("openclaw-state");
        std::fs::create_dir_all(&state).unwrap();
        let port = self.url.rsplit(':').next().unwrap();
        std::fs::write(
            state.join("openclaw.json"),
            format!(
                "{{\n  // as `openclaw onboard` writes it\n  gateway: {{ mode: 'local', bind: 'loopback', port: {port},\n    auth: {{ mode: 'token', token: '{token}' }} }},\n}}\n"
            ),
        )
        .unwrap();
        state
    }

    pub fn texts(&self) -> Vec<String> {
        self.wakes
            .lock()
            .unwrap()
            .iter()
            .map(|params| params["text"].as_str().unwrap().to_owned())
            .collect()
    }
}

fn sink(url: &str, token: &str, timeout: Duration) -> Arc<GatewaySink> {
    let client = GatewayClient::new(GatewaySpec {
        url: url.into(),
        token: Some(Secret::new(token)),
        timeout,
    });
    GatewaySink::new("openclaw".into(), client)
}

fn event(seq: u64, session_key: Option<&str>) -> WakeEvent {
    WakeEvent {
        seq,
        kind: EventKind::WaitResolved,
        text: format!("smart_wait resolved (w-test{seq}): DONE. Elapsed: 3s. [lookout e-{seq:06}]"),
        task_id: None,
        wait_id: Some(format!("w-test{seq}")),
        session_key: session_key.map(String::from),
        created_at: Timestamp::from_millis(0),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wakes_are_acknowledged_over_one_kept_connection() {
    let gateway = StandIn::start("gw-token", Behaviour::Ack).await;
    let sink = sink(&gateway.url, "gw-token", Duration::from_secs(10));
    assert_eq!(
        sink.client().probe().await.unwrap(),
        format!("connected to OpenClaw 2026.9.6 at {}", gateway.url)
    );
    for seq in 1..=3 {
        let key = (seq == 2).then_some("agent:main:telegram:42");
        assert_eq!(sink.deliver(event(seq, key)).await, Delivery::Delivered);
    }
    assert_eq!(gateway.connections.load(Ordering::SeqCst), 1);
    let wakes = gateway.wakes.lock().unwrap().clone();
    assert_eq!(wakes.len(), 3);
    assert_eq!(
        wakes[1],
        json!({"mode": "now", "text": event(2, None).text, "sessionKey": "agent:main:telegram:42"})
    );
    assert_eq!(wakes[0].get("sessionKey"), None);
    assert!(
        sink.state()
            .unwrap()
            .starts_with("connected to OpenClaw 2026.9.6")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_is_a_retry_and_the_next_attempt_reconnects() {
    let gateway = StandIn::start("gw-token", Behaviour::DropFirstWake).await;
    let sink = sink(&gateway.url, "gw-token", Duration::from_secs(10));
    let first = sink.deliver(event(1, None)).await;
    assert!(
        matches!(&first, Delivery::Retry(why) if why.contains("dropped before it answered")),
        "{first:?}"
    );
    assert_eq!(sink.deliver(event(1, None)).await, Delivery::Delivered);
    assert_eq!(gateway.connections.load(Ordering::SeqCst), 2);
    assert_eq!(gateway.texts(), [event(1, None).text]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_acknowledgement_is_a_retry_not_a_delivery() {
    let gateway = StandIn::start("gw-token", Behaviour::SlowAck(Duration::from_secs(3))).await;
    let sink = sink(&gateway.url, "gw-token", Duration::from_millis(500));
    let outcome = sink.deliver(event(7, None)).await;
    assert!(
        matches!(&outcome, Delivery::Retry(why) if why.contains("did not answer wake within")),
        "{outcome:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_or_no_gateway_says_what_to_fix() {
    let gateway = StandIn::start("gw-token", Behaviour::Ack).await;
    let wrong = sink(&gateway.url, "not-the-token", Duration::from_secs(10));
    let error = wrong.client().probe().await.unwrap_err().message;
    assert!(
        error.contains("AUTH_TOKEN_MISMATCH") && error.contains("gateway.auth.token"),
        "{error}"
    );
    assert!(!error.contains("not-the-token"), "the token never prints");
    assert!(matches!(
        wrong.deliver(event(1, None)).await,
        Delivery::Retry(_)
    ));
    assert_eq!(wrong.state().unwrap(), error);

    let nobody = sink("ws://127.0.0.1:9", "gw-token", Duration::from_secs(5));
    let error = nobody.client().probe().await.unwrap_err().message;
    assert!(
        error.contains("cannot reach the OpenClaw gateway at ws://127.0.0.1:9"),
        "{error}"
    );
    // Not there is not refused: the event waits for the gateway, counted against nothing.
    assert!(matches!(
        nobody.deliver(event(1, None)).await,
        Delivery::Unreachable(why) if why.contains("cannot reach")
    ));
    assert!(gateway.texts().is_empty());
}

/// A wake made while the gateway is down goes out within about a second of its return, not
/// after the growing back-off of failed attempts (which reached 25 s and more).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wake_pending_while_the_gateway_is_down_goes_out_when_it_returns() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = free.local_addr().unwrap().to_string();
    drop(free);
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("openclaw-state");
    std::fs::create_dir_all(&state).unwrap();
    let port = address.rsplit(':').next().unwrap();
    std::fs::write(
        state.join("openclaw.json"),
        format!("{{ gateway: {{ mode: 'local', port: {port}, auth: {{ mode: 'token', token: 'back' }} }} }}\n"),
    )
    .unwrap();
    let daemon = DaemonProcess::start_with(
        dir.path(),
        "[stuck]\nthreshold_s = 1\nscan_interval_s = 1\ncooldown_s = 600\n",
        &[("OPENCLAW_STATE_DIR", state.to_str().unwrap())],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    ok(&mut client, "task_register", deploy_task()).await;
    // The stuck alert is made and waits, the gateway down, for longer than the back-off's
    // first steps would have taken together.
    wait_until(
        "the stuck alert is pending",
        Duration::from_secs(20),
        async || ok(&mut client, "daemon.status", json!({})).await["wake"]["pending"] == 1,
    )
    .await;
    tokio::time::sleep(Duration::from_secs(8)).await;
    let status = ok(&mut client, "daemon.status", json!({})).await;
    assert_eq!(status["wake"]["dead"], 0, "{status}");
    // Looked for every second, not at 1, 2, 4, 8 s…: the doubling back-off would have tried
    // four times in these eight seconds and more.
    let looked = status["wake"]["failed_attempts_since_start"]
        .as_u64()
        .unwrap();
    assert!(
        looked >= 6,
        "the gateway was looked for {looked} times: {status}"
    );
    let gateway = StandIn::start_at(&address, "back", Behaviour::Ack).await;
    let back = std::time::Instant::now();
    wait_until(
        "the pending wake reaches the gateway that came back",
        Duration::from_secs(10),
        async || !gateway.texts().is_empty(),
    )
    .await;
    // The figure the benchmark notes quote; a shared machine's timing is not asserted.
    println!("delivered {:?} after the gateway came back", back.elapsed());
    assert_eq!(gateway.texts().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_session_key_wakes_the_main_session_instead() {
    let gateway = StandIn::start("gw-token", Behaviour::RefuseSessionKeys).await;
    let sink = sink(&gateway.url, "gw-token", Duration::from_secs(10));
    assert_eq!(
        sink.deliver(event(3, Some("agent:main:subagent:9"))).await,
        Delivery::Delivered
    );
    let wakes = gateway.wakes.lock().unwrap().clone();
    assert_eq!(wakes, [json!({"mode": "now", "text": event(3, None).text})]);
}

/// With no sink configured, the daemon finds the gateway in the OpenClaw config (port and
/// token), says so at start-up, and a stuck task is acknowledged by the gateway once, with
/// its event id in the packet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_finds_the_gateway_in_the_openclaw_config_and_wakes_it_once() {
    let gateway = StandIn::start("from-config", Behaviour::Ack).await;
    let dir = tempfile::tempdir().unwrap();
    let state = gateway.config_in(dir.path(), "from-config");
    let state_dir = state.to_str().unwrap();
    let daemon = DaemonProcess::start_with(
        dir.path(),
        "[stuck]\nthreshold_s = 1\nscan_interval_s = 1\ncooldown_s = 600\n",
        &[("OPENCLAW_STATE_DIR", state_dir), ("LOOKOUT_LOG", "info")],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let task = ok(&mut client, "task_register", deploy_task()).await;
    wait_until(
        "the gateway acknowledged the stuck alert",
        Duration::from_secs(20),
        async || !gateway.texts().is_empty(),
    )
    .await;
    let text = gateway.texts()[0].clone();
    let packet: Value =
        serde_json::from_str(text.strip_prefix("[task_stuck_resume] ").unwrap()).unwrap();
    assert_eq!(packet["task_id"], task["task_id"]);
    assert_eq!(packet["event_id"], "e-000001");
    let log = daemon.log_text();
    assert!(
        log.contains(&format!(
            "wake sinks: openclaw (the OpenClaw gateway at {}",
            gateway.url
        )),
        "{log}"
    );
    assert!(log.contains("connected to OpenClaw 2026.9.6"), "{log}");
    let status = ok(&mut client, "daemon.status", json!({})).await;
    assert!(
        status["wake"]["sink_states"]["openclaw"]
            .as_str()
            .unwrap()
            .starts_with("connected to OpenClaw 2026.9.6"),
        "{status}"
    );
    wait_until(
        "the delivery is recorded",
        Duration::from_secs(10),
        async || ok(&mut client, "daemon.status", json!({})).await["wake"]["pending"] == 0,
    )
    .await;
    assert_eq!(gateway.texts().len(), 1, "delivered once");
    assert_eq!(gateway.connections.load(Ordering::SeqCst), 1);

    // A Claude Code session's wake is its monitor's, not OpenClaw's: waking the gateway's
    // main session with it would wake the wrong agent. It is not left pending either.
    let mut claude_task = deploy_task();
    claude_task["session_key"] = json!("claude-code:0b6f1c");
    ok(&mut client, "task_register", claude_task).await;
    wait_until(
        "the Claude Code task's stuck alert is made and settled",
        Duration::from_secs(20),
        async || {
            let wake = &ok(&mut client, "daemon.status", json!({})).await["wake"];
            wake["events"] == 2 && wake["pending"] == 0
        },
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        gateway.texts().len(),
        1,
        "the gateway heard only its own wake"
    );
}

/// A session as OpenClaw 2026.9.6's `sessions.list` lists it.
fn session_row(key: &str, session_id: &str, updated_ms: u64) -> Value {
    json!({"key": key, "kind": "direct", "agentId": "main", "isMain": false,
           "chatType": "direct", "updatedAt": updated_ms, "sessionId": session_id,
           "archived": false, "pinned": false})
}

/// The messages of one turn as its `chat.history` gives them: the request, an `exec` call,
/// its result and the answer.
fn turn(at_ms: u64, request: &str, command: &str, output: &str, answer: &str) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": request, "timestamp": at_ms,
               "idempotencyKey": "k2:user"}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "call_1",
               "name": "exec", "arguments": {"command": command}}],
               "stopReason": "toolUse", "timestamp": at_ms + 400}),
        json!({"role": "toolResult", "toolCallId": "call_1", "toolName": "exec",
               "content": [{"type": "text", "text": output}], "isError": false,
               "timestamp": at_ms + 800}),
        json!({"role": "assistant", "content": [{"type": "text", "text": answer}],
               "stopReason": "stop", "timestamp": at_ms + 1_200}),
    ]
}

/// With `[recall] sources = ["openclaw"]`, the daemon reads the sessions of the gateway it
/// found in the OpenClaw config: a session is found by what the agent ran, redacted, under
/// its agent; what it says later is read at the next look; forgotten by its agent, it is not
/// read again though it goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openclaw_sessions_are_found_followed_and_forgotten() {
    let gateway = StandIn::start("sessions", Behaviour::Ack).await;
    let start_ms = 1_795_995_382_947;
    gateway.sessions.lock().unwrap().push((
        session_row("agent:main:ops", "73d7f0f4", start_ms),
        turn(
            start_ms - 60_000,
            "run the disk check on web-3 then rotate the nginx logs",
            "GITHUB_TOKEN=ghp_Zq4abcdefghijklmnopqrstuvwxyz0123456 df -h /var && logrotate -f /etc/logrotate.d/nginx",
            "/dev/vda 252G 34G 58G 37% /",
            "Disk usage is fine; the nginx logs are rotated.",
        ),
    ));
    let dir = tempfile::tempdir().unwrap();
    let state = gateway.config_in(dir.path(), "sessions");
    let daemon = DaemonProcess::start_with(
        dir.path(),
        "[recall]\nsources = [\"openclaw\"]\n",
        &[
            ("OPENCLAW_STATE_DIR", state.to_str().unwrap()),
            ("LOOKOUT_LOG", "info"),
        ],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut found = Value::Null;
    wait_until(
        "the session is indexed",
        Duration::from_secs(20),
        async || {
            found = recall_transcripts(&mut client, "rotate nginx logs web-3").await;
            found["results"].as_array().is_some_and(|r| !r.is_empty())
        },
    )
    .await;
    let first = &found["results"][0];
    assert_eq!(first["project"], "openclaw:main", "{found}");
    assert!(
        first["summary"]
            .as_str()
            .unwrap()
            .starts_with("OpenClaw session agent:main:ops (agent main): 1 request, 1 command"),
        "{found}"
    );
    let steps = first["steps"].to_string();
    assert!(steps.contains("Ran: GITHUB_TOKEN="), "{steps}");
    assert!(steps.contains("logrotate -f"), "{steps}");
    assert!(!found.to_string().contains("ghp_Zq4"), "redacted: {found}");
    assert!(
        found["message"]
            .as_str()
            .unwrap()
            .contains("1 past agent session"),
        "{found}"
    );
    assert!(
        daemon.log_text().contains(&format!(
            "recall reads OpenClaw's sessions from the gateway at {}",
            gateway.url
        )),
        "{}",
        daemon.log_text()
    );

    // The session goes on: its next turn is read at the next look.
    let later_ms = start_ms + 3_600_000;
    {
        let mut sessions = gateway.sessions.lock().unwrap();
        let (row, messages) = &mut sessions[0];
        row["updatedAt"] = json!(later_ms);
        messages.extend(turn(
            later_ms,
            "renew the certificate of web-3",
            "certbot renew --cert-name web-3.example.org",
            "Congratulations, all renewals succeeded",
            "The certificate of web-3 is renewed.",
        ));
    }
    wait_until(
        "the next turn is indexed",
        Duration::from_secs(20),
        async || {
            let found = recall_transcripts(&mut client, "certbot renewals").await;
            found["results"][0]["steps"]
                .to_string()
                .contains("Ran: certbot renew")
        },
    )
    .await;
    let histories = || {
        gateway
            .methods
            .lock()
            .unwrap()
            .iter()
            .filter(|m| *m == "chat.history")
            .count()
    };
    // A look that finds nothing changed reads no history.
    let read = histories();
    tokio::time::sleep(actors::recall::actor::TRANSCRIPTS_PERIOD * 2).await;
    assert_eq!(histories(), read, "an unchanged session is not read again");

    // Forgotten by its agent, it stays forgotten while it goes on.
    let forgotten = ok(
        &mut client,
        "recall.forget",
        json!({"app": "openclaw:main"}),
    )
    .await;
    assert_eq!(forgotten["forgotten"], 1, "{forgotten}");
    let read = histories();
    {
        let mut sessions = gateway.sessions.lock().unwrap();
        let (row, messages) = &mut sessions[0];
        row["updatedAt"] = json!(later_ms + 10_000);
        messages.extend(turn(
            later_ms + 9_000,
            "vacuum the analytics database",
            "psql -c 'VACUUM'",
            "VACUUM",
            "Vacuumed.",
        ));
    }
    tokio::time::sleep(actors::recall::actor::TRANSCRIPTS_PERIOD * 2).await;
    let after = recall_transcripts(&mut client, "rotate nginx logs").await;
    assert_eq!(after["results"], json!([]), "{after}");
    let after = recall_transcripts(&mut client, "vacuum analytics").await;
    assert_eq!(after["results"], json!([]), "{after}");
    assert_eq!(histories(), read, "a forgotten session is not read again");
}

/// `[recall] sources = ["openclaw"]` with no gateway anywhere says so at start-up, and how
/// to fix it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openclaw_sessions_without_a_gateway_say_where_lookout_looked() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("no-openclaw");
    std::fs::create_dir_all(&empty).unwrap();
    let daemon = DaemonProcess::start_with(
        dir.path(),
        "[recall]\nsources = [\"openclaw\"]\n",
        &[
            ("OPENCLAW_STATE_DIR", empty.to_str().unwrap()),
            ("LOOKOUT_LOG", "info"),
        ],
    );
    let log = daemon.log_text();
    assert!(
        log.contains(
            "[recall] sources names \"openclaw\", but no OpenClaw gateway was found (looked for"
        ) && log.contains("configure the gateway"),
        "{log}"
    );
}
