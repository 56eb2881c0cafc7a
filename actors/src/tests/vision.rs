//! The Vision actor and its backends against loopback model servers that decode the image
//! they receive and answer from its pixels, on a ManualClock: verdicts, 429 with
//! `Retry-After`, 5xx and timeouts with backoff, 401, unparseable answers, the concurrency
//! bound, the cache, the per-wait interval, the `none` backend, OCR with real tesseract,
//! and an actor restart.

use std::time::Duration;

use super::glyphs::render;
use super::{Fixture, eventually};
use crate::condition::judge::{Judge, JudgeFailure, JudgeRequest, Verdict};
use crate::sight::content::{Content, Frame};
use crate::testkit::model_server::{ModelServer, Scripted, Wire};
use crate::vision::backend::{ApiKey, BackendSpec};
use crate::vision::image::{ImageFormat, ImageSettings};
use crate::vision::{PUMP_TIMER, VisionSettings, VisionSpec, VisionStatus};
use crate::wake::sinks::Secret;
use crate::{ActorKind, Tree};

pub(super) const KEY: &str = "sk-test-right-key";
pub(super) const KEY_VARIABLE: &str = "LOOKOUT_TEST_KEY";
const GREEN: [u8; 3] = [40, 200, 30];
const RED: [u8; 3] = [210, 30, 30];

/// A BGRA frame of one colour, given as (r, g, b), with a zero fourth byte as X11 leaves it.
fn solid(width: u32, height: u32, [r, g, b]: [u8; 3]) -> Frame {
    let pixels: Vec<u8> = (0..width * height).flat_map(|_| [b, g, r, 0]).collect();
    Frame::new(width, height, pixels)
}

fn request(wait_id: &str, condition: &str, content: Content) -> JudgeRequest {
    JudgeRequest {
        wait_id: wait_id.into(),
        condition: condition.into(),
        target: "window:Builder".into(),
        content,
        elapsed: Duration::from_secs(95),
        progress: Default::default(),
    }
}

fn green_request(wait_id: &str) -> JudgeRequest {
    request(
        wait_id,
        "the window turns green",
        Content::Frame(solid(640, 400, GREEN)),
    )
}

pub(super) fn quick_settings() -> VisionSettings {
    VisionSettings {
        max_concurrency: 2,
        min_interval: Duration::ZERO,
        retries: 3,
        timeout: Duration::from_secs(30),
    }
}

pub(super) fn backend_for(server: &ModelServer, wire: Wire, key: &str) -> BackendSpec {
    let api_key = ApiKey {
        variable: KEY_VARIABLE.into(),
        secret: Secret::new(key),
    };
    match wire {
        Wire::OpenAi => BackendSpec::OpenAi {
            base_url: server.base_url.clone(),
            model: "gpt-test-vision".into(),
            api_key: Some(api_key),
        },
        Wire::Anthropic => BackendSpec::Anthropic {
            base_url: server.base_url.clone(),
            model: "claude-test-vision".into(),
            api_key,
        },
    }
}

async fn boot(backend: BackendSpec, settings: VisionSettings, image: ImageSettings) -> Fixture {
    Fixture::start(move |args| {
        args.vision = VisionSpec {
            backend,
            settings,
            image,
        };
    })
    .await
}

async fn status(tree: &Tree) -> VisionStatus {
    tree.vision_status().await.unwrap()
}

/// Starts a judge call in the background.
fn ask(
    tree: &Tree,
    request: JudgeRequest,
) -> tokio::task::JoinHandle<Result<Verdict, JudgeFailure>> {
    tokio::spawn(tree.judge().judge(request))
}

#[tokio::test]
async fn each_backend_judges_from_the_pixels_it_receives() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let server = ModelServer::start(wire, Some(KEY)).await;
        let image = ImageSettings {
            max_px: 1280,
            format: ImageFormat::Png,
        };
        let fixture = boot(backend_for(&server, wire, KEY), quick_settings(), image).await;
        let judge = fixture.tree.judge();
        assert!(
            judge
                .describe()
                .contains("test-vision at http://127.0.0.1:")
        );

        let red = request(
            "w-1",
            "the window turns green",
            Content::Frame(solid(2000, 1000, RED)),
        );
        let verdict = judge.judge(red).await.unwrap();
        assert!(!verdict.met, "{wire:?}: {verdict:?}");
        // The 2000x1000 frame was shrunk to 1280 on its long side before it was sent.
        assert_eq!(verdict.observation, "the 1280x640 window is red");
        let verdict = judge.judge(green_request("w-1")).await.unwrap();
        assert!(verdict.met, "{wire:?}: {verdict:?}");
        assert_eq!(verdict.observation, "the 640x400 window is green");
        let usage = verdict.model_call.unwrap();
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (100 + 640 * 400 / 1000, 20)
        );

        let seen = server.seen();
        assert_eq!(seen.len(), 2);
        let (media_type, ..) = seen[1].image.clone().unwrap();
        assert_eq!(media_type, "image/png");
        match wire {
            Wire::OpenAi => {
                assert_eq!(seen[0].path, "/v1/chat/completions");
                assert_eq!(seen[0].body["model"], "gpt-test-vision");
                assert_eq!(seen[0].body["messages"][0]["role"], "system");
            }
            Wire::Anthropic => {
                assert_eq!(seen[0].path, "/v1/messages");
                assert_eq!(seen[0].header("anthropic-version"), Some("2023-06-01"));
                assert_eq!(seen[0].body["model"], "claude-test-vision");
                assert!(seen[0].body["max_tokens"].as_u64().is_some());
            }
        }
        let prompt = seen[0].body.to_string();
        assert!(prompt.contains("the window turns green"));
        assert!(prompt.contains("1 min 35 s"));

        // What the server counted is what the ledger and the status say.
        let totals = status(&fixture.tree).await.totals;
        assert_eq!(totals.calls, server.requests() as u64);
        assert_eq!(
            (totals.input_tokens, totals.output_tokens),
            server.reported_tokens()
        );
        assert_eq!((totals.judgements, totals.failures), (2, 0));
        let wait = fixture.tree.vision_usage("w-1").unwrap();
        assert_eq!(wait, totals);
        assert_eq!(fixture.tree.status().await.unwrap().vision.totals, totals);
    }
}

#[tokio::test]
async fn jpeg_frames_are_sent_as_jpeg() {
    let server = ModelServer::start(Wire::OpenAi, None).await;
    let backend = BackendSpec::OpenAi {
        base_url: server.base_url.clone(),
        model: "local-model".into(),
        api_key: None,
    };
    let image = ImageSettings {
        max_px: 320,
        format: ImageFormat::Jpeg { quality: 70 },
    };
    let fixture = boot(backend, quick_settings(), image).await;
    let verdict = fixture
        .tree
        .judge()
        .judge(green_request("w-1"))
        .await
        .unwrap();
    assert!(verdict.met);
    let seen = server.seen();
    let (media_type, width, height, _) = seen[0].image.clone().unwrap();
    assert_eq!(
        (media_type.as_str(), width, height),
        ("image/jpeg", 320, 200)
    );
    // No key configured: none is sent.
    assert_eq!(seen[0].header("authorization"), None);
}

#[tokio::test]
async fn a_429_with_retry_after_pauses_the_backend_until_then() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let server = ModelServer::start(wire, Some(KEY)).await;
        server.script([Scripted::Status {
            code: 429,
            retry_after: Some(7),
        }]);
        let fixture = boot(
            backend_for(&server, wire, KEY),
            quick_settings(),
            ImageSettings::default(),
        )
        .await;
        let tree = &fixture.tree;
        let pending = ask(tree, green_request("w-1"));
        eventually("the 429 is settled and the retry queued", async || {
            let status = status(tree).await;
            status.queued == 1 && status.in_flight == 0
        })
        .await;
        let limited_at = tree.directory().now();
        let resume = limited_at.saturating_add_millis(7000);
        assert_eq!(status(tree).await.rate_limited_until, Some(resume));
        assert_eq!(tree.directory().timers().deadline(PUMP_TIMER), Some(resume));
        // Another wait (its own frame: the same question would join the first) is held
        // back by the pause too.
        let other = ask(
            tree,
            request(
                "w-2",
                "the window turns green",
                Content::Frame(solid(320, 200, GREEN)),
            ),
        );
        eventually("the second request is queued", async || {
            status(tree).await.queued == 2
        })
        .await;
        fixture.advance(Duration::from_secs(6)).await;
        assert_eq!(
            server.requests(),
            1,
            "{wire:?}: no request before Retry-After"
        );
        fixture.advance(Duration::from_secs(1)).await;
        let verdict = pending.await.unwrap().unwrap();
        assert!(verdict.met);
        assert!(other.await.unwrap().unwrap().met);
        let totals = status(tree).await.totals;
        assert_eq!(totals.calls, server.requests() as u64);
        assert_eq!((totals.retries, totals.failures), (1, 0));
        assert_eq!(tree.vision_usage("w-1").unwrap().calls, 2);
    }
}

#[tokio::test]
async fn server_errors_and_timeouts_are_retried_with_backoff() {
    let server = ModelServer::start(Wire::OpenAi, Some(KEY)).await;
    server.script([
        Scripted::Status {
            code: 503,
            retry_after: None,
        },
        Scripted::Hang,
    ]);
    let settings = VisionSettings {
        timeout: Duration::from_millis(300),
        ..quick_settings()
    };
    let fixture = boot(
        backend_for(&server, Wire::OpenAi, KEY),
        settings,
        ImageSettings::default(),
    )
    .await;
    let tree = &fixture.tree;
    let pending = ask(tree, green_request("w-1"));
    for (attempts, backoff) in [(1, 1), (2, 2)] {
        eventually("a retry is queued", async || {
            let status = status(tree).await;
            status.queued == 1 && status.in_flight == 0 && server.requests() == attempts
        })
        .await;
        let due = tree.directory().now().saturating_add_millis(backoff * 1000);
        assert_eq!(tree.directory().timers().deadline(PUMP_TIMER), Some(due));
        fixture.advance(Duration::from_secs(backoff)).await;
    }
    let verdict = pending.await.unwrap().unwrap();
    assert!(verdict.met);
    let usage = tree.vision_usage("w-1").unwrap();
    assert_eq!((usage.calls, usage.retries, usage.failures), (3, 2, 0));
    assert_eq!(server.requests(), 3);
}

/// Wait `w-1`'s question, asked of a model that answered 503 once: its retry is queued for
/// a second from now, and the model has had one request.
async fn a_question_waiting_for_its_retry() -> (
    ModelServer,
    Fixture,
    tokio::task::JoinHandle<Result<Verdict, JudgeFailure>>,
) {
    let server = ModelServer::start(Wire::OpenAi, Some(KEY)).await;
    server.script([Scripted::Status {
        code: 503,
        retry_after: None,
    }]);
    let fixture = boot(
        backend_for(&server, Wire::OpenAi, KEY),
        quick_settings(),
        ImageSettings::default(),
    )
    .await;
    let tree = &fixture.tree;
    let pending = ask(tree, green_request("w-1"));
    eventually("the retry is queued", async || {
        let status = status(tree).await;
        status.queued == 1 && status.in_flight == 0 && server.requests() == 1
    })
    .await;
    (server, fixture, pending)
}

/// A caller that gave up (its wait ended, or its judge timeout passed) is not retried for:
/// the queued retry is dropped and the model is not called again.
#[tokio::test]
async fn a_retry_whose_caller_has_gone_is_dropped_not_sent() {
    let (server, fixture, pending) = a_question_waiting_for_its_retry().await;
    let tree = &fixture.tree;
    pending.abort();
    let _ = pending.await;
    fixture.advance(Duration::from_secs(1)).await;
    eventually("the retry is dropped", async || {
        status(tree).await.queued == 0
    })
    .await;
    fixture.advance(Duration::from_secs(60)).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.requests(), 1, "nobody was waiting for a second call");
    assert_eq!(status(tree).await.in_flight, 0);
}

/// Identical waits on one window ask the same question: while it is queued or in flight, a
/// second wait asking it joins it, and one model call answers both.
#[tokio::test]
async fn the_same_question_in_flight_is_asked_once() {
    let (server, fixture, first) = a_question_waiting_for_its_retry().await;
    let tree = &fixture.tree;
    let second = ask(tree, green_request("w-2"));
    eventually("the second joined the first", async || {
        status(tree).await.queued == 1
    })
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        server.requests(),
        1,
        "the second question was not asked on its own"
    );
    fixture.advance(Duration::from_secs(1)).await;
    let (first, second) = (
        first.await.unwrap().unwrap(),
        second.await.unwrap().unwrap(),
    );
    assert!(first.met && second.met);
    assert_eq!(first.observation, second.observation);
    assert!(first.model_call.is_some() && second.model_call.is_none());
    assert_eq!(
        server.requests(),
        2,
        "one call after the retry answered both"
    );
    let follower = tree.vision_usage("w-2").unwrap();
    assert_eq!((follower.calls, follower.cache_hits), (0, 1));
}

#[tokio::test]
async fn retries_give_up_with_the_cause_and_the_count() {
    let server = ModelServer::start(Wire::OpenAi, None).await;
    server.script((0..2).map(|_| Scripted::Status {
        code: 500,
        retry_after: Some(0),
    }));
    let settings = VisionSettings {
        retries: 1,
        ..quick_settings()
    };
    let backend = BackendSpec::OpenAi {
        base_url: server.base_url.clone(),
        model: "m".into(),
        api_key: None,
    };
    let fixture = boot(backend, settings, ImageSettings::default()).await;
    // Retry-After: 0 retries at once.
    let failure = fixture
        .tree
        .judge()
        .judge(green_request("w-1"))
        .await
        .unwrap_err();
    assert!(failure.model_call);
    assert!(
        failure.message.starts_with(&format!(
            "HTTP 500 from {}: scripted 500 (after 2 attempts)",
            server.base_url
        )),
        "{}",
        failure.message
    );
    let usage = fixture.tree.vision_usage("w-1").unwrap();
    assert_eq!((usage.calls, usage.retries, usage.failures), (2, 1, 1));
}

#[tokio::test]
async fn a_401_is_a_failure_that_names_the_key_variable_and_hides_the_key() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let server = ModelServer::start(wire, Some(KEY)).await;
        let wrong = "sk-test-wrong-key-4242";
        let fixture = boot(
            backend_for(&server, wire, wrong),
            quick_settings(),
            ImageSettings::default(),
        )
        .await;
        let failure = fixture
            .tree
            .judge()
            .judge(green_request("w-1"))
            .await
            .unwrap_err();
        let expected = format!(
            "HTTP 401 from {}: check the key in ${KEY_VARIABLE}",
            server.base_url
        );
        assert!(
            failure.message.starts_with(&expected),
            "{}",
            failure.message
        );
        // The server echoed the key it was given; lookout never repeats it.
        assert!(!failure.message.contains(wrong), "{}", failure.message);
        assert!(failure.message.contains("Incorrect API key provided: ***"));
        assert!(failure.model_call);
        assert_eq!(server.requests(), 1, "{wire:?}: a 401 is not retried");
        let status = status(&fixture.tree).await;
        assert_eq!((status.totals.calls, status.totals.failures), (1, 1));
        assert!(!format!("{status:?}").contains(wrong));
    }
}

#[tokio::test]
async fn an_unparseable_answer_is_a_failure_never_a_silent_no() {
    let server = ModelServer::start(Wire::Anthropic, Some(KEY)).await;
    server.script([Scripted::Say("I think the build is probably done.".into())]);
    let fixture = boot(
        backend_for(&server, Wire::Anthropic, KEY),
        quick_settings(),
        ImageSettings::default(),
    )
    .await;
    let failure = fixture
        .tree
        .judge()
        .judge(green_request("w-1"))
        .await
        .unwrap_err();
    assert!(
        failure
            .message
            .starts_with("the model's answer has no {\"met\": …, \"observation\": …} object"),
        "{}",
        failure.message
    );
    assert_eq!(server.requests(), 1);
    // Failures are not cached: the same frame is asked again, and now answered.
    let verdict = fixture
        .tree
        .judge()
        .judge(green_request("w-1"))
        .await
        .unwrap();
    assert!(verdict.met);
}

#[tokio::test]
async fn at_most_max_concurrency_calls_run_at_once() {
    let server = ModelServer::start(Wire::OpenAi, Some(KEY)).await;
    server.hold();
    let fixture = boot(
        backend_for(&server, Wire::OpenAi, KEY),
        quick_settings(),
        ImageSettings::default(),
    )
    .await;
    let tree = &fixture.tree;
    let pending: Vec<_> = (0..5u8)
        .map(|n| {
            // Distinct frames, so nothing comes from the cache.
            let frame = solid(320, 200, [40, 200, 30 + n]);
            ask(
                tree,
                request(
                    &format!("w-{n}"),
                    "the window turns green",
                    Content::Frame(frame),
                ),
            )
        })
        .collect();
    eventually(
        "two calls held at the server and three queued",
        async || {
            let status = status(tree).await;
            server.in_flight() == 2 && status.in_flight == 2 && status.queued == 3
        },
    )
    .await;
    server.release();
    for call in pending {
        assert!(call.await.unwrap().unwrap().met);
    }
    assert_eq!(server.max_in_flight(), 2);
    assert_eq!(server.requests(), 5);
    assert_eq!(status(tree).await.totals.calls, 5);
}

#[tokio::test]
async fn the_same_frame_and_condition_are_answered_from_the_cache() {
    let server = ModelServer::start(Wire::OpenAi, Some(KEY)).await;
    let fixture = boot(
        backend_for(&server, Wire::OpenAi, KEY),
        quick_settings(),
        ImageSettings::default(),
    )
    .await;
    let judge = fixture.tree.judge();
    let first = judge.judge(green_request("w-1")).await.unwrap();
    let again = judge.judge(green_request("w-2")).await.unwrap();
    assert_eq!(server.requests(), 1);
    assert_eq!(
        (again.met, &again.observation),
        (first.met, &first.observation)
    );
    assert_eq!(again.model_call, None, "a cache hit is not a model call");
    let usage = judge.usage("w-2").unwrap();
    assert_eq!((usage.cache_hits, usage.calls), (1, 0));
    // Another condition on the same frame is a new question.
    let other = request(
        "w-2",
        "an error dialog appears",
        Content::Frame(solid(640, 400, GREEN)),
    );
    judge.judge(other).await.unwrap();
    assert_eq!(server.requests(), 2);
    assert_eq!(status(&fixture.tree).await.cache_entries, 2);
}

#[tokio::test]
async fn one_wait_s_calls_are_spaced_by_min_interval_and_others_are_not_held() {
    let server = ModelServer::start(Wire::OpenAi, Some(KEY)).await;
    let settings = VisionSettings {
        min_interval: Duration::from_secs(5),
        ..quick_settings()
    };
    let fixture = boot(
        backend_for(&server, Wire::OpenAi, KEY),
        settings,
        ImageSettings::default(),
    )
    .await;
    let tree = &fixture.tree;
    let first_at = tree.directory().now();
    let red = request(
        "w-1",
        "the window turns green",
        Content::Frame(solid(64, 64, RED)),
    );
    assert!(!tree.judge().judge(red).await.unwrap().met);
    let second = ask(tree, green_request("w-1"));
    eventually("the second call of w-1 waits", async || {
        status(tree).await.queued == 1
    })
    .await;
    assert_eq!(
        tree.directory().timers().deadline(PUMP_TIMER),
        Some(first_at.saturating_add_millis(5000))
    );
    // Another wait is not held back by w-1's interval.
    let elsewhere = request(
        "w-2",
        "the window turns green",
        Content::Frame(solid(64, 64, GREEN)),
    );
    assert!(tree.judge().judge(elsewhere).await.unwrap().met);
    assert_eq!(server.requests(), 2);
    fixture.advance(Duration::from_secs(4)).await;
    assert_eq!(server.requests(), 2);
    fixture.advance(Duration::from_secs(1)).await;
    assert!(second.await.unwrap().unwrap().met);
    assert_eq!(server.requests(), 3);
}

#[tokio::test]
async fn text_questions_go_to_the_same_backends() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let server = ModelServer::start(wire, Some(KEY)).await;
        let fixture = boot(
            backend_for(&server, wire, KEY),
            quick_settings(),
            ImageSettings::default(),
        )
        .await;
        let judge = fixture.tree.judge();
        let running = request(
            "w-1",
            "the build has passed",
            Content::text("compiling 41/80"),
        );
        assert!(!judge.judge(running).await.unwrap().met);
        let passed = request(
            "w-1",
            "the build has passed",
            Content::text("compiling 80/80\nBUILD PASSED"),
        );
        let verdict = judge.judge(passed).await.unwrap();
        assert!(verdict.met, "{wire:?}");
        assert_eq!(verdict.observation, "the log says BUILD PASSED");
        assert!(server.seen().iter().all(|seen| seen.image.is_none()));
        assert!(server.seen()[1].body.to_string().contains("BUILD PASSED"));
    }
}

#[tokio::test]
async fn without_a_model_the_first_change_meets_and_says_how_to_configure_one() {
    let fixture = Fixture::start(|_| {}).await;
    let judge = fixture.tree.judge();
    assert!(judge.describe().starts_with("none"));
    let verdict = judge.judge(green_request("w-1")).await.unwrap();
    assert!(verdict.met);
    assert!(
        verdict
            .observation
            .starts_with("window:Builder changed; no vision model is configured"),
        "{}",
        verdict.observation
    );
    assert!(
        verdict
            .observation
            .contains("[vision] backend = \"openai\"")
    );
    assert_eq!(verdict.model_call, None);
    let gone = request(
        "w-1",
        "the installer finishes",
        Content::Absent {
            description: "the window was closed".into(),
        },
    );
    let verdict = judge.judge(gone).await.unwrap();
    assert!(
        verdict
            .observation
            .starts_with("window:Builder is gone (the window was closed)")
    );
    let usage = judge.usage("w-1").unwrap();
    assert_eq!((usage.judgements, usage.calls), (2, 0));
}

#[tokio::test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs tesseract"
)]
async fn ocr_reads_text_rendered_into_a_frame_with_real_tesseract() {
    let fixture = boot(
        BackendSpec::Ocr {
            program: "tesseract".into(),
        },
        quick_settings(),
        ImageSettings::default(),
    )
    .await;
    let judge = fixture.tree.judge();
    assert!(judge.describe().starts_with("ocr (tesseract"));
    let condition = "the log says \"BUILD PASSED\"";
    let passed = request("w-1", condition, Content::Frame(render("BUILD PASSED", 6)));
    let verdict = judge.judge(passed).await.unwrap();
    assert!(verdict.met, "{verdict:?}");
    assert!(
        verdict.observation.starts_with("read \"BUILD PASSED\""),
        "{}",
        verdict.observation
    );
    assert!(
        verdict.model_call.is_some(),
        "a tesseract run counts as a call"
    );
    let failed = request("w-1", condition, Content::Frame(render("BUILD FAILED", 6)));
    let verdict = judge.judge(failed).await.unwrap();
    assert!(!verdict.met, "{verdict:?}");
    assert!(
        verdict
            .observation
            .starts_with("no \"BUILD PASSED\" on window:Builder")
    );
    // Nothing quoted: nothing to look for, and the failure says how to write it.
    let unquoted = request(
        "w-1",
        "the build passes",
        Content::Frame(render("BUILD PASSED", 6)),
    );
    let failure = judge.judge(unquoted).await.unwrap_err();
    assert!(
        failure
            .message
            .contains("put the words to wait for in quotes")
    );
    // Text targets skip tesseract.
    let text = request("w-2", condition, Content::text("... BUILD PASSED in 3m"));
    assert!(judge.judge(text).await.unwrap().met);
    let usage = status(&fixture.tree).await.totals;
    assert_eq!((usage.calls, usage.failures), (2, 1));
}

#[tokio::test]
async fn a_missing_tesseract_is_a_failure_that_says_how_to_install_it() {
    let fixture = boot(
        BackendSpec::Ocr {
            program: "/nonexistent/tesseract".into(),
        },
        quick_settings(),
        ImageSettings::default(),
    )
    .await;
    let passed = request("w-1", "\"DONE\"", Content::Frame(solid(16, 16, GREEN)));
    let failure = fixture.tree.judge().judge(passed).await.unwrap_err();
    assert!(
        failure.message.contains("apt-get install tesseract-ocr"),
        "{}",
        failure.message
    );
    assert!(!failure.model_call);
}

#[tokio::test]
async fn a_restarted_vision_actor_keeps_the_ledger_and_answers_again() {
    let server = ModelServer::start(Wire::OpenAi, Some(KEY)).await;
    let fixture = boot(
        backend_for(&server, Wire::OpenAi, KEY),
        quick_settings(),
        ImageSettings::default(),
    )
    .await;
    let tree = &fixture.tree;
    assert!(tree.judge().judge(green_request("w-1")).await.unwrap().met);
    tree.faults().panic_next(ActorKind::Vision);
    let failure = tree.judge().judge(green_request("w-2")).await.unwrap_err();
    assert!(
        failure.message.contains("vision actor stopped"),
        "{}",
        failure.message
    );
    eventually("the vision actor is back", async || {
        tree.vision_status().await.is_ok()
    })
    .await;
    let red = request(
        "w-1",
        "the window turns green",
        Content::Frame(solid(32, 32, RED)),
    );
    assert!(!tree.judge().judge(red).await.unwrap().met);
    assert_eq!(tree.vision_usage("w-1").unwrap().calls, 2);
}
