//! What a watcher saw: rendered text, a frame of pixels, or the target's absence.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::sight::gate::compact::CompactFrame;

/// The description of `Content::Absent` for a watched window that existed and is gone (the
/// X11 source says so; one never found and one minimised are described otherwise). A wait
/// whose window stays closed for `[wait] window_gone_grace_s` ends in `error`.
pub const WINDOW_CLOSED: &str = "window closed";

/// How the description of `Content::Absent` ends for a watched file that existed and was
/// deleted (a log that is not rotated back within the grace ends its wait as changed).
pub const FILE_DELETED: &str = "was deleted";

/// A captured image: 8-bit BGRA (X11's native order on little-endian), row-major,
/// `width * 4` bytes per row. Clones share the pixels, the frame's identity and its compact
/// form; two frames are equal when their pixels are.
#[derive(Clone)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub pixels: Arc<[u8]>,
    shared: Arc<FrameShared>,
}

/// What the clones of one frame share besides its pixels.
struct FrameShared {
    /// Unique among the daemon's frames: tells which capture tile hashes were computed from
    /// without holding on to that capture's pixels.
    id: u64,
    /// The frame kept compactly once a judge saw it ([`Frame::compact`]): computed once for
    /// every wait that saw it.
    compact: OnceLock<Arc<CompactFrame>>,
}

static NEXT_FRAME_ID: AtomicU64 = AtomicU64::new(1);

impl Frame {
    pub fn new(width: u32, height: u32, pixels: impl Into<Arc<[u8]>>) -> Frame {
        let pixels = pixels.into();
        assert_eq!(
            pixels.len(),
            width as usize * height as usize * 4,
            "a BGRA frame has 4 bytes per pixel"
        );
        Frame {
            width,
            height,
            pixels,
            shared: Arc::new(FrameShared {
                id: NEXT_FRAME_ID.fetch_add(1, Ordering::Relaxed),
                compact: OnceLock::new(),
            }),
        }
    }

    /// This frame's identity: the same for its clones, different for any other frame, even
    /// one with the same pixels.
    pub fn id(&self) -> u64 {
        self.shared.id
    }

    /// The frame compressed tile by tile, for what must remember it between captures (the
    /// pixel gate's baseline): about a tenth of the pixels on a typical window. Compressed
    /// once, however many waits keep it.
    pub fn compact(&self) -> Arc<CompactFrame> {
        self.shared
            .compact
            .get_or_init(|| Arc::new(CompactFrame::of(self)))
            .clone()
    }

    /// The BGRA bytes of row `y`.
    pub fn row(&self, y: u32) -> &[u8] {
        let stride = self.width as usize * 4;
        &self.pixels[y as usize * stride..(y as usize + 1) * stride]
    }
}

impl PartialEq for Frame {
    fn eq(&self, other: &Frame) -> bool {
        (self.width, self.height) == (other.width, other.height) && self.pixels == other.pixels
    }
}

impl Eq for Frame {}

impl fmt::Debug for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Frame({}x{})", self.width, self.height)
    }
}

/// How a watched process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessExit {
    /// The exit status; `None` when a signal ended it.
    pub code: Option<i32>,
}

impl fmt::Display for ProcessExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            Some(code) => write!(f, "the process exited with status {code}"),
            None => f.write_str("the process was ended by a signal"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// A terminal screen (and recent scrollback), a tmux pane, the tail of a file; `exit` once
    /// the watched process has ended (terminal sessions only).
    Text {
        /// Shared, so that a source that saw no change hands out its last capture for free.
        text: Arc<str>,
        exit: Option<ProcessExit>,
        /// Where the text comes from, to tell what is new in it (`waits::fresh`).
        origin: TextOrigin,
    },
    Frame(Frame),
    /// The target is not there (a closed window, a file not created yet): an observation the
    /// judge sees, not a capture failure.
    Absent {
        description: String,
    },
}

/// Where a text capture comes from, which says how to find what is new in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TextOrigin {
    /// A screen and its recent scrollback (a tmux pane): new lines are found by finding the
    /// baseline's lines again.
    #[default]
    Screen,
    /// A terminal session lookout runs: a screen, and the lines typed into it with
    /// `term_send`, whose echo is input, not output.
    Terminal { typed: Arc<[String]> },
    /// The tail of a file: which file, and the byte offsets of the text's ends in it.
    File {
        device: u64,
        inode: u64,
        start: u64,
        end: u64,
    },
}

impl Content {
    /// Text from a screen-like target (tests, tmux).
    pub fn text(text: impl Into<Arc<str>>) -> Content {
        Content::Text {
            text: text.into(),
            exit: None,
            origin: TextOrigin::Screen,
        }
    }

    /// The watched window closed: it was there once and is gone now.
    pub fn is_closed_window(&self) -> bool {
        matches!(self, Content::Absent { description } if description == WINDOW_CLOSED)
    }

    /// The target was there and is gone: a closed window, a deleted file.
    pub fn is_gone(&self) -> bool {
        self.is_closed_window()
            || matches!(self, Content::Absent { description } if description.ends_with(FILE_DELETED))
    }
}
