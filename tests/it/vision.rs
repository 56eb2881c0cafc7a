//! `[vision]` end to end: the daemon resolves the config into a judge that reaches a
//! loopback chat-completions server, a text wait whose condition no phrase decides is judged
//! by that model, and `daemon.status` and `wait_status` report what judging cost; a missing
//! key variable stops the real binary at start with a message naming it.

use std::time::Duration;

use actors::condition::judge::{Judge, JudgeRequest};
use actors::sight::content::{Content, Frame};
use actors::testkit::model_server::{ModelServer, Wire};
use lookout::config::VisionBackend;
use serde_json::json;

use crate::support::{DaemonProcess, TestDaemon, wait_until, wait_with_timeout};

/// A chat-completions server (the test kit's loopback model server) that answers every
/// request with a fenced "met" verdict ("the installer says Finished").
pub async fn chat_server() -> (String, ModelServer) {
    chat_server_saying(
        "```json\n{\"met\": true, \"observation\": \"the installer says Finished\"}\n```",
    )
    .await
}

/// A chat-completions server whose model says `said` to every request.
pub async fn chat_server_saying(said: &str) -> (String, ModelServer) {
    let server = ModelServer::start(Wire::OpenAi, None).await;
    let said = said.to_owned();
    server.answer_with(move |_| said.clone());
    (server.base_url.clone(), server)
}

#[tokio::test]
async fn a_configured_backend_judges_and_daemon_status_counts_it() {
    let (url, model) = chat_server().await;
    let daemon = TestDaemon::start_with(
        |config| {
            config.vision.backend = VisionBackend::Openai;
            config.vision.base_url = Some(url.clone());
            config.vision.model = Some("llava".into());
        },
        None,
    )
    .await;
    let judge = daemon.tree().judge();
    let frame = Frame::new(64, 48, vec![90u8; 64 * 48 * 4]);
    let verdict = judge
        .judge(JudgeRequest {
            wait_id: "w-installer".into(),
            condition: "the installer finishes".into(),
            target: "window:Installer".into(),
            content: Content::Frame(frame),
            elapsed: Duration::from_secs(12),
            progress: Default::default(),
        })
        .await
        .unwrap();
    assert!(verdict.met);
    assert_eq!(verdict.observation, "the installer says Finished");
    assert_eq!(model.requests(), 1);

    let status = daemon.ok("daemon.status", json!({})).await;
    let vision = &status["vision"];
    assert_eq!(vision["backend"], format!("openai llava at {url}"));
    assert_eq!(vision["calls"], 1);
    assert_eq!(vision["failures"], 0);
    let (input_tokens, output_tokens) = model.reported_tokens();
    assert!(input_tokens > 0 && output_tokens > 0);
    assert_eq!(vision["input_tokens"], input_tokens);
    assert_eq!(vision["output_tokens"], output_tokens);
    assert_eq!(vision["max_concurrency"], 2);
    assert_eq!(vision["queued"], 0);
    let usage = daemon.tree().vision_usage("w-installer").unwrap();
    assert_eq!((usage.calls, usage.input_tokens), (1, input_tokens));
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_model_judges_a_text_wait_that_no_phrase_decides() {
    let (url, model) = chat_server().await;
    let daemon = TestDaemon::start_with(
        |config| {
            config.vision.backend = VisionBackend::Openai;
            config.vision.base_url = Some(url.clone());
            config.vision.model = Some("qwen2.5".into());
            config.vision.min_interval_s = 0;
        },
        None,
    )
    .await;
    let log = daemon.dir.path().join("install.log");
    std::fs::write(&log, "reading package lists\n").unwrap();
    // No quoted phrase and no exit clause: only a model can decide this one.
    let condition = "the log shows the installation succeeded";
    let created = daemon
        .ok(
            "smart_wait",
            json!({"target": format!("file:{}", log.display()), "wake_when": condition,
                   "poll_interval": 0.2, "timeout": 60}),
        )
        .await;
    let message = created["message"].as_str().unwrap();
    assert!(!message.contains("No model"), "{message}");
    let wait_id = created["wait_id"].as_str().unwrap().to_owned();
    // What was there before the wait is not news: the model is asked once the installer
    // writes something, and sees what it wrote.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(model.requests(), 0);
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(
        &mut file,
        b"unpacking 3 packages\nsetting up nginx (1.24.0)\n",
    )
    .unwrap();

    wait_until(
        "the model's verdict wakes the agent",
        Duration::from_secs(20),
        async || daemon.sink.received().len() == 1,
    )
    .await;
    let text = daemon.sink.received()[0].text.clone();
    assert!(
        text.starts_with(&format!(
            "smart_wait resolved ({wait_id}): the installer says Finished. Elapsed: "
        )),
        "{text}"
    );
    let bodies = model.bodies();
    assert_eq!(bodies.len(), 1, "one settled text, one model call");
    let request: serde_json::Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(request["model"], "qwen2.5");
    let asked = request.to_string();
    assert!(asked.contains("setting up nginx (1.24.0)"), "{asked}");
    assert!(!asked.contains("reading package lists"), "{asked}");
    assert!(asked.contains(condition), "{asked}");

    let status = daemon.ok("wait_status", json!({"wait_id": wait_id})).await;
    assert_eq!(status["status"], "resolved");
    let counters = &status["counters"];
    assert_eq!(
        (
            counters["judge_calls"].as_u64(),
            counters["input_tokens"].as_u64(),
            counters["output_tokens"].as_u64()
        ),
        (
            Some(1),
            Some(model.reported_tokens().0),
            Some(model.reported_tokens().1)
        ),
        "{status}"
    );
    daemon.stop().await;
}

#[tokio::test]
async fn without_a_vision_config_the_status_says_none() {
    let daemon = TestDaemon::start().await;
    let status = daemon.ok("daemon.status", json!({})).await;
    assert!(
        status["vision"]["backend"]
            .as_str()
            .unwrap()
            .starts_with("none"),
        "{status}"
    );
    assert_eq!(status["vision"]["calls"], 0);
    daemon.stop().await;
}

#[test]
fn a_missing_key_variable_stops_the_start_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let extra = "[vision]\nbackend = \"anthropic\"\nmodel = \"claude-haiku-4-5\"\n\
                 api_key_env = \"LOOKOUT_IT_UNSET_VISION_KEY\"\n";
    let mut daemon = DaemonProcess::spawn(dir.path(), extra, &[]);
    let status = wait_with_timeout(&mut daemon.child, Duration::from_secs(20));
    assert!(!status.success());
    let log = daemon.log_text();
    assert!(
        log.contains("environment variable LOOKOUT_IT_UNSET_VISION_KEY, which is not set"),
        "{log}"
    );
}
