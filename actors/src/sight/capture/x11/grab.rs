//! Reading a drawable's pixels: MIT-SHM when the server offers it, GetImage otherwise.
//!
//! The shared-memory path asks the server to create the segment (`ShmCreateSegment`, MIT-SHM
//! 1.2), which hands back a file descriptor; `ShmGetImage` fills the segment and the pixels
//! are read back with `pread` on that descriptor straight into the frame's buffer. Mapping
//! the segment would need `unsafe` (mmap), which this workspace forbids, and the frame must
//! own its pixels anyway, so a read costs the same single copy a mapping would. Because the
//! bytes are copied out before the next request, one segment suffices: a second, alternating
//! one only helps a client that keeps reading a mapped segment while the server writes the
//! next frame.
//!
//! SHM is unavailable on a remote display (no descriptor passing over TCP) or an old server;
//! the first failure switches this reader to GetImage for good and says why in the log.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::{ConnectionError, ReplyError, ReplyOrIdError};
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ConnectionExt as _, Drawable, ImageFormat};
use x11rb::rust_connection::RustConnection;

use crate::sight::capture::x11::pixels::{self, PixelLayout};
use crate::sight::content::Frame;

/// How frames are read from the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureMethod {
    /// MIT-SHM: the server copies the image into shared memory (a local display).
    SharedMemory,
    /// Core GetImage: the image travels over the X connection (remote displays, or MIT-SHM
    /// turned off).
    GetImage,
}

impl std::fmt::Display for CaptureMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CaptureMethod::SharedMemory => "MIT-SHM",
            CaptureMethod::GetImage => "GetImage",
        })
    }
}

/// A segment the server created and shared with us.
struct Segment {
    id: shm::Seg,
    file: File,
    size: usize,
}

pub(super) struct PixelReader {
    segment: Option<Segment>,
    shared_memory: bool,
}

/// A drawable region to read, and how its pixels are laid out.
#[derive(Clone, Copy, Debug)]
pub(super) struct Region {
    pub drawable: Drawable,
    pub x: i16,
    pub y: i16,
    pub width: u16,
    pub height: u16,
    pub layout: PixelLayout,
}

/// MIT-SHM 1.2 is the first version whose server creates segments and passes descriptors.
const SHM_WITH_FD_PASSING: (u16, u16) = (1, 2);

impl PixelReader {
    /// A reader using MIT-SHM when `want_shared_memory` and the server supports it.
    pub(super) fn new(
        connection: &RustConnection,
        want_shared_memory: bool,
    ) -> Result<PixelReader, ConnectionError> {
        let shared_memory = want_shared_memory && supports_segments(connection)?;
        Ok(PixelReader {
            segment: None,
            shared_memory,
        })
    }

    pub(super) fn method(&self) -> CaptureMethod {
        if self.shared_memory {
            CaptureMethod::SharedMemory
        } else {
            CaptureMethod::GetImage
        }
    }

    /// Reads `region` as a BGRA frame. A request error (`ReplyError::X11Error`) means the
    /// drawable went away or cannot be read; the caller decides what that means.
    pub(super) fn read(
        &mut self,
        connection: &RustConnection,
        region: Region,
    ) -> Result<Frame, ReadError> {
        if self.shared_memory {
            match self.read_shared(connection, region) {
                Ok(frame) => return Ok(frame),
                Err(SharedReadError::Unusable(why)) => {
                    tracing::warn!(
                        "MIT-SHM capture is not usable on this display ({why}); reading frames \
                         with GetImage, which is slower"
                    );
                    self.shared_memory = false;
                    self.segment = None;
                }
                Err(SharedReadError::Read(error)) => return Err(error),
            }
        }
        let reply = connection
            .get_image(
                ImageFormat::Z_PIXMAP,
                region.drawable,
                region.x,
                region.y,
                region.width,
                region.height,
                !0,
            )?
            .reply()?;
        Ok(region
            .layout
            .to_frame(&reply.data, region.width.into(), region.height.into())?)
    }

    fn read_shared(
        &mut self,
        connection: &RustConnection,
        region: Region,
    ) -> Result<Frame, SharedReadError> {
        let (width, height) = (u32::from(region.width), u32::from(region.height));
        let needed = region.layout.image_bytes(width, height);
        let segment = self.segment_of_at_least(connection, needed)?;
        let reply = connection
            .shm_get_image(
                region.drawable,
                region.x,
                region.y,
                region.width,
                region.height,
                !0,
                ImageFormat::Z_PIXMAP.into(),
                segment.id,
                0,
            )
            .map_err(ReadError::from)?
            .reply()
            .map_err(ReadError::from)?;
        let size = (reply.size as usize).min(segment.size);
        if region.layout.is_packed_bgrx(width) && size >= needed {
            // The common case: read straight into the frame's buffer and fix the alpha.
            let mut frame_pixels = pixels::zeroed_pixels(needed);
            let buffer = Arc::get_mut(&mut frame_pixels).expect("a fresh Arc is unique");
            segment
                .file
                .read_exact_at(buffer, 0)
                .map_err(|e| SharedReadError::Unusable(format!("reading the segment: {e}")))?;
            pixels::make_opaque(buffer);
            return Ok(Frame::new(width, height, frame_pixels));
        }
        let mut raw = vec![0; size];
        segment
            .file
            .read_exact_at(&mut raw, 0)
            .map_err(|e| SharedReadError::Unusable(format!("reading the segment: {e}")))?;
        Ok(region
            .layout
            .to_frame(&raw, width, height)
            .map_err(ReadError::Unsupported)?)
    }

    fn segment_of_at_least(
        &mut self,
        connection: &RustConnection,
        size: usize,
    ) -> Result<&Segment, SharedReadError> {
        if self.segment.as_ref().is_some_and(|s| s.size >= size) {
            return Ok(self.segment.as_ref().expect("checked above"));
        }
        if let Some(old) = self.segment.take() {
            // Best effort: the server frees it with our connection at the latest.
            let _ = connection.shm_detach(old.id);
        }
        let size_u32 = u32::try_from(size).map_err(|_| {
            SharedReadError::Unusable(format!("a {size}-byte image is too large for a segment"))
        })?;
        let id = connection.generate_id().map_err(|error| match error {
            ReplyOrIdError::ConnectionError(error) => SharedReadError::Read(error.into()),
            other => SharedReadError::Unusable(other.to_string()),
        })?;
        let reply = connection
            .shm_create_segment(id, size_u32, false)
            .map_err(|error| SharedReadError::Read(error.into()))?
            .reply()
            .map_err(|error| match error {
                ReplyError::ConnectionError(error) => SharedReadError::Read(error.into()),
                ReplyError::X11Error(error) => {
                    SharedReadError::Unusable(format!("the server refused a segment: {error:?}"))
                }
            })?;
        let file = File::from(reply.shm_fd);
        Ok(self.segment.insert(Segment { id, file, size }))
    }
}

fn supports_segments(connection: &RustConnection) -> Result<bool, ConnectionError> {
    if connection
        .extension_information(shm::X11_EXTENSION_NAME)?
        .is_none()
    {
        return Ok(false);
    }
    let version = match connection.shm_query_version()?.reply() {
        Ok(version) => version,
        Err(ReplyError::ConnectionError(error)) => return Err(error),
        Err(ReplyError::X11Error(_)) => return Ok(false),
    };
    Ok((version.major_version, version.minor_version) >= SHM_WITH_FD_PASSING)
}

/// Why a read failed.
#[derive(Debug)]
pub(super) enum ReadError {
    /// The server refused a request (the drawable is gone, unviewable, …).
    Refused(x11rb::x11_utils::X11Error),
    /// The connection broke.
    Connection(ConnectionError),
    /// The image's format cannot be read.
    Unsupported(String),
}

enum SharedReadError {
    /// SHM cannot work here: fall back to GetImage.
    Unusable(String),
    Read(ReadError),
}

impl From<ReadError> for SharedReadError {
    fn from(error: ReadError) -> Self {
        SharedReadError::Read(error)
    }
}

impl From<ConnectionError> for ReadError {
    fn from(error: ConnectionError) -> Self {
        ReadError::Connection(error)
    }
}

impl From<ReplyError> for ReadError {
    fn from(error: ReplyError) -> Self {
        match error {
            ReplyError::ConnectionError(error) => ReadError::Connection(error),
            ReplyError::X11Error(error) => ReadError::Refused(error),
        }
    }
}

impl From<String> for ReadError {
    fn from(message: String) -> Self {
        ReadError::Unsupported(message)
    }
}
