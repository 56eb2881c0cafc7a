//! Socket benchmarks for the task tools: `cargo bench --bench socket`.
//!
//! Boots a daemon in-process on a temp folder (a real redb file, durable commits, the real
//! Unix socket) and prints, each beside the floor it is compared with, measured in the same
//! run:
//! - the floors: a 4 KiB `pwrite` + `fdatasync` on a file in the same folder (what one
//!   durable write costs the disk), and an echo over the same socket (a call of a method that
//!   does not exist, answered by the socket edge: the socket, the codec and the scheduling,
//!   no actor and no storage);
//! - the round trip of a sequential `task_update(message)`: mean, p50, p99, and its p50 as a
//!   multiple of the fsync floor's; the CPU the whole process (daemon and client) spent per
//!   update, and how long the commit thread's stay-awake yields take here;
//! - durable updates per second from 16 concurrent clients, each on its own task, with
//!   group commit on and off, measured side by side in one run.
//!
//! `LOOKOUT_BENCH_SECONDS` sets the length of each throughput run (default 5).

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/load_average.rs"]
mod load_average;
#[path = "support/rpc.rs"]
mod rpc;

use rpc::call;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use lookout::client::Client;
use lookout::config::{Config, ConfigSource};
use lookout::daemon::{Daemon, DaemonOptions};
use serde_json::{Value, json};

const SEQUENTIAL_WARMUP: usize = 500;
const SEQUENTIAL_SAMPLES: usize = 5_000;
const CLIENTS: usize = 16;

fn main() {
    load_average::print_load_average();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let seconds: u64 = std::env::var("LOOKOUT_BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
        println!("lookout socket benchmark ({} cores)", std::thread::available_parallelism().map_or(0, |n| n.get()));

        let (daemon, dir) = start(true).await;
        let fsync = fsync_floor(dir.path());
        let echo = echo_floor(&daemon).await;
        println!(
            "floors: 4 KiB pwrite+fdatasync p50 {:.3} ms; socket echo (unknown method) p50 {:.3} ms",
            ms(fsync),
            ms(echo)
        );
        let update = sequential(&daemon).await;
        println!(
            "task_update p50 = {:.2}x the fsync floor; over fsync + echo: {:.3} ms{}",
            update.as_secs_f64() / fsync.as_secs_f64(),
            ms(update.saturating_sub(fsync + echo)),
            load_average::busy_note()
        );
        let grouped = concurrent(&daemon, Duration::from_secs(seconds)).await;
        let status = call(&mut Client::connect(daemon.socket_path()).await.unwrap(), "daemon.status", json!({})).await;
        daemon.shutdown().await;

        let (daemon, _dir2) = start(false).await;
        let single = concurrent(&daemon, Duration::from_secs(seconds)).await;
        daemon.shutdown().await;

        println!(
            "{CLIENTS} clients, durable task_update/s: group commit on {grouped:.0}, off {single:.0} ({:.1}x){}",
            grouped / single,
            load_average::busy_note()
        );
        println!(
            "group commit: {} writes in {} commits (largest group {})",
            status["storage"]["writes"], status["storage"]["commits"], status["storage"]["largest_group"]
        );
    });
}

async fn start(group_commit: bool) -> (Daemon, tempfile::TempDir) {
    // On the project's disk, not a tmpfs, so that fsync costs what it costs.
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tempfile::tempdir_in(base).unwrap();
    let mut config = Config {
        data_dir: Some(dir.path().join("data")),
        socket_path: Some(dir.path().join("bench.sock")),
        log_level: lookout::config::LogLevel::Warn,
        ..Config::default()
    };
    config.storage.group_commit = group_commit;
    let daemon = Daemon::start(DaemonOptions::new(config, ConfigSource::Defaults))
        .await
        .unwrap();
    (daemon, dir)
}

async fn register(client: &mut Client) -> Value {
    let task = json!({"name": "bench", "plan": ["Build", "Push", "Deploy", "Verify"]});
    call(client, "task_register", task).await["task_id"].clone()
}

/// p50 of [`SEQUENTIAL_SAMPLES`] 4 KiB writes at one offset, each made durable.
fn fsync_floor(dir: &Path) -> Duration {
    let file = std::fs::File::create(dir.join("fsync-floor")).unwrap();
    let page = [0x5a_u8; 4096];
    let mut samples = Vec::with_capacity(SEQUENTIAL_SAMPLES);
    for n in 0..SEQUENTIAL_WARMUP + SEQUENTIAL_SAMPLES {
        let started = Instant::now();
        file.write_all_at(&page, 0).unwrap();
        file.sync_data().unwrap();
        if n >= SEQUENTIAL_WARMUP {
            samples.push(started.elapsed());
        }
    }
    median(samples)
}

/// p50 of [`SEQUENTIAL_SAMPLES`] calls of a method that does not exist: a round trip the
/// socket edge answers by itself.
async fn echo_floor(daemon: &Daemon) -> Duration {
    let mut client = Client::connect(daemon.socket_path()).await.unwrap();
    let mut samples = Vec::with_capacity(SEQUENTIAL_SAMPLES);
    for n in 0..SEQUENTIAL_WARMUP + SEQUENTIAL_SAMPLES {
        let started = Instant::now();
        let answer = client.call("bench.echo", json!({"n": n})).await.unwrap();
        assert!(answer.is_err(), "bench.echo is not a method");
        if n >= SEQUENTIAL_WARMUP {
            samples.push(started.elapsed());
        }
    }
    median(samples)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Prints the sequential round trip; returns its p50.
async fn sequential(daemon: &Daemon) -> Duration {
    let mut client = Client::connect(daemon.socket_path()).await.unwrap();
    let task_id = register(&mut client).await;
    let mut samples = Vec::with_capacity(SEQUENTIAL_SAMPLES);
    let mut cpu_before = 0.0;
    for n in 0..SEQUENTIAL_WARMUP + SEQUENTIAL_SAMPLES {
        if n == SEQUENTIAL_WARMUP {
            cpu_before = cpu_seconds();
        }
        let params =
            json!({"task_id": task_id, "message": format!("progress note {n}: still building")});
        let started = Instant::now();
        call(&mut client, "task_update", params).await;
        if n >= SEQUENTIAL_WARMUP {
            samples.push(started.elapsed());
        }
    }
    let cpu = cpu_seconds() - cpu_before;
    samples.sort();
    let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
    let percentile = |p: f64| samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)];
    println!(
        "sequential task_update(message) round trip, {SEQUENTIAL_SAMPLES} samples: mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms",
        ms(mean),
        ms(percentile(0.50)),
        ms(percentile(0.99))
    );
    let yields = Instant::now();
    for _ in 0..actors::lanes::COMMIT_AWAKE_YIELDS {
        std::thread::yield_now();
    }
    println!(
        "CPU per sequential update (daemon and client, user + system): {:.3} ms; the commit thread's {} stay-awake yields take {:.3} ms here",
        cpu * 1000.0 / SEQUENTIAL_SAMPLES as f64,
        actors::lanes::COMMIT_AWAKE_YIELDS,
        ms(yields.elapsed())
    );
    percentile(0.50)
}

/// CPU time this process has used, user and system, from `/proc/self/stat` (in clock ticks
/// of 1/100 s, Linux's USER_HZ).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks = |index: usize| fields[index].parse::<u64>().unwrap();
    // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after the name.
    (ticks(11) + ticks(12)) as f64 / 100.0
}

async fn concurrent(daemon: &Daemon, length: Duration) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        let mut client = Client::connect(daemon.socket_path()).await.unwrap();
        let task_id = register(&mut client).await;
        let (done, stop) = (done.clone(), stop.clone());
        clients.push(tokio::spawn(async move {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let params = json!({"task_id": task_id, "message": format!("note {n}")});
                call(&mut client, "task_update", params).await;
                done.fetch_add(1, Ordering::Relaxed);
                n += 1;
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // warm up
    let before = done.load(Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(length).await;
    let counted = done.load(Ordering::Relaxed) - before;
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.await.unwrap();
    }
    counted as f64 / elapsed.as_secs_f64()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
