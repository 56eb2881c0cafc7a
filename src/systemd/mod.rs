//! Running under systemd: readiness and stop notifications, the watchdog, socket
//! activation, and the user unit files that `lookout service install` writes.
//!
//! Everything here is optional: without `NOTIFY_SOCKET`, `WATCHDOG_USEC` or `LISTEN_FDS` the
//! daemon runs exactly as it does in a terminal. This module reads those variables; nothing
//! below `src/` ever does. The notify protocol is a few datagrams, spoken here over
//! `std::os::unix::net::UnixDatagram` rather than through a crate.

pub mod activation;
pub mod notify;
pub mod unit;
pub mod watchdog;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use actors::Tree;
use tokio::task::JoinHandle;

pub use notify::Notifier;

/// What the service manager asked of this process, read once from the environment.
pub struct ServiceManager {
    notifier: Option<Notifier>,
    watchdog_interval: Option<Duration>,
}

impl ServiceManager {
    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`. A variable that is set but
    /// unusable is logged and ignored: a daemon that cannot notify still serves.
    pub fn from_env() -> ServiceManager {
        let notifier = match crate::config::environment::var_os("NOTIFY_SOCKET") {
            None => None,
            Some(address) => match Notifier::connect(&address) {
                Ok(notifier) => Some(notifier),
                Err(error) => {
                    tracing::warn!(address = ?address, %error, "cannot use NOTIFY_SOCKET; systemd will not hear from lookout");
                    None
                }
            },
        };
        let watchdog_interval = watchdog::interval_from(
            crate::config::environment::var("WATCHDOG_USEC").as_deref(),
            crate::config::environment::var("WATCHDOG_PID").as_deref(),
            std::process::id(),
        );
        ServiceManager {
            notifier,
            watchdog_interval,
        }
    }

    /// Not under a service manager: every notification is a no-op.
    pub fn none() -> ServiceManager {
        ServiceManager {
            notifier: None,
            watchdog_interval: None,
        }
    }

    /// `READY=1` with a status line, once the socket listens.
    pub fn ready(&self, status: &str) {
        self.send(&format!("READY=1\nSTATUS={status}"));
    }

    /// `STOPPING=1` with a status line, when shutdown begins.
    pub fn stopping(&self, status: &str) {
        self.send(&format!("STOPPING=1\nSTATUS={status}"));
    }

    fn send(&self, state: &str) {
        if let Some(notifier) = &self.notifier
            && let Err(error) = notifier.notify(state)
        {
            tracing::warn!(%error, "cannot notify systemd");
        }
    }

    /// Pets the watchdog every half `WATCHDOG_USEC`, each time only after a round trip
    /// through the actor tree. `None` when no watchdog was asked for.
    pub fn spawn_watchdog(&self, tree: Arc<Tree>) -> Option<JoinHandle<()>> {
        let interval = self.watchdog_interval?;
        let notifier = self.notifier.clone()?;
        tracing::info!(
            interval_ms = interval.as_millis() as u64,
            "petting the systemd watchdog after each actor-tree ping"
        );
        Some(tokio::spawn(watchdog::pet_while_alive(
            notifier,
            interval,
            move || {
                let tree = tree.clone();
                async move { tree.ping().await }
            },
        )))
    }
}
