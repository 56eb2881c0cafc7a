//! Smart waits: watching a target until a natural-language condition holds.
//!
//! The seams every target kind plugs into: a [`source::Source`] captures the target, a
//! [`gate::Gate`] decides which captures are news, a [`judge::Judge`] decides whether the
//! condition holds.

pub mod content;
pub mod gate;
pub mod judge;
pub mod pixel_gate;
pub mod source;
pub mod target;
pub mod tiles;
pub mod x11;
