//! The screen recorder on Xvfb: `cargo bench --bench recorder`.
//!
//! 1. **Word recall of the OCR path** on real windows: a dense terminal (an xterm, light on
//!    dark and dark on light), a settings-like text page, and an xmessage dialog with button
//!    labels, each read the way the recorder reads a window it first sees (the whole window,
//!    `encode_grey_region`, tesseract `--psm 6`): the share of the words shown that come back,
//!    and how long tesseract took.
//! 2. **CPU**: `lookout serve` recording in `always` mode at the default 2 s interval, its
//!    /proc CPU (with the tesseract runs it waited for) as a share of one core: on a still
//!    xterm for `LOOKOUT_BENCH_STILL_SECONDS` (default 60), then while a scripted session in
//!    it runs a command with a few lines of output every 10 s for
//!    `LOOKOUT_BENCH_ACTIVE_SECONDS` (default 300; the rate of change is the hour's).

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/load_average.rs"]
mod load_average;

use std::collections::HashSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use actors::process::ProcessSpawner;
use actors::sight::capture::x11::{CaptureOptions, Watched, X11Capture};
use actors::sight::content::Content;
use actors::sight::gate::tiles::TileRect;
use actors::sight::target::WindowSelector;
use actors::vision::image::encode_grey_region;
use actors::vision::ocr::read_text;

use actors::testkit::test_display;

use test_display::{TestWindows, Xvfb};

const BINARY: &str = env!("CARGO_BIN_EXE_lookout");

/// A build log, as a terminal shows it.
const TERMINAL: &str = "\
   Compiling serde_json v1.0.132
   Compiling tokio v1.54.0
   Compiling recall v0.1.0 (/home/dev/lookout/recall)
   Compiling actors v0.1.0 (/home/dev/lookout/actors)
warning: unused variable: `frame` in actors/src/recall/recorder/actor.rs
    Finished release profile [optimized] target(s) in 4m 12s
     Running unittests src/lib.rs (target/release/deps/lookout-3f2a9c1e)
running 24 tests
test config::tests::unknown_keys_are_an_error ... ok
test catalogue::tests::the_catalogue_fits_in_three_thousand_tokens ... ok
test wire::recall::tests::screen_results_point_at_their_keyframes ... ok
test result: ok. 24 passed; 0 failed; 0 ignored; finished in 0.42s
deploy: pushing image registry.example.com/coursefolio:v1.2.3
deploy: waiting for the health check on staging
deploy: staging answered 200 OK after 14 seconds
Release v1.2.3 of coursefolio is live at https://coursefolio.example.com";

/// A settings page's text.
const SETTINGS: &str = "\
SSH and GPG keys
Authentication keys
There are no SSH keys associated with your account.
Check out our guide to generating SSH keys or troubleshoot common SSH problems.
New SSH key
Title
Key type: Authentication Key
Add SSH key
Vigilant mode
Flag unsigned commits as unverified
This will include any commit attributed to your account but not signed.";

const DIALOG_TEXT: &str = "Remove 3 old releases of coursefolio?";
const DIALOG_BUTTONS: &str = "Delete forever,Keep them";

/// An X client, killed when dropped.
struct Client(Child);

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(display: &str, program: &str, args: &[&str]) -> Client {
    Client(
        Command::new(program)
            .env("DISPLAY", display)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start {program} ({e}): apt-get install xterm x11-utils")
            }),
    )
}

fn xterm(
    display: &str,
    title: &str,
    geometry: &str,
    colours: (&str, &str),
    script: &str,
) -> Client {
    start(
        display,
        "xterm",
        &[
            "-T",
            title,
            "-geometry",
            geometry,
            "-fa",
            "DejaVu Sans Mono",
            "-fs",
            "11",
            "-bg",
            colours.0,
            "-fg",
            colours.1,
            "-e",
            "sh",
            "-c",
            script,
        ],
    )
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|word| {
            word.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|word| !word.is_empty())
        .collect()
}

/// Reads window `id` as the recorder reads a window at first sight; (text, seconds).
fn read_window(runtime: &tokio::runtime::Runtime, display: &str, id: u32) -> (String, f64) {
    let watched = Watched::Window(WindowSelector::Id(id));
    let mut capture =
        X11Capture::connect(Some(display), watched, CaptureOptions::default()).unwrap();
    let Content::Frame(frame) = capture.capture().unwrap() else {
        panic!("window {id:x} has no frame");
    };
    let region = TileRect {
        x: 0,
        y: 0,
        width: frame.width,
        height: frame.height,
    };
    let image = encode_grey_region(&frame, region).unwrap();
    let args: Vec<String> = ["stdin", "stdout", "--psm", "6"].map(String::from).to_vec();
    let started = Instant::now();
    let text = runtime
        .block_on(read_text(
            &ProcessSpawner,
            "tesseract",
            image.bytes,
            &args,
            Duration::from_secs(60),
        ))
        .unwrap();
    (text, started.elapsed().as_secs_f64())
}

fn word_recall(display: &str, windows: &TestWindows, runtime: &tokio::runtime::Runtime) {
    let dir = tempfile::tempdir().unwrap();
    let show = |name: &str, text: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, text).unwrap();
        format!("cat {}; sleep 600", file.display())
    };
    let cases: Vec<(&str, String, Client)> = vec![
        (
            "terminal, light on dark",
            TERMINAL.to_owned(),
            xterm(
                display,
                "bench terminal dark",
                "100x20+0+0",
                ("black", "grey90"),
                &show("t1", TERMINAL),
            ),
        ),
        (
            "terminal, dark on light",
            TERMINAL.to_owned(),
            xterm(
                display,
                "bench terminal light",
                "100x20+960+0",
                ("white", "black"),
                &show("t2", TERMINAL),
            ),
        ),
        (
            "settings page",
            SETTINGS.to_owned(),
            xterm(
                display,
                "bench settings",
                "90x14+0+540",
                ("white", "grey20"),
                &show("s", SETTINGS),
            ),
        ),
        (
            "xmessage dialog",
            format!("{DIALOG_TEXT} {}", DIALOG_BUTTONS.replace(',', " ")),
            start(
                display,
                "xmessage",
                &[
                    "-geometry",
                    "+960+540",
                    "-title",
                    "bench dialog",
                    "-buttons",
                    DIALOG_BUTTONS,
                    DIALOG_TEXT,
                ],
            ),
        ),
    ];
    // Side by side, none covering another: the recorder reads the focused window, which is
    // drawn; a covered window redirected for the first time has not repainted its pixmap.
    // Side by side, none covering another: the recorder reads the focused window, which is
    // drawn; a covered window redirected for the first time has not repainted its pixmap.
    println!("word recall of the OCR path (whole window, tesseract --psm 6):");
    let (mut shown_all, mut found_all) = (0usize, 0usize);
    for (name, text, _client) in &cases {
        let title = match *name {
            "terminal, light on dark" => "bench terminal dark",
            "terminal, dark on light" => "bench terminal light",
            "settings page" => "bench settings",
            _ => "bench dialog",
        };
        let id = windows.find(title, Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(1500)); // drawn
        let (read, seconds) = read_window(runtime, display, id);
        let read: HashSet<String> = words(&read).into_iter().collect();
        let shown = words(text);
        let found = shown.iter().filter(|word| read.contains(*word)).count();
        shown_all += shown.len();
        found_all += found;
        println!(
            "  {name:<26} {found:>3}/{:<3} words = {:.3}  (tesseract {seconds:.2} s)",
            shown.len(),
            found as f64 / shown.len() as f64
        );
    }
    println!(
        "  all                        {found_all:>3}/{shown_all:<3} words = {:.3}",
        found_all as f64 / shown_all as f64
    );
}

/// User plus system CPU of a process and of the children it waited for, from /proc.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = fields[11..15]
        .iter()
        .map(|f| f.parse::<u64>().unwrap())
        .sum();
    ticks as f64 / 100.0 // USER_HZ
}

fn status(socket: &Path) -> serde_json::Value {
    let output = Command::new(BINARY)
        .args(["--json", "--socket"])
        .arg(socket)
        .arg("status")
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_default()
}

fn seconds_from(variable: &str, default: u64) -> u64 {
    std::env::var(variable)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn recorder_cpu(display: &str, windows: &TestWindows) {
    let still_s = seconds_from("LOOKOUT_BENCH_STILL_SECONDS", 60);
    let active_s = seconds_from("LOOKOUT_BENCH_ACTIVE_SECONDS", 300);
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    // A shell session: still until `go` exists, then a command and its output every 10 s.
    let script = format!(
        "printf 'user@host:~/coursefolio$ \\n'; while [ ! -e {go} ]; do sleep 0.2; done; \
         n=0; while true; do n=$((n+1)); \
         printf 'user@host:~/coursefolio$ make check-%s\\n' $n; \
         printf 'checking module %s of 40 ... ok\\nwrote report-%s.txt (%s lines)\\n' $n $n $((n*7)); \
         sleep 10; done",
        go = go.display()
    );
    let _shell = xterm(
        display,
        "bench session",
        "110x30+0+0",
        ("black", "grey90"),
        &script,
    );
    windows.focus(windows.find("bench session", Duration::from_secs(20)));
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "data_dir = \"{data}\"\nsocket_path = \"{socket}\"\n[x11]\ndisplay = \"{display}\"\n\
             [recall]\nmode = \"always\"\n",
            data = dir.path().join("data").display(),
            socket = dir.path().join("s.sock").display()
        ),
    )
    .unwrap();
    let mut daemon = Command::new(BINARY)
        .args(["serve", "--config"])
        .arg(&config)
        .env("LOOKOUT_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let socket = dir.path().join("s.sock");
    // Let it start and read the window once (first sight), then measure the still screen.
    std::thread::sleep(Duration::from_secs(10));
    let pid = daemon.id();
    let before = (cpu_seconds(pid), status(&socket)["recall"].clone());
    std::thread::sleep(Duration::from_secs(still_s));
    let after = (cpu_seconds(pid), status(&socket)["recall"].clone());
    let runs = |s: &serde_json::Value| s["ocr_runs"].as_u64().unwrap_or(0);
    println!(
        "recorder on a still 110x30 xterm, every 2 s for {still_s} s: {:.3}% of one core \
         (daemon and its children, /proc, 10 ms resolution); OCR runs {}; state {}",
        (after.0 - before.0) / still_s as f64 * 100.0,
        runs(&after.1) - runs(&before.1),
        after.1["state"]
    );
    std::fs::write(&go, "").unwrap();
    let started = Instant::now();
    let before = (cpu_seconds(pid), status(&socket)["recall"].clone());
    std::thread::sleep(Duration::from_secs(active_s));
    let wall = started.elapsed().as_secs_f64();
    let after = (cpu_seconds(pid), status(&socket)["recall"].clone());
    let ocr_seconds = after.1["ocr_seconds"].as_f64().unwrap_or(0.0)
        - before.1["ocr_seconds"].as_f64().unwrap_or(0.0);
    println!(
        "recorder on a scripted session (a command and 2 lines every 10 s) for {wall:.0} s: \
         {:.3}% of one core in all; {} OCR runs, {ocr_seconds:.1} s of tesseract wall time \
         ({:.3}% of the time); {} segments, {} keyframes",
        (after.0 - before.0) / wall * 100.0,
        runs(&after.1) - runs(&before.1),
        ocr_seconds / wall * 100.0,
        after.1["segments"],
        after.1["keyframes"]
    );
    // A clean stop checkpoints the write-ahead log into the index file: its size is then
    // what the recording keeps.
    let _ = Command::new("kill").arg(pid.to_string()).status();
    let _ = daemon.wait();
    let kept =
        |name: &str| std::fs::metadata(dir.path().join("data").join(name)).map_or(0, |m| m.len());
    // An index with nothing in it is not nothing: its schema's pages.
    let empty = tempfile::tempdir().unwrap();
    drop(recall::RecallStore::open(&empty.path().join("recall.sqlite")).unwrap());
    let empty_bytes = std::fs::metadata(empty.path().join("recall.sqlite")).map_or(0, |m| m.len());
    let index = (kept("recall.sqlite") + kept("recall.sqlite-wal")).saturating_sub(empty_bytes);
    let recorded_s = (still_s + 10) as f64 + wall;
    println!(
        "  recall.sqlite after a clean stop: {:.0} KB beyond an empty index's {:.0} KB for \
         {recorded_s:.0} s recorded, {:.2} MB per 8-hour day at this rate; keyframes {} bytes \
         ({:.1} MB per day)",
        index as f64 / 1e3,
        empty_bytes as f64 / 1e3,
        index as f64 / recorded_s * 8.0 * 3600.0 / 1e6,
        after.1["keyframe_bytes"],
        after.1["keyframe_bytes"].as_f64().unwrap_or(0.0) / wall * 8.0 * 3600.0 / 1e6
    );
}

fn main() {
    load_average::print_load_average();
    let xvfb = Xvfb::start_with(1920, 1080, 24);
    let display = xvfb.display().to_owned();
    let windows = TestWindows::connect(&display);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    word_recall(&display, &windows, &runtime);
    recorder_cpu(&display, &windows);
}
