//! The portal's PipeWire stream as frames: GStreamer's `pipewiresrc` reads the stream's node
//! through the remote the portal opened (handed over as the program's stdin), converts each
//! frame to BGRx at a fixed size and writes it raw to a pipe; a reader thread keeps the
//! latest one. A screen cast is damage-driven (a still screen sends nothing), so the latest
//! frame stays what is on screen; the stream is asked for at most [`MAX_FRAME_RATE`] frames
//! a second so a busy screen does not cost a core.
//!
//! GStreamer rather than a PipeWire binding: it is a separate program (no C library in the
//! daemon, nothing loaded for users who never watch a GNOME or KDE screen) and GNOME and
//! KDE desktops ship it with PipeWire's plugin.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

use crate::process::stream::StreamingChild;
use crate::sight::capture::CaptureError;
use crate::sight::capture::portal::session::PortalSession;
use crate::sight::capture::portal::stopped_sharing;
use crate::sight::content::Frame;

/// The program that decodes the stream.
pub const GSTREAMER: &str = "gst-launch-1.0";
/// The program that says whether GStreamer has PipeWire's plugin (checked as a wait starts).
pub const GSTREAMER_INSPECT: &str = "gst-inspect-1.0";
/// Frames a second asked of the desktop; a still screen sends none.
pub const MAX_FRAME_RATE: u32 = 5;
/// A stream larger than this (either side) is scaled down to fit, keeping its shape.
const LARGEST: (u32, u32) = (3840, 2160);
/// The size read when the portal does not say the stream's.
const UNSIZED: (u32, u32) = (1920, 1080);

/// A running stream and the latest frame read from it.
pub struct FrameStream {
    child: StreamingChild,
    latest: Arc<Mutex<Latest>>,
    size: (u32, u32),
}

#[derive(Default)]
struct Latest {
    frame: Option<Frame>,
    /// Why reading stopped (the program ended, the pipe broke).
    ended: Option<String>,
}

impl FrameStream {
    /// Starts decoding `session`'s stream through `remote`; blocking (it starts a program
    /// and a thread).
    pub fn start(session: &PortalSession, remote: OwnedFd) -> Result<FrameStream, CaptureError> {
        let size = frame_size(session.size);
        let mut child = StreamingChild::start(GSTREAMER, &pipeline(session.node, size), remote)
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::NotFound => CaptureError::permanent(format!(
                    "{GSTREAMER} is not installed, and lookout reads the portal's screen stream \
                     with it: install GStreamer's tools and PipeWire plugin (Debian, Ubuntu: \
                     apt install gstreamer1.0-tools gstreamer1.0-pipewire; Fedora: gstreamer1-plugins-base-tools pipewire-gstreamer)"
                )),
                _ => CaptureError::retryable(format!("cannot start {GSTREAMER}: {error}")),
            })?;
        let mut stdout = child
            .take_stdout()
            .expect("the stream's stdout is piped and not taken yet");
        let latest = Arc::new(Mutex::new(Latest::default()));
        let writer = latest.clone();
        let frame_bytes = size.0 as usize * size.1 as usize * 4;
        std::thread::Builder::new()
            .name("lookout-portal-frames".into())
            .spawn(move || {
                let ended = loop {
                    let mut pixels = vec![0u8; frame_bytes];
                    if let Err(error) = stdout.read_exact(&mut pixels) {
                        break error.to_string();
                    }
                    let frame = Frame::new(size.0, size.1, pixels);
                    crate::locks::lock(&writer).frame = Some(frame);
                };
                crate::locks::lock(&writer).ended = Some(ended);
            })
            .map_err(|error| CaptureError::retryable(format!("cannot start a thread: {error}")))?;
        Ok(FrameStream {
            child,
            latest,
            size,
        })
    }

    /// The latest frame; `None` before the first. Fails for good once the stream has ended
    /// (the user stopped sharing, PipeWire went away), saying why.
    pub fn latest(&mut self) -> Result<Option<Frame>, CaptureError> {
        if self.latest.is_poisoned() {
            return Err(CaptureError::retryable("the stream's reader panicked"));
        }
        let (frame, ended) = {
            let latest = crate::locks::lock(&self.latest);
            (latest.frame.clone(), latest.ended.clone())
        };
        match ended {
            None => Ok(frame),
            Some(reading) => {
                let program = self
                    .child
                    .ended()
                    .unwrap_or_else(|| format!("reading it failed: {reading}"));
                Err(stopped_sharing(&format!(
                    "the stream ended, {GSTREAMER}: {program}"
                )))
            }
        }
    }

    /// The size frames are read at.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }
}

/// `gst-launch-1.0`'s arguments: the node through the remote on fd 0, system memory (no
/// DMA-BUF), at most [`MAX_FRAME_RATE`], converted and scaled to BGRx at `size`, raw to stdout.
fn pipeline(node: u32, (width, height): (u32, u32)) -> Vec<String> {
    [
        "-q".to_owned(),
        "pipewiresrc".to_owned(),
        "fd=0".to_owned(),
        format!("path={node}"),
        "!".to_owned(),
        format!("video/x-raw,max-framerate={MAX_FRAME_RATE}/1"),
        "!".to_owned(),
        "videoconvert".to_owned(),
        "!".to_owned(),
        "videoscale".to_owned(),
        "!".to_owned(),
        format!("video/x-raw,format=BGRx,width={width},height={height}"),
        "!".to_owned(),
        "fdsink".to_owned(),
        "fd=1".to_owned(),
        "sync=false".to_owned(),
    ]
    .into()
}

/// The size frames are read at: the stream's, scaled down to fit [`LARGEST`].
fn frame_size(reported: Option<(u32, u32)>) -> (u32, u32) {
    let (width, height) = reported.unwrap_or(UNSIZED);
    let scale = f64::min(
        1.0,
        f64::min(
            LARGEST.0 as f64 / width as f64,
            LARGEST.1 as f64 / height as f64,
        ),
    );
    let fit = |side: u32| ((side as f64 * scale).round() as u32).max(1);
    (fit(width), fit(height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_at_the_streams_size_scaled_down_to_fit_4k() {
        assert_eq!(frame_size(Some((1280, 720))), (1280, 720));
        assert_eq!(frame_size(Some((5120, 2880))), (3840, 2160));
        assert_eq!(frame_size(Some((7680, 1080))), (3840, 540));
        assert_eq!(frame_size(None), UNSIZED);
    }

    #[test]
    fn the_pipeline_reads_the_node_through_stdin_and_writes_raw_frames_to_stdout() {
        let args = pipeline(42, (640, 480)).join(" ");
        assert!(args.contains("pipewiresrc fd=0 path=42"), "{args}");
        assert!(args.contains("format=BGRx,width=640,height=480"), "{args}");
        assert!(args.ends_with("fdsink fd=1 sync=false"), "{args}");
    }
}
