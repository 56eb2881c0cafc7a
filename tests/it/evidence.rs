//! Progress with evidence, through the socket of a real daemon: a step proven by a terminal
//! session that exited 0 and one proven by a wait that resolved read `verified` with what
//! proved them, after a restart too; a step marked by a note reads `claimed`; a session
//! that fails and a wait that times out post a blocker on their step and mark nothing; and
//! completing the task names the steps that rest on the agent's word.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{TestDaemon, all_message_contents, append, ok, wait_until};

const PATIENCE: Duration = Duration::from_secs(20);

fn plan_entry(task: &Value, step: usize) -> Value {
    task["plan"][step - 1].clone()
}

async fn task_get(client: &mut lookout::client::Client, id: &str) -> Value {
    ok(client, "task_get", json!({"task_id": id})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steps_proven_by_a_session_and_a_wait_read_verified_and_notes_read_claimed() {
    let daemon = TestDaemon::start().await;
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("deploy.log");
    std::fs::write(&log, "").unwrap();
    let id = daemon
        .register(json!({
            "name": "Release coursefolio",
            "plan": ["Build", "Deploy", "Write the changelog", "Run the smoke test", "Tag"],
        }))
        .await;
    let mut client = daemon.client().await;

    // Step 1: a session that exits 0 proves it.
    let started = ok(
        &mut client,
        "term_start",
        json!({"command": "echo built image v1.2.3", "task_id": id, "step": 1}),
    )
    .await;
    let session = started["session_id"].as_str().unwrap().to_owned();
    assert!(
        started["message"]
            .as_str()
            .unwrap()
            .contains(&format!("It works for step 1 of {id}")),
        "{started}"
    );
    wait_until("the session's exit proves step 1", PATIENCE, async || {
        plan_entry(&task_get(&mut client, &id).await, 1)["evidence"] == "verified"
    })
    .await;
    let task = task_get(&mut client, &id).await;
    assert_eq!(plan_entry(&task, 1)["status"], "done");
    assert_eq!(
        plan_entry(&task, 1)["proof"],
        json!(format!(
            "session {session} (echo built image v1.2.3) exited 0"
        ))
    );

    // Step 2: a wait that resolves proves it, and its wake says so and names the next step.
    let wait = ok(
        &mut client,
        "smart_wait",
        json!({
            "target": format!("file:{}", log.display()),
            "wake_when": "'deploy finished' is printed",
            "task_id": id,
            "step": 2,
        }),
    )
    .await;
    let wait_id = wait["wait_id"].as_str().unwrap().to_owned();
    assert!(
        wait["message"]
            .as_str()
            .unwrap()
            .contains(&format!("it marks step 2 of {id} done as verified")),
        "{wait}"
    );
    let mut events = daemon.client().await;
    ok(&mut events, "events.subscribe", json!({})).await;
    append(&log, "deploy finished in 42s");
    wait_until(
        "the wait resolves and proves step 2",
        PATIENCE,
        async || plan_entry(&task_get(&mut client, &id).await, 2)["evidence"] == "verified",
    )
    .await;
    let task = task_get(&mut client, &id).await;
    let proof = plan_entry(&task, 2)["proof"].as_str().unwrap().to_owned();
    assert!(
        proof.starts_with(&format!(
            "wait {wait_id} on file:{} resolved: ",
            log.display()
        )),
        "{proof}"
    );
    assert!(proof.contains("deploy finished in 42s"), "{proof}");
    let wake = loop {
        let heard = tokio::time::timeout(PATIENCE, events.read_json())
            .await
            .expect("the wake comes within the time allowed")
            .unwrap();
        if heard["params"]["wait_id"] == wait_id.as_str() {
            break heard;
        }
    };
    assert_eq!(wake["params"]["kind"], "wait_resolved", "{wake}");
    let text = wake["params"]["text"].as_str().unwrap();
    assert!(
        text.contains("Step 2 is marked done, verified by this wait."),
        "{text}"
    );
    assert!(
        text.contains("continue with step 3, Write the changelog"),
        "{text}"
    );

    // Step 3: the agent's word only.
    ok(
        &mut client,
        "task_update",
        json!({"task_id": id, "message": "Step 3 done — changelog written"}),
    )
    .await;
    let task = task_get(&mut client, &id).await;
    assert_eq!(plan_entry(&task, 3)["evidence"], "claimed");
    assert_eq!(
        plan_entry(&task, 3)["proof"],
        "claimed: \"Step 3 done — changelog written\""
    );

    // Step 4: a failing session marks nothing and posts a blocker on it.
    ok(
        &mut client,
        "term_start",
        json!({"command": "echo 2 tests failed; exit 3", "task_id": id, "step": 4}),
    )
    .await;
    wait_until("the failed session posts a blocker", PATIENCE, async || {
        all_message_contents(&mut client, &id)
            .await
            .iter()
            .any(|m| m.starts_with("⚠ Blocker on step 4, Run the smoke test:"))
    })
    .await;
    let thread = all_message_contents(&mut client, &id).await;
    let blocker = thread.iter().find(|m| m.starts_with("⚠ Blocker")).unwrap();
    assert!(blocker.contains("exited with status 3"), "{blocker}");
    assert!(blocker.contains("last line: 2 tests failed"), "{blocker}");
    let answer = ok(
        &mut client,
        "task_update",
        json!({"task_id": id, "query": "where am I?"}),
    )
    .await;
    assert_eq!(answer["plan_progress"]["completed"], json!([1, 2, 3]));
    let summary = answer["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!(
            "Verified: step 1 (session {session} exited 0), step 2 (wait {wait_id} resolved); \
             step 3 claimed."
        )),
        "{summary}"
    );
    assert!(summary.contains("Blocker on step 4"), "{summary}");

    // The evidence survives a restart.
    let dir = daemon.stop().await;
    let config = crate::support::config_in(dir.path());
    let options =
        lookout::daemon::DaemonOptions::new(config, lookout::config::ConfigSource::Defaults);
    let restarted = lookout::daemon::Daemon::start(options).await.unwrap();
    let mut client = lookout::client::Client::connect(restarted.socket_path())
        .await
        .unwrap();
    let task = task_get(&mut client, &id).await;
    let evidence: Vec<&Value> = (1..=3)
        .map(|step| &task["plan"][step - 1]["evidence"])
        .collect();
    assert_eq!(
        evidence,
        [&json!("verified"), &json!("verified"), &json!("claimed")]
    );

    // Completing names what rests on the agent's word.
    let completed = ok(
        &mut client,
        "task_update",
        json!({"task_id": id, "completed_steps": [5], "status": "completed"}),
    )
    .await;
    let message = completed["message"].as_str().unwrap();
    assert!(
        message.contains("Steps 3, 5 rest on your word only"),
        "{message}"
    );
    assert!(
        message.contains("Step 4 was never marked done"),
        "{message}"
    );
    restarted.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_on_a_step_that_times_out_posts_a_blocker_and_marks_nothing() {
    let daemon = TestDaemon::start().await;
    let id = daemon
        .register(json!({"name": "Wait for CI", "plan": ["Push", "CI passes"]}))
        .await;
    let mut client = daemon.client().await;
    let wait = ok(
        &mut client,
        "smart_wait",
        json!({
            "target": "file:/nonexistent/ci.log",
            "wake_when": "'PASSED' is printed",
            "timeout": 1,
            "task_id": id,
            "step": 2,
        }),
    )
    .await;
    let wait_id = wait["wait_id"].as_str().unwrap().to_owned();
    wait_until("the wait times out", PATIENCE, async || {
        let status = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
        status["status"] == "timeout"
    })
    .await;
    let thread = all_message_contents(&mut client, &id).await;
    let blocker = thread
        .iter()
        .find(|m| m.starts_with("⚠ Blocker on step 2, CI passes:"))
        .unwrap_or_else(|| panic!("{thread:?}"));
    assert!(
        blocker.contains(&format!("wait {wait_id} timed out after 1s")),
        "{blocker}"
    );
    let task = task_get(&mut client, &id).await;
    assert_eq!(task["plan_progress"]["completed"], json!([]));

    // A step needs its task, and must be in its plan.
    let error = daemon
        .err(
            "smart_wait",
            json!({"target": "file:/tmp/x.log", "wake_when": "'x' appears", "step": 2}),
        )
        .await;
    assert!(
        error.hint.contains("pass task_id with it"),
        "{}",
        error.hint
    );
    let error = daemon
        .err(
            "term_start",
            json!({"command": "true", "task_id": id, "step": 3}),
        )
        .await;
    assert!(error.message.contains("step 3"), "{}", error.message);
    assert!(error.hint.contains("up to 2"), "{}", error.hint);
}
