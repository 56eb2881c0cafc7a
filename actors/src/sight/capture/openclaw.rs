//! `ExecSource`: the [`Source`] of a `pty:` target that names the agent's own OpenClaw exec
//! session (`pty:crisp-ridge`, the id its `exec` tool returned), read from the gateway's task
//! ledger (`openclaw::exec`).
//!
//! The ledger says whether the command still runs and how it ended, never what it printed
//! (the gateway gives no other program an exec session's output), so the content is one
//! line naming the session and, once the command ended, its exit. Reading the ledger consumes nothing:
//! the agent's own `process poll` still gets all the output. A session the ledger no longer
//! has (the gateway restarted, or the finished session outlived its TTL) is a permanent
//! failure that says so.

use futures::future::BoxFuture;

use crate::openclaw::exec::{ExecLedger, ExecSession, ExecState};
use crate::sight::capture::{CaptureError, Source};
use crate::sight::content::{Content, ProcessExit, TextOrigin};

pub struct ExecSource {
    ledger: ExecLedger,
    session_id: String,
    /// The ledger's id for the session, once found: later reads ask for that entry alone.
    task_id: Option<String>,
}

impl ExecSource {
    pub fn new(ledger: ExecLedger, session_id: &str) -> ExecSource {
        ExecSource {
            ledger,
            session_id: session_id.trim().to_owned(),
            task_id: None,
        }
    }
}

impl Source for ExecSource {
    fn describe(&self) -> String {
        format!("OpenClaw exec session {}", self.session_id)
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        Box::pin(async move {
            let found = match &self.task_id {
                Some(task_id) => self.ledger.get(task_id).await,
                None => self.ledger.find(&self.session_id).await,
            }
            .map_err(|error| CaptureError::retryable(error.message))?;
            let Some(session) = found else {
                return Err(CaptureError::permanent(gone(
                    &self.session_id,
                    self.ledger.url(),
                )));
            };
            self.task_id = Some(session.task_id.clone());
            Ok(content_of(&session))
        })
    }
}

/// A session as a wait sees it: one line that names it (the same while it runs and after,
/// so that only its end is a change) and the exit once it ended. The line is what the
/// wake's "last line" shows; it is not output, so no condition about output is accepted on
/// this target (`waits::actor::check_visible`).
pub fn content_of(session: &ExecSession) -> Content {
    let exit = match &session.state {
        ExecState::Running => None,
        ExecState::Exited(code) => Some(ProcessExit { code: Some(*code) }),
        ExecState::Ended(_) => Some(ProcessExit { code: None }),
    };
    Content::Text {
        text: format!(
            "OpenClaw exec session {} (`{}`); its output is not visible to lookout",
            session.session_id, session.command
        )
        .into(),
        exit,
        origin: TextOrigin::Screen,
    }
}

/// Why a session the wait was watching cannot be found any more.
fn gone(session_id: &str, url: &str) -> String {
    format!(
        "OpenClaw exec session {session_id} is no longer in the task ledger of the gateway at \
         {url}: the gateway restarted (exec sessions live in its memory) or the session ended \
         longer ago than its retention (tools.exec.cleanupMs, 30 minutes by default); check \
         with `openclaw tasks list`, and start a new wait on a session that runs"
    )
}
