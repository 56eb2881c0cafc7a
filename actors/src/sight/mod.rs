//! Sight: how lookout sees a target, shared by waits, the Recorder and Vision.
//!
//! [`target`] is the grammar of what can be watched (`file:`, `tmux:`, `term:`, `exec:`,
//! `window:`, `screen`); [`capture`] takes one picture of a target (a file tail, a tmux
//! pane, an X11 or Wayland window or screen, the ScreenCast portal); [`content`] is what a
//! capture holds (text, a frame, an exit); [`gate`] decides which captures are news. Nothing
//! here knows about waits or conditions: the wait picks a source (`waits::sources`) and
//! judges what the gate lets through.

pub mod capture;
pub mod content;
pub mod gate;
pub mod target;
