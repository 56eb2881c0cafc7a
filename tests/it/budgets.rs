//! Answers that fit a context window, over the real socket: a task of 100 long steps with
//! six 26 KB notes asked "what tag did I push?", its stuck packet, its thread and the task
//! list in pages, next to a task of one step and one note that loses nothing; and `task_get`
//! reading back everything a task was told.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{TestDaemon, wait_until};

const TAG_NOTE: usize = 3;

fn json_len(value: &Value) -> usize {
    value.to_string().len()
}

/// Step `n` of the big plan: about 480 characters.
fn long_step(n: u32) -> String {
    let body = "migrate the shard, compare row counts and checksums against the source, then \
                record the lag of every replica before moving on; ";
    let mut step = format!("Shard {n}: ");
    while step.len() < 470 {
        step.push_str(body);
    }
    step.chars()
        .take(480)
        .collect::<String>()
        .trim_end()
        .to_owned()
}

/// Note `i` of the big task: 26 KB of routine log, the third one naming the pushed tag.
fn long_note(i: usize) -> String {
    let filler = "checked replica lag on the secondary cluster and nothing moved; ";
    let half = filler.repeat(200);
    let middle = if i == TAG_NOTE {
        "Built the image and tagged it v7.3.1, then pushed ghcr.io/acme/shards:v7.3.1 to the \
         registry. "
    } else {
        "Row counts matched for this batch. "
    };
    format!("Note {i}: {half}{middle}{half}")
}

/// Registers the big task with 40 steps done and six long notes; its id and each note's seq.
async fn big_task(daemon: &TestDaemon) -> (String, Vec<u64>) {
    let plan: Vec<String> = (1..=100).map(long_step).collect();
    let id = daemon
        .register(json!({"name": "Migrate the 100 shards", "plan": plan,
                         "metadata": {"repo": "shards", "branch": "main", "owner": {"team": "db", "on_call": [1, 2.5, "x"]}}}))
        .await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": id, "completed_steps": (1..=40).collect::<Vec<u32>>()}),
        )
        .await;
    let mut seqs = Vec::new();
    for i in 1..=6 {
        daemon.manual_clock().advance(Duration::from_secs(60));
        daemon
            .ok(
                "task_update",
                json!({"task_id": id, "message": long_note(i)}),
            )
            .await;
        let thread = daemon
            .ok("task_thread", json!({"task_id": id, "limit": 1}))
            .await;
        seqs.push(thread["messages"][0]["seq"].as_u64().unwrap());
    }
    (id, seqs)
}

/// The resume packet the next stuck scan sends for `id`, two hours later.
async fn stuck_packet(daemon: &TestDaemon, id: &str) -> (usize, Value) {
    daemon.manual_clock().advance(Duration::from_secs(7_200));
    daemon.tree().scan_stuck().await.unwrap();
    let alert = || {
        daemon
            .sink
            .received()
            .into_iter()
            .find(|event| event.task_id.as_ref().map(|t| t.as_str()) == Some(id))
    };
    wait_until(
        "the stuck alert reaches the sink",
        Duration::from_secs(20),
        async || alert().is_some(),
    )
    .await;
    let event = alert().unwrap();
    let json = event.text.strip_prefix("[task_stuck_resume] ").unwrap();
    (event.text.len(), serde_json::from_str(json).unwrap())
}

fn agent_notes(packet: &Value) -> Vec<&str> {
    packet["recent_messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "agent" && m["msg_type"] == "text")
        .map(|m| m["content"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_task_answers_within_its_budget_and_still_names_the_step_and_the_tag() {
    let daemon = TestDaemon::start_manual().await;
    let (id, seqs) = big_task(&daemon).await;
    let ask = |max_bytes: Option<u64>| {
        let mut params = json!({"task_id": id, "query": "what tag did I push?"});
        if let Some(max) = max_bytes {
            params["max_bytes"] = json!(max);
        }
        params
    };

    let answer = daemon.ok("task_update", ask(None)).await;
    assert!(json_len(&answer) <= 4096, "{} bytes", json_len(&answer));
    let current: Vec<&Value> = answer["plan"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|step| step["status"] == "current")
        .collect();
    assert_eq!(current.len(), 1, "{answer}");
    assert_eq!(current[0]["step"], 41);
    assert!(
        answer["summary"]
            .as_str()
            .unwrap()
            .contains("Currently on step 41")
    );
    assert_eq!(answer["plan_not_shown"]["done"], "1-40", "{answer}");
    let tag = answer["relevant_messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["seq"] == seqs[TAG_NOTE - 1])
        .unwrap_or_else(|| panic!("the tag note is among {answer}"));
    assert!(tag["content"].as_str().unwrap().contains("v7.3.1"), "{tag}");
    assert!(tag["chars"].as_u64().unwrap() > 20_000, "{tag}");
    let message = answer["message"].as_str().unwrap();
    assert!(message.starts_with("Next: step 41, Shard 41:"), "{message}");
    assert!(
        message.contains("To fit 4096 bytes") && message.contains("task_get"),
        "{message}"
    );

    // More room, more of everything; never more than asked.
    let roomy = daemon.ok("task_update", ask(Some(20_000))).await;
    let bytes = json_len(&roomy);
    assert!(
        (json_len(&answer)..=20_000).contains(&bytes),
        "{bytes} bytes"
    );
    assert!(roomy["plan"].as_array().unwrap().len() > answer["plan"].as_array().unwrap().len());
    let widest = daemon.ok("task_update", ask(Some(65_536))).await;
    assert!(json_len(&widest) <= 65_536);
    assert!(widest.to_string().contains("v7.3.1"));

    let refused = daemon.err("task_update", ask(Some(500))).await;
    assert!(
        refused.hint.contains("between 1024 and 65536"),
        "{}",
        refused.hint
    );
    let no_query = daemon
        .err(
            "task_update",
            json!({"task_id": id, "message": "x", "max_bytes": 8192}),
        )
        .await;
    assert!(no_query.hint.contains("pass query"), "{}", no_query.hint);

    // The stuck packet keeps the agent's own notes, windows the plan, and uses its room.
    let (bytes, packet) = stuck_packet(&daemon, &id).await;
    assert!(bytes <= 8192, "{bytes} bytes");
    assert!(bytes > 6000, "the packet uses its budget: {bytes} bytes");
    let notes = agent_notes(&packet);
    assert!(notes.len() >= 3, "{packet}");
    assert!(
        notes.iter().all(|note| note.starts_with("Note ")),
        "{notes:?}"
    );
    let plan: Vec<&str> = packet["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(plan[0], "steps 1-40: done", "{plan:?}");
    assert!(plan[1].starts_with("41. Shard 41:"), "{plan:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_task_loses_nothing() {
    let daemon = TestDaemon::start_manual().await;
    let id = daemon
        .register(json!({"name": "Ship", "plan": ["Ship it"]}))
        .await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": id, "message": "shipped v1 to prod, waiting for the smoke test"}),
        )
        .await;
    let answer = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "query": "where am I?"}),
        )
        .await;
    assert_eq!(
        answer["plan"],
        json!([{"step": 1, "text": "Ship it", "status": "current"}])
    );
    assert!(answer.get("plan_not_shown").is_none());
    assert_eq!(
        answer["relevant_messages"][1]["content"], "shipped v1 to prod, waiting for the smoke test",
        "{answer}"
    );
    assert_eq!(answer["message"], "Next: step 1, Ship it.");

    let (_, packet) = stuck_packet(&daemon, &id).await;
    assert_eq!(packet["plan"], json!(["Ship it"]));
    assert_eq!(
        agent_notes(&packet),
        ["shipped v1 to prod, waiting for the smoke test"]
    );
    let contents: Vec<&str> = packet["recent_messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        contents[0].starts_with("Task registered: Ship"),
        "lifecycle messages fill the room left: {contents:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_thread_shortens_then_pages_and_reads_one_message_whole() {
    let daemon = TestDaemon::start_manual().await;
    let (id, seqs) = big_task(&daemon).await;
    let page = daemon.ok("task_thread", json!({"task_id": id})).await;
    assert!(json_len(&page) <= 16 * 1024, "{} bytes", json_len(&page));
    let message = page["message"].as_str().unwrap();
    assert!(
        message.contains("shortened") && message.contains("limit: 1"),
        "{message}"
    );
    let newest = page["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(newest["seq"], seqs[5]);
    assert_eq!(newest["chars"], long_note(6).chars().count());

    let seq = seqs[TAG_NOTE - 1];
    let whole = daemon
        .ok(
            "task_thread",
            json!({"task_id": id, "before": seq + 1, "limit": 1, "max_bytes": 65536}),
        )
        .await;
    assert_eq!(whole["messages"][0]["content"], long_note(TAG_NOTE));
    assert!(whole["messages"][0].get("chars").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_list_pages_with_a_cursor_within_its_budget() {
    let daemon = TestDaemon::start_manual().await;
    let mut registered = Vec::new();
    for n in 0..30u64 {
        daemon.manual_clock().advance(Duration::from_millis(n % 3));
        let name = format!("task {n} {}", "x".repeat(100));
        registered.push(
            daemon
                .register(json!({"name": name, "plan": ["one"]}))
                .await,
        );
    }
    let mut seen = Vec::new();
    let mut params = json!({"limit": 1000, "max_bytes": 2048});
    for _ in 0..30 {
        let page = daemon.ok("task_list", params.clone()).await;
        assert!(json_len(&page) <= 2048, "{} bytes", json_len(&page));
        let tasks = page["tasks"].as_array().unwrap();
        assert!(!tasks.is_empty(), "{page}");
        seen.extend(
            tasks
                .iter()
                .map(|t| t["task_id"].as_str().unwrap().to_owned()),
        );
        match page["next_cursor"].as_str() {
            Some(cursor) => {
                assert!(
                    page["message"]
                        .as_str()
                        .unwrap()
                        .contains("pass next_cursor"),
                    "{page}"
                );
                params["cursor"] = json!(cursor);
            }
            None => break,
        }
    }
    // Tasks updated in the same millisecond are told apart by id: none is lost or repeated.
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), seen.len(), "no task twice: {seen:?}");
    registered.sort();
    assert_eq!(unique, registered, "every task");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_get_reads_back_everything_the_task_was_told() {
    let daemon = TestDaemon::start_manual().await;
    let metadata =
        json!({"repo": "coursefolio", "branch": "main", "retries": 3, "tags": ["a", {"b": null}]});
    let id = daemon
        .register(
            json!({"name": "Deploy", "plan": ["1. Build", "2. Push", "3. Verify"],
                   "metadata": metadata, "session_key": "agent:main:main", "agent_id": "main"}),
        )
        .await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": id, "message": "Step 1 done"}),
        )
        .await;
    daemon.manual_clock().advance(Duration::from_secs(60));
    daemon
        .ok(
            "task_plan_update",
            json!({"task_id": id, "new_plan": ["1. Build", "2. Migrate", "3. Push", "4. Verify"],
                   "reason": "the release needs a migration"}),
        )
        .await;
    let watched = daemon.dir.path().join("build.log");
    std::fs::write(&watched, "").unwrap();
    let wait = daemon
        .ok(
            "smart_wait",
            json!({"target": format!("file:{}", watched.display()), "wake_when": "\"DONE\" appears",
                   "timeout": 600, "task_id": id}),
        )
        .await;
    let wait_id = wait["wait_id"].as_str().unwrap();

    let task = daemon.ok("task_get", json!({"task_id": id})).await;
    let mut expected_metadata = metadata.clone();
    expected_metadata["active_wait_ids"] = json!([wait_id]);
    expected_metadata["last_wait_state"] = json!("watching");
    expected_metadata["last_wait_event_at"] = task["metadata"]["last_wait_event_at"].clone();
    assert!(task["metadata"]["last_wait_event_at"].is_u64(), "{task}");
    assert_eq!(task["metadata"], expected_metadata);
    assert_eq!(
        (task["session_key"].clone(), task["agent_id"].clone()),
        (json!("agent:main:main"), json!("main"))
    );
    assert_eq!(
        task["plan"],
        json!([
            {"step": 1, "text": "1. Build", "status": "done", "evidence": "claimed",
             "proof": "claimed: \"Step 1 done\""},
            {"step": 2, "text": "2. Migrate", "status": "current"},
            {"step": 3, "text": "3. Push", "status": "todo"},
            {"step": 4, "text": "4. Verify", "status": "todo"},
        ])
    );
    let revision = &task["plan_revisions"][0];
    assert_eq!(revision["revision"], 1);
    assert_eq!(
        revision["old_plan"],
        json!(["1. Build", "2. Push", "3. Verify"])
    );
    assert_eq!(revision["new_plan"][1], "2. Migrate");
    assert_eq!(revision["reason"], "the release needs a migration");
    assert_eq!(revision["author"], "agent");
    assert_eq!(revision["at"], "2026-02-13T17:01:00Z");
    assert_eq!(task["waits"][0]["wait_id"], wait_id);
    assert_eq!(task["waits"][0]["status"], "watching");
    let message = task["message"].as_str().unwrap();
    assert!(message.starts_with("Next: step 2, Migrate."), "{message}");

    // The linkage keys are lookout's: a caller cannot set them.
    let refused = daemon
        .err(
            "task_register",
            json!({"name": "x", "plan": ["a"], "metadata": {"active_wait_ids": []}}),
        )
        .await;
    assert!(
        refused.hint.contains("task_get shows them"),
        "{}",
        refused.hint
    );

    // A big task with a revision of its long plan fits the default budget, saying what gave.
    let (big, _) = big_task(&daemon).await;
    let plan: Vec<String> = (1..=100).rev().map(long_step).collect();
    daemon
        .ok(
            "task_plan_update",
            json!({"task_id": big, "new_plan": plan, "reason": "reverse"}),
        )
        .await;
    let whole = daemon.ok("task_get", json!({"task_id": big})).await;
    assert!(json_len(&whole) <= 65_536, "{} bytes", json_len(&whole));
    assert_eq!(whole["plan"].as_array().unwrap().len(), 100);
    assert_eq!(whole["plan_revisions"][0]["reason"], "reverse");
    assert!(
        whole["message"]
            .as_str()
            .unwrap()
            .contains("To fit 65536 bytes"),
        "{}",
        whole["message"]
    );
    let all = daemon
        .ok("task_get", json!({"task_id": big, "max_bytes": 1_048_576}))
        .await;
    assert_eq!(all["plan_revisions"][0]["old_plan"][0], long_step(1));
    assert_eq!(all["plan"][0]["text"], long_step(100));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_waits_fit_their_budget_and_narrow_to_one_task() {
    let daemon = TestDaemon::start_manual().await;
    let busy = daemon
        .register(json!({"name": "Busy", "plan": ["watch"]}))
        .await;
    let quiet = daemon
        .register(json!({"name": "Quiet", "plan": ["watch"]}))
        .await;
    let log = daemon.dir.path().join("build.log");
    std::fs::write(&log, "").unwrap();
    let target = format!("file:{}", log.display());
    let marker = format!("DONE-{}", "x".repeat(1_800));
    for (task, count) in [(&busy, 30), (&quiet, 2)] {
        for _ in 0..count {
            daemon
                .ok(
                    "smart_wait",
                    json!({"target": target, "wake_when": format!("\"{marker}\" appears"),
                           "timeout": 3600, "task_id": task}),
                )
                .await;
        }
    }
    let all = daemon.ok("wait_status", json!({})).await;
    assert!(json_len(&all) <= 16 * 1024, "{} bytes", json_len(&all));
    let shown = all["waits"].as_array().unwrap().len();
    assert!((1..32).contains(&shown), "{shown} shown");
    let message = all["message"].as_str().unwrap();
    assert!(
        message.starts_with("32 live waits.") && message.contains("task_id narrows the list"),
        "{message}"
    );
    let roomy = daemon.ok("wait_status", json!({"max_bytes": 65536})).await;
    assert!(json_len(&roomy) <= 65_536);
    assert!(roomy["waits"].as_array().unwrap().len() > shown);

    let one_task = daemon.ok("wait_status", json!({"task_id": quiet})).await;
    let waits = one_task["waits"].as_array().unwrap();
    assert_eq!(waits.len(), 2, "{one_task}");
    assert!(waits.iter().all(|w| w["task_id"] == quiet.as_str()));
    assert_eq!(
        one_task["message"],
        format!("2 live waits of task {quiet}.")
    );
    // One wait's history keeps its newest entries.
    let wait_id = waits[0]["wait_id"].as_str().unwrap().to_owned();
    for n in 0..20 {
        let note = format!("note {n} {}", "y".repeat(1_500));
        daemon
            .ok("wait_update", json!({"wait_id": wait_id, "message": note}))
            .await;
    }
    let one = daemon.ok("wait_status", json!({"wait_id": wait_id})).await;
    assert!(json_len(&one) <= 16 * 1024, "{} bytes", json_len(&one));
    let history = one["history"].as_array().unwrap();
    let newest = history.last().unwrap();
    assert!(newest.to_string().contains("note 19 "), "{newest}");
    let message = one["message"].as_str().unwrap();
    assert!(
        message.contains("older of its history left out"),
        "{message}"
    );
    let whole = daemon
        .ok(
            "wait_status",
            json!({"wait_id": wait_id, "max_bytes": 65536}),
        )
        .await;
    assert!(whole["history"].as_array().unwrap().len() > history.len());
    assert!(!whole["message"].as_str().unwrap().contains("left out"));

    let both = daemon
        .err("wait_status", json!({"wait_id": "w-1", "task_id": quiet}))
        .await;
    assert!(both.message.contains("not both"), "{}", both.message);
    assert!(both.hint.contains("task_id for the live waits of one task"));
}
