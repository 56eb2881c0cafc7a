//! Screen history end to end, on a private Xvfb with real xterm and xmessage windows and real
//! tesseract: the recorder follows the focused window, reads what changed, and
//! `memory_recall` finds the segments with their steps and keyframes; `tasks` mode records
//! nothing without an active task; excluded windows, a pause and a locked screen leave
//! nothing on disk (the files are read, not just the API); a secret on screen is never
//! stored; `recall.forget` removes segments and their pictures; a SIGKILL loses nothing
//! already read; with `procedures = "model"`, a closed segment is described by the model
//! (a loopback stand-in) from its keyframes and text.

use actors::recall::recorder::RecordMode;
use actors::testkit::model_server::{ModelServer, Wire};
use actors::testkit::sway::{HeadlessSway, append, follow_script};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use lookout::client::Client;
use lookout::config::{Procedures, VisionBackend};

use crate::support::{DaemonProcess, TestDaemon, ok, wait_until};
use crate::windows::XClient;
use crate::windows::test_display::{TestWindows, Xvfb};

/// OCR of a whole window takes about a second here; the first capture waits a tick.
const PATIENCE: Duration = Duration::from_secs(60);

async fn start(display: &str, mode: RecordMode) -> TestDaemon {
    let display = display.to_owned();
    TestDaemon::start_with(
        move |config| {
            config.x11.display = Some(display);
            config.recall.mode = mode;
            config.recall.interval_ms = 300;
            config.recall.idle_gap_s = 2;
        },
        None,
    )
    .await
}

async fn recorder(daemon: &TestDaemon) -> Value {
    daemon.ok("daemon.status", json!({})).await["recall"].clone()
}

/// Polls the recorder's status until `holds` it; when it never does, the failure shows the
/// status last seen.
async fn recorder_until(daemon: &TestDaemon, what: &str, holds: impl Fn(&Value) -> bool) {
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let status = recorder(daemon).await;
        if holds(&status) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out after {PATIENCE:?} waiting for: {what}\nrecorder: {status}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn screen_results(daemon: &TestDaemon, query: &str) -> Vec<Value> {
    let answer = daemon
        .ok(
            "memory_recall",
            json!({"query": query, "source": "screen", "limit": 5}),
        )
        .await;
    answer["results"].as_array().unwrap().clone()
}

/// Waits until a screen segment matching `query` has a step containing `step`; when none
/// comes, the failure shows the recorder's status and every segment the index holds.
async fn found_with_step(daemon: &TestDaemon, query: &str, step: &str) -> Value {
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let found = screen_results(daemon, query)
            .await
            .into_iter()
            .find(|result| steps(result).iter().any(|s| s.contains(step)));
        if let Some(found) = found {
            return found;
        }
        if std::time::Instant::now() >= deadline {
            let held: Vec<Value> = screen_results(daemon, query)
                .await
                .into_iter()
                .map(|r| json!({"title": r["title"], "summary": r["summary"], "steps": r["steps"]}))
                .collect();
            panic!(
                "timed out after {PATIENCE:?} waiting for a screen segment for '{query}' with a \
                 step '{step}'\nrecorder: {}\nsegments: {held:#?}",
                recorder(daemon).await
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn steps(result: &Value) -> Vec<String> {
    result["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Every byte the daemon keeps of recall: the index (with its write-ahead log) and the
/// keyframes.
fn recall_bytes(data: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut folders = vec![data.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                folders.push(path);
            } else if name.starts_with("recall") || path.starts_with(data.join("recall-frames")) {
                bytes.extend(std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    bytes
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    let needle = needle.to_lowercase();
    let haystack = String::from_utf8_lossy(haystack).to_lowercase();
    haystack.contains(&needle)
}

/// Waits until the recorder has captured `ticks` more times, so it had every chance.
async fn let_it_look(daemon: &TestDaemon, ticks: u64) {
    let before = recorder(daemon).await;
    let state = before["state"].clone();
    tokio::time::sleep(Duration::from_millis(300 * ticks + 500)).await;
    let after = recorder(daemon).await;
    assert_eq!(after["state"], state, "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb, xterm, xmessage and tesseract"
)]
async fn a_session_recorded_for_a_task_is_found_with_its_steps_and_keyframes() {
    let xvfb = Xvfb::start_with(1280, 720, 24);
    let display = xvfb.display().to_owned();
    let windows = TestWindows::connect(&display);
    let daemon = start(&display, RecordMode::Tasks).await;
    let go = daemon.dir.path().join("go");
    let script = format!(
        "printf 'user@host:~/coursefolio$ make deploy\\nDeploying coursefolio to staging\\n'; \
         while [ ! -e {go} ]; do sleep 0.1; done; \
         printf '\\033]0;deploy: done\\007'; \
         printf 'Release v1.2.3 of coursefolio is live\\n'; sleep 300",
        go = go.display()
    );
    let _shell = XClient::xterm(&display, "deploy shell", "90x20+0+0", &script);
    let shell = windows.find("deploy shell", PATIENCE);
    windows.focus(shell);

    // tasks mode: no task is active, so nothing is captured.
    recorder_until(&daemon, "the recorder is idle", |status| {
        status["state"] == "idle"
    })
    .await;
    let_it_look(&daemon, 4).await;
    assert_eq!(recorder(&daemon).await["captures"], 0);
    assert!(screen_results(&daemon, "coursefolio").await.is_empty());

    let task_id = daemon
        .register(
            json!({"name": "Deploy coursefolio", "plan": ["Deploy to staging", "Check the site"]}),
        )
        .await;
    let first = found_with_step(&daemon, "coursefolio staging", "Ran: make deploy").await;
    assert_eq!(first["task_id"], task_id.as_str(), "{first}");
    assert_eq!(first["step"], 1, "{first}");
    assert_eq!(first["app"], "XTerm", "{first}");
    assert_eq!(recorder(&daemon).await["state"], "capturing");

    // What changes later is read from the changed region and becomes steps of the segment.
    std::fs::write(&go, "").unwrap();
    let found = found_with_step(&daemon, "coursefolio release", "Release v1.2.3").await;
    let steps = steps(&found);
    assert!(
        steps.iter().any(|s| s.ends_with("Title: deploy: done")),
        "{steps:?}"
    );
    assert!(
        steps[0].contains("Opened XTerm — deploy shell"),
        "{steps:?}"
    );
    let frames = found["frames"].as_array().unwrap();
    assert!(!frames.is_empty(), "{found}");
    for frame in frames {
        let path = PathBuf::from(frame["path"].as_str().unwrap());
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..2], [0xff, 0xd8], "a JPEG: {}", path.display());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", path.display());
    }
    let folder = Path::new(frames[0]["path"].as_str().unwrap())
        .parent()
        .unwrap();
    assert_eq!(found["video_url"], format!("file://{}", folder.display()));
    assert!(found["video_end_ms"].as_u64().unwrap() >= found["video_start_ms"].as_u64().unwrap());

    // A note the agent posts while the window is in view becomes a step when it closes.
    daemon
        .ok(
            "task_update",
            json!({"task_id": task_id, "message": "Step 1 done — v1.2.3 is on staging"}),
        )
        .await;
    let_it_look(&daemon, 3).await; // the window is still in view after the note

    // A dialog: its title and button labels are found.
    let _dialog = XClient::start(
        &display,
        "xmessage",
        &[
            "-title",
            "Confirm removal",
            "-buttons",
            "Delete forever,Keep",
            "Remove 3 old releases?",
        ],
    );
    let dialog = windows.find("Confirm removal", PATIENCE);
    windows.focus(dialog);
    let found = found_with_step(&daemon, "delete forever", "Opened").await;
    assert_eq!(found["app"], "Xmessage", "{found}");
    assert!(
        found["summary"]
            .as_str()
            .unwrap()
            .contains("Confirm removal"),
        "{found}"
    );

    // The shell's segment closed after the idle gap, with the note among its steps.
    found_with_step(
        &daemon,
        "coursefolio release",
        "Note: Step 1 done — v1.2.3 is on staging",
    )
    .await;

    // Scoped to the task, both windows; the message says screen history was searched.
    let scoped = daemon
        .ok(
            "memory_recall",
            json!({"query": "coursefolio", "task_id": task_id, "source": "screen"}),
        )
        .await;
    assert!(
        !scoped["results"].as_array().unwrap().is_empty(),
        "{scoped}"
    );
    assert!(
        scoped["message"]
            .as_str()
            .unwrap()
            .contains("of screen history (recording: tasks)"),
        "{scoped}"
    );

    // Forgetting an application removes its segments and their pictures.
    let forgotten = daemon.ok("recall.forget", json!({"app": "xterm"})).await;
    assert!(forgotten["forgotten"].as_u64().unwrap() >= 1, "{forgotten}");
    assert!(!folder.exists(), "the keyframes went with the segment");
    assert!(screen_results(&daemon, "coursefolio").await.is_empty());
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb, xterm, xmessage and tesseract"
)]
async fn excluded_windows_a_pause_a_locked_screen_and_secrets_leave_nothing_on_disk() {
    let xvfb = Xvfb::start_with(1280, 720, 24);
    let display = xvfb.display().to_owned();
    let windows = TestWindows::connect(&display);
    let daemon = start(&display, RecordMode::Always).await;
    let data = daemon.dir.path().join("data");
    let show = |title: &str, text: &str| {
        XClient::xterm(
            &display,
            title,
            "80x10+0+0",
            &format!("printf '%s\\n' '{text}'; sleep 300"),
        )
    };

    // A password manager is excluded by default.
    let _vault = show("KeePassXC - Passwords", "zebra vault entry for the bank");
    windows.focus(windows.find("KeePassXC", PATIENCE));
    recorder_until(&daemon, "the recorder pauses for privacy", |status| {
        status["state"] == "paused_privacy"
            && status["reason"].as_str().unwrap().contains("keepass")
    })
    .await;
    let_it_look(&daemon, 4).await;

    // A pause: nothing is captured while it lasts.
    let paused = daemon.ok("recall.pause", json!({"for": "1h"})).await;
    assert_eq!(paused["state"], "paused_user", "{paused}");
    assert!(
        paused["message"].as_str().unwrap().contains("paused until"),
        "{paused}"
    );
    let _paused_window = show("notes while paused", "walrus words written while paused");
    windows.focus(windows.find("notes while paused", PATIENCE));
    let_it_look(&daemon, 4).await;

    // A locked screen: nothing is captured either.
    daemon.ok("recall.resume", json!({})).await;
    windows.screen_saver(true);
    recorder_until(&daemon, "the recorder pauses while locked", |status| {
        status["state"] == "paused_locked"
    })
    .await;
    let_it_look(&daemon, 4).await;

    let kept = recall_bytes(&data);
    for private in ["zebra", "keepass", "walrus"] {
        assert!(!holds(&kept, private), "'{private}' reached the disk");
    }

    // Unlocked: the window is recorded after all, so the checks above could fail.
    windows.screen_saver(false);
    found_with_step(&daemon, "walrus", "Opened").await;
    assert!(holds(&recall_bytes(&data), "walrus"));

    // A secret on screen is redacted before it is stored, and no picture of it is kept.
    let _secret = show(
        "api setup",
        "narwhal setup: export OPENAI_API_KEY=sk-proj-Zq4abcdefghijklmnopqrstuvwx1234",
    );
    windows.focus(windows.find("api setup", PATIENCE));
    let found = found_with_step(&daemon, "narwhal", "Opened").await;
    recorder_until(&daemon, "the secret was redacted", |status| {
        status["redactions"].as_u64().unwrap() >= 1
    })
    .await;
    let found = screen_results(&daemon, "narwhal")
        .await
        .into_iter()
        .next()
        .unwrap_or(found);
    assert_eq!(found["frames"], json!([]), "{found}");
    assert!(found["video_url"].is_null(), "{found}");
    let kept = recall_bytes(&data);
    assert!(holds(&kept, "narwhal"));
    assert!(
        !holds(&kept, "abcdefghijklmnopqrstuvwx"),
        "the key reached the disk"
    );
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb, xterm, xmessage and tesseract"
)]
async fn a_model_turns_a_closed_segment_into_a_summary_and_action_steps() {
    let xvfb = Xvfb::start_with(1280, 720, 24);
    let display = xvfb.display().to_owned();
    let windows = TestWindows::connect(&display);
    // The model names the command it was shown: the steps prove what it was sent.
    let model = ModelServer::start(Wire::OpenAi, None).await;
    model.answer_with(|body| {
        let asked = body.to_string();
        let command = if asked.contains("make publish") {
            "make publish"
        } else {
            "nothing"
        };
        format!(
            "{{\"summary\": \"Published the pelican site\", \"steps\": [\
             {{\"at_s\": 0, \"action\": \"Opened a terminal in ~/pelican\"}}, \
             {{\"at_s\": 1, \"action\": \"Typed '{command}' and pressed Enter\"}}]}}"
        )
    });
    let url = model.base_url.clone();
    let x11 = display.clone();
    let daemon = TestDaemon::start_with(
        move |config| {
            config.x11.display = Some(x11);
            config.recall.mode = RecordMode::Always;
            config.recall.interval_ms = 300;
            config.recall.idle_gap_s = 2;
            config.recall.procedures = Procedures::Model;
            config.vision.backend = VisionBackend::Openai;
            config.vision.base_url = Some(url);
            config.vision.model = Some("describer".into());
        },
        None,
    )
    .await;
    let _shell = XClient::xterm(
        &display,
        "pelican shell",
        "90x20+0+0",
        "printf 'user@host:~/pelican$ make publish\\n\\nPublished 42 pages\\n'; sleep 300",
    );
    windows.focus(windows.find("pelican shell", PATIENCE));
    found_with_step(&daemon, "pelican published", "Ran: make publish").await;
    assert_eq!(model.requests(), 0, "an open segment is not described");

    // Another window takes the focus: the shell's segment closes after the idle gap and
    // the model describes it.
    let _dialog = XClient::start(&display, "xmessage", &["-title", "Done", "All set"]);
    windows.focus(windows.find("Done", PATIENCE));
    let found = found_with_step(&daemon, "pelican published", "Typed 'make publish'").await;
    assert_eq!(found["summary"], "Published the pelican site", "{found}");
    let steps = steps(&found);
    assert!(
        steps
            .iter()
            .any(|s| s.ends_with("Opened a terminal in ~/pelican")),
        "{steps:?}"
    );
    assert!(
        !steps.iter().any(|s| s.contains("Ran: make publish")),
        "{steps:?}"
    );

    // It was sent the segment's keyframes and the text read off it.
    let asked = model.seen().into_iter().next().unwrap();
    let user = &asked.body["messages"][1]["content"];
    let pictures = (user.as_array().unwrap().iter())
        .filter(|part| part["type"] == "image_url")
        .count();
    assert!(pictures >= 1, "{user}");
    assert!(
        user[0]["text"]
            .as_str()
            .unwrap()
            .contains("Published 42 pages"),
        "{user}"
    );
    let status = recorder(&daemon).await;
    assert_eq!(status["procedures"], 1, "{status}");
    assert!(status["procedure_tokens"].as_u64().unwrap() > 0, "{status}");

    // A segment forgotten while the model describes it is not put back by the answer.
    model.hold();
    windows.focus(windows.find("pelican shell", PATIENCE));
    let_it_look(&daemon, 4).await;
    windows.focus(windows.find("Done", PATIENCE));
    wait_until("the model is asked again", PATIENCE, async || {
        model.requests() == 2
    })
    .await;
    daemon.ok("recall.forget", json!({"app": "xterm"})).await;
    model.release();
    let_it_look(&daemon, 6).await;
    assert!(
        screen_results(&daemon, "pelican published")
            .await
            .is_empty()
    );
    assert_eq!(recorder(&daemon).await["procedures"], 1);
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb, xterm, xmessage and tesseract"
)]
async fn screen_history_read_before_a_kill_is_found_after_it() {
    let xvfb = Xvfb::start_with(1280, 720, 24);
    let display = xvfb.display().to_owned();
    let windows = TestWindows::connect(&display);
    let dir = tempfile::tempdir().unwrap();
    let extra =
        format!("[x11]\ndisplay = \"{display}\"\n[recall]\nmode = \"always\"\ninterval_ms = 300\n");
    let _window = XClient::xterm(
        &display,
        "release notes",
        "80x10+0+0",
        "printf '%s\\n' 'pelican release checklist signed'; sleep 300",
    );
    windows.focus(windows.find("release notes", PATIENCE));
    let daemon = DaemonProcess::start_with(dir.path(), &extra, &[]);
    let socket = daemon.socket.clone();
    let query = || async {
        let mut client = Client::connect(&socket).await.unwrap();
        let answer = ok(
            &mut client,
            "memory_recall",
            json!({"query": "pelican checklist", "source": "screen"}),
        )
        .await;
        answer["results"].as_array().unwrap().len()
    };
    wait_until("the window was read", PATIENCE, async || query().await == 1).await;
    daemon.kill();
    let daemon = DaemonProcess::start_with(dir.path(), "[recall]\nmode = \"off\"\n", &[]);
    assert_eq!(query().await, 1, "read before the kill, found after it");
    drop(daemon);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway, foot and tesseract"
)]
async fn on_wayland_the_focused_window_is_recorded_and_an_excluded_one_leaves_nothing() {
    let mut sway = HeadlessSway::start_with(1280, 720);
    let large = ["--font=monospace:size=16"];
    let shell_log = sway.shared_folder().join("shell.log");
    sway.open_terminal_with("deploy shell", &follow_script(&shell_log), &large);
    // A blank line after each: a focused terminal's block cursor right under a line's first
    // letters makes tesseract misread them.
    append(&shell_log, "Deploying coursefolio to staging\n\n");
    let display = sway.display().clone();
    let daemon = TestDaemon::start_with(
        move |config| {
            config.x11.display = None;
            config.wayland.session = lookout::config::Session::Wayland;
            config.wayland.display = Some(display.socket.to_string_lossy().into_owned());
            config.wayland.sway_socket = display.sway;
            config.recall.mode = RecordMode::Always;
            config.recall.interval_ms = 300;
            config.recall.idle_gap_s = 2;
        },
        None,
    )
    .await;

    // The focused window (foot's, activated by sway) is read and found by what it shows.
    let found = found_with_step(&daemon, "coursefolio staging", "Opened").await;
    assert_eq!(found["app"], "foot", "{found}");
    assert!(
        found["summary"].as_str().unwrap().contains("deploy shell"),
        "{found}"
    );
    let status = recorder(&daemon).await;
    assert_eq!(status["state"], "capturing", "{status}");
    assert_eq!(status["app"], "foot", "{status}");
    append(&shell_log, "Release v1.2.3 of coursefolio is live\n\n");
    found_with_step(&daemon, "coursefolio release", "Release v1.2.3").await;

    // A password manager's window takes the focus: nothing of it is recorded.
    let vault_log = sway.shared_folder().join("vault.log");
    sway.open_terminal_with("KeePassXC - Vault", &follow_script(&vault_log), &large);
    append(&vault_log, "zanzibarquokka master entry\n\n");
    recorder_until(
        &daemon,
        "the excluded window pauses the recorder",
        |status| {
            status["state"] == "paused_privacy"
                && status["reason"]
                    .as_str()
                    .is_some_and(|reason| reason.contains("keepass"))
        },
    )
    .await;
    let_it_look(&daemon, 4).await;
    assert!(
        !holds(
            &recall_bytes(&daemon.dir.path().join("data")),
            "zanzibarquokka"
        ),
        "the excluded window's text reached the disk"
    );
    assert!(screen_results(&daemon, "zanzibarquokka").await.is_empty());
    daemon.stop().await;
}
