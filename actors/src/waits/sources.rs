//! The production sources of text targets, and the factory that picks a source and a gate
//! for a target.
//!
//! - `file:` — the last 64 KiB of the file, read by path on every capture, so truncation and
//!   rotation (a new file under the same name) are followed; unchanged size and mtime reuse
//!   the last read. A file that does not exist yet is an observation, not a failure.
//! - `tmux:` — `tmux capture-pane -p -J -S -200 -t <pane>`; a missing pane is a failure that
//!   carries tmux's own message.
//! - `pty:` — terminal sessions the daemon owns (their own module).
//! - `window:`/`screen` — pixels, through the X11 capture and the pixel gate.

use std::fmt::Debug;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::directory::Directory;
use crate::error::CallError;
use crate::process::{RunRequest, Spawner};
use crate::terminals::source::TerminalSource;
use crate::terminals::types::SessionId;
use crate::waits::content::Content;
use crate::waits::gate::{Gate, TextGate};
use crate::waits::pixel_gate::PixelGate;
use crate::waits::source::{CaptureError, Source};
use crate::waits::target::Target;
use crate::waits::x11::{CaptureOptions, Watched, X11Capture, X11Source};

/// How much of a file's end is watched.
pub const FILE_TAIL_BYTES: u64 = 64 * 1024;
/// Scrollback lines taken from a tmux pane besides its visible screen.
const TMUX_SCROLLBACK_LINES: u32 = 200;
/// Keep at most this much of a pane's capture (200 lines of history and the screen fit).
const TMUX_OUTPUT_BYTES: usize = 1024 * 1024;
/// How long `tmux capture-pane` may take.
const TMUX_TIMEOUT: Duration = Duration::from_secs(5);

/// Builds the source and the gate for a target.
pub trait SourceFactory: Debug + Send + Sync + 'static {
    /// A source for `target`, or why it cannot be watched (bad pane, no X display…).
    fn source(&self, target: &Target, directory: &Directory) -> Result<Box<dyn Source>, CallError>;

    /// The gate suited to the target's content.
    fn gate(&self, target: &Target) -> Box<dyn Gate>;

    /// Whether a new wait on `target` makes sense now (a `pty:` session must exist and an X
    /// display must open when the wait starts; a resumed wait finds out from its first
    /// capture instead).
    fn check_new(
        &self,
        _target: &Target,
        _directory: &Directory,
    ) -> BoxFuture<'static, Result<(), CallError>> {
        Box::pin(async { Ok(()) })
    }

    /// Whether the target's source reports the watched process's exit.
    fn reports_exit(&self, target: &Target) -> bool {
        matches!(target, Target::Pty(_))
    }
}

/// The real sources.
#[derive(Debug)]
pub struct ProductionSources {
    pub spawner: Arc<dyn Spawner>,
    /// The X display of `window:` and `screen` targets (`[x11] display`, else `DISPLAY`).
    pub display: Option<String>,
    /// The pixel gate's floor: a still window is judged again after this long.
    pub pixel_floor: Duration,
}

impl SourceFactory for ProductionSources {
    fn source(&self, target: &Target, directory: &Directory) -> Result<Box<dyn Source>, CallError> {
        match target {
            Target::File(path) => Ok(Box::new(FileTail::new(path.clone()))),
            Target::Tmux(pane) => Ok(Box::new(TmuxPane {
                pane: pane.clone(),
                spawner: self.spawner.clone(),
            })),
            Target::Pty(session) => Ok(Box::new(TerminalSource::new(directory, session))),
            Target::Window(_) | Target::Screen => {
                let source =
                    X11Source::deferred(self.display.clone(), target).map_err(|error| {
                        CallError::internal(error.message, "this is a bug in lookout")
                    })?;
                Ok(Box::new(source))
            }
        }
    }

    fn gate(&self, target: &Target) -> Box<dyn Gate> {
        if target.is_pixels() {
            Box::new(PixelGate::new(self.pixel_floor))
        } else {
            Box::new(TextGate::default())
        }
    }

    fn check_new(
        &self,
        target: &Target,
        directory: &Directory,
    ) -> BoxFuture<'static, Result<(), CallError>> {
        let checked = match target {
            Target::Pty(session) => SessionId::parse(session)
                .and_then(|id| directory.terminal_sessions().get(&id).map(drop)),
            _ => Ok(()),
        };
        let watched = Watched::of(target);
        let display = self.display.clone();
        Box::pin(async move {
            checked?;
            let Some(watched) = watched else {
                return Ok(());
            };
            // Open the display once, off the runtime, so that a wait that cannot work fails
            // now with a reason instead of at its first captures.
            let opened = tokio::task::spawn_blocking(move || {
                X11Capture::connect(display.as_deref(), watched, CaptureOptions::default())
                    .map(drop)
            })
            .await
            .map_err(|error| {
                CallError::internal(format!("opening the X display failed: {error}"), "retry")
            })?;
            opened.map_err(|error| {
                CallError::unavailable(
                    error.message,
                    "window: and screen waits need an X display the daemon can open; text \
                     targets (pty:, tmux:, file:) work without one",
                )
            })
        })
    }
}

/// The tail of a file.
#[derive(Debug)]
pub struct FileTail {
    path: PathBuf,
    /// The stamp of the last read and what it gave.
    last: Option<(Stamp, Arc<str>)>,
}

/// What tells two versions of a file apart without reading it: (device, inode, size, mtime ns).
type Stamp = (u64, u64, u64, i64);

impl FileTail {
    pub fn new(path: PathBuf) -> Self {
        Self { path, last: None }
    }
}

impl Source for FileTail {
    fn describe(&self) -> String {
        format!("file {}", self.path.display())
    }

    /// A `stat` on the runtime thread decides; only a changed file is read, on the blocking
    /// pool. (An idle wait's poll then costs one `stat`, no thread hand-off and no copy: the
    /// lion's share of 500 idle waits' CPU went to the hand-off before.)
    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        Box::pin(async move {
            let Some(metadata) = stat(&self.path)? else {
                self.last = None;
                return Ok(Content::Absent {
                    description: format!("{} does not exist (yet)", self.path.display()),
                });
            };
            let stamp = stamp_of(&metadata);
            if let Some((last_stamp, text)) = &self.last
                && *last_stamp == stamp
            {
                return Ok(Content::Text {
                    text: text.clone(),
                    exit: None,
                });
            }
            let path = self.path.clone();
            let length = metadata.len();
            let text: Arc<str> = tokio::task::spawn_blocking(move || read_tail(&path, length))
                .await
                .map_err(|error| {
                    CaptureError::retryable(format!("reading the file failed: {error}"))
                })??
                .into();
            self.last = Some((stamp, text.clone()));
            Ok(Content::Text { text, exit: None })
        })
    }
}

/// The file's metadata, `None` when it does not exist.
fn stat(path: &std::path::Path) -> Result<Option<std::fs::Metadata>, CaptureError> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(CaptureError::retryable(format!(
                "cannot read {}: {error}",
                path.display()
            )));
        }
    };
    if metadata.is_dir() {
        return Err(CaptureError::permanent(format!(
            "{} is a folder; watch a file in it (file:/path/to/build.log)",
            path.display()
        )));
    }
    Ok(Some(metadata))
}

fn stamp_of(metadata: &std::fs::Metadata) -> Stamp {
    (
        metadata.dev(),
        metadata.ino(),
        metadata.len(),
        metadata.mtime_nsec() + metadata.mtime() * 1_000_000_000,
    )
}

/// The last [`FILE_TAIL_BYTES`] of a file `length` bytes long, from the start of a line.
fn read_tail(path: &std::path::Path, length: u64) -> Result<String, CaptureError> {
    let cannot_read = |error: std::io::Error| {
        CaptureError::retryable(format!("cannot read {}: {error}", path.display()))
    };
    let mut file = std::fs::File::open(path).map_err(|error| {
        CaptureError::retryable(format!("cannot open {}: {error}", path.display()))
    })?;
    let start = length.saturating_sub(FILE_TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).map_err(cannot_read)?;
    let mut bytes = Vec::with_capacity((length - start) as usize);
    file.take(FILE_TAIL_BYTES)
        .read_to_end(&mut bytes)
        .map_err(cannot_read)?;
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if start > 0 {
        // Started mid-file: drop the partial first line.
        if let Some(newline) = text.find('\n') {
            text.drain(..=newline);
        }
    }
    Ok(text)
}

/// A tmux pane, captured with `tmux capture-pane`.
#[derive(Debug)]
struct TmuxPane {
    pane: String,
    spawner: Arc<dyn Spawner>,
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

#[cfg(test)]
mod tests {
    use super::*;

    async fn capture(source: &mut FileTail) -> Content {
        source.capture().await.unwrap()
    }

    #[tokio::test]
    async fn a_file_tail_follows_appends_truncation_and_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("build.log");
        let mut source = FileTail::new(path.clone());
        assert!(
            matches!(capture(&mut source).await, Content::Absent { description } if description.contains("does not exist"))
        );

        std::fs::write(&path, "step 1\n").unwrap();
        assert_eq!(capture(&mut source).await, Content::text("step 1\n"));
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut file, b"step 2\n").unwrap();
        assert_eq!(
            capture(&mut source).await,
            Content::text("step 1\nstep 2\n")
        );

        // Truncated, then rotated: always what the path holds now.
        std::fs::write(&path, "fresh\n").unwrap();
        assert_eq!(capture(&mut source).await, Content::text("fresh\n"));
        std::fs::rename(&path, dir.path().join("build.log.1")).unwrap();
        std::fs::write(&path, "rotated\n").unwrap();
        assert_eq!(capture(&mut source).await, Content::text("rotated\n"));
    }

    #[tokio::test]
    async fn only_the_last_64_kib_is_read_from_a_line_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.log");
        let lines: String = (0..20_000).map(|n| format!("line {n}\n")).collect();
        std::fs::write(&path, &lines).unwrap();
        let Content::Text { text, .. } = capture(&mut FileTail::new(path)).await else {
            panic!("text")
        };
        assert!(text.len() <= FILE_TAIL_BYTES as usize);
        assert!(
            text.starts_with("line "),
            "a whole first line: {:?}",
            &text[..20]
        );
        assert!(text.ends_with("line 19999\n"));
    }
}
