//! The sd_notify protocol: newline-separated `KEY=VALUE` assignments in one datagram to the
//! Unix socket named by `NOTIFY_SOCKET` (a path, or an abstract address written `@name`).

use std::ffi::OsStr;
use std::io;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::sync::Arc;

/// A datagram socket aimed at the service manager's notify socket.
#[derive(Clone)]
pub struct Notifier {
    socket: Arc<UnixDatagram>,
    address: Arc<SocketAddr>,
}

impl Notifier {
    /// Aims at `address`: `@name` for an abstract socket, else a filesystem path.
    pub fn connect(address: &OsStr) -> io::Result<Notifier> {
        let bytes = address.as_bytes();
        let address = match bytes.strip_prefix(b"@") {
            Some(name) => SocketAddr::from_abstract_name(name)?,
            None => SocketAddr::from_pathname(address)?,
        };
        let socket = UnixDatagram::unbound()?;
        // A notification must never stall the daemon: if the manager's queue is full, the
        // send fails and is logged instead of blocking a runtime thread.
        socket.set_nonblocking(true)?;
        Ok(Notifier {
            socket: Arc::new(socket),
            address: Arc::new(address),
        })
    }

    /// Sends one datagram of assignments, e.g. `"READY=1\nSTATUS=serving"`.
    pub fn notify(&self, state: &str) -> io::Result<()> {
        let sent = self.socket.send_to_addr(state.as_bytes(), &self.address)?;
        if sent != state.len() {
            return Err(io::Error::other(format!(
                "sent {sent} of {} bytes of a notification",
                state.len()
            )));
        }
        Ok(())
    }
}
