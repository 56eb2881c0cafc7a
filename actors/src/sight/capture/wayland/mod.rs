//! Wayland capture on wlroots compositors (sway, Hyprland, river, labwc, Wayfire): the
//! [`Source`] of `window:` and `screen` targets when the desktop is a Wayland session.
//!
//! [`WaylandCapture`] is the blocking core: one connection to the compositor
//! ([`client`]: wayland-client's pure-Rust backend, no libwayland), pixels copied with
//! `wlr-screencopy` into shared memory ([`screencopy`]), windows found by title through
//! `wlr-foreign-toplevel-management`, and a window's place from sway's IPC tree ([`sway`]),
//! since the toplevel protocol does not say where a window is. Once told to, it follows what
//! it read with `copy_with_damage` on a second connection ([`damage`]), so a change is told
//! at once and a still target's poll need not read it. A window is captured as the
//! region of its output it covers, so what lies over it is what is read (unlike X11's
//! Composite, Wayland gives clients no window's own pixels).
//!
//! What a capture sees, as on X11:
//! - `screen`: the first output, whole.
//! - `window:<text>`: the first window whose title contains the text (case-insensitively);
//!   one that is gone is `Content::Absent` with [`WINDOW_CLOSED`], one minimised or on a
//!   workspace not shown is `Content::Absent` with [`WINDOW_HIDDEN`]. The window found is
//!   followed while it exists, renamed or not; once it is gone the title is looked up again,
//!   so a window that reopens, or another with that title, is followed.
//! - Without sway's IPC (Hyprland, river, labwc, Wayfire), a window is read only while it
//!   covers its output — focused, fullscreen or maximised — as that output whole; otherwise it
//!   is `Content::Absent` with [`WINDOW_UNPLACED`].
//! - `window:0x…` is an X11 window id: refused, a Wayland window is named by its title.
//!
//! [`WaylandSource`] is the shared [`BlockingSource`] over it: each capture on a blocking
//! thread, a new connection after the compositor went away. Compositors without screencopy
//! (GNOME, KDE) are read through the ScreenCast portal instead ([`access`]). Owns no
//! configuration: the sockets come from the caller (`[wayland]`, else `WAYLAND_DISPLAY` and
//! `SWAYSOCK`, resolved in `src/`).

pub mod access;
mod client;
mod damage;
mod screencopy;
mod sway;

use std::fmt;
use std::path::{Path, PathBuf};

use tokio::sync::watch;

use crate::sight::capture::blocking::{BlockingCapture, BlockingSource};
use crate::sight::capture::x11::{Focus, WINDOW_HIDDEN, Watched, WindowStatus};
use crate::sight::capture::{CaptureError, ChangeCount, subscribe};
use crate::sight::content::{Content, WINDOW_CLOSED};
use crate::sight::target::{Target, WindowSelector};
pub use access::{ScreenAccess, WaylandPixels};
use client::Client;
pub use client::offers_screencopy;
use damage::{Aim, DamageFollow};
use screencopy::{Pool, Region};
use sway::SwayWindow;
use wayland_client::Proxy;
use wayland_protocols_wlr::foreign_toplevel::v1::client::zwlr_foreign_toplevel_handle_v1::ZwlrForeignToplevelHandleV1;

/// What a window's capture says on a compositor that lists windows but does not say where
/// they are, while the window does not cover its output.
pub const WINDOW_UNPLACED: &str = "the window is open, but this compositor does not say where \
     it is: lookout reads it while it is focused and fullscreen or maximised (or watch screen)";

/// Where the compositor listens, and sway's IPC when the compositor is sway.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaylandDisplay {
    /// The compositor's socket (`$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY`).
    pub socket: PathBuf,
    /// sway's IPC socket (`SWAYSOCK`): where windows are. `None` on other compositors, where
    /// only `screen` can be watched.
    pub sway: Option<PathBuf>,
    /// How pixels are read: screencopy, the ScreenCast portal, or whichever the compositor
    /// allows.
    pub access: ScreenAccess,
}

impl WaylandDisplay {
    pub fn name(&self) -> String {
        self.socket
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.socket.display().to_string())
    }
}

/// The titles of the windows sway shows, from its IPC socket; blocking.
pub fn sway_window_titles(ipc: &Path) -> Result<Vec<String>, CaptureError> {
    Ok(sway::windows(ipc)?
        .into_iter()
        .map(|window| window.title)
        .collect())
}

/// A blocking Wayland capture of one target. See the module documentation.
pub struct WaylandCapture {
    display: WaylandDisplay,
    watched: Watched,
    client: Client,
    pool: Option<Pool>,
    /// The toplevel being watched, followed through renames until it closes.
    followed: Option<ZwlrForeignToplevelHandleV1>,
    /// What the last capture saw, for `describe`.
    seen: String,
    /// Moved on at each change the compositor draws, once asked ([`WaylandCapture::tell_changes`]).
    tell: Option<ChangeCount>,
    /// The follow of what the last capture read, while it reads pixels and changes are told.
    damage: Option<DamageFollow>,
}

impl fmt::Debug for WaylandCapture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaylandCapture")
            .field("display", &self.display)
            .field("watched", &self.watched)
            .finish_non_exhaustive()
    }
}

impl WaylandCapture {
    /// Connects to the compositor for `watched`; blocking. Refuses what cannot be watched on
    /// this compositor (an X11 window id; a window on a compositor that does not list its
    /// windows).
    pub fn connect(
        display: &WaylandDisplay,
        watched: Watched,
    ) -> Result<WaylandCapture, CaptureError> {
        if let Watched::Window(WindowSelector::Id(id)) = &watched {
            return Err(CaptureError::permanent(format!(
                "window:0x{id:x} is an X11 window id, and this desktop is a Wayland session: \
                 name the window by its title, e.g. window:Firefox"
            )));
        }
        let client = Client::connect(&display.socket)?;
        if matches!(watched, Watched::Window(_))
            && display.sway.is_none()
            && client.toplevels.is_none()
        {
            return Err(CaptureError::permanent(format!(
                "this Wayland compositor ({}) neither lists its windows \
                 (wlr-foreign-toplevel-management) nor says where they are, so lookout can \
                 watch the whole screen but not one window: watch screen instead, or run sway \
                 (its IPC gives window places; set SWAYSOCK or [wayland] sway_socket)",
                display.socket.display()
            )));
        }
        if client.state.outputs.is_empty() {
            return Err(CaptureError::retryable(format!(
                "the Wayland compositor at {} has no output to capture",
                display.socket.display()
            )));
        }
        let seen = describe(display, &watched, None);
        Ok(WaylandCapture {
            display: display.clone(),
            watched,
            client,
            pool: None,
            followed: None,
            seen,
            tell: None,
            damage: None,
        })
    }

    /// Moves `tell` on whenever the compositor draws something new where the capture reads
    /// (see [`damage`]); a compositor that cannot say leaves the capture polled only.
    pub fn tell_changes(&mut self, tell: ChangeCount) {
        self.tell = Some(tell);
    }

    /// Whether the compositor is telling every change of what the last capture read: a
    /// follow of its damage is live.
    pub fn tells_every_change(&self) -> bool {
        self.damage.as_ref().is_some_and(DamageFollow::is_live)
    }

    /// Before reading `aim`: a live follow of its damage, when changes are told.
    fn follow_damage(&mut self, aim: Aim) {
        let Some(tell) = &self.tell else {
            return;
        };
        if self
            .damage
            .as_ref()
            .is_some_and(|damage| damage.follows(&aim))
        {
            return;
        }
        self.damage = None;
        self.damage = DamageFollow::start(&self.display.socket, aim, tell.clone());
    }

    /// Nothing is read (the window is closed or hidden): no follow, so the polls read.
    fn absent(&mut self, description: &str) -> Result<Content, CaptureError> {
        self.damage = None;
        Ok(Content::Absent {
            description: description.to_owned(),
        })
    }

    pub fn describe(&self) -> String {
        self.seen.clone()
    }

    /// One capture of the watched target; blocking.
    pub fn capture(&mut self) -> Result<Content, CaptureError> {
        self.client.refresh(&self.display.socket)?;
        match self.watched.clone() {
            Watched::Screen => self.copy_output(0),
            Watched::Window(WindowSelector::Title(needle)) => self.capture_window(&needle),
            Watched::Window(WindowSelector::Id(_)) => {
                unreachable!("connect refuses X11 window ids")
            }
        }
    }

    fn capture_window(&mut self, needle: &str) -> Result<Content, CaptureError> {
        let Some(sway_socket) = self.display.sway.clone() else {
            return self.capture_unplaced_window(needle);
        };
        let windows = sway::windows(&sway_socket)?;
        let Some((window, minimized)) = self.follow(needle, &windows) else {
            self.seen = describe(&self.display, &self.watched, None);
            return self.absent(WINDOW_CLOSED);
        };
        self.seen = describe(&self.display, &self.watched, Some(&window));
        if !window.visible || minimized || window.content.width <= 0 || window.content.height <= 0 {
            return self.absent(WINDOW_HIDDEN);
        }
        let outputs = &self.client.state.outputs;
        let output = outputs
            .iter()
            .find(|o| o.name.as_deref() == Some(window.output.as_str()))
            .or_else(|| {
                outputs
                    .iter()
                    .find(|o| (o.x, o.y) == (window.output_rect.x, window.output_rect.y))
            })
            .or(outputs.first())
            .expect("connect requires an output");
        let region = Region {
            x: window.content.x - window.output_rect.x,
            y: window.content.y - window.output_rect.y,
            width: window.content.width,
            height: window.content.height,
        };
        let (output, aim) = (output.wl.clone(), Aim::at(output, Some(region)));
        self.follow_damage(aim);
        let frame = screencopy::copy(
            &mut self.client,
            &mut self.pool,
            &output,
            Some(region),
            &self.display.socket,
        )?;
        Ok(Content::Frame(frame))
    }

    /// A window on a compositor that does not say where windows are (no sway IPC): read
    /// while it covers its output (focused, fullscreen or maximised), that output whole;
    /// otherwise it is open but cannot be placed, and nothing is shown to a model.
    fn capture_unplaced_window(&mut self, needle: &str) -> Result<Content, CaptureError> {
        let Some(index) = self.follow_toplevel(needle) else {
            self.seen = describe(&self.display, &self.watched, None);
            return self.absent(WINDOW_CLOSED);
        };
        let toplevel = &self.client.state.toplevels[index];
        self.seen = format!(
            "Wayland window '{}' on {}",
            toplevel.title,
            self.display.name()
        );
        if toplevel.minimized {
            return self.absent(WINDOW_HIDDEN);
        }
        if !toplevel.covers_output {
            return self.absent(WINDOW_UNPLACED);
        }
        let index = toplevel
            .output
            .as_ref()
            .and_then(|wl| self.client.state.outputs.iter().position(|o| &o.wl == wl))
            .unwrap_or(0);
        self.copy_output(index)
    }

    /// The whole of the output at `index` (connect requires one).
    fn copy_output(&mut self, index: usize) -> Result<Content, CaptureError> {
        let output = &self.client.state.outputs[index];
        let (wl, aim) = (output.wl.clone(), Aim::at(output, None));
        self.follow_damage(aim);
        let frame = screencopy::copy(
            &mut self.client,
            &mut self.pool,
            &wl,
            None,
            &self.display.socket,
        )?;
        Ok(Content::Frame(frame))
    }

    /// The index of the watched toplevel: the one followed so far while it is open
    /// (whatever its title now), else the first whose title contains `needle`.
    fn follow_toplevel(&mut self, needle: &str) -> Option<usize> {
        let needle = needle.to_lowercase();
        let toplevels = &self.client.state.toplevels;
        let index = self
            .followed
            .as_ref()
            .and_then(|handle| toplevels.iter().position(|t| &t.handle == handle))
            .or_else(|| {
                toplevels
                    .iter()
                    .position(|t| t.title.to_lowercase().contains(&needle))
            });
        self.followed = index.map(|index| toplevels[index].handle.clone());
        index
    }

    /// The watched window and whether it is minimised: the toplevel followed (see
    /// [`WaylandCapture::follow_toplevel`]), placed by sway's tree (sway alone when the
    /// compositor lists no toplevels).
    fn follow(&mut self, needle: &str, windows: &[SwayWindow]) -> Option<(SwayWindow, bool)> {
        if self.client.toplevels.is_none() {
            let needle = needle.to_lowercase();
            let window = windows
                .iter()
                .find(|w| w.title.to_lowercase().contains(&needle))?;
            return Some((window.clone(), false));
        }
        let index = self.follow_toplevel(needle)?;
        let toplevel = &self.client.state.toplevels[index];
        let window = windows
            .iter()
            .find(|w| w.title == toplevel.title && w.app_id == toplevel.app_id)
            .or_else(|| windows.iter().find(|w| w.title == toplevel.title))?;
        Some((window.clone(), toplevel.minimized))
    }

    /// The window with the keyboard focus, as the screen recorder names it: the toplevel the
    /// compositor marks activated, by its id on this connection, its title and its app id
    /// (as the class); blocking. A compositor that does not list its windows cannot say
    /// (`Focus::Unknown`), and none says whether the session is locked: a lock screen takes
    /// the focus from every window, so nothing is named while it shows.
    pub fn focus(&mut self) -> Result<Focus, CaptureError> {
        self.client.refresh(&self.display.socket)?;
        if self.client.toplevels.is_none() {
            return Ok(Focus::Unknown(
                "this Wayland compositor does not list its windows \
                 (wlr-foreign-toplevel-management), so the focused one cannot be named"
                    .to_owned(),
            ));
        }
        let Some(focused) = self.client.state.toplevels.iter().find(|t| t.activated) else {
            return Ok(Focus::Unknown("no window has the focus".to_owned()));
        };
        if focused.title.is_empty() && focused.app_id.is_empty() {
            return Ok(Focus::Unknown(
                "the focused window has neither a title nor an app id".to_owned(),
            ));
        }
        Ok(Focus::Window {
            id: focused.handle.id().protocol_id(),
            title: focused.title.clone(),
            class: focused.app_id.clone(),
        })
    }

    /// The window [`WaylandCapture::focus`] named `id`, read as a `window:` wait reads one
    /// (`Content::Absent` once it closed or while it is hidden); blocking.
    pub fn capture_focused(&mut self, id: u32) -> Result<Content, CaptureError> {
        let Some(toplevel) = self
            .client
            .state
            .toplevels
            .iter()
            .find(|t| t.handle.id().protocol_id() == id)
        else {
            return self.absent(WINDOW_CLOSED);
        };
        let title = toplevel.title.clone();
        self.followed = Some(toplevel.handle.clone());
        self.capture_window(&title)
    }

    /// Whether the watched window is there, and if not which titles are (for the reply to
    /// `smart_wait`).
    pub fn window_status(&mut self) -> Result<WindowStatus, CaptureError> {
        let Watched::Window(WindowSelector::Title(needle)) = self.watched.clone() else {
            return Ok(WindowStatus::Found);
        };
        self.client.refresh(&self.display.socket)?;
        let windows = match &self.display.sway {
            Some(socket) => sway::windows(socket)?,
            None => Vec::new(),
        };
        let found = match self.display.sway {
            Some(_) => self.follow(&needle, &windows).is_some(),
            None => self.follow_toplevel(&needle).is_some(),
        };
        if found {
            return Ok(WindowStatus::Found);
        }
        let mut titles: Vec<String> = self
            .client
            .state
            .toplevels
            .iter()
            .map(|t| t.title.clone())
            .chain(windows.iter().map(|w| w.title.clone()))
            .filter(|title| !title.is_empty())
            .collect();
        titles.sort();
        titles.dedup();
        Ok(WindowStatus::Missing { titles })
    }
}

fn describe(display: &WaylandDisplay, watched: &Watched, window: Option<&SwayWindow>) -> String {
    let name = display.name();
    match (watched, window) {
        (Watched::Screen, _) => format!("the screen of Wayland display {name}"),
        (_, Some(window)) if !window.app_id.is_empty() => format!(
            "Wayland window '{}' ({}) on {name}",
            window.title, window.app_id
        ),
        (_, Some(window)) => format!("Wayland window '{}' on {name}", window.title),
        (Watched::Window(WindowSelector::Title(text)), None) => {
            format!("a Wayland window whose title contains '{text}' on {name}")
        }
        (Watched::Window(WindowSelector::Id(id)), None) => format!("window 0x{id:x}"),
    }
}

/// The [`Source`] of `window:` and `screen` targets on a Wayland session: a
/// [`WaylandCapture`] driven from blocking threads by the shared [`BlockingSource`].
pub type WaylandSource = BlockingSource<WaylandCapture>;

/// What a Wayland connection is made from.
#[derive(Clone, Debug)]
pub struct WaylandConnector {
    pub display: WaylandDisplay,
    pub watched: Watched,
    /// Moved on at each change the compositor draws, once the source was asked for changes.
    pub changes: Option<ChangeCount>,
}

impl BlockingCapture for WaylandCapture {
    type Connector = WaylandConnector;
    const KIND: &'static str = "Wayland";

    fn connect(connector: &WaylandConnector) -> Result<Self, CaptureError> {
        let mut capture = WaylandCapture::connect(&connector.display, connector.watched.clone())?;
        if let Some(changes) = &connector.changes {
            capture.tell_changes(changes.clone());
        }
        Ok(capture)
    }

    fn capture(&mut self) -> Result<Content, CaptureError> {
        WaylandCapture::capture(self)
    }

    fn describe(&self) -> String {
        WaylandCapture::describe(self)
    }

    /// A failed capture drops the connection: the next one connects again.
    fn keep(&self, outcome: &Result<Content, CaptureError>) -> bool {
        outcome.is_ok()
    }

    fn changes(connector: &mut WaylandConnector) -> Option<watch::Receiver<u64>> {
        Some(subscribe(&mut connector.changes))
    }

    fn tells_every_change(&self) -> bool {
        WaylandCapture::tells_every_change(self)
    }
}

impl BlockingSource<WaylandCapture> {
    /// A source that connects at its first capture (a resumed wait may start before the
    /// compositor does).
    pub fn deferred(
        display: WaylandDisplay,
        target: &Target,
    ) -> Result<WaylandSource, CaptureError> {
        Self::deferred_telling(display, target, None)
    }

    /// [`WaylandSource::deferred`], its connections moving `changes` on at each change the
    /// compositor draws from the start (as after [`crate::sight::capture::Source::changes`]).
    pub fn deferred_telling(
        display: WaylandDisplay,
        target: &Target,
        changes: Option<ChangeCount>,
    ) -> Result<WaylandSource, CaptureError> {
        let watched = Watched::of(target).ok_or_else(|| {
            CaptureError::permanent(format!(
                "Wayland capture watches window: and screen targets, not {target}"
            ))
        })?;
        let description = describe(&display, &watched, None);
        Ok(BlockingSource::connecting_later(
            WaylandConnector {
                display,
                watched,
                changes,
            },
            description,
        ))
    }
}

#[cfg(test)]
mod tests;
