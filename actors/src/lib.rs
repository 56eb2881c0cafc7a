//! lookout's supervision tree.
//!
//! ```text
//! Root ─┬─ Clock
//!       ├─ Registry
//!       ├─ Recall
//!       ├─ Vision
//!       ├─ Wake
//!       ├─ Terminals
//!       ├─ Tasks ── TaskActor{id}…
//!       ├─ Waits ── WaitActor{id}… ── Watcher
//!       └─ Recorder (opt-in screen history for recall)
//! ```
//!
//! The Registry alone touches the database; the Clock alone reads time; the Root restarts
//! what dies; Vision asks models whether a wait's condition holds. Callers enter through
//! [`Tree`]. This crate owns no sockets, reads no config files or environment variables, and
//! knows nothing of JSON-RPC.

pub mod budget;
pub mod clock;
pub mod condition;
pub mod directory;
pub mod error;
pub mod faults;
pub mod http;
pub mod keyed;
pub mod lanes;
pub mod linkage;
pub mod locks;
pub mod openclaw;
pub mod policy;
pub mod process;
pub mod recall;
pub mod registry;
pub mod root;
pub mod sight;
pub mod tasks;
pub mod terminals;
pub mod tree;
pub mod vision;
pub mod waits;
pub mod wake;
pub mod words;

/// Test support for this crate's tests and, with the feature `testkit`, other crates' tests
/// and benchmarks: a private Xvfb with painted windows, synthetic screens for the pixel
/// gate, a loopback model server speaking the OpenAI and Anthropic wire formats, a
/// headless sway with terminal windows, a headless Weston (no screencopy), and a desktop
/// session with a ScreenCast portal.
#[cfg(any(test, feature = "testkit"))]
pub mod testkit {
    pub mod http;
    pub mod model_server;
    pub mod portal;
    pub mod sway;
    pub mod weston;

    pub use crate::sight::capture::x11::test_display;
    pub use crate::sight::gate::pixel::synthetic;
}

pub use clock::{Clock, ManualClock, SystemClock};
pub use directory::{Directory, Health};
pub use error::{CallError, ErrorKind};
pub use faults::{ActorKind, Arming, FaultSpec, Faults};
pub use policy::RestartPolicy;
pub use tree::{Tree, TreeArgs, TreeStatus};

#[cfg(test)]
mod tests;
