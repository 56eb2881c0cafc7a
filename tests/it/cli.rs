//! The `lookout` client commands against a daemon, as a user types them.

use serde_json::Value;

use crate::support::{TestDaemon, cli};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_commands_round_trip_through_the_daemon() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut full = vec!["--socket", socket];
        full.extend_from_slice(args);
        cli(&full)
    };

    let (code, out, err) = run(&[
        "task", "register", "Deploy", "--step", "Build", "--step", "Push", "--step", "Verify",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Registered t-"), "{out}");
    assert!(
        out.contains("  ▶ 1. Build\n  ○ 2. Push\n  ○ 3. Verify"),
        "{out}"
    );
    let (_, json_out, _) = run(&["--json", "task", "list"]);
    let listed: Value = serde_json::from_str(&json_out).unwrap();
    let id = listed["tasks"][0]["task_id"].as_str().unwrap().to_owned();

    let (code, out, _) = run(&["task", "update", &id, "-m", "Step 1 done — built v2"]);
    assert_eq!(code, 0);
    assert!(out.contains("Step 1 marked done"), "{out}");
    let (code, out, _) = run(&["task", "show", &id]);
    assert_eq!(code, 0);
    assert!(
        out.contains("[███████░░░░░░░░░░░░░] 33%  1 of 3 steps done"),
        "{out}"
    );
    assert!(
        out.contains("  ✓ 1. Build\n  ▶ 2. Push\n  ○ 3. Verify"),
        "{out}"
    );
    assert!(out.contains("Next: step 2, Push."), "{out}");

    let (_, out, _) = run(&["task", "list"]);
    assert!(out.contains(&id) && out.contains("1 active task."), "{out}");
    let (_, out, _) = run(&["task", "thread", &id]);
    assert!(
        out.contains("#2    ") && out.contains("Step 1 done — built v2"),
        "{out}"
    );
    let (_, out, _) = run(&["task", "update", &id, "--done", "2", "--status", "paused"]);
    assert!(out.contains("Status active → paused"), "{out}");
    let (_, out, _) = run(&["call", "task_list", r#"{"status":"paused"}"#]);
    let paused: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(paused["tasks"][0]["task_id"], Value::from(id));
    let (_, out, _) = run(&["status"]);
    assert!(out.contains("serving") && out.contains("paused 1"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_errors_print_the_message_and_the_hint() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let (code, _, err) = cli(&[
        "--socket",
        socket.to_str().unwrap(),
        "task",
        "update",
        "t-nothere",
        "-m",
        "x",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error: no task with id 't-nothere'")
            && err.contains("hint: task ids look like"),
        "{err}"
    );
    let (code, _, err) = cli(&[
        "--socket",
        socket.to_str().unwrap(),
        "call",
        "task_list",
        "{not json",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("params are not valid JSON"), "{err}");
}

#[test]
fn without_a_daemon_the_client_says_where_it_looked_and_how_to_start_one() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("nobody-home.sock");
    let (code, _, err) = cli(&["--socket", socket.to_str().unwrap(), "task", "list"]);
    assert_eq!(code, 3);
    assert!(err.contains(socket.to_str().unwrap()), "{err}");
    assert!(err.contains("lookout serve"), "{err}");
}
