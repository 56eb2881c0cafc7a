//! Being told when a watched window's (or the screen's) pixels changed: the X DAMAGE
//! extension on the capture's own connection. A damage object on the watched window reports
//! once when its contents go from untouched to changed (`NonEmpty`); each read of the pixels
//! re-arms it (one request, no reply). The window's structure events (unmapped, destroyed, resized, renamed) count as
//! changes too, since a read is what notices them.
//!
//! Events are read by a task on the runtime's reactor (tokio's `AsyncFd` on a duplicate of
//! the connection's socket, no thread of its own), and by the capture itself after each read,
//! since a reply the capture waited for may have pulled an event off the socket first.
//!
//! An event the server sent before it took the last re-arm (its sequence number is lower)
//! tells of a change the read that followed already saw: it is dropped. So is the report a
//! new damage object makes of the whole window, which would otherwise set off a second
//! capture of every wait as it starts.
//!
//! While nothing was reported since a read, a wait's poll need not read again
//! ([`crate::sight::capture::Source::tells_every_change`]): its feed answers "unchanged"
//! without pixels (`waits::feed`), rather than keeping the last frame to hand out (1.2 MB per
//! 640x480 window, where a wait keeps only tile hashes).

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::unix::AsyncFd;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::ConnectionError;
use x11rb::protocol::Event;
use x11rb::protocol::damage::{self, ReportLevel};
use x11rb::protocol::xproto::{ChangeWindowAttributesAux, ConnectionExt as _, EventMask, Window};
use x11rb::rust_connection::RustConnection;

use crate::sight::capture::{ChangeCount, reactor_socket, tell_changed};

/// The DAMAGE version asked for (1.1: the one every server since 2006 speaks).
const DAMAGE_VERSION: (u32, u32) = (1, 1);

/// The damage object on the watched window and the task that listens for its reports.
pub struct DamageFollow {
    connection: Arc<RustConnection>,
    tell: ChangeCount,
    /// The damage object and the window it is on.
    followed: Option<(damage::Damage, Window)>,
    /// The screen's root window, whose property changes say nothing of its pixels.
    root: Window,
    /// The sequence number of the last request that armed the report: events sent before
    /// the server took it tell of changes the read after it saw.
    armed: Arc<AtomicU64>,
    listener: tokio::task::JoinHandle<()>,
}

impl DamageFollow {
    /// Starts listening on `connection`; `None` when the server has no DAMAGE or no runtime
    /// is at hand (the target is then polled only).
    pub fn start(
        connection: &Arc<RustConnection>,
        root: Window,
        tell: ChangeCount,
    ) -> Option<DamageFollow> {
        connection
            .extension_information(damage::X11_EXTENSION_NAME)
            .ok()??;
        damage::query_version(&**connection, DAMAGE_VERSION.0, DAMAGE_VERSION.1)
            .ok()?
            .reply()
            .ok()?;
        let readable = reactor_socket(connection.stream().as_fd())?;
        let armed = Arc::new(AtomicU64::new(0));
        let listener = tokio::spawn(listen(
            readable,
            connection.clone(),
            tell.clone(),
            armed.clone(),
        ));
        Some(DamageFollow {
            connection: connection.clone(),
            tell,
            followed: None,
            root,
            armed,
            listener,
        })
    }

    /// Before a read of `window`'s pixels: follows `window` from here on, and re-arms the
    /// report (a change after this read is reported again).
    pub fn before_read(&mut self, window: Window) {
        let _ = self.take_events();
        match self.followed {
            Some((object, on)) if on == window => {
                let subtract =
                    damage::subtract(&*self.connection, object, x11rb::NONE, x11rb::NONE);
                if let Ok(request) = subtract {
                    self.armed
                        .store(request.sequence_number(), Ordering::Release);
                }
            }
            _ => self.follow(window),
        }
    }

    /// Whether a damage object follows a window and the listener still reads its reports.
    pub fn is_live(&self) -> bool {
        self.followed.is_some() && !self.listener.is_finished()
    }

    /// After a capture: takes the events its replies pulled off the socket.
    pub fn after_read(&self) {
        let _ = self.take_events();
    }

    fn take_events(&self) -> Result<(), ConnectionError> {
        take_events(&self.connection, &self.tell, &self.armed)
    }

    /// Moves the damage object to `window`, and asks for its structure events (and a window's
    /// property events: its title).
    fn follow(&mut self, window: Window) {
        self.unfollow();
        let Ok(object) = self.connection.generate_id() else {
            return;
        };
        let created = damage::create(&*self.connection, object, window, ReportLevel::NON_EMPTY);
        let mask = if window == self.root {
            EventMask::STRUCTURE_NOTIFY
        } else {
            EventMask::STRUCTURE_NOTIFY | EventMask::PROPERTY_CHANGE
        };
        let events = ChangeWindowAttributesAux::new().event_mask(mask);
        let selected = self.connection.change_window_attributes(window, &events);
        // A new object holds the whole window as damaged: empty it, so the next change is
        // reported.
        let emptied = damage::subtract(&*self.connection, object, x11rb::NONE, x11rb::NONE);
        let (Ok(_), Ok(_), Ok(emptied)) = (created, selected, emptied) else {
            return;
        };
        self.armed
            .store(emptied.sequence_number(), Ordering::Release);
        self.followed = Some((object, window));
    }

    fn unfollow(&mut self) {
        if let Some((object, window)) = self.followed.take() {
            let _ = damage::destroy(&*self.connection, object);
            let none = ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT);
            let _ = self.connection.change_window_attributes(window, &none);
            let _ = self.connection.flush();
        }
    }
}

impl Drop for DamageFollow {
    fn drop(&mut self) {
        self.listener.abort();
        self.unfollow();
    }
}

/// Reads the connection's events as they come; ends when the connection fails (the target
/// is then polled, until a new connection listens again).
async fn listen(
    readable: AsyncFd<OwnedFd>,
    connection: Arc<RustConnection>,
    tell: ChangeCount,
    armed: Arc<AtomicU64>,
) {
    loop {
        let Ok(mut ready) = readable.readable().await else {
            break;
        };
        if take_events(&connection, &tell, &armed).is_err() {
            break;
        }
        ready.clear_ready();
    }
    tell_changed(&tell);
}

/// Takes every event waiting; any but an error (of a request nobody checked) sent since the
/// server took the last re-arm is a change, told once.
fn take_events(
    connection: &RustConnection,
    tell: &ChangeCount,
    armed: &AtomicU64,
) -> Result<(), ConnectionError> {
    let mut changed = false;
    while let Some((event, sequence)) = connection.poll_for_event_with_sequence()? {
        let since_armed = sequence >= armed.load(Ordering::Acquire);
        changed |= since_armed && !matches!(event, Event::Error(_));
    }
    if changed {
        tell_changed(tell);
    }
    Ok(())
}
