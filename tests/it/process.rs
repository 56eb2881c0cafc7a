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
