//! `tmux:` targets: `tmux capture-pane -p -J -S -200 -t <pane>` through the `Spawner`; a
//! missing pane is a failure that carries tmux's own message.
//!
//! tmux tells when a pane wrote: a control-mode client (`tmux -C attach-session -r -f
//! ignore-size`) on the pane's session reads a `%output %<pane id> …` line for each write, and
//! each moves the wait's change count on, so the pane is captured at once instead of at the
//! next poll. The client is read-only and ignores its size, so the user's panes, windows and
//! sizes stay as they are; it attaches to the session by id, never to the pane, so the active
//! pane is not changed. A session with `destroy-unattached` on is not attached to (the
//! client's leaving would end it), and a tmux too old for control-mode flags (before 3.2) or a
//! client that ends leaves the pane polled, as before.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::watch;

use crate::process::stream::StreamingChild;
use crate::process::{RunRequest, Spawner};
use crate::sight::capture::{CaptureError, Source, tell_changed};
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

    fn tmux(&self, args: &[&str]) -> RunRequest {
        RunRequest {
            program: "tmux".into(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            stdin: Vec::new(),
            timeout: TMUX_TIMEOUT,
            max_stdout_bytes: TMUX_OUTPUT_BYTES,
            env: Vec::new(),
        }
    }
}

impl Source for TmuxPane {
    fn describe(&self) -> String {
        format!("tmux pane {}", self.pane)
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        let history = format!("-{TMUX_SCROLLBACK_LINES}");
        let request = self.tmux(&["capture-pane", "-p", "-J", "-S", &history, "-t", &self.pane]);
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

    /// Told by tmux: each write of the pane, read by a control-mode client on its session.
    fn changes(&mut self) -> Option<watch::Receiver<u64>> {
        let (tell, told) = watch::channel(0u64);
        let ids = self.tmux(&[
            "display-message",
            "-p",
            "-t",
            &self.pane,
            "#{session_id} #{pane_id} #{destroy-unattached}",
        ]);
        let spawner = self.spawner.clone();
        let pane = self.pane.clone();
        tokio::spawn(async move {
            if let Err(why) = follow_pane(spawner, ids, &tell).await {
                tracing::debug!(pane, why, "tmux pane not followed: polled only");
            }
        });
        Some(told)
    }
}

/// Moves `tell` on at each write of the pane `ids` names, until nobody listens (`Ok`) or
/// the control client cannot start or ends (`Err`, with why).
async fn follow_pane(
    spawner: Arc<dyn Spawner>,
    ids: RunRequest,
    tell: &watch::Sender<u64>,
) -> Result<(), String> {
    let outcome = spawner.run(ids).await.map_err(|error| error.to_string())?;
    if !outcome.succeeded() {
        return Err(outcome.failure(TMUX_TIMEOUT));
    }
    let ids = String::from_utf8_lossy(&outcome.stdout);
    let mut words = ids.split_whitespace();
    let (Some(session), Some(pane)) = (words.next(), words.next()) else {
        return Err(format!("tmux named the pane as {ids:?}"));
    };
    if !matches!(words.next(), None | Some("0" | "off")) {
        return Err("its session has destroy-unattached on".to_owned());
    }
    // Control mode ends at the end of its input: the writing end is held until the follow ends.
    let (input, _held_open) = std::io::pipe().map_err(|error| error.to_string())?;
    let args = [
        "-C",
        "attach-session",
        "-r",
        "-f",
        "ignore-size",
        "-t",
        session,
    ];
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let mut client =
        StreamingChild::start("tmux", &args, input.into()).map_err(|error| error.to_string())?;
    let stdout = client.take_stdout().ok_or("no stdout")?;
    let stdout =
        tokio::process::ChildStdout::from_std(stdout).map_err(|error| error.to_string())?;
    let mut stdout = BufReader::new(stdout);
    let ours = format!("%output {pane} ");
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = tokio::select! {
            () = tell.closed() => return Ok(()),
            read = stdout.read_until(b'\n', &mut line) => read,
        };
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) if line.starts_with(ours.as_bytes()) => {
                tell_changed(tell);
            }
            Ok(_) if line.starts_with(b"%exit") => break,
            Ok(_) => {}
        }
    }
    Err(client
        .ended()
        .unwrap_or_else(|| "the control client stopped".to_owned()))
}
