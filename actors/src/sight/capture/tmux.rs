//! `tmux:` targets: `tmux capture-pane -p -J -S -200 -t <pane>` through the `Spawner`; a
//! missing pane is a failure that carries tmux's own message.
//!
//! **Told by tmux.** Given a folder of its own for pipes (the daemon's, beside its socket),
//! the source follows its pane with `tmux pipe-pane -o`: tmux copies each write of the pane
//! into `cat`, which writes into a FIFO the source reads; each read moves the wait's change
//! count on, so the pane is captured at once instead of at the next poll. What was written is
//! thrown away: the capture reads the pane as before.
//!
//! The pipe touches as little of the user's tmux as it can: a pane the user pipes already
//! (`#{pane_pipe}`) is left alone and polled. When its waits end, the source closes the
//! pipe only if it is still its own: its `cat` is still connected to the FIFO (a pipe the
//! user opened over it, or closed, would have ended that `cat`, which the FIFO reads as its
//! end); output written meanwhile and not read yet does not hide that. A daemon that
//! stopped or crashed closes nothing: its `cat` dies at the pane's next write (a FIFO
//! nobody reads) and tmux closes the pipe at the write after. Not a
//! control-mode client: Debian's tmux 3.3a server crashes when read-only control clients
//! attach while sessions are being made, which a full-tier test now repeats against pipes.
//! A pipe that ends leaves the pane polled.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::io::unix::AsyncFd;
use tokio::sync::watch;

use crate::process::{RunRequest, Spawner};
use crate::sight::capture::{CaptureError, Source, tell_changed};
use crate::sight::content::Content;

/// Scrollback lines taken from a tmux pane besides its visible screen.
const TMUX_SCROLLBACK_LINES: u32 = 200;
/// Keep at most this much of a pane's capture (200 lines of history and the screen fit).
const TMUX_OUTPUT_BYTES: usize = 1024 * 1024;
/// How long `tmux capture-pane` may take.
const TMUX_TIMEOUT: Duration = Duration::from_secs(5);

/// How often, and how far apart, a follow that ends looks for a pipe's `cat` that has not
/// opened its FIFO yet, before leaving the pipe to end on its own.
const CAT_ARRIVAL_CHECKS: usize = 40;
const CAT_ARRIVAL_SPACING: Duration = Duration::from_millis(50);

/// Tells the FIFOs of one daemon apart (two feeds may follow one pane under two names).
static NEXT_PIPE: AtomicU64 = AtomicU64::new(1);

/// A tmux pane, captured with `tmux capture-pane`.
#[derive(Debug)]
pub struct TmuxPane {
    pane: String,
    spawner: Arc<dyn Spawner>,
    /// Where the pane's pipe goes (`None`: the pane is polled only). Asked for changes, the
    /// source reads the pipe on a task of its own, which ends (closing the pipe) once nobody
    /// holds the count of changes.
    pipes: Option<PathBuf>,
}

impl TmuxPane {
    /// A pane polled only.
    pub fn new(pane: String, spawner: Arc<dyn Spawner>) -> Self {
        Self {
            pane,
            spawner,
            pipes: None,
        }
    }

    /// A pane that, asked for its changes, pipes its output into a FIFO in `pipes`.
    pub fn piped_into(pane: String, spawner: Arc<dyn Spawner>, pipes: PathBuf) -> Self {
        Self {
            pane,
            spawner,
            pipes: Some(pipes),
        }
    }
}

fn tmux(args: &[&str]) -> RunRequest {
    RunRequest {
        program: "tmux".into(),
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        stdin: Vec::new(),
        timeout: TMUX_TIMEOUT,
        max_stdout_bytes: TMUX_OUTPUT_BYTES,
        env: Vec::new(),
    }
}

impl Source for TmuxPane {
    fn describe(&self) -> String {
        format!("tmux pane {}", self.pane)
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        let history = format!("-{TMUX_SCROLLBACK_LINES}");
        let request = tmux(&["capture-pane", "-p", "-J", "-S", &history, "-t", &self.pane]);
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

    /// Told by tmux: each write of the pane, through its pipe.
    fn changes(&mut self) -> Option<watch::Receiver<u64>> {
        let pipes = self.pipes.clone()?;
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (tell, told) = watch::channel(0u64);
        let (spawner, pane) = (self.spawner.clone(), self.pane.clone());
        runtime.spawn(async move {
            if let Err(why) = follow_pane(&spawner, &pane, &pipes, &tell).await {
                tracing::debug!(pane, why, "tmux pane not followed: polled only");
            }
        });
        Some(told)
    }
}

/// Moves `tell` on at each write of `pane`, until nobody listens (`Ok`, the pipe closed if
/// it is still this follow's) or the pipe cannot be opened or ends (`Err`, with why).
async fn follow_pane(
    spawner: &Arc<dyn Spawner>,
    pane: &str,
    pipes: &Path,
    tell: &watch::Sender<u64>,
) -> Result<(), String> {
    let asked = tmux(&[
        "display-message",
        "-p",
        "-t",
        pane,
        "#{pane_id} #{pane_pipe}",
    ]);
    let outcome = spawner
        .run(asked)
        .await
        .map_err(|error| error.to_string())?;
    if !outcome.succeeded() {
        return Err(outcome.failure(TMUX_TIMEOUT));
    }
    let answer = String::from_utf8_lossy(&outcome.stdout);
    let (id, piped) = (answer.trim())
        .split_once(' ')
        .ok_or_else(|| format!("tmux described the pane as {answer:?}"))?;
    if piped != "0" {
        return Err(format!(
            "pane {id} is piped already (pipe-pane): left alone"
        ));
    }
    let fifo = Fifo::make(pipes, id)?;
    let pipe = fifo.open()?;
    // A `cat` that starts after the follow ended (and removed its FIFO) must not write the
    // pane into a file of that name: it exits, and tmux closes the pipe.
    let command = format!(
        "[ -p '{path}' ] && exec cat > '{path}'",
        path = fifo.path.display()
    );
    let opened = spawner
        .run(tmux(&["pipe-pane", "-o", "-t", id, &command]))
        .await
        .map_err(|error| error.to_string())?;
    if !opened.succeeded() {
        return Err(opened.failure(TMUX_TIMEOUT));
    }
    let mut written = vec![0u8; 16 * 1024];
    // Whether the pipe's `cat` has written into the FIFO (it came).
    let mut came = false;
    loop {
        tokio::select! {
            ready = pipe.readable() => {
                let mut ready = ready.map_err(|error| error.to_string())?;
                match rustix::io::read(pipe.get_ref(), &mut written[..]) {
                    Ok(0) => return Err("the pane's pipe ended (closed, or another opened)".into()),
                    Ok(_) => {
                        came = true;
                        tell_changed(tell);
                    }
                    Err(rustix::io::Errno::AGAIN) => ready.clear_ready(),
                    Err(rustix::io::Errno::INTR) => {}
                    Err(error) => return Err(format!("reading the pane's pipe: {error}")),
                }
            }
            () = tell.closed() => break,
        }
    }
    if !still_ours(&pipe, came).await {
        tracing::debug!(
            pane,
            "the pane's waits ended; its pipe is not lookout's any more"
        );
        return Ok(());
    }
    let closed = spawner.run(tmux(&["pipe-pane", "-t", id])).await;
    if closed.is_ok_and(|outcome| outcome.succeeded()) {
        tracing::debug!(pane, "the pane's waits ended; its pipe is closed");
    } else {
        tracing::debug!(
            pane,
            "closing the pane's pipe failed: it ends at its next writes"
        );
    }
    Ok(())
}

/// Whether the pane's pipe is still the follow's own: its `cat` is connected to the FIFO (a
/// pipe the user opened over it, or closed, ended that `cat`). A `cat` that has not come yet
/// (the waits ended moments after the pipe opened) is waited for a little; one that came
/// and left is not.
async fn still_ours(pipe: &AsyncFd<OwnedFd>, came: bool) -> bool {
    for _ in 0..CAT_ARRIVAL_CHECKS {
        match writer_of(pipe) {
            Writer::Connected => return true,
            Writer::Gone if came => return false,
            Writer::Gone => tokio::time::sleep(CAT_ARRIVAL_SPACING).await,
        }
    }
    false
}

/// Whether a FIFO has a writer now.
enum Writer {
    Connected,
    /// It left, or never came: the FIFO reads as ended.
    Gone,
}

/// Reads and throws away what the FIFO's writer wrote and nobody read yet, until the FIFO
/// says it would block (a writer is there) or reads as ended.
fn writer_of(pipe: &AsyncFd<OwnedFd>) -> Writer {
    let mut written = [0u8; 4096];
    loop {
        match rustix::io::read(pipe.get_ref(), &mut written[..]) {
            Ok(0) => return Writer::Gone,
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => return Writer::Connected,
            Err(_) => return Writer::Gone,
        }
    }
}

/// Makes the folder of the panes' FIFOs (the user's alone) and removes those a daemon
/// before this one left behind (killed before it could). Whether panes can be followed.
pub fn prepare_pipes(pipes: &Path) -> bool {
    use std::os::unix::fs::DirBuilderExt;
    let made = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(pipes);
    if let Err(error) = made {
        tracing::warn!(folder = %pipes.display(), %error, "tmux panes will be polled only");
        return false;
    }
    for entry in std::fs::read_dir(pipes).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("pane-") && name.ends_with(".fifo") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    true
}

/// A FIFO of the daemon's, removed when the follow ends.
struct Fifo {
    path: PathBuf,
}

impl Fifo {
    fn make(pipes: &Path, pane_id: &str) -> Result<Fifo, String> {
        let number = NEXT_PIPE.fetch_add(1, Ordering::Relaxed);
        let pane: String = (pane_id.chars())
            .filter(char::is_ascii_alphanumeric)
            .collect();
        let path = pipes.join(format!("pane-{pane}-{number}.fifo"));
        if path.to_string_lossy().contains('\'') {
            return Err(format!("{} cannot be quoted for tmux", pipes.display()));
        }
        let mode = rustix::fs::Mode::from_raw_mode(0o600);
        rustix::fs::mkfifoat(rustix::fs::CWD, &path, mode)
            .map_err(|error| format!("making {}: {error}", path.display()))?;
        Ok(Fifo { path })
    }

    /// Opens the FIFO to read, on the runtime's reactor. Linux reports no end before a
    /// first writer came, so it is read only once `cat` wrote, and reads as ended once `cat`
    /// is gone (the pipe closed or replaced).
    fn open(&self) -> Result<AsyncFd<OwnedFd>, String> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let opened = rustix::fs::open(&self.path, flags, Mode::empty())
            .map_err(|error| format!("opening {}: {error}", self.path.display()))?;
        // The safe constructor is deprecated for a descriptor that could be closed behind
        // the reactor's back; this one is owned by the AsyncFd alone.
        #[allow(deprecated)]
        let watched = AsyncFd::new(opened);
        watched.map_err(|error| format!("watching {}: {error}", self.path.display()))
    }
}

impl Drop for Fifo {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
