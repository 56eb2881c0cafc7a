//! `TerminalSource`: the [`Source`] of `pty:<session id>` targets.
//!
//! It reads the session's screen straight from the shared session table (no mailbox round
//! trip, so a wait keeps watching while the Terminals actor restarts). A session this
//! daemon does not have — the usual case after a restart, whose sessions are gone with
//! their output — is a permanent failure: the wait ends in `error` at once, saying so.

use futures::future::BoxFuture;

use crate::sight::capture::{CaptureError, Source};
use crate::sight::content::Content;
use crate::terminals::session::SessionTable;
use crate::terminals::types::SessionId;

pub struct TerminalSource {
    sessions: SessionTable,
    session_id: String,
}

impl TerminalSource {
    /// Watches session `session_id` (the text after `pty:`) of the daemon's `sessions`.
    pub fn new(sessions: &SessionTable, session_id: &str) -> TerminalSource {
        TerminalSource {
            sessions: sessions.clone(),
            session_id: session_id.trim().to_owned(),
        }
    }
}

impl Source for TerminalSource {
    fn describe(&self) -> String {
        format!("terminal session {}", self.session_id)
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        let captured = self.sessions.capture(&self.session_id);
        Box::pin(async move { captured })
    }

    /// Told by the session itself: each read from its terminal, and its end.
    fn changes(&mut self) -> Option<tokio::sync::watch::Receiver<u64>> {
        let id = SessionId::parse(&self.session_id).ok()?;
        Some(self.sessions.get(&id).ok()?.changes())
    }
}
