//! `tmux:` targets: `tmux capture-pane -p -J -S -200 -t <pane>` through the `Spawner`; a
//! missing pane is a failure that carries tmux's own message. The pane's output is followed
//! as it is written through a tmux control client (`tmux -C attach-session -f
//! read-only,ignore-size`: it types nothing and sizes nothing; `tmux ls` shows the session
//! attached meanwhile), and each `%output` of the pane is a change ([`Source::changes`]).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use tokio::sync::watch;

use crate::process::{LineStream, RunRequest, Spawner};
use crate::sight::capture::{CaptureError, Source};
use crate::sight::content::Content;

/// Scrollback lines taken from a tmux pane besides its visible screen.
const TMUX_SCROLLBACK_LINES: u32 = 200;
/// Keep at most this much of a pane's capture (200 lines of history and the screen fit).
const TMUX_OUTPUT_BYTES: usize = 1024 * 1024;
/// How long `tmux capture-pane` may take.
const TMUX_TIMEOUT: Duration = Duration::from_secs(5);

/// A tmux pane, captured with `tmux capture-pane`.
#[derive(Debug)]
pub struct TmuxPane {
    pane: String,
    spawner: Arc<dyn Spawner>,
}

impl TmuxPane {
    pub fn new(pane: String, spawner: Arc<dyn Spawner>) -> Self {
        Self { pane, spawner }
    }
}

impl Source for TmuxPane {
    fn describe(&self) -> String {
        format!("tmux pane {}", self.pane)
    }

    fn changes(&mut self) -> Option<watch::Receiver<u64>> {
        let (changed, receiver) = watch::channel(0);
        tokio::spawn(follow_pane(
            self.spawner.clone(),
            self.display("#{pane_id} #{session_id}"),
            changed,
        ));
        Some(receiver)
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        let request = RunRequest {
            program: "tmux".into(),
            args: vec![
                "capture-pane".into(),
                "-p".into(),
                "-J".into(),
                "-S".into(),
                format!("-{TMUX_SCROLLBACK_LINES}"),
                "-t".into(),
                self.pane.clone(),
            ],
            stdin: Vec::new(),
            timeout: TMUX_TIMEOUT,
            max_stdout_bytes: TMUX_OUTPUT_BYTES,
            env: Vec::new(),
        };
        Box::pin(async move {
            let outcome = self.spawner.run(request).await.map_err(|error| {
                CaptureError::permanent(format!(
                    "cannot run tmux: {error}; install tmux, or watch another target"
                ))
            })?;
            if outcome.succeeded() {
                let text = String::from_utf8_lossy(&outcome.stdout);
                Ok(Content::text(text.trim_end()))
            } else {
                Err(CaptureError::retryable(format!(
                    "tmux pane {}: {}",
                    self.pane,
                    outcome.failure(TMUX_TIMEOUT)
                )))
            }
        })
    }
}

impl TmuxPane {
    fn display(&self, format: &str) -> RunRequest {
        RunRequest {
            program: "tmux".into(),
            args: vec![
                "display-message".into(),
                "-p".into(),
                "-t".into(),
                self.pane.clone(),
                format.into(),
            ],
            stdin: Vec::new(),
            timeout: TMUX_TIMEOUT,
            max_stdout_bytes: 256,
            env: Vec::new(),
        }
    }
}

/// Follows the pane's output through a tmux control client attached to its session, read
/// only: each `%output` of the pane, or a change of its window's layout, moves `changed` on.
/// Ends (the polls go on alone) when the pane cannot be named, tmux cannot be started, the
/// client is told to exit, or nobody listens any more.
async fn follow_pane(spawner: Arc<dyn Spawner>, request: RunRequest, changed: watch::Sender<u64>) {
    let Ok(outcome) = spawner.run(request).await else {
        return;
    };
    let named = String::from_utf8_lossy(&outcome.stdout).trim().to_owned();
    let Some((pane_id, session_id)) = named.split_once(' ').filter(|_| outcome.succeeded()) else {
        return;
    };
    let args = [
        "-C",
        "attach-session",
        "-t",
        session_id,
        "-f",
        "read-only,ignore-size",
    ];
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let Ok(mut control) = LineStream::start("tmux", &args) else {
        return;
    };
    let output = format!("%output {pane_id} ");
    loop {
        let line = tokio::select! {
            () = changed.closed() => return,
            line = control.next_line() => line,
        };
        let Some(line) = line else { return };
        if line.starts_with("%exit") {
            return;
        }
        if line.starts_with(&output) || line.starts_with("%layout-change") {
            changed.send_modify(|count| *count = count.wrapping_add(1));
        }
    }
}
