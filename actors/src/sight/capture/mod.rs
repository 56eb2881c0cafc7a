//! Capturing targets. The `Source` seam is one capture of a target; a Watcher calls it every
//! poll interval, and at once when a source that is told of changes says one came. The
//! production implementations are named for their mechanism: a file tail ([`file`]), `tmux
//! capture-pane` ([`tmux`]), a daemon-owned terminal (`terminals::source`), the agent's own
//! OpenClaw exec session ([`openclaw`]), an X11 window or screen ([`x11`]), a Wayland window
//! or screen on a wlroots compositor ([`wayland`]), the screen of a GNOME or KDE session
//! through the ScreenCast portal ([`portal`]); [`sources`] picks one per target, and tests and
//! the harness script them (`waits::scripted`).

pub mod blocking;
pub mod file;
pub mod inotify;
pub mod openclaw;
pub mod portal;
pub mod tmux;
pub mod wayland;
pub mod x11;

use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::io::unix::AsyncFd;
use tokio::sync::watch;

use crate::sight::content::Content;

/// Why a capture failed. Consecutive failures end the wait in `error` with this message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureError {
    /// Says what failed and how to fix it, e.g. "tmux: can't find pane: main:9".
    pub message: String,
    /// Retrying cannot help (e.g. the terminal session's output was lost in a restart): the
    /// wait ends in `error` at once.
    pub permanent: bool,
}

impl CaptureError {
    pub fn retryable(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            permanent: false,
        }
    }

    pub fn permanent(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            permanent: true,
        }
    }
}

/// A count that moves on at each change, shared by a source and the captures it connects
/// (X11 DAMAGE, Wayland `copy_with_damage`).
pub type ChangeCount = Arc<watch::Sender<u64>>;

/// A receiver of the count kept in `count`, made at the first ask: how a source gives out
/// the count it hands to the captures it connects ([`Source::changes`]).
pub fn subscribe(count: &mut Option<ChangeCount>) -> watch::Receiver<u64> {
    count
        .get_or_insert_with(|| Arc::new(watch::channel(0).0))
        .subscribe()
}

/// A duplicate of a display connection's socket on the runtime's reactor, for a task that
/// listens to the display beside the blocking captures; `None` when no runtime is at hand
/// or the socket cannot be duplicated (the target is then polled only).
pub(crate) fn reactor_socket(socket: BorrowedFd<'_>) -> Option<AsyncFd<OwnedFd>> {
    let runtime = tokio::runtime::Handle::try_current().ok()?;
    let duplicate: OwnedFd = rustix::io::dup(socket).ok()?;
    let _entered = runtime.enter();
    // The safe constructor is deprecated for a descriptor that could be closed behind the
    // reactor's back; this duplicate is owned by the AsyncFd alone.
    #[allow(deprecated)]
    let readable = AsyncFd::new(duplicate).ok();
    readable
}

/// Moves a source's count of changes on ([`Source::changes`]): the target may have changed.
pub fn tell_changed(count: &watch::Sender<u64>) {
    count.send_modify(|count| *count = count.wrapping_add(1));
}

/// Captures a target's current content.
pub trait Source: Send + 'static {
    /// What is watched, in words: "tmux pane main:0.1", "window 0x4200003 (Firefox)".
    fn describe(&self) -> String;

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>>;

    /// A count that moves on whenever the target may have changed, for a source that is told
    /// (a file's inotify events, a terminal session's output): each move is a capture at once
    /// instead of at the next poll. `None`: the target is polled only. Either way the polls
    /// go on, as the safety net of a source that stops telling. Asked once, when the feed of
    /// the target is made.
    fn changes(&mut self) -> Option<watch::Receiver<u64>> {
        None
    }

    /// Whether the count of [`Source::changes`] moves on at *every* change of what the last
    /// capture read, right now (an X11 window or screen with a live DAMAGE report on it):
    /// while the count stands still, a capture would read what the last one did, so a feed
    /// may skip it. `false` for a source that may change untold (by default, and whenever
    /// the report is not known to be live).
    fn tells_every_change(&self) -> bool {
        false
    }
}
