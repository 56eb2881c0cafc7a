//! `[x11]` and `[wayland]`: which desktop `window:` and `screen` waits read, where its
//! display or compositor listens, and how a Wayland session's pixels are read; each resolved
//! against the daemon's environment when the config does not say.

use actors::sight::capture::portal::PortalSettings;
use actors::sight::capture::wayland::{ScreenAccess, WaylandDisplay};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// `[x11]`: the display that `window:` and `screen` waits watch.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct X11Config {
    /// `:0`, `:1.0`, `host:10`. Default: the daemon's `DISPLAY`.
    pub display: Option<String>,
}

impl X11Config {
    /// The display to watch: this key, else `DISPLAY`; `None` when neither is set (a window
    /// wait then fails with a message saying how to set one).
    pub fn resolved_display(&self) -> Option<String> {
        configured_else_environment(
            self.display.as_deref(),
            crate::config::environment::var("DISPLAY"),
        )
    }
}

/// `[wayland]`: whether `window:` and `screen` waits read a Wayland compositor instead of an
/// X display, where it listens, and how its pixels are read.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WaylandConfig {
    /// `"auto"` (the default: Wayland when `display` or `WAYLAND_DISPLAY` is set, else X11),
    /// `"wayland"` or `"x11"`.
    pub session: Session,
    /// The compositor's socket: a name in `XDG_RUNTIME_DIR` (`wayland-1`) or an absolute
    /// path. Default: the daemon's `WAYLAND_DISPLAY`.
    pub display: Option<String>,
    /// sway's IPC socket, which says where windows are. Default: the daemon's `SWAYSOCK`.
    pub sway_socket: Option<PathBuf>,
    /// `"auto"` (the default: wlr-screencopy when the compositor offers it, else the
    /// ScreenCast portal), `"screencopy"` or `"portal"`.
    pub capture: Capture,
    /// The desktop session's D-Bus address, where the ScreenCast portal answers. Default:
    /// the daemon's `DBUS_SESSION_BUS_ADDRESS`, else `unix:path=$XDG_RUNTIME_DIR/bus`.
    pub session_bus: Option<String>,
}

impl Default for WaylandConfig {
    fn default() -> Self {
        WaylandConfig {
            session: Session::Auto,
            display: None,
            sway_socket: None,
            capture: Capture::Auto,
            session_bus: None,
        }
    }
}

/// `[wayland] session`: which desktop pixel waits read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Session {
    /// Wayland when a compositor is named, else X11.
    Auto,
    Wayland,
    X11,
}

/// `[wayland] capture`: how a Wayland session's pixels are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Capture {
    Auto,
    Screencopy,
    Portal,
}

/// Where the ScreenCast portal's restore token is kept in the data folder.
pub const PORTAL_TOKEN_FILE: &str = "screencast-restore-token";

/// What [`WaylandConfig::resolve`] reads from the daemon's surroundings.
pub struct WaylandEnvironment {
    pub wayland_display: Option<String>,
    pub swaysock: Option<PathBuf>,
    pub session_bus: Option<String>,
    pub runtime_dir: PathBuf,
    pub data_folder: PathBuf,
}

impl WaylandConfig {
    /// The Wayland compositor pixel waits read, or `None` for X11.
    pub fn resolved(&self, data_folder: &Path) -> Option<WaylandDisplay> {
        self.resolve(WaylandEnvironment {
            wayland_display: crate::config::environment::var("WAYLAND_DISPLAY"),
            swaysock: crate::config::environment::non_empty("SWAYSOCK").map(PathBuf::from),
            session_bus: crate::config::environment::non_empty("DBUS_SESSION_BUS_ADDRESS"),
            runtime_dir: crate::config::paths::runtime_dir(),
            data_folder: data_folder.to_owned(),
        })
    }

    /// [`WaylandConfig::resolved`] with the environment given. `capture = "portal"` means a
    /// Wayland session even with no compositor named: the portal needs none.
    pub(super) fn resolve(&self, environment: WaylandEnvironment) -> Option<WaylandDisplay> {
        let display =
            configured_else_environment(self.display.as_deref(), environment.wayland_display);
        let capture = self.capture;
        let display = match (self.session, display) {
            (Session::X11, _) => return None,
            (Session::Auto, None) if capture != Capture::Portal => return None,
            (_, None) => "wayland-0".to_owned(),
            (_, Some(display)) => display,
        };
        let socket = PathBuf::from(&display);
        let socket = if socket.is_absolute() {
            socket
        } else {
            environment.runtime_dir.join(socket)
        };
        let sway = self
            .sway_socket
            .clone()
            .filter(|path| !path.as_os_str().is_empty())
            .or(environment.swaysock);
        let portal = PortalSettings {
            bus: configured_else_environment(self.session_bus.as_deref(), environment.session_bus)
                .unwrap_or_else(|| {
                    format!(
                        "unix:path={}",
                        environment.runtime_dir.join("bus").display()
                    )
                }),
            token_file: environment.data_folder.join(PORTAL_TOKEN_FILE),
        };
        let access = match capture {
            Capture::Auto => ScreenAccess::Auto(portal),
            Capture::Screencopy => ScreenAccess::Screencopy,
            Capture::Portal => ScreenAccess::Portal(portal),
        };
        Some(WaylandDisplay {
            socket,
            sway,
            access,
        })
    }
}

/// The configured value (a display, a bus address) unless blank, else the environment's.
pub(super) fn configured_else_environment(
    configured: Option<&str>,
    environment: Option<String>,
) -> Option<String> {
    let non_empty = |text: &str| !text.trim().is_empty();
    configured
        .filter(|d| non_empty(d))
        .map(str::to_owned)
        .or(environment.filter(|d| non_empty(d)))
}
