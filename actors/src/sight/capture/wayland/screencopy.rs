//! Copying pixels out of the compositor with `wlr-screencopy`: a frame of a whole output or
//! of a region of it, into a shared-memory buffer lookout made (a memfd the compositor
//! writes), read back with `pread` (no mapping, so no `unsafe`) and handed out as BGRA rows
//! top-down, like every other frame.

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::sync::Arc;

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fs::MemfdFlags;
use wayland_client::Proxy;
use wayland_client::backend::ReadEventsGuard;
use wayland_client::protocol::{wl_buffer, wl_output, wl_shm, wl_shm_pool};
use wayland_protocols_wlr::screencopy::v1::client::zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1;

use super::client::{BufferSpec, Client, FrameState, State, lost};
use crate::sight::capture::CaptureError;
use crate::sight::capture::x11::pixels::zeroed_pixels;
use crate::sight::content::Frame;

/// How long one wait for the compositor may go without an event (a frame is copied at the
/// output's next repaint, well within this).
const EVENT_PATIENCE: Timespec = Timespec {
    tv_sec: 0,
    tv_nsec: 100_000_000,
};
/// Waits of [`EVENT_PATIENCE`] before a copy is given up: 5 s.
const PATIENT_WAITS: u32 = 50;

/// A rectangle in an output's logical coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Region {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

/// The shared-memory file and pool frames are copied into; kept while the size holds.
#[derive(Debug)]
pub(super) struct Pool {
    file: OwnedFd,
    size: usize,
    pool: wl_shm_pool::WlShmPool,
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.pool.destroy();
    }
}

/// Copies the next frame of `output` (or of `region` of it) into `pool`; blocking.
pub(super) fn copy(
    client: &mut Client,
    pool: &mut Option<Pool>,
    output: &wl_output::WlOutput,
    region: Option<Region>,
    socket: &Path,
) -> Result<Frame, CaptureError> {
    let frame = request(client, output, region);
    let offers_end_with_done = offers_end_with_done(client);
    let offered = dispatch_until(client, socket, |state| {
        all_offered(state, offers_end_with_done)
    });
    let result = offered.and_then(|()| {
        let spec = offered_buffer(&client.state)?;
        let pool = pool_of_size(client, pool, spec.size())?;
        let buffer = pool.buffer(client, spec);
        frame.copy(&buffer);
        let copied = dispatch_until(client, socket, |state| state.frame.outcome.is_some());
        buffer.destroy();
        copied?;
        match client.state.frame.outcome {
            Some(true) => read_frame(&pool.file, spec, client.state.frame.y_invert),
            _ => Err(CaptureError::retryable(
                "the Wayland compositor failed to copy the frame (screencopy failed)",
            )),
        }
    });
    frame.destroy();
    result
}

/// Asks for the next frame of `output` (or of `region` of it), forgetting the last one's
/// events; the compositor answers with the buffers it can copy into.
pub(super) fn request(
    client: &mut Client,
    output: &wl_output::WlOutput,
    region: Option<Region>,
) -> ZwlrScreencopyFrameV1 {
    client.state.frame = FrameState::default();
    let handle = &client.handle;
    match region {
        None => client.screencopy.capture_output(0, output, handle, ()),
        Some(r) => client.screencopy.capture_output_region(
            0,
            output,
            r.x,
            r.y,
            r.width,
            r.height,
            handle,
            (),
        ),
    }
}

/// Whether the compositor says when it has offered every buffer type: before version 3 no
/// `buffer_done` follows the offers, and the shared-memory one is all.
pub(super) fn offers_end_with_done(client: &Client) -> bool {
    client.screencopy.version() >= 3
}

/// Whether the frame requested has offered its buffers (or failed already).
pub(super) fn all_offered(state: &State, offers_end_with_done: bool) -> bool {
    state.frame.outcome.is_some()
        || (state.frame.buffer.is_some() && (!offers_end_with_done || state.frame.buffer_done))
}

/// The shared-memory buffer the frame requested takes, once [`all_offered`].
pub(super) fn offered_buffer(state: &State) -> Result<BufferSpec, CaptureError> {
    match (state.frame.outcome, state.frame.buffer) {
        (Some(false), _) | (_, None) => Err(CaptureError::retryable(
            "the Wayland compositor would not copy the output (screencopy failed)",
        )),
        (_, Some(spec)) => Ok(spec),
    }
}

impl BufferSpec {
    /// Bytes a buffer of this shape takes.
    pub(super) fn size(&self) -> usize {
        self.stride as usize * self.height as usize
    }
}

impl Pool {
    /// A pool of `size` bytes: a fresh memfd the compositor writes, shared with it.
    pub(super) fn new(client: &Client, size: usize) -> Result<Pool, CaptureError> {
        let failed = |error: rustix::io::Errno| {
            CaptureError::retryable(format!("cannot make a shared-memory buffer: {error}"))
        };
        let file =
            rustix::fs::memfd_create("lookout-screencopy", MemfdFlags::CLOEXEC).map_err(failed)?;
        rustix::fs::ftruncate(&file, size as u64).map_err(failed)?;
        let pool = client
            .shm
            .create_pool(file.as_fd(), size as i32, &client.handle, ());
        Ok(Pool { file, size, pool })
    }

    /// A buffer of the shape `spec` at the start of the pool.
    pub(super) fn buffer(&self, client: &Client, spec: BufferSpec) -> wl_buffer::WlBuffer {
        self.pool.create_buffer(
            0,
            spec.width as i32,
            spec.height as i32,
            spec.stride as i32,
            spec.format,
            &client.handle,
            (),
        )
    }
}

/// The pool, made again when a frame needs another size.
fn pool_of_size<'a>(
    client: &Client,
    pool: &'a mut Option<Pool>,
    size: usize,
) -> Result<&'a mut Pool, CaptureError> {
    if pool.as_ref().is_none_or(|pool| pool.size != size) {
        *pool = None;
        *pool = Some(Pool::new(client, size)?);
    }
    Ok(pool.as_mut().expect("the pool was just made"))
}

/// Dispatches the events read so far: `None` once `done` says so, else (what was asked sent)
/// the guard of the next read from the socket.
pub(super) fn next_read(
    client: &mut Client,
    socket: &Path,
    done: &impl Fn(&State) -> bool,
) -> Result<Option<ReadEventsGuard>, CaptureError> {
    loop {
        client
            .queue
            .dispatch_pending(&mut client.state)
            .map_err(|error| lost(socket, &error))?;
        if done(&client.state) {
            return Ok(None);
        }
        client.queue.flush().map_err(|error| lost(socket, &error))?;
        if let Some(guard) = client.queue.prepare_read() {
            return Ok(Some(guard));
        }
    }
}

/// Dispatches events until `done` says so, waiting at most [`PATIENT_WAITS`] times
/// [`EVENT_PATIENCE`] without one.
fn dispatch_until(
    client: &mut Client,
    socket: &Path,
    done: impl Fn(&State) -> bool,
) -> Result<(), CaptureError> {
    let mut quiet_waits = 0;
    while let Some(guard) = next_read(client, socket, &done)? {
        if quiet_waits == PATIENT_WAITS {
            return Err(CaptureError::retryable(
                "the Wayland compositor did not answer a screen copy within 5 s",
            ));
        }
        let readable = {
            let fd = guard.connection_fd();
            let mut polled = [PollFd::new(&fd, PollFlags::IN)];
            rustix::event::poll(&mut polled, Some(&EVENT_PATIENCE))
                .map_err(|error| lost(socket, &error))?
        };
        if readable == 0 {
            quiet_waits += 1;
            continue;
        }
        quiet_waits = 0;
        guard.read().map_err(|error| lost(socket, &error))?;
    }
    Ok(())
}

/// The copied frame as BGRA rows, top-down.
fn read_frame(file: &OwnedFd, spec: BufferSpec, y_invert: bool) -> Result<Frame, CaptureError> {
    let swap_red_and_blue = match spec.format {
        wl_shm::Format::Xrgb8888 | wl_shm::Format::Argb8888 => false,
        wl_shm::Format::Xbgr8888 | wl_shm::Format::Abgr8888 => true,
        other => {
            return Err(CaptureError::permanent(format!(
                "the Wayland compositor hands out pixels as {other:?}, which lookout cannot read; \
                 it reads 32-bit RGB formats"
            )));
        }
    };
    let (width, height, stride) = (
        spec.width as usize,
        spec.height as usize,
        spec.stride as usize,
    );
    let row = width * 4;
    if stride < row {
        return Err(CaptureError::retryable(format!(
            "the compositor's stride {stride} is shorter than a row of {width} pixels"
        )));
    }
    let mut pixels = zeroed_pixels(row * height);
    let out = Arc::get_mut(&mut pixels).expect("a fresh Arc is unique");
    if stride == row && !swap_red_and_blue && !y_invert {
        // The compositor's rows are the frame's: one copy, straight into the frame.
        read_all(file, out)?;
        return Ok(Frame::new(spec.width, spec.height, pixels));
    }
    let mut raw = vec![0u8; stride * height];
    read_all(file, &mut raw)?;
    for (y, target) in out.chunks_exact_mut(row).enumerate() {
        let source = if y_invert { height - 1 - y } else { y };
        let line = &raw[source * stride..source * stride + row];
        if swap_red_and_blue {
            for (to, from) in target.chunks_exact_mut(4).zip(line.chunks_exact(4)) {
                to.copy_from_slice(&[from[2], from[1], from[0], from[3]]);
            }
        } else {
            target.copy_from_slice(line);
        }
    }
    Ok(Frame::new(spec.width, spec.height, pixels))
}

/// Reads the whole shared-memory file from its start.
fn read_all(file: &OwnedFd, into: &mut [u8]) -> Result<(), CaptureError> {
    let mut done = 0;
    while done < into.len() {
        let read = rustix::io::pread(file, &mut into[done..], done as u64).map_err(|error| {
            CaptureError::retryable(format!("cannot read the copied frame: {error}"))
        })?;
        if read == 0 {
            return Err(CaptureError::retryable(
                "the copied frame is shorter than the compositor said",
            ));
        }
        done += read;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shared-memory file holding `bytes`, as the compositor leaves it.
    fn written(bytes: &[u8]) -> OwnedFd {
        let file = rustix::fs::memfd_create("test", MemfdFlags::CLOEXEC).unwrap();
        rustix::io::pwrite(&file, bytes, 0).unwrap();
        file
    }

    fn spec(format: wl_shm::Format, stride: u32) -> BufferSpec {
        BufferSpec {
            format,
            width: 2,
            height: 2,
            stride,
        }
    }

    #[test]
    fn frames_come_out_as_bgra_rows_top_down_whatever_the_layout() {
        // Two rows of two pixels, 4 bytes of padding after each row; XRGB8888 in memory is
        // B, G, R, X.
        let rows = [
            1, 2, 3, 0, 5, 6, 7, 0, 99, 99, 99, 99, //
            9, 10, 11, 0, 13, 14, 15, 0, 99, 99, 99, 99,
        ];
        let padded = spec(wl_shm::Format::Xrgb8888, 12);
        let frame = read_frame(&written(&rows), padded, false).unwrap();
        assert_eq!(
            &frame.pixels[..],
            &[1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 0]
        );
        let flipped = read_frame(&written(&rows), padded, true).unwrap();
        assert_eq!(
            &flipped.pixels[..],
            &[9, 10, 11, 0, 13, 14, 15, 0, 1, 2, 3, 0, 5, 6, 7, 0]
        );
        // XBGR8888 is R, G, B, X in memory: red and blue swap places.
        let bgr = spec(wl_shm::Format::Xbgr8888, 12);
        let swapped = read_frame(&written(&rows), bgr, false).unwrap();
        assert_eq!(&swapped.pixels[..4], &[3, 2, 1, 0]);
        // Tight rows in the frame's own layout are read as they are.
        let tight = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
        let frame = read_frame(&written(&tight), spec(wl_shm::Format::Argb8888, 8), false);
        assert_eq!(&frame.unwrap().pixels[..], &tight);
        // A format lookout does not read is refused for good, naming it.
        let error =
            read_frame(&written(&tight), spec(wl_shm::Format::Rgb565, 8), false).unwrap_err();
        assert!(
            error.permanent && error.message.contains("Rgb565"),
            "{error:?}"
        );
    }
}
