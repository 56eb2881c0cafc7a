//! The fault-injection harness (`lookout::harness`): actor panics of every kind, storage
//! faults, crash images, model and sink faults, the invariant checks and the seeded soak.

use std::time::Duration;

use actors::ActorKind;
use lookout::harness::{Harness, soak};
use lookout::tools::spine::Method;
use serde_json::{Value, json};
use storage::{Mutation, WriteBatch};

/// No call may take longer than this, whatever fault is armed.
const CALL_LIMIT: Duration = Duration::from_secs(30);

async fn call(harness: &Harness, method: Method, params: Value) -> Result<Value, String> {
    match tokio::time::timeout(CALL_LIMIT, harness.call(method, params)).await {
        Ok(outcome) => outcome.map_err(|error| format!("{} ({})", error.message, error.hint)),
        Err(_) => panic!("{method} hung past {CALL_LIMIT:?}"),
    }
}

async fn ok(harness: &Harness, method: Method, params: Value) -> Value {
    call(harness, method, params.clone())
        .await
        .unwrap_or_else(|error| panic!("{method}({params}) failed: {error}"))
}

async fn register(harness: &Harness) -> String {
    let params = json!({"name": "Deploy coursefolio", "plan": ["Build", "Push", "Verify"]});
    ok(harness, Method::TaskRegister, params).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn wait_state(harness: &Harness, wait: &str) -> String {
    ok(harness, Method::WaitStatus, json!({"wait_id": wait})).await["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Keeps advancing the clock until `done` holds (time-driven retries and restarts need a
/// few rounds); fails after `rounds`.
async fn advance_until<F, Fut>(harness: &Harness, step: Duration, rounds: usize, done: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..rounds {
        if done().await {
            return;
        }
        harness.advance(step).await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(done().await, "not done after {rounds} rounds of {step:?}");
}

fn delivered_for(harness: &Harness, wait: &str) -> usize {
    harness
        .sink()
        .received()
        .iter()
        .filter(|event| event.wait_id.as_deref() == Some(wait))
        .count()
}

/// Every kind of actor panicking in the middle of a request: the caller gets an answer or
/// an error (never a hang), the actor is restarted from storage, and the scenario ends with
/// the wait resolved, its wake delivered once and every invariant intact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_actor_kind_panicking_mid_request_is_restarted_and_loses_nothing() {
    for kind in [
        ActorKind::Registry,
        ActorKind::Tasks,
        ActorKind::Task,
        ActorKind::Waits,
        ActorKind::Wait,
        ActorKind::Watcher,
        ActorKind::Vision,
        ActorKind::Wake,
        ActorKind::Clock,
    ] {
        let harness = Harness::start().await.unwrap();
        let task = register(&harness).await;
        let target = harness.target("tmux:build", "compiling");
        harness.faults().panic_next(kind);
        // A note, a model-judged wait and its resolution: every kind sees a message.
        let noted = call(
            &harness,
            Method::TaskUpdate,
            json!({"task_id": task, "message": "first note"}),
        )
        .await;
        // An error says "retry the call": retry as an agent would, a little later.
        let mut created = Err(String::new());
        for _ in 0..100 {
            let params =
                json!({"target": "tmux:build", "wake_when": "the build is green", "task_id": task});
            created = call(&harness, Method::SmartWait, params).await;
            if created.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let wait =
            created.unwrap_or_else(|e| panic!("{kind:?}: smart_wait kept failing: {e}"))["wait_id"]
                .as_str()
                .unwrap()
                .to_owned();
        target.show(actors::sight::content::Content::text(
            "tests pass\nthe build is green",
        ));
        advance_until(&harness, Duration::from_secs(2), 200, || async {
            call(&harness, Method::WaitStatus, json!({"wait_id": wait}))
                .await
                .is_ok_and(|status| status["status"] == "resolved")
                && delivered_for(&harness, &wait) == 1
        })
        .await;
        assert!(
            !harness.faults().is_armed(kind),
            "{kind:?}: the fault fired"
        );
        ok(
            &harness,
            Method::TaskUpdate,
            json!({"task_id": task, "message": "after the fault"}),
        )
        .await;
        let report = harness
            .check_invariants()
            .await
            .unwrap_or_else(|violations| panic!("{kind:?}: {violations}"));
        if noted.is_ok() {
            assert_eq!(report.acknowledged_notes, 2, "{kind:?}");
        }
        assert_eq!(delivered_for(&harness, &wait), 1, "{kind:?}: one wake");
        harness.shutdown().await;
    }
}

/// A failed commit is an error that says what to do, the daemon stays up, and once the
/// disk works again writes succeed; the thread stays numbered without gaps or doubles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_faults_are_errors_and_the_daemon_recovers_when_they_clear() {
    let harness = Harness::start().await.unwrap();
    let task = register(&harness).await;
    ok(
        &harness,
        Method::TaskUpdate,
        json!({"task_id": task, "message": "before"}),
    )
    .await;

    harness.storage_faults().fail_next_commits(1);
    let error = call(
        &harness,
        Method::TaskUpdate,
        json!({"task_id": task, "message": "during"}),
    )
    .await
    .unwrap_err();
    assert!(error.contains("storage failed"), "{error}");
    assert!(error.contains("may or may not be stored"), "{error}");
    ok(&harness, Method::DaemonStatus, json!({})).await;

    harness.storage_faults().fail_next_reads(1);
    let error = call(&harness, Method::TaskThread, json!({"task_id": task}))
        .await
        .unwrap_err();
    assert!(error.contains("reading storage failed"), "{error}");
    assert!(harness.storage_faults().fired() >= 2);

    ok(
        &harness,
        Method::TaskUpdate,
        json!({"task_id": task, "message": "after"}),
    )
    .await;
    let thread = ok(&harness, Method::TaskThread, json!({"task_id": task})).await;
    let contents: Vec<&str> = thread["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        contents.contains(&"before") && contents.contains(&"after"),
        "{contents:?}"
    );
    assert!(harness.store().reopens() >= 1);
    harness.check_invariants().await.unwrap();
    harness.shutdown().await;
}

/// The watchdog's liveness ping is a real storage round trip: with the disk hung in a
/// commit, the in-memory actors still answer but the ping fails (so systemd stops getting
/// `WATCHDOG=1` and restarts the daemon); once the disk answers, the ping passes again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_liveness_ping_fails_while_the_disk_hangs() {
    let harness = Harness::start().await.unwrap();
    harness.tree().ping().await.unwrap();
    harness.storage_faults().stall_commits(true);
    let error = harness.tree().ping().await.unwrap_err();
    assert!(error.message.contains("storage probe"), "{error}");
    harness.storage_faults().stall_commits(false);
    let mut answered = false;
    for _ in 0..200 {
        if harness.tree().ping().await.is_ok() {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(answered, "the ping passes once the disk answers");
    harness.shutdown().await;
}

/// The end of a wait that cannot be saved is not lost: the wait actor fails, is resumed
/// from storage, and ends again once the disk works; the agent is woken exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_whose_end_cannot_be_saved_ends_again_and_wakes_once() {
    let harness = Harness::start().await.unwrap();
    let task = register(&harness).await;
    let target = harness.target("tmux:deploy", "deploying");
    let wait = ok(
        &harness,
        Method::SmartWait,
        json!({"target": "tmux:deploy", "wake_when": "'DEPLOYED'", "task_id": task}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    harness.storage_faults().fail_next_commits(1);
    target.show(actors::sight::content::Content::text("DEPLOYED v2"));
    advance_until(&harness, Duration::from_secs(2), 200, || async {
        wait_state(&harness, &wait).await == "resolved" && delivered_for(&harness, &wait) == 1
    })
    .await;
    assert_eq!(harness.storage_faults().fired(), 1);
    harness.advance(Duration::from_secs(30)).await.unwrap();
    assert_eq!(delivered_for(&harness, &wait), 1);
    harness.check_invariants().await.unwrap();
    harness.shutdown().await;
}

/// Power loss: everything acknowledged survives the crash image, live waits resume and
/// resolve, and the invariants hold on the reopened file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_image_keeps_every_acknowledged_write_and_waits_resume() {
    let mut harness = Harness::start().await.unwrap();
    let target = harness.target("tmux:tests", "running");
    let mut waits = Vec::new();
    for n in 0..3 {
        let task = register(&harness).await;
        for m in 0..5 {
            let note = format!("task {n} note {m}");
            ok(
                &harness,
                Method::TaskUpdate,
                json!({"task_id": task, "message": note}),
            )
            .await;
        }
        let wait = ok(
            &harness,
            Method::SmartWait,
            json!({"target": "tmux:tests", "wake_when": format!("'PASS {n}'"), "task_id": task}),
        )
        .await;
        waits.push(wait["wait_id"].as_str().unwrap().to_owned());
    }
    harness.crash().await.unwrap();
    assert_eq!(harness.boots(), 2);
    let report = harness.check_invariants().await.unwrap();
    assert_eq!(
        (report.tasks, report.acknowledged_notes, report.live_waits),
        (3, 15, 3)
    );
    // Fewer writes than a checkpoint's worth: the file was cut back to its state at the start,
    // and the acknowledged writes came back from the write journal.
    let status = ok(&harness, Method::DaemonStatus, json!({})).await;
    let replayed = status["storage"]["replayed_writes"].as_u64().unwrap();
    assert!(replayed >= 15, "{replayed} writes replayed: {status}");
    target.show(actors::sight::content::Content::text(
        "PASS 0\nPASS 1\nPASS 2",
    ));
    advance_until(&harness, Duration::from_secs(2), 100, || async {
        let mut all = true;
        for wait in &waits {
            all &= wait_state(&harness, wait).await == "resolved"
                && delivered_for(&harness, wait) == 1;
        }
        all
    })
    .await;
    harness.check_invariants().await.unwrap();
    harness.shutdown().await;
}

/// A sink that fails is retried until it delivers; one that hangs holds up nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_or_hanging_sink_delays_delivery_and_nothing_else() {
    let harness = Harness::start().await.unwrap();
    let target = harness.target("tmux:job", "working");
    harness.sink().fail_next(3);
    let wait = ok(
        &harness,
        Method::SmartWait,
        json!({"target": "tmux:job", "wake_when": "'FINISHED'"}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    target.show(actors::sight::content::Content::text("FINISHED"));
    advance_until(&harness, Duration::from_secs(5), 200, || async {
        delivered_for(&harness, &wait) == 1
    })
    .await;
    assert!(harness.sink().attempts() >= 4);

    harness.sink().hang(Some(Duration::from_secs(2)));
    let target = harness.target("tmux:job2", "working");
    let wait = ok(
        &harness,
        Method::SmartWait,
        json!({"target": "tmux:job2", "wake_when": "'FINISHED'"}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    target.show(actors::sight::content::Content::text("FINISHED"));
    harness.clock().advance(Duration::from_secs(3));
    harness.tree().tick().await.unwrap();
    // While the sink hangs, calls are answered.
    let task = register(&harness).await;
    ok(
        &harness,
        Method::TaskUpdate,
        json!({"task_id": task, "message": "still served"}),
    )
    .await;
    harness.sink().hang(None);
    advance_until(&harness, Duration::from_secs(5), 200, || async {
        delivered_for(&harness, &wait) == 1
    })
    .await;
    harness.check_invariants().await.unwrap();
    harness.shutdown().await;
}

/// The checks can fail: a task naming a wait that does not exist is reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_invariant_checks_report_what_is_broken() {
    let harness = Harness::start().await.unwrap();
    let task = register(&harness).await;
    let mut record = harness
        .store()
        .task(&storage::TaskId::new(&task))
        .unwrap()
        .unwrap();
    record.active_wait_ids.push("w-ghost1".into());
    let mut batch = WriteBatch::new();
    batch.push(Mutation::PutTask(record));
    harness.store().apply(&[batch]).unwrap();
    let violations = harness.check_invariants().await.unwrap_err();
    assert!(
        violations
            .to_string()
            .contains("w-ghost1, which does not exist"),
        "{violations}"
    );
    harness.shutdown().await;
}

/// Random operations and faults from a seed, invariants checked every 25 steps. The seeds
/// come from `LOOKOUT_SOAK_SEED` (one) or are 1, 2 and 3; `LOOKOUT_SOAK_STEPS` sets the
/// length (300). A failure prints its seed and how to replay it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak() {
    let seeds: Vec<u64> = match std::env::var("LOOKOUT_SOAK_SEED") {
        Ok(seed) => vec![seed.parse().expect("LOOKOUT_SOAK_SEED is a number")],
        Err(_) => vec![1, 2, 3],
    };
    let steps = std::env::var("LOOKOUT_SOAK_STEPS")
        .ok()
        .and_then(|steps| steps.parse().ok())
        .unwrap_or(300);
    for seed in seeds {
        match soak::soak(seed, steps).await {
            Ok(report) => println!("soak: {report:?}"),
            Err(failure) => panic!("{failure}"),
        }
    }
}

/// A model that answers garbage ends the wait in `error` after the configured failures in
/// a row, with one wake that quotes what went wrong; a model that fails now and then
/// (a 5xx, a timeout) is retried and its answer resolves the wait. Neither holds up the
/// daemon: every tick returns while a retry waits for the clock; a slow answer is waited for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_garbage_ends_in_an_error_wake_failures_are_retried_and_slow_answers_awaited() {
    use lookout::harness::Reply;
    let harness = Harness::start().await.unwrap();
    let task = register(&harness).await;
    let build = harness.target("tmux:build", "compiling");
    for _ in 0..5 {
        harness
            .model()
            .push(Reply::Garbage("I think it is probably fine?".to_owned()));
    }
    let params =
        json!({"target": "tmux:build", "wake_when": "the build is green", "task_id": task});
    let garbled = ok(&harness, Method::SmartWait, params).await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The model judges what arrives after the wait began.
    build.show(actors::sight::content::Content::text("compiling\nlinking"));
    advance_until(&harness, Duration::from_secs(3), 60, || async {
        wait_state(&harness, &garbled).await != "watching"
    })
    .await;
    assert_eq!(wait_state(&harness, &garbled).await, "error");
    assert_eq!(
        harness.model().asked(),
        5,
        "one question per failure in a row"
    );
    let wakes: Vec<_> = harness
        .sink()
        .received()
        .into_iter()
        .filter(|event| event.wait_id.as_deref() == Some(garbled.as_str()))
        .collect();
    assert_eq!(wakes.len(), 1, "one error wake: {wakes:?}");
    assert!(
        wakes[0].text.contains("5 judge failures in a row"),
        "the wake says what failed: {}",
        wakes[0].text
    );

    let deploy = harness.target("tmux:deploy", "deploying");
    harness
        .model()
        .push(Reply::Transient("HTTP 503 from the provider".to_owned()));
    harness.model().push(Reply::Timeout);
    harness.model().push(Reply::Answer {
        met: true,
        observation: "the deploy finished".to_owned(),
    });
    let params =
        json!({"target": "tmux:deploy", "wake_when": "the deploy finished", "task_id": task});
    let retried = ok(&harness, Method::SmartWait, params).await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    deploy.show(actors::sight::content::Content::text("deploy: done"));
    advance_until(&harness, Duration::from_secs(3), 60, || async {
        wait_state(&harness, &retried).await != "watching"
    })
    .await;
    let status = ok(&harness, Method::WaitStatus, json!({"wait_id": retried})).await;
    assert_eq!(status["status"], "resolved", "{status}");
    assert_eq!(
        harness.model().asked(),
        5 + 3,
        "two retries, then the answer"
    );
    assert_eq!(delivered_for(&harness, &retried), 1);

    // A slow model is waited for by the tick that asked it: the move of the clock that
    // set the question off returns with the answer recorded.
    let release = harness.target("tmux:release", "tagging");
    let params =
        json!({"target": "tmux:release", "wake_when": "the release is out", "task_id": task});
    let slow = ok(&harness, Method::SmartWait, params).await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    harness.model().push(Reply::Delayed(
        Duration::from_millis(300),
        Box::new(Reply::Answer {
            met: true,
            observation: "the release is out".to_owned(),
        }),
    ));
    release.show(actors::sight::content::Content::text(
        "release v2 published",
    ));
    let asked = harness.model().asked();
    for _ in 0..20 {
        harness.advance(Duration::from_secs(3)).await.unwrap();
        if harness.model().asked() > asked {
            break;
        }
    }
    assert_eq!(
        harness.model().asked(),
        asked + 1,
        "the slow model was asked"
    );
    assert_eq!(
        wait_state(&harness, &slow).await,
        "resolved",
        "the tick waited for the slow answer"
    );
    harness.check_invariants().await.unwrap();
    harness.shutdown().await;
}

/// Pixel frames through the whole pipeline: a `window:` wait on a scripted source gets a
/// frame, then a changed one; the pixel gate lets the settled change through to the model,
/// whose answer resolves the wait with one wake. A panicking Watcher on the way loses nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pixel_frames_reach_the_model_through_the_gate() {
    use actors::sight::content::{Content, Frame};
    use lookout::harness::Reply;
    let solid = |shade: u8| Content::Frame(Frame::new(64, 48, vec![shade; 64 * 48 * 4]));
    let harness = Harness::start().await.unwrap();
    let task = register(&harness).await;
    let installer = harness.target("window:Installer", "");
    installer.show(solid(40));
    let params = json!({"target": "window:Installer", "wake_when": "the installer finishes", "task_id": task});
    let wait = ok(&harness, Method::SmartWait, params).await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    harness.faults().panic_next(ActorKind::Watcher);
    advance_until(&harness, Duration::from_secs(2), 30, || async {
        !harness.faults().is_armed(ActorKind::Watcher)
    })
    .await;
    harness.model().push(Reply::Answer {
        met: true,
        observation: "the installer says Finished".to_owned(),
    });
    installer.show(solid(200));
    advance_until(&harness, Duration::from_secs(2), 100, || async {
        wait_state(&harness, &wait).await != "watching"
    })
    .await;
    let status = ok(&harness, Method::WaitStatus, json!({"wait_id": wait})).await;
    assert_eq!(status["status"], "resolved", "{status}");
    assert!(
        status.to_string().contains("the installer says Finished"),
        "{status}"
    );
    assert_eq!(delivered_for(&harness, &wait), 1);
    harness.check_invariants().await.unwrap();
    harness.shutdown().await;
}

/// A restart with waits whose deadlines passed while the daemon was down serves at once:
/// even with the disk unable to commit, the tree starts and answers, and the overdue waits
/// time out (each waking once) as soon as the disk takes their ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_serves_first_and_settles_overdue_waits_behind() {
    let mut harness = Harness::start().await.unwrap();
    let task = register(&harness).await;
    // What a start syncs with nothing to settle (redb's open, the schema check).
    harness.stop().await;
    let before = harness.storage_faults().syncs();
    harness.start_again().await.unwrap();
    let start_syncs = u32::try_from(harness.storage_faults().syncs() - before).unwrap();
    let mut waits = Vec::new();
    for n in 0..20 {
        let target = format!("tmux:build-{n}");
        let _source = harness.target(&target, "compiling");
        let wait = ok(
            &harness,
            Method::SmartWait,
            json!({"target": target, "wake_when": "'DONE'", "timeout": 60, "task_id": task}),
        )
        .await;
        waits.push(wait["wait_id"].as_str().unwrap().to_owned());
    }
    harness.stop().await;
    harness.clock().advance(Duration::from_secs(3600));
    harness.storage_faults().stall_commits_after(start_syncs);
    let started = tokio::time::timeout(Duration::from_secs(20), harness.start_again()).await;
    if !matches!(started, Ok(Ok(()))) {
        harness.storage_faults().stall_commits(false);
        panic!("the daemon did not start while the overdue waits could not be saved");
    }
    let listed = tokio::time::timeout(
        Duration::from_secs(20),
        ok(&harness, Method::TaskList, json!({"status": "all"})),
    )
    .await;
    let Ok(listed) = listed else {
        harness.storage_faults().stall_commits(false);
        panic!("no read was answered while the overdue waits waited for the disk");
    };
    assert!(listed.to_string().contains(&task), "{listed}");
    assert!(
        waits.iter().all(|wait| delivered_for(&harness, wait) == 0),
        "nothing is delivered before its end is saved"
    );
    harness.storage_faults().stall_commits(false);
    advance_until(&harness, Duration::from_secs(1), 200, || async {
        waits.iter().all(|wait| delivered_for(&harness, wait) == 1)
    })
    .await;
    for wait in &waits {
        assert_eq!(wait_state(&harness, wait).await, "timeout");
    }
    harness.check_invariants().await.unwrap();
    harness.shutdown().await;
}
