//! The pixel gate: `cargo bench --bench pixel_gate`.
//!
//! 1. Cost per 1920x1080 frame (criterion), beside `memcpy` of the same frame as the floor:
//!    the tile hashes alone, the gate on an unchanged frame (every poll of a still window),
//!    on a frame with one new line of text, and on a frame where every tile changed.
//!    Then the same, measured side by side in one loop, printed as ratios to `memcpy`.
//! 2. A scripted 10-minute watch at a 2 s poll (300 captures) of a 1920x1080 desktop with
//!    noise (a randomly sampled blinking cursor, a seconds clock, a progress bar creeping
//!    along) and K meaningful changes (new output lines, a dialog opening and closing, a
//!    status label, a button turning green, one of them drawn over two captures, and the
//!    clock stopping with a notice appearing beside it three polls later, in the region its
//!    ticking made busy): judge calls against judging every poll, changes missed, and polls
//!    from settling to judgment.
//!    Printed for two progress bars: one that moves every poll and one that steps every 6
//!    polls.

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/load_average.rs"]
mod load_average;
#[path = "support/xorshift.rs"]
mod xorshift;

use std::hint::black_box;
use std::time::{Duration, Instant};

use actors::sight::content::{Content, Frame};
use actors::sight::gate::pixel::{JudgeReason, PixelGate};
use actors::sight::gate::tiles;
use actors::sight::gate::{Gate, GateDecision, Readiness};
use criterion::Criterion;
use storage::Timestamp;
use xorshift::Xorshift;

use actors::testkit::synthetic;

use synthetic::{Canvas, FOREGROUND};

const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;
const FLOOR: Duration = Duration::from_secs(120);
const POLL_MS: u64 = 2_000;
const POLLS: usize = 300; // 10 minutes

// ---------------------------------------------------------------------------------------
// The desktop of the scripted watch.

#[derive(Clone)]
struct Desktop {
    lines: Vec<String>,
    cursor_on: bool,
    clock_seconds: u32,
    progress_px: u32,
    status: &'static str,
    dialog: Dialog,
    button_green: bool,
    /// The clock ticks until this poll (the ticker of the busy-region case).
    clock_stops_at: usize,
    /// A notice beside the clock, in its busy region.
    notice: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Dialog {
    Closed,
    /// Half drawn: the frame of a dialog whose contents arrive on the next capture.
    Opening,
    Open,
}

const LINE_HEIGHT: u32 = 16;
const TERMINAL_TOP: u32 = 120;

impl Desktop {
    fn new() -> Desktop {
        Desktop {
            lines: (1..=12)
                .map(|n| format!("[{n:02}/40] compiling crate-{n} v0.{n}.0"))
                .collect(),
            cursor_on: true,
            clock_seconds: 9 * 3600 + 41 * 60,
            progress_px: 0,
            status: "Status: building",
            dialog: Dialog::Closed,
            button_green: false,
            clock_stops_at: usize::MAX,
            notice: false,
        }
    }

    fn draw(&self) -> Frame {
        let mut canvas = Canvas::new(WIDTH, HEIGHT);
        // A title bar with a clock, a status label, a terminal, a button, a progress bar.
        canvas.fill(0, 0, WIDTH, 40, [60, 50, 45, 255]);
        canvas.text(16, 12, "build - Terminal");
        let s = self.clock_seconds;
        canvas.text(
            1820,
            12,
            &format!("{:02}:{:02}:{:02}", s / 3600 % 24, s / 60 % 60, s % 60),
        );
        if self.notice {
            canvas.text(1756, 12, "synced");
        }
        canvas.text(16, 64, self.status);
        for (row, line) in self.lines.iter().enumerate() {
            canvas.text(16, TERMINAL_TOP + row as u32 * LINE_HEIGHT, line);
        }
        let prompt_y = TERMINAL_TOP + self.lines.len() as u32 * LINE_HEIGHT;
        canvas.text(16, prompt_y, "$ ");
        if self.cursor_on {
            canvas.fill(32, prompt_y, 8, LINE_HEIGHT, FOREGROUND);
        }
        let button = if self.button_green {
            [60, 170, 60, 255]
        } else {
            [90, 90, 90, 255]
        };
        canvas.fill(1700, 860, 160, 40, button);
        canvas.text(1740, 872, "Deploy");
        canvas.fill(80, 1000, 1600, 14, [70, 70, 70, 255]);
        canvas.fill(
            80,
            1000,
            self.progress_px.min(1600),
            14,
            [200, 140, 40, 255],
        );
        if self.dialog != Dialog::Closed {
            canvas.fill(660, 380, 600, 260, [235, 235, 235, 255]);
            canvas.fill(660, 380, 600, 36, [50, 90, 160, 255]);
        }
        if self.dialog == Dialog::Open {
            canvas.text(700, 460, "Download finished: coursefolio-1.2.3.tar.gz");
            canvas.fill(1080, 580, 140, 36, [50, 90, 160, 255]);
        }
        canvas.frame()
    }
}

/// A meaningful change: applied at a poll, settled (complete and still) at a later or the
/// same poll.
struct Change {
    at_poll: usize,
    what: &'static str,
    apply: fn(&mut Desktop, usize),
    settles_after: usize,
}

fn changes() -> Vec<Change> {
    vec![
        Change {
            at_poll: 20,
            what: "a new output line",
            apply: |d, _| d.lines.push("[13/40] compiling crate-13 v0.13.0".into()),
            settles_after: 0,
        },
        Change {
            at_poll: 65,
            what: "a dialog opens (drawn over two captures)",
            apply: |d, offset| {
                d.dialog = if offset == 0 {
                    Dialog::Opening
                } else {
                    Dialog::Open
                }
            },
            settles_after: 1,
        },
        Change {
            at_poll: 95,
            what: "the dialog closes",
            apply: |d, _| d.dialog = Dialog::Closed,
            settles_after: 0,
        },
        Change {
            at_poll: 150,
            what: "the status label changes",
            apply: |d, _| d.status = "Status: testing",
            settles_after: 0,
        },
        Change {
            at_poll: 210,
            what: "a new output line",
            apply: |d, _| d.lines.push("test result: ok. 212 passed; 0 failed".into()),
            settles_after: 0,
        },
        Change {
            at_poll: 265,
            what: "a button turns green",
            apply: |d, _| d.button_green = true,
            settles_after: 0,
        },
        Change {
            at_poll: 281,
            what: "the clock stops, then a notice appears beside it (its busy region)",
            apply: |d, _| d.notice = true,
            settles_after: 0,
        },
    ]
}

struct Outcome {
    settled_judgments: usize,
    changing_judgments: usize,
    reasons: Vec<(usize, JudgeReason)>,
    /// For each change: polls from settling to its judgment, or None when never judged.
    delays: Vec<(&'static str, Option<usize>)>,
}

/// The scripted watch; with `probes`, a change first seen `Changing` gets the Watcher's
/// settle probe 50 ms later, which sees the same frame (nothing in the script moves between
/// two polls).
fn scripted_watch(progress_step_every: usize, probes: bool) -> Outcome {
    let mut gate = PixelGate::new(FLOOR);
    let mut desktop = Desktop::new();
    let mut noise = Xorshift(0x2545_f491_4f6c_dd1d);
    let script = changes();
    let mut settled_at_polls = Vec::new();
    let mut outcome = Outcome {
        settled_judgments: 0,
        changing_judgments: 0,
        reasons: Vec::new(),
        delays: Vec::new(),
    };
    for poll in 0..POLLS {
        desktop.cursor_on = noise.coin();
        if poll == 280 {
            desktop.clock_stops_at = poll;
        }
        if poll < desktop.clock_stops_at {
            desktop.clock_seconds += 2;
        }
        if poll % progress_step_every == 0 {
            desktop.progress_px += 2 * progress_step_every as u32 + (noise.next() % 3) as u32;
        }
        for change in &script {
            if (change.at_poll..=change.at_poll + change.settles_after).contains(&poll) {
                (change.apply)(&mut desktop, poll - change.at_poll);
            }
        }
        let content = Content::Frame(desktop.draw());
        let now = Timestamp(1_000_000 + poll as u64 * POLL_MS);
        match gate.consider(&content, now) {
            GateDecision::Judge(readiness) => {
                gate.judged(&content, readiness, now);
                if readiness == Readiness::Settled {
                    outcome.settled_judgments += 1;
                    outcome.reasons.push((poll, gate.last_reason().unwrap()));
                    settled_at_polls.push(poll);
                } else {
                    outcome.changing_judgments += 1;
                    let probed_at = Timestamp(now.0 + 50);
                    if probes
                        && gate.settle_probe(&content, probed_at)
                            == GateDecision::Judge(Readiness::Settled)
                    {
                        gate.judged(&content, Readiness::Settled, probed_at);
                        outcome.settled_judgments += 1;
                        outcome.reasons.push((poll, gate.last_reason().unwrap()));
                        settled_at_polls.push(poll);
                    }
                }
            }
            GateDecision::Skip => {}
        }
    }
    for change in &script {
        let settled = change.at_poll + change.settles_after;
        let judged = settled_at_polls.iter().find(|&&poll| poll >= settled);
        let next_change = script
            .iter()
            .map(|c| c.at_poll)
            .find(|&p| p > change.at_poll);
        let delay = judged
            .filter(|&&poll| next_change.is_none_or(|next| poll < next))
            .map(|&poll| poll - settled);
        outcome.delays.push((change.what, delay));
    }
    outcome
}

fn print_scripted_watch() {
    let runs = [
        (1, "moves every poll", false),
        (6, "steps every 6 polls (12 s)", false),
        (1, "moves every poll", true),
        (6, "steps every 6 polls (12 s)", true),
    ];
    for (every, label, probes) in runs {
        let outcome = scripted_watch(every, probes);
        let k = outcome.delays.len();
        let missed = outcome.delays.iter().filter(|(_, d)| d.is_none()).count();
        let worst = outcome
            .delays
            .iter()
            .filter_map(|(_, d)| *d)
            .max()
            .unwrap_or(0);
        let probing = if probes {
            "settle probes on (the default)"
        } else {
            "no settle probe"
        };
        println!("\nscripted 10-minute watch, 2 s poll, progress bar {label}, {probing}:");
        println!(
            "  judge calls (Settled): {} vs {POLLS} judging every poll = {:.1}x fewer; \
             Changing (cheap looks): {}",
            outcome.settled_judgments,
            POLLS as f64 / outcome.settled_judgments as f64,
            outcome.changing_judgments
        );
        println!(
            "  meaningful changes: {k}, missed: {missed}, worst delay from settling to judgment: \
             {worst} polls"
        );
        for (what, delay) in &outcome.delays {
            match delay {
                Some(polls) => println!("    {what}: judged {polls} polls after settling"),
                None => println!("    {what}: MISSED"),
            }
        }
        let mut counts = std::collections::BTreeMap::new();
        for (_, reason) in &outcome.reasons {
            let name = match reason {
                JudgeReason::FirstSight => "first sight",
                JudgeReason::Change { .. } => "meaningful change",
                JudgeReason::BusyRegions => "busy regions (rate-limited)",
                JudgeReason::Floor => "floor",
                JudgeReason::NotAFrame => "not a frame",
            };
            *counts.entry(name).or_insert(0) += 1;
        }
        println!("  judgments by reason: {counts:?}");
        if std::env::var_os("LOOKOUT_BENCH_VERBOSE").is_some() {
            for (poll, reason) in &outcome.reasons {
                println!("    poll {poll}: {reason:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Cost per frame.

struct Frames {
    still: Frame,
    one_new_line: Frame,
    everything_changed: Frame,
    /// Different from `everything_changed` in every tile too.
    everything_changed_again: Frame,
}

/// The same pixels in a buffer of their own, as every capture is.
fn copy_of(frame: &Frame) -> Frame {
    Frame::new(frame.width, frame.height, frame.pixels.to_vec())
}

/// What one case of the gate's cost considers, in turn: a capture that repeats the one before
/// in a buffer of its own (unchanged, one new line), or two frames that differ in every tile,
/// alternating (each capture a window switch).
fn captures_of(name: &str, frames: &Frames) -> [Content; 2] {
    let (first, second) = match name {
        "gate, unchanged frame" => (copy_of(&frames.still), copy_of(&frames.still)),
        "gate, one new line of text" => {
            (copy_of(&frames.one_new_line), copy_of(&frames.one_new_line))
        }
        _ => (
            frames.everything_changed.clone(),
            frames.everything_changed_again.clone(),
        ),
    };
    [Content::Frame(first), Content::Frame(second)]
}

fn frames() -> Frames {
    let desktop = Desktop::new();
    let mut with_line = desktop.clone();
    with_line.lines.push("BUILD SUCCESSFUL in 4m 12s".into());
    let mut other = Canvas::new(WIDTH, HEIGHT);
    for (index, byte) in other.pixels.iter_mut().enumerate() {
        *byte = (index as u32).wrapping_mul(2_654_435_761).rotate_left(7) as u8 | 0x80;
    }
    let mut again = other.clone();
    for byte in again.pixels.iter_mut() {
        *byte ^= 0x3c;
    }
    Frames {
        still: desktop.draw(),
        one_new_line: with_line.draw(),
        everything_changed: other.frame(),
        everything_changed_again: again.frame(),
    }
}

/// A gate whose judge saw `baseline`, ready to consider frames against it.
fn gate_that_saw(baseline: &Frame) -> PixelGate {
    let mut gate = PixelGate::new(FLOOR);
    let content = Content::Frame(baseline.clone());
    gate.consider(&content, Timestamp(0));
    gate.judged(&content, Readiness::Settled, Timestamp(0));
    gate
}

const CASES: [&str; 3] = [
    "gate, unchanged frame",
    "gate, one new line of text",
    "gate, every tile changed",
];

fn bench_cost(criterion: &mut Criterion, frames: &Frames) {
    let mut group = criterion.benchmark_group("gate per 1920x1080 frame");
    let mut copy = vec![0u8; frames.still.pixels.len()];
    group.bench_function("memcpy of the frame (floor)", |b| {
        b.iter(|| copy.copy_from_slice(black_box(&frames.still.pixels)))
    });
    let mut hashes = Vec::new();
    group.bench_function("tile hashes only", |b| {
        b.iter(|| tiles::hash_tiles(black_box(&frames.still), &mut hashes))
    });
    for name in CASES {
        let mut gate = gate_that_saw(&frames.still);
        let captures = captures_of(name, frames);
        let mut now = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                // The judge never looks again, so each capture is weighed against the same
                // baseline; time stays below the floor.
                now = (now + 1) % 100_000;
                black_box(gate.consider(&captures[now as usize % 2], Timestamp(now)))
            })
        });
    }
    group.finish();
}

/// Median of `runs` timings of `work`.
fn median(runs: usize, mut work: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .collect();
    samples.sort();
    samples[runs / 2]
}

fn print_side_by_side(frames: &Frames) {
    const RUNS: usize = 300;
    let mut copy = vec![0u8; frames.still.pixels.len()];
    let memcpy = median(RUNS, || {
        copy.copy_from_slice(black_box(&frames.still.pixels))
    });
    println!("\nside by side, median of {RUNS} runs each (1920x1080 BGRA, 8.3 MB):");
    println!(
        "  memcpy of the frame: {:.3} ms",
        memcpy.as_secs_f64() * 1e3
    );
    for name in CASES {
        let mut gate = gate_that_saw(&frames.still);
        let captures = captures_of(name, frames);
        let mut now = 0;
        let cost = median(RUNS, || {
            now += 1;
            black_box(gate.consider(&captures[now as usize % 2], Timestamp(now)));
        });
        println!(
            "  {name}: {:.3} ms = {:.2}x memcpy{}",
            cost.as_secs_f64() * 1e3,
            cost.as_secs_f64() / memcpy.as_secs_f64(),
            load_average::busy_note()
        );
    }
}

fn main() {
    load_average::print_load_average();
    if std::env::var_os("LOOKOUT_BENCH_SCRIPT_ONLY").is_some() {
        print_scripted_watch();
        return;
    }
    let frames = frames();
    let mut criterion = Criterion::default().configure_from_args();
    bench_cost(&mut criterion, &frames);
    criterion.final_summary();
    print_side_by_side(&frames);
    print_scripted_watch();
}
