//! What a watcher saw: rendered text, a frame of pixels, or the target's absence.

use std::fmt;
use std::sync::Arc;

/// The description of `Content::Absent` for a watched window that existed and is gone (the
/// X11 source says so; one never found and one minimised are described otherwise). A wait
/// whose window stays closed for `[wait] window_gone_grace_s` ends in `error`.
pub const WINDOW_CLOSED: &str = "window closed";

/// A captured image: 8-bit BGRA (X11's native order on little-endian), row-major,
/// `width * 4` bytes per row.
#[derive(Clone, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub pixels: Arc<[u8]>,
}

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
        }
    }

    /// The BGRA bytes of row `y`.
    pub fn row(&self, y: u32) -> &[u8] {
        let stride = self.width as usize * 4;
        &self.pixels[y as usize * stride..(y as usize + 1) * stride]
    }
}

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
}
