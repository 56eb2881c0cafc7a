//! Every hint the task tools give leads to a call that works: each error's `data.hint`, and
//! each pointer a reply's `message` gives, is followed here exactly as an agent would (the
//! call it names, with the values it names) over the real socket.

use serde_json::{Value, json};

use crate::support::{TestDaemon, deploy_task};

/// `bad` fails with a hint containing `says`; the call the hint describes, `fixed`, works.
async fn follow(
    daemon: &TestDaemon,
    (method, bad): (&str, Value),
    says: &str,
    (fixed_method, fixed): (&str, Value),
) -> Value {
    let error = daemon.err(method, bad.clone()).await;
    assert!(
        error.hint.contains(says),
        "{method}({bad}) hints {:?}, not {says:?}",
        error.hint
    );
    daemon.ok(fixed_method, fixed).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_hint_of_the_task_tools_leads_to_a_call_that_works() {
    let daemon = TestDaemon::start_manual().await;
    let id = daemon.register(deploy_task()).await;
    let update = |params: Value| ("task_update", params);

    // Ids.
    let listed = follow(
        &daemon,
        update(json!({"task_id": "t-nosuch", "message": "hi"})),
        "task_list(status: \"all\")",
        ("task_list", json!({"status": "all"})),
    )
    .await;
    assert_eq!(listed["tasks"][0]["task_id"], id);
    follow(
        &daemon,
        ("task_thread", json!({"task_id": "t-nosuch"})),
        "task_list(status: \"all\")",
        ("task_list", json!({"status": "all"})),
    )
    .await;
    follow(
        &daemon,
        ("task_get", json!({"task_id": " "})),
        "pass the id task_register returned",
        ("task_get", json!({"task_id": id})),
    )
    .await;

    // Registration.
    follow(
        &daemon,
        ("task_register", json!({"name": " ", "plan": ["a"]})),
        "e.g. \"Deploy coursefolio to production\"",
        (
            "task_register",
            json!({"name": "Deploy coursefolio to production", "plan": ["a"]}),
        ),
    )
    .await;
    follow(
        &daemon,
        ("task_register", json!({"name": "x", "plan": []})),
        "e.g. [\"Build image\", \"Push\", \"Deploy\"]",
        (
            "task_register",
            json!({"name": "x", "plan": ["Build image", "Push", "Deploy"]}),
        ),
    )
    .await;
    follow(
        &daemon,
        ("task_register", json!({"name": "x", "plan": ["a", " "]})),
        "remove empty entries",
        ("task_register", json!({"name": "x", "plan": ["a"]})),
    )
    .await;
    follow(
        &daemon,
        (
            "task_register",
            json!({"name": "x", "plan": vec!["s"; 101]}),
        ),
        "at most 100 steps",
        (
            "task_register",
            json!({"name": "x", "plan": vec!["s"; 100]}),
        ),
    )
    .await;
    follow(
        &daemon,
        (
            "task_register",
            json!({"name": "x", "plan": ["s".repeat(501)]}),
        ),
        "under 500 characters",
        (
            "task_register",
            json!({"name": "x", "plan": ["s".repeat(500)]}),
        ),
    )
    .await;
    follow(
        &daemon,
        (
            "task_register",
            json!({"name": "n".repeat(201), "plan": ["a"]}),
        ),
        "under 200 characters",
        (
            "task_register",
            json!({"name": "n".repeat(200), "plan": ["a"]}),
        ),
    )
    .await;
    follow(
        &daemon,
        ("task_register", json!({"name": "x", "plan": ["a"], "metadata": ["repo"]})),
        "{\"repo\": \"coursefolio\", \"branch\": \"main\"}",
        ("task_register", json!({"name": "x", "plan": ["a"], "metadata": {"repo": "coursefolio", "branch": "main"}})),
    )
    .await;
    let renamed = follow(
        &daemon,
        (
            "task_register",
            json!({"name": "x", "plan": ["a"], "metadata": {"last_wait_state": "mine"}}),
        ),
        "name your own key differently",
        (
            "task_register",
            json!({"name": "x", "plan": ["a"], "metadata": {"my_last_wait_state": "mine"}}),
        ),
    )
    .await;
    let renamed = renamed["task_id"].as_str().unwrap();
    let shown = daemon.ok("task_get", json!({"task_id": renamed})).await;
    assert_eq!(shown["metadata"]["my_last_wait_state"], "mine");
    follow(
        &daemon,
        (
            "task_register",
            json!({"name": "x", "plan": ["a"], "metadata": {"stuck_threshold_s": 0}}),
        ),
        "a whole number of seconds, at least 1",
        (
            "task_register",
            json!({"name": "x", "plan": ["a"], "metadata": {"stuck_threshold_s": 1}}),
        ),
    )
    .await;
    follow(
        &daemon,
        (
            "task_register",
            json!({"name": "x", "plan": ["a"], "metadata": {"blob": "b".repeat(17 * 1024)}}),
        ),
        "keep metadata under 16 KiB",
        (
            "task_register",
            json!({"name": "x", "plan": ["a"], "metadata": {"blob": "b".repeat(15 * 1024)}}),
        ),
    )
    .await;

    // Updates.
    follow(
        &daemon,
        update(json!({"task_id": id})),
        "ask where you are with query (\"where am I?\")",
        update(json!({"task_id": id, "query": "where am I?"})),
    )
    .await;
    follow(
        &daemon,
        update(json!({"task_id": id, "message": " "})),
        "leave message out, or say something in it",
        update(json!({"task_id": id, "message": "Building the image"})),
    )
    .await;
    follow(
        &daemon,
        update(json!({"task_id": id, "status": "done-ish"})),
        "status must be one of active, paused, completed",
        update(json!({"task_id": id, "status": "paused"})),
    )
    .await;
    follow(
        &daemon,
        update(json!({"task_id": id, "completed_steps": [9]})),
        "step numbers start at 1 and go up to 5",
        update(json!({"task_id": id, "completed_steps": [5]})),
    )
    .await;
    follow(
        &daemon,
        update(json!({"task_id": id, "plan_reason": "because"})),
        "task_plan_update(task_id, new_plan, reason)",
        (
            "task_plan_update",
            json!({"task_id": id, "new_plan": ["Build", "Ship"], "reason": "because"}),
        ),
    )
    .await;
    follow(
        &daemon,
        update(json!({"task_id": id, "message": "m".repeat(32 * 1024 + 1)})),
        "under 32768 characters",
        update(json!({"task_id": id, "message": "m".repeat(32 * 1024)})),
    )
    .await;
    follow(
        &daemon,
        update(json!({"task_id": id, "query": "where am I?", "max_bytes": 500})),
        "between 1024 and 65536",
        update(json!({"task_id": id, "query": "where am I?", "max_bytes": 1024})),
    )
    .await;
    follow(
        &daemon,
        update(json!({"task_id": id, "message": "x", "max_bytes": 8192})),
        "pass query with it (\"where am I?\")",
        update(json!({"task_id": id, "message": "x", "query": "where am I?", "max_bytes": 8192})),
    )
    .await;
    daemon
        .ok("task_update", json!({"task_id": id, "status": "cancelled"}))
        .await;
    let reopened = follow(
        &daemon,
        update(json!({"task_id": id, "message": "back at it"})),
        "reopen it with task_update(status: \"active\") in the same call",
        update(json!({"task_id": id, "message": "back at it", "status": "active"})),
    )
    .await;
    assert_eq!(reopened["status"], "active");

    // The list and the thread.
    follow(
        &daemon,
        ("task_list", json!({"status": "finished"})),
        "or \"all\"",
        ("task_list", json!({"status": "all"})),
    )
    .await;
    follow(
        &daemon,
        ("task_list", json!({"limit": 0})),
        "between 1 and 1000",
        ("task_list", json!({"limit": 1000})),
    )
    .await;
    follow(
        &daemon,
        ("task_list", json!({"cursor": "page 2"})),
        "leave cursor out for the first page",
        ("task_list", json!({})),
    )
    .await;
    follow(
        &daemon,
        ("task_thread", json!({"task_id": id, "max_bytes": 100_000})),
        "between 1024 and 65536",
        ("task_thread", json!({"task_id": id, "max_bytes": 65_536})),
    )
    .await;
    follow(
        &daemon,
        ("task_get", json!({"task_id": id, "max_bytes": 2_000_000})),
        "between 1024 and 1048576",
        ("task_get", json!({"task_id": id, "max_bytes": 1_048_576})),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_pointer_in_a_task_reply_leads_to_a_call_that_works() {
    let daemon = TestDaemon::start_manual().await;
    let id = daemon.register(deploy_task()).await;

    // Completing with open steps: "if done, say so with completed_steps".
    let done = daemon
        .ok("task_update", json!({"task_id": id, "status": "completed"}))
        .await;
    let message = done["message"].as_str().unwrap();
    assert!(message.contains("say so with completed_steps"), "{message}");
    let marked = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "completed_steps": [1, 2, 3, 4, 5]}),
        )
        .await;
    assert_eq!(marked["plan_progress"]["pct"], 100);

    // A revision that changes a done step's text: "mark it again with completed_steps".
    let id = daemon.register(deploy_task()).await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": id, "completed_steps": [1]}),
        )
        .await;
    let revised = daemon
        .ok(
            "task_plan_update",
            json!({"task_id": id, "new_plan": ["Build the Docker image", "Push"], "reason": "clearer"}),
        )
        .await;
    let message = revised["message"].as_str().unwrap();
    assert!(
        message.contains("mark it again with completed_steps"),
        "{message}"
    );
    let marked = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "completed_steps": [1]}),
        )
        .await;
    assert_eq!(marked["plan_progress"]["completed"], json!([1]));

    // A query answer that had to cut: each pointer it names gives the rest.
    let plan: Vec<String> = (1..=60)
        .map(|n| format!("Step body {n} {}", "w".repeat(300)))
        .collect();
    let id = daemon.register(json!({"name": "Long", "plan": plan})).await;
    let note = format!(
        "{} pushed tag v9 {}",
        "a ".repeat(7_000),
        "b ".repeat(7_000)
    );
    daemon
        .ok("task_update", json!({"task_id": id, "message": note}))
        .await;
    let answer = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "query": "which tag did I push?"}),
        )
        .await;
    let message = answer["message"].as_str().unwrap();
    assert!(
        message.contains("task_get returns the whole plan"),
        "{message}"
    );
    let whole = daemon.ok("task_get", json!({"task_id": id})).await;
    assert_eq!(whole["plan"].as_array().unwrap().len(), 60);
    assert_eq!(whole["plan"][59]["text"], plan[59], "{}", whole["message"]);

    assert!(
        message.contains("task_thread(before: seq + 1, limit: 1, max_bytes: 65536)"),
        "{message}"
    );
    let cut = answer["relevant_messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m.get("chars").is_some())
        .unwrap_or_else(|| panic!("a shortened message in {answer}"));
    let seq = cut["seq"].as_u64().unwrap();
    let read = daemon
        .ok(
            "task_thread",
            json!({"task_id": id, "before": seq + 1, "limit": 1, "max_bytes": 65536}),
        )
        .await;
    assert_eq!(read["messages"][0]["content"], note);

    assert!(message.contains("max_bytes up to 65536"), "{message}");
    let roomy = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "query": "which tag did I push?", "max_bytes": 65536}),
        )
        .await;
    assert!(roomy["plan"].as_array().unwrap().len() > answer["plan"].as_array().unwrap().len());

    // A thread page that had to cut says how to read one whole, and how to page back.
    for n in 0..40 {
        daemon
            .ok(
                "task_update",
                json!({"task_id": id, "message": format!("note {n} {}", "z".repeat(3_000))}),
            )
            .await;
    }
    let page = daemon.ok("task_thread", json!({"task_id": id})).await;
    let message = page["message"].as_str().unwrap();
    assert!(
        message.contains("before: its seq + 1, limit: 1 and max_bytes: 65536"),
        "{message}"
    );
    let first = page["messages"][0]["seq"].as_u64().unwrap();
    assert!(
        message.contains(&format!("page back with before: {first}")),
        "{message}"
    );
    let back = daemon
        .ok("task_thread", json!({"task_id": id, "before": first}))
        .await;
    assert!(back["messages"].as_array().unwrap().last().unwrap()["seq"].as_u64() < Some(first));
}
