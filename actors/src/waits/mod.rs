//! Smart waits: watching a target until a natural-language condition holds.
//!
//! A wait flows capture → gate → judge. Capture and gates live in `crate::sight`; the
//! condition is read once by `crate::condition`. Here: [`sources`] (the factory that picks a
//! source and gate per target), [`judge`] (a `Judge` decides whether the condition holds:
//! the text pipeline, the vision handle), [`types`] and [`transition`], the pure state of a
//! wait and how it changes; [`actor`] (the WaitActor, effects only: its watch, its deadline,
//! its storage), [`watcher`] (the capture loop), [`feed`] (one capture of a target shared by
//! every wait on it), [`supervisor`]; [`texts`] (the words of waits) and [`scripted`]
//! (stand-ins for tests and the harness).

pub mod actor;
pub mod feed;
pub mod fresh;
pub mod judge;
pub mod scripted;
pub mod sources;
pub mod supervisor;
pub mod texts;
pub mod transition;
pub mod types;
pub mod watcher;

pub use actor::WaitMsg;
pub use supervisor::{WAIT_CALL_TIMEOUT, WaitsMsg, WaitsStats};
pub use types::{NewWait, WaitSettings, WaitUpdate, WaitView};
