//! The daemon under sustained load from many clients: `cargo bench --bench load`.
//!
//! Starts the real `lookout serve` binary (a child process, so that its CPU time and resident
//! memory are its own) on a temp folder with the default configuration (no model, no wake
//! sinks), then runs `LOOKOUT_LOAD_CLIENTS` clients (default 64), each on its own socket
//! connection, for `LOOKOUT_LOAD_SECS` seconds (default 600). Each client loops over rounds
//! that use every tool:
//! - a task: `task_register`, `task_update` (a note that marks a step, explicit step marks, a
//!   query), `task_plan_update`, `task_thread`, `task_list`, and at the end of the round a
//!   status change that finishes it (completed, failed, cancelled, or paused → active →
//!   completed), so the daemon does not just accumulate live task actors;
//! - a `smart_wait` on a `file:` target the bench appends to, one of three kinds in turn: met
//!   by a quoted phrase the bench then appends (polled with `wait_status` until resolved), then
//!   revived with `wait_update` and cancelled; changed with `wait_update` and cancelled; or
//!   listed with `wait_status` (every live wait) and cancelled;
//! - every fourth round a terminal session: `term_start` (`cat`), `term_send`, `term_read`,
//!   `term_stop`; at most `TERMINAL_SLOTS` sessions exist at once, well under the daemon's
//!   session limit (64, `TerminalLimits::default().max_live`);
//! - `tools.list` and `daemon.status` (`LOOKOUT_LOAD_STATUS_EVERY=N`: `daemon.status` only
//!   every N rounds, 0 never; default every round).
//! - `LOOKOUT_LOAD_CACHE_MIB=N` runs the daemon with `[storage] cache_mib = N` (default 32).
//!
//! Every response must be a success (and the few fields the round relies on must be there):
//! errors are counted per method, and the bench exits non-zero if there was any. A call that
//! takes longer than `CALL_TIMEOUT` counts as an error (a hang) and the client reconnects.
//!
//! Prints the daemon's RSS and CPU (and the size of its redb file) every 10 s while it runs,
//! then the totals: calls, throughput overall and per method, p50/p99/max latency overall and
//! per method, RSS after the warm-up vs at the end and the peak, CPU, and the counts
//! `daemon.status` gives at the end.

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/daemon_process.rs"]
mod daemon_process;
#[path = "support/load_average.rs"]
mod load_average;
#[path = "support/proc_stats.rs"]
mod proc_stats;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use daemon_process::start_daemon;
use lookout::client::Client;
use proc_stats::{clock_ticks_per_second, cpu_ticks, rss_kib, status_field_kib};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

/// Terminal sessions alive at once, across all clients (the daemon allows 64).
const TERMINAL_SLOTS: usize = 8;
/// A call slower than this is a hang: counted as an error.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a wait may take to resolve after its phrase was appended.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(20);
/// The poll interval of the bench's waits.
const POLL_INTERVAL_S: f64 = 0.5;
const SAMPLE_EVERY: Duration = Duration::from_secs(10);
/// The RSS verdict: "flat" when the end is within this fraction of the post-warm-up value.
/// 10% because a healthy daemon's RSS still wobbles by a few percent under load (allocator
/// arenas of the worker threads keep freed memory, redb's cache holds the pages it touched,
/// buffers of 64 connections come and go), while a leak of even 100 bytes per call adds about
/// 90 MiB over a 10-minute run of about a million calls, more than the whole post-warm-up RSS
/// (75-80 MiB). Growth of redb's page cache with the file counts as growth too: it is what a
/// long-lived daemon holds.
const FLAT_THRESHOLD: f64 = 0.10;

/// Latencies (µs) and errors of one method.
#[derive(Default)]
struct MethodStats {
    micros: Vec<u32>,
    errors: u64,
    /// The first few error texts, for the report.
    samples: Vec<String>,
}

#[derive(Default)]
struct Stats {
    methods: BTreeMap<&'static str, MethodStats>,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        for (method, theirs) in other.methods {
            let ours = self.methods.entry(method).or_default();
            ours.micros.extend(theirs.micros);
            ours.errors += theirs.errors;
            for sample in theirs.samples {
                if ours.samples.len() < 5 {
                    ours.samples.push(sample);
                }
            }
        }
    }

    fn error(&mut self, method: &'static str, text: String) {
        let entry = self.methods.entry(method).or_default();
        entry.errors += 1;
        if entry.samples.len() < 5 {
            entry.samples.push(text);
        }
    }
}

/// What all clients share.
struct Shared {
    socket: PathBuf,
    dir: PathBuf,
    stop: AtomicBool,
    calls: AtomicU64,
    errors: AtomicU64,
    terminals: Semaphore,
    /// The pids of the terminal sessions' programs, to check none is left behind.
    terminal_pids: Mutex<Vec<u32>>,
}

/// The daemon child: stopped (SIGTERM, then SIGKILL) when dropped, panics included, and the
/// terminal programs it started killed if they outlived it.
struct DaemonGuard {
    child: Child,
    shared: Option<Arc<Shared>>,
}

impl DaemonGuard {
    /// Stops the daemon; returns the terminal programs that were still alive after it.
    fn stop(&mut self) -> Vec<u32> {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            if self.child.try_wait().ok().flatten().is_none() {
                eprintln!("the daemon did not stop within 10 s of SIGTERM: killing it");
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
        let mut left = Vec::new();
        if let Some(shared) = &self.shared {
            // The daemon hangs up its sessions when it stops; give the programs a moment.
            std::thread::sleep(Duration::from_millis(200));
            for &pid in shared.terminal_pids.lock().unwrap().iter() {
                if is_alive_cat(pid) {
                    left.push(pid);
                    let _ = Command::new("kill")
                        .args(["-KILL", &pid.to_string()])
                        .status();
                }
            }
        }
        left
    }
}

impl Drop for DaemonGuard {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether `pid` is still a live (not zombie) `cat`, the program of the bench's sessions.
fn is_alive_cat(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let Some((head, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    head.ends_with("(cat") && !rest.trim_start().starts_with('Z')
}

fn main() {
    load_average::print_load_average();
    let seconds: u64 = env_or("LOOKOUT_LOAD_SECS", 600);
    let clients: usize = env_or("LOOKOUT_LOAD_CLIENTS", 64);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let failed = runtime.block_on(run(Duration::from_secs(seconds), clients));
    drop(runtime);
    if failed {
        std::process::exit(1);
    }
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The run; true when anything went wrong.
async fn run(length: Duration, clients: usize) -> bool {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    // On the project's disk, not a tmpfs, so that fsync costs what it costs.
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tempfile::tempdir_in(base).unwrap();
    let mut guard = DaemonGuard {
        child: start(dir.path()),
        shared: None,
    };
    let pid = guard.child.id();
    let shared = Arc::new(Shared {
        socket: dir.path().join("lookout.sock"),
        dir: dir.path().to_owned(),
        stop: AtomicBool::new(false),
        calls: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        terminals: Semaphore::new(TERMINAL_SLOTS),
        terminal_pids: Mutex::new(Vec::new()),
    });
    guard.shared = Some(shared.clone());
    // Warm-up: the first 60 s or 10% of the run, whichever is shorter.
    let warmup = (length / 10).min(Duration::from_secs(60));
    println!(
        "lookout load benchmark: {clients} clients, {} s ({cores} cores; warm-up {} s; daemon pid {pid})",
        length.as_secs(),
        warmup.as_secs_f64()
    );
    let started_rss = rss_kib(pid);
    let ticks_per_second = clock_ticks_per_second();

    {
        let shared = shared.clone();
        tokio::spawn(async move {
            let mut interrupt =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).unwrap();
            let mut terminate =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).unwrap();
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            eprintln!("interrupted: stopping the clients");
            shared.stop.store(true, Ordering::Relaxed);
        });
    }

    let started = Instant::now();
    let cpu_start = cpu_ticks(pid);
    let own_cpu_start = cpu_ticks(std::process::id());
    let mut handles = Vec::new();
    for index in 0..clients {
        let shared = shared.clone();
        handles.push(tokio::spawn(client_loop(index, shared)));
    }

    // Samples every 10 s, and one at the end of the warm-up.
    println!(
        "{:>7} {:>10} {:>9} {:>11} {:>8} {:>7} {:>13}",
        "t (s)", "calls", "calls/s", "rss (KiB)", "cpu", "errors", "redb (KiB)"
    );
    let data_file = dir.path().join("data").join("lookout.redb");
    let mut samples: Vec<(Duration, u64)> = Vec::new();
    let mut warm_rss = None;
    let mut last = (started, shared.calls.load(Ordering::Relaxed), cpu_start);
    let mut next_tick = SAMPLE_EVERY;
    loop {
        let due = if warm_rss.is_none() && warmup < next_tick {
            warmup
        } else {
            next_tick
        }
        .min(length);
        while started.elapsed() < due && !shared.stop.load(Ordering::Relaxed) {
            let left = due.saturating_sub(started.elapsed());
            tokio::time::sleep(left.min(Duration::from_millis(500))).await;
        }
        let at = started.elapsed();
        let rss = rss_kib(pid);
        let calls = shared.calls.load(Ordering::Relaxed);
        let ticks = cpu_ticks(pid);
        let window = last.0.elapsed().as_secs_f64();
        println!(
            "{:>7.1} {:>10} {:>9.0} {:>11} {:>7.1}% {:>7} {:>13}",
            at.as_secs_f64(),
            calls,
            (calls - last.1) as f64 / window,
            rss,
            (ticks - last.2) as f64 / ticks_per_second / window * 100.0,
            shared.errors.load(Ordering::Relaxed),
            std::fs::metadata(&data_file).map_or(0, |m| m.len() / 1024)
        );
        samples.push((at, rss));
        last = (Instant::now(), calls, ticks);
        if warm_rss.is_none() && at >= warmup {
            warm_rss = Some(rss);
        }
        if at >= next_tick {
            next_tick += SAMPLE_EVERY;
        }
        if at >= length || shared.stop.load(Ordering::Relaxed) {
            break;
        }
    }
    shared.stop.store(true, Ordering::Relaxed);
    let load_elapsed = started.elapsed();

    // Clients finish their round (cancelling their waits, finishing their task).
    let mut stats = Stats::default();
    let mut client_failures = 0;
    for handle in handles {
        match handle.await {
            Ok(client) => stats.merge(client),
            Err(error) => {
                client_failures += 1;
                eprintln!("a client task failed: {error}");
            }
        }
    }
    let elapsed = started.elapsed();
    let cpu = (cpu_ticks(pid) - cpu_start) as f64 / ticks_per_second / elapsed.as_secs_f64();
    let own_cpu = (cpu_ticks(std::process::id()) - own_cpu_start) as f64
        / ticks_per_second
        / elapsed.as_secs_f64();
    let end_rss = rss_kib(pid);
    samples.push((elapsed, end_rss));
    let peak_rss = samples.iter().map(|s| s.1).max().unwrap_or(end_rss);
    let hwm = status_field_kib(pid, "VmHWM:");
    let warm_rss = warm_rss.unwrap_or(started_rss);

    let mut status_client = Client::connect(&shared.socket).await.unwrap();
    // What a call costs on the quiet daemon, now that the store is full: the median of 10.
    let mut quiet = Vec::new();
    for (method, params) in [
        ("daemon.status", json!({})),
        ("task_list", json!({"status": "all", "limit": 20})),
        ("wait_status", json!({})),
    ] {
        let mut times = Vec::new();
        for _ in 0..10 {
            let started = Instant::now();
            let outcome = status_client.call(method, params.clone()).await.unwrap();
            times.push(started.elapsed());
            if let Err(error) = outcome {
                stats.error(method, format!("quiet: {}", error.message));
            }
        }
        times.sort();
        quiet.push(format!(
            "{method} {:.2} ms",
            times[5].as_secs_f64() * 1000.0
        ));
    }
    let status = status_client
        .call("daemon.status", json!({}))
        .await
        .unwrap()
        .unwrap_or_else(|error| json!({"error": error.message}));
    let live_waits = status_client
        .call("wait_status", json!({}))
        .await
        .unwrap()
        .map(|v| v["waits"].as_array().map_or(0, Vec::len))
        .unwrap_or(0);
    drop(status_client);

    // ---- the report ----
    let total_calls: usize = stats.methods.values().map(|m| m.micros.len()).sum();
    let total_errors: u64 = stats.methods.values().map(|m| m.errors).sum();
    println!();
    println!(
        "{total_calls} calls in {:.1} s ({:.1} s of load, then the clients finished their round): {:.0} calls/s, {total_errors} errors",
        elapsed.as_secs_f64(),
        load_elapsed.as_secs_f64(),
        total_calls as f64 / elapsed.as_secs_f64()
    );
    println!(
        "{:<16} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "method", "calls", "calls/s", "p50 ms", "p99 ms", "max ms", "errors"
    );
    let mut all: Vec<u32> = Vec::with_capacity(total_calls);
    for (method, entry) in &mut stats.methods {
        entry.micros.sort_unstable();
        all.extend_from_slice(&entry.micros);
        let (p50, p99, max) = percentiles(&entry.micros);
        println!(
            "{method:<16} {:>9} {:>9.1} {p50:>9.3} {p99:>9.3} {max:>9.3} {:>7}",
            entry.micros.len(),
            entry.micros.len() as f64 / elapsed.as_secs_f64(),
            entry.errors
        );
    }
    all.sort_unstable();
    let (p50, p99, max) = percentiles(&all);
    println!(
        "{:<16} {:>9} {:>9.1} {p50:>9.3} {p99:>9.3} {max:>9.3} {total_errors:>7}",
        "all",
        all.len(),
        all.len() as f64 / elapsed.as_secs_f64()
    );
    for (method, entry) in &stats.methods {
        for sample in &entry.samples {
            println!("error in {method}: {sample}");
        }
    }

    let growth = end_rss as i64 - warm_rss as i64;
    let growth_pct = growth as f64 / warm_rss as f64 * 100.0;
    println!(
        "daemon RSS: {started_rss} KiB at start, {warm_rss} KiB after warm-up, {end_rss} KiB at the end ({growth:+} KiB, {growth_pct:+.1}%), max sampled {peak_rss} KiB, VmHWM {hwm} KiB"
    );
    println!(
        "RSS flat: {} (end within {:.0}% of the post-warm-up value)",
        if (growth.unsigned_abs() as f64) <= warm_rss as f64 * FLAT_THRESHOLD {
            "yes"
        } else {
            "no"
        },
        FLAT_THRESHOLD * 100.0
    );
    // The store grows from empty and redb's page cache fills with it: the second half shows
    // what a daemon with a full cache does.
    if let Some(&(at, half_rss)) = samples.iter().find(|(at, _)| *at >= load_elapsed / 2) {
        let growth = end_rss as i64 - half_rss as i64;
        println!(
            "second half: {half_rss} KiB at {:.0} s, {end_rss} KiB at the end ({growth:+} KiB, {:+.1}%)",
            at.as_secs_f64(),
            growth as f64 / half_rss as f64 * 100.0
        );
    }
    println!(
        "daemon CPU: {:.1}% of one core on average ({:.2} of {cores} cores); the bench's clients: {:.1}%",
        cpu * 100.0,
        cpu,
        own_cpu * 100.0
    );
    println!(
        "daemon.status at the end: tasks {}, messages {}, waits live {} (wait_status lists {live_waits}) of {} in total, wake events {} ({} pending), live task actors {}, actor restarts {}, task actor failures {}, wait actor failures {}, storage {} writes in {} commits (largest group {}), failed writes {}, file {} bytes",
        status["tasks"],
        status["messages"],
        status["waits"]["live"],
        status["waits"]["total"],
        status["wake"]["events"],
        status["wake"]["pending"],
        status["actors"]["live_task_actors"],
        status["actors"]["restarts"],
        status["actors"]["task_actor_failures"],
        status["waits"]["wait_actor_failures"],
        status["storage"]["writes"],
        status["storage"]["commits"],
        status["storage"]["largest_group"],
        status["storage"]["failed_writes"],
        status["storage"]["file_bytes"],
    );

    println!(
        "on the quiet daemon after the load, median of 10 calls: {}",
        quiet.join(", ")
    );

    let left = guard.stop();
    let sessions = shared.terminal_pids.lock().unwrap().len();
    println!(
        "terminal sessions started: {sessions}; programs left running after the daemon stopped: {}",
        left.len()
    );
    let failed = total_errors > 0 || client_failures > 0 || !left.is_empty();
    if failed {
        println!(
            "FAILED: {total_errors} unexpected errors, {client_failures} clients panicked, {} programs left behind",
            left.len()
        );
    }
    failed
}

/// p50, p99 and max in ms of sorted µs latencies.
fn percentiles(sorted: &[u32]) -> (f64, f64, f64) {
    if sorted.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let at = |p: f64| {
        let index = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
        sorted[index] as f64 / 1000.0
    };
    (at(0.50), at(0.99), *sorted.last().unwrap() as f64 / 1000.0)
}

/// One client's connection and its figures.
struct Caller {
    client: Client,
    /// `daemon.status` every this many rounds (0: never).
    status_every: usize,
    shared: Arc<Shared>,
    stats: Stats,
}

impl Caller {
    /// Calls `method`; `None` (after counting the error) unless it succeeded.
    async fn call(&mut self, method: &'static str, params: Value) -> Option<Value> {
        let started = Instant::now();
        let outcome = tokio::time::timeout(CALL_TIMEOUT, self.client.call(method, params)).await;
        let micros = started.elapsed().as_micros().min(u32::MAX as u128) as u32;
        self.shared.calls.fetch_add(1, Ordering::Relaxed);
        self.stats
            .methods
            .entry(method)
            .or_default()
            .micros
            .push(micros);
        let failure = match outcome {
            Ok(Ok(Ok(result))) => return Some(result),
            Ok(Ok(Err(error))) => format!("{} {} ({})", error.code, error.message, error.hint),
            Ok(Err(error)) => {
                let text = format!("transport: {error}");
                self.reconnect().await;
                text
            }
            Err(_) => {
                self.reconnect().await;
                format!("no answer within {} s", CALL_TIMEOUT.as_secs())
            }
        };
        self.fail(method, failure);
        None
    }

    /// Counts an error of `method` that is not the daemon's (a result that is not as expected).
    fn fail(&mut self, method: &'static str, text: String) {
        self.shared.errors.fetch_add(1, Ordering::Relaxed);
        self.stats.error(method, text);
    }

    async fn reconnect(&mut self) {
        match Client::connect(&self.shared.socket).await {
            Ok(client) => self.client = client,
            Err(error) => {
                eprintln!("a client cannot reconnect ({error}): it stops");
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
    }
}

fn append(path: &Path, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    writeln!(file, "{line}").unwrap();
}

async fn client_loop(index: usize, shared: Arc<Shared>) -> Stats {
    let client = Client::connect(&shared.socket).await.unwrap();
    let mut caller = Caller {
        client,
        status_every: env_or("LOOKOUT_LOAD_STATUS_EVERY", 1),
        shared: shared.clone(),
        stats: Stats::default(),
    };
    let log = shared.dir.join(format!("client-{index}.log"));
    std::fs::write(&log, format!("client {index} starts\n")).unwrap();
    let target = format!("file:{}", log.display());
    let mut round = 0usize;
    while !shared.stop.load(Ordering::Relaxed) {
        one_round(&mut caller, index, round, &log, &target).await;
        round += 1;
        // Keep the log short-ish: a truncation is followed by the waits, and no wait of this
        // client is live between rounds.
        if round.is_multiple_of(200) {
            std::fs::write(&log, format!("client {index} round {round}\n")).unwrap();
        }
    }
    caller.stats
}

async fn one_round(caller: &mut Caller, index: usize, round: usize, log: &Path, target: &str) {
    let tag = format!("c{index}-r{round}");
    let plan = json!(["Build image", "Push to registry", "Deploy", "Verify"]);
    let Some(registered) = caller
        .call(
            "task_register",
            json!({"name": format!("load {tag}"), "plan": plan,
                   "metadata": {"client": index, "round": round},
                   "session_key": format!("load-{index}")}),
        )
        .await
    else {
        return;
    };
    let Some(task_id) = registered["task_id"].as_str().map(str::to_owned) else {
        caller.fail("task_register", format!("no task_id in {registered}"));
        return;
    };

    caller
        .call(
            "task_update",
            json!({"task_id": task_id, "message": format!("Step 1 done — built image {tag}")}),
        )
        .await;
    caller
        .call(
            "task_update",
            json!({"task_id": task_id, "completed_steps": [2], "current_step": 3}),
        )
        .await;
    caller
        .call(
            "task_plan_update",
            json!({"task_id": task_id,
                   "new_plan": ["Build image", "Push to registry", "Run migrations", "Deploy", "Verify"],
                   "reason": "the release needs a schema migration"}),
        )
        .await;
    caller
        .call(
            "task_update",
            json!({"task_id": task_id, "query": "what image did I build?"}),
        )
        .await;
    caller
        .call("task_thread", json!({"task_id": task_id, "limit": 20}))
        .await;
    let listing = if round.is_multiple_of(2) {
        json!({"limit": 20})
    } else {
        json!({"status": "all", "limit": 20})
    };
    caller.call("task_list", listing).await;

    // A wait on this client's log, one of three kinds in turn.
    append(log, &format!("round {tag}: building"));
    let phrase = format!("DEPLOY FINISHED {tag} END");
    let linked = round % 3 != 2;
    let mut params = json!({"target": target, "wake_when": format!("wake me when '{phrase}' is printed"),
                            "timeout": 600, "poll_interval": POLL_INTERVAL_S});
    if linked {
        params["task_id"] = json!(task_id);
    }
    if let Some(created) = caller.call("smart_wait", params).await {
        match created["wait_id"].as_str() {
            Some(wait_id) if created["status"] == "watching" => {
                let wait_id = wait_id.to_owned();
                match round % 3 {
                    0 => resolve_then_revive(caller, log, &wait_id, &phrase, &tag).await,
                    1 => {
                        caller
                            .call(
                                "wait_update",
                                json!({"wait_id": wait_id,
                                       "wake_when": format!("wake me when 'SMOKE TEST PASSED {tag} END' is printed"),
                                       "timeout": 900, "message": "deploy started, now waiting for the smoke test"}),
                            )
                            .await;
                        caller
                            .call("wait_status", json!({"wait_id": wait_id}))
                            .await;
                    }
                    _ => {
                        caller.call("wait_status", json!({})).await;
                    }
                }
                cancel(caller, &wait_id).await;
            }
            _ => caller.fail("smart_wait", format!("not watching: {created}")),
        }
    }

    if round % 4 == index % 4 {
        terminal(caller, &tag).await;
    }
    caller.call("tools.list", json!({})).await;
    if caller.status_every > 0 && round.is_multiple_of(caller.status_every) {
        caller.call("daemon.status", json!({})).await;
    }

    // Finish the task.
    match round % 4 {
        0 => {
            caller
                .call(
                    "task_update",
                    json!({"task_id": task_id, "message": format!("Steps 3-5 done — {tag} verified"),
                           "status": "completed"}),
                )
                .await;
        }
        1 => {
            caller
                .call(
                    "task_update",
                    json!({"task_id": task_id, "status": "paused"}),
                )
                .await;
            caller
                .call(
                    "task_update",
                    json!({"task_id": task_id, "status": "active", "message": "back at it"}),
                )
                .await;
            caller
                .call(
                    "task_update",
                    json!({"task_id": task_id, "completed_steps": [3, 4, 5], "status": "completed"}),
                )
                .await;
        }
        2 => {
            caller
                .call(
                    "task_update",
                    json!({"task_id": task_id, "status": "failed", "message": "the registry refused the push"}),
                )
                .await;
        }
        _ => {
            caller
                .call(
                    "task_update",
                    json!({"task_id": task_id, "status": "cancelled"}),
                )
                .await;
        }
    }
}

/// Appends the phrase and polls until the wait resolved, then revives it with a new phrase.
async fn resolve_then_revive(
    caller: &mut Caller,
    log: &Path,
    wait_id: &str,
    phrase: &str,
    tag: &str,
) {
    append(log, &format!("step 3: {phrase}"));
    let deadline = Instant::now() + RESOLVE_TIMEOUT;
    loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let Some(status) = caller
            .call("wait_status", json!({"wait_id": wait_id}))
            .await
        else {
            return;
        };
        match status["status"].as_str() {
            Some("resolved") => break,
            Some("watching") if Instant::now() < deadline => continue,
            _ => {
                caller.fail(
                    "smart_wait",
                    format!(
                        "not resolved {} s after its phrase was written: {status}",
                        RESOLVE_TIMEOUT.as_secs()
                    ),
                );
                return;
            }
        }
    }
    if let Some(revived) = caller
        .call(
            "wait_update",
            json!({"wait_id": wait_id, "wake_when": format!("wake me when 'ROLLOUT COMPLETE {tag} END' is printed"),
                   "timeout": 600, "message": "resolved; now waiting for the rollout"}),
        )
        .await
        && revived["status"] != "watching"
    {
        caller.fail("wait_update", format!("not revived: {revived}"));
    }
}

async fn cancel(caller: &mut Caller, wait_id: &str) {
    if let Some(cancelled) = caller
        .call(
            "wait_cancel",
            json!({"wait_id": wait_id, "reason": "load bench: round over"}),
        )
        .await
        && cancelled["status"] != "cancelled"
    {
        caller.fail("wait_cancel", format!("not cancelled: {cancelled}"));
    }
}

async fn terminal(caller: &mut Caller, tag: &str) {
    let shared = caller.shared.clone();
    let _slot = shared.terminals.acquire().await.unwrap();
    let Some(started) = caller
        .call(
            "term_start",
            json!({"command": ["cat"], "cols": 80, "rows": 24}),
        )
        .await
    else {
        return;
    };
    let (Some(session), Some(pid)) = (started["session_id"].as_str(), started["pid"].as_u64())
    else {
        caller.fail("term_start", format!("no session_id or pid in {started}"));
        return;
    };
    let session = session.to_owned();
    shared.terminal_pids.lock().unwrap().push(pid as u32);
    caller
        .call(
            "term_send",
            json!({"session_id": session, "text": format!("hello from {tag}"), "keys": ["Enter"]}),
        )
        .await;
    caller
        .call("term_read", json!({"session_id": session, "lines": 10}))
        .await;
    if let Some(stopped) = caller
        .call("term_stop", json!({"session_id": session}))
        .await
        && stopped["running"] != false
    {
        caller.fail("term_stop", format!("still running: {stopped}"));
        caller
            .call(
                "term_stop",
                json!({"session_id": session, "signal": "KILL"}),
            )
            .await;
    }
}

fn start(dir: &Path) -> Child {
    let extra = match std::env::var("LOOKOUT_LOAD_CACHE_MIB") {
        Ok(cache_mib) => format!("[storage]\ncache_mib = {cache_mib}\n"),
        Err(_) => String::new(),
    };
    start_daemon(dir, &extra, Stdio::inherit())
}
