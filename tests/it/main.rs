//! lookout's integration tests: one binary, one module per area. Every test boots its own
//! daemon (in-process or the real binary) on its own temp folder and socket.

// Tests start the real binary and Xvfb, read the environment they set up, and bound their
// polls with the wall clock; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

mod budgets;
mod channel;
mod claude_code;
mod cli;
mod console;
mod evidence;
mod full_disk;
mod function_tools;
mod gateway;
mod gateway_live;
mod hardening;
#[cfg(feature = "harness")]
mod harness;
mod hints;
mod hooks;
mod limits;
mod mcp;
mod monitor;
mod openclaw_sessions;
mod own_commands;
mod portal;
mod process;
mod protocol;
mod recall;
mod scenarios;
mod screen;
mod sdks;
mod setup;
mod support;
mod systemd;
mod tasks;
mod terminal;
mod tidy;
mod tmux_pipes;
mod vision;
mod waits;
mod wakes;
mod wayland;
mod windows;
