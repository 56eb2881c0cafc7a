//! `lookout doctor`: examine a database file that may be damaged, and copy out what can
//! still be read.
//!
//! It works on the file alone (redb opens a file in one process at a time, so the daemon
//! must be stopped). It runs redb's integrity check, then reads every task, message, plan
//! revision, wait and event record by record, each read inside `catch_unwind` because redb
//! panics on some damaged pages; what decodes goes to the rescue output as JSON lines
//! (`{"kind", "key", "record"}`), what does not is listed. A file that checks out first takes
//! the writes its write journal holds and it does not (a crash before the daemon's checkpoint),
//! as the daemon's next start would, so the copy has every acknowledged write. A damaged
//! journal is salvaged: the records that still read are applied, the journal is set aside
//! under a new name, a new one starts, and the checkup says what could not be replayed.

use std::any::Any;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable};
use serde::Serialize;

use crate::codec::Versioned;
use crate::error::StorageError;
use crate::model::{EventRecord, MessageRecord, PlanRevisionRecord, TaskRecord, WaitRecord};
use crate::schema::{EVENTS, MESSAGES, PLAN_REVISIONS, TASKS, WAITS};

/// What redb's integrity check found.
#[derive(Debug, PartialEq, Eq)]
pub enum Integrity {
    Sound,
    /// The check found damage it could repair (the file was changed).
    Repaired,
    /// Damage it could not repair, in redb's words.
    Damaged(String),
}

/// The records copied out, by kind.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Copied {
    pub tasks: u64,
    pub messages: u64,
    pub plan_revisions: u64,
    pub waits: u64,
    pub events: u64,
}

/// The outcome of [`examine`].
#[derive(Debug)]
pub struct Checkup {
    pub integrity: Integrity,
    /// Writes applied from the journal before the copy (acknowledged, not yet in the file).
    pub from_journal: u64,
    /// What was wrong with the journal, and where it was set aside.
    pub journal: JournalCheck,
    pub copied: Copied,
    /// One line per record or table that could not be read.
    pub unreadable: Vec<String>,
}

/// The write journal, as the doctor found it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct JournalCheck {
    /// The damage, in words: writes after the last one replayed may be lost.
    pub damage: Option<String>,
    /// Where the damaged journal was set aside (a new one took its place).
    pub set_aside: Option<std::path::PathBuf>,
}

impl Checkup {
    pub fn is_healthy(&self) -> bool {
        self.integrity == Integrity::Sound
            && self.unreadable.is_empty()
            && self.journal.damage.is_none()
    }
}

/// Examines the database at `path` and writes what can be read to `rescue`.
pub fn examine(path: &Path, rescue: &mut dyn Write) -> Result<Checkup, StorageError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() == 0 => {
            return Err(StorageError::Empty {
                path: path.to_owned(),
            });
        }
        Ok(_) => {}
        Err(source) => {
            return Err(StorageError::DataFolder {
                path: path.to_owned(),
                source,
            });
        }
    }
    let opened = match guarded(|| Database::builder().open(path)) {
        Ok(opened) => opened,
        // Damaged where redb looks first: nothing can be read through it.
        Err(panic) => {
            return Ok(Checkup {
                integrity: Integrity::Damaged(panic.clone()),
                from_journal: 0,
                journal: JournalCheck::default(),
                copied: Copied::default(),
                unreadable: vec![format!("the whole file (it does not open): {panic}")],
            });
        }
    };
    let mut db = opened.map_err(|source| match source {
        redb::DatabaseError::DatabaseAlreadyOpen => StorageError::Locked {
            path: path.to_owned(),
        },
        source => StorageError::Open {
            path: path.to_owned(),
            source,
        },
    })?;
    let integrity = match guarded(|| db.check_integrity()) {
        Ok(Ok(true)) => Integrity::Sound,
        Ok(Ok(false)) => Integrity::Repaired,
        Ok(Err(error)) => Integrity::Damaged(error.to_string()),
        Err(panic) => Integrity::Damaged(panic),
    };
    let mut copy = Copy {
        rescue,
        copied: Copied::default(),
        unreadable: Vec::new(),
    };
    let journal_path = crate::journal::path_beside(path);
    let mut from_journal = 0;
    let mut journal = JournalCheck::default();
    if !matches!(integrity, Integrity::Damaged(_)) {
        match guarded(|| crate::store::salvage_journal(&db, &journal_path)) {
            Ok(Ok(salvage)) => {
                from_journal = salvage.replayed;
                journal = JournalCheck {
                    damage: salvage.damage,
                    set_aside: salvage.set_aside,
                };
            }
            Ok(Err(error)) => copy.unreadable.push(format!("the write journal: {error}")),
            Err(panic) => copy.unreadable.push(format!("the write journal: {panic}")),
        }
    }
    match guarded(|| db.begin_read()) {
        Ok(Ok(txn)) => copy.everything(&txn)?,
        Ok(Err(error)) => copy.unreadable.push(format!("the whole file: {error}")),
        Err(panic) => copy.unreadable.push(format!("the whole file: {panic}")),
    }
    Ok(Checkup {
        integrity,
        from_journal,
        journal,
        copied: copy.copied,
        unreadable: copy.unreadable,
    })
}

/// Runs `read`, turning a panic into its message.
fn guarded<T>(read: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(read)).map_err(|payload| panic_text(&*payload))
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a damaged page".to_owned())
}

struct Copy<'a> {
    rescue: &'a mut dyn Write,
    copied: Copied,
    unreadable: Vec<String>,
}

/// One table's entries as (key text, value bytes), as far as they can be read.
type Entries = Vec<(String, Vec<u8>)>;

impl Copy<'_> {
    fn everything(&mut self, txn: &ReadTransaction) -> Result<(), StorageError> {
        let tasks = self.entries("tasks", || {
            let table = txn.open_table(TASKS)?;
            collect(table.iter()?, |key: &str| key.to_owned())
        });
        for (id, bytes) in &tasks {
            if self.record::<TaskRecord>("task", id, bytes)? {
                self.copied.tasks += 1;
            }
            let messages = self.entries(&format!("the messages of {id}"), || {
                let table = txn.open_table(MESSAGES)?;
                collect(
                    table.range((id.as_str(), 0)..=(id.as_str(), u64::MAX))?,
                    |(task, seq): (&str, u64)| format!("{task}#{seq}"),
                )
            });
            for (key, bytes) in &messages {
                if self.record::<MessageRecord>("message", key, bytes)? {
                    self.copied.messages += 1;
                }
            }
            let revisions = self.entries(&format!("the plan revisions of {id}"), || {
                let table = txn.open_table(PLAN_REVISIONS)?;
                collect(
                    table.range((id.as_str(), 0)..=(id.as_str(), u32::MAX))?,
                    |(task, number): (&str, u32)| format!("{task}#{number}"),
                )
            });
            for (key, bytes) in &revisions {
                if self.record::<PlanRevisionRecord>("plan_revision", key, bytes)? {
                    self.copied.plan_revisions += 1;
                }
            }
        }
        let waits = self.entries("waits", || {
            let table = txn.open_table(WAITS)?;
            collect(table.iter()?, |key: &str| key.to_owned())
        });
        for (key, bytes) in &waits {
            if self.record::<WaitRecord>("wait", key, bytes)? {
                self.copied.waits += 1;
            }
        }
        let events = self.entries("events", || {
            let table = txn.open_table(EVENTS)?;
            collect(table.iter()?, |seq: u64| seq.to_string())
        });
        for (key, bytes) in &events {
            if self.record::<EventRecord>("event", key, bytes)? {
                self.copied.events += 1;
            }
        }
        Ok(())
    }

    /// Reads a table's entries; what could not be read is listed, what could is kept.
    fn entries(
        &mut self,
        what: &str,
        read: impl FnOnce() -> Result<(Entries, Option<String>), redb::Error>,
    ) -> Entries {
        match guarded(read) {
            Ok(Ok((entries, None))) => entries,
            Ok(Ok((entries, Some(problem)))) => {
                self.unreadable.push(format!(
                    "{what}, after {} records: {problem}",
                    entries.len()
                ));
                entries
            }
            Ok(Err(redb::Error::TableDoesNotExist(_))) => Vec::new(),
            Ok(Err(error)) => {
                self.unreadable.push(format!("{what}: {error}"));
                Vec::new()
            }
            Err(panic) => {
                self.unreadable.push(format!("{what}: {panic}"));
                Vec::new()
            }
        }
    }

    /// Decodes one record and writes it out; false (and listed) when it does not decode.
    fn record<T: Versioned + Serialize>(
        &mut self,
        kind: &str,
        key: &str,
        bytes: &[u8],
    ) -> Result<bool, StorageError> {
        let record = match T::decode(bytes) {
            Ok(record) => record,
            Err(error) => {
                self.unreadable.push(format!("{kind} {key}: {error}"));
                return Ok(false);
            }
        };
        let line = serde_json::json!({"kind": kind, "key": key, "record": record});
        writeln!(self.rescue, "{line}").map_err(|source| StorageError::DataFolder {
            path: "the rescue file".into(),
            source,
        })?;
        Ok(true)
    }
}

/// Collects an iterator's entries until it ends or fails (a panic on a damaged page is
/// caught by the caller, which keeps nothing of this table then).
fn collect<'a, K, I>(
    iterator: I,
    key_text: impl Fn(K::SelfType<'_>) -> String,
) -> Result<(Entries, Option<String>), redb::Error>
where
    K: redb::Key + 'static,
    I: Iterator<
        Item = Result<
            (
                redb::AccessGuard<'a, K>,
                redb::AccessGuard<'a, &'static [u8]>,
            ),
            redb::StorageError,
        >,
    >,
{
    let mut entries = Vec::new();
    for entry in iterator {
        match entry {
            Ok((key, value)) => entries.push((key_text(key.value()), value.value().to_vec())),
            Err(error) => return Ok((entries, Some(error.to_string()))),
        }
    }
    Ok((entries, None))
}
