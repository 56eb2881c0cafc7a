//! `lookout hook session-start`, Claude Code's SessionStart hook, against a daemon.

use serde_json::json;

use crate::support::{TestDaemon, cli, cli_with_stdin};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_start_prints_the_active_tasks_bounded() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let (code, out, _) = cli(&["--socket", socket, "hook", "session-start"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("[lookout] No active tasks."), "{out}");

    let long_step = "Rebuild the search index for every tenant, then verify the counts ".repeat(6);
    for index in 0..40 {
        daemon
            .ok(
                "task_register",
                json!({"name": format!("Migration {index}"), "plan": [long_step, "Verify", "Announce"]}),
            )
            .await;
    }
    let finished = daemon
        .ok(
            "task_register",
            json!({"name": "Finished already", "plan": ["Only step"]}),
        )
        .await;
    daemon
        .ok(
            "task_update",
            json!({"task_id": finished["task_id"], "status": "completed"}),
        )
        .await;
    let deploy = daemon
        .ok(
            "task_register",
            json!({"name": "Deploy coursefolio", "plan": ["Build", "Push", "Verify"]}),
        )
        .await;
    let deploy_id = deploy["task_id"].as_str().unwrap();
    daemon
        .ok(
            "task_update",
            json!({"task_id": deploy_id, "message": "Step 1 done — built v1.2.3"}),
        )
        .await;

    let (code, out, err) = cli(&["--socket", socket, "hook", "session-start"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() <= 4096, "{} bytes", out.len());
    assert!(out.starts_with("[lookout] Your active tasks"), "{out}");
    // The most recently updated task comes first, with its summary and next step.
    let first_block = out.split("\n\n").nth(1).unwrap();
    assert!(
        first_block.starts_with(&format!("{deploy_id} \"Deploy coursefolio\" (33% done)\n")),
        "{first_block}"
    );
    assert!(
        first_block.contains("Currently on step 2 (Push)."),
        "{first_block}"
    );
    assert!(first_block.contains("Next: step 2, Push."), "{first_block}");
    assert!(!out.contains("Finished already"), "only active tasks");
    assert!(
        out.contains("more active tasks: call task_list to see them."),
        "{out}"
    );

    let (code, small, _) = cli(&[
        "--socket",
        socket,
        "hook",
        "session-start",
        "--max-bytes",
        "1024",
    ]);
    assert_eq!(code, 0);
    assert!(small.len() <= 1024, "{} bytes", small.len());
    assert!(small.contains(deploy_id));
    let (code, _, err) = cli(&[
        "--socket",
        socket,
        "hook",
        "session-start",
        "--max-bytes",
        "10",
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn session_start_without_a_daemon_says_so_and_does_not_fail_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("nobody-home.sock");
    let (code, out, _) = cli(&[
        "--socket",
        socket.to_str().unwrap(),
        "hook",
        "session-start",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("[lookout] Task memory is unavailable"),
        "{out}"
    );
    assert!(
        out.contains(socket.to_str().unwrap()) && out.contains("lookout serve"),
        "{out}"
    );
    assert!(out.ends_with('\n'));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_start_puts_the_sessions_own_tasks_first_within_its_budget() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let register = |name: String, origin: Option<serde_json::Value>| {
        let mut params = json!({"name": name, "plan": ["Rebuild the search index for every tenant, then verify the counts; ".repeat(4), "Verify"]});
        if let Some(origin) = origin {
            params["origin"] = origin;
        }
        daemon.ok("task_register", params)
    };
    let mine = register(
        "Ship the invoices export".into(),
        Some(json!({"session_id": "5f0c-session", "cwd": "/home/me/billing"})),
    )
    .await;
    let neighbour = register(
        "Fix the billing tests".into(),
        Some(json!({"session_id": "another-session", "cwd": "/home/me/billing"})),
    )
    .await;
    // Twenty tasks of other sessions, all more recent: by recency alone neither of the
    // above would fit in 2 KiB.
    for index in 0..20 {
        register(format!("Someone else's migration {index}"), None).await;
    }
    let hook_input = r#"{"session_id":"5f0c-session","transcript_path":"/tmp/t.jsonl","cwd":"/home/me/billing","hook_event_name":"SessionStart","source":"compact"}"#;
    let args = [
        "--socket",
        socket,
        "hook",
        "session-start",
        "--max-bytes",
        "2048",
    ];
    let (code, out, err) = cli_with_stdin(&args, hook_input);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() <= 2048, "{} bytes", out.len());
    let blocks: Vec<&str> = out.split("\n\n").collect();
    assert!(
        blocks[1].starts_with(&format!(
            "{} \"Ship the invoices export\" (0% done, this session)",
            mine["task_id"].as_str().unwrap()
        )),
        "{out}"
    );
    assert!(
        blocks[2].starts_with(&format!(
            "{} \"Fix the billing tests\" (0% done, this folder)",
            neighbour["task_id"].as_str().unwrap()
        )),
        "{out}"
    );
    assert!(out.contains("more active tasks: call task_list"), "{out}");

    // Without stdin, recency decides and the session's task is crowded out.
    let (code, out, _) = cli(&args);
    assert_eq!(code, 0);
    assert!(!out.contains("Ship the invoices export"), "{out}");
    // A bad origin is refused with a hint, like any bad parameter.
    let error = daemon
        .err(
            "task_register",
            json!({"name": "x", "plan": ["a"], "origin": {"session": "typo"}}),
        )
        .await;
    assert!(
        error.message.contains("expected `session_id` or `cwd`"),
        "{error:?}"
    );
}

/// `--json` gives Claude Code's JSON hook output, with the same text as additional context.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_start_speaks_claude_codes_hook_json_when_asked() {
    let daemon = TestDaemon::start().await;
    daemon
        .ok(
            "task_register",
            json!({"name": "Deploy coursefolio", "plan": ["Build", "Push"]}),
        )
        .await;
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let (code, text, _) = cli(&["--socket", socket, "hook", "session-start"]);
    assert_eq!(code, 0);
    let (code, out, err) = cli(&["--socket", socket, "--json", "hook", "session-start"]);
    assert_eq!(code, 0, "{err}");
    let output: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        output["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    assert_eq!(
        output["hookSpecificOutput"]["additionalContext"],
        text.as_str()
    );
    assert!(text.contains("Deploy coursefolio"), "{text}");
}

/// After a compaction, a fresh session reads what still runs for its tasks: the hook lists
/// each wait still watching and each session still running with the call that continues it,
/// within its budget, and "where am I?" gives the same in its `inventory`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_session_reads_every_wait_and_session_still_running() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let id = daemon
        .register(json!({"name": "Release v2", "plan": ["Build", "Test", "Deploy"]}))
        .await;
    let session = daemon
        .ok(
            "term_start",
            json!({"command": "echo compiling crate 41 of 97; sleep 600", "task_id": id, "step": 1}),
        )
        .await;
    let session_id = session["session_id"].as_str().unwrap().to_owned();
    let mut waits = Vec::new();
    for (index, phrase) in ["BUILD OK", "tests passed", "deployed"].iter().enumerate() {
        let wait = daemon
            .ok(
                "smart_wait",
                json!({
                    "target": format!("file:/tmp/lookout-inventory-{index}.log"),
                    "wake_when": format!("'{phrase}' is printed"),
                    "task_id": id,
                    "step": index + 1,
                }),
            )
            .await;
        waits.push(wait["wait_id"].as_str().unwrap().to_owned());
    }
    // A wait ended is not still running.
    daemon
        .ok(
            "wait_cancel",
            json!({"wait_id": waits[2], "reason": "not yet"}),
        )
        .await;
    crate::support::wait_until(
        "the session printed its line",
        std::time::Duration::from_secs(10),
        async || {
            let read = daemon
                .ok("term_read", json!({"session_id": session_id}))
                .await;
            read["screen"].as_str().unwrap_or("").contains("crate 41")
        },
    )
    .await;

    let (code, out, err) = cli(&["--socket", socket, "hook", "session-start"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() <= 4096, "{} bytes", out.len());
    for wait in &waits[..2] {
        let line = out
            .lines()
            .find(|line| line.starts_with("- ") && line.contains(wait.as_str()))
            .unwrap_or_else(|| panic!("{wait} is listed: {out}"));
        assert!(line.starts_with("- still watching for step "), "{line}");
        assert!(
            line.ends_with(&format!("→ wait_status(wait_id: \"{wait}\")")),
            "{line}"
        );
    }
    assert!(!out.contains(waits[2].as_str()), "a cancelled wait: {out}");
    let line = out
        .lines()
        .find(|line| line.starts_with("- ") && line.contains(session_id.as_str()))
        .unwrap_or_else(|| panic!("the session is listed: {out}"));
    assert!(line.starts_with("- still running for step 1: "), "{line}");
    assert!(
        line.contains("last line: compiling crate 41 of 97"),
        "{line}"
    );
    assert!(line.ends_with(&format!("→ term_read(session_id: \"{session_id}\")")));

    let answer = daemon
        .ok(
            "task_update",
            json!({"task_id": id, "query": "where am I?", "max_bytes": 4096}),
        )
        .await;
    let listed: Vec<&str> = answer["inventory"]["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|wait| wait["wait_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [waits[0].as_str(), waits[1].as_str()]);
    assert_eq!(
        answer["inventory"]["sessions"][0]["session_id"],
        session_id.as_str()
    );
    let message = answer["message"].as_str().unwrap();
    assert!(
        message
            .contains("2 waits still watching and 1 terminal session still running for this task"),
        "{message}"
    );
    let detail = daemon.ok("task_get", json!({"task_id": id})).await;
    assert_eq!(detail["inventory"], answer["inventory"]);
}
