//! What a local file, a clock jump or a greedy client must not do to the daemon: each test
//! here is one way to wedge, hijack or exhaust it, tried against the real binary.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use lookout::client::Client;
use serde_json::json;

use crate::support::{DaemonProcess, err, ok, wait_until};

const PATIENCE: Duration = Duration::from_secs(20);

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A `file:` target that is a FIFO is refused with what to do instead; one that turns into a
/// FIFO after the wait started ends the wait in `error` instead of hanging a thread on the
/// open; and the daemon still stops promptly on SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_is_refused_and_never_hangs_the_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();

    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let refused = err(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", fifo.display()), "wake_when": "'DONE'"}),
    )
    .await;
    assert!(refused.message.contains("named pipe"), "{refused:?}");
    assert!(refused.hint.contains("tee"), "{refused:?}");

    // Not there yet, so accepted; then a FIFO appears under that name.
    let later = dir.path().join("later.log");
    let wait_id = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", later.display()), "wake_when": "'DONE'",
               "poll_interval": 0.2, "timeout": 600}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    mkfifo(&later);
    let mut ended = json!(null);
    wait_until("the wait on the FIFO ends in error", PATIENCE, async || {
        ended = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
        ended["status"] == "error"
    })
    .await;
    let said = ended.to_string();
    assert!(said.contains("named pipe"), "{said}");
    // The database still answers (its threads are not the ones a target holds).
    ok(&mut client, "daemon.status", json!({})).await;
    drop(client);
    let status = daemon.terminate();
    assert!(status.success(), "{status}");
}
