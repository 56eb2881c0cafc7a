//! `memory_recall` over the real socket: a narrated and completed task found again by its
//! topic with its steps, scoping by task, recency against relevance, bad input with hints,
//! an empty index; and with the real binary, the index surviving a SIGKILL and rebuilt from
//! the task database when its file is deleted.

use std::time::Duration;

use lookout::client::Client;
use serde_json::{Value, json};

use crate::support::{DaemonProcess, TestDaemon, ok};

async fn register(daemon: &TestDaemon, name: &str, plan: &[&str]) -> String {
    daemon.register(json!({"name": name, "plan": plan})).await
}

/// The `memory_recall` answer for `query` within `source`, once it finds something (what
/// ended is indexed as it ends, a moment after).
async fn recall_once_indexed(daemon: &TestDaemon, query: &str, source: &str) -> Value {
    let ask = || daemon.ok("memory_recall", json!({"query": query, "source": source}));
    crate::support::wait_until(
        &format!("{source} recall finds {query:?}"),
        Duration::from_secs(20),
        async || !ask().await["results"].as_array().unwrap().is_empty(),
    )
    .await;
    ask().await
}

fn task_ids(answer: &Value) -> Vec<&str> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["task_id"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_task_is_found_again_by_its_topic_with_its_steps() {
    let daemon = TestDaemon::start_manual().await;
    let empty = daemon
        .ok("memory_recall", json!({"query": "deploy coursefolio"}))
        .await;
    assert_eq!(empty["results"], json!([]));
    assert!(
        empty["message"]
            .as_str()
            .unwrap()
            .starts_with("Searched 0 tasks"),
        "{empty}"
    );

    let deploy = register(
        &daemon,
        "Deploy coursefolio to production",
        &[
            "Build Docker image",
            "Push to registry",
            "Restart the service",
        ],
    )
    .await;
    for note in [
        "Step 1 done — built the image, tagged v1.2.3",
        "Step 2 done — pushed ghcr.io/alex/coursefolio:v1.2.3",
        "Step 3 done — systemctl restart coursefolio, health check green",
    ] {
        daemon.manual_clock().advance(Duration::from_secs(300));
        daemon
            .ok("task_update", json!({"task_id": deploy, "message": note}))
            .await;
    }
    daemon
        .ok(
            "task_update",
            json!({"task_id": deploy, "status": "completed"}),
        )
        .await;
    let other = register(
        &daemon,
        "Rotate the TLS certificates",
        &["Renew", "Reload nginx"],
    )
    .await;
    daemon.manual_clock().advance(Duration::from_secs(86_400));

    let found = daemon
        .ok(
            "memory_recall",
            json!({"query": "how did I deploy coursefolio last time?"}),
        )
        .await;
    assert_eq!(task_ids(&found), [deploy.as_str()], "{found}");
    let first = &found["results"][0];
    assert_eq!(first["source"], "task");
    // Every word, in the title, the best match; a day old at the default recency_bias.
    let confidence = first["confidence"].as_f64().unwrap();
    assert!((0.9..1.0).contains(&confidence), "{first}");
    assert_eq!(first["weak"], false);
    assert_eq!(first["timestamp"], "2026-02-13T17:00:00Z");
    assert_eq!(first["duration_seconds"], 900);
    assert_eq!(first["video_url"], Value::Null);
    let summary = first["summary"].as_str().unwrap();
    assert!(
        summary.contains("(completed): 3 of 3 steps done"),
        "{summary}"
    );
    let steps: Vec<&str> = first["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    // A note and lookout's "✓ Step 2" echo of it are one step.
    assert!(
        steps.contains(
            &"2026-02-13T17:10:00Z Step 2 done — pushed ghcr.io/alex/coursefolio:v1.2.3 \
              → ✓ Step 2: Push to registry"
        ),
        "{steps:?}"
    );
    assert!(
        !steps
            .iter()
            .any(|step| step.ends_with("Z ✓ Step 2: Push to registry")),
        "{steps:?}"
    );
    let message = found["message"].as_str().unwrap();
    assert!(
        message.starts_with("Searched 2 tasks") && message.contains("not a probability"),
        "{message}"
    );

    // Notes are searchable: the tag is found by its words.
    let tag = daemon
        .ok("memory_recall", json!({"query": "ghcr.io coursefolio tag"}))
        .await;
    assert_eq!(task_ids(&tag)[0], deploy);

    // Scoped to another task, the deploy is not there.
    let scoped = daemon
        .ok(
            "memory_recall",
            json!({"query": "deploy coursefolio", "task_id": other}),
        )
        .await;
    assert_eq!(scoped["results"], json!([]), "{scoped}");
    assert!(
        scoped["message"]
            .as_str()
            .unwrap()
            .contains(&format!("within task {other}"))
    );
    let nothing = daemon
        .ok("memory_recall", json!({"query": "kubernetes helm"}))
        .await;
    let message = nothing["message"].as_str().unwrap();
    assert!(message.contains("nothing matched"), "{message}");
    assert!(
        message.contains("Nothing indexed holds kubernetes, helm"),
        "{message}"
    );
    assert_eq!(nothing["unmatched"], json!(["kubernetes", "helm"]));

    // A misspelt name is read as the one the index holds, and the answer says so.
    let typo = daemon
        .ok("memory_recall", json!({"query": "corsefolio deploy"}))
        .await;
    assert_eq!(task_ids(&typo)[0], deploy, "{typo}");
    assert_eq!(typo["read_as"], json!(["corsefolio → coursefolio"]));
    assert!(
        typo["message"]
            .as_str()
            .unwrap()
            .contains("Read corsefolio → coursefolio."),
        "{typo}"
    );
}

/// Only weak matches: the message tells a first result that holds every word anything
/// indexed holds (the question's other words may name what it is about: the caller knows)
/// from one that merely shares a word.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weak_answer_says_whether_it_lacks_only_what_nothing_holds() {
    let daemon = TestDaemon::start_manual().await;
    let stale = register(
        &daemon,
        "Visitors see the old version of the web app after a release",
        &[
            "Find what caches the old bundle",
            "Make the cache update itself",
        ],
    )
    .await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": stale, "message": "the service worker served the cached bundle; \
                    it now calls skipWaiting when an update is found"}),
        )
        .await;
    register(
        &daemon,
        "Rotate the TLS certificates",
        &["Renew", "Reload nginx"],
    )
    .await;

    // "workbox" (the service worker library) is nowhere: the record says "service worker".
    let workbox = daemon
        .ok("memory_recall", json!({"query": "workbox update"}))
        .await;
    assert_eq!(task_ids(&workbox), [stale.as_str()], "{workbox}");
    assert_eq!(workbox["results"][0]["weak"], true, "{workbox}");
    let message = workbox["message"].as_str().unwrap();
    assert!(
        message.contains(
            "The first holds every word of the question that anything indexed holds; it \
             lacks workbox"
        ) && message.contains("if it names something else, nothing recorded answers"),
        "{message}"
    );

    // "deploy" is held elsewhere; "kubernetes" nowhere: the first lacks a word the index
    // holds, so it is likely not the answer.
    let shared = daemon
        .ok(
            "memory_recall",
            json!({"query": "kubernetes certificates deploy ingress"}),
        )
        .await;
    let message = shared["message"].as_str().unwrap();
    assert!(
        shared["results"][0]["weak"] == true
            && message.contains("so likely not what you look for")
            && !message.contains("The first holds every word"),
        "{shared}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recency_bias_trades_relevance_for_recency() {
    let daemon = TestDaemon::start_manual().await;
    let old = register(&daemon, "Deploy the API", &["Deploy", "Deploy the docs"]).await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": old, "message": "deploy went fine"}),
        )
        .await;
    daemon
        .manual_clock()
        .advance(Duration::from_secs(30 * 86_400));
    let new = register(&daemon, "Deploy the API", &["Build", "Ship it"]).await;
    let order = |bias: f64| {
        let daemon = &daemon;
        async move {
            let answer = daemon
                .ok(
                    "memory_recall",
                    json!({"query": "deploy", "recency_bias": bias, "limit": 5}),
                )
                .await;
            task_ids(&answer)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(order(0.0).await, [old.clone(), new.clone()]);
    assert_eq!(order(1.0).await, [new, old]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_recall_calls_say_how_to_fix_them() {
    let daemon = TestDaemon::start_manual().await;
    for (params, hint) in [
        (json!({"query": " "}), "say what to look for"),
        (json!({"query": "x", "limit": 0}), "between 1 and 20"),
        (json!({"query": "x", "limit": 21}), "between 1 and 20"),
        (
            json!({"query": "x", "recency_bias": 1.5}),
            "from 0 (best match first",
        ),
        (
            json!({"query": "x", "source": "video"}),
            "task, wait, terminal, screen",
        ),
        (json!({"limit": 3}), "memory_recall(query: string"),
    ] {
        let error = daemon.err("memory_recall", params.clone()).await;
        assert!(error.hint.contains(hint), "{params}: {}", error.hint);
    }
    let words = daemon
        .ok("memory_recall", json!({"query": "how did I do it?"}))
        .await;
    assert!(
        words["message"]
            .as_str()
            .unwrap()
            .contains("no word to look for"),
        "{words}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_session_that_ended_is_found_by_its_output_and_exit() {
    let daemon = TestDaemon::start().await;
    let started = daemon
        .ok(
            "term_start",
            json!({"command": "echo compiling the widgets; echo 'error: widget 7 is bent'; exit 3"}),
        )
        .await;
    let session = started["session_id"].as_str().unwrap().to_owned();
    let answer = recall_once_indexed(&daemon, "bent widget", "terminal").await;
    let result = &answer["results"][0];
    assert_eq!(result["source"], "terminal", "{answer}");
    assert_eq!(result["task_id"], Value::Null);
    let summary = result["summary"].as_str().unwrap();
    assert!(
        summary.contains(&session) && summary.contains("exited with status 3"),
        "{summary}"
    );
    let steps = result["steps"].to_string();
    assert!(
        steps.contains("error: widget 7 is bent")
            && steps.contains("The command exited with status 3."),
        "{steps}"
    );
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("1 ended terminal session"),
        "{answer}"
    );
    // A task search does not return it.
    let tasks_only = daemon
        .ok(
            "memory_recall",
            json!({"query": "bent widget", "source": "task"}),
        )
        .await;
    assert_eq!(tasks_only["results"], json!([]));
}

/// A session started for a task's step names that task: the result carries its id, and a
/// search within the task finds the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_session_started_for_a_task_is_found_within_it() {
    let daemon = TestDaemon::start().await;
    let task = register(
        &daemon,
        "Calibrate the widget press",
        &["Run the calibration"],
    )
    .await;
    daemon
        .ok(
            "term_start",
            json!({
                "command": "echo 'press calibrated to 41.5 newtons'",
                "task_id": task,
                "step": 1
            }),
        )
        .await;
    let answer = recall_once_indexed(&daemon, "newtons", "terminal").await;
    assert_eq!(answer["results"][0]["task_id"], task.as_str(), "{answer}");
    let within = daemon
        .ok(
            "memory_recall",
            json!({"query": "newtons", "task_id": task, "source": "terminal"}),
        )
        .await;
    assert_eq!(within["results"][0]["source"], "terminal", "{within}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_that_woke_is_found_by_its_condition_and_wake() {
    let daemon = TestDaemon::start().await;
    let log = daemon.dir.path().join("deploy.log");
    std::fs::write(&log, "").unwrap();
    let wait = daemon
        .ok(
            "smart_wait",
            json!({"target": format!("file:{}", log.display()),
                   "wake_when": "\"MIGRATIONS APPLIED\" appears", "timeout": 60, "poll_interval": 0.2}),
        )
        .await;
    let wait_id = wait["wait_id"].as_str().unwrap().to_owned();
    crate::support::append(&log, "running 12 schema migrations\nMIGRATIONS APPLIED");
    let answer = recall_once_indexed(&daemon, "migrations applied", "wait").await;
    let result = &answer["results"][0];
    assert_eq!(result["source"], "wait");
    let summary = result["summary"].as_str().unwrap();
    assert!(
        summary.contains(&wait_id) && summary.contains("resolved"),
        "{summary}"
    );
    assert!(
        result["steps"].to_string().contains("smart_wait resolved"),
        "{result}"
    );
}

async fn recall_ids(socket: &std::path::Path, query: &str) -> Vec<String> {
    let mut client = Client::connect(socket).await.unwrap();
    let answer = ok(&mut client, "memory_recall", json!({"query": query})).await;
    task_ids(&answer).into_iter().map(str::to_owned).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_index_survives_a_kill_and_is_rebuilt_when_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let id = ok(
        &mut client,
        "task_register",
        json!({"name": "Migrate the billing database", "plan": ["Dump", "Restore"]}),
    )
    .await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        recall_ids(&daemon.socket, "billing migration").await,
        [id.as_str()]
    );
    let index = dir.path().join("data").join("recall.sqlite");
    assert!(index.exists());
    use std::os::unix::fs::PermissionsExt;
    for file in ["recall.sqlite", "recall.sqlite-wal", "recall.sqlite-shm"] {
        let file = dir.path().join("data").join(file);
        if file.exists() {
            assert_eq!(
                std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
                0o600,
                "{}",
                file.display()
            );
        }
    }
    daemon.kill();

    let daemon = DaemonProcess::start(dir.path());
    assert_eq!(recall_ids(&daemon.socket, "billing").await, [id.as_str()]);
    daemon.terminate();

    for file in ["recall.sqlite", "recall.sqlite-wal", "recall.sqlite-shm"] {
        let _ = std::fs::remove_file(dir.path().join("data").join(file));
    }
    let daemon = DaemonProcess::start(dir.path());
    assert_eq!(recall_ids(&daemon.socket, "billing").await, [id.as_str()]);
    daemon.terminate();

    // A damaged index (garbage where SQLite's header should be) is set aside, kept, and
    // rebuilt at the next start.
    for file in ["recall.sqlite-wal", "recall.sqlite-shm"] {
        let _ = std::fs::remove_file(dir.path().join("data").join(file));
    }
    std::fs::write(&index, vec![0x5a; 8192]).unwrap();
    let daemon = DaemonProcess::start(dir.path());
    assert_eq!(recall_ids(&daemon.socket, "billing").await, [id.as_str()]);
    assert!(daemon.log_text().contains("was set aside as"));
    let aside = dir.path().join("data").join("recall.sqlite.damaged");
    assert_eq!(
        std::fs::read(&aside).unwrap(),
        vec![0x5a; 8192],
        "kept as it was"
    );
    daemon.terminate();
}

/// With screen history off (the default), pausing and resuming say so and leave the
/// recorder as it was: off, with no reason to report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_and_resume_with_recording_off_leave_it_off() {
    let daemon = TestDaemon::start().await;
    let paused = daemon.ok("recall.pause", json!({"for": "30m"})).await;
    assert_eq!(paused["state"], "paused_user", "{paused}");
    assert!(
        paused["message"].as_str().unwrap().contains("off anyway"),
        "{paused}"
    );
    let resumed = daemon.ok("recall.resume", json!({})).await;
    assert_eq!(
        (&resumed["state"], &resumed["reason"]),
        (&json!("off"), &Value::Null),
        "{resumed}"
    );
    let status = daemon.ok("daemon.status", json!({})).await;
    assert_eq!(status["recall"]["state"], "off", "{status}");
}

/// The titles of the tasks in the index file, read beside the daemon (no search asked).
fn indexed_titles(index: &std::path::Path) -> Vec<String> {
    let Ok(connection) =
        rusqlite::Connection::open_with_flags(index, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return Vec::new();
    };
    let Ok(mut statement) = connection.prepare("SELECT title FROM doc WHERE source = 'task'")
    else {
        return Vec::new();
    };
    statement
        .query_map([], |row| row.get(0))
        .map(|rows| rows.filter_map(Result::ok).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_index_follows_the_task_database_without_being_asked() {
    let daemon = TestDaemon::start().await;
    let index = daemon.dir.path().join("data").join("recall.sqlite");
    register(
        &daemon,
        "Rotate the quokka signing keys",
        &["Make keys", "Ship"],
    )
    .await;
    // No memory_recall: the index catches up once the database's commits go quiet.
    crate::support::wait_until(
        "the index holds the task registered",
        Duration::from_secs(20),
        async || {
            indexed_titles(&index)
                .iter()
                .any(|title| title.contains("quokka"))
        },
    )
    .await;
    // A write a search comes right after is found by that search: it catches up first.
    let second = register(&daemon, "Renew the wombat certificate", &["Renew"]).await;
    let answer = daemon
        .ok("memory_recall", json!({"query": "wombat certificate"}))
        .await;
    assert_eq!(task_ids(&answer), [second.as_str()], "{answer}");
}

/// One line of a Claude Code transcript, at `second` past 10:00.
fn transcript_line(second: u32, role: &str, content: &Value) -> String {
    let line = json!({
        "type": role,
        "message": {"role": role, "content": content},
        "timestamp": format!("2026-11-20T10:{:02}:{:02}.000Z", second / 60, second % 60),
        "sessionId": "5f1c",
    });
    format!("{line}\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_own_claude_code_sessions_are_found_and_forgotten() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("projects/-home-alex-coursefolio");
    std::fs::create_dir_all(&project).unwrap();
    let session = project.join("5f1c.jsonl");
    let mut text = transcript_line(0, "user", &json!("rotate the stripe webhook secret"));
    text += &transcript_line(
        10,
        "assistant",
        &json!([{"type": "tool_use", "id": "a", "name": "Bash",
                "input": {"command": "stripe webhooks rotate --api-key sk_live_9f8e7d6c5b4a39281706abcd"}}]),
    );
    text += &transcript_line(
        20,
        "user",
        &json!([{"type": "tool_result", "tool_use_id": "a", "content": "rotated; new signing secret saved to the vault"}]),
    );
    std::fs::write(&session, &text).unwrap();
    let projects = home.path().join("projects");
    let daemon = TestDaemon::start_with(
        move |config| {
            config.recall.sources = vec!["claude-code".into()];
            config.recall.claude_projects = projects.display().to_string();
        },
        None,
    )
    .await;

    let found = recall_once_indexed(&daemon, "stripe webhook", "transcript").await;
    let first = &found["results"][0];
    assert_eq!(first["source"], "transcript", "{found}");
    assert_eq!(first["project"], "-home-alex-coursefolio");
    assert!(
        first["steps"]
            .to_string()
            .contains("Ran: stripe webhooks rotate"),
        "{first}"
    );
    assert!(
        !found.to_string().contains("sk_live_9f8e"),
        "redacted: {found}"
    );
    assert!(
        found["message"]
            .as_str()
            .unwrap()
            .contains("1 past agent session"),
        "{found}"
    );

    // What the session adds later is read at the next look.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&session)
        .unwrap();
    use std::io::Write;
    file.write_all(
        transcript_line(
            40,
            "assistant",
            &json!([{"type": "text", "text": "Done: the old secret is revoked at the dashboard."}]),
        )
        .as_bytes(),
    )
    .unwrap();
    recall_once_indexed(&daemon, "revoked dashboard", "transcript").await;

    // Forgotten by its project folder, it stays forgotten while the file is still there.
    let forgotten = daemon
        .ok("recall.forget", json!({"app": "-home-alex-coursefolio"}))
        .await;
    assert_eq!(forgotten["forgotten"], 1, "{forgotten}");
    tokio::time::sleep(actors::recall::actor::TRANSCRIPTS_PERIOD * 2).await;
    let after = daemon
        .ok(
            "memory_recall",
            json!({"query": "stripe webhook", "source": "transcript"}),
        )
        .await;
    assert_eq!(after["results"], json!([]), "{after}");
    daemon.stop().await;
}
