//! Smart waits: watching a target until a natural-language condition holds.
//!
//! The seams every target kind plugs into: a [`source::Source`] captures the target, a
//! [`gate::Gate`] decides which captures are news, a [`judge::Judge`] decides whether the
//! condition holds. [`sources`] builds the production sources, [`scripted`] the stand-ins
//! for tests and the harness; [`text_judge`] is the judging pipeline of text targets and
//! [`texts`] the words of waits.

pub mod actor;
pub mod content;
pub mod gate;
pub mod judge;
pub mod pixel_gate;
pub mod scripted;
pub mod source;
pub mod sources;
pub mod supervisor;
pub mod target;
pub mod text_judge;
pub mod texts;
pub mod watcher;

pub use actor::{NewWait, WaitMsg, WaitSettings, WaitUpdate, WaitView};
pub use supervisor::{WAIT_CALL_TIMEOUT, WaitsMsg, WaitsStats};
pub mod tiles;
pub mod x11;
