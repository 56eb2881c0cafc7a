//! Targets that tell their changes, for real, on the ManualClock: a file (inotify) and a
//! terminal session lookout runs (its own output). The clock stands still after the first
//! poll, so no poll is due: a wait that resolves was woken by its target's change alone.

use std::time::Duration;

use storage::{WaitId, WaitState};

use super::Fixture;
use crate::sight::target::Target;
use crate::terminals::keys::Key;
use crate::terminals::types::{CommandLine, StartSession, TermInput, TermSize};
use crate::waits::NewWait;
use crate::{Tree, TreeArgs};

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
    }
}

async fn state(tree: &Tree, id: &WaitId) -> WaitState {
    tree.wait_status(Some(id.clone())).await.unwrap()[0]
        .record
        .state
}

/// Waits in real time (the clock standing still) until wait `id` is in `wanted`.
async fn reaches(tree: &Tree, id: &WaitId, wanted: WaitState) -> bool {
    for _ in 0..1000 {
        if state(tree, id).await == wanted {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
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
            assert!(reaches(&fixture.tree, &id, WaitState::Resolved).await);
        } else {
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert_eq!(
                state(&fixture.tree, &id).await,
                WaitState::Watching,
                "polled only"
            );
            fixture.advance(POLL).await;
            assert!(
                reaches(&fixture.tree, &id, WaitState::Resolved).await,
                "at the poll"
            );
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
    assert!(
        reaches(tree, &printed, WaitState::Resolved).await,
        "the output"
    );
    assert_eq!(state(tree, &exited).await, WaitState::Watching);
    let enter = TermInput::new(Some("done".into()), vec![Key::Enter]).unwrap();
    tree.send_to_terminal(session.clone(), enter).await.unwrap();
    assert!(
        reaches(tree, &exited, WaitState::Resolved).await,
        "the exit"
    );
}
