//! Window waits judged by a vision model, inside the whole tree: a real Xvfb, the production
//! X11 source and pixel gate, the Vision actor, and a loopback model server of each wire
//! format (OpenAI chat completions, Anthropic Messages) that decodes the frame it receives
//! and answers from its pixels. On a ManualClock: each poll, and the judgment it sets off,
//! has finished when `settle` returns, so the tests look at recorded outcomes only.
//!
//! What a wait does with the model's answers: resolves on "met" with the model's
//! observation, waits out a 429's `Retry-After`, ends in `error` on a 401 that names the key
//! variable (never the key), times out with the last observation; and the judge calls the
//! server counted are the wait's.

use std::sync::Arc;
use std::time::Duration;

use storage::{EventKind, WaitId, WaitRecord, WaitState};
use x11rb::protocol::xproto::Window;

use super::vision::{KEY, KEY_VARIABLE, backend_for, quick_settings};
use super::{Fixture, eventually};
use crate::TreeArgs;
use crate::sight::capture::x11::test_display::{TestWindows, Xvfb};
use crate::sight::target::Target;
use crate::testkit::model_server::{ModelServer, Scripted, Wire};
use crate::vision::VisionSpec;
use crate::vision::image::ImageSettings;
use crate::waits::NewWait;
use crate::wake::event::WakeEvent;
use crate::wake::sinks::{RecordingSink, SinkSpec};

const POLL: Duration = Duration::from_secs(2);
const TITLE: &str = "Build Monitor — CI";
const CONDITION: &str = "the build monitor turns green";
const RED: u32 = 0xd21e1e;
const GREEN: u32 = 0x28c81e;
const BLUE: u32 = 0x2040a0;

/// One window on a private Xvfb, watched by a tree whose vision model is the loopback server.
struct WindowWait {
    fixture: Fixture,
    sink: Arc<RecordingSink>,
    server: ModelServer,
    windows: TestWindows,
    window: Window,
    /// Last, so the X server outlives the tree's connections.
    _xvfb: Xvfb,
}

/// A 320x200 window titled [`TITLE`] in `colour`, and a tree judging with a server of `wire`
/// that accepts [`KEY`] and is sent `key`.
async fn start(
    wire: Wire,
    key: &str,
    colour: u32,
    adjust: impl FnOnce(&mut TreeArgs) + Send + 'static,
) -> WindowWait {
    let xvfb = Xvfb::start();
    let windows = TestWindows::connect(xvfb.display());
    let window = windows.create(TITLE, 0, 0, 320, 200, colour);
    let server = ModelServer::start(wire, Some(KEY)).await;
    let sink = RecordingSink::new("recorder");
    let (display, recorder) = (xvfb.display().to_owned(), sink.clone());
    let backend = backend_for(&server, wire, key);
    let fixture = Fixture::start(move |args| {
        args.waits.x11_display = Some(display);
        args.vision = VisionSpec {
            backend,
            settings: quick_settings(),
            image: ImageSettings::default(),
        };
        args.wake.sinks = vec![SinkSpec::Custom(recorder)];
        adjust(args);
    })
    .await;
    WindowWait {
        fixture,
        sink,
        server,
        windows,
        window,
        _xvfb: xvfb,
    }
}

impl WindowWait {
    /// Starts a wait on the window by a part of its title; its first poll is not run yet.
    async fn watch(&self, timeout_s: u64) -> WaitId {
        let new = NewWait {
            target: Target::parse("window:build monitor").unwrap(),
            condition: CONDITION.into(),
            timeout_s,
            poll_interval: POLL,
            task_id: None,
            session_key: None,
            match_existing: false,
            step: None,
        };
        self.fixture.tree.smart_wait(new).await.unwrap().record.id
    }

    async fn advance(&self, by: Duration) {
        self.fixture.advance(by).await;
    }

    async fn record(&self, id: &WaitId) -> WaitRecord {
        let views = self.fixture.tree.wait_status(Some(id.clone())).await;
        views.unwrap().remove(0).record
    }

    /// The one wake of the test, once every delivery is done.
    async fn wake(&self) -> WakeEvent {
        self.fixture.tree.settle().await.unwrap();
        let received = self.sink.received();
        assert_eq!(received.len(), 1, "{received:?}");
        received[0].clone()
    }

    /// The server counted what the wait counted: its judge calls and tokens.
    fn assert_counted_alike(&self, record: &WaitRecord) {
        let counters = &record.counters;
        assert_eq!(counters.judge_calls, self.server.requests() as u64);
        assert_eq!(
            (counters.input_tokens, counters.output_tokens),
            self.server.reported_tokens()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn a_window_that_turns_green_resolves_with_the_model_s_observation() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let watched = start(wire, KEY, RED, |_| {}).await;
        let id = watched.watch(300).await;
        watched.advance(Duration::ZERO).await;
        // The first frame is judged at once: red, not met.
        let record = watched.record(&id).await;
        assert_eq!(record.state, WaitState::Watching, "{wire:?}");
        assert_eq!(
            record.last_observation.as_deref(),
            Some("the 320x200 window is red")
        );
        assert_eq!(watched.server.requests(), 1);

        // Still, and the server told no change: the polls read nothing (once what drawing
        // the window's mapping left is told and read).
        let reads = async || {
            watched
                .fixture
                .tree
                .status()
                .await
                .unwrap()
                .waits
                .feeds
                .captures
        };
        let mut quiet_polls = 0;
        for _ in 0..20 {
            let before = reads().await;
            watched.advance(POLL).await;
            quiet_polls = if reads().await == before {
                quiet_polls + 1
            } else {
                0
            };
            if quiet_polls == 3 {
                break;
            }
        }
        assert_eq!(
            quiet_polls, 3,
            "{wire:?}: three polls in a row without a read"
        );
        assert_eq!(watched.server.requests(), 1, "{wire:?}");

        let captured = watched.record(&id).await.counters.captures;
        watched.windows.repaint(watched.window, GREEN);
        // DAMAGE tells the wait at once: a change still moving is captured, not judged.
        eventually("the repaint is told and captured", async || {
            watched.record(&id).await.counters.captures > captured
        })
        .await;
        assert_eq!(watched.server.requests(), 1, "{wire:?}");
        watched.advance(POLL).await; // settled: judged, and green
        let record = watched.record(&id).await;
        assert_eq!(record.state, WaitState::Resolved, "{wire:?}");
        assert_eq!(watched.server.requests(), 2);
        let seen = watched.server.seen();
        let (_, width, height, [r, g, b]) = seen[1].image.clone().unwrap();
        assert_eq!((width, height), (320, 200));
        assert!(g > 150 && r < 100 && b < 100, "the frame sent is green");
        watched.assert_counted_alike(&record);
        assert_eq!(record.counters.judge_failures, 0);

        let wake = watched.wake().await;
        assert_eq!(wake.kind, EventKind::WaitResolved);
        assert!(
            wake.text.starts_with(&format!(
                "smart_wait resolved ({id}): the 320x200 window is green. Elapsed: "
            )),
            "{wire:?}: {}",
            wake.text
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn a_429_with_retry_after_is_waited_out_and_the_wait_still_resolves() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let watched = start(wire, KEY, GREEN, |_| {}).await;
        watched.server.script([Scripted::Status {
            code: 429,
            retry_after: Some(3),
        }]);
        let id = watched.watch(300).await;
        let tree = &watched.fixture.tree;
        // The first poll's judgment waits for the retry, so it runs beside the rest.
        let first_poll = tree.settle();
        let rest = async {
            eventually("the 429 came back and its retry waits", async || {
                let status = tree.vision_status().await.unwrap();
                status.queued == 1 && status.in_flight == 0
            })
            .await;
            let resume = tree.directory().now().saturating_add_millis(3000);
            let status = tree.vision_status().await.unwrap();
            assert_eq!(status.rate_limited_until, Some(resume), "{wire:?}");
            watched.advance(Duration::from_secs(2)).await;
            assert_eq!(
                watched.server.requests(),
                1,
                "{wire:?}: no request before Retry-After"
            );
            watched.advance(Duration::from_secs(1)).await;
        };
        let (settled, ()) = tokio::join!(first_poll, rest);
        settled.unwrap();

        let record = watched.record(&id).await;
        assert_eq!(record.state, WaitState::Resolved, "{wire:?}");
        assert_eq!(watched.server.requests(), 2);
        let usage = tree.vision_usage(id.as_str()).unwrap();
        assert_eq!(
            (usage.calls, usage.retries, usage.failures),
            (2, 1, 0),
            "{wire:?}"
        );
        // One judgment, retried once: one judge call for the wait, the tokens of the answer.
        assert_eq!(
            (record.counters.judge_calls, record.counters.judge_failures),
            (1, 0)
        );
        assert_eq!(
            (record.counters.input_tokens, record.counters.output_tokens),
            watched.server.reported_tokens()
        );
        let wake = watched.wake().await;
        assert!(
            wake.text.starts_with(&format!(
                "smart_wait resolved ({id}): the 320x200 window is green. Elapsed: 3s."
            )),
            "{wire:?}: {}",
            wake.text
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn a_401_ends_the_wait_in_error_naming_the_key_variable_and_never_the_key() {
    const WRONG: &str = "sk-test-wrong-key-4242";
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let watched = start(wire, WRONG, GREEN, |args| {
            args.waits.max_consecutive_failures = 2;
        })
        .await;
        let id = watched.watch(300).await;
        watched.advance(Duration::ZERO).await;
        assert_eq!(watched.record(&id).await.state, WaitState::Watching);
        // A failed judgment is not "seen": the next poll asks about the frame again.
        watched.advance(POLL).await;
        let record = watched.record(&id).await;
        assert_eq!(record.state, WaitState::Error, "{wire:?}");
        assert_eq!(record.counters.judge_failures, 2);
        watched.assert_counted_alike(&record);
        assert_eq!(watched.server.requests(), 2);

        let wake = watched.wake().await;
        assert_eq!(wake.kind, EventKind::WaitError);
        let expected = format!(
            "smart_wait error ({id}): 2 judge failures in a row; the last: HTTP 401 from {}: \
             check the key in ${KEY_VARIABLE}",
            watched.server.base_url
        );
        assert!(wake.text.starts_with(&expected), "{wire:?}: {}", wake.text);
        // The server echoed the key it was given; neither the wake nor the record repeat it.
        assert!(!wake.text.contains(WRONG), "{}", wake.text);
        assert!(!format!("{record:?}").contains(WRONG));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn a_window_that_never_turns_green_times_out_with_the_last_observation() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let watched = start(wire, KEY, RED, |_| {}).await;
        let id = watched.watch(10).await;
        watched.advance(Duration::ZERO).await;
        watched.advance(POLL).await;
        watched.windows.repaint(watched.window, BLUE);
        for _ in 0..4 {
            watched.advance(POLL).await; // t = 4 changing, 6 judged blue, 8, 10: the deadline
        }
        let record = watched.record(&id).await;
        assert_eq!(record.state, WaitState::Timeout, "{wire:?}");
        assert_eq!(watched.server.requests(), 2);
        watched.assert_counted_alike(&record);

        let wake = watched.wake().await;
        assert_eq!(wake.kind, EventKind::WaitTimeout);
        assert!(
            wake.text.starts_with(&format!(
                "smart_wait timeout ({id}): Condition not met after 10s. Last observation: the \
                 320x200 window is another colour."
            )),
            "{wire:?}: {}",
            wake.text
        );
    }
}
