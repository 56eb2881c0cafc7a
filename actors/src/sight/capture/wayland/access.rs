//! Which way a Wayland session's pixels are read: `wlr-screencopy` straight from the
//! compositor (wlroots: sway, Hyprland, river, …), or the desktop's ScreenCast portal (GNOME,
//! KDE, which offer no screencopy). `[wayland] capture` says which, or `auto`: the first
//! capture asks the compositor whether it offers screencopy. [`WaylandPixels`] is the
//! [`Source`] of `window:` and `screen` on a Wayland session, over the one chosen.

use std::fmt;

use futures::future::BoxFuture;
use tokio::sync::watch;

use crate::sight::capture::portal::{PortalSettings, PortalSource};
use crate::sight::capture::wayland::{WaylandDisplay, WaylandSource, client};
use crate::sight::capture::{CaptureError, ChangeCount, Source, subscribe};
use crate::sight::content::Content;
use crate::sight::target::Target;

/// How pixels are read on a Wayland session (`[wayland] capture`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScreenAccess {
    /// `wlr-screencopy` only.
    Screencopy,
    /// The ScreenCast portal only (the screen; no windows).
    Portal(PortalSettings),
    /// screencopy when the compositor offers it, else the portal.
    Auto(PortalSettings),
}

/// The way chosen for one target, once known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chosen {
    Screencopy,
    Portal(PortalSettings),
}

impl ScreenAccess {
    /// The way to read `display`; blocking (`auto` asks the compositor).
    pub fn choose(display: &WaylandDisplay) -> Result<Chosen, CaptureError> {
        Ok(match &display.access {
            ScreenAccess::Screencopy => Chosen::Screencopy,
            ScreenAccess::Portal(portal) => Chosen::Portal(portal.clone()),
            ScreenAccess::Auto(portal) => {
                if client::offers_screencopy(&display.socket)? {
                    Chosen::Screencopy
                } else {
                    Chosen::Portal(portal.clone())
                }
            }
        })
    }

    /// Whether this way is decided without asking the compositor.
    fn known(&self) -> Option<Chosen> {
        match self {
            ScreenAccess::Screencopy => Some(Chosen::Screencopy),
            ScreenAccess::Portal(portal) => Some(Chosen::Portal(portal.clone())),
            ScreenAccess::Auto(_) => None,
        }
    }
}

/// Why a `window:` wait cannot be read through the portal.
pub fn portal_window_refusal(display: &WaylandDisplay) -> CaptureError {
    CaptureError::permanent(format!(
        "this Wayland desktop ({}) offers no wlr-screencopy, so lookout reads it through the \
         ScreenCast portal, which shares a screen the user picks but never names a window by \
         its title: watch screen instead (the desktop asks once), or a window of an X11 \
         program through XWayland with [wayland] session = \"x11\"",
        display.socket.display()
    ))
}

/// The source of one pixel target, over the way it is read; a screencopy source moves
/// `changes` on at each change the compositor draws (the portal's is polled only).
fn source_for(
    chosen: Chosen,
    display: &WaylandDisplay,
    target: &Target,
    changes: Option<ChangeCount>,
) -> Result<Box<dyn Source>, CaptureError> {
    Ok(match chosen {
        Chosen::Screencopy => Box::new(WaylandSource::deferred_telling(
            display.clone(),
            target,
            changes,
        )?),
        Chosen::Portal(portal) => match target {
            Target::Screen => Box::new(PortalSource::new(portal)),
            _ => return Err(portal_window_refusal(display)),
        },
    })
}

/// The [`Source`] of `window:` and `screen` on a Wayland session.
pub struct WaylandPixels {
    display: WaylandDisplay,
    target: Target,
    /// The source over the way chosen; `None` until an `auto` choice was made.
    chosen: Option<Box<dyn Source>>,
    /// The count of changes handed out before the way was chosen, for the source chosen.
    changes: Option<ChangeCount>,
}

impl fmt::Debug for WaylandPixels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaylandPixels")
            .field("display", &self.display)
            .field("target", &self.target)
            .field(
                "chosen",
                &self.chosen.as_ref().map(|source| source.describe()),
            )
            .finish()
    }
}

impl WaylandPixels {
    /// The source of `target`; the way is chosen now when the configuration says it, at the
    /// first capture when it is `auto`.
    pub fn new(display: WaylandDisplay, target: &Target) -> Result<WaylandPixels, CaptureError> {
        let chosen = match display.access.known() {
            Some(chosen) => Some(source_for(chosen, &display, target, None)?),
            None => None,
        };
        Ok(WaylandPixels {
            display,
            target: target.clone(),
            chosen,
            changes: None,
        })
    }

    async fn capture_now(&mut self) -> Result<Content, CaptureError> {
        if self.chosen.is_none() {
            let display = self.display.clone();
            let chosen = tokio::task::spawn_blocking(move || ScreenAccess::choose(&display))
                .await
                .map_err(|error| {
                    CaptureError::retryable(format!("asking the compositor failed: {error}"))
                })??;
            let changes = self.changes.clone();
            self.chosen = Some(source_for(chosen, &self.display, &self.target, changes)?);
        }
        let source = self.chosen.as_mut().expect("chosen above");
        source.capture().await
    }
}

impl Source for WaylandPixels {
    fn describe(&self) -> String {
        match &self.chosen {
            Some(source) => source.describe(),
            None => format!("{} of Wayland display {}", self.target, self.display.name()),
        }
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        Box::pin(self.capture_now())
    }

    /// The chosen source's count; before an `auto` choice, a count the source chosen will
    /// move on (if it can tell: the portal's never moves, and its target is polled).
    fn changes(&mut self) -> Option<watch::Receiver<u64>> {
        match &mut self.chosen {
            Some(chosen) => chosen.changes(),
            None => Some(subscribe(&mut self.changes)),
        }
    }

    fn tells_every_change(&self) -> bool {
        self.chosen
            .as_ref()
            .is_some_and(|chosen| chosen.tells_every_change())
    }
}
