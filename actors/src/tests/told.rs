//! Targets that tell their changes, for real, on the ManualClock: a file (inotify), a
//! terminal session lookout runs (its own output) and a tmux pane (tmux's control mode). The clock stands still after the first
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

/// Runs `tmux` with `args` on the default server.
fn tmux(args: &[&str]) -> std::process::Output {
    #[allow(clippy::disallowed_methods)] // test fixture: the tmux server the test watches
    let mut command = std::process::Command::new("tmux");
    command
        .args(args)
        .output()
        .expect("tmux runs (full tier: apt-get install tmux)")
}

/// A tmux session on the default server for one test, killed when dropped.
struct TmuxSession(String);

impl TmuxSession {
    fn start(command: &str) -> TmuxSession {
        let name = format!("lookout-told-{}", std::process::id());
        let started = tmux(&[
            "new-session",
            "-d",
            "-s",
            &name,
            "-x",
            "80",
            "-y",
            "20",
            command,
        ]);
        assert!(started.status.success(), "tmux new-session");
        TmuxSession(name)
    }

    fn send(&self, text: &str) {
        assert!(
            tmux(&["send-keys", "-t", &self.0, text, "Enter"])
                .status
                .success()
        );
    }

    /// Whether a client (lookout's control client) is attached to the session.
    fn has_client(&self) -> bool {
        !tmux(&["list-clients", "-t", &self.0]).stdout.is_empty()
    }
}

impl Drop for TmuxSession {
    fn drop(&mut self) {
        let _ = tmux(&["kill-session", "-t", &self.0]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs tmux"
)]
async fn a_tmux_panes_output_is_decided_as_it_is_written() {
    let tmux = TmuxSession::start("sh -c 'while read line; do echo \"got $line\"; done'");
    let fixture = start(true).await;
    let tree = &fixture.tree;
    let id = tree
        .smart_wait(wait_for(
            &format!("tmux:{}", tmux.0),
            "'got deployed' is printed",
        ))
        .await
        .unwrap()
        .record
        .id;
    fixture.advance(Duration::ZERO).await;
    // The control client attaches in the background: type once it is there.
    for _ in 0..1000 {
        if tmux.has_client() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        tmux.has_client(),
        "lookout's control client attached to the session"
    );
    tmux.send("deployed");
    eventually("the pane's output", async || {
        wait_state(tree, &id).await == WaitState::Resolved
    })
    .await;
}
