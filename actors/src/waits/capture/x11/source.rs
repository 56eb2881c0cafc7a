//! [`X11Source`]: the blocking [`X11Capture`] driven for the async world. Every capture runs
//! on a blocking thread (`spawn_blocking`), since X11 round trips and an 8 MB copy do not
//! belong on the runtime; a broken connection is dropped and the next capture connects
//! again, so the X server may come and go.

use std::fmt;

use futures::future::BoxFuture;

use super::{CaptureMethod, CaptureOptions, Watched, X11Capture, describe};
use crate::waits::capture::{CaptureError, Source};
use crate::waits::content::Content;
use crate::waits::target::Target;

/// The [`Source`] of `window:` and `screen` targets: an [`X11Capture`] driven from blocking
/// threads, reconnecting after the X server went away.
pub struct X11Source {
    display: Option<String>,
    watched: Watched,
    options: CaptureOptions,
    description: String,
    /// `None` before the first connection, after a broken one, and while a capture runs.
    capture: Option<X11Capture>,
}

impl fmt::Debug for X11Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("X11Source")
            .field("description", &self.description)
            .field("capture", &self.capture)
            .finish_non_exhaustive()
    }
}

impl X11Source {
    /// Connects to `display` for `target` (a window or the screen) on a blocking thread.
    /// `display` is `[x11] display`, else `DISPLAY`, as the edge resolved it; `None` when
    /// neither is set. Fails when the display cannot be opened, with a message that says how
    /// to fix it, or when the target is not a pixel target.
    pub async fn open(display: Option<String>, target: &Target) -> Result<X11Source, CaptureError> {
        Self::open_with(display, target, CaptureOptions::default()).await
    }

    pub async fn open_with(
        display: Option<String>,
        target: &Target,
        options: CaptureOptions,
    ) -> Result<X11Source, CaptureError> {
        let watched = Watched::of(target).ok_or_else(|| {
            CaptureError::permanent(format!(
                "X11 capture watches window: and screen targets, not {target}"
            ))
        })?;
        let connect_display = display.clone();
        let connect_watched = watched.clone();
        let capture = tokio::task::spawn_blocking(move || {
            X11Capture::connect(connect_display.as_deref(), connect_watched, options)
        })
        .await
        .map_err(|error| CaptureError::retryable(format!("connecting to X failed: {error}")))??;
        Ok(X11Source {
            display,
            watched,
            options,
            description: capture.describe(),
            capture: Some(capture),
        })
    }

    /// A source that opens the display at its first capture (a resumed wait, a restarted
    /// watcher: the X server may come and go, and each capture says how it went).
    pub fn deferred(display: Option<String>, target: &Target) -> Result<X11Source, CaptureError> {
        let watched = Watched::of(target).ok_or_else(|| {
            CaptureError::permanent(format!(
                "X11 capture watches window: and screen targets, not {target}"
            ))
        })?;
        let description = describe(display.as_deref().unwrap_or("(none)"), &watched, None);
        Ok(X11Source {
            display,
            watched,
            options: CaptureOptions::default(),
            description,
            capture: None,
        })
    }

    /// How frames are read right now (`None` while disconnected).
    pub fn method(&self) -> Option<CaptureMethod> {
        self.capture.as_ref().map(X11Capture::method)
    }
}

impl Source for X11Source {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        Box::pin(async move {
            let capture = self.capture.take();
            let display = self.display.clone();
            let watched = self.watched.clone();
            let options = self.options;
            let joined = tokio::task::spawn_blocking(move || {
                let mut capture = match capture {
                    Some(capture) => capture,
                    None => match X11Capture::connect(display.as_deref(), watched, options) {
                        Ok(capture) => capture,
                        Err(error) => return (None, Err(error)),
                    },
                };
                let content = capture.capture();
                (Some(capture), content)
            })
            .await;
            match joined {
                Ok((capture, content)) => {
                    if let Some(capture) = &capture {
                        self.description = capture.describe();
                    }
                    self.capture = capture.filter(|c| !c.is_broken());
                    content
                }
                // A panic in the capture thread: start over with a fresh connection.
                Err(error) => Err(CaptureError::retryable(format!(
                    "the X11 capture thread failed: {error}"
                ))),
            }
        })
    }
}
