//! What window waits cost when there are many: `cargo bench --bench window_waits`.
//!
//! Runs the real `lookout serve` binary (a child process, so its resident memory is its own)
//! on a private 1920x1080 Xvfb with 21 windows of 640x480, judged by a loopback
//! chat-completions model that says "not met" at once, waits polling every second:
//!
//! 1. one wait on a window, then 99 more identical waits on it: the resident memory each
//!    additional wait adds, the captures the daemon makes per poll and the judge calls;
//! 2. then one wait on each of 20 other windows: the memory each window wait adds.
//!
//! Memory is read from /proc after the waits have judged their first frame and polled for
//! a few seconds more.
//!
//! 3. Then, on two more daemons side by side (told of changes by the X server, the default,
//!    and polled only, `follow_changes = false`): 100 waits at the default 2 s poll on 100
//!    windows of their own that do not change, and the daemon's CPU over
//!    `LOOKOUT_BENCH_SECONDS` (default 20) once every wait judged its first frame.
//!
//! `cargo bench --bench window_waits -- wayland` runs the third part alone on a private
//! headless sway (1920x1080, pixman renderer) with 20 foot terminal windows side by side:
//! 20 waits, one per window, told of changes by the compositor (`copy_with_damage`) and
//! polled only, with the compositor's CPU beside the daemon's (each screen copy makes it
//! render a frame).

// A benchmark measures: it reads the wall clock and starts the programs it measures; the
// rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/daemon_process.rs"]
mod daemon_process;
#[path = "support/load_average.rs"]
mod load_average;
#[path = "support/loopback_http.rs"]
mod loopback_http;
#[path = "support/proc_stats.rs"]
#[allow(dead_code)]
mod proc_stats;

#[path = "support/rpc.rs"]
mod rpc;

use rpc::call;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use actors::testkit::test_display::{TestWindows, Xvfb};
use daemon_process::start_daemon;
use lookout::client::Client;
use proc_stats::{clock_ticks_per_second, cpu_ticks, rss_kib};
use serde_json::{Value, json};

const IDENTICAL: usize = 100;
const DISTINCT: usize = 20;
const CONDITION: &str = "the installer says Finished";
/// How long the waits poll before memory is read.
const SETTLE: Duration = Duration::from_secs(5);

async fn start_waits(client: &mut Client, target: &str, count: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..count {
        let created = call(
            client,
            "smart_wait",
            json!({"target": target, "wake_when": CONDITION, "poll_interval": 1, "timeout": 3600}),
        )
        .await;
        ids.push(created["wait_id"].as_str().unwrap().to_owned());
    }
    ids
}

/// Waits until every wait has its first verdict.
async fn until_judged(client: &mut Client, ids: &[String]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    for id in ids {
        loop {
            let status = call(client, "wait_status", json!({"wait_id": id})).await;
            if status["last_observation"] == "still installing" {
                break;
            }
            assert!(Instant::now() < deadline, "wait {id} was never judged");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// A loopback chat-completions model that says "not met" at once, counting its calls.
fn not_met_model(calls: Arc<AtomicU64>) -> String {
    loopback_http::serve(move |_body| {
        calls.fetch_add(1, Ordering::SeqCst);
        json!({
            "choices": [{"message": {"role": "assistant",
                "content": "{\"met\": false, \"observation\": \"still installing\"}"}}],
            "usage": {"prompt_tokens": 800, "completion_tokens": 12},
        })
        .to_string()
    })
}

async fn waits_status(client: &mut Client) -> Value {
    call(client, "daemon.status", json!({})).await
}

fn main() {
    load_average::print_load_average();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let calls = Arc::new(AtomicU64::new(0));
    let url = not_met_model(calls.clone());
    if std::env::args().any(|argument| argument == "wayland") {
        idle_cpu_wayland(&url, &runtime);
        return;
    }
    let xvfb = Xvfb::start();
    let windows = TestWindows::connect(xvfb.display());
    windows.create("Shared Installer", 0, 0, 640, 480, 0x404040);
    for index in 1..=DISTINCT {
        let offset = (index * 40) as i16;
        windows.create(
            &format!("Window {index:02}"),
            offset,
            offset,
            640,
            480,
            0x203040 + index as u32 * 0x030201,
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[x11]\ndisplay = {:?}\n[vision]\nbackend = \"openai\"\nbase_url = \"{url}/v1\"\n\
         model = \"bench\"\nmin_interval_s = 0\n",
        xvfb.display()
    );
    let mut daemon = start_daemon(dir.path(), &config, Stdio::inherit());
    let pid = daemon.id();
    let socket = dir.path().join("lookout.sock");
    runtime.block_on(async {
        let mut client = Client::connect(&socket).await.unwrap();
        let idle = rss_kib(pid);

        let first = start_waits(&mut client, "window:shared installer", 1).await;
        until_judged(&mut client, &first).await;
        tokio::time::sleep(SETTLE).await;
        let one = rss_kib(pid);

        let more = start_waits(&mut client, "window:shared installer", IDENTICAL - 1).await;
        until_judged(&mut client, &more).await;
        tokio::time::sleep(SETTLE).await;
        let identical = rss_kib(pid);
        let judge_calls = calls.load(Ordering::SeqCst);

        // Captures per poll with the hundred waits: over ten polls.
        let before = waits_status(&mut client).await["waits"]["captures"]
            .as_u64()
            .unwrap();
        let started = Instant::now();
        tokio::time::sleep(Duration::from_secs(10)).await;
        let seconds = started.elapsed().as_secs_f64();
        let status = waits_status(&mut client).await;
        let captures = status["waits"]["captures"].as_u64().unwrap() - before;
        let targets = status["waits"]["targets_watched"].as_u64().unwrap();

        let mut distinct = Vec::new();
        for index in 1..=DISTINCT {
            distinct.extend(start_waits(&mut client, &format!("window:window {index:02}"), 1).await);
        }
        until_judged(&mut client, &distinct).await;
        tokio::time::sleep(SETTLE).await;
        let all = rss_kib(pid);

        println!("window waits polling every 1 s on 640x480 windows (resident memory of the daemon)\n");
        println!("| what | figure |");
        println!("|---|---|");
        println!("| daemon with no wait | {idle} KiB |");
        println!(
            "| the first wait on a window | {} KiB |",
            one.saturating_sub(idle)
        );
        println!(
            "| each of {} more identical waits on it | {:.1} KiB |",
            IDENTICAL - 1,
            identical.saturating_sub(one) as f64 / (IDENTICAL - 1) as f64
        );
        println!(
            "| captures per poll, {IDENTICAL} waits on one window | {:.2} ({captures} in {seconds:.1} s; {targets} target watched) |",
            captures as f64 / seconds
        );
        println!("| judge calls for the {IDENTICAL} waits' first frame | {judge_calls} |");
        println!(
            "| each wait on one of {DISTINCT} other windows | {:.1} KiB |",
            all.saturating_sub(identical) as f64 / DISTINCT as f64
        );
    });
    let _ = daemon.kill();
    let _ = daemon.wait();
    idle_cpu_x11(&xvfb, &windows, &url, &runtime);
}

/// Waits on windows of their own that never change.
const IDLE_WAITS: usize = 100;

/// The CPU of 100 idle waits on X11 windows of their own, told of changes and polled.
fn idle_cpu_x11(xvfb: &Xvfb, windows: &TestWindows, url: &str, runtime: &tokio::runtime::Runtime) {
    for index in 0..IDLE_WAITS {
        let offset = (index * 8) as i16;
        windows.create(
            &format!("Idle {index:03}"),
            offset,
            offset,
            640,
            480,
            0x102030 + index as u32 * 0x010101,
        );
    }
    let targets = (0..IDLE_WAITS)
        .map(|index| format!("window:idle {index:03}"))
        .collect::<Vec<_>>();
    let desktop = format!("[x11]\ndisplay = {:?}\n", xvfb.display());
    idle_cpu(
        &format!("{IDLE_WAITS} 640x480 X11 windows"),
        &desktop,
        &targets,
        "told (DAMAGE)",
        None,
        url,
        runtime,
    );
}

/// Foot windows side by side on the headless sway of the Wayland idle bench.
const WAYLAND_IDLE_WINDOWS: usize = 20;

/// The CPU of idle waits on Wayland windows of their own, told of changes and polled, with
/// the compositor's.
fn idle_cpu_wayland(url: &str, runtime: &tokio::runtime::Runtime) {
    let mut sway = actors::testkit::sway::HeadlessSway::start_with(1920, 1080);
    for index in 0..WAYLAND_IDLE_WINDOWS {
        sway.open_terminal(
            &format!("Idle {index:03}"),
            &format!("printf 'installing part {index}...'; sleep 100000"),
        );
    }
    let targets = (0..WAYLAND_IDLE_WINDOWS)
        .map(|index| format!("window:idle {index:03}"))
        .collect::<Vec<_>>();
    let display = sway.display();
    let desktop = format!(
        "[wayland]\nsession = \"wayland\"\ndisplay = {:?}\nsway_socket = {:?}\n",
        display.socket.display().to_string(),
        display.sway.as_ref().unwrap().display().to_string()
    );
    idle_cpu(
        &format!("{WAYLAND_IDLE_WINDOWS} foot windows side by side on a 1920x1080 headless sway"),
        &desktop,
        &targets,
        "told (copy_with_damage)",
        Some(sway.pid()),
        url,
        runtime,
    );
}

/// The CPU of one idle wait on each of `targets`, told of changes and polled, side by side;
/// the compositor's too when its `compositor` pid is given.
fn idle_cpu(
    what: &str,
    desktop: &str,
    targets: &[String],
    told_label: &str,
    compositor: Option<u32>,
    url: &str,
    runtime: &tokio::runtime::Runtime,
) {
    let seconds: u64 = std::env::var("LOOKOUT_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    println!(
        "\n{} waits at a 2 s poll on {what} that do not change, CPU over {seconds} s\n",
        targets.len()
    );
    println!("| changes | daemon CPU (share of one core) | compositor CPU | captures |");
    println!("|---|---|---|---|");
    if let Some(pid) = compositor {
        let before = cpu_ticks(pid);
        let started = Instant::now();
        std::thread::sleep(Duration::from_secs(seconds));
        let share = (cpu_ticks(pid) - before) as f64
            / clock_ticks_per_second()
            / started.elapsed().as_secs_f64();
        println!(
            "| no daemon (the compositor alone) | — | {:.2} % | — |",
            share * 100.0
        );
    }
    for told in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "{desktop}[wait]\nfollow_changes = {told}\n[vision]\n\
             backend = \"openai\"\nbase_url = \"{url}/v1\"\nmodel = \"bench\"\nmin_interval_s = 0\n",
        );
        let mut daemon = start_daemon(dir.path(), &config, Stdio::inherit());
        let pid = daemon.id();
        let socket = dir.path().join("lookout.sock");
        runtime.block_on(async {
            let mut client = Client::connect(&socket).await.unwrap();
            let mut ids = Vec::new();
            for target in targets {
                let created = call(
                    &mut client,
                    "smart_wait",
                    json!({"target": target, "wake_when": CONDITION, "timeout": 3600}),
                )
                .await;
                ids.push(created["wait_id"].as_str().unwrap().to_owned());
            }
            until_judged(&mut client, &ids).await;
            tokio::time::sleep(SETTLE).await;
            let captures_before = waits_status(&mut client).await["waits"]["captures"]
                .as_u64()
                .unwrap();
            let ticks_before = cpu_ticks(pid);
            let compositor_before = compositor.map(cpu_ticks);
            let started = Instant::now();
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            let ticks = cpu_ticks(pid) - ticks_before;
            let elapsed = started.elapsed().as_secs_f64();
            let share = |ticks: u64| ticks as f64 / clock_ticks_per_second() / elapsed * 100.0;
            let compositor_share = match (compositor, compositor_before) {
                (Some(pid), Some(before)) => format!("{:.2} %", share(cpu_ticks(pid) - before)),
                _ => "—".to_owned(),
            };
            let captures = waits_status(&mut client).await["waits"]["captures"]
                .as_u64()
                .unwrap()
                - captures_before;
            println!(
                "| {} | {:.2} % | {compositor_share} | {captures} |{}",
                if told { told_label } else { "polled" },
                share(ticks),
                load_average::busy_note()
            );
        });
        let _ = daemon.kill();
        let _ = daemon.wait();
    }
}
