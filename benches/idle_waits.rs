//! What live waits cost an idle daemon: `cargo bench --bench idle_waits`.
//!
//! Starts the real `lookout serve` binary (a child process, so that its CPU time and
//! resident memory are its own) on a temp folder, then for each scenario:
//! - measures its CPU over a quiet window and its resident memory with no waits;
//! - creates the waits (text targets whose content does not change, a 2 s poll, a condition
//!   the phrase rule judges, so no model is involved), lets every wait capture once, and
//!   measures again.
//!
//! Scenarios, each on a fresh daemon: 500 waits on 8 KiB build logs; 500 waits on logs of
//! 64 KiB and more (the whole watched tail); 64 waits on idle terminal sessions (the session
//! limit) next to 436 log waits.
//!
//! `LOOKOUT_BENCH_SECONDS` sets each CPU window (default 20).

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/daemon_process.rs"]
mod daemon_process;
#[path = "support/load_average.rs"]
mod load_average;
#[path = "support/proc_stats.rs"]
mod proc_stats;

#[path = "support/rpc.rs"]
mod rpc;

use rpc::call;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use daemon_process::start_daemon;
use lookout::client::Client;
use proc_stats::{clock_ticks_per_second, cpu_ticks, rss_kib};
use serde_json::json;

const WAITS: usize = 500;
const TERMINAL_WAITS: usize = 64;

struct Scenario {
    name: &'static str,
    log_bytes: usize,
    terminal_waits: usize,
}

const SCENARIOS: [Scenario; 3] = [
    Scenario {
        name: "500 file waits, 8 KiB logs",
        log_bytes: 8 * 1024,
        terminal_waits: 0,
    },
    Scenario {
        name: "500 file waits, 96 KiB logs (64 KiB tail each)",
        log_bytes: 96 * 1024,
        terminal_waits: 0,
    },
    Scenario {
        name: "436 file waits (8 KiB) + 64 pty waits",
        log_bytes: 8 * 1024,
        terminal_waits: TERMINAL_WAITS,
    },
];

fn main() {
    load_average::print_load_average();
    let seconds: u64 = std::env::var("LOOKOUT_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let window = Duration::from_secs(seconds);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "lookout idle-wait benchmark ({} cores, {seconds} s CPU windows, 2 s poll)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "{:<48} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "scenario", "cpu 0", "cpu N", "rss 0", "rss N", "rss/wait"
    );
    for scenario in &SCENARIOS {
        runtime.block_on(run(scenario, window));
    }
}

async fn run(scenario: &Scenario, window: Duration) {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tempfile::tempdir_in(base).unwrap();
    let mut daemon = start(dir.path());
    let pid = daemon.id();
    let mut client = Client::connect(&dir.path().join("lookout.sock"))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle_cpu = cpu_share(pid, window).await;
    let idle_rss = rss_kib(pid);

    let file_waits = WAITS - scenario.terminal_waits;
    let line = "   Compiling some-crate v1.2.3 (/home/dev/project/crates/some-crate)\n";
    let log: String = line.repeat(scenario.log_bytes / line.len() + 1);
    let mut pending = Vec::new();
    for n in 0..file_waits {
        let path = dir.path().join(format!("build-{n}.log"));
        std::fs::write(&path, &log).unwrap();
        pending.push(wait_on(&mut client, format!("file:{}", path.display())).await);
    }
    for _ in 0..scenario.terminal_waits {
        let started = call(
            &mut client,
            "term_start",
            json!({"command": "seq 1 60; echo waiting for input; exec sleep 3600"}),
        )
        .await;
        let session = started["session_id"].as_str().unwrap().to_owned();
        pending.push(wait_on(&mut client, format!("pty:{session}")).await);
    }
    // Every wait captures twice (its first look is due at once, then every 2 s), asked one
    // wait at a time: a listing of every live wait is cut to its answer budget.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !pending.is_empty() {
        let mut still = Vec::new();
        for wait_id in pending {
            let status = call(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
            if status["counters"]["captures"].as_u64().unwrap_or(0) < 2 {
                still.push(wait_id);
            }
        }
        pending = still;
        assert!(
            Instant::now() < deadline || pending.is_empty(),
            "{} of {WAITS} waits did not capture twice in 60 s",
            pending.len()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    drop(client);
    let busy_cpu = cpu_share(pid, window).await;
    let busy_rss = rss_kib(pid);
    let per_wait = (busy_rss.saturating_sub(idle_rss)) as f64 / WAITS as f64;
    println!(
        "{:<48} {:>9.2}% {:>9.2}% {:>7} KiB {:>7} KiB {:>8.1} KiB",
        scenario.name,
        idle_cpu * 100.0,
        busy_cpu * 100.0,
        idle_rss,
        busy_rss,
        per_wait
    );
    daemon.kill().unwrap();
    daemon.wait().unwrap();
}

/// Starts a wait on `target`; returns its id.
async fn wait_on(client: &mut Client, target: String) -> String {
    let created = call(
        client,
        "smart_wait",
        json!({"target": target, "wake_when": "wake me when 'DEPLOY FINISHED' is printed",
               "poll_interval": 2.0, "timeout": 86_400}),
    )
    .await;
    assert_eq!(created["status"], "watching", "{created}");
    created["wait_id"].as_str().unwrap().to_owned()
}

fn start(dir: &Path) -> Child {
    start_daemon(dir, "", Stdio::null())
}

/// The share of one core the process used over `window`.
async fn cpu_share(pid: u32, window: Duration) -> f64 {
    let before = cpu_ticks(pid);
    let started = Instant::now();
    tokio::time::sleep(window).await;
    let ticks = cpu_ticks(pid) - before;
    ticks as f64 / clock_ticks_per_second() / started.elapsed().as_secs_f64()
}
