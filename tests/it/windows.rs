//! Window and screen waits end to end on a private Xvfb: `smart_wait(window:…)` through the
//! socket, the X11 capture and the pixel gate in the daemon, judged with no model (the first
//! settled change wakes, and says so) and by a loopback chat-completions model that receives
//! the frame; a window that closes and stays closed ends its wait in `error`; a display that
//! cannot be opened is refused at once with a hint.

pub use actors::testkit::test_display;

use std::time::Duration;

use lookout::config::VisionBackend;
use lookout::jsonrpc::codes;
use serde_json::{Value, json};
use storage::EventKind;

use crate::support::{TestDaemon, err, ok, wait_until};
use crate::vision::{chat_server, chat_server_saying};
use test_display::{TestWindows, Xvfb};

const PATIENCE: Duration = Duration::from_secs(20);
const GREY: u32 = 0x808080;

/// Starts a wait on `target` polled every 0.2 s (the Wayland tests use it too).
pub async fn watch(daemon: &TestDaemon, target: &str, condition: &str) -> (String, Value) {
    let mut client = daemon.client().await;
    let created = ok(
        &mut client,
        "smart_wait",
        json!({"target": target, "wake_when": condition, "poll_interval": 0.2, "timeout": 60}),
    )
    .await;
    assert_eq!(created["status"], "watching", "{created}");
    (created["wait_id"].as_str().unwrap().to_owned(), created)
}

/// The wait's `wait_status`.
pub async fn status_of(daemon: &TestDaemon, wait_id: &str) -> Value {
    daemon.ok("wait_status", json!({"wait_id": wait_id})).await
}

/// A daemon watching `display`, judging with the loopback chat-completions model at `url`.
async fn judged_by_model(display: String, url: &str) -> TestDaemon {
    let url = url.to_owned();
    TestDaemon::start_with(
        |config| {
            config.x11.display = Some(display);
            config.vision.backend = VisionBackend::Openai;
            config.vision.base_url = Some(url);
            config.vision.model = Some("llava".into());
            config.vision.min_interval_s = 0;
        },
        None,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn without_a_model_a_window_wait_skips_still_frames_and_wakes_as_changed_at_the_first_settled_change()
 {
    let xvfb = Xvfb::start();
    let windows = TestWindows::connect(xvfb.display());
    let installer = windows.create("Setup Wizard — Installer", 40, 40, 400, 300, GREY);
    let display = xvfb.display().to_owned();
    let daemon = TestDaemon::start_with(|config| config.x11.display = Some(display), None).await;

    let (wait_id, created) = watch(&daemon, "window:installer", "the finish dialog appears").await;
    assert!(
        created["message"]
            .as_str()
            .unwrap()
            .contains("No model is configured to judge \"the finish dialog appears\""),
        "{created}"
    );
    // A still window: captured again and again, never a reason to wake.
    wait_until("still frames were skipped", PATIENCE, async || {
        status_of(&daemon, &wait_id).await["counters"]["skipped_by_gate"]
            .as_u64()
            .unwrap()
            >= 3
    })
    .await;
    assert!(
        daemon.sink.received().is_empty(),
        "a still window woke the agent"
    );
    assert_eq!(status_of(&daemon, &wait_id).await["status"], "watching");

    // A "dialog" opens in the window: the first settled change wakes as changed, saying no
    // model looked — never as resolved.
    windows.fill(installer, 100, 100, 200, 120, 0xffffff);
    wait_until("the change woke the agent", PATIENCE, async || {
        daemon.sink.received().len() == 1
    })
    .await;
    let event = daemon.sink.received()[0].clone();
    assert_eq!(event.kind, EventKind::WaitChanged);
    assert!(
        event.text.starts_with(&format!(
            "smart_wait changed ({wait_id}): the window changed. The condition was not judged: no model is configured"
        )),
        "{}",
        event.text
    );
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["status"], "changed");
    assert_eq!(status["counters"]["judge_calls"], 0, "no model was called");
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn a_configured_model_judges_the_window_s_frame() {
    let xvfb = Xvfb::start();
    let windows = TestWindows::connect(xvfb.display());
    windows.create("Firefox — Downloads", 0, 0, 320, 200, 0x2040a0);
    let display = xvfb.display().to_owned();
    let (url, model) = chat_server().await;
    let daemon = judged_by_model(display, &url).await;

    let (wait_id, created) = watch(&daemon, "window:firefox", "the download finished").await;
    assert!(
        !created["message"]
            .as_str()
            .unwrap()
            .contains("No vision model"),
        "{created}"
    );
    wait_until("the model's verdict woke the agent", PATIENCE, async || {
        daemon.sink.received().len() == 1
    })
    .await;
    let text = daemon.sink.received()[0].text.clone();
    assert!(
        text.starts_with(&format!(
            "smart_wait resolved ({wait_id}): the installer says Finished. Elapsed: "
        )),
        "{text}"
    );
    let bodies = model.bodies();
    assert_eq!(bodies.len(), 1, "the first settled frame, judged once");
    let asked = bodies[0].as_str();
    assert!(
        asked.contains("data:image/png;base64,"),
        "the frame is sent"
    );
    assert!(asked.contains("the download finished"));
    assert!(asked.contains("window:firefox"));
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["counters"]["judge_calls"], 1, "{status}");
    assert_eq!(
        status["counters"]["input_tokens"],
        model.reported_tokens().0,
        "{status}"
    );
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_display_that_cannot_be_opened_is_refused_at_once_with_a_hint() {
    let daemon =
        TestDaemon::start_with(|config| config.x11.display = Some(":4999".into()), None).await;
    let mut client = daemon.client().await;
    let error = err(
        &mut client,
        "smart_wait",
        json!({"target": "screen", "wake_when": "the screen saver starts"}),
    )
    .await;
    assert_eq!(error.code, codes::UNAVAILABLE, "{error:?}");
    assert!(
        error.message.contains("cannot open X display ':4999'"),
        "{error:?}"
    );
    assert!(
        error.message.contains("import-environment DISPLAY"),
        "{error:?}"
    );
    let listed = ok(&mut client, "wait_status", json!({})).await;
    assert_eq!(listed["waits"], json!([]), "nothing was stored");
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn a_window_that_closes_and_stays_closed_ends_the_wait_in_error() {
    let xvfb = Xvfb::start();
    let windows = TestWindows::connect(xvfb.display());
    let installer = windows.create("Setup Wizard — Installer", 40, 40, 400, 300, GREY);
    let display = xvfb.display().to_owned();
    let (url, model) = chat_server_saying(
        "{\"met\": false, \"observation\": \"the installer is still copying files\"}",
    )
    .await;
    let daemon = TestDaemon::start_with(
        |config| {
            config.x11.display = Some(display);
            config.vision.backend = VisionBackend::Openai;
            config.vision.base_url = Some(url.clone());
            config.vision.model = Some("llava".into());
            config.vision.min_interval_s = 0;
            config.wait.window_gone_grace_s = 1;
        },
        None,
    )
    .await;

    let (wait_id, _) = watch(&daemon, "window:installer", "the installation finishes").await;
    wait_until("the model judged the window", PATIENCE, async || {
        model.requests() > 0
    })
    .await;
    windows.destroy(installer);
    wait_until("the closed window woke the agent", PATIENCE, async || {
        !daemon.sink.received().is_empty()
    })
    .await;
    let event = daemon.sink.received()[0].clone();
    assert_eq!(event.kind, EventKind::WaitError, "{}", event.text);
    let head =
        format!("smart_wait error ({wait_id}): window:installer closed and stayed closed for ");
    let seconds: u64 = event
        .text
        .strip_prefix(&head)
        .and_then(|rest| rest.split_once("s. ")?.0.parse().ok())
        .unwrap_or_else(|| panic!("{}", event.text));
    assert!(seconds >= 1, "{}", event.text);
    assert!(
        event
            .text
            .contains(&format!("wait_update(wait_id: \"{wait_id}\")")),
        "{}",
        event.text
    );
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["status"], "error", "{status}");
    daemon.stop().await;
}

/// A window that does not exist yet is accepted: the reply says so and names the closest
/// open titles; no model is asked while it is missing; once it opens, its frames are judged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn a_window_that_opens_after_the_wait_started_is_watched_and_costs_nothing_before() {
    let xvfb = Xvfb::start();
    let windows = TestWindows::connect(xvfb.display());
    windows.create("Firefox — Downloads", 0, 0, 320, 200, 0x2040a0);
    windows.create("Terminal — build", 330, 0, 320, 200, GREY);
    let display = xvfb.display().to_owned();
    let (url, model) = chat_server().await;
    let daemon = judged_by_model(display, &url).await;

    let (wait_id, created) = watch(&daemon, "window:Setup Wizard", "the download finished").await;
    let message = created["message"].as_str().unwrap();
    assert!(
        message.contains("No window's title contains 'Setup Wizard' yet"),
        "{message}"
    );
    assert!(
        message.contains("'Firefox — Downloads'") && message.contains("'Terminal — build'"),
        "the open windows are named: {message}"
    );
    wait_until(
        "captures while the window is missing",
        PATIENCE,
        async || {
            status_of(&daemon, &wait_id).await["counters"]["captures"]
                .as_u64()
                .unwrap()
                >= 4
        },
    )
    .await;
    assert!(
        model.requests() == 0,
        "no model call while the window does not exist"
    );
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["status"], "watching");
    assert!(
        status["last_observation"]
            .as_str()
            .unwrap()
            .contains("no window's title contains 'Setup Wizard'"),
        "{status}"
    );

    windows.create("Setup Wizard — Installer", 40, 40, 400, 300, GREY);
    wait_until("the model's verdict woke the agent", PATIENCE, async || {
        daemon.sink.received().len() == 1
    })
    .await;
    assert_eq!(model.requests(), 1, "judged once it appeared");
    assert_eq!(daemon.sink.received()[0].kind, EventKind::WaitResolved);
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn twenty_identical_waits_on_a_still_window_share_one_capture_per_poll_and_one_judge_call() {
    let xvfb = Xvfb::start();
    let windows = TestWindows::connect(xvfb.display());
    windows.create("Setup Wizard — Installer", 40, 40, 400, 300, GREY);
    let display = xvfb.display().to_owned();
    let (url, model) =
        chat_server_saying("{\"met\": false, \"observation\": \"still copying files\"}").await;
    let daemon = judged_by_model(display, &url).await;
    let mut wait_ids = Vec::new();
    for _ in 0..20 {
        let (wait_id, _) = watch(&daemon, "window:installer", "the installer finished").await;
        wait_ids.push(wait_id);
    }
    // Every wait has its verdict on the first frame.
    for wait_id in &wait_ids {
        wait_until(
            "every wait's first frame was judged",
            PATIENCE,
            async || status_of(&daemon, wait_id).await["last_observation"] == "still copying files",
        )
        .await;
    }
    let waits_status = async || daemon.ok("daemon.status", json!({})).await["waits"].clone();
    let before = waits_status().await;
    assert_eq!(
        before["targets_watched"], 1,
        "one feed for one window: {before}"
    );
    // Twenty waits polling every 0.2 s while the window stands still: one capture per poll
    // (the waits poll on the same ticks) and no more judge calls.
    let first = status_of(&daemon, &wait_ids[0]).await["counters"]["captures"]
        .as_u64()
        .unwrap();
    wait_until("ten more polls", PATIENCE, async || {
        status_of(&daemon, &wait_ids[0]).await["counters"]["captures"]
            .as_u64()
            .unwrap()
            >= first + 10
    })
    .await;
    let polls = status_of(&daemon, &wait_ids[0]).await["counters"]["captures"]
        .as_u64()
        .unwrap()
        - first;
    let after = waits_status().await;
    let captures = after["captures"].as_u64().unwrap() - before["captures"].as_u64().unwrap();
    assert!(
        captures <= polls + 2,
        "{captures} captures for {polls} polls of 20 waits: they are not shared"
    );
    assert_eq!(
        model.requests(),
        1,
        "the same question about the same frame is asked once"
    );
    let status = daemon.ok("daemon.status", json!({})).await;
    assert_eq!(status["vision"]["calls"], 1, "{}", status["vision"]);
    daemon.stop().await;
}

/// An X client of a test (an xterm, an xmessage dialog), killed when dropped.
pub struct XClient(std::process::Child);

impl XClient {
    /// Starts `program` with `args` on `display`.
    pub fn start(display: &str, program: &str, args: &[&str]) -> XClient {
        let child = std::process::Command::new(program)
            .env("DISPLAY", display)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!("cannot start {program} ({error}); install it: apt-get install xterm x11-utils fonts-dejavu-core fonts-liberation")
            });
        XClient(child)
    }

    /// An xterm titled `title` running the shell `script`, in a DejaVu font.
    pub fn xterm(display: &str, title: &str, geometry: &str, script: &str) -> XClient {
        let font = "DejaVu Sans Mono";
        XClient::start(
            display,
            "xterm",
            &[
                "-T",
                title,
                "-geometry",
                geometry,
                "-fa",
                font,
                "-fs",
                "12",
                "-e",
                "sh",
                "-c",
                script,
            ],
        )
    }
}

impl Drop for XClient {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An xterm showing `lines`, titled `title`, drawn with an Xft font in the given colours.
struct Xterm;

impl Xterm {
    fn show(display: &str, title: &str, font: &str, colours: (&str, &str), lines: &str) -> XClient {
        let script = format!("printf '%s\\n' '{lines}'; sleep 120");
        XClient::start(
            display,
            "xterm",
            &[
                "-T",
                title,
                "-geometry",
                "70x6+0+0",
                "-fa",
                font,
                "-fs",
                "12",
                "-bg",
                colours.0,
                "-fg",
                colours.1,
                "-e",
                "sh",
                "-c",
                &script,
            ],
        )
    }
}

/// The ocr backend on real xterm windows (two fonts, dark on light and light on dark): a
/// digit is never forgiven — 'Tests: 0 failed' does not resolve on "Tests: 3 failed, 97
/// passed", and does on "Tests: 0 failed" (whose slashed zero tesseract reads as @ or ©).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb, xterm, tesseract and the DejaVu and Liberation fonts"
)]
async fn the_ocr_backend_reads_digits_exactly_on_real_xterm_windows() {
    let xvfb = Xvfb::start_with(1280, 720, 24);
    let display = xvfb.display().to_owned();
    let daemon = TestDaemon::start_with(
        {
            let display = display.clone();
            move |config| {
                config.x11.display = Some(display);
                config.vision.backend = VisionBackend::Ocr;
            }
        },
        None,
    )
    .await;
    let mut xterms = Vec::new();
    let mut failing = Vec::new();
    let mut passing = Vec::new();
    for (font, font_name) in [
        ("DejaVu Sans Mono", "dejavu"),
        ("Liberation Mono", "liberation"),
    ] {
        for (colours, scheme) in [
            (("white", "black"), "light"),
            (("black", "#d0d0d0"), "dark"),
        ] {
            let three = format!("ocr-{font_name}-{scheme}-three");
            let zero = format!("ocr-{font_name}-{scheme}-zero");
            xterms.push(Xterm::show(
                &display,
                &three,
                font,
                colours,
                "Tests: 3 failed, 97 passed, 100 total",
            ));
            xterms.push(Xterm::show(
                &display,
                &zero,
                font,
                colours,
                "Tests: 0 failed, 12 passed, 12 total",
            ));
            let mut client = daemon.client().await;
            for (title, list) in [(three, &mut failing), (zero, &mut passing)] {
                let created = ok(
                    &mut client,
                    "smart_wait",
                    json!({"target": format!("window:{title}"), "wake_when": "when 'Tests: 0 failed' shows",
                           "poll_interval": 0.5, "timeout": 12}),
                )
                .await;
                list.push((title, created["wait_id"].as_str().unwrap().to_owned()));
            }
        }
    }
    let all: Vec<&(String, String)> = failing.iter().chain(&passing).collect();
    wait_until("every wait ended", Duration::from_secs(40), async || {
        for (_, wait_id) in &all {
            if status_of(&daemon, wait_id).await["status"] == "watching" {
                return false;
            }
        }
        true
    })
    .await;
    for (title, wait_id) in &passing {
        let status = status_of(&daemon, wait_id).await;
        assert_eq!(status["status"], "resolved", "{title}: {status}");
    }
    for (title, wait_id) in &failing {
        let status = status_of(&daemon, wait_id).await;
        assert_eq!(
            status["status"], "timeout",
            "{title}: 3 failed is not 0 failed: {status}"
        );
        assert!(
            status["counters"]["judge_calls"].as_u64().unwrap() >= 1,
            "{title}: the frame was read: {status}"
        );
    }
    drop(xterms);
    daemon.stop().await;
}
