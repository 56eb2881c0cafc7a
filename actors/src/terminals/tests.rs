//! The Terminals actor through the tree: real programs on real ptys.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use storage::{Store, Timestamp};

use super::keys::Key;
use super::session::TerminalLimits;
use super::source::TerminalSource;
use super::types::{
    CommandLine, RunState, SessionId, SessionSnapshot, StartSession, StopOutcome, TermInput,
    TermSize,
};
use crate::process::pty::Signal;
use crate::sight::capture::Source;
use crate::sight::content::{Content, ProcessExit};
use crate::{ActorKind, ErrorKind, ManualClock, RestartPolicy, Tree, TreeArgs};

const START: &str = "2026-02-13T17:00:00Z";

struct Fixture {
    _dir: tempfile::TempDir,
    tree: Tree,
}

impl Fixture {
    async fn start(limits: TerminalLimits) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&dir.path().join("lookout.redb")).unwrap());
        let clock = ManualClock::new(Timestamp::parse_rfc3339(START).unwrap());
        let mut args = TreeArgs::new(store, clock);
        args.policy = RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RestartPolicy::default()
        };
        args.terminal_limits = limits;
        let tree = Tree::start(args).await.unwrap();
        Fixture { _dir: dir, tree }
    }

    async fn run(&self, line: &str) -> SessionId {
        let request = StartSession::new(
            CommandLine::shell(line.into()).unwrap(),
            None,
            BTreeMap::new(),
            TermSize::default(),
        )
        .unwrap();
        self.tree.start_terminal(request).await.unwrap().id
    }

    /// Reads `id` until `check` holds (programs run on their own time), or fails the test.
    async fn read_until(
        &self,
        id: &SessionId,
        what: &str,
        check: impl Fn(&SessionSnapshot) -> bool,
    ) -> SessionSnapshot {
        let mut last = None;
        for _ in 0..500 {
            if let Ok(snapshot) = self.tree.read_terminal(id.clone(), 50).await {
                if check(&snapshot) {
                    return snapshot;
                }
                last = Some(snapshot);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("timed out waiting for {what}; last read: {last:#?}");
    }
}

async fn boot() -> Fixture {
    Fixture::start(TerminalLimits::default()).await
}

fn ended(snapshot: &SessionSnapshot) -> bool {
    !snapshot.state.is_running()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_shows_its_output_and_its_exit_status() {
    let fixture = boot().await;
    let id = fixture
        .run("printf 'hello from the pty\\n'; printf 'working 1%%\\rworking 100%%\\n'; exit 3")
        .await;
    let first_id = SessionId::from_sequence(Timestamp::parse_rfc3339(START).unwrap().as_millis());
    assert_eq!(id, first_id, "the id sequence is seeded by the clock");

    let snapshot = fixture.read_until(&id, "the exit", ended).await;
    assert_eq!(snapshot.screen, "hello from the pty\nworking 100%");
    let status = snapshot.state.exit().unwrap();
    assert_eq!((status.code, status.signal), (Some(3), None));
    assert_eq!(snapshot.started_at.to_rfc3339(), START);
    assert_eq!(snapshot.size, TermSize::default());

    let second = fixture.run("true").await;
    assert_ne!(second, id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_text_and_keys_reach_the_program() {
    let fixture = boot().await;
    let id = fixture
        .run("printf 'name? '; read answer; echo \"got $answer\"")
        .await;
    fixture
        .read_until(&id, "the prompt", |s| s.screen.contains("name?"))
        .await;
    let input = TermInput::new(Some("banana".into()), vec![Key::Enter]).unwrap();
    let sent = fixture
        .tree
        .send_to_terminal(id.clone(), input)
        .await
        .unwrap();
    assert_eq!(sent.bytes, "banana\r".len());
    let snapshot = fixture.read_until(&id, "the answer", ended).await;
    assert!(
        snapshot.screen.contains("got banana"),
        "{}",
        snapshot.screen
    );
    assert_eq!(snapshot.state.exit().unwrap().code, Some(0));

    let late = TermInput::new(Some("more".into()), vec![]).unwrap();
    let error = fixture
        .tree
        .send_to_terminal(id.clone(), late)
        .await
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Conflict);
    assert!(error.message.contains("has ended"), "{}", error.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_interrupts_the_foreground_program() {
    let fixture = boot().await;
    let id = fixture
        .run("trap 'echo interrupted; exit 7' INT; echo ready; while :; do sleep 0.1; done")
        .await;
    fixture
        .read_until(&id, "ready", |s| s.screen.contains("ready"))
        .await;
    let input = TermInput::new(None, vec![Key::parse("Ctrl-C").unwrap()]).unwrap();
    fixture
        .tree
        .send_to_terminal(id.clone(), input)
        .await
        .unwrap();
    let snapshot = fixture.read_until(&id, "the trap", ended).await;
    assert!(
        snapshot.screen.contains("interrupted"),
        "{}",
        snapshot.screen
    );
    assert_eq!(snapshot.state.exit().unwrap().code, Some(7));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_signals_the_program_and_says_what_happened() {
    let fixture = boot().await;
    let id = fixture.run("sleep 1000").await;
    let stopped = fixture
        .tree
        .stop_terminal(id.clone(), Signal::Term)
        .await
        .unwrap();
    let StopOutcome::Ended(status) = stopped.outcome else {
        panic!("{stopped:?}");
    };
    assert_eq!(status.signal, Some(Signal::Term.number()));
    let again = fixture
        .tree
        .stop_terminal(id.clone(), Signal::Kill)
        .await
        .unwrap();
    assert_eq!(again.outcome, StopOutcome::AlreadyEnded(status));
    let snapshot = fixture.tree.read_terminal(id, 50).await.unwrap();
    assert_eq!(snapshot.state, RunState::Ended(status));

    // A program that ignores TERM is still running after the wait, and KILL ends it.
    let stubborn = fixture
        .run("trap '' TERM; echo armed; while :; do sleep 0.1; done")
        .await;
    fixture
        .read_until(&stubborn, "the trap", |s| s.screen.contains("armed"))
        .await;
    let ignored = fixture
        .tree
        .stop_terminal(stubborn.clone(), Signal::Term)
        .await
        .unwrap();
    assert!(
        matches!(ignored.outcome, StopOutcome::StillRunning(_)),
        "{ignored:?}"
    );
    let killed = fixture
        .tree
        .stop_terminal(stubborn, Signal::Kill)
        .await
        .unwrap();
    assert!(
        matches!(killed.outcome, StopOutcome::Ended(_)),
        "{killed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_and_ended_sessions_are_bounded() {
    let fixture = Fixture::start(TerminalLimits {
        max_live: 2,
        max_ended: 1,
    })
    .await;
    let first = fixture.run("sleep 1000").await;
    let second = fixture.run("sleep 1000").await;
    let request = StartSession::new(
        CommandLine::argv(vec!["sleep".into(), "1000".into()]).unwrap(),
        None,
        BTreeMap::new(),
        TermSize::default(),
    )
    .unwrap();
    let full = fixture
        .tree
        .start_terminal(request.clone())
        .await
        .unwrap_err();
    assert_eq!(full.kind, ErrorKind::Conflict);
    assert!(full.hint.contains(first.as_str()), "{}", full.hint);
    assert!(full.hint.contains("term_stop"), "{}", full.hint);

    fixture
        .tree
        .stop_terminal(first.clone(), Signal::Kill)
        .await
        .unwrap();
    fixture
        .tree
        .stop_terminal(second.clone(), Signal::Kill)
        .await
        .unwrap();
    // Only the newest ended session stays readable.
    for _ in 0..500 {
        if fixture.tree.read_terminal(first.clone(), 1).await.is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let forgotten = fixture
        .tree
        .read_terminal(first.clone(), 1)
        .await
        .unwrap_err();
    assert_eq!(forgotten.kind, ErrorKind::NotFound);
    assert!(
        forgotten.message.contains("no longer kept"),
        "{}",
        forgotten.message
    );
    assert!(fixture.tree.read_terminal(second, 1).await.is_ok());
    let started = fixture.tree.start_terminal(request).await.unwrap();
    fixture
        .tree
        .stop_terminal(started.id, Signal::Kill)
        .await
        .unwrap();

    let unknown = fixture
        .tree
        .read_terminal(SessionId::parse("s-nope00").unwrap(), 1)
        .await
        .unwrap_err();
    assert_eq!(unknown.kind, ErrorKind::NotFound);
    assert!(unknown.hint.contains("term_start"), "{}", unknown.hint);
    let stats = fixture.tree.terminal_stats().await.unwrap();
    assert_eq!((stats.live, stats.started), (0, 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_survive_a_crash_of_the_terminals_actor() {
    let fixture = boot().await;
    let id = fixture.run("echo alive; sleep 1000").await;
    fixture
        .read_until(&id, "alive", |s| s.screen.contains("alive"))
        .await;
    fixture.tree.faults().panic_next(ActorKind::Terminals);
    let error = fixture.tree.read_terminal(id.clone(), 1).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Internal, "{error:?}");
    let snapshot = fixture
        .read_until(&id, "the restarted actor", |s| s.state.is_running())
        .await;
    assert!(snapshot.screen.contains("alive"));
    fixture.tree.stop_terminal(id, Signal::Kill).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_source_reports_the_screen_and_the_exit() {
    let fixture = boot().await;
    let id = fixture.run("echo 'step 1'; echo 'ALL DONE'; exit 2").await;
    let mut source = TerminalSource::new(fixture.tree.terminal_sessions(), id.as_str());
    assert_eq!(source.describe(), format!("terminal session {id}"));
    let mut last = None;
    for _ in 0..500 {
        let content = source.capture().await.unwrap();
        if matches!(content, Content::Text { exit: Some(_), .. }) {
            last = Some(content);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let Some(Content::Text { text, exit, .. }) = last else {
        panic!("the session never ended: {last:?}");
    };
    assert_eq!(&*text, "step 1\nALL DONE");
    assert_eq!(exit, Some(ProcessExit { code: Some(2) }));

    let mut lost = TerminalSource::new(fixture.tree.terminal_sessions(), "s-gone01");
    let error = lost.capture().await.unwrap_err();
    assert!(error.permanent);
    assert_eq!(
        error.message,
        "terminal session s-gone01 is not running in this daemon: its output was lost when the \
         daemon restarted; start it again with term_start"
    );
    assert!(fixture.tree.terminal_sessions().contains(id.as_str()));
    assert!(!fixture.tree.terminal_sessions().contains("s-gone01"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_tree_hangs_up_every_session() {
    let fixture = boot().await;
    let id = fixture.run("sleep 1000").await;
    let pid = fixture.tree.read_terminal(id, 1).await.unwrap().pid;
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    fixture.tree.shutdown().await;
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "pid {pid} outlived the daemon"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_program_or_directory_is_an_error_that_says_how_to_fix_the_call() {
    let fixture = boot().await;
    let missing = StartSession::new(
        CommandLine::argv(vec!["no-such-program-lookout".into()]).unwrap(),
        None,
        BTreeMap::new(),
        TermSize::default(),
    )
    .unwrap();
    let error = fixture.tree.start_terminal(missing).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidParams);
    assert!(
        error.message.contains("no such program"),
        "{}",
        error.message
    );
    assert!(error.hint.contains("full path"), "{}", error.hint);
    let nowhere = StartSession::new(
        CommandLine::shell("true".into()).unwrap(),
        Some("/nonexistent/lookout-dir".into()),
        BTreeMap::new(),
        TermSize::default(),
    )
    .unwrap();
    let error = fixture.tree.start_terminal(nowhere).await.unwrap_err();
    assert!(
        error.message.contains("not a directory"),
        "{}",
        error.message
    );
}
