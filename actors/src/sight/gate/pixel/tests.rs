//! The pixel gate on synthetic frames: a terminal with text, a cursor, a clock, a progress
//! bar and dialogs, captured every 2 s.

use super::synthetic::{Canvas, FOREGROUND};
use super::*;
use GateDecision::{Judge, Skip};
use Readiness::{Changing, Settled};

const POLL_MS: u64 = 2_000;
const FLOOR: Duration = Duration::from_secs(120);

const BAR: [u8; 4] = [60, 180, 60, 255];
const DIALOG: [u8; 4] = [240, 240, 240, 255];

/// A terminal of 1280x720: lines of output, a prompt with a cursor, a clock in the corner
/// and a progress bar at the bottom, each switchable.
#[derive(Clone)]
struct Terminal {
    lines: Vec<String>,
    cursor_on: bool,
    clock_seconds: Option<u32>,
    progress_px: Option<u32>,
    dialog: bool,
    /// Text right under the clock, in its neighbourhood of tiles.
    alert: bool,
}

const LINE_HEIGHT: u32 = 16;

impl Terminal {
    fn new() -> Terminal {
        Terminal {
            lines: (1..=10)
                .map(|n| format!("building module {n} of 40 ... ok"))
                .collect(),
            cursor_on: true,
            clock_seconds: None,
            progress_px: None,
            dialog: false,
            alert: false,
        }
    }

    fn draw(&self) -> Frame {
        let mut canvas = Canvas::new(1280, 720);
        for (row, line) in self.lines.iter().enumerate() {
            canvas.text(8, 40 + row as u32 * LINE_HEIGHT, line);
        }
        let prompt_y = 40 + self.lines.len() as u32 * LINE_HEIGHT;
        canvas.text(8, prompt_y, "$ ");
        if self.cursor_on {
            canvas.fill(8 + 2 * 8, prompt_y, 8, LINE_HEIGHT, FOREGROUND);
        }
        if let Some(seconds) = self.clock_seconds {
            let clock = format!(
                "{:02}:{:02}:{:02}",
                12 + seconds / 3600,
                seconds / 60 % 60,
                seconds % 60
            );
            canvas.text(1180, 8, &clock);
        }
        if let Some(progress) = self.progress_px {
            canvas.fill(40, 680, 1200, 12, [80, 80, 80, 255]);
            canvas.fill(40, 680, progress, 12, BAR);
        }
        if self.alert {
            canvas.text(1150, 26, "ALERT: done");
        }
        if self.dialog {
            canvas.fill(440, 260, 400, 200, DIALOG);
            canvas.text(470, 300, "Error: disk full");
        }
        canvas.frame()
    }
}

/// Feeds captures to a gate every 2 s, telling it whenever it asked for a judgment, as a
/// wait does.
struct Watch {
    gate: PixelGate,
    now_ms: u64,
    settled_judgments: usize,
}

impl Watch {
    fn new() -> Watch {
        Watch::with_floor(FLOOR)
    }

    fn with_floor(floor: Duration) -> Watch {
        Watch {
            gate: PixelGate::new(floor),
            now_ms: 1_000_000,
            settled_judgments: 0,
        }
    }

    fn capture(&mut self, frame: &Frame) -> GateDecision {
        self.show(&Content::Frame(frame.clone()))
    }

    fn show(&mut self, content: &Content) -> GateDecision {
        let now = Timestamp(self.now_ms);
        let decision = self.gate.consider(content, now);
        self.tell_judge(content, decision, now);
        self.now_ms += POLL_MS;
        decision
    }

    /// What a wait does with a decision: the judge looks when asked to.
    fn tell_judge(&mut self, content: &Content, decision: GateDecision, now: Timestamp) {
        if let Judge(readiness) = decision {
            self.gate.judged(content, readiness, now);
            if readiness == Settled {
                self.settled_judgments += 1;
            }
        }
    }

    /// Captures the same frame `times` times and returns the decisions.
    fn hold(&mut self, frame: &Frame, times: usize) -> Vec<GateDecision> {
        (0..times).map(|_| self.capture(frame)).collect()
    }
}

#[test]
fn a_static_screen_is_judged_once_and_then_only_at_the_floor() {
    let mut watch = Watch::new();
    let frame = Terminal::new().draw();
    assert_eq!(watch.capture(&frame), Judge(Settled));
    assert_eq!(watch.gate.last_reason(), Some(JudgeReason::FirstSight));
    // 59 more captures: 118 s, just short of the floor.
    assert!(watch.hold(&frame, 59).iter().all(|d| *d == Skip));
    assert_eq!(watch.settled_judgments, 1);
    assert_eq!(
        watch.capture(&frame),
        Judge(Settled),
        "120 s after the last judgment"
    );
    assert_eq!(watch.gate.last_reason(), Some(JudgeReason::Floor));
    assert!(watch.hold(&frame, 59).iter().all(|d| *d == Skip));
}

#[test]
fn one_new_line_of_text_is_judged_as_soon_as_it_holds() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    watch.hold(&terminal.draw(), 5);
    terminal.lines.push("BUILD SUCCESSFUL".into());
    let with_line = terminal.draw();
    assert_eq!(watch.capture(&with_line), Judge(Changing));
    assert_eq!(watch.capture(&with_line), Judge(Settled));
    assert!(matches!(
        watch.gate.last_reason(),
        Some(JudgeReason::Change { pixels, .. }) if pixels >= MIN_CHANGED_PIXELS
    ));
    assert_eq!(watch.hold(&with_line, 10), [Skip; 10]);
}

impl Watch {
    /// A settle probe of `frame` a tenth of a second after the last capture, told to the
    /// gate as the Watcher does.
    fn probe(&mut self, frame: &Frame) -> GateDecision {
        let now = Timestamp(self.now_ms - POLL_MS + 100);
        let content = Content::Frame(frame.clone());
        let decision = self.gate.settle_probe(&content, now);
        self.tell_judge(&content, decision, now);
        decision
    }
}

#[test]
fn a_settle_probe_judges_a_change_that_holds_without_waiting_for_the_next_poll() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    watch.hold(&terminal.draw(), 5);
    terminal.lines.push("BUILD SUCCESSFUL".into());
    let with_line = terminal.draw();
    assert_eq!(watch.capture(&with_line), Judge(Changing));
    assert_eq!(
        watch.probe(&with_line),
        Judge(Settled),
        "held still on the probe"
    );
    assert!(matches!(
        watch.gate.last_reason(),
        Some(JudgeReason::Change { .. })
    ));
    // The probe's frame is what the judge saw: the next polls have nothing new.
    assert_eq!(watch.hold(&with_line, 5), [Skip; 5]);
    assert_eq!(
        watch.settled_judgments, 2,
        "first sight and the line, once each"
    );
}

#[test]
fn a_settle_probe_waits_while_the_change_moves_and_leaves_still_frames_alone() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    let still = terminal.draw();
    watch.hold(&still, 5);
    // No change seen: a probe has nothing to confirm.
    assert_eq!(watch.probe(&still), Skip);
    terminal.dialog = true;
    terminal.progress_px = Some(100);
    let half_drawn = terminal.draw();
    assert_eq!(watch.capture(&half_drawn), Judge(Changing));
    terminal.progress_px = Some(400);
    let drawn = terminal.draw();
    assert_eq!(watch.probe(&drawn), Skip, "still moving");
    assert_eq!(
        watch.probe(&drawn),
        Judge(Settled),
        "the same as the probe before"
    );
    assert_eq!(watch.probe(&drawn), Skip, "judged: nothing moving any more");
    assert_eq!(watch.hold(&drawn, 3), [Skip; 3]);
    assert_eq!(watch.settled_judgments, 2);
}

#[test]
fn a_settle_probe_leaves_tickers_and_blinks_to_the_polls() {
    let mut watch = Watch::with_floor(Duration::from_secs(3600));
    let mut terminal = Terminal::new();
    terminal.clock_seconds = Some(0);
    watch.hold(&terminal.draw(), 5);
    // The clock's first tick in a quiet screen looks like any change: the probe confirms it.
    terminal.clock_seconds = Some(2);
    let first_tick = terminal.draw();
    assert_eq!(watch.capture(&first_tick), Judge(Changing));
    assert_eq!(watch.probe(&first_tick), Judge(Settled));
    // The next tick comes to a tile that changed at the capture before: a probe, which would
    // see it hold for a moment, leaves it to the polls (where it is never still).
    terminal.clock_seconds = Some(4);
    let second_tick = terminal.draw();
    assert_eq!(watch.capture(&second_tick), Judge(Changing));
    assert_eq!(watch.probe(&second_tick), Skip);
    // A cursor going back to a state it had: a blink not yet known as one, left alone too.
    let mut cursor = Terminal::new();
    let mut watch = Watch::with_floor(Duration::from_secs(3600));
    let on = cursor.draw();
    cursor.cursor_on = false;
    let off = cursor.draw();
    watch.hold(&on, 3);
    watch.hold(&off, 3);
    assert_eq!(watch.capture(&on), Judge(Changing));
    assert_eq!(watch.probe(&on), Skip, "the cursor came back on");
}

#[test]
fn a_one_percent_progress_bar_step_is_a_change() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    terminal.progress_px = Some(600); // 50% of 1200 px
    watch.hold(&terminal.draw(), 5);
    terminal.progress_px = Some(612); // 51%
    let stepped = terminal.draw();
    assert_eq!(
        watch.hold(&stepped, 3),
        [Judge(Changing), Judge(Settled), Skip]
    );
}

#[test]
fn dithering_noise_is_not_a_change() {
    let mut watch = Watch::new();
    let frame = Terminal::new().draw();
    watch.hold(&frame, 3);
    let mut noisy = frame.pixels.to_vec();
    for (index, byte) in noisy.iter_mut().enumerate().filter(|(i, _)| i % 4 != 3) {
        let wobble = (index as u32).wrapping_mul(2_654_435_761) >> 28; // 0..16
        *byte = byte.saturating_add(wobble as u8);
    }
    let noisy = Frame::new(frame.width, frame.height, noisy);
    assert_eq!(watch.hold(&noisy, 5), [Skip; 5]);
}

#[test]
fn a_blinking_cursor_stops_costing_judgments_after_a_few_blinks() {
    // A floor past the end of the run, so every judgment counted here is the cursor's.
    let mut watch = Watch::with_floor(Duration::from_secs(3600));
    let mut terminal = Terminal::new();
    let on = terminal.draw();
    terminal.cursor_on = false;
    let off = terminal.draw();
    watch.capture(&on);
    // A cursor sampled every 2 s looks like a random sequence of on and off.
    let pattern = [
        false, true, false, false, true, true, false, true, false, false,
    ];
    let mut decisions = Vec::new();
    for round in 0..20 {
        for (step, &shown) in pattern.iter().enumerate() {
            let lit = shown ^ (round % 3 == 1 && step % 4 == 0);
            decisions.push(watch.capture(if lit { &on } else { &off }));
        }
    }
    let warm_up = 12;
    assert!(
        decisions[warm_up..].iter().all(|d| *d == Skip),
        "{:?}",
        &decisions[warm_up..]
    );
    // The first sight, and at most one more while the gate learns the blink.
    assert!(watch.settled_judgments <= 2, "{}", watch.settled_judgments);
}

#[test]
fn a_new_line_beside_a_blinking_cursor_is_judged_within_two_captures() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    for step in 0..20 {
        terminal.cursor_on = step % 2 == 0;
        watch.capture(&terminal.draw());
    }
    terminal.lines.push("Download complete".into());
    let mut decisions = Vec::new();
    for step in 0..4 {
        terminal.cursor_on = step % 2 == 0;
        decisions.push(watch.capture(&terminal.draw()));
    }
    assert_eq!(decisions[0], Judge(Changing));
    assert!(decisions[1..3].contains(&Judge(Settled)), "{decisions:?}");
    assert_eq!(decisions[3], Skip);
}

#[test]
fn a_ticking_clock_is_rate_limited_not_dropped() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    let mut judged_at_seconds = Vec::new();
    for capture in 0..300u32 {
        terminal.clock_seconds = Some(capture * 2);
        let decision = watch.capture(&terminal.draw());
        if decision == Judge(Settled) && capture > 0 {
            assert_eq!(watch.gate.last_reason(), Some(JudgeReason::BusyRegions));
            judged_at_seconds.push(capture * 2);
        }
    }
    // 30 s, then intervals doubling to the 120 s floor: 30, 90, 210, 330, 450, 570.
    assert_eq!(judged_at_seconds, [30, 90, 210, 330, 450, 570]);
}

#[test]
fn a_steadily_moving_progress_bar_is_rate_limited_and_its_end_is_judged_once_it_calms() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    terminal.progress_px = Some(0);
    watch.capture(&terminal.draw());
    let mut judgments = 0;
    for capture in 1..=30u32 {
        terminal.progress_px = Some(capture * 2); // 2 px per poll: 0.2% of the bar
        if let Judge(Settled) = watch.capture(&terminal.draw()) {
            judgments += 1;
        }
    }
    assert!(
        judgments <= 2,
        "{judgments} judgments in 60 s of a moving bar"
    );
    // The bar stops: once its region has been still for twice its usual interval, the end
    // is judged.
    let stopped = terminal.draw();
    let decisions = watch.hold(&stopped, 20);
    let judged = decisions.iter().position(|d| *d == Judge(Settled));
    assert!(judged.is_some_and(|at| at <= 3), "{decisions:?}");
    assert!(decisions[judged.unwrap() + 1..].iter().all(|d| *d == Skip));
}

#[test]
fn a_dialog_appearing_disappearing_and_appearing_again_is_judged_each_time() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    let plain = terminal.draw();
    terminal.dialog = true;
    let dialog = terminal.draw();
    watch.hold(&plain, 3);
    for (frame, what) in [
        (&dialog, "appears"),
        (&plain, "closes"),
        (&dialog, "appears again"),
    ] {
        assert_eq!(
            watch.hold(frame, 3),
            [Judge(Changing), Judge(Settled), Skip],
            "the dialog {what}"
        );
    }
}

#[test]
fn a_window_switch_is_a_change_and_a_new_size_is_judged_at_once() {
    let mut watch = Watch::new();
    let terminal = Terminal::new().draw();
    watch.hold(&terminal, 3);
    let mut browser = Canvas::new(1280, 720);
    browser.fill(0, 0, 1280, 80, [200, 120, 40, 255]);
    browser.text(20, 30, "Downloads - Mozilla Firefox");
    let browser = browser.frame();
    assert_eq!(
        watch.hold(&browser, 3),
        [Judge(Changing), Judge(Settled), Skip]
    );
    let smaller = Canvas::new(800, 600).frame();
    assert_eq!(watch.capture(&smaller), Judge(Settled));
    assert_eq!(watch.gate.last_reason(), Some(JudgeReason::FirstSight));
    assert_eq!(watch.hold(&smaller, 3), [Skip; 3]);
}

#[test]
fn a_closed_window_is_news_and_its_return_is_judged_at_once() {
    let mut watch = Watch::new();
    let frame = Terminal::new().draw();
    watch.hold(&frame, 2);
    let closed = Content::Absent {
        description: "window closed".into(),
    };
    let decisions: Vec<GateDecision> = (0..3).map(|_| watch.show(&closed)).collect();
    assert_eq!(decisions, [Judge(Changing), Judge(Settled), Skip]);
    assert_eq!(watch.capture(&frame), Judge(Settled));
    assert_eq!(watch.gate.last_reason(), Some(JudgeReason::FirstSight));
}

#[test]
fn slow_drift_adds_up_against_what_the_judge_saw() {
    let mut watch = Watch::new();
    let mut canvas = Canvas::new(320, 200);
    watch.hold(&canvas.frame(), 2);
    // A panel fading in by 5 levels every 20 s: each step is far below the pixel delta, but
    // compared with the judged frame the fade exceeds it at the fifth step.
    let mut decisions = Vec::new();
    for step in 1..=5u8 {
        let level = 30 + step * 5;
        canvas.fill(100, 60, 64, 64, [level, level, level, 255]);
        decisions.extend(watch.hold(&canvas.frame(), 10));
    }
    let first_judged = decisions.iter().position(|d| *d != Skip);
    assert_eq!(first_judged, Some(4 * 10), "{decisions:?}");
    // Five steps 20 s apart make a slow beat: judged at once as a busy region past its rate
    // limit, or as a change once it holds.
    assert!(decisions[40..42].contains(&Judge(Settled)), "{decisions:?}");
}

#[test]
fn reset_makes_the_next_capture_a_first_sight() {
    let mut watch = Watch::new();
    let frame = Terminal::new().draw();
    watch.hold(&frame, 3);
    watch.gate.reset();
    assert_eq!(watch.capture(&frame), Judge(Settled));
    assert_eq!(watch.gate.last_reason(), Some(JudgeReason::FirstSight));
}

#[test]
fn an_unjudged_change_is_offered_again() {
    // A wait whose judge failed does not call `judged`: the gate keeps asking.
    let mut gate = PixelGate::new(FLOOR);
    let mut terminal = Terminal::new();
    let first = Content::Frame(terminal.draw());
    gate.judged(&first, Settled, Timestamp(0));
    terminal.lines.push("done".into());
    let changed = Content::Frame(terminal.draw());
    assert_eq!(gate.consider(&changed, Timestamp(2_000)), Judge(Changing));
    assert_eq!(gate.consider(&changed, Timestamp(4_000)), Judge(Settled));
    assert_eq!(gate.consider(&changed, Timestamp(6_000)), Judge(Settled));
}

/// A clock that ticked for a minute stops; then text appears beside it, in its busy region:
/// the change is judged within two captures of settling (it settles on the capture after it
/// appears), whatever pace the clock kept. A ticking clock kept the region busy for a long
/// while after it stopped, hiding such a change for up to 14 s at a 2 s poll.
#[test]
fn a_change_where_a_ticker_stopped_is_judged_within_two_captures_of_settling() {
    for ticks_every in [1u32, 2, 3] {
        for pause in [0usize, 1, 2, 5] {
            let mut watch = Watch::new();
            let mut terminal = Terminal::new();
            for capture in 0..30u32 {
                terminal.clock_seconds = Some(capture / ticks_every * 2 * ticks_every);
                watch.capture(&terminal.draw());
            }
            watch.hold(&terminal.draw(), pause);
            terminal.alert = true;
            let decisions = watch.hold(&terminal.draw(), 6);
            let judged = decisions.iter().position(|d| *d == Judge(Settled));
            // Appears on capture 0, holds still from capture 1: judged by capture 3.
            assert!(
                judged.is_some_and(|at| at <= 3),
                "clock every {ticks_every} polls, alert {pause} polls after it stopped: {decisions:?}"
            );
        }
    }
}

#[test]
fn the_changed_region_bounds_the_new_text() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    let first = terminal.draw();
    watch.capture(&first);
    assert_eq!(
        watch.gate.changed_region(),
        Some(TileRect {
            x: 0,
            y: 0,
            width: 1280,
            height: 720
        }),
        "at first sight the whole frame is new"
    );
    watch.hold(&first, 3);
    assert_eq!(watch.gate.changed_region(), None, "nothing changed");
    terminal.lines.push("BUILD SUCCESSFUL".into());
    let with_line = terminal.draw();
    watch.capture(&with_line);
    let region = watch.gate.changed_region().expect("the new line changed");
    // The new line is drawn at y = 200..216, the prompt and cursor move down a line.
    assert!(
        region.y <= 200 && region.y + region.height >= 216,
        "{region:?}"
    );
    assert!(
        region.height <= 3 * 32,
        "only the lines around the change: {region:?}"
    );
    assert!(region.width < 1280, "not the whole width: {region:?}");
}

/// Whenever the gate says the frame it saw last would be skipped again, showing it again is
/// indeed skipped; and on a still frame it says so between judgments (so a poll of a
/// window told of no change can go without a read).
#[test]
fn skips_unchanged_promises_only_what_the_same_frame_again_would_get() {
    let mut watch = Watch::new();
    let mut terminal = Terminal::new();
    terminal.clock_seconds = Some(0);
    let mut promised = 0;
    for step in 0..200u32 {
        // Still stretches, a ticking clock, a dialog that comes and goes, a blinking cursor.
        if step % 40 >= 20 && step % 40 < 30 {
            terminal.clock_seconds = Some(step);
        }
        terminal.dialog = step % 50 >= 10 && step % 50 < 14;
        terminal.cursor_on = step % 60 < 40 || step % 2 == 0;
        let frame = terminal.draw();
        watch.capture(&frame);
        if watch.gate.skips_unchanged(Timestamp(watch.now_ms)) {
            promised += 1;
            assert_eq!(watch.capture(&frame), Skip, "step {step}");
        }
    }
    assert!(promised > 50, "{promised} promises on mostly still frames");
    // Not when the floor is due.
    let frame = terminal.draw();
    let mut still = Watch::new();
    still.capture(&frame);
    assert!(still.gate.skips_unchanged(Timestamp(still.now_ms)));
    let due = Timestamp(still.now_ms - POLL_MS + FLOOR.as_millis() as u64);
    assert!(!still.gate.skips_unchanged(due));
}

/// A timeline moved on by polls that read nothing ([`Timeline::again`]) tells blinks,
/// busy regions and news as one moved on by reading the same frame at each of them: the
/// decisions at the reads that found a change are the same.
#[test]
fn polls_that_read_nothing_keep_the_timeline_on_the_polls_rhythm() {
    let mut terminal = Terminal::new();
    let mut frames = Vec::new();
    for step in 0..120u32 {
        // A dialog that opens and closes (three times in a row would be a blink within 16
        // captures, not when the polls between are counted), and a clock that ticks a while.
        terminal.dialog = matches!(step % 24, 6..=7);
        terminal.clock_seconds = (step % 30 < 12).then_some(step);
        frames.push(terminal.draw());
    }
    let (mut read_all, mut told) = (PixelGate::new(FLOOR), PixelGate::new(FLOOR));
    let (mut all_timeline, mut told_timeline): (Option<Arc<Timeline>>, Option<Arc<Timeline>>) =
        (None, None);
    let mut compared = 0;
    for (step, frame) in frames.iter().enumerate() {
        let now = Timestamp(1_000_000 + step as u64 * POLL_MS);
        let timeline = Timeline::after(all_timeline.take(), frame, now);
        let expected =
            read_all.consider_shared(&Content::Frame(frame.clone()), Some(&timeline), now);
        all_timeline = Some(timeline);
        if let Judge(readiness) = expected {
            read_all.judged(&Content::Frame(frame.clone()), readiness, now);
        }
        let unchanged = step > 0 && frames[step - 1] == *frame;
        if unchanged && told.skips_unchanged(now) {
            told_timeline = told_timeline.map(Timeline::again);
            told.seen_unchanged(told_timeline.as_ref());
            assert_eq!(expected, Skip, "step {step}");
            continue;
        }
        let timeline = Timeline::after(told_timeline.take(), frame, now);
        let decision = told.consider_shared(&Content::Frame(frame.clone()), Some(&timeline), now);
        told_timeline = Some(timeline);
        assert_eq!(decision, expected, "step {step}");
        if let Judge(readiness) = decision {
            told.judged(&Content::Frame(frame.clone()), readiness, now);
        }
        compared += 1;
    }
    assert!(
        compared < 100,
        "{compared} reads of 120: some polls read nothing"
    );
}
