//! Targets that tell their changes, for real, on the ManualClock: a file (inotify) and a
//! terminal session lookout runs (its own output). The clock stands still after the first
//! poll, so no poll is due: a wait that resolves was woken by its target's change alone.

use std::time::Duration;

use storage::WaitState;

use super::{Fixture, eventually, wait_state};
use crate::TreeArgs;
use crate::sight::target::Target;
use crate::terminals::keys::Key;
use crate::terminals::types::{CommandLine, StartSession, TermInput, TermSize};
use crate::waits::NewWait;

const POLL: Duration = Duration::from_secs(60);

fn wait_for(target: &str, condition: &str) -> NewWait {
    NewWait {
        target: Target::parse(target).unwrap(),
        condition: condition.into(),
        timeout_s: 3600,
        poll_interval: POLL,
        task_id: None,
        session_key: None,
        match_existing: false,
        step: None,
    }
}

/// The tree with its real sources, following changes or (`follow` false) polling only.
async fn start(follow: bool) -> Fixture {
    Fixture::start(|args: &mut TreeArgs| args.waits.follow_changes = follow).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_appended_to_a_file_is_decided_without_waiting_for_the_poll() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("build.log");
    std::fs::write(&log, "starting\n").unwrap();
    let target = format!("file:{}", log.display());
    for follow in [true, false] {
        let fixture = start(follow).await;
        let id = (fixture.tree)
            .smart_wait(wait_for(&target, "'BUILD OK' appears"))
            .await
            .unwrap()
            .record
            .id;
        fixture.advance(Duration::ZERO).await;
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        writeln!(file, "BUILD OK").unwrap();
        if follow {
            eventually("resolved", async || {
                wait_state(&fixture.tree, &id).await == WaitState::Resolved
            })
            .await;
        } else {
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert_eq!(
                wait_state(&fixture.tree, &id).await,
                WaitState::Watching,
                "polled only"
            );
            fixture.advance(POLL).await;
            eventually("at the poll", async || {
                wait_state(&fixture.tree, &id).await == WaitState::Resolved
            })
            .await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_sessions_output_and_exit_are_decided_as_they_come() {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let fixture = start(true).await;
    let tree = &fixture.tree;
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.02; done; echo DEPLOYED; read line",
        go.display()
    );
    let session = tree
        .start_terminal(StartSession {
            command: CommandLine::shell(script).unwrap(),
            cwd: None,
            env: Vec::new(),
            size: TermSize::default(),
            link: None,
        })
        .await
        .unwrap()
        .id;
    let printed = tree
        .smart_wait(wait_for(
            &format!("pty:{}", session.as_str()),
            "'DEPLOYED' is printed",
        ))
        .await
        .unwrap()
        .record
        .id;
    let exited = tree
        .smart_wait(wait_for(
            &format!("pty:{}", session.as_str()),
            "the command finishes",
        ))
        .await
        .unwrap()
        .record
        .id;
    fixture.advance(Duration::ZERO).await;
    std::fs::write(&go, "").unwrap();
    eventually("the output", async || {
        wait_state(tree, &printed).await == WaitState::Resolved
    })
    .await;
    assert_eq!(wait_state(tree, &exited).await, WaitState::Watching);
    let enter = TermInput::new(Some("done".into()), vec![Key::Enter]).unwrap();
    tree.send_to_terminal(session.clone(), enter).await.unwrap();
    eventually("the exit", async || {
        wait_state(tree, &exited).await == WaitState::Resolved
    })
    .await;
}
