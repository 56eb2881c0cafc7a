//! `CallError`: what a caller of the tree gets back when a request cannot be served.
//!
//! Every error carries a `hint` saying how to fix the call or what to do next; the edge
//! (`src/`) maps the kind to a JSON-RPC code in one place and never rewrites the words.

use std::fmt;

/// The class of failure, which the edge maps to an error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is malformed or out of range: fix the call.
    InvalidParams,
    /// The task (or wait, or session) does not exist.
    NotFound,
    /// The request clashes with the current state, e.g. the task is already terminal.
    Conflict,
    /// Something the daemon needs is failing or restarting; retrying later may work.
    Unavailable,
    /// The request or a value in it is larger than allowed.
    TooLarge,
    /// A bug or a crashed actor; the state was reloaded.
    Internal,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    pub kind: ErrorKind,
    pub message: String,
    pub hint: String,
}

impl CallError {
    pub fn new(kind: ErrorKind, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub fn invalid(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidParams, message, hint)
    }

    pub fn not_found(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message, hint)
    }

    pub fn conflict(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message, hint)
    }

    pub fn unavailable(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unavailable, message, hint)
    }

    pub fn too_large(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::TooLarge, message, hint)
    }

    pub fn internal(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message, hint)
    }

    /// A write that failed. After an I/O error in the commit the disk may or may not hold
    /// it (the sync failed, not necessarily the write); otherwise nothing was saved.
    pub fn storage(error: &storage::StorageError) -> Self {
        if let storage::StorageError::DiskFull { path, .. } = error {
            let folder = path.parent().unwrap_or(path);
            return Self::unavailable(
                format!("not saved: {error}"),
                format!(
                    "nothing was saved; free space on the disk holding {} (df -h {} shows it), \
                     then repeat the call; reads (task_get, task_list, wait_status) still work",
                    folder.display(),
                    folder.display()
                ),
            );
        }
        let hint = if error.is_io() {
            "the disk failed while saving, so the change may or may not be stored: read it back (task_update with a query, task_thread or wait_status) before repeating it, and check the disk and the daemon log"
        } else {
            "nothing was saved; retry the call, and check the disk and the daemon log if it keeps failing"
        };
        Self::unavailable(format!("storage failed: {error}"), hint)
    }

    /// A read that failed; nothing changed.
    pub fn storage_read(error: &storage::StorageError) -> Self {
        Self::unavailable(
            format!("reading storage failed: {error}"),
            "nothing changed; retry the call, and check the disk and the daemon log if it keeps failing",
        )
    }

    /// A read that found the database file damaged (redb panicked on a page).
    pub fn storage_damaged(message: &str) -> Self {
        Self::unavailable(
            format!("the database file is damaged: reading it failed with \"{message}\""),
            "nothing changed; stop the daemon and run `lookout doctor` to check the file and copy out what can still be read",
        )
    }

    /// The actor serving the request stopped before answering (it crashed or is restarting).
    pub fn actor_lost(what: &str) -> Self {
        Self::internal(
            format!("the {what} stopped before answering; it is being restarted from storage"),
            "retry the call; anything acknowledged earlier is safe",
        )
    }

    /// The actor did not answer within its timeout.
    pub fn timed_out(what: &str, after: std::time::Duration) -> Self {
        Self::unavailable(
            format!("the {what} did not answer within {}s", after.as_secs()),
            "the daemon is overloaded or stuck; retry later and check `lookout status`",
        )
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.hint)
    }
}

impl std::error::Error for CallError {}

/// Maps the outcome of a ractor `call` with a reply of `Result<T, CallError>`.
pub(crate) fn from_call<T, M>(
    what: &str,
    timeout: std::time::Duration,
    outcome: Result<ractor::rpc::CallResult<Result<T, CallError>>, ractor::MessagingErr<M>>,
) -> Result<T, CallError> {
    use ractor::rpc::CallResult;
    match outcome {
        Ok(CallResult::Success(reply)) => reply,
        Ok(CallResult::Timeout) => Err(CallError::timed_out(what, timeout)),
        Ok(CallResult::SenderError) | Err(_) => Err(CallError::actor_lost(what)),
    }
}
