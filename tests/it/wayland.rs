//! Window and screen waits on a Wayland session: a private headless sway
//! (`actors::testkit::sway`, as an unprivileged user), foot terminal windows with known
//! titles, and the daemon reading them through wlr-screencopy, foreign-toplevel and sway's
//! IPC. The same scenarios as the X11 tests: a still window costs at most one judge call, a
//! change is judged, a window that closes ends its wait in `error`, `screen` works without a
//! model and says nothing was judged, what Wayland cannot watch is refused with a reason,
//! and a window wait resumes after the daemon was killed.

use std::time::Duration;

use actors::testkit::sway::{HeadlessSway, append, follow_script};
use lookout::client::Client;
use lookout::config::VisionBackend;
use lookout::jsonrpc::codes;
use serde_json::{Value, json};
use storage::EventKind;

use crate::support::{
    DaemonProcess, TestDaemon, start_wait, until_wait_counter, wait_counter, wait_until,
};
use crate::vision::chat_server_saying;
use crate::windows::{status_of, watch};

const PATIENCE: Duration = Duration::from_secs(30);

/// A daemon reading the Wayland compositor `sway` runs, with `adjust` applied.
async fn daemon_on(
    sway: &HeadlessSway,
    adjust: impl FnOnce(&mut lookout::config::Config),
) -> TestDaemon {
    let display = sway.display().clone();
    TestDaemon::start_with(
        |config| {
            config.x11.display = None;
            config.wayland.session = lookout::config::Session::Wayland;
            config.wayland.display = Some(display.socket.to_string_lossy().into_owned());
            config.wayland.sway_socket = display.sway.clone();
            adjust(config);
        },
        None,
    )
    .await
}

/// Paints the whole terminal green: a true-colour background, then clear.
const GREEN_SCREEN: &str = "\x1b[48;2;0;200;0m\x1b[2J\x1b[H";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway and foot"
)]
async fn a_still_wayland_window_is_judged_once_and_its_change_resolves_the_wait() {
    let mut sway = HeadlessSway::start();
    let log = sway.shared_folder().join("installer.log");
    let script = follow_script(&log);
    sway.open_terminal("Setup Wizard — Installer", &script);
    // The test kit's model judges frames by their colour: met once the window is green.
    let model = actors::testkit::model_server::ModelServer::start(
        actors::testkit::model_server::Wire::OpenAi,
        None,
    )
    .await;
    let url = model.base_url.clone();
    let daemon = daemon_on(&sway, |config| {
        config.vision.backend = VisionBackend::Openai;
        config.vision.base_url = Some(url);
        config.vision.model = Some("llava".into());
        config.vision.min_interval_s = 0;
    })
    .await;

    let (wait_id, _) = watch(&daemon, "window:setup wizard", "the window turns green").await;
    wait_until("still frames were skipped", PATIENCE, async || {
        status_of(&daemon, &wait_id).await["counters"]["skipped_by_gate"]
            .as_u64()
            .unwrap()
            >= 5
    })
    .await;
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["status"], "watching", "{status}");
    assert!(
        status["counters"]["judge_calls"].as_u64().unwrap() <= 1,
        "a still window costs at most one judge call: {status}"
    );
    let seen = model.seen();
    if let Some(first) = seen.first() {
        let (media_type, width, height, _) = first.image.clone().expect("a frame was sent");
        assert_eq!(media_type, "image/png");
        // The window fills the 1920x1080 output (no borders), shrunk for the model.
        assert!(width > height && width >= 640, "{width}x{height}");
    }

    // Renamed (an OSC title sequence): still the watched window, though its title no longer
    // says "setup wizard".
    append(&log, "\x1b]2;Copying files\x07");
    wait_until("sway shows the new title", PATIENCE, async || {
        sway.titles().iter().any(|title| title == "Copying files")
    })
    .await;
    let captured = status_of(&daemon, &wait_id).await["counters"]["captures"]
        .as_u64()
        .unwrap();
    wait_until("captures of the renamed window", PATIENCE, async || {
        status_of(&daemon, &wait_id).await["counters"]["captures"]
            .as_u64()
            .unwrap()
            >= captured + 4
    })
    .await;
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["status"], "watching", "{status}");
    assert!(
        !status["last_observation"]
            .as_str()
            .unwrap_or("")
            .contains("closed"),
        "the renamed window was lost: {status}"
    );

    append(&log, GREEN_SCREEN);
    wait_until("the green window resolved the wait", PATIENCE, async || {
        !daemon.sink.received().is_empty()
    })
    .await;
    let event = daemon.sink.received()[0].clone();
    assert_eq!(event.kind, EventKind::WaitResolved, "{}", event.text);
    assert!(event.text.contains("is green"), "{}", event.text);
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["status"], "resolved");
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway and foot"
)]
async fn without_a_model_the_wayland_screen_wakes_as_changed_and_says_nothing_was_judged() {
    let mut sway = HeadlessSway::start();
    let daemon = daemon_on(&sway, |_| {}).await;
    let pixels = daemon.ok("daemon.status", json!({})).await["waits"]["pixels"].clone();
    assert!(
        pixels
            .as_str()
            .unwrap()
            .contains("(windows placed by sway's IPC; the ScreenCast portal"),
        "{pixels}"
    );
    let (wait_id, created) = watch(&daemon, "screen", "the build window opens").await;
    assert!(
        created["message"]
            .as_str()
            .unwrap()
            .contains("No model is configured to judge"),
        "{created}"
    );
    wait_until("the empty screen was captured", PATIENCE, async || {
        status_of(&daemon, &wait_id).await["counters"]["captures"]
            .as_u64()
            .unwrap()
            >= 3
    })
    .await;
    assert!(
        daemon.sink.received().is_empty(),
        "a still screen woke the agent"
    );

    let log = sway.shared_folder().join("build.log");
    let script = follow_script(&log);
    sway.open_terminal("cargo build", &script);
    append(&log, "   Compiling lookout v0.1.0\n");
    wait_until("the new window woke the agent", PATIENCE, async || {
        !daemon.sink.received().is_empty()
    })
    .await;
    let event = daemon.sink.received()[0].clone();
    assert_eq!(event.kind, EventKind::WaitChanged, "{}", event.text);
    assert!(
        event
            .text
            .contains("The condition was not judged: no model is configured"),
        "{}",
        event.text
    );
    let status = status_of(&daemon, &wait_id).await;
    assert_eq!(status["counters"]["judge_calls"], 0);
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway and foot"
)]
async fn a_wayland_window_that_closes_ends_its_wait_in_error_and_missing_ones_are_named() {
    let mut sway = HeadlessSway::start();
    let log = sway.shared_folder().join("copy.log");
    let script = follow_script(&log);
    let terminal = sway.open_terminal("rsync — backup", &script);
    let (url, model) =
        chat_server_saying("{\"met\": false, \"observation\": \"still copying files\"}").await;
    let daemon = daemon_on(&sway, |config| {
        config.vision.backend = VisionBackend::Openai;
        config.vision.base_url = Some(url);
        config.vision.model = Some("llava".into());
        config.vision.min_interval_s = 0;
        config.wait.window_gone_grace_s = 1;
    })
    .await;

    // A window that is not there: accepted, and the reply names the windows that are.
    let (_, created) = watch(&daemon, "window:Installer", "the installer finishes").await;
    let message = created["message"].as_str().unwrap();
    assert!(
        message.contains("No window's title contains 'Installer' yet")
            && message.contains("'rsync — backup'"),
        "{message}"
    );
    // An X11 window id means nothing here: refused, saying why and what to do.
    let error = daemon
        .err(
            "smart_wait",
            json!({"target": "window:0x4200003", "wake_when": "it finishes"}),
        )
        .await;
    assert_eq!(error.code, codes::UNAVAILABLE, "{}", error.message);
    assert!(
        error.message.contains("X11 window id") && error.message.contains("Wayland"),
        "{}",
        error.message
    );

    let (wait_id, _) = watch(&daemon, "window:rsync", "the backup finishes").await;
    wait_until("the model judged the window", PATIENCE, async || {
        model.requests() > 0
    })
    .await;
    // Moved to a workspace not shown: hidden, not closed, and nothing for the model.
    sway.command("[title=\"rsync\"] move container to workspace 2");
    wait_until("the window reads as hidden", PATIENCE, async || {
        status_of(&daemon, &wait_id).await["last_observation"]
            == actors::sight::capture::x11::WINDOW_HIDDEN
    })
    .await;
    let judged = model.requests();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(status_of(&daemon, &wait_id).await["status"], "watching");
    assert_eq!(model.requests(), judged, "a hidden window was judged");
    sway.close(terminal, "rsync — backup");
    wait_until("the closed window woke the agent", PATIENCE, async || {
        daemon
            .sink
            .received()
            .iter()
            .any(|event| event.text.contains(&wait_id))
    })
    .await;
    let event = daemon
        .sink
        .received()
        .into_iter()
        .find(|event| event.text.contains(&wait_id))
        .unwrap();
    assert_eq!(event.kind, EventKind::WaitError, "{}", event.text);
    assert!(
        event
            .text
            .contains("window:rsync closed and stayed closed for"),
        "{}",
        event.text
    );
    daemon.stop().await;
}

/// The real binary on a Wayland session is SIGKILLed while a window wait watches; the
/// restarted daemon resumes the wait on the same window, and the window's change wakes the
/// agent through a command sink.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway and foot"
)]
async fn a_wayland_window_wait_survives_a_sigkill_of_the_daemon() {
    let mut sway = HeadlessSway::start();
    let log = sway.shared_folder().join("deploy.log");
    let script = follow_script(&log);
    sway.open_terminal("deploy — production", &script);
    let dir = tempfile::tempdir().unwrap();
    let sink = crate::support::write_script(
        dir.path(),
        "sink.sh",
        "cat >> \"$(dirname \"$0\")/wakes.log\"\n",
    );
    let display = sway.display().clone();
    let config = format!(
        "[wayland]\nsession = \"wayland\"\ndisplay = {:?}\nsway_socket = {:?}\n\n\
         [[wake.sinks]]\nkind = \"command\"\nprogram = {:?}\n",
        display.socket.display().to_string(),
        display.sway.as_ref().unwrap().display().to_string(),
        sink.display().to_string()
    );
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let wait_id = start_wait(
        &mut client,
        json!({"target": "window:deploy", "wake_when": "the deploy finishes",
               "poll_interval": 0.3, "timeout": 600}),
    )
    .await;
    let captured = "the window was captured";
    until_wait_counter(&mut client, &wait_id, "captures", 2, captured, PATIENCE).await;
    daemon.kill();

    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let before = wait_counter(&mut client, &wait_id, "captures").await;
    let again = "the resumed wait captures the window";
    until_wait_counter(
        &mut client,
        &wait_id,
        "captures",
        before + 3,
        again,
        PATIENCE,
    )
    .await;
    append(&log, "deployed v1.2.3 to production\n");
    let wakes = dir.path().join("wakes.log");
    wait_until("the change woke the agent", PATIENCE, async || {
        std::fs::read_to_string(&wakes).is_ok_and(|text| text.contains('\n'))
    })
    .await;
    let text = std::fs::read_to_string(&wakes).unwrap();
    let event: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(event["kind"], "wait_changed", "{event}");
    assert_eq!(event["wait_id"], wait_id.as_str(), "{event}");
}

/// On a compositor that lists windows but does not say where they are (no sway IPC, as on
/// Hyprland, river, labwc, Wayfire), a window is read only while it covers its output, and
/// the wait says so meanwhile; `screen` is watched as anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway and foot"
)]
async fn without_sway_s_ipc_a_window_is_read_while_it_covers_its_output_and_the_screen_is_watched()
{
    let mut sway = HeadlessSway::start();
    let log = sway.shared_folder().join("top.log");
    let script = follow_script(&log);
    sway.open_terminal("htop", &script);
    let socket = sway.display().socket.clone();
    let model = actors::testkit::model_server::ModelServer::start(
        actors::testkit::model_server::Wire::OpenAi,
        None,
    )
    .await;
    let url = model.base_url.clone();
    let daemon = TestDaemon::start_with(
        |config| {
            config.x11.display = None;
            config.wayland.session = lookout::config::Session::Wayland;
            config.wayland.display = Some(socket.to_string_lossy().into_owned());
            config.wayland.sway_socket = None;
            config.vision.backend = VisionBackend::Openai;
            config.vision.base_url = Some(url);
            config.vision.model = Some("llava".into());
            config.vision.min_interval_s = 0;
        },
        None,
    )
    .await;
    let (wait_id, _) = watch(&daemon, "window:htop", "the window turns green").await;
    wait_until(
        "the wait says the window cannot be placed",
        PATIENCE,
        async || {
            status_of(&daemon, &wait_id).await["last_observation"]
                == actors::sight::capture::wayland::WINDOW_UNPLACED
        },
    )
    .await;
    append(&log, GREEN_SCREEN);
    // Not read while it does not cover its output: nothing shown to the model yet.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(model.requests(), 0, "an unplaced window was judged");
    assert!(daemon.sink.received().is_empty());

    sway.command("[title=\"htop\"] fullscreen enable");
    wait_until(
        "the fullscreen green window resolved the wait",
        PATIENCE,
        async || !daemon.sink.received().is_empty(),
    )
    .await;
    let event = daemon.sink.received()[0].clone();
    assert_eq!(event.kind, EventKind::WaitResolved, "{}", event.text);

    // The green window fills the screen: the model may find the condition met at once.
    let (screen, _) = watch(&daemon, "screen", "the screen turns green").await;
    wait_until("the screen was captured", PATIENCE, async || {
        status_of(&daemon, &screen).await["counters"]["captures"]
            .as_u64()
            .unwrap()
            >= 1
    })
    .await;
    let pixels = daemon.ok("daemon.status", json!({})).await["waits"]["pixels"].clone();
    let expected = format!(
        "Wayland {} (windows only while fullscreen or maximised: no sway IPC to place them; the ScreenCast portal",
        socket.display()
    );
    assert!(pixels.as_str().unwrap().starts_with(&expected), "{pixels}");
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway and foot"
)]
async fn a_wayland_window_change_wakes_its_wait_long_before_the_next_poll() {
    let mut sway = HeadlessSway::start();
    let log = sway.shared_folder().join("deploy.log");
    let script = follow_script(&log);
    sway.open_terminal("Deploy Console", &script);
    // The terminal's first drawing is over before the wait starts.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let daemon = daemon_on(&sway, |_| {}).await;
    let mut client = daemon.client().await;
    // Polled once a minute: only the compositor's word can wake it within the patience.
    let wait_id = start_wait(
        &mut client,
        json!({"target": "window:deploy console", "wake_when": "the deploy finishes",
               "poll_interval": 60, "timeout": 600}),
    )
    .await;
    until_wait_counter(
        &mut client,
        &wait_id,
        "captures",
        1,
        "the first read",
        PATIENCE,
    )
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        daemon.sink.received().is_empty(),
        "a still window woke the agent"
    );

    append(&log, "deploy finished: 3 services up\n");
    wait_until("the change woke the agent", PATIENCE, async || {
        !daemon.sink.received().is_empty()
    })
    .await;
    let event = daemon.sink.received()[0].clone();
    assert_eq!(event.kind, EventKind::WaitChanged, "{}", event.text);
    let status = status_of(&daemon, &wait_id).await;
    assert!(
        status["elapsed_s"].as_u64().unwrap() < 60,
        "woken before the first poll after the start: {status}"
    );
    daemon.stop().await;
}
