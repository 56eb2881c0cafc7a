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

    crate::support::signal(child.id(), "TERM");
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
fn a_connection_from_another_uid_is_refused() {
    if lookout::paths::current_uid() != 0 {
        return; // needs root to run a client as another user
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let daemon = DaemonProcess::start(dir.path());
    // Open the socket to everyone so that only the daemon's own peer check stands in the way.
    std::fs::set_permissions(&daemon.socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    let output = Command::new(BINARY)
        .args(["--socket", daemon.socket.to_str().unwrap(), "status"])
        .uid(65534)
        .gid(65534)
        .env("LOOKOUT_LOG", "error")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("connection refused: this daemon serves uid 0, not uid 65534"),
        "{stderr}"
    );
}

/// SIGKILL in the middle of a burst of updates, three times over: every update that was
/// acknowledged is in the thread after the restart, exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_a_burst_of_updates_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let acknowledged: Arc<Mutex<BTreeMap<String, Vec<String>>>> = Arc::default();
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
        let mut writers = Vec::new();
        for task_id in task_ids.clone() {
            let socket = daemon.socket.clone();
            let acknowledged = acknowledged.clone();
            writers.push(tokio::spawn(async move {
                let Ok(mut client) = Client::connect(&socket).await else {
                    return;
                };
                for n in 0.. {
                    let content = format!("cycle {cycle} note {n}");
                    let params = json!({"task_id": task_id, "message": content});
                    match client.call("task_update", params).await {
                        Ok(Ok(_)) => acknowledged
                            .lock()
                            .unwrap()
                            .entry(task_id.clone())
                            .or_default()
                            .push(content),
                        _ => return,
                    }
                }
            }));
        }
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
    std::fs::write(&file, "setting up nginx\n").unwrap();
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
