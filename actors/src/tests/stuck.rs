//! Stuck detection on the ManualClock: docs/contract.md §5 (stuck after idle with no live wait, terminal tasks ignored, one alert per cooldown), overrides,
//! activity and the scan itself.

use std::sync::Arc;
use std::time::Duration;

use storage::{EventKind, MsgType, Status};

use super::{Fixture, deploy_request, eventually, note, query};
use crate::tasks::resume::ENVELOPE;
use crate::tasks::stuck::StuckPolicy;
use crate::tasks::types::{Metadata, UpdateTask};
use crate::wake::sinks::{RecordingSink, SinkSpec};

const MINUTE: Duration = Duration::from_secs(60);

/// The defaults (threshold 300 s, scans every 60 s, cooldown 600 s) and a recording sink.
async fn fixture() -> (Fixture, Arc<RecordingSink>) {
    let sink = RecordingSink::new("recorder");
    let custom = sink.clone();
    let fixture =
        Fixture::start(move |args| args.wake.sinks = vec![SinkSpec::Custom(custom)]).await;
    (fixture, sink)
}

async fn alerts(fixture: &Fixture) -> u64 {
    fixture.tree.status().await.unwrap().tasks.stuck_alerts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acceptance_2_one_alert_with_a_resume_packet_after_idle() {
    let (fixture, sink) = fixture().await;
    let task = fixture.tree.register_task(deploy_request()).await.unwrap();
    fixture
        .tree
        .update_task(task.id.clone(), note("Step 1 done — built image"))
        .await
        .unwrap();
    for _ in 0..4 {
        fixture.advance(MINUTE).await;
    }
    assert_eq!(alerts(&fixture).await, 0, "idle 4 minutes is not stuck");
    fixture.advance(MINUTE).await;
    assert_eq!(alerts(&fixture).await, 1, "idle 5 minutes is");

    let thread = fixture
        .tree
        .thread(task.id.clone(), 10, None)
        .await
        .unwrap();
    let (_, last) = thread.messages.last().unwrap();
    assert_eq!(last.msg_type, MsgType::Stuck);
    assert_eq!(
        last.content,
        "Task appears stuck: no updates for 5 minutes and no active wait"
    );

    eventually("the alert reaches the sink", async || {
        sink.received().len() == 1
    })
    .await;
    let event = &sink.received()[0];
    assert_eq!(event.kind, EventKind::TaskStuck);
    assert_eq!(event.task_id.as_ref(), Some(&task.id));
    assert_eq!(event.session_key.as_deref(), Some("agent:main:main"));
    let packet: serde_json::Value =
        serde_json::from_str(event.text.strip_prefix(ENVELOPE).expect("the envelope")).unwrap();
    assert_eq!(packet["task_id"], task.id.as_str());
    assert_eq!(packet["progress"]["completed"], serde_json::json!([1]));
    assert_eq!(
        packet["reason"],
        "no updates for 5 minutes and no active wait"
    );
    assert!(
        packet["suggested_next_action"]
            .as_str()
            .unwrap()
            .starts_with("Resume step 2, Push to registry.")
    );

    // The alert is not activity: the task's last update did not move.
    let report = fixture
        .tree
        .update_task(task.id.clone(), query("where am I?"))
        .await
        .unwrap();
    assert_eq!(report.task.updated_at.to_rfc3339(), "2026-02-13T17:00:00Z");
    // More scans inside the cooldown add nothing.
    fixture.advance(MINUTE).await;
    assert_eq!(alerts(&fixture).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acceptance_3_terminal_and_paused_tasks_are_never_alerted() {
    let (fixture, sink) = fixture().await;
    for status in [
        Status::Completed,
        Status::Failed,
        Status::Cancelled,
        Status::Paused,
    ] {
        let id = fixture
            .tree
            .register_task(deploy_request())
            .await
            .unwrap()
            .id;
        let request = UpdateTask {
            status: Some(status),
            ..UpdateTask::default()
        };
        fixture.tree.update_task(id, request).await.unwrap();
    }
    for _ in 0..30 {
        fixture.advance(MINUTE).await;
    }
    assert_eq!(alerts(&fixture).await, 0);
    assert_eq!(sink.attempts(), 0);
    assert!(fixture.tree.status().await.unwrap().tasks.stuck_scans >= 29);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acceptance_6_no_second_alert_inside_the_cooldown_one_after_it() {
    let (fixture, sink) = fixture().await;
    fixture.tree.register_task(deploy_request()).await.unwrap();
    for _ in 0..5 {
        fixture.advance(MINUTE).await;
    }
    assert_eq!(alerts(&fixture).await, 1, "first alert at 5 minutes");
    for _ in 0..9 {
        fixture.advance(MINUTE).await;
    }
    assert_eq!(
        alerts(&fixture).await,
        1,
        "nothing again inside the 10-minute cooldown"
    );
    fixture.advance(MINUTE).await;
    assert_eq!(alerts(&fixture).await, 2, "one again once it is over");
    eventually("both alerts delivered", async || sink.received().len() == 2).await;
    let seqs: Vec<u64> = sink.received().iter().map(|e| e.seq).collect();
    assert!(seqs[0] < seqs[1], "{seqs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn activity_resets_the_idle_time_and_a_task_may_set_its_own_threshold() {
    let (fixture, _sink) = fixture().await;
    let busy = fixture
        .tree
        .register_task(deploy_request())
        .await
        .unwrap()
        .id;
    let mut quick = deploy_request();
    quick.metadata = Metadata::new(&serde_json::json!({"stuck_threshold_s": 30})).unwrap();
    let quick = fixture.tree.register_task(quick).await.unwrap();
    assert_eq!(quick.stuck_threshold_s, Some(30));

    fixture.advance(MINUTE).await;
    let first = fixture
        .tree
        .status()
        .await
        .unwrap()
        .tasks
        .last_scan
        .unwrap();
    assert_eq!(
        first.alerts.len(),
        1,
        "the 30-second task is stuck after a minute"
    );

    for _ in 0..4 {
        fixture.advance(MINUTE).await;
        fixture
            .tree
            .update_task(busy.clone(), note("still compiling"))
            .await
            .unwrap();
    }
    fixture.advance(MINUTE).await;
    let status = fixture.tree.status().await.unwrap();
    assert_eq!(
        status.tasks.stuck_alerts, 1,
        "a task updated every minute is never stuck"
    );

    let error = Metadata::new(&serde_json::json!({"stuck_threshold_s": 0})).unwrap_err();
    assert!(error.hint.contains("whole number of seconds"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_policy_never_scans_and_a_direct_scan_reports() {
    let fixture = Fixture::start(|args| {
        args.tasks.stuck = StuckPolicy {
            enabled: false,
            ..StuckPolicy::default()
        }
    })
    .await;
    let id = fixture
        .tree
        .register_task(deploy_request())
        .await
        .unwrap()
        .id;
    for _ in 0..20 {
        fixture.advance(MINUTE).await;
    }
    assert_eq!(fixture.tree.status().await.unwrap().tasks.stuck_scans, 0);
    // An explicit scan still applies the rule (the daemon never runs one when disabled).
    let report = fixture.tree.scan_stuck().await.unwrap();
    assert_eq!((report.candidates, report.alerts.len()), (1, 1));
    let thread = fixture.tree.thread(id, 5, None).await.unwrap();
    assert_eq!(thread.messages.last().unwrap().1.msg_type, MsgType::Stuck);
}
