//! tmux panes told by tmux (`pipe-pane` into a FIFO of the daemon's), against a real tmux
//! server of the test's own: a wait wakes on the pane's line with its poll a minute away; a
//! pane the user pipes already is left alone and polled; lookout closes its own pipe once
//! nobody watches (after output, or before any), and a dead daemon's pipe ends at the pane's
//! next writes; and the tmux server survives panes being piped while sessions come and go (the
//! loop that crashes Debian's tmux 3.3a under control-mode clients).

use std::time::Duration;

use lookout::client::Client;
use serde_json::{Value, json};

use crate::support::{DaemonProcess, Tmux, ok, wait_until};

/// Well under the 60 s poll of the told waits: a wake within it was told.
const PATIENCE: Duration = Duration::from_secs(20);

async fn status(client: &mut Client, wait_id: &str) -> String {
    let listed = ok(client, "wait_status", json!({"wait_id": wait_id})).await;
    listed["status"].as_str().unwrap_or_default().to_owned()
}

async fn wait_on(client: &mut Client, pane: &str, phrase: &str, poll: u64) -> String {
    let created: Value = ok(
        client,
        "smart_wait",
        json!({"target": format!("tmux:{pane}"), "wake_when": format!("when '{phrase}' is printed"),
               "poll_interval": poll, "timeout": 600}),
    )
    .await;
    created["wait_id"].as_str().unwrap().to_owned()
}

/// Whether tmux pipes `pane` somewhere (`#{pane_pipe}`).
fn piped(tmux: &Tmux, pane: &str) -> bool {
    tmux.output(&["display-message", "-p", "-t", pane, "#{pane_pipe}"])
        .trim()
        == "1"
}

fn fifos(daemon_dir: &std::path::Path) -> usize {
    std::fs::read_dir(daemon_dir.join("tmux-pipes"))
        .map(|entries| entries.count())
        .unwrap_or(0)
}

/// How many processes hold one of the daemon's FIFOs open (the daemon reading, and each
/// pipe's `cat` writing); a FIFO removed already (an ended pipe's `cat` still exiting) does
/// not count.
fn processes_holding_fifos(daemon_dir: &std::path::Path) -> usize {
    let pipes = daemon_dir.join("tmux-pipes");
    let holds = |pid: &std::path::Path| {
        std::fs::read_dir(pid.join("fd")).is_ok_and(|fds| {
            fds.flatten().any(|fd| {
                std::fs::read_link(fd.path())
                    .is_ok_and(|target| target.starts_with(&pipes) && target.exists())
            })
        })
    };
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
                .filter(|entry| holds(&entry.path()))
                .count()
        })
        .unwrap_or(0)
}

const ECHO: &str = "sh -c 'while read line; do echo \"got $line\"; done'";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs tmux"
)]
async fn a_pane_wakes_its_wait_as_it_writes_and_a_pane_the_user_pipes_is_left_alone() {
    let tmux = Tmux::start("echo", ECHO);
    tmux.new_session("theirs", ECHO);
    let user_log = tempfile::NamedTempFile::new().unwrap();
    let user_pipe = format!("cat >> '{}'", user_log.path().display());
    tmux.run(&["pipe-pane", "-t", "theirs", &user_pipe]);
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start_with(dir.path(), "", &[("TMUX_TMPDIR", &tmux.tmpdir())]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();

    let told = wait_on(&mut client, "echo", "got told", 60).await;
    wait_until("the pane is piped", PATIENCE, async || piped(&tmux, "echo")).await;
    tmux.run(&["send-keys", "-t", "echo", "told", "Enter"]);
    wait_until(
        "woken by the pane, not the minute's poll",
        PATIENCE,
        async || status(&mut client, &told).await == "resolved",
    )
    .await;

    // The user's own pipe: not replaced, not closed; the pane is polled.
    let polled = wait_on(&mut client, "theirs", "got polled", 1).await;
    tmux.run(&["send-keys", "-t", "theirs", "polled", "Enter"]);
    wait_until("found at the poll", PATIENCE, async || {
        status(&mut client, &polled).await == "resolved"
    })
    .await;
    tmux.run(&["send-keys", "-t", "theirs", "still mine", "Enter"]);
    wait_until("the user's pipe still writes", PATIENCE, async || {
        std::fs::read_to_string(user_log.path()).is_ok_and(|log| log.contains("got still mine"))
    })
    .await;
    assert!(piped(&tmux, "theirs"));

    // Nobody watches "echo" any more: its pipe, still lookout's own, is closed and its FIFO
    // removed; the pane can be followed again at once.
    wait_until("the pipe closed", PATIENCE, async || !piped(&tmux, "echo")).await;
    wait_until("the FIFO removed", PATIENCE, async || {
        fifos(dir.path()) == 0
    })
    .await;
    let again = wait_on(&mut client, "echo", "got again", 60).await;
    wait_until("piped again", PATIENCE, async || piped(&tmux, "echo")).await;
    tmux.run(&["send-keys", "-t", "echo", "again", "Enter"]);
    wait_until("woken by the pane again", PATIENCE, async || {
        status(&mut client, &again).await == "resolved"
    })
    .await;

    // A wait that ends before the pane wrote a thing: lookout's `cat` is there and quiet, so
    // the pipe is still its own and is closed.
    wait_until("closed after the second wait", PATIENCE, async || {
        !piped(&tmux, "echo")
    })
    .await;
    let quiet = wait_on(&mut client, "echo", "never printed", 60).await;
    wait_until("the pipe's cat opened the FIFO", PATIENCE, async || {
        processes_holding_fifos(dir.path()) >= 2
    })
    .await;
    ok(&mut client, "wait_cancel", json!({"wait_id": quiet})).await;
    wait_until("the quiet pipe closed", PATIENCE, async || {
        !piped(&tmux, "echo")
    })
    .await;

    // A daemon that dies closes nothing: its pipe ends as the pane writes (`cat` dies writing
    // into a FIFO nobody reads; tmux notices at the write after).
    wait_on(&mut client, "echo", "never printed", 60).await;
    wait_until("piped for the last wait", PATIENCE, async || {
        piped(&tmux, "echo")
    })
    .await;
    drop(client);
    drop(daemon);
    wait_until("tmux closed the pipe itself", PATIENCE, async || {
        tmux.run(&["send-keys", "-t", "echo", "bye", "Enter"]);
        tokio::time::sleep(Duration::from_millis(100)).await;
        !piped(&tmux, "echo")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs tmux"
)]
async fn the_tmux_server_survives_panes_piped_while_sessions_come_and_go() {
    let tmux = Tmux::start("base", "sleep 600");
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start_with(dir.path(), "", &[("TMUX_TMPDIR", &tmux.tmpdir())]);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let mut waits = Vec::new();
    for round in 1..=40 {
        let session = format!("s{round}");
        tmux.new_session(
            &session,
            "sh -c 'for i in 1 2 3; do echo line $i; sleep 0.05; done; exec sleep 30'",
        );
        waits.push(wait_on(&mut client, &session, "never printed", 60).await);
        if round % 3 == 0 {
            tmux.run(&["kill-session", "-t", &format!("s{}", round - 1)]);
        }
    }
    wait_until("the live sessions are piped", PATIENCE, async || {
        (tmux
            .output(&["list-panes", "-a", "-F", "#{session_name} #{pane_pipe}"])
            .lines())
        .filter(|line| *line != "base 0")
        .all(|line| line.ends_with(" 1"))
    })
    .await;
    for round in 1..=40 {
        if round % 3 != 2 {
            tmux.run(&["send-keys", "-t", &format!("s{round}"), "x", "Enter"]);
        }
    }
    let sessions = tmux.output(&["list-sessions", "-F", "#{session_name}"]);
    assert_eq!(
        sessions.lines().count(),
        1 + 40 - 13,
        "the server is alive with every session not killed: {sessions}"
    );
    for id in &waits {
        ok(&mut client, "wait_cancel", json!({"wait_id": id})).await;
    }
    wait_until("every FIFO removed", PATIENCE, async || {
        fifos(dir.path()) == 0
    })
    .await;
}
