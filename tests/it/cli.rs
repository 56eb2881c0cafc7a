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
        out.contains("  ✓? 1. Build\n  ▶ 2. Push\n  ○ 3. Verify"),
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

    // A script takes the id alone, and it names the task it registered.
    let (code, out, err) = run(&["task", "register", "Script", "--step", "One", "--print-id"]);
    assert_eq!(code, 0, "{err}");
    let printed = out.trim_end();
    assert!(printed.starts_with("t-") && !printed.contains(' '), "{out}");
    let (code, out, _) = run(&["task", "show", printed]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Script  ("), "{out}");
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

/// A reader that goes away (`lookout --json task list | true`) ends the command quietly:
/// no panic, exit 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_pipe_ends_a_command_quietly() {
    let daemon = TestDaemon::start().await;
    for index in 0..30 {
        daemon
            .register(serde_json::json!({"name": format!("Task {index}"), "plan": ["One", "Two"]}))
            .await;
    }
    let socket = daemon.socket();
    for args in [
        vec!["--json", "task", "list"],
        vec!["task", "list"],
        vec!["tools", "--format", "openai"],
        vec!["man"],
        vec!["completions", "bash"],
    ] {
        let mut child = std::process::Command::new(crate::support::BINARY)
            .arg("--socket")
            .arg(&socket)
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader is gone before anything is written
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `--config` naming a file that is not there stops every command with the reason, instead
/// of leaving it on the defaults.
#[test]
fn a_missing_config_file_is_an_error() {
    for args in [
        vec!["--config", "/nonexistent/lookout.toml", "task", "list"],
        vec!["--config", "/nonexistent/lookout.toml", "status"],
        vec!["--config", "/nonexistent/lookout.toml", "serve"],
    ] {
        let (code, out, err) = cli(&args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {err}");
        assert!(
            err.contains("--config /nonexistent/lookout.toml: no such file"),
            "{err}"
        );
    }
}

/// Completions for three shells and the man pages come from the same command definitions.
#[test]
fn completions_and_man_pages_are_generated_from_the_commands() {
    for (shell, marker) in [
        ("bash", "complete -F _lookout"),
        ("zsh", "#compdef lookout"),
        ("fish", "complete -c lookout"),
    ] {
        let (code, out, err) = cli(&["completions", shell]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(marker), "{shell}: {out}");
        for command in ["task", "recall", "service", "completions"] {
            assert!(out.contains(command), "{shell} lacks {command}");
        }
    }
    let (code, page, err) = cli(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains(".TH lookout 1"), "{page}");
    assert!(page.contains("\\-\\-json"), "{page}");
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = cli(&["man", "--out", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for page in [
        "lookout.1",
        "lookout-task.1",
        "lookout-task-register.1",
        "lookout-service.1",
    ] {
        assert!(dir.path().join(page).exists(), "{page} was not written");
    }
}

/// Logs are coloured only when asked: `--color never` (and a pipe, and NO_COLOR) give plain
/// text, `--color always` escapes.
#[test]
fn log_colour_follows_the_color_flag() {
    let run = |colour: &str| -> String {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("lookout.sock");
        let data = dir.path().join("data");
        let config = dir.path().join("config.toml");
        std::fs::write(
            &config,
            format!("data_dir = {data:?}\nsocket_path = {socket:?}\nlog_level = \"info\"\n"),
        )
        .unwrap();
        let mut child = std::process::Command::new(crate::support::BINARY)
            .args(["--color", colour, "--config"])
            .arg(&config)
            .arg("serve")
            .env("OPENCLAW_STATE_DIR", dir.path().join("no-openclaw"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the daemon did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        crate::support::terminate(child.id());
        crate::support::wait_with_timeout(&mut child, std::time::Duration::from_secs(20));
        crate::support::stderr_of(&mut child)
    };
    let plain = run("never");
    assert!(plain.contains("INFO"), "{plain}");
    assert!(!plain.contains('\u{1b}'), "{plain}");
    let auto = run("auto");
    assert!(!auto.contains('\u{1b}'), "stderr is a pipe: {auto}");
    let coloured = run("always");
    assert!(coloured.contains("\u{1b}["), "{coloured}");
}
