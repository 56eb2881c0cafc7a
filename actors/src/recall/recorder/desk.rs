//! Where the recorder looks: the desktop's focused window, on X11 (`_NET_ACTIVE_WINDOW`, the
//! screen saver for a lock) or on a wlroots Wayland compositor (the toplevel it marks
//! activated; sway's IPC places it). [`look`] asks which window has the focus and, when it
//! may be recorded, captures it; blocking. A desktop read through the ScreenCast portal
//! (GNOME, KDE) never names the focused window, so nothing is recorded there.

use crate::recall::recorder::privacy::Exclusions;
use crate::sight::capture::CaptureError;
use crate::sight::capture::wayland::access::Chosen;
use crate::sight::capture::wayland::{ScreenAccess, WaylandCapture, WaylandDisplay};
use crate::sight::capture::x11::{CaptureOptions, Focus, Watched, X11Capture};
use crate::sight::content::Content;

/// The desktop the recorder reads, as the configuration names it.
#[derive(Clone, Debug)]
pub enum DeskSettings {
    /// An X display (`[x11] display`, else `DISPLAY`); `None`: not set, and the recorder
    /// stalls, saying how to set one.
    X11(Option<String>),
    /// A Wayland session (`[wayland]`).
    Wayland(WaylandDisplay),
}

/// One connection to the desktop, kept between looks (boxed: the two differ in size).
pub enum Desk {
    X11(Box<X11Capture>),
    Wayland(Box<WaylandCapture>),
}

/// What one look at the desktop found.
pub enum Look {
    Locked,
    Unknown(String),
    Excluded(String),
    Window {
        id: u32,
        title: String,
        class: String,
        content: Content,
    },
}

impl Desk {
    /// Connects to the desktop `settings` name; blocking.
    fn connect(settings: &DeskSettings) -> Result<Desk, CaptureError> {
        match settings {
            DeskSettings::X11(display) => X11Capture::connect(
                display.as_deref(),
                Watched::Screen,
                CaptureOptions::default(),
            )
            .map(|capture| Desk::X11(Box::new(capture))),
            DeskSettings::Wayland(display) => match ScreenAccess::choose(display)? {
                Chosen::Screencopy => WaylandCapture::connect(display, Watched::Screen)
                    .map(|capture| Desk::Wayland(Box::new(capture))),
                Chosen::Portal(_) => Err(CaptureError::permanent(
                    "this Wayland desktop is read through the ScreenCast portal, which never \
                     says which window has the focus, so screen history is not recorded here: \
                     it is on X11 and on wlroots compositors (sway, Hyprland, river), or run \
                     the daemon against XWayland with [wayland] session = \"x11\"",
                )),
            },
        }
    }

    fn focus(&mut self) -> Result<Focus, CaptureError> {
        match self {
            Desk::X11(capture) => capture.focus(),
            Desk::Wayland(capture) => capture.focus(),
        }
    }

    fn capture_focused(&mut self, id: u32) -> Result<Content, CaptureError> {
        match self {
            Desk::X11(capture) => {
                capture.follow(id);
                capture.capture()
            }
            Desk::Wayland(capture) => capture.capture_focused(id),
        }
    }

    /// The connection, unless it broke: an X11 connection says so; a Wayland one that failed
    /// a request is made again.
    fn keep(self, failed: bool) -> Option<Desk> {
        match self {
            Desk::X11(capture) => (!capture.is_broken()).then_some(Desk::X11(capture)),
            Desk::Wayland(capture) => (!failed).then_some(Desk::Wayland(capture)),
        }
    }
}

/// Connects when needed, asks for the focus and captures the focused window when it may.
/// Blocking. Returns the connection to keep for the next look.
pub fn look(
    desk: Option<Desk>,
    settings: &DeskSettings,
    exclusions: &Exclusions,
) -> (Option<Desk>, Result<Look, String>) {
    let mut desk = match desk {
        Some(desk) => desk,
        None => match Desk::connect(settings) {
            Ok(desk) => desk,
            Err(error) => return (None, Err(error.message)),
        },
    };
    let seen = match desk.focus() {
        Err(error) => Err(error.message),
        Ok(Focus::Locked) => Ok(Look::Locked),
        Ok(Focus::Unknown(reason)) => Ok(Look::Unknown(reason)),
        Ok(Focus::Window { id, title, class }) => match exclusions.excluding(&class, &title) {
            Some(pattern) => Ok(Look::Excluded(pattern.to_owned())),
            None => desk
                .capture_focused(id)
                .map(|content| Look::Window {
                    id,
                    title,
                    class,
                    content,
                })
                .map_err(|error| error.message),
        },
    };
    (desk.keep(seen.is_err()), seen)
}
