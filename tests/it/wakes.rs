//! Stuck alerts and durable wake delivery end to end: real time, real sinks (a program, a
//! loopback HTTP server, a fake `openclaw` on PATH), the real socket and the real binary.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lookout::client::Client;
use serde_json::{Value, json};

use crate::support::{
    DaemonProcess, HttpStub, TestDaemon, append, deploy_task, ok, wait_until, write_script,
};

/// Stuck after one idle second, scanned every second, alerted once per ten minutes.
const QUICK_STUCK: &str = "[stuck]\nthreshold_s = 1\nscan_interval_s = 1\ncooldown_s = 600\n";
const PATIENCE: Duration = Duration::from_secs(20);

fn packet_of(text: &str) -> Value {
    let json = text
        .strip_prefix("[task_stuck_resume] ")
        .unwrap_or_else(|| panic!("no envelope: {text}"));
    serde_json::from_str(json).unwrap()
}

async fn status(client: &mut Client) -> Value {
    ok(client, "daemon.status", json!({})).await
}

/// A program sink that logs its argv (one argument per line, then `---`) and its stdin,
/// and fails until the file `deliver-ok` exists beside it.
fn recording_program(dir: &std::path::Path) -> std::path::PathBuf {
    write_script(
        dir,
        "sink.sh",
        r#"here="$(dirname "$0")"
[ -e "$here/deliver-ok" ] || { echo "not ready yet" >&2; exit 1; }
for arg in "$@"; do printf '%s\n' "$arg" >> "$here/args.log"; done
echo --- >> "$here/args.log"
cat >> "$here/stdin.log"
"#,
    )
}

/// An in-process daemon whose tasks go stuck after a second idle.
async fn quick_stuck_daemon() -> TestDaemon {
    TestDaemon::start_with(
        |config| {
            config.stuck.threshold_s = 1;
            config.stuck.scan_interval_s = 1;
        },
        None,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_task_wakes_subscribers_and_sinks_in_real_time() {
    let daemon = quick_stuck_daemon().await;
    let mut listener = daemon.client().await;
    let subscribed = ok(&mut listener, "events.subscribe", json!({})).await;
    assert_eq!(subscribed["subscribed"], true);
    let mut task = deploy_task();
    task["session_key"] = json!("agent:main:main");
    let task_id = daemon.ok("task_register", task).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let notification = tokio::time::timeout(PATIENCE, listener.read_json())
        .await
        .expect("an event within 20 s")
        .unwrap();
    assert_eq!(notification["method"], "event");
    let event = &notification["params"];
    assert_eq!(
        (event["kind"].clone(), event["task_id"].clone()),
        (json!("task_stuck"), json!(task_id))
    );
    assert_eq!(event["session_key"], "agent:main:main");
    assert!(event["id"].as_str().unwrap().starts_with("e-"));
    let packet = packet_of(event["text"].as_str().unwrap());
    assert_eq!(packet["name"], "Deploy coursefolio to production");
    assert!(
        packet["reason"]
            .as_str()
            .unwrap()
            .starts_with("no updates for")
    );

    wait_until("the recording sink got it", PATIENCE, async || {
        daemon.sink.received().len() == 1
    })
    .await;
    let thread = daemon.ok("task_thread", json!({"task_id": task_id})).await;
    let last = thread["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["msg_type"], "stuck");
    let mut client = daemon.client().await;
    // The sink has the event; the Wake actor records the delivery right after.
    wait_until("the delivery is recorded", PATIENCE, async || {
        status(&mut client).await["wake"]["pending"] == 0
    })
    .await;
    let status = status(&mut client).await;
    assert_eq!(status["stuck"]["alerts"], 1);
    assert!(status["stuck"]["scans"].as_u64().unwrap() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_sink_gets_placeholders_as_single_arguments_and_the_event_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let program = recording_program(dir.path());
    std::fs::write(dir.path().join("deliver-ok"), "").unwrap();
    let marker = |name: &str| dir.path().join(format!("pwned-{name}"));
    // Were `{text}` ever handed to a shell, the substitutions would run inside the JSON's
    // double quotes and the separator outside them.
    let hostile_name = format!(
        "deploy $(touch {}) `touch {}`; touch {} #",
        marker("substitution").display(),
        marker("backticks").display(),
        marker("separator").display()
    );
    let config = format!(
        "{QUICK_STUCK}[[wake.sinks]]\nkind = \"command\"\nprogram = {:?}\nargs = [\"{{kind}}\", \"id={{event_id}}\", \"{{text}}\", \"{{session_key}}\"]\n",
        program.display().to_string()
    );
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut task = deploy_task();
    // Hostile text: it must reach the program as part of one argument, never as a command.
    task["name"] = json!(hostile_name);
    ok(&mut client, "task_register", task).await;

    let args_log = dir.path().join("args.log");
    let stdin_log = dir.path().join("stdin.log");
    // The script writes its arguments first, then its stdin: wait for both.
    wait_until("the sink ran", PATIENCE, async || {
        std::fs::read_to_string(&stdin_log).is_ok_and(|text| text.ends_with('\n'))
    })
    .await;
    let args = std::fs::read_to_string(&args_log).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args[0], "task_stuck");
    assert!(args[1].starts_with("id=e-"), "{args:?}");
    assert!(args[2].starts_with("[task_stuck_resume] {"), "{args:?}");
    assert_eq!(
        packet_of(args[2])["name"],
        json!(hostile_name),
        "the text arrives whole, as one argument"
    );
    assert_eq!(args[3], "", "no session key: an empty argument");
    assert_eq!(args[4], "---");
    for name in ["substitution", "backticks", "separator"] {
        assert!(!marker(name).exists(), "the task name ran ({name})");
    }
    let stdin = std::fs::read_to_string(&stdin_log).unwrap();
    let event: Value = serde_json::from_str(stdin.trim()).unwrap();
    assert_eq!(event["kind"], "task_stuck");
    assert_eq!(
        packet_of(event["text"].as_str().unwrap())["name"],
        json!(hostile_name)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_sink_posts_the_wake_body_with_the_bearer_token() {
    let stub = HttpStub::start(200).await;
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "{QUICK_STUCK}[[wake.sinks]]\nkind = \"webhook\"\nname = \"gateway\"\nurl = \"{}/hooks/wake\"\n\
         token_env = \"LOOKOUT_TEST_HOOK_TOKEN\"\nheaders = {{ \"X-Source\" = \"lookout\" }}\nsend_session_key = true\n",
        stub.url
    );
    let daemon = DaemonProcess::start_with(
        dir.path(),
        &config,
        &[("LOOKOUT_TEST_HOOK_TOKEN", "hook-s3cret")],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut task = deploy_task();
    task["session_key"] = json!("agent:main:main");
    let task_id = ok(&mut client, "task_register", task).await["task_id"].clone();

    wait_until("the webhook was called", PATIENCE, async || {
        !stub.requests().is_empty()
    })
    .await;
    let request = &stub.requests()[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/hooks/wake")
    );
    assert_eq!(request.header("authorization"), Some("Bearer hook-s3cret"));
    assert_eq!(request.header("x-source"), Some("lookout"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(body["mode"], "now");
    assert_eq!(body["sessionKey"], "agent:main:main");
    assert!(
        body["text"]
            .as_str()
            .unwrap()
            .starts_with("[task_stuck_resume] ")
    );
    assert_eq!(body["event"]["task_id"], task_id);
    assert_eq!(body["event"]["kind"], "task_stuck");

    // The token is a secret: not in the status, not in the log.
    let status = status(&mut client).await;
    assert!(!status.to_string().contains("hook-s3cret"));
    assert_eq!(status["wake"]["sinks"], json!(["gateway"]));
    drop(daemon);
    let log = std::fs::read_to_string(dir.path().join("daemon.log")).unwrap();
    assert!(!log.contains("hook-s3cret"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_refusal_is_recorded_and_never_retried() {
    let stub = HttpStub::start(400).await;
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "{QUICK_STUCK}[[wake.sinks]]\nkind = \"webhook\"\nurl = \"{}/hooks/wake\"\n",
        stub.url
    );
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    ok(&mut client, "task_register", deploy_task()).await;
    wait_until("the refusal is recorded", PATIENCE, async || {
        status(&mut client).await["wake"]["rejected"] == 1
    })
    .await;
    // Retries would come after 1, 2, 4 s; three seconds of quiet show there are none.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(stub.requests().len(), 1);
    assert_eq!(status(&mut client).await["wake"]["pending"], 0);
}

#[test]
fn a_missing_token_variable_stops_the_daemon_at_start_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let config = "[[wake.sinks]]\nkind = \"webhook\"\nurl = \"http://127.0.0.1:9/hooks/wake\"\ntoken_env = \"LOOKOUT_UNSET_TOKEN_VARIABLE\"\n";
    let mut daemon = DaemonProcess::spawn(dir.path(), config, &[]);
    let status = crate::support::wait_with_timeout(&mut daemon.child, PATIENCE);
    assert!(!status.success());
    let log = daemon.log_text();
    assert!(
        log.contains("LOOKOUT_UNSET_TOKEN_VARIABLE") && log.contains("is not set"),
        "{log}"
    );
}

/// The event is committed, its first attempt fails, the daemon is SIGKILLed; after the
/// restart the sink gets it exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_between_commit_and_delivery_delivers_exactly_once_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let program = recording_program(dir.path());
    let config = format!(
        "{QUICK_STUCK}[[wake.sinks]]\nkind = \"command\"\nprogram = {:?}\nargs = [\"{{event_id}}\"]\n",
        program.display().to_string()
    );
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    ok(&mut client, "task_register", deploy_task()).await;
    wait_until("an attempt failed", PATIENCE, async || {
        status(&mut client).await["wake"]["failed_attempts_since_start"].as_u64() >= Some(1)
    })
    .await;
    assert_eq!(status(&mut client).await["wake"]["pending"], 1);
    daemon.kill();

    std::fs::write(dir.path().join("deliver-ok"), "").unwrap();
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    wait_until("delivered after the restart", PATIENCE, async || {
        status(&mut client).await["wake"]["pending"] == 0
    })
    .await;
    let args = std::fs::read_to_string(dir.path().join("args.log")).unwrap();
    let delivered: Vec<&str> = args.lines().filter(|line| line.starts_with("e-")).collect();
    assert_eq!(delivered.len(), 1, "exactly once: {args}");
    assert_eq!(
        status(&mut client).await["stuck"]["alerts"],
        0,
        "no new alert: the cooldown survived the restart"
    );
}

/// A fake `openclaw` in `<dir>/bin` that records each call: its argument count and
/// arguments, NUL-terminated, to `argv.log` (so a text with newlines stays one argument),
/// and its stdin to `stdin.log`. Returns the bin folder and a PATH that starts with it.
fn fake_openclaw(dir: &Path) -> (PathBuf, String) {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    write_script(
        &bin,
        "openclaw",
        r#"here="$(dirname "$0")"
printf '%s\0' "$#" "$@" >> "$here/argv.log"
cat >> "$here/stdin.log"
"#,
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (bin, path)
}

/// One run of the fake `openclaw`: its arguments and the event it read on stdin.
#[derive(Debug)]
struct OpenClawCall {
    argv: Vec<String>,
    event: Value,
}

/// Every call the fake `openclaw` in `bin` recorded, in order.
fn openclaw_calls(bin: &Path) -> Vec<OpenClawCall> {
    let argv = std::fs::read_to_string(bin.join("argv.log")).unwrap_or_default();
    let mut fields = argv.split_terminator('\0');
    let mut argvs = Vec::new();
    while let Some(count) = fields.next() {
        let count: usize = count.parse().unwrap();
        let args: Vec<String> = fields.by_ref().take(count).map(str::to_owned).collect();
        assert_eq!(args.len(), count, "a whole call is recorded: {argv:?}");
        argvs.push(args);
    }
    let stdin = std::fs::read_to_string(bin.join("stdin.log")).unwrap_or_default();
    let events: Vec<Value> = stdin
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(argvs.len(), events.len(), "one event on stdin per call");
    argvs
        .into_iter()
        .zip(events)
        .map(|(argv, event)| OpenClawCall { argv, event })
        .collect()
}

/// Waits until the daemon recorded one delivery and has none pending, then gives any
/// repeat (a retry, a second wake) time to show, and returns the recorded calls.
async fn the_one_delivery(client: &mut Client, bin: &Path) -> Vec<OpenClawCall> {
    wait_until("the delivery is recorded", PATIENCE, async || {
        let wake = &status(client).await["wake"];
        wake["delivered_since_start"].as_u64() >= Some(1) && wake["pending"] == 0
    })
    .await;
    // The fake has exited (the delivery is recorded only then), so its logs are whole.
    let calls = openclaw_calls(bin);
    assert_eq!(calls.len(), 1, "{calls:?}");
    // A retry would come after 1 s and a second poll of a wait after 0.2 s.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let wake = &status(client).await["wake"];
    assert_eq!(
        (
            wake["delivered_since_start"].as_u64(),
            wake["pending"].as_u64()
        ),
        (Some(1), Some(0)),
        "{wake}"
    );
    assert_eq!(openclaw_calls(bin).len(), 1, "no second call");
    calls
}

/// With no sink configured and an `openclaw` on PATH, a stuck task produces exactly one
/// `openclaw system event --text … --mode now --session-key …` call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openclaw_on_path_is_woken_once_with_the_session_key() {
    let dir = tempfile::tempdir().unwrap();
    let (bin, path) = fake_openclaw(dir.path());
    let daemon = DaemonProcess::start_with(
        dir.path(),
        QUICK_STUCK,
        &[("PATH", &path), ("LOOKOUT_LOG", "info")],
    );
    assert!(
        daemon.log_text().contains("wake sinks: openclaw"),
        "{}",
        daemon.log_text()
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut task = deploy_task();
    task["session_key"] = json!("agent:main:telegram:42");
    let task_id = ok(&mut client, "task_register", task).await["task_id"].clone();

    let calls = the_one_delivery(&mut client, &bin).await;
    let call = &calls[0].argv;
    assert_eq!(&call[..3], ["system", "event", "--text"]);
    assert!(call[3].starts_with("[task_stuck_resume] {"), "{call:?}");
    assert_eq!(packet_of(&call[3])["task_id"], task_id);
    assert_eq!(
        &call[4..],
        ["--mode", "now", "--session-key", "agent:main:telegram:42"]
    );
    let event = &calls[0].event;
    assert_eq!(
        (&event["kind"], &event["task_id"], &event["text"]),
        (&json!("task_stuck"), &task_id, &json!(call[3]))
    );
}

/// With no sink configured and an `openclaw` on PATH, a `file:` wait linked to a task
/// produces exactly one call when its phrase is appended: the resolved wake, with the
/// task's session key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openclaw_on_path_is_woken_once_when_a_wait_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let (bin, path) = fake_openclaw(dir.path());
    let daemon = DaemonProcess::start_with(dir.path(), "", &[("PATH", &path)]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut task = deploy_task();
    task["session_key"] = json!("agent:main:telegram:42");
    let task_id = ok(&mut client, "task_register", task).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let log = dir.path().join("deploy.log");
    append(&log, "pulling image");
    let created = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", log.display()), "wake_when": "when 'deploy finished' is printed",
               "task_id": task_id, "poll_interval": 0.2, "timeout": 120}),
    )
    .await;
    let wait_id = created["wait_id"].as_str().unwrap().to_owned();
    // Watched at least once before the phrase arrives, so it is the append that resolves it.
    wait_until("a first look at the file", PATIENCE, async || {
        ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await["counters"]["captures"]
            .as_u64()
            >= Some(1)
    })
    .await;
    assert!(openclaw_calls(&bin).is_empty(), "no wake before the phrase");
    append(&log, "deploy finished on 3 hosts");

    let calls = the_one_delivery(&mut client, &bin).await;
    let call = &calls[0].argv;
    assert_eq!(&call[..3], ["system", "event", "--text"]);
    let text = &call[3];
    assert!(
        text.starts_with(&format!(
            "smart_wait resolved ({wait_id}): deploy finished on 3 hosts. Elapsed: "
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Task {task_id} \"Deploy coursefolio to production\": continue with step 1"
        )),
        "{text}"
    );
    assert_eq!(
        &call[4..],
        ["--mode", "now", "--session-key", "agent:main:telegram:42"]
    );
    let event = &calls[0].event;
    assert_eq!(
        (
            &event["kind"],
            &event["wait_id"],
            &event["task_id"],
            &event["session_key"]
        ),
        (
            &json!("wait_resolved"),
            &json!(wait_id),
            &json!(task_id),
            &json!("agent:main:telegram:42")
        )
    );
    let wait = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
    assert_eq!(wait["status"], "resolved", "{wait}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookout_events_prints_each_wake() {
    let daemon = quick_stuck_daemon().await;
    let mut events = tokio::process::Command::new(crate::support::BINARY)
        .args(["--socket", daemon.socket().to_str().unwrap(), "events"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = tokio::io::BufReader::new(events.stdout.take().unwrap());
    let mut stderr = tokio::io::BufReader::new(events.stderr.take().unwrap());
    // It says so on stderr once it has subscribed; only then can no event be missed.
    let mut hello = String::new();
    tokio::time::timeout(
        PATIENCE,
        tokio::io::AsyncBufReadExt::read_line(&mut stderr, &mut hello),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(hello.starts_with("Listening for wake events"), "{hello}");
    let task_id = daemon.ok("task_register", deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut line = String::new();
    tokio::time::timeout(
        PATIENCE,
        tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut line),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(line.starts_with("e-"), "{line}");
    assert!(
        line.contains(&format!("task_stuck {task_id}  [task_stuck_resume] ")),
        "{line}"
    );
}

/// `lookout wait` blocks through a daemon killed and started again (the wait resumes, the
/// command reconnects) and prints the wake text with exit code 0; `--timeout` gives up with
/// exit code 8 while the wait goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookout_wait_outlives_a_daemon_restart_and_prints_the_wake() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deploy.log");
    std::fs::write(&log, "starting\n").unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let created = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", log.display()), "wake_when": "when 'DEPLOY OK' is printed",
               "timeout": 120, "poll_interval": 0.2}),
    )
    .await;
    let wait_id = created["wait_id"].as_str().unwrap().to_owned();
    let socket = daemon.socket.to_str().unwrap().to_owned();
    let lookout_wait = |extra: &[&str]| {
        let mut command = tokio::process::Command::new(crate::support::BINARY);
        command
            .args(["--socket", &socket, "wait", &wait_id])
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        command
    };
    let gave_up = tokio::time::timeout(PATIENCE, lookout_wait(&["--timeout", "1"]).output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(gave_up.status.code(), Some(8));
    assert!(
        String::from_utf8_lossy(&gave_up.stderr).contains("is still watching after 1s"),
        "{gave_up:?}"
    );
    let waiting = lookout_wait(&[]).spawn().unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(client);
    daemon.kill();
    let daemon = DaemonProcess::start(dir.path());
    // Give the command time to subscribe again, then print the phrase.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    std::fs::write(&log, "starting\nDEPLOY OK\n").unwrap();
    let output = tokio::time::timeout(PATIENCE, waiting.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        stdout.starts_with(&format!("smart_wait resolved ({wait_id}): DEPLOY OK"))
            || stdout.starts_with(&format!("{wait_id} is resolved: DEPLOY OK")),
        "{stdout}"
    );

    let missing = tokio::process::Command::new(crate::support::BINARY)
        .args([
            "--socket",
            daemon.socket.to_str().unwrap(),
            "wait",
            "w-nosuch",
        ])
        .output()
        .await
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("hint:"));
}

/// `lookout events --follow --task ID` prints that task's events only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookout_events_follows_one_task() {
    let daemon = quick_stuck_daemon().await;
    let first = daemon.ok("task_register", deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut events = tokio::process::Command::new(crate::support::BINARY)
        .args([
            "--socket",
            daemon.socket().to_str().unwrap(),
            "--json",
            "events",
            "--follow",
        ])
        .args(["--task", &first])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = tokio::io::BufReader::new(events.stdout.take().unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let second = daemon.ok("task_register", deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Both tasks go stuck; only the first one's alert is printed.
    crate::support::wait_until("both alerts went out", PATIENCE, async || {
        daemon.sink.received().len() >= 2
    })
    .await;
    let mut line = String::new();
    tokio::time::timeout(
        PATIENCE,
        tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut line),
    )
    .await
    .unwrap()
    .unwrap();
    let printed: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(printed["params"]["task_id"], first.as_str());
    let mut more = String::new();
    let next = tokio::time::timeout(
        Duration::from_millis(700),
        tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut more),
    )
    .await;
    assert!(
        next.is_err(),
        "printed another event: {more} (second task {second})"
    );
}

/// A command sink that leaves work running in the background, holding its stdout and stderr,
/// and exits 0 has delivered: once, recorded as delivered, not retried until it gives up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_sink_that_backgrounds_work_delivers_once() {
    let dir = tempfile::tempdir().unwrap();
    let program = crate::support::write_script(
        dir.path(),
        "sink.sh",
        r#"here="$(dirname "$0")"
echo run >> "$here/runs.log"
sleep 30 &
exit 0
"#,
    );
    let config = format!(
        "{QUICK_STUCK}[[wake.sinks]]\nkind = \"command\"\nprogram = {:?}\ntimeout_s = 3\n",
        program.display().to_string()
    );
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    ok(&mut client, "task_register", deploy_task()).await;
    // The alert is counted a moment before its wake is queued: wait for the sink to have
    // run as well, not only for an empty queue.
    let runs_log = dir.path().join("runs.log");
    wait_until("the stuck alert is delivered", PATIENCE, async || {
        let status = status(&mut client).await;
        runs_log.exists() && status["stuck"]["alerts"] == 1 && status["wake"]["pending"] == 0
    })
    .await;
    let status = status(&mut client).await;
    assert_eq!(status["wake"]["dead"], 0, "{status}");
    assert_eq!(status["wake"]["failed_attempts_since_start"], 0, "{status}");
    let runs = std::fs::read_to_string(&runs_log).unwrap();
    assert_eq!(runs.lines().count(), 1, "delivered once: {runs}");
}

/// A daemon killed while a command sink runs leaves the sink's program behind; the next
/// start ends it (it carries the data folder it belongs to), and nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_daemon_s_sink_programs_are_ended_by_its_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let program = crate::support::write_script(
        dir.path(),
        "sink.sh",
        r#"here="$(dirname "$0")"
sleep 300 &
echo $! > "$here/child.pid"
echo $$ > "$here/sink.pid"
wait
"#,
    );
    let config = format!(
        "{QUICK_STUCK}[[wake.sinks]]\nkind = \"command\"\nprogram = {:?}\ntimeout_s = 600\n",
        program.display().to_string()
    );
    // A bystander with no marker: it must survive the sweep.
    let mut bystander = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .unwrap();
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    ok(&mut client, "task_register", deploy_task()).await;
    let pid_of = |name: &str| {
        std::fs::read_to_string(dir.path().join(name))
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
    };
    wait_until("the sink runs", PATIENCE, async || {
        pid_of("sink.pid").is_some() && pid_of("child.pid").is_some()
    })
    .await;
    drop(client);
    daemon.kill();
    let alive = |pid: u32| std::path::Path::new(&format!("/proc/{pid}")).exists();
    let (sink, child) = (pid_of("sink.pid").unwrap(), pid_of("child.pid").unwrap());
    assert!(
        alive(sink) && alive(child),
        "SIGKILL leaves the sink running"
    );

    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    wait_until("the orphans are ended", PATIENCE, async || {
        !alive(sink) && !alive(child)
    })
    .await;
    assert!(daemon.log_text().contains("ended wake sink programs"));
    assert!(
        bystander.try_wait().unwrap().is_none(),
        "a bystander is left alone"
    );
    bystander.kill().unwrap();
    let _ = bystander.wait();
}

/// A wake the webhook accepted but the agent never asked about comes back once, marked as a
/// reminder naming the first event; one the agent took (it asked `wait_status`) never does.
/// Until taken it is listed to a fresh session (the hook) and in `daemon.status`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wake_nobody_took_is_reminded_once_through_the_webhook() {
    let stub = HttpStub::start(200).await;
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[wake]\nremind_after_s = 2\n\n[[wake.sinks]]\nkind = \"webhook\"\nurl = \"{}/hooks/wake\"\n",
        stub.url
    );
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let task_id = ok(
        &mut client,
        "task_register",
        json!({"name": "Release v3", "plan": ["Build", "Test", "Ship"]}),
    )
    .await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut wait_on = async |step: u64, phrase: &str| {
        let file = dir.path().join(format!("step-{step}.log"));
        append(&file, "starting");
        let wait = ok(
            &mut client,
            "smart_wait",
            json!({
                "target": format!("file:{}", file.display()),
                "wake_when": format!("'{phrase}' is printed"),
                "task_id": task_id, "step": step,
            }),
        )
        .await;
        (file, wait["wait_id"].as_str().unwrap().to_owned())
    };
    let (built_log, built) = wait_on(1, "BUILD OK").await;
    let (tested_log, tested) = wait_on(2, "TESTS OK").await;
    let bodies = || -> Vec<Value> {
        stub.requests()
            .iter()
            .map(|request| serde_json::from_str(&request.body).unwrap())
            .collect()
    };
    let wakes_of = |wait: &str| -> Vec<Value> {
        bodies()
            .into_iter()
            .filter(|body| body["event"]["wait_id"] == wait)
            .collect()
    };

    // The first wake is taken: the agent asks about its wait.
    append(&built_log, "BUILD OK");
    wait_until("the build's wake was posted", PATIENCE, async || {
        !wakes_of(&built).is_empty()
    })
    .await;
    ok(&mut client, "wait_status", json!({"wait_id": built})).await;
    // The second is not.
    append(&tested_log, "TESTS OK");
    wait_until("the test's wake was reminded", PATIENCE, async || {
        wakes_of(&tested).len() >= 2
    })
    .await;
    let tested_wakes = wakes_of(&tested);
    let original = &tested_wakes[0]["event"];
    let reminder = &tested_wakes[1]["event"];
    assert_eq!(original["kind"], "wait_resolved");
    assert_eq!(reminder["kind"], "wait_resolved");
    assert_eq!(reminder["task_id"], task_id.as_str());
    let text = reminder["text"].as_str().unwrap();
    assert!(
        text.starts_with(&format!(
            "Reminder: nothing was asked about this wake ({})",
            original["id"].as_str().unwrap()
        )),
        "{text}"
    );
    assert!(text.contains("TESTS OK"), "{text}");

    // A fresh session reads the wake it never took, with the call that continues it.
    let socket = daemon.socket.to_str().unwrap().to_owned();
    let (code, out, err) = crate::support::cli(&["--socket", &socket, "hook", "session-start"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() <= 4096, "{} bytes", out.len());
    let line = out
        .lines()
        .find(|line| line.contains("wake not taken"))
        .unwrap_or_else(|| panic!("the untaken wake is listed: {out}"));
    assert!(line.contains(&tested), "{line}");
    assert!(
        !out.lines()
            .any(|line| line.contains("wake not taken") && line.contains(&built)),
        "a taken wake is not listed: {out}"
    );
    let status = status(&mut client).await;
    assert_eq!(status["wake"]["reminded"], 1, "{status}");
    assert!(status["wake"]["taken"].as_u64().unwrap() >= 1, "{status}");

    // The hook asked about the task: the wake is taken now, and no longer listed.
    let answer = ok(
        &mut client,
        "task_update",
        json!({"task_id": task_id, "query": "where am I?"}),
    )
    .await;
    assert_eq!(
        answer["inventory"]["wakes_not_taken"]
            .as_array()
            .map_or(0, Vec::len),
        0,
        "{answer}"
    );
    // Reminded once only, and the taken wake never: three scans past the reminder's due time.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(wakes_of(&tested).len(), 2, "{:?}", wakes_of(&tested));
    assert_eq!(wakes_of(&built).len(), 1, "{:?}", wakes_of(&built));
}
