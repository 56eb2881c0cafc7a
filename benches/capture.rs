//! X11 and Wayland capture: `cargo bench --bench capture`.
//!
//! Starts a private 1920x1080x24 Xvfb with a 1280x720 window half covered by another, and
//! measures (criterion) one capture of the screen and of the window, with MIT-SHM and with
//! GetImage, side by side, beside the floor: copying a frame of the same size into a new
//! buffer, which every capture does at least once. Then a headless sway with a 1920x1080
//! output and a foot window: lookout's screencopy of the screen and of the window, beside
//! `grim` (the reference screencopy client) writing the same output as uncompressed PPM and
//! as its default PNG, in the same run. Then watches the X11 window as a wait does (capture
//! and pixel gate every 2 s) for `LOOKOUT_BENCH_WATCH_SECONDS` (default 60) and prints the
//! CPU this process and the X server used meanwhile, as a share of one core.

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/load_average.rs"]
mod load_average;

use std::time::{Duration, Instant};

use actors::sight::capture::wayland::WaylandCapture;
use actors::sight::capture::x11::{CaptureOptions, Watched, X11Capture};
use actors::sight::content::Content;
use actors::sight::gate::pixel::PixelGate;
use actors::sight::gate::{Gate, GateDecision};
use actors::sight::target::Target;
use criterion::Criterion;
use storage::Timestamp;

use actors::testkit::sway::HeadlessSway;
use actors::testkit::test_display;

use test_display::{TestWindows, Xvfb};

const POLL: Duration = Duration::from_secs(2);

fn capture_of(display: &str, target: &str, shared_memory: bool) -> X11Capture {
    let watched = Watched::of(&Target::parse(target).unwrap()).unwrap();
    let options = CaptureOptions {
        shared_memory,
        ..CaptureOptions::default()
    };
    X11Capture::connect(Some(display), watched, options).unwrap()
}

fn bench_captures(criterion: &mut Criterion, display: &str) {
    let mut group = criterion.benchmark_group("capture on Xvfb");
    // The floor: copying a frame of each size into a fresh buffer, which every capture does
    // at least once (out of the segment or the X socket).
    for (size, bytes) in [("1920x1080", 1920 * 1080 * 4), ("1280x720", 1280 * 720 * 4)] {
        let frame = vec![0x5au8; bytes];
        group.bench_function(
            format!("memcpy of a {size} frame into a new buffer (floor)"),
            |b| b.iter(|| std::hint::black_box(frame.clone())),
        );
    }
    for (target, size) in [
        ("screen", "1920x1080"),
        ("window:watched", "1280x720, half covered"),
    ] {
        for (shared_memory, method) in [(true, "MIT-SHM"), (false, "GetImage")] {
            let mut capture = capture_of(display, target, shared_memory);
            assert!(matches!(capture.capture().unwrap(), Content::Frame(_)));
            group.bench_function(format!("{target} ({size}), {method}"), |b| {
                b.iter(|| capture.capture().unwrap())
            });
        }
    }
    group.finish();
}

fn bench_wayland(criterion: &mut Criterion) {
    let mut sway = HeadlessSway::start_with(1920, 1080);
    sway.open_terminal(
        "watched",
        "printf '\\033[48;2;30;60;160m\\033[2J'; ls -l /usr/bin | head -60; sleep 100000",
    );
    let display = sway.display().clone();
    let mut group = criterion.benchmark_group("capture on headless sway");
    let frame = vec![0x5au8; 1920 * 1080 * 4];
    group.bench_function(
        "memcpy of a 1920x1080 frame into a new buffer (floor)",
        |b| b.iter(|| std::hint::black_box(frame.clone())),
    );
    for target in ["screen", "window:watched"] {
        let watched = Watched::of(&Target::parse(target).unwrap()).unwrap();
        let mut capture = WaylandCapture::connect(&display, watched).unwrap();
        match capture.capture().unwrap() {
            Content::Frame(frame) => assert_eq!((frame.width, frame.height), (1920, 1080)),
            other => panic!("{target}: {other:?}"),
        }
        group.bench_function(format!("lookout {target} (1920x1080), screencopy"), |b| {
            b.iter(|| capture.capture().unwrap())
        });
    }
    group.sample_size(20);
    for (format, arguments) in [("PPM", &["-t", "ppm"][..]), ("PNG (its default)", &[][..])] {
        let grim = || {
            let status = std::process::Command::new("grim")
                .args(arguments)
                .arg("/dev/null")
                .env("WAYLAND_DISPLAY", &display.socket)
                .env("XDG_RUNTIME_DIR", sway.shared_folder())
                .status()
                .expect("grim runs (apt-get install grim)");
            assert!(status.success());
        };
        grim();
        group.bench_function(format!("grim, the whole output as {format}"), |b| {
            b.iter(grim)
        });
    }
    group.finish();
}

/// User plus system CPU time of a process, from /proc.
fn cpu_time(pid: &str) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which may contain spaces) start after the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let per_second = 100; // USER_HZ on Linux
    Duration::from_millis(ticks * 1000 / per_second)
}

fn watch_like_a_wait(xvfb: &Xvfb, app: &TestWindows, window: u32) {
    let seconds: u64 = std::env::var("LOOKOUT_BENCH_WATCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let mut capture = capture_of(xvfb.display(), "window:watched", true);
    let mut gate = PixelGate::new(Duration::from_secs(120));
    let server = xvfb.pid().to_string();
    let (own_before, server_before) = (cpu_time("self"), cpu_time(&server));
    let started = Instant::now();
    let (mut polls, mut judged, mut busiest) = (0u64, 0u64, Duration::ZERO);
    while started.elapsed() < Duration::from_secs(seconds) {
        let poll_started = Instant::now();
        if polls % 10 == 5 {
            // Now and then the application draws something.
            app.fill(window, (polls * 8) as i16 % 1200, 100, 40, 16, 0x00ff00);
        }
        let content = capture.capture().unwrap();
        let now = Timestamp(started.elapsed().as_millis() as u64);
        if let GateDecision::Judge(readiness) = gate.consider(&content, now) {
            gate.judged(&content, readiness, now);
            judged += 1;
        }
        polls += 1;
        busiest = busiest.max(poll_started.elapsed());
        std::thread::sleep(POLL.saturating_sub(poll_started.elapsed()));
    }
    let wall = started.elapsed().as_secs_f64();
    let own = (cpu_time("self") - own_before).as_secs_f64();
    let server_cpu = (cpu_time(&server) - server_before).as_secs_f64();
    println!(
        "\nwatching a 1280x720 window every 2 s for {wall:.0} s ({polls} polls, {judged} \
         judgments, slowest poll {:.2} ms):",
        busiest.as_secs_f64() * 1e3
    );
    println!(
        "  this process (capture + gate): {:.3}% of one core; the X server: {:.3}% \
         (/proc CPU times, 10 ms resolution)",
        own / wall * 100.0,
        server_cpu / wall * 100.0
    );
}

fn main() {
    load_average::print_load_average();
    let xvfb = Xvfb::start_with(1920, 1080, 24);
    let app = TestWindows::connect(xvfb.display());
    let window = app.create("watched", 100, 100, 1280, 720, 0x3060a0);
    app.fill(window, 0, 0, 1280, 40, 0xe0e0e0);
    app.create("cover", 700, 400, 900, 600, 0xa03030);
    let mut criterion = Criterion::default().configure_from_args();
    bench_captures(&mut criterion, xvfb.display());
    bench_wayland(&mut criterion);
    criterion.final_summary();
    watch_like_a_wait(&xvfb, &app, window);
}
