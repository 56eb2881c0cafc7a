//! The screen of a GNOME or KDE Wayland session, read through the ScreenCast portal, on a
//! private desktop session (`actors::testkit::portal`): its own D-Bus bus, PipeWire, the real
//! `xdg-desktop-portal` frontend with a stand-in backend, and an Xvfb screen streamed into
//! PipeWire. A still screen costs at most one judge call and its change is judged; the user
//! is asked once, and the next session starts from the kept restore token without asking; a
//! cancelled dialog ends the wait in `error`; windows are refused with the reason.

use std::sync::atomic::Ordering;
use std::time::Duration;

use actors::testkit::portal::PortalDesktop;
use actors::testkit::test_display::{TestWindows, Xvfb};
use actors::testkit::weston::HeadlessWeston;
use lookout::client::Client;
use lookout::config::{PORTAL_TOKEN_FILE, VisionBackend};
use lookout::jsonrpc::codes;
use serde_json::json;
use storage::EventKind;

use crate::support::{
    DaemonProcess, TestDaemon, start_wait, until_wait_counter, wait_counter, wait_until,
};
use crate::windows::{status_of, watch};

const PATIENCE: Duration = Duration::from_secs(30);
const GREY: u32 = 0x808080;
const GREEN: u32 = 0x00c800;

/// A daemon reading the screen through `desktop`'s portal, with `adjust` applied.
async fn daemon_on(
    desktop: &PortalDesktop,
    adjust: impl FnOnce(&mut lookout::config::Config),
) -> TestDaemon {
    let bus = desktop.bus().to_owned();
    TestDaemon::start_with(
        |config| {
            config.x11.display = None;
            config.wayland.capture = lookout::config::Capture::Portal;
            config.wayland.session_bus = Some(bus);
            adjust(config);
        },
        None,
    )
    .await
}

/// Waits for the `index`th wake event and checks it ends `wait_id` in `error`, saying `why`.
async fn ended_in_error(daemon: &TestDaemon, index: usize, wait_id: &str, why: &str) {
    wait_until("the wait ended in error", PATIENCE, async || {
        daemon.sink.received().len() > index
    })
    .await;
    let event = daemon.sink.received()[index].clone();
    assert_eq!(event.kind, EventKind::WaitError, "{}", event.text);
    assert!(
        event.text.contains(wait_id) && event.text.contains(why),
        "{}",
        event.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs the portal stack (dbus, PipeWire, WirePlumber, xdg-desktop-portal, GStreamer, Xvfb)"
)]
async fn the_portal_screen_is_judged_once_while_still_its_change_resolves_and_the_user_is_asked_once()
 {
    let xvfb = Xvfb::start_with(640, 480, 24);
    let windows = TestWindows::connect(xvfb.display());
    let desktop_window = windows.create("Files", 0, 0, 640, 480, GREY);
    let desktop = PortalDesktop::start(xvfb.display(), 640, 480).await;
    // The test kit's model judges frames by their colour: met once the screen is green.
    let model = actors::testkit::model_server::ModelServer::start(
        actors::testkit::model_server::Wire::OpenAi,
        None,
    )
    .await;
    let url = model.base_url.clone();
    let daemon = daemon_on(&desktop, |config| {
        config.vision.backend = VisionBackend::Openai;
        config.vision.base_url = Some(url);
        config.vision.model = Some("llava".into());
        config.vision.min_interval_s = 0;
    })
    .await;
    let pixels = daemon.ok("daemon.status", json!({})).await["waits"]["pixels"].clone();
    assert!(
        pixels
            .as_str()
            .unwrap()
            .starts_with("the screen through the ScreenCast portal on unix:path="),
        "{pixels}"
    );

    let (wait_id, created) = watch(&daemon, "screen", "the screen turns green").await;
    let message = created["message"].as_str().unwrap();
    assert!(
        message.contains("read through the desktop's ScreenCast portal"),
        "{message}"
    );
    wait_until(
        "still frames of the shared screen were skipped",
        PATIENCE,
        async || {
            status_of(&daemon, &wait_id).await["counters"]["skipped_by_gate"]
                .as_u64()
                .unwrap()
                >= 5
        },
    )
    .await;
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["status"], "watching", "{status}");
    assert!(
        status["counters"]["judge_calls"].as_u64().unwrap() <= 1,
        "a still screen costs at most one judge call: {status}"
    );
    if let Some(first) = model.seen().first() {
        let (_, width, height, _) = first.image.clone().expect("a frame was sent");
        assert_eq!((width, height), (640, 480), "the stream's frames, whole");
    }
    assert_eq!(desktop.asked().prompts.load(Ordering::SeqCst), 1);
    let token = daemon.dir.path().join("data").join(PORTAL_TOKEN_FILE);
    let kept = std::fs::read_to_string(&token).expect("the restore token is kept");
    assert!(!kept.trim().is_empty());
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&token).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600, "the token is the user's alone");

    windows.repaint(desktop_window, GREEN);
    wait_until("the green screen resolved the wait", PATIENCE, async || {
        !daemon.sink.received().is_empty()
    })
    .await;
    let event = daemon.sink.received()[0].clone();
    assert_eq!(event.kind, EventKind::WaitResolved, "{}", event.text);
    assert_eq!(status_of(&daemon, &wait_id).await["status"], "resolved");

    // The next screen wait opens a new session: restored from the kept token, no dialog.
    windows.repaint(desktop_window, GREY);
    let (second, _) = watch(&daemon, "screen", "the screen turns green again").await;
    wait_until(
        "a frame of the second session was judged",
        PATIENCE,
        async || {
            status_of(&daemon, &second).await["counters"]["judge_calls"]
                .as_u64()
                .unwrap()
                >= 1
        },
    )
    .await;
    assert_eq!(status_of(&daemon, &second).await["status"], "watching");
    assert_eq!(desktop.asked().started.load(Ordering::SeqCst), 2);
    assert_eq!(desktop.asked().restored.load(Ordering::SeqCst), 1);
    assert_eq!(
        desktop.asked().prompts.load(Ordering::SeqCst),
        1,
        "the user was asked once"
    );
    // xdg-desktop-portal 1.16 hands the same token back; others issue a new one each time,
    // and lookout keeps whichever came last.
    assert!(!std::fs::read_to_string(&token).unwrap().trim().is_empty());

    // The user stops sharing: the wait ends in `error` saying so, and the desktop is not
    // asked to share again behind the user's back.
    desktop.stop_sharing().await;
    ended_in_error(&daemon, 1, &second, "stopped sharing the screen").await;
    assert_eq!(desktop.asked().started.load(Ordering::SeqCst), 2);
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs the portal stack (dbus, PipeWire, WirePlumber, xdg-desktop-portal, GStreamer, Xvfb)"
)]
async fn a_cancelled_screen_sharing_dialog_ends_the_wait_in_error_and_windows_are_refused() {
    let xvfb = Xvfb::start_with(320, 240, 24);
    let desktop = PortalDesktop::start(xvfb.display(), 320, 240).await;
    desktop.asked().cancel.store(true, Ordering::SeqCst);
    let daemon = daemon_on(&desktop, |_| {}).await;

    // A window cannot be named through the portal: refused now, saying what to do.
    let error = daemon
        .err(
            "smart_wait",
            json!({"target": "window:Firefox", "wake_when": "the page loads"}),
        )
        .await;
    assert_eq!(error.code, codes::UNAVAILABLE, "{}", error.message);
    assert!(
        error.message.contains("ScreenCast portal") && error.message.contains("watch screen"),
        "{}",
        error.message
    );

    let (wait_id, _) = watch(&daemon, "screen", "the build finishes").await;
    ended_in_error(&daemon, 0, &wait_id, "dialog was cancelled").await;
    assert_eq!(desktop.asked().started.load(Ordering::SeqCst), 0);
    daemon.stop().await;
}

/// On a compositor without wlr-screencopy (Weston here, GNOME and KDE on users' desktops),
/// the default `auto` reads the screen through the portal and refuses windows, saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs the portal stack (dbus, PipeWire, WirePlumber, xdg-desktop-portal, GStreamer, Xvfb)"
)]
async fn without_screencopy_the_default_reads_the_screen_through_the_portal() {
    let weston = HeadlessWeston::start(640, 480);
    let xvfb = Xvfb::start_with(320, 240, 24);
    let desktop = PortalDesktop::start(xvfb.display(), 320, 240).await;
    let socket = weston.socket().clone();
    let bus = desktop.bus().to_owned();
    let daemon = TestDaemon::start_with(
        |config| {
            config.x11.display = None;
            config.wayland.display = Some(socket.to_string_lossy().into_owned());
            config.wayland.session_bus = Some(bus);
        },
        None,
    )
    .await;
    let pixels = daemon.ok("daemon.status", json!({})).await["waits"]["pixels"].clone();
    assert!(
        pixels
            .as_str()
            .unwrap()
            .contains("the ScreenCast portal on unix:path="),
        "{pixels}"
    );
    let error = daemon
        .err(
            "smart_wait",
            json!({"target": "window:Terminal", "wake_when": "the tests pass"}),
        )
        .await;
    assert_eq!(error.code, codes::UNAVAILABLE, "{}", error.message);
    assert!(
        error.message.contains("offers no wlr-screencopy")
            && error.message.contains("never names a window"),
        "{}",
        error.message
    );
    let (wait_id, created) = watch(&daemon, "screen", "the tests pass").await;
    assert!(
        created["message"]
            .as_str()
            .unwrap()
            .contains("ScreenCast portal"),
        "{created}"
    );
    wait_until("the portal's stream was captured", PATIENCE, async || {
        status_of(&daemon, &wait_id).await["counters"]["skipped_by_gate"]
            .as_u64()
            .unwrap()
            >= 2
    })
    .await;
    assert_eq!(desktop.asked().started.load(Ordering::SeqCst), 1);
    daemon.stop().await;
}

/// The real binary, SIGKILLed while a screen wait watches through the portal, resumes the
/// wait when it starts again: a new portal session from the kept restore token, without
/// asking the user again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs the portal stack (dbus, PipeWire, WirePlumber, xdg-desktop-portal, GStreamer, Xvfb)"
)]
async fn a_portal_screen_wait_resumes_after_a_sigkill_without_asking_again() {
    let xvfb = Xvfb::start_with(320, 240, 24);
    let desktop = PortalDesktop::start(xvfb.display(), 320, 240).await;
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[wayland]\ncapture = \"portal\"\nsession_bus = {:?}\n",
        desktop.bus()
    );
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let wait_id = start_wait(
        &mut client,
        json!({"target": "screen", "wake_when": "the tests pass",
               "poll_interval": 0.3, "timeout": 600}),
    )
    .await;
    let skipped = "skipped_by_gate";
    let read = "the shared screen was read";
    until_wait_counter(&mut client, &wait_id, skipped, 2, read, PATIENCE).await;
    assert_eq!(desktop.asked().prompts.load(Ordering::SeqCst), 1);
    assert_eq!(stream_readers_of(dir.path()), 1);
    daemon.kill();
    // The stream's reader does not outlive the daemon: the portal closes the session with
    // the daemon's bus connection, and with it the PipeWire remote the reader used.
    wait_until(
        "the killed daemon's stream reader ended",
        PATIENCE,
        async || stream_readers_of(dir.path()) == 0,
    )
    .await;

    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let before = wait_counter(&mut client, &wait_id, skipped).await;
    let again = "the resumed wait reads the screen again";
    until_wait_counter(&mut client, &wait_id, skipped, before + 2, again, PATIENCE).await;
    assert_eq!(desktop.asked().started.load(Ordering::SeqCst), 2);
    assert_eq!(desktop.asked().restored.load(Ordering::SeqCst), 1);
    assert_eq!(
        desktop.asked().prompts.load(Ordering::SeqCst),
        1,
        "the user was asked once, not again after the restart"
    );
    daemon.kill();
}

/// How many `gst-launch-1.0 … pipewiresrc` programs the daemon run on `dir` started are
/// running: found by the environment they inherited (its `OPENCLAW_STATE_DIR` names `dir`).
fn stream_readers_of(dir: &std::path::Path) -> usize {
    let marker = format!("OPENCLAW_STATE_DIR={}", dir.join("no-openclaw").display());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            let process = entry.path();
            let reads_a_stream = std::fs::read(process.join("cmdline"))
                .is_ok_and(|line| String::from_utf8_lossy(&line).contains("pipewiresrc"));
            reads_a_stream
                && std::fs::read(process.join("environ")).is_ok_and(|environ| {
                    environ
                        .split(|byte| *byte == 0)
                        .any(|variable| variable == marker.as_bytes())
                })
        })
        .count()
}
