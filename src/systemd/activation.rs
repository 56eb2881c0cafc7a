//! Socket activation: a listening socket handed over by systemd (`lookout.socket`) as fd 3
//! with `LISTEN_FDS` and `LISTEN_PID` naming this process.
//!
//! Turning a raw descriptor into a listener takes `unsafe`, which this workspace forbids;
//! `listenfd` does it (after checking the descriptor is a listening Unix stream socket).

use std::os::unix::net::UnixListener;

use anyhow::Context;

/// Takes the Unix listener systemd passed, if any (the first; a unit that passes more is
/// misconfigured, and the rest are left alone).
///
/// `listenfd` removes `LISTEN_FDS` and `LISTEN_PID` from the environment, which is only
/// sound while the process has a single thread: call this before the async runtime starts.
pub fn take_inherited_listener() -> anyhow::Result<Option<UnixListener>> {
    let mut passed = listenfd::ListenFd::from_env();
    if passed.len() == 0 {
        return Ok(None);
    }
    passed.take_unix_listener(0).context(
        "the socket systemd passed (fd 3) is not a listening Unix stream socket; check \
         ListenStream= in lookout.socket",
    )
}
