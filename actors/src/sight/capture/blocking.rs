//! A blocking pixel capture (X11, Wayland) driven from the async world: every capture runs
//! on a blocking thread (`spawn_blocking`), since display round trips and an 8 MB copy do not
//! belong on the runtime; a broken connection is dropped and the next capture connects again,
//! so the display server may come and go. [`BlockingSource`] is the one [`Source`] both the
//! X11 and the Wayland captures are driven by.

use std::fmt;

use futures::future::BoxFuture;
use tokio::sync::watch;

use crate::sight::capture::{CaptureError, Source};
use crate::sight::content::Content;

/// A capture that blocks: one connection to a display server and what it watches.
pub trait BlockingCapture: Send + Sized + 'static {
    /// What a connection is made from (the display, what is watched, options).
    type Connector: Clone + Send + 'static;

    /// Connects; blocking.
    fn connect(connector: &Self::Connector) -> Result<Self, CaptureError>;

    /// One capture; blocking.
    fn capture(&mut self) -> Result<Content, CaptureError>;

    /// What is watched and what was seen, in words.
    fn describe(&self) -> String;

    /// Whether the connection is still worth keeping after `outcome`.
    fn keep(&self, outcome: &Result<Content, CaptureError>) -> bool;

    /// Asks the connections made from `connector` from now on to tell of changes; the
    /// count that moves on at each, or `None` when this kind of capture is polled only.
    fn changes(_connector: &mut Self::Connector) -> Option<watch::Receiver<u64>> {
        None
    }

    /// Whether this connection is told of every change of what it last read (see
    /// [`Source::tells_every_change`]).
    fn tells_every_change(&self) -> bool {
        false
    }

    /// Says in the error of a capture thread that panicked which capture it was.
    const KIND: &'static str;
}

/// The [`Source`] of `window:` and `screen` targets: a [`BlockingCapture`] driven from
/// blocking threads, connecting again after a broken connection.
pub struct BlockingSource<C: BlockingCapture> {
    connector: C::Connector,
    description: String,
    /// `None` before the first connection, after a broken one, and while a capture runs.
    capture: Option<C>,
}

impl<C: BlockingCapture> fmt::Debug for BlockingSource<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockingSource")
            .field("kind", &C::KIND)
            .field("description", &self.description)
            .field("connected", &self.capture.is_some())
            .finish_non_exhaustive()
    }
}

impl<C: BlockingCapture> BlockingSource<C> {
    /// A source that connects at its first capture (a resumed wait, a restarted watcher).
    pub fn connecting_later(connector: C::Connector, description: String) -> Self {
        BlockingSource {
            connector,
            description,
            capture: None,
        }
    }

    /// A source that connects now, on a blocking thread; fails as connecting failed.
    pub async fn connected(connector: C::Connector) -> Result<Self, CaptureError> {
        let connecting = connector.clone();
        let capture = tokio::task::spawn_blocking(move || C::connect(&connecting))
            .await
            .map_err(|error| {
                CaptureError::retryable(format!(
                    "connecting the {} capture failed: {error}",
                    C::KIND
                ))
            })??;
        Ok(BlockingSource {
            connector,
            description: capture.describe(),
            capture: Some(capture),
        })
    }

    /// The connection, while there is one.
    pub fn connection(&self) -> Option<&C> {
        self.capture.as_ref()
    }
}

impl<C: BlockingCapture> Source for BlockingSource<C> {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn changes(&mut self) -> Option<watch::Receiver<u64>> {
        let changes = C::changes(&mut self.connector)?;
        // A connection made before was not asked to tell: the next capture makes one that is.
        self.capture = None;
        Some(changes)
    }

    fn tells_every_change(&self) -> bool {
        self.capture.as_ref().is_some_and(C::tells_every_change)
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        Box::pin(async move {
            let capture = self.capture.take();
            let connector = self.connector.clone();
            let joined = tokio::task::spawn_blocking(move || {
                let mut capture = match capture {
                    Some(capture) => capture,
                    None => match C::connect(&connector) {
                        Ok(capture) => capture,
                        Err(error) => return (None, Err(error), None),
                    },
                };
                let content = capture.capture();
                let description = capture.describe();
                let kept = capture.keep(&content).then_some(capture);
                (kept, content, Some(description))
            })
            .await;
            match joined {
                Ok((capture, content, description)) => {
                    if let Some(description) = description {
                        self.description = description;
                    }
                    self.capture = capture;
                    content
                }
                // A panic in the capture thread: start over with a fresh connection.
                Err(error) => Err(CaptureError::retryable(format!(
                    "the {} capture thread failed: {error}",
                    C::KIND
                ))),
            }
        })
    }
}
