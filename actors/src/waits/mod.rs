//! Smart waits: watching a target until a natural-language condition holds.
//!
//! A wait flows capture → gate → judge, each a folder with its seam in `mod.rs`:
//! [`capture`] (a `Source` captures a target: file tail, tmux pane, X11; `sources` picks
//! one per target), [`gate`] (a `Gate` decides which captures are news: text and pixel
//! gates), [`judge`] (a `Judge` decides whether the condition holds: the text pipeline, the
//! vision handle). Around them: [`types`] and [`transition`], the pure state of a wait and
//! how it changes; [`actor`] (the WaitActor, effects only), [`watcher`] (the capture loop),
//! [`feed`] (one capture of a target shared by every wait on it),
//! [`supervisor`]; [`deadline`] (a wait's time: steady-clock deadlines, quiet windows that
//! fit); [`target`] (the grammar), [`content`] (what a capture holds), [`texts`]
//! (the words of waits) and [`scripted`] (stand-ins for tests and the harness).

pub mod actor;
pub mod capture;
pub mod content;
pub mod deadline;
pub mod feed;
pub mod fresh;
pub mod gate;
pub mod judge;
pub mod persist;
pub mod scripted;
pub mod supervisor;
pub mod target;
pub mod texts;
pub mod transition;
pub mod types;
pub mod watcher;
pub mod watching;

pub use actor::WaitMsg;
pub use supervisor::{WAIT_CALL_TIMEOUT, WaitsMsg, WaitsStats};
pub use types::{NewWait, WaitSettings, WaitUpdate, WaitView};
