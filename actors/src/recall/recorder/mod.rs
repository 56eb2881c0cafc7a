//! The screen recorder: recall's opt-in screen history (`[recall] mode = "tasks"` or
//! `"always"`; off by default).
//!
//! - [`actor`] is the Recorder actor: every interval it asks the desktop ([`desk`]: X11, or
//!   a wlroots Wayland compositor) which window has the focus,
//!   captures that window through the pixel gate, has tesseract read only the region that
//!   changed (one job at a time), and keeps the result as segments in the recall index;
//! - [`segment`] a segment (one window while it had attention: its text, steps and
//!   keyframes) and the document it becomes. Pure;
//! - [`privacy`] the exclusions and the redaction of secrets, applied before anything is
//!   stored. Pure;
//! - [`keyframes`] the JPEG keyframes on disk, within their byte budget;
//! - [`procedure`] a closed segment's summary and action steps from a model (opt-in).

pub mod actor;
pub mod desk;
pub mod keyframes;
pub mod privacy;
pub mod procedure;
pub mod segment;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use storage::Timestamp;

use crate::process::Spawner;
use crate::vision::backend::Backend;
use desk::DeskSettings;

pub use actor::{RecorderActor, RecorderArgs, RecorderMsg};

/// When the recorder records (`[recall] mode` in the config).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordMode {
    /// Never (the default).
    #[default]
    Off,
    /// While some task is active, stamping what it records with that task and its step.
    Tasks,
    /// Always (stamping with the active task when there is one).
    Always,
}

impl RecordMode {
    pub fn as_str(self) -> &'static str {
        match self {
            RecordMode::Off => "off",
            RecordMode::Tasks => "tasks",
            RecordMode::Always => "always",
        }
    }
}

/// `[recall]`, as the recorder uses it.
#[derive(Clone, Debug)]
pub struct RecorderSettings {
    pub mode: RecordMode,
    /// The desktop whose focused window is recorded.
    pub desk: DeskSettings,
    /// How often the focused window is captured.
    pub interval: Duration,
    /// A segment with nothing new for this long, and not focused, is closed.
    pub idle_gap: Duration,
    /// The user's exclusions, on top of the defaults.
    pub exclude: Vec<String>,
    /// The OCR program (tesseract).
    pub ocr_program: String,
    /// Where keyframes are kept.
    pub frames_dir: PathBuf,
    /// The most bytes keyframes may take; the oldest go first.
    pub keyframe_budget_bytes: u64,
    /// The model that describes closed segments (`[recall] procedures = "model"`); without
    /// one, steps are what changed on screen.
    pub procedures: Option<Arc<dyn Backend>>,
    pub spawner: Arc<dyn Spawner>,
}

impl RecorderSettings {
    /// Off: no recording, nothing needed.
    pub fn off(spawner: Arc<dyn Spawner>, frames_dir: PathBuf) -> RecorderSettings {
        RecorderSettings {
            mode: RecordMode::Off,
            desk: DeskSettings::X11(None),
            interval: Duration::from_secs(2),
            idle_gap: Duration::from_secs(120),
            exclude: Vec::new(),
            ocr_program: "tesseract".into(),
            frames_dir,
            keyframe_budget_bytes: 2 << 30,
            procedures: None,
            spawner,
        }
    }
}

/// What the recorder is doing, for `lookout status` and `daemon.status`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecorderState {
    /// `mode = "off"`.
    #[default]
    Off,
    /// `mode = "tasks"` and no task is active.
    Idle,
    Capturing,
    /// `lookout recall pause`.
    PausedUser,
    /// The focused window is excluded or cannot be named.
    PausedPrivacy,
    /// The screen is locked.
    PausedLocked,
    /// Capturing fails (no display, a lost connection); it keeps trying.
    Stalled,
}

impl RecorderState {
    pub fn as_str(self) -> &'static str {
        match self {
            RecorderState::Off => "off",
            RecorderState::Idle => "idle",
            RecorderState::Capturing => "capturing",
            RecorderState::PausedUser => "paused_user",
            RecorderState::PausedPrivacy => "paused_privacy",
            RecorderState::PausedLocked => "paused_locked",
            RecorderState::Stalled => "stalled",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct RecorderStatus {
    pub mode: RecordMode,
    pub state: RecorderState,
    /// Why it is in that state, in words.
    pub reason: Option<String>,
    /// A pause with an end; `None` while paused means until `lookout recall resume`.
    pub paused_until: Option<Timestamp>,
    /// The application being recorded.
    pub app: Option<String>,
    pub captures: u64,
    pub segments: u64,
    pub open_segments: usize,
    pub ocr_runs: u64,
    pub ocr_failures: u64,
    /// Time spent in OCR (wall clock of the tesseract runs).
    pub ocr_ms: u64,
    pub redactions: u64,
    pub keyframes: u64,
    pub keyframe_bytes: u64,
    /// Closed segments a model described, those it failed to, and the tokens it reported.
    pub procedures: u64,
    pub procedure_failures: u64,
    pub procedure_tokens: u64,
    pub last_error: Option<String>,
}
