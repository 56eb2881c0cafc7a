//! Waiting on the agent's own background commands, through the real binary and socket:
//! `pty:<id>` of an OpenClaw exec session, read from a loopback stand-in of the gateway's
//! task ledger (the entries and refusals a real OpenClaw 2026.9.6 gives), and `file:` on the
//! output file of a command a Claude Code agent backgrounded.

use std::time::Duration;

use lookout::client::Client;
use lookout::jsonrpc::codes;
use serde_json::{Value, json};

use crate::gateway::{Behaviour, StandIn};
use crate::support::{DaemonProcess, TestDaemon, err, ok, wait_until};

const PATIENCE: Duration = Duration::from_secs(20);

/// A ledger entry for a backgrounded exec command, as `tasks.list` gives it.
fn exec_entry(task_id: &str, session_id: &str, command: &str, started: u64) -> Value {
    json!({
        "id": task_id, "taskId": task_id, "kind": "exec", "runtime": "cli",
        "status": "running", "execution": {"state": "running", "lastActivityAt": started + 500},
        "title": command, "agentId": "main", "sessionKey": "agent:main:main",
        "hasTranscript": true, "ownerKey": "agent:main:main",
        "runId": format!("exec:{session_id}"), "sourceId": session_id,
        "createdAt": started, "updatedAt": started, "startedAt": started,
        "deliveryStatus": "not_applicable"
    })
}

fn set_ended(gateway: &StandIn, task_id: &str, status: &str, error: Option<&str>) {
    let mut ledger = gateway.ledger.lock().unwrap();
    let entry = ledger.iter_mut().find(|t| t["taskId"] == task_id).unwrap();
    entry["status"] = json!(status);
    entry["execution"] = json!({"state": "finished"});
    entry["endedAt"] = json!(1795626860712u64);
    if let Some(error) = error {
        entry["error"] = json!(error);
    }
}

async fn status_of(client: &mut Client, wait_id: &str) -> Value {
    ok(client, "wait_status", json!({"wait_id": wait_id})).await
}

async fn wait_for_state(client: &mut Client, wait_id: &str, state: &str) -> Value {
    wait_until(
        &format!("wait {wait_id} is {state}"),
        PATIENCE,
        async || status_of(client, wait_id).await["status"] == state,
    )
    .await;
    status_of(client, wait_id).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_openclaw_exec_session_is_watched_in_the_gateway_ledger_until_it_ends() {
    let gateway = StandIn::start("gw-token", Behaviour::Ack).await;
    gateway.ledger.lock().unwrap().extend([
        exec_entry("t-old", "tidal-otter", "make lint", 1795626000000),
        exec_entry("t-build", "tidal-otter", "make test", 1795626844653),
        exec_entry("t-serve", "brisk-heron", "npm run serve", 1795626844700),
    ]);
    set_ended(&gateway, "t-old", "completed", None);
    let dir = tempfile::tempdir().unwrap();
    let state = gateway.config_in(dir.path(), "gw-token");
    let daemon = DaemonProcess::start_with(
        dir.path(),
        "",
        &[("OPENCLAW_STATE_DIR", state.to_str().unwrap())],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();

    // The running session of that id (not the older one that reused it) is watched.
    let started = ok(
        &mut client,
        "smart_wait",
        json!({"target": "pty:tidal-otter", "wake_when": "the command finishes",
               "poll_interval": 0.2, "timeout": 120}),
    )
    .await;
    let message = started["message"].as_str().unwrap();
    assert!(
        message.contains("your OpenClaw exec session tidal-otter (`make test`, running)")
            && message.contains("not its output"),
        "{message}"
    );
    let build = started["wait_id"].as_str().unwrap().to_owned();

    // What it prints cannot be judged: refused, with the ways that work.
    let output = err(
        &mut client,
        "smart_wait",
        json!({"target": "pty:tidal-otter", "wake_when": "'BUILD OK' is printed or an error appears"}),
    )
    .await;
    assert_eq!(output.code, codes::INVALID_PARAMS);
    assert!(
        output.message.contains("\"'BUILD OK' is printed\"")
            && output.message.contains("not what it prints"),
        "{}",
        output.message
    );
    assert!(
        output.hint.contains("the command finishes") && output.hint.contains("file:"),
        "{}",
        output.hint
    );

    // An id of neither kind lists the live sessions of both, newest first.
    let unknown = err(
        &mut client,
        "smart_wait",
        json!({"target": "pty:quiet-fox", "wake_when": "the command finishes"}),
    )
    .await;
    assert_eq!(unknown.code, codes::NOT_FOUND);
    assert!(
        unknown.message.contains("pty:quiet-fox"),
        "{}",
        unknown.message
    );
    assert!(
        unknown
            .hint
            .contains("running terminal sessions of this daemon: none")
            && unknown.hint.contains(
                "running OpenClaw exec sessions: brisk-heron (`npm run serve`, running), \
                 tidal-otter (`make test`, running)"
            ),
        "{}",
        unknown.hint
    );

    // Its exit is the observation: status 3 from the ledger's "Command failed (exit code 3)".
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(status_of(&mut client, &build).await["status"], "watching");
    set_ended(
        &gateway,
        "t-build",
        "failed",
        Some("Command failed (exit code 3)"),
    );
    let resolved = wait_for_state(&mut client, &build, "resolved").await;
    let observation = resolved["last_observation"].as_str().unwrap();
    assert!(
        observation.starts_with("the process exited with status 3")
            && observation.contains("its output is not visible to lookout"),
        "{observation}"
    );

    // A session the ledger drops (the gateway restarted) ends its wait in error, saying so.
    let serve = ok(
        &mut client,
        "smart_wait",
        json!({"target": "pty:brisk-heron", "wake_when": "it succeeds", "poll_interval": 0.2}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    tokio::time::sleep(Duration::from_millis(500)).await;
    gateway
        .ledger
        .lock()
        .unwrap()
        .retain(|t| t["taskId"] != "t-serve");
    let failed = wait_for_state(&mut client, &serve, "error").await;
    let cause = failed["history"].as_array().unwrap().last().unwrap()["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        cause.contains("brisk-heron is no longer in the task ledger")
            && cause.contains("restarted"),
        "{cause}"
    );

    // A gateway that will not let lookout read its ledger: refused with what to change.
    gateway
        .refuse_ledger
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let refused = err(
        &mut client,
        "smart_wait",
        json!({"target": "pty:calm-reef", "wake_when": "the command finishes"}),
    )
    .await;
    assert_eq!(refused.code, codes::UNAVAILABLE);
    assert!(
        refused.message.contains("missing scope: operator.read")
            && refused.message.contains("gateway.auth.token"),
        "{}",
        refused.message
    );

    // Reading the ledger and waking the agent is all lookout did: nothing that drains the
    // agent's output. The wakes went to the same gateway, the default sink here.
    let methods = gateway.methods.lock().unwrap().clone();
    assert!(
        methods.iter().all(|method| {
            ["connect", "tasks.list", "tasks.get", "wake"].contains(&method.as_str())
        }),
        "{methods:?}"
    );
    let wakes = gateway.texts();
    assert!(
        wakes
            .iter()
            .any(|text| text.starts_with(&format!("smart_wait resolved ({build})"))),
        "{wakes:?}"
    );
    assert!(
        methods.iter().any(|method| method == "tasks.get"),
        "{methods:?}"
    );
}

/// Without an OpenClaw gateway, a `pty:` id that is not this daemon's is taken for an
/// exec session: the refusal says where lookout looked for the gateway and how to point it
/// there, and lists the daemon's own sessions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_gateway_an_unknown_pty_id_says_where_the_gateway_was_looked_for() {
    let dir = tempfile::tempdir().unwrap();
    // The daemon as a user starts it, with no sink configured and no OpenClaw set up.
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let session = ok(&mut client, "term_start", json!({"command": "sleep 30"})).await["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let unknown = err(
        &mut client,
        "smart_wait",
        json!({"target": "pty:crisp-ridge", "wake_when": "the command finishes"}),
    )
    .await;
    assert_eq!(unknown.code, codes::NOT_FOUND);
    let config = dir.path().join("no-openclaw/openclaw.json");
    assert!(
        unknown
            .message
            .contains("probably an OpenClaw exec session")
            && unknown.message.contains(&format!(
                "lookout looked for {} (not there); $OPENCLAW_GATEWAY_URL",
                config.display()
            )),
        "{}",
        unknown.message
    );
    assert!(
        unknown.hint.contains("OPENCLAW_GATEWAY_URL")
            && unknown.hint.contains("lookout setup openclaw")
            && unknown.hint.contains(&format!(
                "running terminal sessions of this daemon: {session} (`sleep 30`)"
            )),
        "{}",
        unknown.hint
    );
    // An id of lookout's own shape is not taken for an exec session.
    let gone = err(
        &mut client,
        "smart_wait",
        json!({"target": "pty:s-zzzzzz", "wake_when": "the command finishes"}),
    )
    .await;
    assert!(!gone.message.contains("OpenClaw"), "{}", gone.message);
    ok(
        &mut client,
        "term_stop",
        json!({"session_id": session, "signal": "KILL"}),
    )
    .await;
}

/// A command backgrounded by Claude Code writes its output file from its first byte; a
/// wait on it counts what was printed before the wait began and decides "finishes" from
/// the summary line, saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_background_output_file_is_read_from_its_first_line() {
    let daemon = TestDaemon::start().await;
    let folder = daemon
        .dir
        .path()
        .join("claude-1000")
        .join("-home-ann-shop")
        .join("tasks");
    std::fs::create_dir_all(&folder).unwrap();
    let output = folder.join("b7x2k9.output");
    // The command starts now, as Claude Code starts it, and is already half-way through
    // when the agent thinks of waiting.
    let mut command = std::process::Command::new("sh")
        .arg("-c")
        .arg(
            "echo 'running 12 tests'; echo 'test result: ok. 12 passed; 0 failed'; sleep 2; \
             echo 'Compiling shop v0.1.0'; sleep 1; echo 'Finished release [optimized]'",
        )
        .stdout(std::fs::File::create(&output).unwrap())
        .spawn()
        .unwrap();
    wait_until("the tests printed their summary", PATIENCE, async || {
        std::fs::read_to_string(&output)
            .unwrap_or_default()
            .contains("test result")
    })
    .await;
    let target = format!("file:{}", output.display());
    let tests = daemon
        .ok(
            "smart_wait",
            json!({"target": target, "wake_when": "'test result: ok' is printed", "poll_interval": 0.2}),
        )
        .await;
    let message = tests["message"].as_str().unwrap();
    assert!(
        message.contains("output file of a command you backgrounded")
            && message.contains("holds no exit status"),
        "{message}"
    );
    let finished = daemon
        .ok(
            "smart_wait",
            json!({"target": target, "wake_when": "the build finishes", "poll_interval": 0.2,
                   "match_existing": false}),
        )
        .await;
    let mut client = daemon.client().await;
    let tests_state =
        wait_for_state(&mut client, tests["wait_id"].as_str().unwrap(), "resolved").await;
    assert_eq!(
        tests_state["last_observation"],
        "test result: ok. 12 passed; 0 failed"
    );
    let finished_state = wait_for_state(
        &mut client,
        finished["wait_id"].as_str().unwrap(),
        "resolved",
    )
    .await;
    assert_eq!(
        finished_state["last_observation"],
        "Finished release [optimized]"
    );
    command.wait().unwrap();
    // An ordinary log still starts from its end, as before.
    let log = daemon.dir.path().join("build.log");
    std::fs::write(&log, "test result: ok. old run\n").unwrap();
    let old = daemon
        .ok(
            "smart_wait",
            json!({"target": format!("file:{}", log.display()), "wake_when": "'test result: ok' is printed"}),
        )
        .await;
    assert!(
        !old["message"]
            .as_str()
            .unwrap()
            .contains("command you backgrounded"),
        "{old}"
    );
    daemon
        .ok("wait_cancel", json!({"wait_id": old["wait_id"]}))
        .await;
}
