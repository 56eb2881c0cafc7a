//! The real Claude Code (pinned, from the npm registry) with the plugin `lookout setup
//! claude-code` installs, against a loopback stand-in for the model API: the model calls
//! `smart_wait`, the line is written, and the plugin's monitor starts that session's next
//! turn with the wake text in it, once, also after a daemon restart; an idle second session
//! with the plugin gets nothing. Full tier: it needs npm, the registry and tmux.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lookout::client::Client;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::setup::{CLAUDE_CODE_VERSION, real_claude};
use crate::support::{BINARY, DaemonProcess, Tmux, append, ok};

/// The API key the sessions use: fake, and approved in Claude Code's config.
const API_KEY: &str = "sk-ant-api03-lookout-tests-not-a-real-key-000000";
/// The plugin's `smart_wait`, as Claude Code names it.
const SMART_WAIT: &str = "mcp__plugin_lookout_lookout__smart_wait";
/// How long Claude Code may take to start, answer or pass a wake on.
const PATIENCE: Duration = Duration::from_secs(90);
/// How long to watch for a wake that must not come (again).
const QUIET: Duration = Duration::from_secs(4);

/// One request to the model API, as the stand-in saw it.
#[derive(Clone, Debug)]
struct ModelRequest {
    /// Claude Code's `X-Claude-Code-Session-Id`.
    session: String,
    at: Instant,
    body: Value,
}

impl ModelRequest {
    /// The last message of `role`. Claude Code merges neighbouring messages of one role (the
    /// user message after the model's last reply holds every tool result first, then the
    /// prompts and notices in the order they came).
    fn last_message(&self, role: &str) -> Value {
        self.body["messages"]
            .as_array()
            .and_then(|messages| messages.iter().rev().find(|m| m["role"] == role))
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// The newest prompt or notice: the last block of the last user message.
    fn newest(&self) -> Value {
        self.last_message("user")["content"]
            .as_array()
            .and_then(|blocks| blocks.last().cloned())
            .unwrap_or(Value::Null)
    }

    /// The user's prompt `WAIT FOR <phrase> IN <path>`: what to wait for, and where.
    fn wait_asked(&self) -> Option<(String, String)> {
        let newest = self.newest();
        let text = newest["text"].as_str()?.trim();
        let (phrase, path) = text.strip_prefix("WAIT FOR ")?.split_once(" IN ")?;
        Some((phrase.to_owned(), path.to_owned()))
    }

    /// The tool results the request carries: the call's id and the result read as JSON.
    fn tool_results(&self) -> Vec<(String, Value)> {
        let message = self.last_message("user");
        let Some(blocks) = message["content"].as_array() else {
            return Vec::new();
        };
        blocks
            .iter()
            .filter(|block| block["type"] == "tool_result")
            .map(|block| {
                let text = match &block["content"] {
                    Value::String(text) => text.clone(),
                    blocks => blocks[0]["text"].as_str().unwrap_or("").to_owned(),
                };
                let id = block["tool_use_id"].as_str().unwrap_or("").to_owned();
                (id, serde_json::from_str(&text).unwrap_or(Value::Null))
            })
            .collect()
    }

    /// Whether this request is a turn started by the wake of `wait_id`.
    fn tells_wake_of(&self, wait_id: &str) -> bool {
        self.newest()
            .to_string()
            .contains(&format!("smart_wait resolved ({wait_id})"))
    }
}

/// What the stand-in has seen and done.
#[derive(Default)]
struct Conversation {
    requests: Vec<ModelRequest>,
    /// The tool calls whose results it has answered.
    answered: HashSet<String>,
    calls: usize,
}

impl Conversation {
    /// The HTTP reply to `request` (its content type and body), which is kept.
    fn reply(&mut self, path: &str, request: ModelRequest) -> (&'static str, String) {
        let reply = if path.contains("count_tokens") {
            ("application/json", json!({"input_tokens": 1}).to_string())
        } else if request.body["stream"] == true {
            ("text/event-stream", stream_of(&self.answer(&request)))
        } else {
            let (content, stop_reason) = self.answer(&request);
            (
                "application/json",
                message_of(&content, stop_reason).to_string(),
            )
        };
        self.requests.push(request);
        reply
    }

    /// What the model answers to `request`: the blocks and the stop reason. A request bringing
    /// the result of a call not answered yet continues that turn; any other starts one, with
    /// the newest prompt or notice.
    fn answer(&mut self, request: &ModelRequest) -> (Vec<Value>, &'static str) {
        let results = request.tool_results();
        let fresh = results
            .iter()
            .filter(|(id, _)| self.answered.insert(id.clone()));
        if fresh.count() > 0 {
            return (vec![text("Waiting for lookout's wake.")], "end_turn");
        }
        if let Some((phrase, path)) = request.wait_asked() {
            self.calls += 1;
            let call = json!({
                "type": "tool_use",
                "id": format!("toolu_lookout_{}", self.calls),
                "name": SMART_WAIT,
                "input": {"target": format!("file:{path}"),
                          "wake_when": format!("'{phrase}' appears"), "timeout": 600},
            });
            return (vec![call], "tool_use");
        }
        if request.newest().to_string().contains("smart_wait resolved") {
            return (vec![text("Woken: the wait resolved.")], "end_turn");
        }
        (vec![text("OK.")], "end_turn")
    }
}

/// A loopback stand-in for the Messages API that plays a model which waits with lookout:
/// asked to wait, it calls `smart_wait`; given the tool's result, it ends its turn; woken, it
/// says so. Every other request (titles, summaries) gets a short text.
struct ModelApi {
    url: String,
    conversation: Arc<Mutex<Conversation>>,
}

impl ModelApi {
    async fn start() -> ModelApi {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let conversation: Arc<Mutex<Conversation>> = Arc::default();
        let recorded = conversation.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let recorded = recorded.clone();
                tokio::spawn(async move {
                    let Some(request) = actors::testkit::http::read_request(&mut stream).await
                    else {
                        return;
                    };
                    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
                    let seen = ModelRequest {
                        session: request
                            .header("x-claude-code-session-id")
                            .unwrap_or("")
                            .to_owned(),
                        at: Instant::now(),
                        body,
                    };
                    let (content_type, reply) = recorded.lock().unwrap().reply(&request.path, seen);
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
                         request-id: req_lookout_tests\r\nConnection: close\r\n\r\n",
                        reply.len()
                    );
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(reply.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        ModelApi { url, conversation }
    }

    fn requests(&self) -> Vec<ModelRequest> {
        self.conversation.lock().unwrap().requests.clone()
    }

    /// Waits for the first request that `check` accepts.
    async fn request_where(
        &self,
        what: &str,
        check: impl Fn(&ModelRequest) -> bool,
        tmux: &Tmux,
    ) -> ModelRequest {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(found) = self.requests().into_iter().find(&check) {
                return found;
            }
            assert!(
                Instant::now() < deadline,
                "no model request {what} within {PATIENCE:?}; the last one ends with {}; \
                 the sessions show:\n{}",
                self.requests()
                    .last()
                    .map_or(Value::Null, |r| r.last_message("user")),
                screens(tmux)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn text(words: &str) -> Value {
    json!({"type": "text", "text": words})
}

fn message_of(content: &[Value], stop_reason: &str) -> Value {
    json!({
        "id": "msg_lookout_tests", "type": "message", "role": "assistant",
        "model": "claude-opus-5-5", "content": content, "stop_reason": stop_reason,
        "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1},
    })
}

/// The answer as the Messages API streams it: server-sent events.
fn stream_of((blocks, stop_reason): &(Vec<Value>, &'static str)) -> String {
    let mut events = String::new();
    let mut event = |name: &str, data: Value| {
        events.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    let mut start = message_of(&[], "");
    start["stop_reason"] = Value::Null;
    event(
        "message_start",
        json!({"type": "message_start", "message": start}),
    );
    for (index, block) in blocks.iter().enumerate() {
        let (opening, delta) = if block["type"] == "tool_use" {
            let mut opening = block.clone();
            opening["input"] = json!({});
            let partial = block["input"].to_string();
            (
                opening,
                json!({"type": "input_json_delta", "partial_json": partial}),
            )
        } else {
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            )
        };
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": opening}),
        );
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        );
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 1}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    events
}

/// A user's home with Claude Code set up as after its first run (onboarding done, the API
/// key approved, the project folders trusted: monitors do not run in an untrusted folder)
/// and the plugin installed by `lookout setup claude-code`.
struct ClaudeHome {
    home: PathBuf,
    environment: Vec<(String, String)>,
}

impl ClaudeHome {
    fn new(root: &Path, model: &ModelApi, projects: &[&Path]) -> ClaudeHome {
        let home = root.join("home");
        let bin = home.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(BINARY, bin.join("lookout")).unwrap();
        let path = format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            bin.display(),
            real_claude().display()
        );
        let trusted: serde_json::Map<String, Value> = projects
            .iter()
            .map(|project| {
                std::fs::create_dir_all(project).unwrap();
                (
                    project.display().to_string(),
                    json!({"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}),
                )
            })
            .collect();
        let key_tail = &API_KEY[API_KEY.len() - 20..];
        std::fs::write(
            home.join(".claude.json"),
            json!({
                // What a first run leaves behind: onboarding, the release notes and the
                // notice that auto mode is the default (its offer dialog stops here otherwise).
                "hasCompletedOnboarding": true, "theme": "dark",
                "lastOnboardingVersion": CLAUDE_CODE_VERSION, "lastReleaseNotesSeen": CLAUDE_CODE_VERSION,
                "hasSeenAutoDefaultNotice": true, "hasResetAutoModeOptInForDefaultOffer": true,
                "officialMarketplaceAutoInstallAttempted": true,
                "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
                "projects": trusted,
            })
            .to_string(),
        )
        .unwrap();
        let environment = [
            ("HOME", home.display().to_string()),
            ("PATH", path),
            (
                "XDG_DATA_HOME",
                home.join(".local/share").display().to_string(),
            ),
            (
                "XDG_CONFIG_HOME",
                home.join(".config").display().to_string(),
            ),
            (
                "XDG_STATE_HOME",
                home.join(".local/state").display().to_string(),
            ),
            (
                "LOOKOUT_CONFIG",
                root.join("config.toml").display().to_string(),
            ),
            ("ANTHROPIC_API_KEY", API_KEY.to_owned()),
            ("ANTHROPIC_BASE_URL", model.url.clone()),
            ("DISABLE_AUTOUPDATER", "1".to_owned()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
            ("TERM", "xterm-256color".to_owned()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
        let claude_home = ClaudeHome { home, environment };
        claude_home.install_plugin();
        claude_home
    }

    /// `lookout setup claude-code`, as the README says, then the one permission a user
    /// grants on the first call: the plugin's tools, in the default permission mode.
    fn install_plugin(&self) {
        let output = std::process::Command::new(BINARY)
            .args(["setup", "claude-code"])
            .env_clear()
            .envs(self.environment.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "lookout setup claude-code: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let settings_file = self.home.join(".claude/settings.json");
        let mut settings: Value =
            serde_json::from_str(&std::fs::read_to_string(&settings_file).unwrap()).unwrap();
        assert_eq!(
            settings["enabledPlugins"]["lookout@lookout"], true,
            "{settings}"
        );
        // Auto mode's checks run on Anthropic's servers, which the stand-in is not: off, as
        // for anyone whose requests go through a gateway of their own.
        settings["permissions"] = json!({"defaultMode": "default", "disableAutoMode": "disable",
                                         "allow": ["mcp__plugin_lookout_lookout"]});
        std::fs::write(&settings_file, settings.to_string()).unwrap();
    }

    /// A shell script that starts `claude` in `project` with this home's environment.
    fn launcher(&self, name: &str, project: &Path) -> String {
        let script = self.home.join(format!("{name}.sh"));
        let mut text = String::from("#!/bin/sh\n");
        for (name, value) in &self.environment {
            text.push_str(&format!("export {name}='{value}'\n"));
        }
        text.push_str(&format!(
            "cd '{}' && claude; echo 'claude exited'; sleep 600\n",
            project.display()
        ));
        std::fs::write(&script, text).unwrap();
        format!("sh {}", script.display())
    }
}

fn screen(tmux: &Tmux, session: &str) -> String {
    tmux.output(&["capture-pane", "-p", "-t", session])
}

fn screens(tmux: &Tmux) -> String {
    ["alice", "bob"]
        .iter()
        .map(|session| format!("--- {session}:\n{}", screen(tmux, session).trim_end()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until the session's screen shows `text`.
async fn shows(tmux: &Tmux, session: &str, text: &str) {
    let deadline = Instant::now() + PATIENCE;
    while !screen(tmux, session).contains(text) {
        assert!(
            Instant::now() < deadline,
            "{session} never showed {text:?}:\n{}",
            screens(tmux)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Types `line` into the session and presses Enter, as a user does.
async fn type_line(tmux: &Tmux, session: &str, line: &str) {
    tmux.run(&["send-keys", "-t", session, "-l", line]);
    tokio::time::sleep(Duration::from_millis(500)).await;
    tmux.run(&["send-keys", "-t", session, "Enter"]);
}

/// Types the prompt asking the model to wait for `phrase` in `log`, writes the line once the
/// wait is made, and returns the wait's id and the request the wake started; prints how long
/// after the line the wake reached the model.
async fn wait_and_wake(
    model: &ModelApi,
    tmux: &Tmux,
    socket: &Path,
    log: &Path,
    phrase: &str,
) -> (String, ModelRequest) {
    append(log, "starting");
    let prompt = format!("WAIT FOR {phrase} IN {}", log.display());
    type_line(tmux, "alice", &prompt).await;
    let target = format!("file:{}", log.display());
    let on_target = |request: &ModelRequest| {
        let results = request.tool_results().into_iter();
        results
            .map(|(_, result)| result)
            .find(|result| result["target"] == target)
    };
    let made = model
        .request_where(
            &format!("with smart_wait's result on {target}"),
            |request| on_target(request).is_some(),
            tmux,
        )
        .await;
    let result = on_target(&made).unwrap();
    assert_eq!(result["status"], "watching", "{result}");
    let wait_id = result["wait_id"].as_str().unwrap().to_owned();
    // Lookout's decision, as a subscriber of its own hears it.
    let mut listener = Client::connect(socket).await.unwrap();
    ok(&mut listener, "events.subscribe", json!({})).await;
    let written = Instant::now();
    append(log, phrase);
    let decided = loop {
        let heard = tokio::time::timeout(PATIENCE, listener.read_json())
            .await
            .expect("lookout decides within the time allowed")
            .unwrap();
        if heard["params"]["wait_id"] == wait_id.as_str() {
            assert_eq!(heard["params"]["kind"], "wait_resolved", "{heard}");
            break Instant::now();
        }
    };
    let woken = model
        .request_where(
            &format!("telling the wake of {wait_id}"),
            |request| request.tells_wake_of(&wait_id),
            tmux,
        )
        .await;
    println!(
        "claude code: the wake of {wait_id} reached the model {:.2} s after lookout decided \
         ({:.2} s after the line was written; the file is read every 2 s)",
        woken.at.saturating_duration_since(decided).as_secs_f64(),
        woken.at.duration_since(written).as_secs_f64()
    );
    assert_eq!(
        woken.session, made.session,
        "the wake reached the session that waited"
    );
    (wait_id, woken)
}

/// The turns the wake of `wait_id` started, and whether a session other than `own` was told.
fn turns_told(model: &ModelApi, wait_id: &str, own: &str) -> (usize, bool) {
    let requests = model.requests();
    let turns = requests.iter().filter(|r| r.tells_wake_of(wait_id)).count();
    let marker = format!("smart_wait resolved ({wait_id})");
    let elsewhere = requests
        .iter()
        .any(|r| r.session != own && r.body.to_string().contains(&marker));
    (turns, elsewhere)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs npm and the npm registry (the real claude) and tmux"
)]
async fn the_real_claude_code_is_woken_through_the_plugin_monitor_and_only_its_session() {
    let root = tempfile::tempdir().unwrap();
    let model = ModelApi::start().await;
    let (alice_project, bob_project) = (root.path().join("alice"), root.path().join("bob"));
    // The daemon writes the config file the sessions' `lookout` commands read its socket from.
    let mut daemon = DaemonProcess::start(root.path());
    let home = ClaudeHome::new(root.path(), &model, &[&alice_project, &bob_project]);

    let tmux = Tmux::start("alice", &home.launcher("alice", &alice_project));
    tmux.new_session("bob", &home.launcher("bob", &bob_project));
    // Each session runs the plugin's monitor (the status bar counts it).
    shows(&tmux, "alice", "1 monitor").await;
    shows(&tmux, "bob", "1 monitor").await;

    let (first, woken) = wait_and_wake(
        &model,
        &tmux,
        &daemon.socket,
        &root.path().join("build.log"),
        "BUILD OK",
    )
    .await;
    let alice = woken.session.clone();
    let wake = woken.newest().to_string();
    assert!(
        wake.contains("Monitor event") && wake.contains("[lookout e-"),
        "the turn is the monitor's event, with the wake text in it: {wake}"
    );
    assert_eq!(
        wake.matches(&format!("smart_wait resolved ({first})"))
            .count(),
        1,
        "the wake text once: {wake}"
    );
    shows(&tmux, "alice", "Woken: the wait resolved.").await;

    // The daemon restarts; the monitor follows it, and the next wait wakes Alice again.
    daemon.kill();
    daemon = DaemonProcess::start(root.path());
    let (second, _) = wait_and_wake(
        &model,
        &tmux,
        &daemon.socket,
        &root.path().join("deploy.log"),
        "DEPLOY OK",
    )
    .await;
    assert_ne!(second, first);

    // One turn per wake, in Alice's session only: the idle session was told nothing.
    tokio::time::sleep(QUIET).await;
    for wait_id in [&first, &second] {
        let (turns, elsewhere) = turns_told(&model, wait_id, &alice);
        assert_eq!(
            turns,
            1,
            "one turn for the wake of {wait_id}:\n{}",
            screens(&tmux)
        );
        assert!(!elsewhere, "another session heard the wake of {wait_id}");
    }
    daemon.kill();

    // Alice's session as the real Claude Code keeps it is found by recall once the daemon
    // reads the agent's own sessions (the real transcript format, not our model of it).
    let projects = home.home.join(".claude/projects");
    let recall = format!(
        "[recall]\nsources = [\"claude-code\"]\nclaude_projects = {:?}\n",
        projects.display().to_string()
    );
    let daemon = DaemonProcess::start_with(root.path(), &recall, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let deadline = Instant::now() + PATIENCE;
    let found = loop {
        let found = ok(
            &mut client,
            "memory_recall",
            json!({"query": "wait for BUILD OK", "source": "transcript"}),
        )
        .await;
        if found["results"].as_array().is_some_and(|r| !r.is_empty()) {
            break found;
        }
        assert!(
            Instant::now() < deadline,
            "no session found under {}: {found}",
            projects.display()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let session = &found["results"][0];
    assert_eq!(session["source"], "transcript", "{found}");
    assert!(
        session["project"].as_str().unwrap().ends_with("alice"),
        "{found}"
    );
    let steps = session["steps"].to_string();
    assert!(steps.contains("Asked: WAIT FOR BUILD OK IN"), "{found}");
    assert!(
        !steps.contains("Asked: <") && !steps.contains("Monitor event"),
        "only what the user asked is a request: {found}"
    );
}
