//! [`X11Source`]: the blocking [`X11Capture`] driven for the async world by the shared
//! [`BlockingSource`] (a capture per blocking thread, a new connection after a broken one).

use tokio::sync::watch;

use super::{CaptureMethod, CaptureOptions, ChangeCount, Watched, X11Capture, describe};
use crate::sight::capture::blocking::{BlockingCapture, BlockingSource};
use crate::sight::capture::{CaptureError, subscribe};
use crate::sight::content::Content;
use crate::sight::target::Target;

/// The [`Source`](crate::sight::capture::Source) of `window:` and `screen` targets on X11.
pub type X11Source = BlockingSource<X11Capture>;

/// What an X11 connection is made from.
#[derive(Clone, Debug)]
pub struct X11Connector {
    /// `[x11] display`, else `DISPLAY`, as the edge resolved it; `None` when neither is set.
    pub display: Option<String>,
    pub watched: Watched,
    pub options: CaptureOptions,
    /// Moved on at each change the server reports, once the source was asked for changes.
    pub changes: Option<ChangeCount>,
}

impl BlockingCapture for X11Capture {
    type Connector = X11Connector;
    const KIND: &'static str = "X11";

    fn connect(connector: &X11Connector) -> Result<Self, CaptureError> {
        let mut capture = X11Capture::connect(
            connector.display.as_deref(),
            connector.watched.clone(),
            connector.options,
        )?;
        if let Some(changes) = &connector.changes {
            capture.tell_changes(changes.clone());
        }
        Ok(capture)
    }

    fn capture(&mut self) -> Result<Content, CaptureError> {
        X11Capture::capture(self)
    }

    fn describe(&self) -> String {
        X11Capture::describe(self)
    }

    fn keep(&self, _: &Result<Content, CaptureError>) -> bool {
        !self.is_broken()
    }

    fn tells_every_change(&self) -> bool {
        X11Capture::tells_every_change(self)
    }

    fn changes(connector: &mut X11Connector) -> Option<watch::Receiver<u64>> {
        Some(subscribe(&mut connector.changes))
    }
}

impl BlockingSource<X11Capture> {
    /// Connects to `display` for `target` (a window or the screen) on a blocking thread.
    /// Fails when the display cannot be opened, with a message that says how to fix it, or
    /// when the target is not a pixel target.
    pub async fn open(display: Option<String>, target: &Target) -> Result<X11Source, CaptureError> {
        Self::open_with(display, target, CaptureOptions::default()).await
    }

    pub async fn open_with(
        display: Option<String>,
        target: &Target,
        options: CaptureOptions,
    ) -> Result<X11Source, CaptureError> {
        let watched = watched_of(target)?;
        BlockingSource::connected(X11Connector {
            display,
            watched,
            options,
            changes: None,
        })
        .await
    }

    /// A source that opens the display at its first capture (a resumed wait, a restarted
    /// watcher: the X server may come and go, and each capture says how it went).
    pub fn deferred(display: Option<String>, target: &Target) -> Result<X11Source, CaptureError> {
        let watched = watched_of(target)?;
        let description = describe(display.as_deref().unwrap_or("(none)"), &watched, None);
        Ok(BlockingSource::connecting_later(
            X11Connector {
                display,
                watched,
                options: CaptureOptions::default(),
                changes: None,
            },
            description,
        ))
    }

    /// How frames are read right now (`None` while disconnected).
    pub fn method(&self) -> Option<CaptureMethod> {
        self.connection().map(X11Capture::method)
    }
}

fn watched_of(target: &Target) -> Result<Watched, CaptureError> {
    Watched::of(target).ok_or_else(|| {
        CaptureError::permanent(format!(
            "X11 capture watches window: and screen targets, not {target}"
        ))
    })
}
