//! Being told when a watched Wayland window (or the screen) may have changed: wlr-screencopy's
//! `copy_with_damage` on a connection of its own. A frame asked for with damage is copied
//! only once the compositor has drawn something new on its output since this connection's
//! last copy (wlroots keeps that damage per connection and output, and repaints once at each
//! request, so damage drawn between two requests completes the next one): each `ready` is a
//! change, told at once, and the next frame is asked for.
//!
//! What is copied is the region the capture reads (the window's rectangle, or the output
//! whole for the screen); a new follow starts when the capture reads another region or
//! output (the window moved, was resized, went to another output). Every `ready` is told,
//! whatever its damage rectangle says: wlroots 0.15 completes a frame on damage anywhere on
//! the output, newer ones may say only the region's, and a change read twice costs one
//! capture where a change missed would go unread while polls trust the follow. The first
//! frame of a follow completes at once with everything as damage, so what changed between
//! the capture's read and the follow's start is told too.
//!
//! Between two frames the follow waits [`FOLLOW_SPACING`]: a video or a busy terminal costs
//! at most twenty copies a second, and what is drawn meanwhile is kept as damage for the
//! next. Each frame's buffer is made for it and dropped after it, so a still window holds
//! no copy of its pixels in shared memory.
//!
//! The follow is a task on the runtime's reactor (no thread of its own). It ends, telling a
//! change, when the connection breaks or a copy fails: the capture after it reads and finds
//! out why, and the target is polled until a capture starts a new follow.

use std::convert::Infallible;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::task::JoinHandle;
use wayland_client::backend::WaylandError;
use wayland_client::protocol::wl_output::WlOutput;
use wayland_protocols_wlr::screencopy::v1::client::zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1;

use super::client::{Client, Output, State, lost};
use super::screencopy::{self, Pool, Region};
use crate::sight::capture::{CaptureError, ChangeCount, tell_changed};

/// The least time between two frames a follow asks for.
pub const FOLLOW_SPACING: Duration = Duration::from_millis(50);

/// What a follow copies: an output and, for a window, the region of it the window covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Aim {
    /// The output's name ("HEADLESS-1"), when the compositor gives names.
    pub output_name: Option<String>,
    /// The output's top-left corner in the layout, which finds it without a name.
    pub output_at: (i32, i32),
    /// `None`: the output whole.
    pub region: Option<Region>,
}

impl Aim {
    /// Aims at `region` of `output` (`None`: all of it).
    pub fn at(output: &Output, region: Option<Region>) -> Aim {
        Aim {
            output_name: output.name.clone(),
            output_at: (output.x, output.y),
            region,
        }
    }

    /// The output this aims at, among a connection's outputs.
    fn output_among<'a>(&self, outputs: &'a [Output]) -> Option<&'a Output> {
        match &self.output_name {
            Some(name) => outputs.iter().find(|o| o.name.as_ref() == Some(name)),
            None => outputs.iter().find(|o| (o.x, o.y) == self.output_at),
        }
    }
}

/// A follow of one region's damage; stops when dropped.
#[derive(Debug)]
pub(super) struct DamageFollow {
    aim: Aim,
    listener: JoinHandle<()>,
}

impl DamageFollow {
    /// Connects to the compositor at `socket` and follows `aim`, moving `tell` on at each
    /// change; blocking (the connection's round trips). `None` when it cannot (no runtime at
    /// hand, the compositor or the output is gone): the target is then polled only.
    pub fn start(socket: &Path, aim: Aim, tell: ChangeCount) -> Option<DamageFollow> {
        let client = Client::connect(socket).ok()?;
        let output = aim.output_among(&client.state.outputs)?.wl.clone();
        let readable = client.reactor_socket()?;
        let listener = tokio::spawn(follow(
            client,
            readable,
            output,
            aim.region,
            tell,
            socket.to_owned(),
        ));
        Some(DamageFollow { aim, listener })
    }

    /// Whether this follow is live and copies what `aim` says.
    pub fn follows(&self, aim: &Aim) -> bool {
        self.is_live() && &self.aim == aim
    }

    /// Whether the follow still waits for the compositor's frames.
    pub fn is_live(&self) -> bool {
        !self.listener.is_finished()
    }
}

impl Drop for DamageFollow {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

/// Asks for frames with damage until one fails; then tells a change, so the capture after
/// it finds out why.
async fn follow(
    mut client: Client,
    readable: AsyncFd<OwnedFd>,
    output: WlOutput,
    region: Option<Region>,
    tell: ChangeCount,
    socket: PathBuf,
) {
    let Err(error) = copies(&mut client, &readable, &output, region, &tell, &socket).await;
    tracing::debug!(
        socket = %socket.display(),
        error = error.message,
        "the Wayland damage follow ended: the target is polled"
    );
    tell_changed(&tell);
}

async fn copies(
    client: &mut Client,
    readable: &AsyncFd<OwnedFd>,
    output: &WlOutput,
    region: Option<Region>,
    tell: &ChangeCount,
    socket: &Path,
) -> Result<Infallible, CaptureError> {
    loop {
        let frame = screencopy::request(client, output, region);
        let copied = copy_when_damaged(client, readable, &frame, socket).await;
        frame.destroy();
        copied?;
        tell_changed(tell);
        tokio::time::sleep(FOLLOW_SPACING).await;
    }
}

/// Copies `frame` once the compositor drew something new; waits as long as it takes.
async fn copy_when_damaged(
    client: &mut Client,
    readable: &AsyncFd<OwnedFd>,
    frame: &ZwlrScreencopyFrameV1,
    socket: &Path,
) -> Result<(), CaptureError> {
    let offers_end_with_done = screencopy::offers_end_with_done(client);
    dispatch_until(client, readable, socket, |state| {
        screencopy::all_offered(state, offers_end_with_done)
    })
    .await?;
    let spec = screencopy::offered_buffer(&client.state)?;
    let pool = Pool::new(client, spec.size())?;
    let buffer = pool.buffer(client, spec);
    frame.copy_with_damage(&buffer);
    let copied = dispatch_until(client, readable, socket, |state| {
        state.frame.outcome.is_some()
    })
    .await;
    buffer.destroy();
    drop(pool);
    copied?;
    match client.state.frame.outcome {
        Some(true) => Ok(()),
        _ => Err(CaptureError::retryable(
            "the Wayland compositor failed to copy a damaged frame",
        )),
    }
}

/// Dispatches the connection's events as they arrive until `done` says so.
async fn dispatch_until(
    client: &mut Client,
    readable: &AsyncFd<OwnedFd>,
    socket: &Path,
    done: impl Fn(&State) -> bool,
) -> Result<(), CaptureError> {
    while let Some(guard) = screencopy::next_read(client, socket, &done)? {
        let mut ready = readable
            .readable()
            .await
            .map_err(|error| lost(socket, &error))?;
        match guard.read() {
            Ok(_) => {}
            Err(WaylandError::Io(error)) if error.kind() == std::io::ErrorKind::WouldBlock => {
                ready.clear_ready();
            }
            Err(error) => return Err(lost(socket, &error)),
        }
    }
    Ok(())
}
