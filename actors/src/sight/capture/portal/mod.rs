//! The screen of a GNOME or KDE Wayland session, read through the desktop's ScreenCast portal
//! (`xdg-desktop-portal`), the only way a program may read pixels there: the [`Source`] of
//! `screen` when the compositor offers no `wlr-screencopy`, or when `[wayland] capture =
//! "portal"`.
//!
//! The first capture opens a portal session ([`session`]), on which the desktop asks the user
//! once which monitor to share; the choice is kept as a restore token in the data folder, so
//! later sessions (the next `screen` wait, a restarted daemon) start without asking. Until
//! the stream's first frame arrives a capture is `Content::Absent`, saying what it waits
//! for; then the latest frame of the stream ([`stream`]) is what each capture returns. A
//! refusal ends the wait in `error`, and so does a stream that ends (the user stopped sharing:
//! sharing again unasked would go against them).
//!
//! Windows are not watched this way: the portal lets the user pick a window in its dialog,
//! but never names one by title, so `window:` waits are refused on these desktops.

pub mod session;
pub mod stream;

use std::fmt;
use std::path::PathBuf;

use futures::future::BoxFuture;
use tokio::task::JoinHandle;

use crate::sight::capture::{CaptureError, Source};
use crate::sight::content::Content;
use session::PortalSession;
use stream::FrameStream;

/// What a capture says while the desktop has not shared the screen yet.
pub const WAITING_FOR_CONSENT: &str = "waiting for the desktop to share the screen: answer its \
     screen-sharing dialog (Share) if it shows one; lookout asks once and keeps the choice";
/// What a capture says between the session's start and the stream's first frame.
pub const WAITING_FOR_FRAME: &str = "waiting for the first frame of the screen-sharing stream";

/// Where the portal is and where its restore token is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortalSettings {
    /// The desktop session's D-Bus address (`unix:path=/run/user/1000/bus`).
    pub bus: String,
    /// The file that keeps the portal's restore token, in the data folder.
    pub token_file: PathBuf,
}

/// The [`Source`] of `screen` through the portal.
pub struct PortalSource {
    settings: PortalSettings,
    state: State,
}

enum State {
    /// No session: the next capture opens one.
    Closed,
    /// A session being opened (perhaps on the user's dialog) and its stream started.
    Opening(JoinHandle<Result<(PortalSession, FrameStream), CaptureError>>),
    /// Frames arrive.
    Streaming(Box<(PortalSession, FrameStream)>),
}

impl fmt::Debug for PortalSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Closed => "closed",
            State::Opening(_) => "opening",
            State::Streaming(_) => "streaming",
        };
        f.debug_struct("PortalSource")
            .field("settings", &self.settings)
            .field("state", &state)
            .finish()
    }
}

impl PortalSource {
    /// A source that opens its session at its first capture.
    pub fn new(settings: PortalSettings) -> PortalSource {
        PortalSource {
            settings,
            state: State::Closed,
        }
    }

    async fn capture_now(&mut self) -> Result<Content, CaptureError> {
        if let State::Closed = self.state {
            let settings = self.settings.clone();
            self.state = State::Opening(tokio::spawn(async move {
                let (session, remote) = session::open(&settings.bus, &settings.token_file).await?;
                tokio::task::spawn_blocking(move || {
                    let stream = FrameStream::start(&session, remote)?;
                    Ok((session, stream))
                })
                .await
                .map_err(|error| {
                    CaptureError::retryable(format!("starting the stream failed: {error}"))
                })?
            }));
        }
        if let State::Opening(opening) = &mut self.state {
            if !opening.is_finished() {
                return Ok(waiting(WAITING_FOR_CONSENT));
            }
            let opened = opening.await.unwrap_or_else(|error| {
                Err(CaptureError::retryable(format!(
                    "opening the portal session failed: {error}"
                )))
            });
            match opened {
                Ok(streaming) => self.state = State::Streaming(Box::new(streaming)),
                Err(error) => {
                    self.state = State::Closed;
                    return Err(error);
                }
            }
        }
        let State::Streaming(streaming) = &mut self.state else {
            unreachable!("a session is open or opening by now")
        };
        let (session, stream) = &mut **streaming;
        if session.was_closed() {
            self.state = State::Closed;
            return Err(stopped_sharing("the screen-sharing session was closed"));
        }
        match stream.latest() {
            Ok(Some(frame)) => Ok(Content::Frame(frame)),
            Ok(None) => Ok(waiting(WAITING_FOR_FRAME)),
            Err(error) => {
                self.state = State::Closed;
                Err(error)
            }
        }
    }
}

/// Why a wait ends when the desktop stopped sharing (`why`: how lookout saw it). For good:
/// sharing again unasked, after the user stopped it, would go against them.
pub fn stopped_sharing(why: &str) -> CaptureError {
    CaptureError::permanent(format!(
        "the desktop stopped sharing the screen (the user stopped it, or the sharing ended: \
         {why}); start a new wait to share it again"
    ))
}

fn waiting(description: &str) -> Content {
    Content::Absent {
        description: description.to_owned(),
    }
}

impl Source for PortalSource {
    fn describe(&self) -> String {
        match &self.state {
            State::Streaming(streaming) => {
                let (width, height) = streaming.1.size();
                format!("the screen, shared by the desktop's ScreenCast portal ({width}x{height})")
            }
            _ => "the screen, through the desktop's ScreenCast portal".to_owned(),
        }
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        Box::pin(self.capture_now())
    }
}

impl Drop for PortalSource {
    fn drop(&mut self) {
        if let State::Opening(opening) = &self.state {
            opening.abort();
        }
    }
}
