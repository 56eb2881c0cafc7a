//! How soon a wait on text wakes after the deciding line: `cargo bench --bench text_wakes`.
//!
//! Runs the real `lookout serve` binary twice side by side in one run: following its targets'
//! changes (the default: inotify for a file, the terminal's own output for a `pty:` session,
//! tmux `pipe-pane` for a pane)
//! and polling only (`follow_changes = false`, as before). Each trial starts a wait at the
//! default 2 s poll, lets its first capture be taken, waits a random phase against the poll
//! (stratified: trial i of n at a random point of the i-th n-th of the period), writes the
//! deciding line — appended to a log for `file:`, typed into a session that answers it for
//! `pty:`, into a tmux pane (on a private tmux server) that answers it for `tmux:` — and times until the wake event reaches a live subscriber (`events.subscribe`).
//! Then 100 waits stay idle on unchanged targets of each kind for 10 s, and the daemon's CPU
//! over that time is read from /proc. `LOOKOUT_BENCH_TRIALS` trials (default 20) per row.
//! Prints the load average first: the figures need a quiet machine.

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
#[path = "support/xorshift.rs"]
mod xorshift;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use daemon_process::start_daemon_with;
use lookout::client::Client;
use rpc::call;
use serde_json::{Value, json};
use xorshift::Xorshift;

/// The poll every wait here uses: the default.
const POLL: Duration = Duration::from_secs(2);
/// Idle waits per kind, and how long their CPU is measured.
const IDLE_WAITS: usize = 100;
const IDLE_FOR: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Pty,
    Tmux,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::File => "file:",
            Kind::Pty => "pty:",
            Kind::Tmux => "tmux:",
        }
    }
}

/// One daemon and what its trials write to.
struct Bench {
    client: Client,
    listener: Client,
    log: std::path::PathBuf,
    session: String,
    tmux: Tmux,
}

/// A private tmux server with one pane that answers each line typed into it.
struct Tmux {
    dir: tempfile::TempDir,
}

/// The pane's session.
const TMUX_SESSION: &str = "bench";

impl Tmux {
    fn start() -> Tmux {
        let tmux = Tmux {
            dir: tempfile::tempdir().unwrap(),
        };
        tmux.run(&[
            "new-session",
            "-d",
            "-s",
            TMUX_SESSION,
            "sh -c 'while read line; do echo \"got $line\"; done'",
        ]);
        tmux
    }

    fn run(&self, args: &[&str]) {
        let status = std::process::Command::new("tmux")
            .env("TMUX_TMPDIR", self.dir.path())
            .env_remove("TMUX")
            .args(args)
            .status()
            .expect("tmux runs (apt-get install tmux)");
        assert!(status.success(), "tmux {args:?}");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux")
            .env("TMUX_TMPDIR", self.dir.path())
            .arg("kill-server")
            .status();
    }
}

impl Bench {
    async fn open(dir: &Path, tmux: Tmux) -> Bench {
        let socket = dir.join("lookout.sock");
        let mut listener = Client::connect(&socket).await.unwrap();
        call(&mut listener, "events.subscribe", json!({})).await;
        let mut client = Client::connect(&socket).await.unwrap();
        let log = dir.join("build.log");
        std::fs::write(&log, "starting\n").unwrap();
        // A session that answers each line typed into it: its answer is the deciding output.
        let started = call(
            &mut client,
            "term_start",
            json!({"command": "sh -c 'while read line; do echo \"got $line\"; done'"}),
        )
        .await;
        let session = started["session_id"].as_str().unwrap().to_owned();
        Bench {
            client,
            listener,
            log,
            session,
            tmux,
        }
    }

    async fn wait_on(&mut self, kind: Kind, phrase: &str) -> String {
        let target = match kind {
            Kind::File => format!("file:{}", self.log.display()),
            Kind::Pty => format!("pty:{}", self.session),
            Kind::Tmux => format!("tmux:{TMUX_SESSION}"),
        };
        let created = call(
            &mut self.client,
            "smart_wait",
            json!({"target": target, "wake_when": format!("'{phrase}' appears"),
                   "poll_interval": POLL.as_secs_f64(), "timeout": 600}),
        )
        .await;
        created["wait_id"].as_str().unwrap().to_owned()
    }

    /// Writes the line that decides `phrase`.
    async fn decide(&mut self, kind: Kind, token: &str) {
        match kind {
            Kind::File => {
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&self.log)
                    .unwrap();
                writeln!(file, "got {token}").unwrap();
            }
            Kind::Pty => {
                call(
                    &mut self.client,
                    "term_send",
                    json!({"session_id": self.session, "text": token, "keys": ["Enter"]}),
                )
                .await;
            }
            Kind::Tmux => self
                .tmux
                .run(&["send-keys", "-t", TMUX_SESSION, token, "Enter"]),
        }
    }

    /// One trial: the wait, its first capture, the phase, the line, the wake.
    async fn trial(&mut self, kind: Kind, index: usize, phase: Duration) -> Duration {
        let token = format!("go-{index}");
        let phrase = format!("got {token}");
        let wait_id = self.wait_on(kind, &phrase).await;
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let status = call(&mut self.client, "wait_status", json!({"wait_id": wait_id})).await;
            if status["counters"]["captures"].as_u64().unwrap_or(0) >= 1 {
                break;
            }
            assert!(Instant::now() < deadline, "the first capture never came");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(phase).await;
        let written = Instant::now();
        self.decide(kind, &token).await;
        loop {
            let event = tokio::time::timeout(Duration::from_secs(30), self.listener.read_json())
                .await
                .expect("a wake within 30 s")
                .unwrap();
            let params: &Value = &event["params"];
            if params["wait_id"] == wait_id.as_str() {
                assert_eq!(params["kind"], "wait_resolved", "{event}");
                return written.elapsed();
            }
        }
    }

    /// The daemon's CPU, in percent of one core, while `IDLE_WAITS` waits watch `kind`
    /// targets that do not change.
    async fn idle_cpu(&mut self, kind: Kind, pid: u32) -> f64 {
        let mut waits = Vec::new();
        for index in 0..IDLE_WAITS {
            waits.push(self.wait_on(kind, &format!("never-{index}")).await);
        }
        tokio::time::sleep(POLL).await;
        let before = proc_stats::cpu_ticks(pid);
        tokio::time::sleep(IDLE_FOR).await;
        let ticks = proc_stats::cpu_ticks(pid) - before;
        for wait_id in waits {
            call(&mut self.client, "wait_cancel", json!({"wait_id": wait_id})).await;
        }
        100.0 * ticks as f64 / proc_stats::clock_ticks_per_second() / IDLE_FOR.as_secs_f64()
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn main() {
    load_average::print_load_average();
    let trials: usize = std::env::var("LOOKOUT_BENCH_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(20);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut phases = Xorshift::from_time();
    println!(
        "wake latency from the deciding line to the wake event, poll {} s, {trials} trials per \
         row, random phase; CPU of {IDLE_WAITS} idle waits over {} s\n",
        POLL.as_secs(),
        IDLE_FOR.as_secs()
    );
    println!(
        "{:<6} {:<16} {:>9} {:>9} {:>9} {:>9} {:>9} {:>12}",
        "target", "daemon", "p50", "p99", "mean", "min", "max", "idle CPU"
    );
    for kind in [Kind::File, Kind::Pty, Kind::Tmux] {
        for follow in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let config = format!("[wait]\nfollow_changes = {follow}\n");
            let tmux = Tmux::start();
            let tmux_tmpdir = tmux.dir.path().to_owned();
            let environment = [("TMUX_TMPDIR", tmux_tmpdir.as_path())];
            let mut daemon = start_daemon_with(dir.path(), &config, Stdio::inherit(), &environment);
            let pid = daemon.id();
            let (mut seconds, idle) = runtime.block_on(async {
                let mut bench = Bench::open(dir.path(), tmux).await;
                let mut seconds = Vec::new();
                for index in 0..trials {
                    let fraction = (index as f64 + phases.fraction()) / trials as f64;
                    let latency = bench.trial(kind, index, POLL.mul_f64(fraction)).await;
                    seconds.push(latency.as_secs_f64());
                }
                (seconds, bench.idle_cpu(kind, pid).await)
            });
            let _ = daemon.kill();
            let _ = daemon.wait();
            seconds.sort_by(f64::total_cmp);
            let mean = seconds.iter().sum::<f64>() / seconds.len() as f64;
            let ms = |s: f64| format!("{:.1}ms", s * 1000.0);
            println!(
                "{:<6} {:<16} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11.2}%",
                kind.name(),
                if follow {
                    "follows changes"
                } else {
                    "polls only"
                },
                ms(percentile(&seconds, 50.0)),
                ms(percentile(&seconds, 99.0)),
                ms(mean),
                ms(seconds[0]),
                ms(seconds[seconds.len() - 1]),
                idle
            );
        }
    }
}
