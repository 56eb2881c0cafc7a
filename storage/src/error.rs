//! What can go wrong in storage, in words that say how to fix it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error(
        "the database {path} is already open in another process (is another lookout daemon \
         running?); stop it, or set data_dir to another folder"
    )]
    Locked { path: PathBuf },

    #[error(
        "the database {path} has schema version {found}, newer than this lookout supports \
         ({supported}); run a newer lookout or move the file aside"
    )]
    NewerSchema {
        path: PathBuf,
        found: u64,
        supported: u64,
    },

    #[error("cannot create the data folder {path}: {source}")]
    DataFolder {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error(
        "the database {path} is empty (0 bytes): it was cut short (a full disk, a copy that \
         failed, a crash while it was first created) and lookout will not start a new \
         database over it; restore it from a backup, or move it aside (mv {path} {path}.empty) \
         to start afresh"
    )]
    Empty { path: PathBuf },

    #[error("cannot open the database {path}: {source}")]
    Open {
        path: PathBuf,
        source: redb::DatabaseError,
    },

    #[error("stored {kind} {key} cannot be decoded: {detail}")]
    Corrupt {
        kind: &'static str,
        key: String,
        detail: String,
    },

    #[error("message {seq} of task {task_id} already exists; refusing to overwrite it")]
    DuplicateMessage { task_id: String, seq: u64 },

    #[error(
        "the database {path} hit an I/O error and is being reopened; retry the call, and \
         check the disk if it keeps failing"
    )]
    Recovering { path: PathBuf },

    #[error(
        "the disk holding {path} is full ({free} bytes free; a write needs {needed}): the \
         write was not made, and reads go on; free some space there and write again"
    )]
    DiskFull {
        path: PathBuf,
        free: u64,
        needed: u64,
    },

    #[error(
        "the disk holding {path} is full ({free} bytes free) and {why}; free some space there \
         (df -h shows it) and start lookout again"
    )]
    FullAtOpen {
        path: PathBuf,
        free: u64,
        why: String,
    },

    #[error(
        "the write journal {path} holds record {seq}, which this lookout cannot read (was it \
         written by a newer lookout?); run a newer lookout, since the record holds writes \
         that were acknowledged"
    )]
    JournalUnreadable { path: PathBuf, seq: u64 },

    #[error(
        "the write journal {path} is damaged: {what}. Writes acknowledged after record \
         {applied} (the last one the database holds) may be lost, so lookout does not start \
         on it, and every file is kept as it is. Run `lookout doctor`: it replays what can \
         be read, says what could not, sets the damaged journal aside, and lookout starts \
         again after it"
    )]
    JournalDamaged {
        path: PathBuf,
        what: String,
        applied: u64,
    },

    #[error("storage failed: {0}")]
    Redb(#[from] redb::Error),
}

impl StorageError {
    /// An I/O failure, or redb refusing to go on after one: the handle must be reopened.
    pub fn is_io(&self) -> bool {
        matches!(
            self,
            StorageError::Redb(redb::Error::Io(_) | redb::Error::PreviousIo)
        )
    }
}

macro_rules! from_redb {
    ($($error:ty),*) => {$(
        impl From<$error> for StorageError {
            fn from(error: $error) -> Self {
                StorageError::Redb(redb::Error::from(error))
            }
        }
    )*};
}

from_redb!(
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    redb::SetDurabilityError
);
