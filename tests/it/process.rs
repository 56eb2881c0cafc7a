//! The real `lookout serve` binary: start-up errors, sockets, signals and crashes.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lookout::client::Client;
use serde_json::json;

use crate::support::{
    BINARY, DaemonProcess, all_message_contents, deploy_task, ok, stderr_of, wait_with_timeout,
    write_config,
};

fn serve(args: &[&str]) -> Command {
    let mut command = Command::new(BINARY);
    command
        .arg("serve")
        .args(args)
        .env("LOOKOUT_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

#[test]
fn defaults_need_no_config_and_sigterm_cleans_up() {
    let home = tempfile::tempdir().unwrap();
    let runtime = home.path().join("run");
    std::fs::create_dir(&runtime).unwrap();
    let mut child = serve(&[])
        .env("HOME", home.path())
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("LOOKOUT_CONFIG")
        .spawn()
        .unwrap();
    let socket = runtime.join("lookout/lookout.sock");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "no socket: {}",
            stderr_of(&mut child)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let folder_mode = std::fs::metadata(runtime.join("lookout"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    let socket_mode = std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!((folder_mode, socket_mode), (0o700, 0o600));
    assert!(
        home.path()
            .join(".local/share/lookout/lookout.redb")
            .exists(),
        "data under XDG data home"
    );

    crate::support::terminate(child.id());
    let status = wait_with_timeout(&mut child, Duration::from_secs(20));
    assert!(status.success(), "{status}");
    assert!(!socket.exists(), "the socket is removed on shutdown");
}

#[test]
fn a_second_daemon_on_the_same_data_fails_at_once_and_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let _first = DaemonProcess::start(dir.path());
    let other_socket = dir.path().join("other.sock");
    let config = write_config(dir.path(), "");
    let output = serve(&[
        "--config",
        config.to_str().unwrap(),
        "--socket",
        other_socket.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("already open in another process"),
        "{stderr}"
    );
    assert!(stderr.contains("another lookout daemon"), "{stderr}");
}

#[test]
fn a_live_socket_is_never_replaced_but_a_stale_one_is() {
    let dir = tempfile::tempdir().unwrap();
    let first = DaemonProcess::start(dir.path());
    // Another data folder, the same socket: refused while the first daemon lives.
    let other = tempfile::tempdir().unwrap();
    let other_config = other.path().join("config.toml");
    std::fs::write(
        &other_config,
        format!(
            "data_dir = {:?}\nsocket_path = {:?}\n",
            other.path().join("data"),
            first.socket
        ),
    )
    .unwrap();
    let output = serve(&["--config", other_config.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("already listening"), "{stderr}");
    assert!(
        std::os::unix::net::UnixStream::connect(&first.socket).is_ok(),
        "the first daemon still serves"
    );

    // Killed without cleanup, it leaves a stale socket; the next daemon replaces it.
    let socket = first.socket.clone();
    first.kill();
    assert!(socket.exists(), "SIGKILL leaves the socket behind");
    let second = DaemonProcess::start(dir.path());
    drop(second);
}

#[test]
fn config_errors_name_the_key_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "[storage]\ngroup_comit = false\n");
    let output = serve(&["--config", config.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("group_comit") && stderr.contains(config.to_str().unwrap()),
        "{stderr}"
    );

    // LOOKOUT_CONFIG names the file when --config is absent.
    let output = serve(&[]).env("LOOKOUT_CONFIG", &config).output().unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("group_comit"));
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs root and python3 (a client runs as a second user)"
)]
fn a_connection_from_another_uid_is_refused() {
    assert_eq!(
        lookout::config::paths::current_uid(),
        0,
        "this test runs a client as a second user, which needs root (CI runs as root)"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let daemon = DaemonProcess::start(dir.path());
    // Open the socket to everyone so that only the daemon's own peer check stands in the way.
    std::fs::set_permissions(&daemon.socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    // A raw client as that user: the daemon's own peer check answers it (at once, and may
    // close before the request is sent, so a failed send still reads the answer).
    let raw_client = "import socket, sys\n\
s = socket.socket(socket.AF_UNIX)\n\
s.connect(sys.argv[1])\n\
try:\n    s.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"task_list\"}\\n')\n\
except OSError:\n    pass\n\
print(s.makefile().readline())\n";
    // Twenty tries: each is answered, one is logged (the rest are counted at the minute).
    for _ in 0..20 {
        let output = Command::new("python3")
            .args(["-c", raw_client, daemon.socket.to_str().unwrap()])
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        let reply = String::from_utf8_lossy(&output.stdout);
        assert!(
            reply.contains("connection refused: this daemon serves uid 0, not uid 65534"),
            "{reply} {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let logged = daemon
        .log_text()
        .matches("refused a connection from another user")
        .count();
    assert_eq!(logged, 1, "one log line per refused user per minute");
    // lookout's own client, as that user, does not even send: the listener is not its user.
    let output = Command::new(BINARY)
        .args(["--socket", daemon.socket.to_str().unwrap(), "status"])
        .uid(65534)
        .gid(65534)
        .env("LOOKOUT_LOG", "error")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("refusing to talk to"), "{stderr}");
}

/// Acknowledged notes per task id.
type Acknowledged = Arc<Mutex<BTreeMap<String, Vec<String>>>>;

/// A client that sends `"<label> note <n>"` to the task for n = 0, 1, … until the daemon goes
/// away, recording each acknowledged note; a refusal ends it too, and is recorded in
/// `refused` when given.
fn spawn_note_writer(
    socket: &std::path::Path,
    task_id: String,
    label: String,
    acknowledged: Acknowledged,
    refused: Option<Arc<Mutex<Vec<String>>>>,
) -> tokio::task::JoinHandle<()> {
    let socket = socket.to_owned();
    tokio::spawn(async move {
        let Ok(mut client) = Client::connect(&socket).await else {
            return;
        };
        for n in 0.. {
            let content = format!("{label} note {n}");
            let params = json!({"task_id": task_id, "message": content});
            match client.call("task_update", params).await {
                Ok(Ok(_)) => acknowledged
                    .lock()
                    .unwrap()
                    .entry(task_id.clone())
                    .or_default()
                    .push(content),
                Ok(Err(error)) => {
                    if let Some(refused) = &refused {
                        refused
                            .lock()
                            .unwrap()
                            .push(format!("{content}: {error:?}"));
                    }
                    return;
                }
                Err(_) => return, // killed
            }
        }
    })
}

/// SIGKILL in the middle of a burst of updates, three times over: every update that was
/// acknowledged is in the thread after the restart, exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_a_burst_of_updates_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let acknowledged: Acknowledged = Arc::default();
    let mut task_ids = Vec::new();
    for cycle in 0..3 {
        let daemon = DaemonProcess::start(dir.path());
        if task_ids.is_empty() {
            let mut client = Client::connect(&daemon.socket).await.unwrap();
            for _ in 0..4 {
                task_ids.push(
                    ok(&mut client, "task_register", deploy_task()).await["task_id"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                );
            }
        }
        let writers: Vec<_> = task_ids
            .iter()
            .map(|task_id| {
                spawn_note_writer(
                    &daemon.socket,
                    task_id.clone(),
                    format!("cycle {cycle}"),
                    acknowledged.clone(),
                    None,
                )
            })
            .collect();
        // Let the burst run, then kill the daemon without warning.
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let count: usize = acknowledged.lock().unwrap().values().map(Vec::len).sum();
            if count >= (cycle + 1) * 200 {
                break;
            }
        }
        daemon.kill();
        for writer in writers {
            writer.await.unwrap();
        }
    }
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let acknowledged = acknowledged.lock().unwrap().clone();
    let mut total = 0;
    for (task_id, notes) in &acknowledged {
        let stored = all_message_contents(&mut client, task_id).await;
        for note in notes {
            assert_eq!(
                stored.iter().filter(|s| *s == note).count(),
                1,
                "acknowledged {note:?} of {task_id} is stored once"
            );
        }
        total += notes.len();
    }
    assert!(total >= 600, "the burst acknowledged {total} updates");
    let _ = daemon.terminate();
}

/// SIGTERM in the middle of a burst: the daemon finishes the requests in hand, answers them,
/// exits 0, and every acknowledged update is stored; no client sees a torn response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_a_burst_drains_in_flight_requests() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let task_id = ok(&mut client, "task_register", deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let acknowledged: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut writers = Vec::new();
    for writer in 0..4 {
        let (socket, task_id, acknowledged) =
            (daemon.socket.clone(), task_id.clone(), acknowledged.clone());
        writers.push(tokio::spawn(async move {
            let mut client = Client::connect(&socket).await.unwrap();
            for n in 0.. {
                let content = format!("writer {writer} note {n}");
                match client
                    .call(
                        "task_update",
                        json!({"task_id": task_id, "message": content}),
                    )
                    .await
                {
                    Ok(Ok(_)) => acknowledged.lock().unwrap().push(content),
                    Ok(Err(error)) => panic!("an update failed instead of draining: {error:?}"),
                    Err(lookout::client::ClientError::Protocol(line)) => {
                        panic!("torn response: {line}")
                    }
                    Err(_) => return, // the daemon closed the connection after draining
                }
            }
        }));
    }
    while acknowledged.lock().unwrap().len() < 200 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let status = daemon.terminate();
    assert!(status.success(), "{status}");
    for writer in writers {
        writer.await.unwrap();
    }
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let stored = all_message_contents(&mut client, &task_id).await;
    for note in acknowledged.lock().unwrap().iter() {
        assert!(stored.contains(note), "acknowledged {note:?} is stored");
    }
}

/// Random-looking so that no other text in a log or a reply contains them by chance.
const HOOK_TOKEN: &str = "hook-tok-7Qx3vLm9Pz";
const VISION_KEY: &str = "sk-vision-4Kd8Rw2Yt6";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_and_api_keys_never_reach_logs_status_or_error_messages() {
    use crate::support::{HttpStub, wait_until};
    const PATIENCE: Duration = Duration::from_secs(20);
    // Both servers refuse with 401 and quote the credentials they were sent.
    let hook = HttpStub::start_echoing_credentials(401).await;
    let model = HttpStub::start_echoing_credentials(401).await;
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[stuck]\nthreshold_s = 1\nscan_interval_s = 1\ncooldown_s = 600\n\
         [vision]\nbackend = \"openai\"\nbase_url = \"{}/v1\"\nmodel = \"llava\"\n\
         api_key_env = \"LOOKOUT_IT_VISION_KEY\"\nmin_interval_s = 0\n\
         [[wake.sinks]]\nkind = \"webhook\"\nurl = \"{}/hooks/wake\"\ntoken_env = \"LOOKOUT_IT_HOOK_TOKEN\"\n",
        model.url, hook.url
    );
    let daemon = DaemonProcess::start_with(
        dir.path(),
        &config,
        &[
            ("LOOKOUT_IT_HOOK_TOKEN", HOOK_TOKEN),
            ("LOOKOUT_IT_VISION_KEY", VISION_KEY),
            // As much logging as there is.
            ("LOOKOUT_LOG", "debug"),
        ],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut replies = Vec::new();
    replies.push(ok(&mut client, "task_register", deploy_task()).await);
    let file = dir.path().join("install.log");
    std::fs::write(&file, "").unwrap();
    let created = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", file.display()),
               "wake_when": "the log shows the installation succeeded",
               "poll_interval": 0.2, "timeout": 60}),
    )
    .await;
    let wait_id = created["wait_id"].as_str().unwrap().to_owned();
    replies.push(created);
    // New output after the wait began: the model is asked about it.
    std::fs::write(&file, "setting up nginx\n").unwrap();

    // The stuck alert reaches the webhook and is refused; the model refuses the judge call.
    wait_until("both servers refused", PATIENCE, async || {
        !hook.requests().is_empty() && !model.requests().is_empty()
    })
    .await;
    let wait_status =
        async |client: &mut Client| ok(client, "wait_status", json!({"wait_id": wait_id})).await;
    wait_until("the wait ended in an error", PATIENCE, async || {
        wait_status(&mut client).await["status"] == "error"
    })
    .await;
    wait_until("the refusal is recorded", PATIENCE, async || {
        ok(&mut client, "daemon.status", json!({})).await["wake"]["rejected"]
            .as_u64()
            .is_some_and(|rejected| rejected >= 1)
    })
    .await;
    // The secrets did travel, so the refusals above really quoted them.
    assert_eq!(
        hook.requests()[0].header("authorization"),
        Some(format!("Bearer {HOOK_TOKEN}").as_str())
    );
    assert_eq!(
        model.requests()[0].header("authorization"),
        Some(format!("Bearer {VISION_KEY}").as_str())
    );

    let failed_wait = wait_status(&mut client).await;
    assert!(
        failed_wait.to_string().contains("HTTP 401"),
        "the model's refusal is reported: {failed_wait}"
    );
    replies.push(failed_wait);
    replies.push(ok(&mut client, "daemon.status", json!({})).await);
    replies.push(ok(&mut client, "task_list", json!({"status": "all"})).await);
    let refused_update = crate::support::err(
        &mut client,
        "wait_update",
        json!({"wait_id": wait_id, "timeout": 0}),
    )
    .await;
    replies.push(json!({"message": refused_update.message, "hint": refused_update.hint}));
    drop(daemon);
    let log = std::fs::read_to_string(dir.path().join("daemon.log")).unwrap();
    assert!(
        log.contains("HTTP 401"),
        "the webhook's refusal is logged: {log}"
    );
    for secret in [HOOK_TOKEN, VISION_KEY] {
        assert!(!log.contains(secret), "{secret} in the log: {log}");
        for reply in &replies {
            assert!(!reply.to_string().contains(secret), "{secret} in {reply}");
        }
    }
}

/// The exit code of a daemon whose actor tree gave up: a crash loop past the restart
/// intensity, injected through the `harness` build's `LOOKOUT_HARNESS_FAULTS`.
#[cfg(feature = "harness")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_loop_past_the_restart_intensity_exits_70_and_says_why() {
    use lookout::daemon::{EXIT_TREE_FAILED, HARNESS_FAULTS_VAR};
    let dir = tempfile::tempdir().unwrap();
    // The Registry panics on every message once the daemon serves, so each restart dies
    // again on the first read it makes: the root's intensity limit (5 restarts in 60 s,
    // backoff from 100 ms doubling) runs out within a few seconds.
    let mut daemon =
        DaemonProcess::start_with(dir.path(), "", &[(HARNESS_FAULTS_VAR, "registry:every")]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let reply = tokio::time::timeout(
        Duration::from_secs(20),
        client.call("task_register", deploy_task()),
    )
    .await
    .expect("the call is answered (with an error), never left hanging");
    match reply {
        // Internal when the call's own message killed the registry; unavailable when it
        // came while the registry was down between restarts.
        Ok(Err(error)) => assert!([-32603, -32003].contains(&error.code), "{error:?}"),
        Ok(Ok(result)) => panic!("the registry was armed to panic, yet: {result}"),
        Err(error) => panic!("no answer, the connection failed: {error}"),
    }
    let status = wait_with_timeout(&mut daemon.child, Duration::from_secs(60));
    assert_eq!(
        status.code(),
        Some(i32::from(EXIT_TREE_FAILED)),
        "{status}: {}",
        daemon.log_text()
    );
    let log = daemon.log_text();
    for said in [
        "fault armed",
        "injected fault: the registry panics on this message",
        "the registry failed 6 times within 60s",
        "giving up so the service manager restarts the daemon",
        "the actor tree gave up; exiting so the service manager restarts lookout",
    ] {
        assert!(log.contains(said), "{said:?} is not in the log:\n{log}");
    }
}

/// Cycles of [`sigkill_cycles_under_updates_waits_and_stuck_alerts`]: `LOOKOUT_SIGKILL_CYCLES`,
/// 10 unless set (at least 1). `LOOKOUT_SIGKILL_CYCLES=100` is the long version (about two
/// minutes on a 2-core machine).
fn sigkill_cycles() -> usize {
    std::env::var("LOOKOUT_SIGKILL_CYCLES")
        .ok()
        .map(|value| value.parse().expect("LOOKOUT_SIGKILL_CYCLES is a number"))
        .unwrap_or(10)
        .max(1)
}

/// xorshift64*: the soak's random choices (kill moments, which waits resolve when).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// How a soak wait is meant to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// Its phrase is appended to its file at a random moment: during a cycle, while the
    /// daemon is down, or cycles later (it stays live across kills meanwhile).
    Resolve,
    /// A 1–3 s timeout: it runs out while serving, across a kill, or while the daemon is down.
    Timeout,
    /// An hour's timeout and a phrase that never comes: live across every kill and at the end.
    Live,
}

struct SoakWait {
    id: String,
    fate: Fate,
    file: std::path::PathBuf,
    phrase: String,
    appended: bool,
    /// Certainly live when a daemon was killed (its phrase not yet there, its timeout an hour).
    live_at_a_kill: bool,
}

impl SoakWait {
    fn append_phrase(&mut self) {
        crate::support::append(&self.file, &format!("some progress, then {}", self.phrase));
        self.appended = true;
    }
}

/// One line of the sink's log: one delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Delivered {
    event: String,
    kind: String,
    wait: String,
    task: String,
    /// Which daemon ran the sink: 0 for the first, one more at each restart. (Passed as an
    /// argument: a sink still starting when its daemon was killed sees init as its parent.)
    daemon: usize,
}

fn read_deliveries(log: &std::path::Path) -> Vec<Delivered> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields.len(), 5, "a torn delivery line: {line:?}");
            Delivered {
                event: fields[0].to_owned(),
                kind: fields[1].to_owned(),
                wait: fields[2].to_owned(),
                task: fields[3].to_owned(),
                daemon: fields[4].parse().unwrap(),
            }
        })
        .collect()
}

/// The real binary SIGKILLed `LOOKOUT_SIGKILL_CYCLES` times (10 by default; 100 for the long
/// version) while several clients stream `task_update`s, `file:` waits resolve (their phrase
/// appended during a cycle, while the daemon is down, or cycles later), time out (while
/// serving, at a kill, while down) or stay live across every kill, and quiet tasks go stuck
/// (`[stuck]` at its minimum: 1 s threshold, 1 s scans). Every wake goes to a command sink
/// that appends `<event id> <kind> <wait> <task> <daemon number>` to a file. After one more
/// restart:
///
/// - every acknowledged update is in its thread exactly once, and no update was refused
///   by a live daemon;
/// - every acknowledged wait is where its fate says: resolved, timed out, or still watching
///   (resumed), and the waits task's `active_wait_ids` are exactly its watching waits;
/// - every ended wait has exactly one wake event, of its kind; a live wait has none;
/// - every task except the one with live waits has exactly one stuck event (cooldown 1 day);
/// - the outbox is drained (`wake.pending` 0, nothing dead or rejected), and the sink saw
///   every stored event (`wake.events` distinct ids);
/// - duplicates: the design promises at-least-once delivery — a kill after the sink accepted
///   an event but before its outcome was committed means the next daemon delivers it again,
///   with the same id. So the check is strict about what that allows: one daemon process
///   never delivers an event twice, every line of one id names the same event, and a repeat
///   comes from a later process than the first delivery. Repeats are counted and printed.
///
/// The random choices (kill delays, downtimes, timeouts, when each phrase arrives) come from
/// `LOOKOUT_SIGKILL_SEED`, else the clock; the seed is printed and in every failure message.
/// It replays the schedule, not the exact interleaving: the daemon runs in real time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_cycles_under_updates_waits_and_stuck_alerts() {
    const WRITERS: usize = 3;
    const PATIENCE: Duration = Duration::from_secs(120);
    let cycles = sigkill_cycles();
    let seed = std::env::var("LOOKOUT_SIGKILL_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        })
        | 1;
    eprintln!("sigkill soak: {cycles} cycles, LOOKOUT_SIGKILL_SEED={seed}");
    let mut rng = Rng(seed);
    let started = std::time::Instant::now();

    let dir = tempfile::tempdir().unwrap();
    let deliveries = dir.path().join("deliveries.log");
    let sink = crate::support::write_script(
        dir.path(),
        "sink.sh",
        &format!(
            "printf '%s %s %s %s %s\\n' \"$1\" \"$2\" \"${{3:--}}\" \"${{4:--}}\" \"$5\" >> {:?}\n",
            deliveries.display().to_string()
        ),
    );
    // Each daemon's sink names the daemon: its number is the last argument.
    let config = |daemon: usize| {
        format!(
            "[stuck]\nthreshold_s = 1\nscan_interval_s = 1\ncooldown_s = 86400\n\
             [[wake.sinks]]\nkind = \"command\"\nname = \"recorder\"\nprogram = {:?}\n\
             args = [\"{{event_id}}\", \"{{kind}}\", \"{{wait_id}}\", \"{{task_id}}\", \"{daemon}\"]\n",
            sink.display().to_string()
        )
    };
    let waits_dir = dir.path().join("watched");
    std::fs::create_dir(&waits_dir).unwrap();

    let acknowledged: Acknowledged = Arc::default();
    let refused: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut writer_tasks = Vec::new();
    let mut quiet_tasks = Vec::new();
    let mut waits_task = String::new();
    let mut waits: Vec<SoakWait> = Vec::new();
    let register = async |client: &mut Client, name: String| -> String {
        let mut task = deploy_task();
        task["name"] = json!(name);
        ok(client, "task_register", task).await["task_id"]
            .as_str()
            .unwrap()
            .to_owned()
    };

    for cycle in 0..cycles {
        let daemon = DaemonProcess::start_with(dir.path(), &config(cycle), &[]);
        let mut client = Client::connect(&daemon.socket).await.unwrap();
        if cycle == 0 {
            waits_task = register(&mut client, "owner of the soak's waits".into()).await;
            for writer in 0..WRITERS {
                writer_tasks.push(register(&mut client, format!("writer {writer}")).await);
            }
        }
        // This cycle's waits: two to resolve and one to stay live, linked to the waits task;
        // one to time out, on its own.
        for (slot, fate) in [Fate::Live, Fate::Resolve, Fate::Resolve, Fate::Timeout]
            .into_iter()
            .enumerate()
        {
            let file = waits_dir.join(format!("c{cycle}-{slot}.log"));
            std::fs::write(&file, "starting up\n").unwrap();
            let phrase = format!("READY-{cycle}-{slot}");
            let mut params = json!({
                "target": format!("file:{}", file.display()),
                "wake_when": format!("wake me when \"{phrase}\" is printed"),
                "timeout": 3600,
                "poll_interval": 0.2,
            });
            match fate {
                Fate::Timeout => {
                    params["timeout"] = json!(1 + rng.below(3));
                    params["poll_interval"] = json!(0.5);
                }
                Fate::Live => {
                    params["task_id"] = json!(waits_task);
                    params["poll_interval"] = json!(2.0);
                }
                Fate::Resolve => params["task_id"] = json!(waits_task),
            }
            let created = ok(&mut client, "smart_wait", params).await;
            waits.push(SoakWait {
                id: created["wait_id"].as_str().unwrap().to_owned(),
                fate,
                file,
                phrase,
                appended: false,
                live_at_a_kill: false,
            });
        }
        quiet_tasks.push(register(&mut client, format!("quiet {cycle}")).await);

        let writers: Vec<_> = writer_tasks
            .iter()
            .enumerate()
            .map(|(writer, task_id)| {
                spawn_note_writer(
                    &daemon.socket,
                    task_id.clone(),
                    format!("cycle {cycle} writer {writer}"),
                    acknowledged.clone(),
                    Some(refused.clone()),
                )
            })
            .collect();
        // Which unresolved waits get their phrase now, which while the daemon is down, and
        // which stay live into the next cycle.
        let (mut now, mut while_down) = (Vec::new(), Vec::new());
        for (index, wait) in waits.iter().enumerate() {
            if wait.fate == Fate::Resolve && !wait.appended {
                match rng.below(3) {
                    0 => now.push(index),
                    1 => while_down.push(index),
                    _ => {}
                }
            }
        }
        let total = || -> usize { acknowledged.lock().unwrap().values().map(Vec::len).sum() };
        let target = total() + 30;
        let deadline = std::time::Instant::now() + PATIENCE;
        while total() < target {
            assert!(
                std::time::Instant::now() < deadline,
                "cycle {cycle}: the writers stalled: {:?}\n{}",
                refused.lock().unwrap(),
                daemon.log_text()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        for index in now {
            waits[index].append_phrase();
        }
        // Kill at a random moment: before, during or after those waits resolve and their
        // wakes go out.
        tokio::time::sleep(Duration::from_millis(rng.below(600))).await;
        for wait in waits.iter_mut() {
            wait.live_at_a_kill |=
                wait.fate == Fate::Live || (wait.fate == Fate::Resolve && !wait.appended);
        }
        daemon.kill();
        for writer in writers {
            writer.await.unwrap();
        }
        for index in while_down {
            waits[index].append_phrase();
        }
        // Down for a while: short timeouts and stuck thresholds pass meanwhile.
        tokio::time::sleep(Duration::from_millis(rng.below(1500))).await;
    }

    // The last phrases arrive while the daemon is down; then one restart settles it all.
    for wait in waits.iter_mut() {
        if wait.fate == Fate::Resolve && !wait.appended {
            wait.append_phrase();
        }
    }
    let daemon = DaemonProcess::start_with(dir.path(), &config(cycles), &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();

    // Waits: the live ones are exactly those meant to stay live, then each is in its state.
    let meant_live: std::collections::BTreeSet<String> = waits
        .iter()
        .filter(|wait| wait.fate == Fate::Live)
        .map(|wait| wait.id.clone())
        .collect();
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let listed = ok(&mut client, "wait_status", json!({})).await;
        let live: std::collections::BTreeSet<String> = listed["waits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|wait| wait["wait_id"].as_str().unwrap().to_owned())
            .collect();
        if live == meant_live {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "seed {seed}: live waits never settled to the {} meant to stay live; still live \
             beyond them: {:?}; missing: {:?}",
            meant_live.len(),
            live.difference(&meant_live).collect::<Vec<_>>(),
            meant_live.difference(&live).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for wait in &waits {
        let status = ok(&mut client, "wait_status", json!({"wait_id": wait.id})).await;
        let expected = match wait.fate {
            Fate::Resolve => "resolved",
            Fate::Timeout => "timeout",
            Fate::Live => "watching",
        };
        assert_eq!(
            status["status"], expected,
            "seed {seed}: {} ({:?}): {status}",
            wait.id, wait.fate
        );
    }
    let linkage = ok(
        &mut client,
        "task_update",
        json!({"task_id": waits_task, "query": "which waits are live?"}),
    )
    .await;
    let linked: std::collections::BTreeSet<String> = linkage["wait"]["active_wait_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        linked, meant_live,
        "seed {seed}: the waits task links exactly its watching waits"
    );

    // Wakes: every task but the waits task gets its one stuck alert; then the outbox drains.
    let alerted_tasks: Vec<&String> = writer_tasks.iter().chain(&quiet_tasks).collect();
    let deadline = std::time::Instant::now() + PATIENCE;
    let status = loop {
        let status = ok(&mut client, "daemon.status", json!({})).await;
        let seen = read_deliveries(&deliveries);
        let all_alerted = alerted_tasks.iter().all(|task| {
            seen.iter()
                .any(|line| line.kind == "task_stuck" && &&line.task == task)
        });
        if all_alerted && status["wake"]["pending"] == 0 && status["wake"]["in_flight"] == 0 {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "seed {seed}: the outbox never drained or a stuck alert never came: {status}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(status["wake"]["dead"], 0, "{status}");
    assert_eq!(status["wake"]["rejected"], 0, "{status}");
    assert_eq!(status["health"], "serving", "{status}");

    let seen = read_deliveries(&deliveries);
    let mut events: BTreeMap<&str, Vec<&Delivered>> = BTreeMap::new();
    for line in &seen {
        assert!(
            line.daemon <= cycles,
            "seed {seed}: a delivery by an unknown daemon: {line:?}"
        );
        events.entry(&line.event).or_default().push(line);
    }
    let (mut duplicates, mut repeats) = (0, Vec::new());
    for (event, lines) in &events {
        let first = lines[0];
        for (index, line) in lines.iter().enumerate() {
            assert_eq!(
                (&line.kind, &line.wait, &line.task),
                (&first.kind, &first.wait, &first.task),
                "seed {seed}: event id {event} names two events"
            );
            for earlier in &lines[..index] {
                assert!(
                    earlier.daemon < line.daemon,
                    "seed {seed}: {event} delivered twice by one daemon, or out of order: {lines:?}"
                );
            }
        }
        duplicates += lines.len() - 1;
        if lines.len() > 1 {
            let by: Vec<usize> = lines.iter().map(|line| line.daemon).collect();
            repeats.push(format!("{event} ({}) by daemons {by:?}", first.kind));
        }
    }
    assert_eq!(
        status["wake"]["events"],
        events.len(),
        "seed {seed}: the sink saw every stored event, and only those"
    );
    for wait in &waits {
        let ended: Vec<(&str, &str)> = events
            .iter()
            .filter(|(_, lines)| lines[0].wait == wait.id)
            .map(|(event, lines)| (*event, lines[0].kind.as_str()))
            .collect();
        let kinds: Vec<&str> = ended.iter().map(|(_, kind)| *kind).collect();
        let expected: &[&str] = match wait.fate {
            Fate::Resolve => &["wait_resolved"],
            Fate::Timeout => &["wait_timeout"],
            Fate::Live => &[],
        };
        assert_eq!(
            kinds, expected,
            "seed {seed}: the wakes of {} ({:?}): {ended:?}",
            wait.id, wait.fate
        );
    }
    let stuck_events = |task: &str| {
        events
            .values()
            .filter(|lines| lines[0].kind == "task_stuck" && lines[0].task == task)
            .count()
    };
    for task in &alerted_tasks {
        assert_eq!(stuck_events(task), 1, "seed {seed}: stuck alerts of {task}");
    }
    assert!(
        stuck_events(&waits_task) <= 1,
        "seed {seed}: alerted twice inside a cooldown"
    );
    let wait_wakes = events
        .values()
        .filter(|lines| lines[0].kind.starts_with("wait_"))
        .count();
    assert_eq!(
        events.len(),
        wait_wakes + alerted_tasks.len() + stuck_events(&waits_task),
        "seed {seed}: an event nobody expected: {events:?}"
    );

    // Updates: none refused by a live daemon, every acknowledged one stored exactly once.
    assert!(
        refused.lock().unwrap().is_empty(),
        "{:?}",
        refused.lock().unwrap()
    );
    let acknowledged = acknowledged.lock().unwrap().clone();
    let mut writes = 0;
    for (task_id, notes) in &acknowledged {
        let stored = all_message_contents(&mut client, task_id).await;
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for content in &stored {
            *counts.entry(content.as_str()).or_default() += 1;
        }
        for note in notes {
            assert_eq!(
                counts.get(note.as_str()).copied().unwrap_or(0),
                1,
                "seed {seed}: acknowledged {note:?} of {task_id} is stored once"
            );
        }
        writes += notes.len();
    }
    assert!(writes >= cycles * 30, "{writes} acknowledged writes");
    let live_at_a_kill = waits.iter().filter(|wait| wait.live_at_a_kill).count();
    eprintln!(
        "sigkill soak: {cycles} SIGKILL cycles in {:.1}s (seed {seed}): {writes} acknowledged \
         writes, 0 lost; {} waits ({} resolved, {} timed out, {} still watching; {live_at_a_kill} \
         of them certainly live at a kill), {} wake events ({} stuck alerts) delivered {} times, \
         {duplicates} repeated after a kill, 0 twice by one daemon",
        started.elapsed().as_secs_f64(),
        waits.len(),
        waits.iter().filter(|w| w.fate == Fate::Resolve).count(),
        waits.iter().filter(|w| w.fate == Fate::Timeout).count(),
        meant_live.len(),
        events.len(),
        alerted_tasks.len() + stuck_events(&waits_task),
        seen.len(),
    );
    if !repeats.is_empty() {
        // Daemons are numbered from 0 (the first cycle); each but the last was SIGKILLed.
        eprintln!(
            "sigkill soak: delivered again after a kill: {}",
            repeats.join(", ")
        );
    }
    let _ = daemon.terminate();
}

/// `serve` starts itself over once with glibc's large-buffer threshold fixed (so freed frames
/// go back to the system), in the same process, and leaves a threshold the user set alone.
#[test]
fn serve_runs_with_the_allocator_told_to_give_large_buffers_back() {
    // glibc cuts GLIBC_TUNABLES after each value it reads, so the tunables show as entries
    // of their own in the environment the process was started with.
    let environment_of = |pid: u32| -> Vec<String> {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        (environ.split(|&byte| byte == 0))
            .filter_map(|entry| std::str::from_utf8(entry).ok())
            .filter(|entry| entry.contains("glibc.") || entry.starts_with("LOOKOUT_ALLOCATOR"))
            .map(str::to_owned)
            .collect()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = DaemonProcess::start_with(
        dir.path(),
        "",
        &[("GLIBC_TUNABLES", "glibc.malloc.arena_max=4")],
    );
    // The process answering is the one started: `exec` kept its id.
    assert_eq!(
        environment_of(daemon.child.id()),
        [
            "GLIBC_TUNABLES=glibc.malloc.arena_max=4",
            "glibc.malloc.mmap_threshold=131072",
            "glibc.malloc.trim_threshold=131072",
            "LOOKOUT_ALLOCATOR_TUNED=1"
        ]
    );
    crate::support::terminate(daemon.child.id());
    assert!(wait_with_timeout(&mut daemon.child, Duration::from_secs(20)).success());

    let own = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start_with(
        own.path(),
        "",
        &[("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=65536")],
    );
    assert_eq!(
        environment_of(daemon.child.id()),
        ["GLIBC_TUNABLES=glibc.malloc.mmap_threshold=65536"],
        "the user's own threshold is kept, and the daemon did not start over"
    );
}
