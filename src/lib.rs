//! lookout: a daemon that gives LLM agents a memory for long tasks and a lookout that
//! waits for them.
//!
//! This crate is the process edge: the CLI, the config, the JSON-RPC protocol over the Unix
//! socket, the tool catalogue and its exports (MCP, function tools), systemd and the agent
//! runtime hooks. It owns sockets, reads environment variables and config
//! files; the actor tree (`actors`) and the storage (`storage`) do neither.

pub mod cli;
pub mod client;
pub mod config;
pub mod daemon;
#[cfg(feature = "harness")]
pub mod harness;
pub mod jsonrpc;
pub mod mcp;
pub mod server;
pub mod systemd;
pub mod tools;
