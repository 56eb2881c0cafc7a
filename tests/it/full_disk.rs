//! A full disk, on a real small volume (a 24 MiB tmpfs mounted over the data folder; the
//! test needs root, as CI has, to mount it): writes are refused cleanly and reads go on, the
//! daemon shuts down cleanly and starts again on a disk filled to its last byte, read-only
//! when it must be, and writes and recall resume by themselves once space is freed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use lookout::client::Client;
use serde_json::{Value, json};

use crate::support::{DaemonProcess, cli, err, ok};

/// A tmpfs of `size` mounted at `at`, unmounted when dropped.
struct SmallVolume {
    at: PathBuf,
}

impl SmallVolume {
    fn mount(at: &Path, size: &str) -> SmallVolume {
        std::fs::create_dir_all(at).unwrap();
        let mounted = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(at)
            .output()
            .unwrap();
        assert!(
            mounted.status.success(),
            "this test mounts a small tmpfs to fill it, which needs root (CI runs as root): {}",
            String::from_utf8_lossy(&mounted.stderr)
        );
        SmallVolume { at: at.to_owned() }
    }

    /// Fills the volume to its last byte with a new file; returns its path.
    fn fill(&self, name: &str) -> PathBuf {
        let path = self.at.join(name);
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![0x5a; 64 * 1024];
        while file.write_all(&block).is_ok() {}
        for size in [4096, 512, 1] {
            while file.write_all(&block[..size]).is_ok() {}
        }
        path
    }
}

impl Drop for SmallVolume {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.at).status();
    }
}

async fn status(client: &mut Client) -> Value {
    ok(client, "daemon.status", json!({})).await
}

/// Writes are refused with a hint while reads, waits and status answer; a SIGTERM on the
/// full disk is a clean shutdown (the reserve gives its last commit room), and a start on a
/// disk filled again is read-only and says so; freeing space lets the next write through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs root (it mounts a tmpfs over the data folder)"
)]
async fn a_full_disk_refuses_writes_and_keeps_reads_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let volume = SmallVolume::mount(&data, "24m");
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let task = ok(&mut client, "task_register", crate::support::deploy_task()).await;
    let task_id = task["task_id"].as_str().unwrap().to_owned();
    let log = dir.path().join("build.log");
    std::fs::write(&log, "starting\n").unwrap();
    let wait = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", log.display()), "wake_when": "'DONE'",
               "timeout": 3600}),
    )
    .await;
    let wait_id = wait["wait_id"].as_str().unwrap().to_owned();
    assert!(data.join("lookout.reserve").exists(), "the reserve is made");

    let filler = volume.fill("filler");
    let refused = err(
        &mut client,
        "task_register",
        json!({"name": "one more", "plan": ["a"]}),
    )
    .await;
    assert!(refused.message.contains("is full"), "{refused:?}");
    assert!(
        refused.hint.contains("df -h") && refused.hint.contains("reads"),
        "{refused:?}"
    );
    let got = ok(&mut client, "task_get", json!({"task_id": task_id})).await;
    assert_eq!(got["task_id"], task_id.as_str(), "{got}");
    let listed = ok(&mut client, "task_list", json!({"status": "all"})).await;
    assert_eq!(listed["tasks"].as_array().unwrap().len(), 1, "{listed}");
    let watching = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
    assert_eq!(watching["status"], "watching", "{watching}");
    let storage = &status(&mut client).await["storage"];
    assert_eq!(storage["writes_refused_for_space"], true, "{storage}");
    assert!(storage["free_bytes"].as_u64().unwrap() < storage::SPACE_FOR_WRITES);
    let socket = daemon.socket.to_str().unwrap().to_owned();
    let (code, out, said) = cli(&["--socket", &socket, "status"]);
    assert_eq!(code, 0, "{out}{said}");
    assert!(out.contains("THE DISK IS FULL"), "{out}");

    drop(client);
    assert!(
        daemon.terminate().success(),
        "a clean shutdown on a full disk"
    );
    let shutdown_log = std::fs::read_to_string(dir.path().join("daemon.log")).unwrap();
    assert!(!shutdown_log.contains("panicked"), "{shutdown_log}");

    // The shutdown released the reserve; something else takes that space too.
    let second = volume.fill("filler-2");
    let daemon = DaemonProcess::start(dir.path());
    assert!(
        daemon.log_text().contains("open for reading only"),
        "{}",
        daemon.log_text()
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let storage = &status(&mut client).await["storage"];
    assert_eq!(storage["read_only"], true, "{storage}");
    let got = ok(&mut client, "task_get", json!({"task_id": task_id})).await;
    assert_eq!(got["task_id"], task_id.as_str(), "{got}");
    let watching = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
    assert_eq!(watching["status"], "watching", "{watching}");
    let refused = err(
        &mut client,
        "task_update",
        json!({"task_id": task_id, "message": "built"}),
    )
    .await;
    assert!(refused.message.contains("is full"), "{refused:?}");
    // Recall's index could not be opened on the full disk: it says so, and is kept.
    let unavailable = err(
        &mut client,
        "memory_recall",
        json!({"query": "deploy coursefolio"}),
    )
    .await;
    assert!(
        unavailable.message.contains("recall index"),
        "{unavailable:?}"
    );
    assert!(!data.join("recall.sqlite.damaged").exists());

    // Space freed: the next write opens the file for writing, and the reserve is made again.
    std::fs::remove_file(filler).unwrap();
    std::fs::remove_file(second).unwrap();
    ok(
        &mut client,
        "task_update",
        json!({"task_id": task_id, "message": "built"}),
    )
    .await;
    let storage = &status(&mut client).await["storage"];
    assert_eq!(storage["read_only"], false, "{storage}");
    assert_eq!(storage["writes_refused_for_space"], false, "{storage}");
    assert!(
        data.join("lookout.reserve").exists(),
        "the reserve is made again"
    );
    // Recall opens its index again by itself and catches up with the tasks.
    let found = ok(
        &mut client,
        "memory_recall",
        json!({"query": "deploy coursefolio"}),
    )
    .await;
    assert!(
        found.to_string().contains(task_id.as_str()),
        "the task is found again: {found}"
    );
    drop(client);
    assert!(daemon.terminate().success());
}

/// A daemon killed on a full disk, with acknowledged writes only its journal holds, starts
/// again on that disk: the reserve gives redb's repair and the journal's replay their room,
/// and nothing acknowledged is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs root (it mounts a tmpfs over the data folder)"
)]
async fn a_daemon_killed_on_a_full_disk_starts_again_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let volume = SmallVolume::mount(&data, "24m");
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut ids = Vec::new();
    for n in 0..5 {
        let task = ok(
            &mut client,
            "task_register",
            json!({"name": format!("task {n}"), "plan": ["a", "b"]}),
        )
        .await;
        ids.push(task["task_id"].as_str().unwrap().to_owned());
    }
    let storage = &status(&mut client).await["storage"];
    assert!(
        storage["journal_records"].as_u64().unwrap() > 0,
        "writes wait in the journal: {storage}"
    );
    volume.fill("filler");
    drop(client);
    daemon.kill();

    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    for id in &ids {
        let got = ok(&mut client, "task_get", json!({"task_id": id})).await;
        assert_eq!(got["task_id"], id.as_str(), "{got}");
    }
    let storage = &status(&mut client).await["storage"];
    assert_eq!(storage["replayed_writes"], 5, "{storage}");
    drop(client);
    assert!(daemon.terminate().success());
}
