//! Smart waits end to end: the four tools through the socket, log files, tmux panes and the
//! daemon's own terminal sessions in real time, and a wait that outlives a SIGKILLed daemon.

use std::time::Duration;

use lookout::client::Client;
use lookout::jsonrpc::codes;
use serde_json::{Value, json};

use crate::support::{DaemonProcess, TestDaemon, Tmux, append, deploy_task, err, ok, wait_until};

const PATIENCE: Duration = Duration::from_secs(20);

async fn state_of(client: &mut Client, wait_id: &str) -> Value {
    ok(client, "wait_status", json!({"wait_id": wait_id})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_wait_resolves_on_its_phrase_wakes_once_and_can_be_revived() {
    let daemon = TestDaemon::start().await;
    let log = daemon.dir.path().join("build.log");
    append(&log, "step 1");
    let mut client = daemon.client().await;
    let task_id = ok(&mut client, "task_register", deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let created = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", log.display()), "wake_when": "wake me when 'ALL DONE' is printed",
               "task_id": task_id, "poll_interval": 0.2, "timeout": 60}),
    )
    .await;
    assert_eq!(created["status"], "watching");
    assert_eq!(
        created["message"],
        "Monitoring. I'll wake you when: wake me when 'ALL DONE' is printed. Timeout: 60s. \
         Read as: 'ALL DONE' is printed (phrase match)."
    );
    assert_eq!(
        created["reading"],
        json!({"all_of": ["'ALL DONE' is printed"], "judged_by": {"'ALL DONE' is printed": "phrase match"}})
    );
    let wait_id = created["wait_id"].as_str().unwrap().to_owned();
    assert!(wait_id.starts_with("w-"));

    let watching = state_of(&mut client, &wait_id).await;
    assert_eq!(
        (watching["status"].clone(), watching["task_id"].clone()),
        (json!("watching"), json!(task_id))
    );
    let answer = ok(
        &mut client,
        "task_update",
        json!({"task_id": task_id, "query": "where am I?"}),
    )
    .await;
    assert_eq!(answer["wait"]["active_wait_ids"], json!([wait_id]));
    assert!(
        answer["summary"]
            .as_str()
            .unwrap()
            .contains(&format!("Active waits: {wait_id}."))
    );

    append(&log, "step 2");
    append(&log, "step 3");
    append(&log, "ALL DONE — 3 artifacts uploaded");
    wait_until("the wake", PATIENCE, async || {
        daemon.sink.received().len() == 1
    })
    .await;
    let event = &daemon.sink.received()[0];
    assert_eq!(event.kind, storage::EventKind::WaitResolved);
    assert!(
        event.text.starts_with(&format!(
            "smart_wait resolved ({wait_id}): ALL DONE — 3 artifacts uploaded. Elapsed: "
        )),
        "{}",
        event.text
    );
    assert!(event.text.contains(&format!(
        "Task {task_id} \"Deploy coursefolio to production\": continue with step 1"
    )));
    let resolved = state_of(&mut client, &wait_id).await;
    assert_eq!(resolved["status"], "resolved");
    assert_eq!(
        resolved["last_observation"],
        "ALL DONE — 3 artifacts uploaded"
    );
    assert!(resolved["counters"]["captures"].as_u64().unwrap() >= 1);
    let events: Vec<&str> = resolved["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        (events.first(), events.last()),
        (Some(&"created"), Some(&"resolved"))
    );

    // Seed 004 acceptance 5: the task's thread says so in `wait` messages.
    let thread = ok(&mut client, "task_thread", json!({"task_id": task_id})).await;
    let waits: Vec<&Value> = thread["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["msg_type"] == "wait")
        .collect();
    assert_eq!(waits.len(), 2);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        daemon.sink.received().len(),
        1,
        "one wake, not one per poll"
    );

    let revived = ok(
        &mut client,
        "wait_update",
        json!({"wait_id": wait_id, "wake_when": "when 'deployed' shows", "timeout": 30}),
    )
    .await;
    assert_eq!(revived["status"], "watching");
    assert_eq!(
        revived["message"],
        "Resumed. Watching for: when 'deployed' shows. New timeout: 30s."
    );
    append(&log, "deployed to prod");
    wait_until("the second wake", PATIENCE, async || {
        daemon.sink.received().len() == 2
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_never_met_wait_times_out_with_the_last_observation_and_cancel_sends_nothing() {
    let daemon = TestDaemon::start().await;
    let log = daemon.dir.path().join("download.log");
    append(&log, "downloading 85%");
    let mut client = daemon.client().await;
    let target = format!("file:{}", log.display());
    let slow = ok(&mut client, "smart_wait", json!({"target": target, "wake_when": "when 'saved' appears", "timeout": 1, "poll_interval": 0.2})).await;
    let quiet = ok(
        &mut client,
        "smart_wait",
        json!({"target": target, "wake_when": "when 'never' appears", "timeout": 3600}),
    )
    .await;
    let cancelled = ok(
        &mut client,
        "wait_cancel",
        json!({"wait_id": quiet["wait_id"], "reason": "user provided the file directly"}),
    )
    .await;
    assert_eq!(
        cancelled,
        json!({"wait_id": quiet["wait_id"], "status": "cancelled",
               "reading": {"all_of": ["'never' appears"], "judged_by": {"'never' appears": "phrase match"}},
               "message": "Wait cancelled. Reason: user provided the file directly."})
    );

    wait_until("the timeout", PATIENCE, async || {
        !daemon.sink.received().is_empty()
    })
    .await;
    let event = &daemon.sink.received()[0];
    let slow_id = slow["wait_id"].as_str().unwrap();
    assert_eq!(event.wait_id.as_deref(), Some(slow_id));
    assert!(
        event.text.starts_with(&format!("smart_wait timeout ({slow_id}): Condition not met after 1s. Last observation: downloading 85%.")),
        "{}",
        event.text
    );
    assert_eq!(state_of(&mut client, slow_id).await["status"], "timeout");
    let live = ok(&mut client, "wait_status", json!({})).await;
    assert_eq!(live["waits"], json!([]), "neither is live");
    assert_eq!(live["message"], "No live waits.");
    assert_eq!(
        daemon.sink.received().len(),
        1,
        "the cancelled wait sent nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_calls_are_validated_with_hints() {
    let daemon = TestDaemon::start().await;
    let cases = [
        (
            json!({"target": "Firefox", "wake_when": "x"}),
            codes::INVALID_PARAMS,
            "has no kind",
        ),
        (
            json!({"target": "file:relative.log", "wake_when": "x"}),
            codes::INVALID_PARAMS,
            "not an absolute path",
        ),
        (
            json!({"target": "file:/tmp/x.log", "wake_when": "  "}),
            codes::INVALID_PARAMS,
            "wake_when is blank",
        ),
        (
            json!({"target": "file:/tmp/x.log", "wake_when": "x", "timeout": 0}),
            codes::INVALID_PARAMS,
            "timeout 0 is out of range",
        ),
        (
            json!({"target": "file:/tmp/x.log", "wake_when": "x", "timeout": 86_401}),
            codes::INVALID_PARAMS,
            "out of range",
        ),
        (
            json!({"target": "file:/tmp/x.log", "wake_when": "x", "poll_interval": 0.1}),
            codes::INVALID_PARAMS,
            "poll_interval 0.1",
        ),
        (
            json!({"target": "file:/tmp/x.log", "wake_when": "x", "task_id": "t-nope00"}),
            codes::NOT_FOUND,
            "no task with id",
        ),
        (
            json!({"target": "file:/tmp/x.log", "wake_when": "x", "frequency": 2}),
            codes::INVALID_PARAMS,
            "unknown field `frequency`",
        ),
    ];
    for (params, code, words) in cases {
        let error = daemon.err("smart_wait", params.clone()).await;
        assert_eq!(error.code, code, "{params}: {}", error.message);
        assert!(error.message.contains(words), "{params}: {}", error.message);
        assert!(!error.hint.is_empty());
    }
    // wake_when is required: the blank one's hint says what to put in it, not to leave it out.
    let blank = daemon
        .err(
            "smart_wait",
            json!({"target": "file:/tmp/x.log", "wake_when": " "}),
        )
        .await;
    assert!(
        blank.hint.contains("say what to wait for") && !blank.hint.contains("leave"),
        "{blank:?}"
    );
    assert_eq!(
        daemon
            .err("wait_status", json!({"wait_id": "w-nope00"}))
            .await
            .code,
        codes::NOT_FOUND
    );
    assert_eq!(
        daemon
            .err("wait_cancel", json!({"wait_id": "w-nope00"}))
            .await
            .code,
        codes::NOT_FOUND
    );
    assert_eq!(
        daemon
            .err("wait_update", json!({"wait_id": "w-nope00", "timeout": 5}))
            .await
            .code,
        codes::NOT_FOUND
    );

    let log = daemon.dir.path().join("x.log");
    let live = daemon
        .ok(
            "smart_wait",
            json!({"target": format!("file:{}", log.display()), "wake_when": "when 'x' shows"}),
        )
        .await;
    let empty = daemon
        .err("wait_update", json!({"wait_id": live["wait_id"]}))
        .await;
    assert!(
        empty
            .message
            .contains("needs wake_when, timeout or message"),
        "{}",
        empty.message
    );
    daemon
        .ok("wait_cancel", json!({"wait_id": live["wait_id"]}))
        .await;
    let conflict = daemon
        .err(
            "wait_update",
            json!({"wait_id": live["wait_id"], "timeout": 60}),
        )
        .await;
    assert_eq!(conflict.code, codes::CONFLICT);
    assert_eq!(
        daemon.ok("daemon.status", json!({})).await["waits"]["total"],
        1
    );
}

/// The daemon is SIGKILLed while a wait watches a log; after the restart the wait goes on
/// and resolves when the line appears.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_survives_a_sigkill_of_the_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(&log, "starting");
    let sink_script = crate::support::write_script(
        dir.path(),
        "sink.sh",
        "cat >> \"$(dirname \"$0\")/wakes.log\"\n",
    );
    let config = format!(
        "[[wake.sinks]]\nkind = \"command\"\nprogram = {:?}\n",
        sink_script.display().to_string()
    );
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let wait_id = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", log.display()), "wake_when": "when 'ready on' shows", "poll_interval": 0.2, "timeout": 600}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    daemon.kill();

    append(&log, "ready on :8080");
    let daemon = DaemonProcess::start_with(dir.path(), &config, &[]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    wait_until("resolved after the restart", PATIENCE, async || {
        state_of(&mut client, &wait_id).await["status"] == "resolved"
    })
    .await;
    let wakes = dir.path().join("wakes.log");
    // The shell creates the file before `cat` writes to it: wait for a whole line.
    wait_until("the wake reached the sink", PATIENCE, async || {
        std::fs::read_to_string(&wakes).is_ok_and(|text| text.contains('\n'))
    })
    .await;
    let text = std::fs::read_to_string(&wakes).unwrap();
    let event: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(event["kind"], "wait_resolved");
    assert!(
        event["text"].as_str().unwrap().contains("ready on :8080"),
        "{event}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs tmux"
)]
async fn a_tmux_pane_is_watched_and_a_missing_pane_ends_in_error_with_tmux_s_words() {
    let tmux = Tmux::start(
        "build",
        "sh -c 'for i in 1 2 3; do echo step $i; sleep 0.3; done; echo ALL DONE; sleep 60'",
    );
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start_with(dir.path(), "", &[("TMUX_TMPDIR", &tmux.tmpdir())]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let built = ok(&mut client, "smart_wait", json!({"target": "tmux:build", "wake_when": "when 'ALL DONE' is printed", "poll_interval": 0.2})).await;
    let missing = ok(
        &mut client,
        "smart_wait",
        json!({"target": "tmux:nosuch:9", "wake_when": "when 'x' shows", "poll_interval": 0.2}),
    )
    .await;
    let built_id = built["wait_id"].as_str().unwrap();
    wait_until("the build wait resolved", PATIENCE, async || {
        state_of(&mut client, built_id).await["status"] == "resolved"
    })
    .await;
    assert_eq!(
        state_of(&mut client, built_id).await["last_observation"],
        "ALL DONE"
    );

    let missing_id = missing["wait_id"].as_str().unwrap();
    wait_until("the missing pane failed", PATIENCE, async || {
        state_of(&mut client, missing_id).await["status"] == "error"
    })
    .await;
    let failed = state_of(&mut client, missing_id).await;
    let cause = failed["history"].as_array().unwrap().last().unwrap()["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        cause.contains("5 capture failures in a row") && cause.contains("nosuch"),
        "{cause}"
    );
    assert_eq!(failed["counters"]["captures"], 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_session_is_watched_for_a_phrase_and_for_its_exit() {
    let daemon = TestDaemon::start().await;
    let mut client = daemon.client().await;
    let loop_session = ok(
        &mut client,
        "term_start",
        json!({"command": "for i in 1 2 3; do echo \"step $i\"; sleep 0.3; done; echo ALL DONE; sleep 30"}),
    )
    .await["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let phrase = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("pty:{loop_session}"), "wake_when": "wake me when 'ALL DONE' is printed",
               "poll_interval": 0.2, "timeout": 60}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let failing_session = ok(
        &mut client,
        "term_start",
        json!({"command": "echo compiling; sleep 0.5; echo 'error: linker failed'; exit 3"}),
    )
    .await["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let exit = ok(
        &mut client,
        "smart_wait",
        json!({"target": format!("pty:{failing_session}"), "wake_when": "when the command finishes",
               "poll_interval": 0.2, "timeout": 60}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned();

    wait_until("both wakes", PATIENCE, async || {
        daemon.sink.received().len() == 2
    })
    .await;
    let phrase_state = state_of(&mut client, &phrase).await;
    assert_eq!(
        (
            phrase_state["status"].as_str(),
            phrase_state["last_observation"].as_str()
        ),
        (Some("resolved"), Some("ALL DONE"))
    );
    let exit_state = state_of(&mut client, &exit).await;
    assert_eq!(exit_state["status"], "resolved");
    assert_eq!(
        exit_state["last_observation"],
        "the process exited with status 3; last line: error: linker failed"
    );
    let texts: Vec<String> = daemon
        .sink
        .received()
        .iter()
        .map(|event| event.text.clone())
        .collect();
    assert!(
        texts.iter().any(|text| text.starts_with(&format!(
            "smart_wait resolved ({phrase}): ALL DONE. Elapsed: "
        ))),
        "{texts:?}"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(daemon.sink.received().len(), 2, "one wake per wait");

    let unknown = err(
        &mut client,
        "smart_wait",
        json!({"target": "pty:s-nosuch", "wake_when": "when 'x' shows"}),
    )
    .await;
    assert_eq!(unknown.code, codes::NOT_FOUND);
    assert!(unknown.message.contains("s-nosuch"), "{}", unknown.message);
    ok(
        &mut client,
        "term_stop",
        json!({"session_id": loop_session, "signal": "KILL"}),
    )
    .await;
}

/// The table of readings in docs/waits.md ("A dozen readings") is what the reader says: each row's
/// condition, read for its target with no model, gives the row's "Read as:" sentence.
#[test]
fn the_documented_table_of_readings_is_what_the_reader_says() {
    use actors::condition::{Judges, Reach, Reading};
    use actors::waits::texts::reading_sentence;

    let document = include_str!("../../docs/waits.md");
    let table = document
        .split_once("A dozen readings")
        .and_then(|(_, rest)| rest.split_once("**Checked**"))
        .map(|(table, _)| table)
        .expect("the table of readings in docs/waits.md");
    let mut rows = 0;
    let mut wrong = Vec::new();
    for row in table
        .lines()
        .filter(|line| line.starts_with("| `") && line.ends_with(".` |"))
    {
        let cells: Vec<&str> = row
            .split(" | ")
            .map(|cell| cell.trim_matches(['|', ' ']))
            .collect();
        let [condition, target, read_as] = cells[..] else {
            panic!("a row of three cells: {row}");
        };
        let condition = condition.trim_matches('`');
        let read_as = read_as.trim_matches('`');
        let judges = Judges {
            text: true,
            exit_known: target == "pty",
            has_prompt: target != "file",
            model: Reach::None,
        };
        let said = reading_sentence(&Reading::parse(condition), judges);
        if said != read_as {
            wrong.push(format!(
                "{condition:?} on {target}:\n  docs/waits.md {read_as}\n  reader {said}"
            ));
        }
        rows += 1;
    }
    assert!(rows >= 12, "{rows} rows");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A quiet window as long as the timeout could never pass: refused at creation and on
/// `wait_update`, saying what timeout would fit; a shorter one is taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_window_the_timeout_cannot_hold_is_refused() {
    let daemon = TestDaemon::start().await;
    let log = daemon.dir.path().join("build.log");
    append(&log, "step 1");
    let mut client = daemon.client().await;
    let target = format!("file:{}", log.display());
    let refused = err(
        &mut client,
        "smart_wait",
        json!({"target": target, "wake_when": "when the output goes quiet", "timeout": 30}),
    )
    .await;
    assert_eq!(refused.code, codes::INVALID_PARAMS);
    assert!(
        refused.message.contains("waits for 30s without output")
            && refused.message.contains("timeout of 30s"),
        "{}",
        refused.message
    );
    let hint = &refused.hint;
    assert!(hint.contains("timeout: 60"), "{hint}");
    let created = ok(
        &mut client,
        "smart_wait",
        json!({"target": target, "wake_when": "when the output is quiet for 10 seconds", "timeout": 30}),
    )
    .await;
    let wait_id = created["wait_id"].as_str().unwrap();
    let refused = err(
        &mut client,
        "wait_update",
        json!({"wait_id": wait_id, "wake_when": "when nothing new is printed for 2 minutes"}),
    )
    .await;
    assert_eq!(refused.code, codes::INVALID_PARAMS);
    ok(
        &mut client,
        "wait_update",
        json!({"wait_id": wait_id, "wake_when": "when nothing new is printed for 2 minutes", "timeout": 300}),
    )
    .await;
}
