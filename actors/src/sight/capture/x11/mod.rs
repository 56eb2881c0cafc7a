//! X11 capture: the [`Source`] of `window:` and `screen` targets.
//!
//! [`X11Capture`] is the blocking core: one connection to the X server (x11rb's pure-Rust
//! `RustConnection`, no libxcb), the watched window, and a [`grab`] reader that uses MIT-SHM
//! on a local display and GetImage otherwise. A watched window is redirected with Composite
//! (automatic mode, the way compositing managers see windows) and read through
//! `NameWindowPixmap`, so an obscured window yields its own pixels. Every frame is handed out
//! as BGRA whatever the server's depth and byte order ([`pixels`]).
//!
//! [`X11Source`] wraps it for the async world: every capture runs on a blocking thread
//! (`spawn_blocking`), since X11 round trips and an 8 MB copy do not belong on the runtime.
//!
//! What a capture sees:
//! - `screen`: the root window of the display's screen, at its current size.
//! - `window:0x…`: that window; `window:<text>`: the first window whose title contains the
//!   text ([`windows`]). A title is resolved again when its window is gone, so a new window
//!   with that title is picked up.
//! - A window that is gone is `Content::Absent` with the description [`WINDOW_CLOSED`];
//!   one that is minimised or on another desktop is `Content::Absent` saying so. Deciding
//!   whether that ends a wait is the wait's business (the Watcher times how long a window
//!   stays closed).
//!
//! Owns no configuration: the display name comes from the caller (`[x11] display`, else
//! `DISPLAY`, resolved in `src/`). x11rb reads `XAUTHORITY` (or `~/.Xauthority`) itself for
//! the connection's cookie.

mod damage;
mod focus;
mod grab;
pub mod pixels;
mod source;
pub mod windows;

#[cfg(any(test, feature = "testkit"))]
pub mod test_display;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::{ConnectError, ConnectionError, ReplyError, ReplyOrIdError};
use x11rb::protocol::ErrorKind;
use x11rb::protocol::composite::{self, ConnectionExt as _, Redirect};
use x11rb::protocol::xproto::{
    ConnectionExt as _, ImageOrder, MapState, Visualid, Visualtype, Window,
};
use x11rb::reexports::x11rb_protocol::parse_display::parse_display;
use x11rb::rust_connection::RustConnection;

pub use crate::sight::capture::ChangeCount;
pub use focus::Focus;
pub use grab::CaptureMethod;
pub use source::X11Source;

use crate::sight::capture::CaptureError;
use crate::sight::content::{Content, Frame};
use crate::sight::target::{Target, WindowSelector};
use damage::DamageFollow;
use grab::{PixelReader, ReadError, Region};
use pixels::PixelLayout;
use windows::Atoms;

pub use crate::sight::content::WINDOW_CLOSED;

/// The description of `Content::Absent` for a watched window that exists but is not shown
/// (minimised, on another desktop, withdrawn).
pub const WINDOW_HIDDEN: &str =
    "window minimised or hidden: its pixels cannot be read until it is shown again";

/// Where README.md explains how a service gets a display.
const DISPLAY_HINT: &str = "set [x11] display in the config or DISPLAY in the daemon's \
     environment (on a Wayland desktop, WAYLAND_DISPLAY or [wayland] display); a systemd user \
     service must import it first: systemctl --user import-environment DISPLAY XAUTHORITY \
     WAYLAND_DISPLAY SWAYSOCK (README, \"Run it as a service\")";

/// Composite 0.2 introduced `NameWindowPixmap`.
const COMPOSITE_WITH_PIXMAPS: (u32, u32) = (0, 2);

/// What is watched on the display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Watched {
    Screen,
    Window(WindowSelector),
}

impl Watched {
    /// The pixel part of a target, or `None` for a text target.
    pub fn of(target: &Target) -> Option<Watched> {
        match target {
            Target::Screen => Some(Watched::Screen),
            Target::Window(selector) => Some(Watched::Window(selector.clone())),
            _ => None,
        }
    }
}

/// Capture options; the defaults are what the daemon uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaptureOptions {
    /// Use MIT-SHM when the display is local and the server offers it (else GetImage).
    pub shared_memory: bool,
    /// Redirect the watched window with Composite so its own pixels can be read when other
    /// windows cover it.
    pub composite: bool,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            shared_memory: true,
            composite: true,
        }
    }
}

/// Whether a watched window is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WindowStatus {
    Found,
    /// No window matches; the titles of those that exist.
    Missing {
        titles: Vec<String>,
    },
}

/// The window currently watched.
#[derive(Clone, Debug)]
struct Followed {
    id: Window,
    title: Option<String>,
}

/// A blocking X11 capture of one target. See the module documentation.
pub struct X11Capture {
    connection: Arc<RustConnection>,
    display: String,
    root: Window,
    root_depth: u8,
    root_visual: Visualid,
    atoms: Atoms,
    reader: PixelReader,
    composite: bool,
    watched: Watched,
    followed: Option<Followed>,
    /// A window was found once: its absence now means it closed.
    found_before: bool,
    redirected: Option<Window>,
    /// The connection broke: this capture is useless and must be replaced.
    broken: bool,
    /// `_NET_ACTIVE_WINDOW`, interned at the first [`X11Capture::focus`].
    active_window_atom: Option<u32>,
    /// The server's reports of changed pixels, once asked for ([`X11Capture::tell_changes`]).
    damage: Option<DamageFollow>,
}

impl fmt::Debug for X11Capture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("X11Capture")
            .field("display", &self.display)
            .field("watched", &self.watched)
            .field("method", &self.reader.method())
            .field("followed", &self.followed)
            .finish_non_exhaustive()
    }
}

/// Why reading a window failed.
enum WindowProblem {
    Gone,
    Hidden,
    Failed(CaptureError),
}

impl X11Capture {
    /// Connects to `display` (`:0`, `:99.1`, `host:10`); blocking. `None` means no display
    /// is configured anywhere, and the error says how to set one.
    pub fn connect(
        display: Option<&str>,
        watched: Watched,
        options: CaptureOptions,
    ) -> Result<X11Capture, CaptureError> {
        let Some(display) = display.filter(|d| !d.trim().is_empty()) else {
            return Err(CaptureError::permanent(format!(
                "no X display to watch: {DISPLAY_HINT}"
            )));
        };
        let (connection, screen_number) = RustConnection::connect(Some(display))
            .map_err(|error| connect_error(display, &error))?;
        let screen = &connection.setup().roots[screen_number];
        let (root, root_depth, root_visual) = (screen.root, screen.root_depth, screen.root_visual);
        let lost = |error: ReplyError| lost_connection(display, &error.to_string());
        let atoms = Atoms::intern(&connection).map_err(lost)?;
        let local = parse_display(Some(display)).is_ok_and(|parsed| {
            parsed.host.is_empty() || parsed.protocol.as_deref() == Some("unix")
        });
        let reader = PixelReader::new(&connection, options.shared_memory && local)
            .map_err(|error| lost_connection(display, &error.to_string()))?;
        let composite = options.composite
            && supports_window_pixmaps(&connection)
                .map_err(|error| lost_connection(display, &error.to_string()))?;
        Ok(X11Capture {
            connection: Arc::new(connection),
            display: display.to_owned(),
            root,
            root_depth,
            root_visual,
            atoms,
            reader,
            composite,
            watched,
            followed: None,
            found_before: false,
            redirected: None,
            broken: false,
            active_window_atom: None,
            damage: None,
        })
    }

    /// Moves `tell` on whenever the server reports that the watched window (or the screen)
    /// changed; a server without DAMAGE leaves the capture polled only.
    pub fn tell_changes(&mut self, tell: ChangeCount) {
        self.damage = DamageFollow::start(&self.connection, self.root, tell);
    }

    /// Whether the server tells this capture of changes.
    pub fn is_told_of_changes(&self) -> bool {
        self.damage.is_some()
    }

    /// Whether the server is reporting every change of what the last capture read: a damage
    /// object is on it and its listener still reads the connection (one that failed told a
    /// change as it ended, and the capture after it finds the connection broken).
    pub fn tells_every_change(&self) -> bool {
        !self.broken && self.damage.as_ref().is_some_and(DamageFollow::is_live)
    }

    /// Before reading `drawable`: the damage report follows it, re-armed.
    fn before_read(&mut self, drawable: Window) {
        if let Some(damage) = &mut self.damage {
            damage.before_read(drawable);
        }
    }

    /// How frames are read: MIT-SHM or GetImage.
    pub fn method(&self) -> CaptureMethod {
        self.reader.method()
    }

    /// Whether windows are read through Composite (their own pixels, even when covered).
    pub fn uses_composite(&self) -> bool {
        self.composite
    }

    /// The connection broke; build a new capture.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// What is watched, in words: "window 0x4200003 (Downloads)", "the screen of :0".
    pub fn describe(&self) -> String {
        describe(&self.display, &self.watched, self.followed.as_ref())
    }

    /// The id of the window being followed, once one was found.
    pub fn window_id(&self) -> Option<u32> {
        self.followed.as_ref().map(|f| f.id)
    }

    /// The window that has the user's focus, or why none can be named, or that the screen
    /// is locked; blocking.
    pub fn focus(&mut self) -> Result<Focus, CaptureError> {
        let atom = match self.active_window_atom {
            Some(atom) => atom,
            None => {
                let interned = reply_of(self.connection.intern_atom(false, b"_NET_ACTIVE_WINDOW"))
                    .map_err(|e| self.failed(e))?;
                *self.active_window_atom.insert(interned.atom)
            }
        };
        focus::focus(&self.connection, &self.atoms, atom, self.root)
            .map_err(|error| self.failed(error.into()))
    }

    /// Watches window `id` from the next capture on (the recorder follows the focus).
    pub fn follow(&mut self, id: u32) {
        if self.watched != Watched::Window(WindowSelector::Id(id)) {
            self.watched = Watched::Window(WindowSelector::Id(id));
            self.followed = None;
            self.found_before = false;
        }
    }

    /// One capture; blocking.
    pub fn capture(&mut self) -> Result<Content, CaptureError> {
        let result = match self.watched.clone() {
            Watched::Screen => self.capture_screen().map(Content::Frame),
            Watched::Window(selector) => self.capture_window(&selector),
        };
        if let Some(damage) = &self.damage {
            damage.after_read();
        }
        if let Err(error) = &result {
            tracing::debug!(display = %self.display, "capture failed: {}", error.message);
        }
        result
    }

    fn capture_screen(&mut self) -> Result<Frame, CaptureError> {
        self.before_read(self.root);
        let geometry =
            reply_of(self.connection.get_geometry(self.root)).map_err(|e| self.failed(e))?;
        let layout = self.layout(self.root_visual, self.root_depth)?;
        let region = Region {
            drawable: self.root,
            x: 0,
            y: 0,
            width: geometry.width,
            height: geometry.height,
            layout,
        };
        self.reader
            .read(&self.connection, region)
            .map_err(|e| self.failed(e))
    }

    /// Whether the watched window exists now; when it does not, the titles of the windows
    /// that do (for a reply that says what is there instead).
    pub fn window_status(&mut self) -> Result<WindowStatus, CaptureError> {
        let Watched::Window(selector) = self.watched.clone() else {
            return Ok(WindowStatus::Found);
        };
        if self.resolve(&selector)?.is_some() {
            return Ok(WindowStatus::Found);
        }
        let titles = windows::all_titles(&self.connection, &self.atoms, self.root)
            .map_err(|error| self.failed(error.into()))?;
        Ok(WindowStatus::Missing { titles })
    }

    fn capture_window(&mut self, selector: &WindowSelector) -> Result<Content, CaptureError> {
        // Twice at most: a followed window that is gone, then the window its title now
        // resolves to.
        for _ in 0..2 {
            let followed = match self.followed.clone() {
                Some(followed) => followed,
                None => match self.resolve(selector)? {
                    Some(found) => {
                        self.found_before = true;
                        self.followed.insert(found).clone()
                    }
                    None => return Ok(self.absent(selector)),
                },
            };
            self.before_read(followed.id);
            match self.read_window(followed.id) {
                Ok(frame) => {
                    self.refresh_title(followed.id);
                    return Ok(Content::Frame(frame));
                }
                Err(WindowProblem::Gone) => {
                    self.followed = None;
                    self.redirected = None;
                    if matches!(selector, WindowSelector::Id(_)) {
                        break;
                    }
                }
                Err(WindowProblem::Hidden) => {
                    return Ok(Content::Absent {
                        description: WINDOW_HIDDEN.to_owned(),
                    });
                }
                Err(WindowProblem::Failed(error)) => return Err(error),
            }
        }
        Ok(self.absent(selector))
    }

    fn absent(&self, selector: &WindowSelector) -> Content {
        let description = if self.found_before {
            WINDOW_CLOSED.to_owned()
        } else {
            match selector {
                WindowSelector::Title(text) => format!("no window's title contains '{text}'"),
                WindowSelector::Id(id) => format!("no window 0x{id:x} exists"),
            }
        };
        Content::Absent { description }
    }

    fn resolve(&mut self, selector: &WindowSelector) -> Result<Option<Followed>, CaptureError> {
        match selector {
            WindowSelector::Title(text) => {
                windows::find_by_title(&self.connection, &self.atoms, self.root, text)
                    .map(|found| {
                        found.map(|(id, title)| Followed {
                            id,
                            title: Some(title),
                        })
                    })
                    .map_err(|e| self.failed(e.into()))
            }
            WindowSelector::Id(id) => {
                let title = windows::title(&self.connection, &self.atoms, *id)
                    .map_err(|e| self.failed(e.into()))?;
                match reply_of(self.connection.get_window_attributes(*id)) {
                    Ok(_) => Ok(Some(Followed { id: *id, title })),
                    Err(ReadError::Refused(_)) => Ok(None),
                    Err(error) => Err(self.failed(error)),
                }
            }
        }
    }

    fn refresh_title(&mut self, window: Window) {
        if let (Ok(title), Some(followed)) = (
            windows::title(&self.connection, &self.atoms, window),
            &mut self.followed,
        ) {
            followed.title = title;
        }
    }

    fn read_window(&mut self, window: Window) -> Result<Frame, WindowProblem> {
        let attributes = reply_of(self.connection.get_window_attributes(window))
            .map_err(|e| self.window_problem(e))?;
        if attributes.map_state != MapState::VIEWABLE {
            return Err(WindowProblem::Hidden);
        }
        let geometry =
            reply_of(self.connection.get_geometry(window)).map_err(|e| self.window_problem(e))?;
        let layout = self
            .layout(attributes.visual, geometry.depth)
            .map_err(WindowProblem::Failed)?;
        let mut region = Region {
            drawable: window,
            x: 0,
            y: 0,
            width: geometry.width,
            height: geometry.height,
            layout,
        };
        if !self.composite {
            return self.read_region(region);
        }
        self.redirect(window);
        let pixmap = match self.connection.generate_id() {
            Ok(id) => id,
            Err(ReplyOrIdError::ConnectionError(e)) => {
                return Err(WindowProblem::Failed(self.failed(e.into())));
            }
            Err(other) => {
                return Err(WindowProblem::Failed(CaptureError::retryable(format!(
                    "X display {}: {other}",
                    self.display
                ))));
            }
        };
        let named = match self.connection.composite_name_window_pixmap(window, pixmap) {
            Ok(cookie) => cookie.check().map_err(ReadError::from),
            Err(error) => Err(ReadError::from(error)),
        };
        if let Err(error) = named {
            let problem = self.window_problem(error);
            // A window that is not redirected after all (e.g. another client holds it): read
            // it directly, which is right wherever it is not covered.
            return match problem {
                WindowProblem::Gone | WindowProblem::Failed(_) => Err(problem),
                WindowProblem::Hidden => self.read_region(region),
            };
        }
        // The pixmap includes the border; the window's own pixels start inside it.
        region.drawable = pixmap;
        region.x = geometry.border_width as i16;
        region.y = geometry.border_width as i16;
        let frame = self.read_region(region);
        let _ = self.connection.free_pixmap(pixmap);
        frame
    }

    fn read_region(&mut self, region: Region) -> Result<Frame, WindowProblem> {
        self.reader
            .read(&self.connection, region)
            .map_err(|error| self.window_problem(error))
    }

    /// Redirects `window` once (automatic mode: the server still paints it on screen).
    fn redirect(&mut self, window: Window) {
        if self.redirected == Some(window) {
            return;
        }
        if let Some(previous) = self.redirected.take() {
            let _ = self
                .connection
                .composite_unredirect_window(previous, Redirect::AUTOMATIC);
        }
        // BadAccess means another client redirected it manually (a compositing manager):
        // the window has its own pixmap either way.
        if let Ok(cookie) = self
            .connection
            .composite_redirect_window(window, Redirect::AUTOMATIC)
        {
            let _ = cookie.check();
        }
        self.redirected = Some(window);
    }

    fn window_problem(&mut self, error: ReadError) -> WindowProblem {
        match &error {
            ReadError::Refused(x11) => match x11.error_kind {
                ErrorKind::Window | ErrorKind::Drawable | ErrorKind::Pixmap => WindowProblem::Gone,
                ErrorKind::Match => WindowProblem::Hidden,
                _ => WindowProblem::Failed(self.failed(error)),
            },
            _ => WindowProblem::Failed(self.failed(error)),
        }
    }

    fn failed(&mut self, error: ReadError) -> CaptureError {
        match error {
            ReadError::Connection(error) => {
                self.broken = true;
                lost_connection(&self.display, &error.to_string())
            }
            ReadError::Refused(error) => CaptureError::retryable(format!(
                "X display {} refused {} ({:?} error)",
                self.display,
                error.request_name.unwrap_or("a request"),
                error.error_kind
            )),
            ReadError::Unsupported(message) => CaptureError::permanent(message),
        }
    }

    fn layout(&self, visual: Visualid, depth: u8) -> Result<PixelLayout, CaptureError> {
        let setup = self.connection.setup();
        let format = setup
            .pixmap_formats
            .iter()
            .find(|format| format.depth == depth)
            .ok_or_else(|| {
                CaptureError::permanent(format!(
                    "X display {} has no pixmap format for depth {depth}",
                    self.display
                ))
            })?;
        let visual_type: &Visualtype = setup
            .roots
            .iter()
            .flat_map(|screen| &screen.allowed_depths)
            .flat_map(|depth| &depth.visuals)
            .find(|candidate| candidate.visual_id == visual)
            .ok_or_else(|| {
                CaptureError::permanent(format!(
                    "X display {} does not describe visual 0x{visual:x}",
                    self.display
                ))
            })?;
        let byte_order: ImageOrder = setup.image_byte_order;
        PixelLayout::for_visual(
            visual_type,
            format.bits_per_pixel,
            format.scanline_pad,
            byte_order,
        )
        .map_err(CaptureError::permanent)
    }
}

/// The reply to a request, with both ways of failing in one error.
fn reply_of<C: RequestConnection + ?Sized, R: x11rb::x11_utils::TryParse>(
    request: Result<x11rb::cookie::Cookie<'_, C, R>, ConnectionError>,
) -> Result<R, ReadError> {
    Ok(request?.reply()?)
}

fn supports_window_pixmaps(connection: &RustConnection) -> Result<bool, ConnectionError> {
    if connection
        .extension_information(composite::X11_EXTENSION_NAME)?
        .is_none()
    {
        return Ok(false);
    }
    match connection
        .composite_query_version(COMPOSITE_WITH_PIXMAPS.0, COMPOSITE_WITH_PIXMAPS.1)?
        .reply()
    {
        Ok(version) => Ok((version.major_version, version.minor_version) >= COMPOSITE_WITH_PIXMAPS),
        Err(ReplyError::ConnectionError(error)) => Err(error),
        Err(ReplyError::X11Error(_)) => Ok(false),
    }
}

fn connect_error(display: &str, error: &ConnectError) -> CaptureError {
    CaptureError::retryable(format!(
        "cannot open X display '{display}': {error}; {DISPLAY_HINT}"
    ))
}

fn lost_connection(display: &str, error: &str) -> CaptureError {
    CaptureError::retryable(format!(
        "lost the connection to X display '{display}': {error}; it is opened again on the \
         next capture"
    ))
}

fn describe(display: &str, watched: &Watched, followed: Option<&Followed>) -> String {
    match (watched, followed) {
        (Watched::Screen, _) => format!("the screen of X display {display}"),
        (
            Watched::Window(_),
            Some(Followed {
                id,
                title: Some(title),
            }),
        ) => {
            format!("window 0x{id:x} ({title})")
        }
        (Watched::Window(_), Some(Followed { id, title: None })) => format!("window 0x{id:x}"),
        (Watched::Window(WindowSelector::Id(id)), None) => format!("window 0x{id:x}"),
        (Watched::Window(WindowSelector::Title(text)), None) => {
            format!("a window whose title contains '{text}'")
        }
    }
}
