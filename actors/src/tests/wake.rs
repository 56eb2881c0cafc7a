//! Durable delivery on the ManualClock: retries in order, dead letters, refusals, a crashed
//! Wake actor, live subscribers.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use storage::{DeliveryOutcome, EventKind};

use super::{Fixture, deploy_request, eventually};
use crate::ActorKind;
use crate::tasks::stuck::StuckPolicy;
use crate::wake::sinks::{RecordingSink, SinkSpec};

/// Stuck after 300 s, cooldown 600 s, and no scan unless the test asks for one.
async fn fixture(max_attempts: u32) -> (Fixture, Arc<RecordingSink>) {
    let sink = RecordingSink::new("recorder");
    let custom = sink.clone();
    let fixture = Fixture::start(move |args| {
        args.wake.sinks = vec![SinkSpec::Custom(custom)];
        args.wake.max_delivery_attempts = max_attempts;
        args.tasks.stuck = StuckPolicy {
            scan_interval: Duration::from_secs(100_000),
            ..StuckPolicy::default()
        };
    })
    .await;
    (fixture, sink)
}

/// Waits until every event's delivery is recorded.
async fn until_nothing_pending(fixture: &Fixture, what: &str) {
    eventually(what, async || {
        fixture
            .tree
            .status()
            .await
            .is_ok_and(|status| status.store.events_pending == 0)
    })
    .await;
}

/// Moves the clock, scans (the way to raise alerts on demand) and lets every delivery
/// attempt this sets off finish.
async fn alert_after(fixture: &Fixture, idle: Duration) -> Vec<u64> {
    fixture.clock.advance(idle);
    let alerts = fixture.tree.scan_stuck().await.unwrap().alerts;
    fixture.tree.settle().await.unwrap();
    alerts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_sink_gets_every_event_in_order_once_it_recovers() {
    let (fixture, sink) = fixture(20).await;
    let a = fixture
        .tree
        .register_task(deploy_request())
        .await
        .unwrap()
        .id;
    let b = fixture
        .tree
        .register_task(deploy_request())
        .await
        .unwrap()
        .id;
    sink.fail_next(4);
    let first = alert_after(&fixture, Duration::from_secs(301)).await;
    assert_eq!(sink.attempts(), 2, "both first attempts failed");
    let second = alert_after(&fixture, Duration::from_secs(601)).await;
    assert_eq!((first.len(), second.len()), (2, 2));
    assert_eq!(
        sink.attempts(),
        4,
        "the retries came due; the later alerts wait behind them"
    );
    assert!(sink.received().is_empty());
    for _ in 0..5 {
        fixture.advance(Duration::from_secs(1)).await;
    }
    assert_eq!(sink.received().len(), 4);

    let received = sink.received();
    let mut per_task: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for event in &received {
        per_task
            .entry(event.task_id.clone().unwrap().to_string())
            .or_default()
            .push(event.seq);
    }
    for (task, seqs) in &per_task {
        assert!(
            seqs.windows(2).all(|pair| pair[0] < pair[1]),
            "task {task} out of order: {seqs:?}"
        );
        assert_eq!(seqs.len(), 2, "task {task}: each alert once");
    }
    assert_eq!(per_task.len(), 2, "{a} and {b}");
    assert_eq!(
        sink.attempts(),
        4 + 4,
        "four failures, four deliveries, nothing twice"
    );

    let status = fixture.tree.status().await.unwrap();
    assert_eq!(
        (
            status.wake.pending,
            status.wake.delivered,
            status.wake.failed_attempts
        ),
        (0, 4, 4)
    );
    assert_eq!(status.store.events_pending, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_max_attempts_an_event_is_dead_and_counted() {
    let (fixture, sink) = fixture(3).await;
    fixture.tree.register_task(deploy_request()).await.unwrap();
    sink.fail_next(1000);
    alert_after(&fixture, Duration::from_secs(301)).await;
    assert_eq!(sink.attempts(), 1);
    for _ in 0..10 {
        fixture.advance(Duration::from_secs(2)).await;
    }
    assert_eq!(sink.attempts(), 3, "no attempt after the last one");
    let status = fixture.tree.status().await.unwrap();
    assert_eq!(
        (
            status.wake.dead,
            status.store.dead_deliveries,
            status.store.events_pending
        ),
        (1, 1, 0)
    );
    let events = fixture.tree.recent_events(10).await.unwrap();
    assert!(matches!(
        events[0].deliveries[0].outcome,
        DeliveryOutcome::Dead { .. }
    ));
    assert!(events[0].settled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_is_recorded_and_not_retried() {
    let (fixture, sink) = fixture(20).await;
    fixture.tree.register_task(deploy_request()).await.unwrap();
    sink.refuse(true);
    alert_after(&fixture, Duration::from_secs(301)).await;
    assert_eq!(sink.attempts(), 1);
    for _ in 0..10 {
        fixture.advance(Duration::from_secs(5)).await;
    }
    assert_eq!(sink.attempts(), 1);
    let status = fixture.tree.status().await.unwrap();
    assert_eq!(
        (status.wake.rejected, status.store.rejected_deliveries),
        (1, 1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_events_survive_a_crashed_wake_actor() {
    let (fixture, sink) = fixture(20).await;
    fixture.tree.register_task(deploy_request()).await.unwrap();
    sink.fail_next(1);
    let alerts = alert_after(&fixture, Duration::from_secs(301)).await;
    assert_eq!(sink.attempts(), 1);
    fixture.tree.faults().panic_next(ActorKind::Wake);
    // The retry timer's pump is the message that crashes it.
    fixture.clock.advance(Duration::from_secs(1));
    fixture.tree.tick().await.unwrap();
    eventually("the successor reloads and delivers", async || {
        sink.received().len() == 1
    })
    .await;
    assert_eq!(sink.received()[0].seq, alerts[0]);
    // The sink has it; the outcome is recorded right after.
    until_nothing_pending(&fixture, "the delivery is recorded").await;
    let status = fixture.tree.status().await.unwrap();
    assert_eq!(status.restarts.get("wake actor"), Some(&1));
}

/// A Wake actor that crashes while an attempt hangs: its successor keeps off that event
/// until the attempt ends, then records the attempt's outcome; the sink sees it once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_wake_actor_never_attempts_an_event_twice_at_once() {
    let (fixture, sink) = fixture(20).await;
    fixture.tree.register_task(deploy_request()).await.unwrap();
    sink.hang(Some(Duration::from_millis(1500)));
    fixture.clock.advance(Duration::from_secs(301));
    fixture.tree.scan_stuck().await.unwrap();
    eventually("the attempt runs", async || sink.attempts() == 1).await;
    fixture.tree.faults().panic_next(ActorKind::Wake);
    let _ = fixture.tree.status().await; // the message that crashes it
    eventually("the successor serves", async || {
        fixture
            .tree
            .status()
            .await
            .is_ok_and(|status| status.restarts.get("wake actor") == Some(&1))
    })
    .await;
    // The successor reloaded the pending event; its pump must not start it again.
    fixture.clock.advance(Duration::from_secs(1));
    fixture.tree.tick().await.unwrap();
    assert_eq!(sink.attempts(), 1, "attempted again while the first ran");
    until_nothing_pending(&fixture, "the first attempt's outcome is recorded").await;
    assert_eq!((sink.attempts(), sink.received().len()), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribers_see_each_new_event_and_no_sinks_settle_at_once() {
    let fixture = Fixture::start(|_| {}).await;
    let mut events = fixture.tree.subscribe();
    fixture.tree.register_task(deploy_request()).await.unwrap();
    fixture.clock.advance(Duration::from_secs(301));
    let report = fixture.tree.scan_stuck().await.unwrap();
    let event = tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (event.seq, event.kind),
        (report.alerts[0], EventKind::TaskStuck)
    );
    assert_eq!(event.to_json()["id"], format!("e-{:06}", event.seq));
    eventually("settled without sinks", async || {
        fixture.tree.status().await.unwrap().store.events_pending == 0
    })
    .await;
}
