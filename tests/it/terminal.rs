//! Terminal sessions end to end through the socket: `term_start`, `term_send`, `term_read`
//! and `term_stop` on real programs.

use std::time::Duration;

use lookout::jsonrpc::codes;
use serde_json::{Value, json};

use crate::support::{TestDaemon, wait_until};

/// Long enough for a slow CI machine to run a few shell commands.
const PROGRAM_TIMEOUT: Duration = Duration::from_secs(20);

async fn start(daemon: &TestDaemon, params: Value) -> String {
    let started = daemon.ok("term_start", params).await;
    let id = started["session_id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("s-") && id.len() == 8, "{started}");
    assert!(started["pid"].as_u64().unwrap() > 0, "{started}");
    assert!(
        started["message"]
            .as_str()
            .unwrap()
            .contains(&format!("pty:{id}")),
        "{started}"
    );
    id
}

async fn read(daemon: &TestDaemon, id: &str) -> Value {
    daemon.ok("term_read", json!({"session_id": id})).await
}

/// Reads the session until `check` holds, and returns that read.
async fn read_until(
    daemon: &TestDaemon,
    id: &str,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let mut seen = Value::Null;
    wait_until(what, PROGRAM_TIMEOUT, async || {
        seen = read(daemon, id).await;
        check(&seen)
    })
    .await;
    seen
}

fn screen(read: &Value) -> &str {
    read["screen"].as_str().unwrap()
}

fn ended(read: &Value) -> bool {
    read["running"] == false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_loop_reads_line_by_line_and_ends_with_its_exit_code() {
    let daemon = TestDaemon::start().await;
    let id = start(
        &daemon,
        json!({"command": "for i in 1 2 3; do echo \"step $i\"; sleep 1; done; echo 'ALL DONE'"}),
    )
    .await;
    let midway = read_until(&daemon, &id, "step 1", |r| screen(r).contains("step 1")).await;
    assert_eq!(midway["running"], true, "{midway}");
    assert_eq!(midway["exit_code"], Value::Null);
    assert!(!screen(&midway).contains("ALL DONE"), "{midway}");
    assert!(
        midway["message"].as_str().unwrap().contains("is running"),
        "{midway}"
    );

    let last = read_until(&daemon, &id, "the end", ended).await;
    assert_eq!(screen(&last), "step 1\nstep 2\nstep 3\nALL DONE");
    assert_eq!(last["exit_code"], 0);
    assert_eq!(last["exit_signal"], Value::Null);
    assert_eq!(last["scrollback"], "");
    let message = last["message"].as_str().unwrap();
    assert!(message.contains("exited with status 0"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_and_enter_reach_a_program_that_reads_a_line() {
    let daemon = TestDaemon::start().await;
    let id = start(
        &daemon,
        json!({"command": ["sh", "-c", "printf 'your name? '; read x; echo \"got $x\""]}),
    )
    .await;
    read_until(&daemon, &id, "the prompt", |r| {
        screen(r).contains("your name?")
    })
    .await;
    let sent = daemon
        .ok(
            "term_send",
            json!({"session_id": id, "text": "Ada Lovelace", "keys": ["Enter"]}),
        )
        .await;
    assert_eq!(sent["bytes"], "Ada Lovelace\r".len());
    let last = read_until(&daemon, &id, "the answer", ended).await;
    assert!(screen(&last).contains("got Ada Lovelace"), "{last}");
    assert_eq!(last["exit_code"], 0);

    let late = daemon
        .err("term_send", json!({"session_id": id, "text": "again"}))
        .await;
    assert_eq!(late.code, codes::CONFLICT, "{late:?}");
    assert!(late.hint.contains("term_start"), "{late:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn term_stop_ends_a_sleep_and_the_session_stays_readable() {
    let daemon = TestDaemon::start().await;
    let id = start(&daemon, json!({"command": ["sleep", "1000"]})).await;
    let stopped = daemon.ok("term_stop", json!({"session_id": id})).await;
    assert_eq!(stopped["signal"], "TERM");
    assert_eq!(stopped["running"], false, "{stopped}");
    assert_eq!(stopped["exit_signal"], "TERM", "{stopped}");
    assert_eq!(stopped["exit_code"], Value::Null);
    let message = stopped["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("Sent TERM to {id}")),
        "{message}"
    );

    let after = read(&daemon, &id).await;
    assert_eq!(
        (after["running"].clone(), after["exit_signal"].clone()),
        (json!(false), json!("TERM"))
    );
    let again = daemon
        .ok("term_stop", json!({"session_id": id, "signal": "KILL"}))
        .await;
    assert!(
        again["message"]
            .as_str()
            .unwrap()
            .contains("had already ended"),
        "{again}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_progress_bar_redrawn_with_carriage_returns_reads_as_its_final_state() {
    let daemon = TestDaemon::start().await;
    let id = start(
        &daemon,
        json!({"command": "echo fetching; for p in 5 40 75 100; do printf '\\r[%-10s] %3d%%' \"$(printf '%*s' $((p / 10)) '' | tr ' ' '#')\" $p; sleep 0.1; done; echo; echo ok"}),
    )
    .await;
    let last = read_until(&daemon, &id, "the end", ended).await;
    assert_eq!(screen(&last), "fetching\n[##########] 100%\nok", "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_argv_entries_are_never_run_by_a_shell() {
    let daemon = TestDaemon::start().await;
    let dir = tempfile::tempdir().unwrap();
    let marker = |name: &str| dir.path().join(name);
    let hostile = [
        format!("; touch {} #", marker("semicolon").display()),
        format!("$(touch {})", marker("substitution").display()),
        format!("`touch {}`", marker("backticks").display()),
        format!("&& touch {}", marker("and").display()),
    ];
    let mut argv = vec!["echo".to_owned()];
    argv.extend(hostile.iter().cloned());
    let id = start(&daemon, json!({"command": argv, "cols": 300})).await;
    let last = read_until(&daemon, &id, "echo to end", ended).await;
    for text in &hostile {
        assert!(screen(&last).contains(text.as_str()), "{last}");
    }
    for name in ["semicolon", "substitution", "backticks", "and"] {
        assert!(!marker(name).exists(), "{name} ran through a shell");
    }
    // A program name is a program name, not a command line.
    let refused = daemon
        .err(
            "term_start",
            json!({"command": [format!("touch {}; echo", marker("program").display())]}),
        )
        .await;
    assert_eq!(refused.code, codes::INVALID_PARAMS);
    assert!(refused.message.contains("no such program"), "{refused:?}");
    assert!(!marker("program").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_outlive_the_connection_that_started_them_and_keep_scrollback() {
    let daemon = TestDaemon::start().await;
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let mut client = daemon.client().await;
        let started = crate::support::ok(
            &mut client,
            "term_start",
            json!({"command": "seq 1 200; echo \"in $(pwd) as $GREETING\"; sleep 1000",
                   "cwd": dir.path(), "env": {"GREETING": "hi"}, "cols": 80, "rows": 24}),
        )
        .await;
        started["session_id"].as_str().unwrap().to_owned()
    };
    let cwd = dir.path().canonicalize().unwrap();
    let expected = format!("in {} as hi", cwd.display());
    let seen = read_until(&daemon, &id, "the last line", |r| {
        screen(r).contains(&expected)
    })
    .await;
    assert_eq!(seen["running"], true);
    // 24 rows: 179-200, the greeting and the cursor's empty row; 1-178 scrolled off.
    let paged = daemon
        .ok("term_read", json!({"session_id": id, "lines": 3}))
        .await;
    assert_eq!(paged["scrollback"], "176\n177\n178", "{paged}");
    assert_eq!(paged["scrollback_lines"], 3);
    assert_eq!(paged["scrollback_kept"], 178);
    assert!(screen(&paged).starts_with("179\n"), "{paged}");
    daemon
        .ok("term_stop", json!({"session_id": id, "signal": "KILL"}))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_calls_say_how_to_fix_them() {
    let daemon = TestDaemon::start().await;
    let unknown = daemon
        .err("term_read", json!({"session_id": "s-zzzzzz"}))
        .await;
    assert_eq!(unknown.code, codes::NOT_FOUND);
    assert!(unknown.hint.contains("term_start"), "{unknown:?}");
    let table = [
        ("term_start", json!({"command": 42}), "string or an array"),
        (
            "term_start",
            json!({"command": "ls", "rows": 1}),
            "rows 1 is out of range",
        ),
        (
            "term_start",
            json!({"command": "ls", "cwd": "src"}),
            "not an absolute path",
        ),
        (
            "term_send",
            json!({"session_id": "s-zzzzzz", "keys": ["Ctrl-C", "Hyper"]}),
            "unknown key 'Hyper'",
        ),
        (
            "term_send",
            json!({"session_id": "s-zzzzzz"}),
            "needs text or keys",
        ),
        (
            "term_stop",
            json!({"session_id": "s-zzzzzz", "signal": "USR1"}),
            "unknown signal",
        ),
        (
            "term_read",
            json!({"session_id": "s-zzzzzz", "lines": 5000}),
            "out of range",
        ),
    ];
    for (method, params, words) in table {
        let error = daemon.err(method, params.clone()).await;
        assert_eq!(error.code, codes::INVALID_PARAMS, "{method} {params}");
        assert!(
            error.message.contains(words),
            "{method} {params}: {error:?}"
        );
        assert!(!error.hint.is_empty());
    }
    let typo = daemon.err("term_start", json!({"cmd": "ls"})).await;
    assert!(
        typo.hint.contains("term_start(command: string | string[]"),
        "{typo:?}"
    );
}
