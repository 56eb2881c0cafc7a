//! `tmux:` targets: `tmux capture-pane -p -J -S -200 -t <pane>` through the `Spawner`; a
//! missing pane is a failure that carries tmux's own message.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::process::{RunRequest, Spawner};
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
