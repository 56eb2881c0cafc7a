//! How soon a window wait wakes after the window changed: `cargo bench --bench wake_latency`.
//!
//! Runs the real `lookout serve` binary on a private 1920x1080 Xvfb with a 640x480 window,
//! judged by a loopback chat-completions model that answers at once (met once the bench has
//! changed the window). Each trial starts a wait on the window, lets its first frame be
//! judged, waits a random phase against the poll (stratified: trial i of n at a random point
//! of the i-th n-th of the period), paints a "dialog" and times how long until
//! the wake event reaches a live subscriber (`events.subscribe`). `LOOKOUT_BENCH_TRIALS`
//! trials (default 10) at each poll interval (1 s and 2 s), on three daemons side by side in
//! one run: told of changes by the X server (DAMAGE, the default), polled only
//! (`follow_changes = false`) with the settle probe at its default (50 ms, then 100 and 200),
//! and polled with the probe off (`settle_probe_ms = 0`, which confirms a change at the next
//! poll, as before the probe existed).
//!
//! `cargo bench --bench wake_latency -- wayland` runs the same rows on a private headless sway
//! (wlroots' pixman renderer, a 1280x720 output) whose foot terminal window fills the output:
//! told of changes by the compositor (`copy_with_damage`), or polled. The window is painted
//! and changed by escape sequences the terminal reads from a file.

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/daemon_process.rs"]
mod daemon_process;
#[path = "support/load_average.rs"]
mod load_average;
#[path = "support/loopback_http.rs"]
mod loopback_http;

#[path = "support/rpc.rs"]
mod rpc;
#[path = "support/xorshift.rs"]
mod xorshift;

use rpc::call;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use xorshift::Xorshift;

use actors::testkit::sway::{HeadlessSway, append, follow_script};
use actors::testkit::test_display::{TestWindows, Xvfb};
use daemon_process::start_daemon;
use lookout::client::Client;
use serde_json::json;

const TITLE: &str = "Latency Probe — Installer";

/// The model: "met" once the bench has set `changed`; counts its calls.
struct Model {
    changed: AtomicBool,
    calls: AtomicU64,
}

fn model_answer(model: &Model) -> String {
    model.calls.fetch_add(1, Ordering::SeqCst);
    let met = model.changed.load(Ordering::SeqCst);
    let said = format!(
        "{{\"met\": {met}, \"observation\": \"{}\"}}",
        if met {
            "the dialog says Done"
        } else {
            "still installing"
        }
    );
    json!({
        "choices": [{"message": {"role": "assistant", "content": said}}],
        "usage": {"prompt_tokens": 800, "completion_tokens": 12},
    })
    .to_string()
}

/// The desktop the window is on, and how the bench paints it.
#[allow(clippy::large_enum_variant)] // one, for the whole run
enum Desktop {
    X11 {
        xvfb: Xvfb,
        windows: TestWindows,
        window: x11rb::protocol::xproto::Window,
    },
    Wayland {
        // Kept for the window's life.
        _sway: HeadlessSway,
        sway_display: actors::sight::capture::wayland::WaylandDisplay,
        /// What the terminal window shows is appended here.
        log: std::path::PathBuf,
    },
}

impl Desktop {
    fn x11() -> Desktop {
        let xvfb = Xvfb::start();
        let windows = TestWindows::connect(xvfb.display());
        let window = windows.create(TITLE, 100, 100, 640, 480, 0x404040);
        Desktop::X11 {
            xvfb,
            windows,
            window,
        }
    }

    fn wayland() -> Desktop {
        let mut sway = HeadlessSway::start_with(1280, 720);
        let log = sway.shared_folder().join("probe.log");
        sway.open_terminal(TITLE, &follow_script(&log));
        Desktop::Wayland {
            sway_display: sway.display().clone(),
            _sway: sway,
            log,
        }
    }

    /// The daemon's configuration section for this desktop.
    fn config(&self) -> String {
        match self {
            Desktop::X11 { xvfb, .. } => format!("[x11]\ndisplay = {:?}\n", xvfb.display()),
            Desktop::Wayland { sway_display, .. } => format!(
                "[wayland]\nsession = \"wayland\"\ndisplay = {:?}\nsway_socket = {:?}\n",
                sway_display.socket.display().to_string(),
                sway_display.sway.as_ref().unwrap().display().to_string()
            ),
        }
    }

    /// Paints the whole window `colour` (0xRRGGBB).
    fn paint(&self, colour: u32) {
        match self {
            Desktop::X11 {
                windows, window, ..
            } => windows.repaint(*window, colour),
            Desktop::Wayland { log, .. } => {
                append(log, &format!("{}\x1b[2J\x1b[H", background(colour)))
            }
        }
    }

    /// Shows a "dialog" over part of the window.
    fn change(&self, colour: u32) {
        match self {
            Desktop::X11 {
                windows, window, ..
            } => windows.fill(*window, 120, 100, 400, 200, 0xffffff ^ colour),
            Desktop::Wayland { log, .. } => append(
                log,
                &format!(
                    "\x1b[8;20H{}  Installation complete: Done  \x1b[0m",
                    background(0xffffff ^ colour)
                ),
            ),
        }
    }
}

/// The escape sequence of a true-colour background.
fn background(colour: u32) -> String {
    format!(
        "\x1b[48;2;{};{};{}m",
        (colour >> 16) & 0xff,
        (colour >> 8) & 0xff,
        colour & 0xff
    )
}

struct Trial {
    latency: Duration,
    phase: Duration,
    judge_calls: u64,
    captures: u64,
}

#[allow(clippy::too_many_arguments)]
async fn trial(
    client: &mut Client,
    listener: &mut Client,
    desktop: &Desktop,
    model: &Model,
    poll: Duration,
    phase: Duration,
    colour: u32,
) -> Trial {
    desktop.paint(colour);
    model.changed.store(false, Ordering::SeqCst);
    let created = call(
        client,
        "smart_wait",
        json!({"target": "window:latency probe", "wake_when": "the dialog says Done",
               "poll_interval": poll.as_secs_f64(), "timeout": 120}),
    )
    .await;
    let wait_id = created["wait_id"].as_str().unwrap().to_owned();
    // The first frame is judged (not met) before the change comes.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let status = call(client, "wait_status", json!({"wait_id": wait_id})).await;
        if status["counters"]["judge_calls"].as_u64().unwrap_or(0) >= 1 {
            break;
        }
        assert!(Instant::now() < deadline, "the first frame was not judged");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(poll + phase).await;
    model.changed.store(true, Ordering::SeqCst);
    desktop.change(colour);
    let changed_at = Instant::now();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), listener.read_json())
            .await
            .expect("a wake within 30 s")
            .unwrap();
        let params = &event["params"];
        if params["wait_id"] == wait_id.as_str() {
            assert_eq!(params["kind"], "wait_resolved", "{event}");
            break;
        }
    }
    let latency = changed_at.elapsed();
    let status = call(client, "wait_status", json!({"wait_id": wait_id})).await;
    Trial {
        latency,
        phase,
        judge_calls: status["counters"]["judge_calls"].as_u64().unwrap(),
        captures: status["counters"]["captures"].as_u64().unwrap(),
    }
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

fn main() {
    load_average::print_load_average();
    let trials: usize = std::env::var("LOOKOUT_BENCH_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(10);
    let desktop = if std::env::args().any(|argument| argument == "wayland") {
        Desktop::wayland()
    } else {
        Desktop::x11()
    };
    let model = Arc::new(Model {
        changed: AtomicBool::new(false),
        calls: AtomicU64::new(0),
    });
    let answering = model.clone();
    let url = loopback_http::serve(move |_body| model_answer(&answering));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut phases = Xorshift::from_time();
    println!(
        "wake latency from a window change to the wake event, {trials} trials per row, random \
         phase, on {}\n",
        match desktop {
            Desktop::X11 { .. } => "X11 (Xvfb)",
            Desktop::Wayland { .. } => "Wayland (headless sway)",
        }
    );
    println!(
        "{:<6} {:<22} {:>9} {:>9} {:>9} {:>9} {:>12} {:>9}",
        "poll", "changes, settle probe", "median", "mean", "min", "max", "judge calls", "captures"
    );
    let mut colour = 0x203040u32;
    for poll in [Duration::from_secs(1), Duration::from_secs(2)] {
        for (told, probe_ms) in [(true, None), (false, None), (false, Some(0u64))] {
            let dir = tempfile::tempdir().unwrap();
            let config = format!(
                "{}[wait]\nfollow_changes = {told}\n{}\
                 [vision]\nbackend = \"openai\"\nbase_url = \"{url}/v1\"\nmodel = \"bench\"\n\
                 min_interval_s = 0\n",
                desktop.config(),
                probe_ms.map_or(String::new(), |ms| format!("settle_probe_ms = {ms}\n"))
            );
            let mut daemon = start_daemon(dir.path(), &config, Stdio::inherit());
            let socket = dir.path().join("lookout.sock");
            let results = runtime.block_on(async {
                let mut listener = Client::connect(&socket).await.unwrap();
                call(&mut listener, "events.subscribe", json!({})).await;
                let mut client = Client::connect(&socket).await.unwrap();
                let mut results = Vec::new();
                for index in 0..trials {
                    colour = colour.wrapping_add(0x0a0b0c) & 0x7f7f7f;
                    // Stratified: trial i changes the window at a random point of the i-th
                    // n-th of the poll, so ten trials cover the whole period evenly.
                    let fraction = (index as f64 + phases.fraction()) / trials as f64;
                    let phase = poll.mul_f64(fraction);
                    let result = trial(
                        &mut client,
                        &mut listener,
                        &desktop,
                        &model,
                        poll,
                        phase,
                        colour,
                    )
                    .await;
                    results.push(result);
                }
                results
            });
            let _ = daemon.kill();
            let _ = daemon.wait();
            let mut seconds: Vec<f64> = results.iter().map(|r| r.latency.as_secs_f64()).collect();
            seconds.sort_by(f64::total_cmp);
            let mean = seconds.iter().sum::<f64>() / seconds.len() as f64;
            let judge_calls: u64 = results.iter().map(|r| r.judge_calls).sum();
            let captures: u64 = results.iter().map(|r| r.captures).sum();
            println!(
                "{:<6} {:<22} {:>8.3}s {:>8.3}s {:>8.3}s {:>8.3}s {:>12} {:>9}",
                format!("{}s", poll.as_secs()),
                format!(
                    "{}, {}",
                    if told { "told" } else { "polled" },
                    match probe_ms {
                        None => "default".to_owned(),
                        Some(0) => "off".to_owned(),
                        Some(ms) => format!("{ms} ms"),
                    }
                ),
                median(&seconds),
                mean,
                seconds[0],
                seconds[seconds.len() - 1],
                judge_calls,
                captures,
            );
            println!(
                "       each (latency after a change at phase): {}",
                results
                    .iter()
                    .map(|r| format!(
                        "{:.2}@{:.2}",
                        r.latency.as_secs_f64(),
                        r.phase.as_secs_f64()
                    ))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
}
