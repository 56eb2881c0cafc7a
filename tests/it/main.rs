//! lookout's integration tests: one binary, one module per area. Every test boots its own
//! daemon (in-process or the real binary) on its own temp folder and socket.

mod cli;
mod function_tools;
#[cfg(feature = "harness")]
mod harness;
mod hooks;
mod mcp;
mod process;
mod protocol;
mod support;
mod systemd;
mod tasks;
mod terminal;
mod vision;
mod waits;
mod wakes;
mod windows;
