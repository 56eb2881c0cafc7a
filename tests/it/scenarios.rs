//! Waits that keep their word, end to end: scripted scenarios on `file:`, `tmux:` and `pty:`
//! targets (output written over time, text that was there before, echoed input, errors,
//! exits, quiet), each run against the real binary with no model and with a loopback model
//! server. Every outcome is checked: resolved at the right line, changed (never resolved)
//! when nobody could judge, timeout when the condition never held. A false "resolved" or a
//! missed wake fails the suite.
//!
//! The loopback model says the condition holds exactly when the output it is shown contains
//! `model-yes`: it stands for a model that recognises what the scenario's last line shows.
//!
//! With `--nocapture` the suite prints what it counted and how long wakes took after the
//! line that decided them was written (BENCHMARKS.md quotes it; nothing here asserts time).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actors::testkit::model_server::{ModelServer, Wire};
use lookout::client::Client;
use serde_json::json;

use crate::support::{DaemonProcess, Tmux, append, ok};

const POLL: f64 = 0.2;
/// Between two steps of a scenario: two polls, so each line is seen on its own.
const STEP: Duration = Duration::from_millis(400);
/// The timeout of a wait expected to time out; others get [`LONG_TIMEOUT_S`].
const SHORT_TIMEOUT_S: u64 = 4;
const LONG_TIMEOUT_S: u64 = 25;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    File,
    Tmux,
    /// A terminal session running `tail -f` of the scenario's file.
    Pty,
    /// A terminal session running this shell command (no file).
    PtyCommand(&'static str),
    /// A terminal session running `sh`, typed into with term_send.
    PtyShell,
}

#[derive(Clone, Copy, Debug)]
enum Step {
    /// A line of output (appended to the file the target shows).
    Line(&'static str),
    /// Typed into the shell session, then Enter.
    Type(&'static str),
    /// The log rotated: a new file under the same name, with this first line.
    Rotate(&'static str),
    /// The log was deleted and not put back.
    Delete,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Woken as resolved; the observation contains this.
    Resolved(&'static str),
    /// Woken as changed (nobody could judge the condition).
    Changed,
    /// Woken as changed because the condition can no longer hold; the text contains this.
    Ended(&'static str),
    Timeout,
}

struct Scenario {
    name: &'static str,
    kind: Kind,
    /// Output there before the wait starts.
    before: &'static [&'static str],
    condition: &'static str,
    steps: &'static [Step],
    without_model: Expect,
    with_model: Expect,
}

use Expect::{Changed, Ended, Resolved, Timeout};
use Step::{Delete, Line, Rotate, Type};

const SCENARIOS: &[Scenario] = &[
    // ---- log files ----
    Scenario {
        name: "a quoted phrase printed later",
        kind: Kind::File,
        before: &["step 1"],
        condition: "wait until it prints 'ALL DONE'",
        steps: &[Line("step 2"), Line("ALL DONE in 3s")],
        without_model: Resolved("ALL DONE in 3s"),
        with_model: Resolved("ALL DONE in 3s"),
    },
    Scenario {
        name: "a phrase already in the log is not news",
        kind: Kind::File,
        before: &["BUILD SUCCESSFUL in 3s"],
        condition: "when 'BUILD SUCCESSFUL' appears",
        steps: &[Line("> Task :compileJava"), Line("> Task :test")],
        without_model: Timeout,
        with_model: Timeout,
    },
    Scenario {
        name: "a phrase already in the log, then printed again",
        kind: Kind::File,
        before: &["BUILD SUCCESSFUL in 3s"],
        condition: "the log says \"BUILD SUCCESSFUL\"",
        steps: &[Line("> Task :compileJava"), Line("BUILD SUCCESSFUL in 9s")],
        without_model: Resolved("in 9s"),
        with_model: Resolved("in 9s"),
    },
    Scenario {
        name: "the schema's example: an error line",
        kind: Kind::File,
        before: &[],
        condition: "wake me when 'ALL DONE' is printed or an error appears",
        steps: &[
            Line("progress 20%"),
            Line("progress 60%"),
            Line("error: disk full"),
        ],
        without_model: Resolved("error: disk full"),
        with_model: Resolved("error: disk full"),
    },
    Scenario {
        name: "the schema's example: zero errors are no error",
        kind: Kind::File,
        before: &[],
        condition: "wake me when 'ALL DONE' is printed or an error appears",
        steps: &[
            Line("Compiled with 0 errors"),
            Line("Tests: 0 failed, 12 passed"),
            Line("ALL DONE"),
        ],
        without_model: Resolved("ALL DONE"),
        with_model: Resolved("ALL DONE"),
    },
    Scenario {
        name: "the deploy example",
        kind: Kind::File,
        before: &[],
        condition: "File download completes (the 'Download complete' notification appears), or an error dialog/message appears",
        steps: &[
            Line("Downloading 40%"),
            Line("Download complete: report.pdf"),
        ],
        without_model: Resolved("Download complete: report.pdf"),
        with_model: Resolved("Download complete: report.pdf"),
    },
    Scenario {
        name: "either of two phrases",
        kind: Kind::File,
        before: &[],
        condition: "when 'tests passed' or 'error' appears in the log",
        steps: &[Line("running 12 tests"), Line("12 tests passed")],
        without_model: Resolved("12 tests passed"),
        with_model: Resolved("12 tests passed"),
    },
    Scenario {
        name: "both of two phrases",
        kind: Kind::File,
        before: &[],
        condition: "when \"built\" and \"pushed\" are printed",
        steps: &[Line("image built"), Line("tagging"), Line("image pushed")],
        without_model: Resolved("image built"),
        with_model: Resolved("image built"),
    },
    Scenario {
        name: "one of two required phrases is not enough",
        kind: Kind::File,
        before: &[],
        condition: "when \"built\" and \"pushed\" are printed",
        steps: &[Line("image built"), Line("tagging")],
        without_model: Timeout,
        with_model: Timeout,
    },
    Scenario {
        name: "a condition only a model can judge",
        kind: Kind::File,
        before: &[],
        condition: "when the tests look green",
        steps: &[Line("running"), Line("all green model-yes")],
        without_model: Changed,
        with_model: Resolved("model saw model-yes"),
    },
    Scenario {
        name: "a phrase or an open clause: the phrase decides with a model",
        kind: Kind::File,
        before: &[],
        condition: "when the page looks right or 'DONE' appears",
        steps: &[Line("loading"), Line("DONE")],
        without_model: Changed,
        with_model: Resolved("DONE"),
    },
    Scenario {
        name: "the build finishes: a summary line",
        kind: Kind::File,
        before: &[],
        condition: "when the build finishes",
        steps: &[Line("compiling"), Line("BUILD SUCCESSFUL in 4s model-yes")],
        without_model: Resolved("BUILD SUCCESSFUL in 4s"),
        with_model: Resolved("model saw model-yes"),
    },
    Scenario {
        name: "a percentage reaches a value",
        kind: Kind::File,
        before: &["progress 100% (previous run)"],
        condition: "when progress reaches 100%",
        steps: &[Line("progress 45%"), Line("progress 100%")],
        without_model: Resolved("progress 100%"),
        with_model: Resolved("progress 100%"),
    },
    Scenario {
        name: "a count reaches a value",
        kind: Kind::File,
        before: &[],
        condition: "when at least 3 passed",
        steps: &[Line("1 passed"), Line("3 passed")],
        without_model: Resolved("3 passed"),
        with_model: Resolved("3 passed"),
    },
    Scenario {
        name: "unless: the guard holds the wake back",
        kind: Kind::File,
        before: &[],
        condition: "when 'DONE' appears unless 'ERROR' appears",
        steps: &[Line("ERROR: retrying"), Line("DONE")],
        without_model: Timeout,
        with_model: Timeout,
    },
    Scenario {
        name: "the output stops changing",
        kind: Kind::File,
        before: &[],
        condition: "when the output stops changing for 1 second",
        steps: &[Line("a"), Line("b")],
        without_model: Resolved("no change for"),
        with_model: Resolved("no change for"),
    },
    Scenario {
        name: "digits are exact: 10 failed is not 0 failed",
        kind: Kind::File,
        before: &[],
        condition: "when 'Tests: 0 failed' shows",
        steps: &[Line("Tests: 10 failed, 2 passed"), Line("Tests: 3 failed")],
        without_model: Timeout,
        with_model: Timeout,
    },
    Scenario {
        name: "a quoted word is matched as a word",
        kind: Kind::File,
        before: &[],
        condition: "when 'PASS' appears",
        steps: &[Line("Loading passwords"), Line("PASS")],
        without_model: Resolved("PASS"),
        with_model: Resolved("PASS"),
    },
    Scenario {
        name: "a retry is no failure, and the work ends the other way",
        kind: Kind::File,
        before: &[],
        condition: "when the deploy fails",
        steps: &[
            Line("retrying after error: timeout (attempt 1/5)"),
            Line("deploy finished successfully"),
        ],
        without_model: Ended("deploy finished successfully"),
        // A model judges the end of the work on a log; the stand-in finds nothing met.
        with_model: Timeout,
    },
    Scenario {
        name: "more than 3 errors are counted",
        kind: Kind::File,
        before: &[],
        condition: "when more than 3 errors have been logged",
        steps: &[
            Line("error: a"),
            Line("error: b"),
            Line("info: c"),
            Line("error: d"),
            Line("error: e"),
        ],
        without_model: Resolved("error: e"),
        with_model: Resolved("error: e"),
    },
    Scenario {
        name: "the log is deleted",
        kind: Kind::File,
        before: &[],
        condition: "when 'DONE' appears",
        steps: &[Line("working"), Delete],
        without_model: Ended("was deleted"),
        with_model: Ended("was deleted"),
    },
    Scenario {
        name: "a condition in German",
        kind: Kind::File,
        before: &[],
        condition: "wenn der Build fehlschlägt",
        steps: &[Line("compiling"), Line("BUILD FAILED")],
        without_model: Resolved("BUILD FAILED"),
        with_model: Timeout,
    },
    Scenario {
        name: "the log rotates",
        kind: Kind::File,
        before: &["DONE (yesterday)"],
        condition: "when 'DONE' appears",
        steps: &[Rotate("new run"), Line("DONE today")],
        without_model: Resolved("DONE today"),
        with_model: Resolved("DONE today"),
    },
    Scenario {
        name: "an error after a line of zero errors",
        kind: Kind::File,
        before: &[],
        condition: "when an error appears",
        steps: &[
            Line("Compiled with 0 errors"),
            Line("fatal: bad object HEAD"),
        ],
        without_model: Resolved("fatal: bad object HEAD"),
        with_model: Resolved("fatal: bad object HEAD"),
    },
    // ---- tmux panes (each shows `tail -f` of its file) ----
    Scenario {
        name: "tmux: a phrase printed later",
        kind: Kind::Tmux,
        before: &["step 1"],
        condition: "when 'ALL DONE' is printed",
        steps: &[Line("step 2"), Line("ALL DONE")],
        without_model: Resolved("ALL DONE"),
        with_model: Resolved("ALL DONE"),
    },
    Scenario {
        name: "tmux: a phrase in the pane's history is not news",
        kind: Kind::Tmux,
        before: &["DEPLOY OK"],
        condition: "when 'DEPLOY OK' shows",
        steps: &[Line("deploying again"), Line("waiting for pods")],
        without_model: Timeout,
        with_model: Timeout,
    },
    Scenario {
        name: "tmux: a traceback",
        kind: Kind::Tmux,
        before: &[],
        condition: "when an error appears",
        steps: &[Line("progress"), Line("Traceback (most recent call last):")],
        without_model: Resolved("Traceback"),
        with_model: Resolved("Traceback"),
    },
    Scenario {
        name: "tmux: an open condition",
        kind: Kind::Tmux,
        before: &[],
        condition: "when the deploy looks healthy",
        steps: &[Line("pods 2/3 ready")],
        without_model: Changed,
        with_model: Timeout,
    },
    Scenario {
        name: "tmux: framing is not a condition",
        kind: Kind::Tmux,
        before: &[],
        condition: "look for 'READY' in the pane, then wake me",
        steps: &[Line("starting"), Line("READY")],
        without_model: Resolved("READY"),
        with_model: Resolved("READY"),
    },
    Scenario {
        name: "tmux: a number",
        kind: Kind::Tmux,
        before: &[],
        condition: "when coverage is above 80%",
        steps: &[Line("coverage 72.5%"), Line("coverage 81.2%")],
        without_model: Resolved("coverage 81.2%"),
        with_model: Resolved("coverage 81.2%"),
    },
    // ---- terminal sessions ----
    Scenario {
        name: "pty: a phrase printed later",
        kind: Kind::Pty,
        before: &["step 1"],
        condition: "wake me when 'ALL DONE' is printed",
        steps: &[Line("step 2"), Line("ALL DONE")],
        without_model: Resolved("ALL DONE"),
        with_model: Resolved("ALL DONE"),
    },
    Scenario {
        name: "pty: a phrase on screen before is not news",
        kind: Kind::Pty,
        before: &["BUILD SUCCESSFUL"],
        condition: "when 'BUILD SUCCESSFUL' appears",
        steps: &[Line("compiling")],
        without_model: Timeout,
        with_model: Timeout,
    },
    Scenario {
        name: "pty: the command exits",
        kind: Kind::PtyCommand("sleep 0.6; echo done; exit 3"),
        before: &[],
        condition: "when the command finishes",
        steps: &[],
        without_model: Resolved("status 3"),
        with_model: Resolved("status 3"),
    },
    Scenario {
        name: "pty: it succeeds, but it failed",
        kind: Kind::PtyCommand("sleep 0.6; echo oops; exit 2"),
        before: &[],
        condition: "when the build succeeds",
        steps: &[],
        without_model: Ended("status 2"),
        with_model: Ended("status 2"),
    },
    Scenario {
        name: "pty: exits non-zero, but it exits 0",
        kind: Kind::PtyCommand("sleep 0.6; echo done; exit 0"),
        before: &[],
        condition: "when it exits non-zero",
        steps: &[],
        without_model: Ended("status 0"),
        with_model: Ended("status 0"),
    },
    Scenario {
        name: "pty: if it fails, but it succeeds",
        kind: Kind::PtyCommand("sleep 0.6; exit 0"),
        before: &[],
        condition: "if it fails",
        steps: &[],
        without_model: Ended("status 0"),
        with_model: Ended("status 0"),
    },
    Scenario {
        name: "pty: the exit code named",
        kind: Kind::PtyCommand("sleep 0.6; exit 3"),
        before: &[],
        condition: "when it exits with code 3",
        steps: &[],
        without_model: Resolved("status 3"),
        with_model: Resolved("status 3"),
    },
    Scenario {
        name: "pty: it fails",
        kind: Kind::PtyCommand("sleep 0.6; exit 2"),
        before: &[],
        condition: "when the build fails",
        steps: &[],
        without_model: Resolved("status 2"),
        with_model: Resolved("status 2"),
    },
    Scenario {
        name: "pty: a panic or a phrase",
        kind: Kind::PtyCommand("sleep 0.6; echo 'panic: index out of range'; sleep 30"),
        before: &[],
        condition: "when it panics or 'OK' appears",
        steps: &[],
        without_model: Resolved("panic: index out of range"),
        with_model: Resolved("panic: index out of range"),
    },
    Scenario {
        name: "pty: typed input's echo is not output",
        kind: Kind::PtyShell,
        before: &[],
        condition: "when 'DEPLOY OK' is printed",
        steps: &[Type("true DEPLOY OK"), Type("echo waiting")],
        without_model: Timeout,
        with_model: Timeout,
    },
    Scenario {
        name: "pty: typed command, then its output",
        kind: Kind::PtyShell,
        before: &[],
        condition: "when 'DEPLOY OK' is printed",
        steps: &[Type("echo DEPLOY OK")],
        without_model: Resolved("DEPLOY OK"),
        with_model: Resolved("DEPLOY OK"),
    },
    Scenario {
        name: "pty: the prompt returns",
        kind: Kind::PtyShell,
        before: &[],
        condition: "when the prompt returns",
        steps: &[Type("sleep 1")],
        without_model: Resolved("the prompt is back"),
        with_model: Resolved("the prompt is back"),
    },
    Scenario {
        name: "pty: a shell's command finishes when its prompt returns",
        kind: Kind::PtyShell,
        before: &[],
        condition: "when the command finishes",
        steps: &[Type("sleep 1")],
        without_model: Resolved("the prompt is back"),
        // Where no process exit tells the end of the work, a model judges it.
        with_model: Timeout,
    },
    Scenario {
        name: "pty: a shell's build succeeds by its summary line",
        kind: Kind::PtyShell,
        before: &[],
        condition: "when the build succeeds",
        steps: &[Type("echo BUILD SUCCESSFUL")],
        without_model: Resolved("BUILD SUCCESSFUL"),
        with_model: Timeout,
    },
    Scenario {
        name: "pty: quiet after a burst",
        kind: Kind::PtyCommand("echo a; sleep 0.3; echo b; sleep 30"),
        before: &[],
        condition: "when the output stops changing for 1s",
        steps: &[],
        without_model: Resolved("no change for"),
        with_model: Resolved("no change for"),
    },
];

/// A chat-completions server (the test kit's) that finds the condition met exactly when
/// the prompt shows `model-yes`.
async fn ruled_model() -> String {
    let server = ModelServer::start(Wire::OpenAi, None).await;
    server.answer_with(|body| {
        let verdict = if body.to_string().contains("model-yes") {
            json!({"met": true, "observation": "model saw model-yes"})
        } else {
            json!({"met": false, "observation": "model saw nothing yet"})
        };
        verdict.to_string()
    });
    server.base_url
}

/// Wake events as they arrive, by wait id: (kind, text, when).
type Wakes = Arc<Mutex<HashMap<String, (String, String, Instant)>>>;

async fn subscribe(socket: &Path) -> Wakes {
    let wakes = Wakes::default();
    let mut client = Client::connect(socket).await.unwrap();
    client
        .send_line(br#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{}}"#)
        .await
        .unwrap();
    let _ = client.read_json().await.unwrap();
    let recorded = wakes.clone();
    tokio::spawn(async move {
        while let Ok(message) = client.read_json().await {
            let params = &message["params"];
            if let Some(wait) = params["wait_id"].as_str() {
                recorded.lock().unwrap().insert(
                    wait.to_owned(),
                    (
                        params["kind"].as_str().unwrap_or("").to_owned(),
                        params["text"].as_str().unwrap_or("").to_owned(),
                        Instant::now(),
                    ),
                );
            }
        }
    });
    wakes
}

/// How one scenario ended in one mode.
#[derive(Debug)]
struct Ran {
    name: &'static str,
    mode: &'static str,
    expected: Expect,
    kind: String,
    text: String,
    /// From the step whose line decided a resolved wake to the wake.
    latency: Option<Duration>,
    /// From the exit of a command that ended the other way to the wake that said so.
    after_exit: Option<Duration>,
}

/// When a command of the form "sleep S; …" exits, counted from its start.
fn exits_after(command: &str) -> Option<Duration> {
    let seconds = command.strip_prefix("sleep ")?.split(';').next()?;
    Some(Duration::from_secs_f64(seconds.trim().parse().ok()?))
}

struct Setup {
    socket: PathBuf,
    dir: PathBuf,
    /// The tmux server of the tmux scenarios (None where they are not run).
    tmux: Option<Arc<Tmux>>,
    wakes: Wakes,
}

async fn run(setup: Arc<Setup>, index: usize, mode: &'static str) -> Ran {
    let scenario = &SCENARIOS[index];
    let expected = if mode == "no model" {
        scenario.without_model
    } else {
        scenario.with_model
    };
    let mut client = Client::connect(&setup.socket).await.unwrap();
    let mut exited_at = None;
    let name = format!("{}-{index}", mode.replace(' ', "-"));
    let log = setup.dir.join(format!("{name}.log"));
    // There from the start, so `tail -F` follows it at once instead of retrying each second.
    std::fs::write(&log, "").unwrap();
    for line in scenario.before {
        append(&log, line);
    }
    let target = match scenario.kind {
        Kind::File => format!("file:{}", log.display()),
        Kind::Tmux => {
            let command = format!("tail -n +1 -F {}", log.display());
            let tmux = setup
                .tmux
                .as_ref()
                .expect("tmux scenarios run with a tmux server");
            tmux.new_session(&name, &command);
            format!("tmux:{name}")
        }
        Kind::Pty | Kind::PtyCommand(_) | Kind::PtyShell => {
            let command = match scenario.kind {
                Kind::Pty => format!("tail -n +1 -F {}", log.display()),
                Kind::PtyCommand(command) => command.to_owned(),
                _ => "PS1='$ ' exec sh".to_owned(),
            };
            let started = ok(&mut client, "term_start", json!({"command": command})).await;
            exited_at = exits_after(&command).map(|after| Instant::now() + after);
            format!("pty:{}", started["session_id"].as_str().unwrap())
        }
    };
    // Text that is there before the wait starts must be on screen first.
    if let Some(last) = scenario.before.last() {
        shows(&mut client, &setup, &target, last).await;
    }
    let timeout = if expected == Timeout {
        SHORT_TIMEOUT_S
    } else {
        LONG_TIMEOUT_S
    };
    let created = ok(
        &mut client,
        "smart_wait",
        json!({"target": target, "wake_when": scenario.condition, "timeout": timeout, "poll_interval": POLL}),
    )
    .await;
    let wait_id = created["wait_id"].as_str().unwrap().to_owned();
    let mut decided_at = None;
    for step in scenario.steps {
        tokio::time::sleep(STEP).await;
        match step {
            Line(line) => append(&log, line),
            Rotate(line) => {
                std::fs::rename(&log, log.with_extension("log.1")).unwrap();
                append(&log, line);
            }
            Delete => std::fs::remove_file(&log).unwrap(),
            Type(text) => {
                ok(
                    &mut client,
                    "term_send",
                    json!({"session_id": target.trim_start_matches("pty:"), "text": text, "keys": ["Enter"]}),
                )
                .await;
            }
        }
        // The last step decides a resolved wake, unless time does (quiet, a command's run).
        if let Resolved(observed) = expected
            && !matches!(observed, "no change for" | "the prompt is back")
        {
            decided_at = Some(Instant::now());
        }
        if setup.wakes.lock().unwrap().contains_key(&wait_id) {
            break;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(timeout + 10);
    let (kind, text, at) = loop {
        if let Some(wake) = setup.wakes.lock().unwrap().get(&wait_id).cloned() {
            break wake;
        }
        assert!(
            Instant::now() < deadline,
            "{}: no wake at all",
            scenario.name
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    Ran {
        name: scenario.name,
        mode,
        expected,
        kind,
        text,
        latency: decided_at.map(|written| at.saturating_duration_since(written)),
        after_exit: exited_at
            .filter(|_| matches!(expected, Ended(_)))
            .map(|exited| at.saturating_duration_since(exited)),
    }
}

/// Waits until the target shows `text` (through term_read for terminals, tmux itself for
/// panes; a file has it as soon as it is written).
async fn shows(client: &mut Client, setup: &Setup, target: &str, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = if let Some(session) = target.strip_prefix("pty:") {
            let read = ok(client, "term_read", json!({"session_id": session})).await;
            read.to_string().contains(text)
        } else if let Some(pane) = target.strip_prefix("tmux:") {
            setup
                .tmux
                .as_ref()
                .expect("tmux scenarios run with a tmux server")
                .output(&["capture-pane", "-p", "-t", pane])
                .contains(text)
        } else {
            true
        };
        if seen {
            return;
        }
        assert!(Instant::now() < deadline, "{target} never showed {text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn verdict(ran: &Ran) -> Result<(), String> {
    let ok = match ran.expected {
        Resolved(observed) => ran.kind == "wait_resolved" && ran.text.contains(observed),
        Changed => ran.kind == "wait_changed",
        Ended(said) => ran.kind == "wait_changed" && ran.text.contains(said),
        Timeout => ran.kind == "wait_timeout",
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{} ({}): expected {:?}, got {} \"{}\"",
            ran.name, ran.mode, ran.expected, ran.kind, ran.text
        ))
    }
}

/// The `file:` and `pty:` scenarios: nothing but the daemon and a shell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_file_and_pty_scenario_wakes_as_it_should_with_and_without_a_model() {
    assert!(SCENARIOS.len() >= 30, "{} scenarios", SCENARIOS.len());
    run_scenarios("file and pty", None).await;
}

/// The `tmux:` scenarios, on a private tmux server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs tmux"
)]
async fn every_tmux_scenario_wakes_as_it_should_with_and_without_a_model() {
    let tmux = Arc::new(Tmux::start("keepalive", "sleep 600"));
    run_scenarios("tmux", Some(tmux)).await;
}

/// Runs every scenario of `which` (the tmux ones exactly when `tmux` is given) in both modes
/// and fails naming each that woke otherwise than it should.
async fn run_scenarios(which: &str, tmux: Option<Arc<Tmux>>) {
    let chosen: Vec<usize> = (0..SCENARIOS.len())
        .filter(|&index| matches!(SCENARIOS[index].kind, Kind::Tmux) == tmux.is_some())
        .collect();
    assert!(!chosen.is_empty(), "no {which} scenarios");
    let model_url = ruled_model().await;
    let mut setups = Vec::new();
    let mut daemons = Vec::new();
    for (mode, extra) in [
        ("no model", String::new()),
        (
            "model",
            format!(
                "[vision]\nbackend = \"openai\"\nbase_url = \"{model_url}\"\nmodel = \"judge\"\nmin_interval_s = 0\n"
            ),
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let tmux_tmpdir = tmux.as_ref().map(|tmux| tmux.tmpdir());
        let environment: Vec<(&str, &str)> = tmux_tmpdir
            .iter()
            .map(|tmpdir| ("TMUX_TMPDIR", tmpdir.as_str()))
            .collect();
        let daemon = DaemonProcess::start_with(dir.path(), &extra, &environment);
        let wakes = subscribe(&daemon.socket).await;
        setups.push((
            mode,
            Arc::new(Setup {
                socket: daemon.socket.clone(),
                dir: dir.path().to_owned(),
                tmux: tmux.clone(),
                wakes,
            }),
        ));
        daemons.push((dir, daemon));
    }
    let mut runs = Vec::new();
    for (mode, setup) in &setups {
        for &index in &chosen {
            runs.push(tokio::spawn(run(setup.clone(), index, mode)));
        }
    }
    let mut results = Vec::new();
    for run in runs {
        results.push(run.await.unwrap());
    }
    let failures: Vec<String> = results.iter().filter_map(|r| verdict(r).err()).collect();
    let false_resolved = results
        .iter()
        .filter(|r| r.kind == "wait_resolved" && verdict(r).is_err())
        .count();
    let missed = results
        .iter()
        .filter(|r| r.expected != Timeout && r.kind == "wait_timeout")
        .count();
    let mut latencies: Vec<Duration> = results.iter().filter_map(|r| r.latency).collect();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    println!(
        "{which} scenarios: {} runs ({} scenarios x 2 modes): {} as expected, {} false resolved, {} missed; \
         wake after the deciding line at a {POLL} s poll: p50 {:?}, p90 {:?}, max {:?} ({} resolved wakes)",
        results.len(),
        chosen.len(),
        results.len() - failures.len(),
        false_resolved,
        missed,
        at(0.5),
        at(0.9),
        at(1.0),
        latencies.len()
    );
    for ran in &results {
        if let Some(latency) = ran.latency {
            println!("  {:>9?}  {} ({})", latency, ran.name, ran.mode);
        }
    }
    // A command that ends the other way wakes its wait as changed within a poll of its exit
    // (the exit is timed from the command's own "sleep S", so this includes its start-up).
    for ran in &results {
        if let Some(after) = ran.after_exit {
            println!(
                "  ended {:>9?} after the exit  {} ({})",
                after, ran.name, ran.mode
            );
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    drop(daemons);
}
