//! Many tasks and many overdue waits: `cargo bench --bench scale`.
//!
//! Runs the real `lookout serve` binary as a child process (so its resident memory is its
//! own) on a temp folder, twice for each question, side by side:
//!
//! - **Active tasks in memory.** Registers `LOOKOUT_SCALE_TASKS` tasks (default 20,000) from
//!   8 clients, each with one note, in ten waves 8 s apart (tasks pile up over time, they
//!   are not all in use at once), on a daemon that keeps every task loaded
//!   (`[storage] task_unload_after_s` of a day, which is what every daemon did before tasks
//!   were unloaded) and on one that unloads a task nobody asked about for 5 s; then prints
//!   the task actors still loaded, the RSS and the peak RSS.
//! - **A restart with overdue waits.** Starts `LOOKOUT_SCALE_WAITS` `file:` waits (default
//!   10,000, timeout 90 s) for 8 tasks from 8 clients, stops the daemon, lets every deadline pass, starts it again and
//!   prints how long until the socket accepts, until the first call is answered, and until
//!   every overdue wait has timed out (`wait_status` lists none).

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/daemon_process.rs"]
mod daemon_process;
#[path = "support/load_average.rs"]
mod load_average;
#[path = "support/proc_stats.rs"]
#[allow(dead_code)]
mod proc_stats;

#[path = "support/rpc.rs"]
mod rpc;

use rpc::call;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use daemon_process::start_daemon;
use lookout::client::Client;
use proc_stats::{rss_kib, status_field_kib};
use serde_json::json;

const CLIENTS: usize = 8;
/// Tasks arrive in this many waves…
const WAVES: usize = 10;
/// …this far apart.
const WAVE_GAP: Duration = Duration::from_secs(8);
/// The overdue waits' timeout: long enough for all of them to be created before it passes.
const WAIT_TIMEOUT_S: u64 = 90;

fn count(variable: &str, default: usize) -> usize {
    std::env::var(variable)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    load_average::print_load_average();
    let tasks = count("LOOKOUT_SCALE_TASKS", 20_000);
    let waits = count("LOOKOUT_SCALE_WAITS", 10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "lookout scale benchmark ({} cores)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("\n{tasks} active tasks, one note each, in {WAVES} waves {WAVE_GAP:?} apart");
    println!(
        "{:<36} {:>10} {:>10} {:>12} {:>12} {:>10}",
        "daemon", "register", "loaded", "rss", "peak rss", "rss/task"
    );
    for (label, unload_after_s) in [
        ("keeps every task loaded (1 day)", 86_400),
        ("unloads tasks idle for 5 s", 5),
    ] {
        runtime.block_on(active_tasks(label, unload_after_s, tasks));
    }
    println!("\nrestart with {waits} overdue waits");
    runtime.block_on(overdue_waits(waits));
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(PathBuf::from(env!("CARGO_TARGET_TMPDIR"))).unwrap()
}

async fn active_tasks(label: &str, unload_after_s: u64, tasks: usize) {
    let dir = temp_dir();
    let config = format!("[storage]\ntask_unload_after_s = {unload_after_s}\n");
    let mut daemon = start_daemon(dir.path(), &config, Stdio::null());
    let pid = daemon.id();
    let rss_before = rss_kib(pid);
    let socket = dir.path().join("lookout.sock");
    let mut registering = Duration::ZERO;
    for wave in 0..WAVES {
        if wave > 0 {
            tokio::time::sleep(WAVE_GAP).await;
        }
        let wave_started = Instant::now();
        let wave_tasks = tasks / WAVES + usize::from(wave < tasks % WAVES);
        let mut clients = Vec::new();
        for number in 0..CLIENTS {
            let socket = socket.clone();
            let share = wave_tasks / CLIENTS + usize::from(number < wave_tasks % CLIENTS);
            clients.push(tokio::spawn(async move {
                let mut client = Client::connect(&socket).await.unwrap();
                for n in 0..share {
                    let task = call(
                        &mut client,
                        "task_register",
                        json!({"name": format!("Deploy service {wave}-{number}-{n}"),
                               "plan": ["Build", "Push", "Deploy", "Verify"]}),
                    )
                    .await;
                    call(
                        &mut client,
                        "task_update",
                        json!({"task_id": task["task_id"],
                               "message": "Build started on the CI runner"}),
                    )
                    .await;
                }
            }));
        }
        for client in clients {
            client.await.unwrap();
        }
        registering += wave_started.elapsed();
    }
    let register_s = registering.as_secs_f64();
    tokio::time::sleep(WAVE_GAP).await;
    let mut client = Client::connect(&socket).await.unwrap();
    let status = call(&mut client, "daemon.status", json!({})).await;
    let loaded = status["actors"]["live_task_actors"].as_u64().unwrap_or(0);
    let rss = rss_kib(pid);
    let peak = status_field_kib(pid, "VmHWM:");
    println!(
        "{label:<36} {register_s:>9.1}s {loaded:>10} {:>8} KiB {:>8} KiB {:>6.1} KiB",
        rss,
        peak,
        rss.saturating_sub(rss_before) as f64 / tasks as f64
    );
    stop(&mut daemon);
}

async fn overdue_waits(waits: usize) {
    let dir = temp_dir();
    let log = dir.path().join("build.log");
    std::fs::write(&log, "   Compiling some-crate v1.2.3\n").unwrap();
    let mut daemon = start_daemon(dir.path(), "", Stdio::null());
    let socket = dir.path().join("lookout.sock");
    let started = Instant::now();
    let mut clients = Vec::new();
    for number in 0..CLIENTS {
        let (socket, target) = (socket.clone(), format!("file:{}", log.display()));
        let share = waits / CLIENTS + usize::from(number < waits % CLIENTS);
        clients.push(tokio::spawn(async move {
            let mut client = Client::connect(&socket).await.unwrap();
            let task = call(
                &mut client,
                "task_register",
                json!({"name": format!("Watch the builds of runner {number}"),
                       "plan": ["Start the builds", "Wait for them"]}),
            )
            .await;
            for _ in 0..share {
                let created = call(
                    &mut client,
                    "smart_wait",
                    json!({"target": target, "wake_when": "'DEPLOY FINISHED' is printed",
                           "poll_interval": 60, "timeout": WAIT_TIMEOUT_S,
                           "task_id": task["task_id"]}),
                )
                .await;
                assert_eq!(created["status"], "watching", "{created}");
            }
        }));
    }
    for client in clients {
        client.await.unwrap();
    }
    let created_s = started.elapsed().as_secs_f64();
    println!("  {waits} waits created in {created_s:.1} s; stopping the daemon");
    assert!(
        created_s < WAIT_TIMEOUT_S as f64,
        "creating the waits took longer than their timeout; lower LOOKOUT_SCALE_WAITS"
    );
    stop(&mut daemon);
    let overdue_at = started + Duration::from_secs(WAIT_TIMEOUT_S + 2);
    tokio::time::sleep_until(overdue_at.into()).await;

    let restarted = Instant::now();
    let mut daemon = spawn_again(dir.path());
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(restarted.elapsed() < Duration::from_secs(300), "no socket");
        std::thread::sleep(Duration::from_millis(5));
    }
    let accepting = restarted.elapsed();
    let mut client = Client::connect(&socket).await.unwrap();
    call(&mut client, "task_list", json!({"status": "all"})).await;
    let answered = restarted.elapsed();
    loop {
        let listing = call(&mut client, "wait_status", json!({})).await;
        if listing["waits"].as_array().is_some_and(Vec::is_empty) {
            break;
        }
        assert!(
            restarted.elapsed() < Duration::from_secs(600),
            "waits never settled"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let settled = restarted.elapsed();
    let events = call(&mut client, "daemon.status", json!({})).await;
    println!(
        "  socket accepts after {:.2} s, first answer after {:.2} s, all {waits} timed out after {:.1} s",
        accepting.as_secs_f64(),
        answered.as_secs_f64(),
        settled.as_secs_f64()
    );
    println!("  waits in daemon.status: {}", events["waits"]);
    stop(&mut daemon);
}

/// The daemon again on the folder `start_daemon` set up, without waiting for its socket.
fn spawn_again(dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_lookout"))
        .args(["serve", "--config"])
        .arg(dir.join("config.toml"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn stop(daemon: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    daemon.wait().unwrap();
}
