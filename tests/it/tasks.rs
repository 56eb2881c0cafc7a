//! The task tools end to end through the socket, checked against protocol.md and the seeds.

use std::time::Duration;

use lookout::jsonrpc::codes;
use serde_json::{Value, json};

use crate::support::{START, TestDaemon, deploy_task};

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

async fn registered(daemon: &TestDaemon) -> String {
    daemon.ok("task_register", deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Two fresh installs never hand out the same ids: ids travel in wake texts and logs that
/// outlive a reinstall.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_databases_hand_out_different_ids() {
    let first = TestDaemon::start_manual().await;
    let second = TestDaemon::start_manual().await;
    let (one, two) = (registered(&first).await, registered(&second).await);
    assert_ne!(one, two);
    let log = tempfile::NamedTempFile::new().unwrap();
    let wait = json!({"target": format!("file:{}", log.path().display()), "wake_when": "'DONE'"});
    let one = first.ok("smart_wait", wait.clone()).await;
    let two = second.ok("smart_wait", wait).await;
    assert_ne!(one["wait_id"], two["wait_id"], "{one} {two}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_returns_the_seed_shape() {
    let daemon = TestDaemon::start_manual().await;
    let result = daemon.ok("task_register", deploy_task()).await;
    assert_eq!(
        keys(&result),
        ["task_id", "name", "status", "plan", "created_at", "message"]
    );
    assert!(result["task_id"].as_str().unwrap().starts_with("t-"));
    assert_eq!(result["status"], "active");
    assert_eq!(result["created_at"], START);
    assert_eq!(result["plan"], deploy_task()["plan"]);
    let message = result["message"].as_str().unwrap();
    assert!(
        message.contains("registered with 5 steps") && message.contains("task_update"),
        "{message}"
    );

    let thread = daemon
        .ok("task_thread", json!({"task_id": result["task_id"]}))
        .await;
    let first = &thread["messages"][0];
    assert_eq!(
        (
            first["seq"].clone(),
            first["role"].clone(),
            first["msg_type"].clone()
        ),
        (json!(1), json!("system"), json!("lifecycle"))
    );
    assert!(first["content"].as_str().unwrap().starts_with(
        "Task registered: Deploy coursefolio to production\nPlan:\n  1. Build Docker image"
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_validates_every_field() {
    let daemon = TestDaemon::start().await;
    let cases = [
        (
            json!({"name": "  ", "plan": ["a"]}),
            codes::INVALID_PARAMS,
            "name is blank",
        ),
        (
            json!({"name": "x".repeat(201), "plan": ["a"]}),
            codes::INVALID_PARAMS,
            "name is 201 characters",
        ),
        (
            json!({"name": "x", "plan": []}),
            codes::INVALID_PARAMS,
            "plan is empty",
        ),
        (
            json!({"name": "x", "plan": vec!["a"; 101]}),
            codes::INVALID_PARAMS,
            "plan has 101 steps",
        ),
        (
            json!({"name": "x", "plan": ["a", " "]}),
            codes::INVALID_PARAMS,
            "plan step 2 is blank",
        ),
        (
            json!({"name": "x", "plan": ["s".repeat(501)]}),
            codes::INVALID_PARAMS,
            "plan step 1 is 501 characters",
        ),
        (
            json!({"name": "x", "plan": ["a"], "metadata": [1]}),
            codes::INVALID_PARAMS,
            "metadata must be a JSON object",
        ),
        (
            json!({"name": "x", "plan": ["a"], "metadata": {"blob": "b".repeat(17_000)}}),
            codes::TOO_LARGE,
            "metadata is",
        ),
    ];
    for (params, code, words) in cases {
        let error = daemon.err("task_register", params).await;
        assert_eq!(error.code, code, "{}", error.message);
        assert!(
            error.message.contains(words),
            "{} does not say {words}",
            error.message
        );
        assert!(!error.hint.is_empty());
    }
    // The limits themselves are allowed.
    daemon
        .ok(
            "task_register",
            json!({"name": "x".repeat(200), "plan": vec!["s".repeat(500); 100]}),
        )
        .await;
    assert_eq!(
        daemon.ok("task_list", json!({"status": "all"})).await["tasks"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_updates_and_the_where_am_i_query() {
    let daemon = TestDaemon::start_manual().await;
    let id = registered(&daemon).await;
    daemon.manual_clock().advance(Duration::from_secs(300));
    daemon
        .ok(
            "task_update",
            json!({"task_id": id, "message": "Step 1 done — built image, tagged v1.2.3"}),
        )
        .await;
    daemon.manual_clock().advance(Duration::from_secs(600));
    let update = daemon
        .ok("task_update", json!({"task_id": id, "message": "Step 2 done — pushed to ghcr.io/alex/coursefolio:v1.2.3"}))
        .await;
    assert_eq!(
        keys(&update),
        [
            "task_id",
            "message_count",
            "status",
            "acknowledged",
            "plan_progress",
            "message"
        ]
    );
    assert_eq!(update["acknowledged"], true);
    assert_eq!(update["message_count"], 5);
    assert_eq!(
        update["plan_progress"],
        json!({"completed": [1, 2], "current": 3, "remaining": [4, 5], "pct": 40})
    );
    assert!(
        update["message"]
            .as_str()
            .unwrap()
            .ends_with("Next: step 3, SSH into server."),
        "{}",
        update["message"]
    );

    daemon.manual_clock().advance(Duration::from_secs(3600));
    let answer = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "query": "where am I on this task?"}),
        )
        .await;
    assert_eq!(
        answer["summary"],
        "Completed steps 1-2 (Build Docker image, Push to registry). Steps 1-2 claimed, none verified. \
         Currently on step 3 (SSH into server). \
         Remaining: Pull and run, Verify. No active waits. No blockers noted."
    );
    assert_eq!(answer["plan_progress"]["current"], 3);
    assert_eq!(
        answer["last_update"], "2026-02-13T17:15:00Z",
        "the query itself is not an update"
    );
    assert_eq!(
        answer["wait"],
        json!({"active_wait_ids": [], "last_wait_state": null, "last_wait_event_at": null})
    );
    assert_eq!(answer["message"], "Next: step 3, SSH into server.");
    assert!(
        answer.get("acknowledged").is_none(),
        "a pure query acknowledges no update"
    );

    let tag = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "query": "what tag did I push?"}),
        )
        .await;
    let found: Vec<&str> = tag["relevant_messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        found
            .iter()
            .any(|c| c.contains("pushed to ghcr.io/alex/coursefolio:v1.2.3")),
        "{found:?}"
    );
    let first = &tag["relevant_messages"][0];
    assert_eq!(
        keys(first),
        ["seq", "role", "msg_type", "content", "created_at"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explicit_progress_fields_and_a_query_in_the_same_call() {
    let daemon = TestDaemon::start().await;
    let id = registered(&daemon).await;
    let result = daemon
        .ok("task_update", json!({"task_id": id, "completed_steps": [1, 2, 3], "current_step": 5, "query": "status?"}))
        .await;
    assert_eq!(
        result["acknowledged"], true,
        "an update with a query still acknowledges the update"
    );
    assert_eq!(
        result["plan_progress"],
        json!({"completed": [1, 2, 3], "current": 5, "remaining": [4], "pct": 60})
    );
    let error = daemon
        .err(
            "task_update",
            json!({"task_id": id, "completed_steps": [9]}),
        )
        .await;
    assert_eq!(error.code, codes::INVALID_PARAMS);
    assert!(
        error.message.contains("the plan has 5 steps"),
        "{}",
        error.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statuses_aliases_and_terminal_conflicts() {
    let daemon = TestDaemon::start().await;
    let id = registered(&daemon).await;
    let error = daemon
        .err("task_update", json!({"task_id": id, "status": "done-ish"}))
        .await;
    assert_eq!(error.code, codes::INVALID_PARAMS);
    assert_eq!(error.message, "invalid status 'done-ish'");
    assert_eq!(
        error.hint,
        "status must be one of active, paused, completed, failed, cancelled (alias: canceled)"
    );

    let empty = daemon.err("task_update", json!({"task_id": id})).await;
    assert!(
        empty
            .message
            .contains("at least one of message, query, status or plan"),
        "{}",
        empty.message
    );

    let paused = daemon
        .ok("task_update", json!({"task_id": id, "status": "paused"}))
        .await;
    assert_eq!(paused["status"], "paused");
    let cancelled = daemon
        .ok("task_update", json!({"task_id": id, "status": "canceled"}))
        .await;
    assert_eq!(cancelled["status"], "cancelled");

    let conflict = daemon
        .err(
            "task_update",
            json!({"task_id": id, "message": "one more thing"}),
        )
        .await;
    assert_eq!(conflict.code, codes::CONFLICT);
    assert!(
        conflict.hint.contains("status: \"active\""),
        "{}",
        conflict.hint
    );
    let reopened = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "status": "active", "message": "back on it"}),
        )
        .await;
    assert_eq!(reopened["status"], "active");

    let thread = daemon.ok("task_thread", json!({"task_id": id})).await;
    let lifecycle: Vec<&str> = thread["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["msg_type"] == "lifecycle")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        lifecycle[1..],
        [
            "Status changed: active → paused",
            "Status changed: paused → cancelled",
            "Status changed: cancelled → active"
        ]
    );

    let missing = daemon
        .err(
            "task_update",
            json!({"task_id": "t-nothere", "message": "x"}),
        )
        .await;
    assert_eq!(missing.code, codes::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completing_with_open_steps_says_so() {
    let daemon = TestDaemon::start().await;
    let id = registered(&daemon).await;
    let done = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "message": "All done — site is live", "status": "completed"}),
        )
        .await;
    let message = done["message"].as_str().unwrap();
    assert!(message.contains("Status active → completed"), "{message}");
    assert!(
        message.contains("Steps 1-5 were never marked done"),
        "{message}"
    );
    // Doing what the hint says works: the marks land, the task stays completed.
    let marked = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "completed_steps": [1, 2, 3, 4, 5]}),
        )
        .await;
    assert_eq!(marked["status"], "completed", "{marked}");
    assert_eq!(marked["plan_progress"]["pct"], 100, "{marked}");
    // Anything else on a closed task is still a conflict that says how to reopen it.
    let refused = daemon
        .err(
            "task_update",
            json!({"task_id": id, "message": "one more thing"}),
        )
        .await;
    assert_eq!(refused.code, codes::CONFLICT, "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_revisions_through_both_tools_share_one_path() {
    let daemon = TestDaemon::start_manual().await;
    let id = registered(&daemon).await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": id, "message": "Steps 1-2 done"}),
        )
        .await;
    let new_plan = json!([
        "Build Docker image",
        "Push to registry",
        "Run migrations",
        "SSH into server",
        "Pull and run",
        "Verify"
    ]);
    let revised = daemon
        .ok("task_plan_update", json!({"task_id": id, "new_plan": new_plan, "reason": "the release needs a schema migration"}))
        .await;
    assert_eq!(
        keys(&revised),
        [
            "task_id",
            "revision",
            "plan",
            "kept_completed",
            "dropped_completed",
            "plan_progress",
            "message"
        ]
    );
    assert_eq!(revised["revision"], 1);
    assert_eq!(revised["kept_completed"], json!([1, 2]));
    assert_eq!(revised["dropped_completed"], json!([]));
    assert_eq!(
        revised["plan_progress"],
        json!({"completed": [1, 2], "current": 3, "remaining": [4, 5, 6], "pct": 33})
    );
    assert!(
        revised["message"]
            .as_str()
            .unwrap()
            .starts_with("Plan revised (revision 1): the release needs a schema migration.")
    );

    let second = daemon
        .ok("task_update", json!({"task_id": id, "plan": ["Build Docker image", "Ship it"], "plan_reason": "simpler"}))
        .await;
    assert_eq!(second["plan_progress"]["completed"], json!([1]));
    // As task_plan_update says it: what became of the done marks.
    assert_eq!(
        (
            &second["revision"],
            &second["kept_completed"],
            &second["dropped_completed"]
        ),
        (&json!(2), &json!([1]), &json!([2]))
    );
    let thread = daemon.ok("task_thread", json!({"task_id": id})).await;
    let plans: Vec<&str> = thread["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["msg_type"] == "plan")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        plans[0],
        "Plan revised: the release needs a schema migration"
    );
    assert!(
        plans[1].starts_with(
            "Plan revised: simpler\nDropped done marks of old steps: 2 (Push to registry)"
        ),
        "{}",
        plans[1]
    );

    let reason_alone = daemon
        .err("task_update", json!({"task_id": id, "plan_reason": "why"}))
        .await;
    assert_eq!(reason_alone.code, codes::INVALID_PARAMS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_list_filters_orders_and_limits() {
    let daemon = TestDaemon::start_manual().await;
    let mut ids = Vec::new();
    for n in 0..4 {
        daemon.manual_clock().advance(Duration::from_secs(60));
        let mut task = deploy_task();
        task["name"] = json!(format!("task {n}"));
        ids.push(
            daemon.ok("task_register", task).await["task_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    daemon.manual_clock().advance(Duration::from_secs(60));
    daemon
        .ok(
            "task_update",
            json!({"task_id": ids[0], "message": "Step 1 done"}),
        )
        .await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": ids[1], "status": "completed"}),
        )
        .await;

    let active = daemon.ok("task_list", json!({})).await;
    let order: Vec<&str> = active["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(order, [ids[0].as_str(), ids[3].as_str(), ids[2].as_str()]);
    assert_eq!(active["message"], "3 active tasks.");
    let entry = &active["tasks"][0];
    assert_eq!(
        keys(entry),
        [
            "task_id",
            "name",
            "status",
            "plan_steps",
            "messages",
            "progress_pct",
            "last_update"
        ]
    );
    assert_eq!(
        (
            entry["plan_steps"].clone(),
            entry["messages"].clone(),
            entry["progress_pct"].clone()
        ),
        (json!(5), json!(3), json!(20))
    );

    let all = daemon
        .ok("task_list", json!({"status": "all", "limit": 2}))
        .await;
    assert_eq!(all["tasks"].as_array().unwrap().len(), 2);
    assert!(
        all["message"].as_str().unwrap().contains("more exist"),
        "{}",
        all["message"]
    );
    let completed = daemon.ok("task_list", json!({"status": "completed"})).await;
    assert_eq!(completed["tasks"][0]["task_id"], json!(ids[1]));
    assert_eq!(
        daemon.err("task_list", json!({"limit": 1001})).await.code,
        codes::INVALID_PARAMS
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_thread_pages_back_newest_last() {
    let daemon = TestDaemon::start().await;
    let id = registered(&daemon).await;
    for n in 1..=60 {
        daemon
            .ok(
                "task_update",
                json!({"task_id": id, "message": format!("note {n}")}),
            )
            .await;
    }
    let page = daemon.ok("task_thread", json!({"task_id": id})).await;
    let seqs: Vec<u64> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs.len(), 50, "default limit");
    assert_eq!((seqs[0], seqs[49]), (12, 61));
    assert_eq!(
        page["message"],
        "Messages 12-61 of 61; page back with before: 12."
    );
    let back = daemon
        .ok(
            "task_thread",
            json!({"task_id": id, "before": 12, "limit": 5}),
        )
        .await;
    let back_seqs: Vec<u64> = back["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(back_seqs, [7, 8, 9, 10, 11]);
    for message in page["messages"].as_array().unwrap() {
        assert!(
            ["text", "lifecycle", "progress", "wait", "stuck", "plan"]
                .contains(&message["msg_type"].as_str().unwrap())
        );
    }
    assert_eq!(
        daemon
            .err("task_thread", json!({"task_id": "t-missing"}))
            .await
            .code,
        codes::NOT_FOUND
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_survives_a_restart_on_the_same_folder() {
    let daemon = TestDaemon::start().await;
    let id = registered(&daemon).await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": id, "message": "Step 1 done"}),
        )
        .await;
    let dir = daemon.stop().await;

    let config = crate::support::config_in(dir.path());
    let options =
        lookout::daemon::DaemonOptions::new(config, lookout::config::ConfigSource::Defaults);
    let restarted = lookout::daemon::Daemon::start(options).await.unwrap();
    let mut client = lookout::client::Client::connect(restarted.socket_path())
        .await
        .unwrap();
    let answer = crate::support::ok(
        &mut client,
        "task_update",
        json!({"task_id": id, "query": "where am I?"}),
    )
    .await;
    assert_eq!(answer["plan_progress"]["completed"], json!([1]));
    let next = crate::support::ok(&mut client, "task_register", deploy_task()).await;
    assert_ne!(
        next["task_id"],
        json!(id),
        "the id counter survived the restart"
    );
    restarted.shutdown().await;
}

/// A plan written with its own numbers ("1. Build Docker image") is stored as given and
/// numbered once in everything lookout writes: the thread, the summary, the next step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbered_plans_are_numbered_once() {
    let daemon = TestDaemon::start_manual().await;
    let plan = json!([
        "1. Build Docker image",
        "2) Push to registry",
        "Step 3: Verify"
    ]);
    let task = daemon
        .ok(
            "task_register",
            json!({"name": "Deploy coursefolio", "plan": plan}),
        )
        .await;
    assert_eq!(task["plan"], plan);
    let id = task["task_id"].as_str().unwrap();
    let updated = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "completed_steps": [1]}),
        )
        .await;
    let message = updated["message"].as_str().unwrap();
    assert!(
        message.contains("Next: step 2, Push to registry."),
        "{message}"
    );
    let report = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "query": "where am I?"}),
        )
        .await;
    let summary = report["summary"].as_str().unwrap();
    assert!(
        summary.contains("Completed step 1 (Build Docker image)")
            && summary.contains("Currently on step 2 (Push to registry)")
            && summary.contains("Remaining: Verify."),
        "{summary}"
    );
    let thread = daemon
        .ok("task_thread", json!({"task_id": id, "limit": 10}))
        .await;
    let texts: Vec<&str> = thread["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        texts[0].contains("  1. Build Docker image\n  2. Push to registry\n  3. Verify"),
        "{texts:?}"
    );
    assert!(texts.contains(&"✓ Step 1: Build Docker image"), "{texts:?}");
    for text in texts.iter().chain([&message, &summary]) {
        assert!(
            !text.contains("1. 1.") && !text.contains("2. 2)") && !text.contains("Step 3: Step"),
            "{text}"
        );
    }
}

/// Whole numbers written as floats (`60.0`, as many encoders and models write them) are
/// taken where an integer is expected; a fraction is still refused with the signature.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_numbers_written_as_floats_are_accepted() {
    let daemon = TestDaemon::start_manual().await;
    let id = registered(&daemon).await;
    let updated = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "completed_steps": [1.0, 2.0], "current_step": 3.0}),
        )
        .await;
    assert_eq!(updated["plan_progress"]["completed"], json!([1, 2]));
    let listed = daemon.ok("task_list", json!({"limit": 5.0})).await;
    assert_eq!(listed["tasks"].as_array().unwrap().len(), 1);
    let log = tempfile::NamedTempFile::new().unwrap();
    let wait = daemon
        .ok(
            "smart_wait",
            json!({"target": format!("file:{}", log.path().display()),
                   "wake_when": "'DONE'", "timeout": 60.0, "poll_interval": 2}),
        )
        .await;
    assert_eq!(wait["status"], "watching", "{wait}");
    let refused = daemon.err("task_list", json!({"limit": 2.5})).await;
    assert_eq!(refused.code, codes::INVALID_PARAMS, "{refused:?}");
}

/// One step, one task: the texts count them right.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_of_one_read_right() {
    let daemon = TestDaemon::start_manual().await;
    let one_step = json!({"name": "Tag the release", "plan": ["Tag v1.2.3"]});
    let task = daemon.ok("task_register", one_step.clone()).await;
    assert!(
        task["message"]
            .as_str()
            .unwrap()
            .contains("registered with 1 step."),
        "{task}"
    );
    let id = task["task_id"].as_str().unwrap();
    let noted = daemon
        .ok("task_update", json!({"task_id": id, "message": "tagging"}))
        .await;
    assert!(
        noted["message"]
            .as_str()
            .unwrap()
            .contains("Progress: 0 of 1 step done."),
        "{noted}"
    );
    let beyond = daemon
        .err(
            "task_update",
            json!({"task_id": id, "completed_steps": [2]}),
        )
        .await;
    assert!(beyond.message.contains("the plan has 1 step"), "{beyond:?}");
    daemon.ok("task_register", one_step).await;
    let listed = daemon.ok("task_list", json!({"limit": 1})).await;
    assert!(
        listed["message"]
            .as_str()
            .unwrap()
            .starts_with("The most recently updated active task; more exist"),
        "{listed}"
    );
}

/// A note that reports a step past the plan's end is not ignored without a word.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_past_the_plan_is_named_in_the_reply() {
    let daemon = TestDaemon::start_manual().await;
    let id = registered(&daemon).await;
    let noted = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "message": "Step 2 done, and step 9 done too"}),
        )
        .await;
    let message = noted["message"].as_str().unwrap();
    assert!(message.contains("Step 2 marked done"), "{message}");
    assert!(
        message.contains("Step 9 is not in the plan (5 steps)"),
        "{message}"
    );
    assert_eq!(noted["plan_progress"]["completed"], json!([2]));
}
