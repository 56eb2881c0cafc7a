//! The write journal: one small synced record per commit instead of redb's scattered pages.
//!
//! redb makes a commit durable by writing every page it changed and syncing them: for one
//! `task_update`, the task record, the status and stuck indexes, the thread, both table trees,
//! the freed-page list and the header — about ten pages spread over the file, whose sync costs
//! a virtual disk two to three times a one-page sync (BENCHMARKS.md). So each commit is
//! appended here as one record and synced, and applied to redb in a commit that is not synced;
//! every [`CHECKPOINT_RECORDS`] records (or when the next record does not fit) a durable redb
//! commit makes the file catch up and the journal starts again from its beginning. Opening the
//! store replays the records the file has not caught up with (`Store::open`), so a write whose
//! caller was told it is saved survives a crash either way.
//!
//! The file (`lookout.journal` beside `lookout.redb`) grows to [`JOURNAL_BYTES`] at most, in
//! zero-filled steps of [`GROWTH`] as records need them, so that a record almost always
//! overwrites blocks that exist (a sync writes data, not file size) while a journal on a small
//! volume takes only what its records use (a checkpoint is due after a quarter of the most).
//! Its first block is a header: `LKJH`, the format (2), the *base* — the number of the last
//! record the database file held durably when this generation of records began — and a
//! CRC-32; it is written and synced when the journal is made and at every checkpoint. Records
//! lie back to back from [`RECORDS_AT`]: `LKJ1`, the payload's length (u32), the record's
//! number (u64), a CRC-32 of the three before it and the payload (u32), the payload. Records
//! are numbered from base + 1 on, one more each; redb keeps the number of the last record it
//! applied (`journal_seq` in the meta table) in the same transaction as the writes.
//!
//! **Damage is never replayed past silently.** Reading stops at the end of the generation:
//! zeros, or a record left from an earlier generation (numbered at or below the base). A
//! record that does not read is a torn tail (the last write, cut by a crash) only when no
//! readable record of this generation follows it; otherwise it is damage. So is a gap in the
//! numbers, a base beyond what the database holds (the database is older than its journal),
//! and a journal that is missing, empty, zeroed or not a regular file when the database was
//! paired with one and did not shut down cleanly. Damage refuses the open
//! ([`StorageError::JournalDamaged`]) and touches no file; `lookout doctor` salvages it
//! ([`salvage`]). A journal of the first format (records from offset 0, no header) is read
//! once and rewritten in this one.
//!
//! The payload is the commit's mutations, each record in its own versioned encoding
//! ([`Versioned`]) inside an envelope whose first byte is the journal format's version, so a
//! journal written by this version replays in a later one.

use std::io;
use std::path::{Path, PathBuf};

use redb::StorageBackend;
use redb::backends::FileBackend;
use serde::{Deserialize, Serialize};

use crate::codec::Versioned;
use crate::error::StorageError;
use crate::model::{
    EventRecord, MessageRecord, PlanRevisionRecord, TaskId, TaskRecord, WaitRecord,
};
use crate::schema::Counter;
use crate::space;
use crate::store::{Mutation, WriteBatch};

/// The journal file's largest length: room for a group of writes far larger than any one
/// call makes.
pub const JOURNAL_BYTES: u64 = 4 * 1024 * 1024;
/// What the journal grows by when a record needs more room: zero-filled and synced with
/// that record.
pub const GROWTH: u64 = 64 * 1024;
/// Where the first record goes: the header has the first block to itself.
pub const RECORDS_AT: u64 = 4096;
/// Records between checkpoints: redb cannot reuse the pages freed by commits that are not
/// synced until a synced one, so this bounds how far the file grows meanwhile (about ten
/// pages per record) and how much a start replays.
pub const CHECKPOINT_RECORDS: u64 = 128;
/// Journal bytes after which a checkpoint is due whatever the count.
const CHECKPOINT_BYTES: u64 = JOURNAL_BYTES / 4;

const MAGIC: [u8; 4] = *b"LKJ1";
const HEADER_MAGIC: [u8; 4] = *b"LKJH";
const FORMAT: u32 = 2;
const RECORD_HEADER_BYTES: u64 = 20;
const FILE_HEADER_BYTES: usize = 20;

/// Where the journal of the database at `path` is: `lookout.journal` for `lookout.redb`.
pub fn path_beside(db_path: &Path) -> PathBuf {
    db_path.with_extension("journal")
}

/// What the database file says about its journal, read before it is opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// The number of the last record the file holds (`journal_seq`).
    pub applied: u64,
    /// The file was paired with a journal of this format (a header was written for it).
    pub paired: bool,
    /// The last run shut down cleanly: every record was in the file when it stopped.
    pub clean: bool,
}

/// Whether the journal at `path` is there, refusing anything but a regular file (a symlink is
/// never followed: its target would be chmodded, grown and overwritten).
pub(crate) fn presence(path: &Path, facts: Facts) -> Result<bool, StorageError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() => Ok(true),
        Ok(meta) => {
            let kind = if meta.file_type().is_symlink() {
                "a symbolic link"
            } else if meta.is_dir() {
                "a folder"
            } else {
                "not a regular file"
            };
            Err(damaged(path, format!("it is {kind}"), facts))
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            if facts.paired && !facts.clean {
                return Err(damaged(path, "it is missing".to_owned(), facts));
            }
            Ok(false)
        }
        Err(source) => Err(open_error(path, source)),
    }
}

/// The journal file at `path`, created (0600) if missing, as the backend [`Journal::open`]
/// takes; the fault harness wraps the same file in its own backend instead. [`presence`]
/// checked it is a regular file (or missing) first.
pub(crate) fn file_at(path: &Path) -> Result<Box<dyn StorageBackend>, StorageError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map_err(|source| open_error(path, source))?;
    let backend = FileBackend::new(file).map_err(|source| StorageError::Open {
        path: path.to_owned(),
        source,
    })?;
    Ok(Box::new(backend))
}

/// The journal at `path` could not be opened.
pub(crate) fn open_error(path: &Path, source: io::Error) -> StorageError {
    StorageError::Open {
        path: path.to_owned(),
        source: source.into(),
    }
}

/// The journal at `path` is damaged this way.
fn damaged(path: &Path, what: String, facts: Facts) -> StorageError {
    StorageError::JournalDamaged {
        path: path.to_owned(),
        what,
        applied: facts.applied,
    }
}

/// The journal file and where its next record goes.
pub(crate) struct Journal {
    file: Box<dyn StorageBackend>,
    path: PathBuf,
    /// The file's length: records are written below it.
    allocated: u64,
    /// The base its header holds: the records go on from base + 1.
    base: u64,
    /// Where the next record starts.
    end: u64,
    /// Records since the last checkpoint.
    records: u64,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("base", &self.base)
            .field("end", &self.end)
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}

/// A record read back: its number and its writes.
#[derive(Debug)]
pub(crate) struct Replayed {
    pub seq: u64,
    pub batch: WriteBatch,
}

/// What one look at an offset found.
enum Found {
    /// A record that reads: its number, its payload, where the next one starts.
    Record(u64, Vec<u8>, u64),
    /// Zeros: nothing was ever written here.
    Nothing,
    /// Something that is not a whole record.
    Unreadable,
}

/// What reading the journal gave: the records of its generation that read, oldest first,
/// and, when it stopped at damage, what the damage is.
pub(crate) struct Reading {
    pub records: Vec<Replayed>,
    pub damage: Option<String>,
}

impl Journal {
    /// Takes the file and returns the journal with the records it holds that `facts.applied`
    /// does not, oldest first; the next record goes after them until [`Journal::restart`].
    /// Damage fails the open with [`StorageError::JournalDamaged`] and changes nothing.
    /// A record whose CRC holds but whose writes do not decode (written by a newer lookout)
    /// fails it too: its caller was told it is saved.
    /// The file is not written to before [`Journal::prepare`].
    pub(crate) fn open(
        file: Box<dyn StorageBackend>,
        path: &Path,
        facts: Facts,
        existed: bool,
    ) -> Result<(Journal, Vec<Replayed>), StorageError> {
        let (journal, reading) = Self::read(file, path, facts, existed)?;
        if let Some(what) = reading.damage {
            return Err(damaged(path, what, facts));
        }
        Ok((journal, reading.records))
    }

    /// Reads the journal without changing it: the records that read and any damage.
    fn read(
        file: Box<dyn StorageBackend>,
        path: &Path,
        facts: Facts,
        existed: bool,
    ) -> Result<(Journal, Reading), StorageError> {
        let length = file.len().map_err(io_error)?;
        let mut journal = Journal {
            file,
            path: path.to_owned(),
            allocated: length,
            base: facts.applied,
            end: RECORDS_AT,
            records: 0,
        };
        let first = journal.look(0)?;
        let header = journal.header()?;
        // Nothing there: fine for a database never paired with a journal (new, or from
        // before the journal) or one that shut down cleanly; damage otherwise.
        let absent =
            !existed || length == 0 || (header.is_none() && matches!(first, Found::Nothing));
        if absent {
            let damage = (facts.paired && !facts.clean).then(|| {
                if !existed {
                    "it is missing".to_owned()
                } else if length == 0 {
                    "it is empty".to_owned()
                } else {
                    "it is zeroed (no header, no records)".to_owned()
                }
            });
            return Ok((
                journal,
                Reading {
                    records: Vec::new(),
                    damage,
                },
            ));
        }
        if let Found::Record(..) = first {
            // The first format: records from offset 0, no header.
            return journal.read_first_format(path);
        }
        let Some(base) = header else {
            let damage = (!facts.clean).then(|| "its header does not read".to_owned());
            return Ok((
                journal,
                Reading {
                    records: Vec::new(),
                    damage,
                },
            ));
        };
        journal.base = base;
        if base > facts.applied {
            let damage = format!(
                "it begins after record {base}, but the database holds records up to \
                 {applied} only (the database is older than its journal)",
                applied = facts.applied
            );
            return Ok((
                journal,
                Reading {
                    records: Vec::new(),
                    damage: Some(damage),
                },
            ));
        }
        let mut records: Vec<Replayed> = Vec::new();
        let mut expected = base + 1;
        let damage = loop {
            match journal.look(journal.end)? {
                Found::Record(seq, payload, next) if seq == expected => {
                    let Some(batch) = decode(&payload) else {
                        return Err(StorageError::JournalUnreadable {
                            path: path.to_owned(),
                            seq,
                        });
                    };
                    records.push(Replayed { seq, batch });
                    journal.end = next;
                    journal.records += 1;
                    expected += 1;
                }
                // Left from an earlier generation: the end of this one.
                Found::Record(seq, ..) if seq <= base => break None,
                // Records the database holds already may be missing here: nothing is lost.
                Found::Record(seq, ..) if seq > expected && seq <= facts.applied + 1 => {
                    expected = seq;
                }
                Found::Record(seq, ..) => {
                    break Some(format!(
                        "record {expected} is missing (record {seq} follows record {})",
                        expected - 1
                    ));
                }
                Found::Nothing => break None,
                Found::Unreadable => match journal.later_record(journal.end + 1, expected)? {
                    None => break None,
                    // The database holds every record up to the one that reads again.
                    Some((later, at)) if later <= facts.applied + 1 => {
                        journal.end = at;
                        expected = later;
                    }
                    Some((later, _)) => {
                        break Some(format!(
                            "record {expected} does not read, and record {later} after it does \
                             (not a write cut short by a crash)"
                        ));
                    }
                },
            }
        };
        Ok((journal, Reading { records, damage }))
    }

    /// A journal of the first format: records from offset 0, numbered on from what the
    /// database held at its last checkpoint; read as before (to the first record that does
    /// not follow), then rewritten in this format by the checkpoint after the replay.
    fn read_first_format(mut self, path: &Path) -> Result<(Journal, Reading), StorageError> {
        let mut records: Vec<Replayed> = Vec::new();
        let mut offset = 0;
        while let Found::Record(seq, payload, next) = self.look(offset)? {
            if records.last().is_some_and(|last| seq != last.seq + 1) {
                break;
            }
            let Some(batch) = decode(&payload) else {
                return Err(StorageError::JournalUnreadable {
                    path: path.to_owned(),
                    seq,
                });
            };
            records.push(Replayed { seq, batch });
            offset = next;
        }
        // The header about to be written covers where the old records began.
        self.base = records.first().map_or(self.base, |first| first.seq - 1);
        self.end = RECORDS_AT;
        self.records = 0;
        Ok((
            self,
            Reading {
                records,
                damage: None,
            },
        ))
    }

    /// The number and the offset of the first record of this generation (numbered
    /// `expected` or later) that reads somewhere after `from`: what tells damage from a torn
    /// tail.
    fn later_record(&self, from: u64, expected: u64) -> Result<Option<(u64, u64)>, StorageError> {
        let start = from.max(RECORDS_AT);
        let end = JOURNAL_BYTES.min(self.file.len().map_err(io_error)?);
        if start >= end {
            return Ok(None);
        }
        let mut buffer = vec![0; usize::try_from(end - start).map_err(io_error)?];
        self.file.read(start, &mut buffer).map_err(io_error)?;
        let mut at = 0;
        while let Some(found) = buffer[at..].windows(4).position(|w| w == MAGIC) {
            let offset = start + (at + found) as u64;
            if let Found::Record(seq, ..) = self.look(offset)?
                && seq >= expected
            {
                return Ok(Some((seq, offset)));
            }
            at += found + 1;
        }
        Ok(None)
    }

    /// The base the header holds; `None` when it does not read.
    fn header(&self) -> Result<Option<u64>, StorageError> {
        if self.file.len().map_err(io_error)? < FILE_HEADER_BYTES as u64 {
            return Ok(None);
        }
        let mut header = [0; FILE_HEADER_BYTES];
        self.file.read(0, &mut header).map_err(io_error)?;
        let format = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes"));
        let base = u64::from_le_bytes(header[8..16].try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(header[16..20].try_into().expect("4 bytes"));
        let whole =
            header[..4] == HEADER_MAGIC && format == FORMAT && checksum(&header[..16], &[]) == crc;
        Ok(whole.then_some(base))
    }

    /// Zero-fills the file to its first step ([`RECORDS_AT`] + [`GROWTH`]) when shorter, and
    /// writes the header when it does not hold this journal's base; syncs what it wrote.
    pub(crate) fn prepare(&mut self) -> Result<(), StorageError> {
        let mut wrote = false;
        if self.allocated < RECORDS_AT + GROWTH {
            self.grow_to(RECORDS_AT + GROWTH)?;
            wrote = true;
        }
        if self.header()? != Some(self.base) {
            self.write_header()?;
            wrote = true;
        }
        if wrote {
            self.file.sync_data().map_err(io_error)?;
        }
        Ok(())
    }

    /// Zero-fills the file up to `length` (at most [`JOURNAL_BYTES`]), not synced: the sync of
    /// what is written next covers it. A full disk refuses the write that needed the room
    /// ([`StorageError::DiskFull`]) and changes nothing the journal reads.
    fn grow_to(&mut self, length: u64) -> Result<(), StorageError> {
        let length = length.min(JOURNAL_BYTES);
        if length <= self.allocated {
            return Ok(());
        }
        let zeros = vec![0; usize::try_from(length - self.allocated).map_err(io_error)?];
        match self.file.write(self.allocated, &zeros) {
            Ok(()) => {
                self.allocated = length;
                Ok(())
            }
            // What was zero-filled before the disk filled is zeros: nothing to read, and
            // the next step writes them again.
            Err(error) if space::is_full(&error) => Err(StorageError::DiskFull {
                path: self.path.clone(),
                free: space::free_bytes(&self.path).unwrap_or(0),
                needed: length - self.allocated,
            }),
            Err(error) => Err(io_error(error)),
        }
    }

    fn write_header(&self) -> Result<(), StorageError> {
        let mut header = Vec::with_capacity(FILE_HEADER_BYTES);
        header.extend_from_slice(&HEADER_MAGIC);
        header.extend_from_slice(&FORMAT.to_le_bytes());
        header.extend_from_slice(&self.base.to_le_bytes());
        let crc = checksum(&header, &[]);
        header.extend_from_slice(&crc.to_le_bytes());
        self.file.write(0, &header).map_err(io_error)
    }

    /// What is at `offset`.
    fn look(&self, offset: u64) -> Result<Found, StorageError> {
        if offset + RECORD_HEADER_BYTES > JOURNAL_BYTES
            || offset + RECORD_HEADER_BYTES > self.file.len().map_err(io_error)?
        {
            return Ok(Found::Nothing);
        }
        let mut header = [0; RECORD_HEADER_BYTES as usize];
        self.file.read(offset, &mut header).map_err(io_error)?;
        if header.iter().all(|byte| *byte == 0) {
            return Ok(Found::Nothing);
        }
        let (magic, rest) = header.split_at(4);
        if magic != MAGIC {
            return Ok(Found::Unreadable);
        }
        let length = u64::from(u32::from_le_bytes(rest[0..4].try_into().expect("4 bytes")));
        let seq = u64::from_le_bytes(rest[4..12].try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(rest[12..16].try_into().expect("4 bytes"));
        let next = offset + RECORD_HEADER_BYTES + length;
        if next > JOURNAL_BYTES {
            return Ok(Found::Unreadable);
        }
        let mut payload = vec![0; usize::try_from(length).map_err(io_error)?];
        self.file
            .read(offset + RECORD_HEADER_BYTES, &mut payload)
            .map_err(io_error)?;
        if checksum(&header[..16], &payload) != crc {
            return Ok(Found::Unreadable);
        }
        Ok(Found::Record(seq, payload, next))
    }

    /// Whether a record of `payload` bytes fits after the ones already written.
    pub(crate) fn has_room_for(&self, payload: usize) -> bool {
        self.end + RECORD_HEADER_BYTES + payload as u64 <= JOURNAL_BYTES
    }

    /// Whether a record of `payload` bytes fits in an empty journal at all.
    pub(crate) fn can_hold(payload: usize) -> bool {
        RECORDS_AT + RECORD_HEADER_BYTES + payload as u64 <= JOURNAL_BYTES
    }

    /// Writes record `seq` and syncs it: when this returns `Ok`, the record survives a crash.
    /// The caller checked [`Journal::has_room_for`].
    pub(crate) fn append(&mut self, seq: u64, payload: &[u8]) -> Result<(), StorageError> {
        let length = u32::try_from(payload.len()).map_err(io_error)?;
        let mut record = Vec::with_capacity(RECORD_HEADER_BYTES as usize + payload.len());
        record.extend_from_slice(&MAGIC);
        record.extend_from_slice(&length.to_le_bytes());
        record.extend_from_slice(&seq.to_le_bytes());
        let crc = checksum(&record, payload);
        record.extend_from_slice(&crc.to_le_bytes());
        record.extend_from_slice(payload);
        let needed = self.end + record.len() as u64;
        if needed > self.allocated {
            self.grow_to(needed.next_multiple_of(GROWTH))?;
        }
        self.file.write(self.end, &record).map_err(io_error)?;
        self.file.sync_data().map_err(io_error)?;
        self.end += record.len() as u64;
        self.records += 1;
        Ok(())
    }

    /// Whether the file should catch up now (see [`CHECKPOINT_RECORDS`]).
    pub(crate) fn checkpoint_due(&self) -> bool {
        self.records >= CHECKPOINT_RECORDS || self.end >= RECORDS_AT + CHECKPOINT_BYTES
    }

    /// Records since the last checkpoint.
    pub(crate) fn records(&self) -> u64 {
        self.records
    }

    /// After a durable redb commit that holds every record up to `base`: the next record,
    /// `base + 1`, goes to the beginning; the header says so (written and synced, so a crash
    /// after this reads the new generation). Older records left behind carry lower numbers,
    /// so reading stops there.
    pub(crate) fn restart(&mut self, base: u64) -> Result<(), StorageError> {
        self.end = RECORDS_AT;
        self.records = 0;
        if base != self.base {
            self.base = base;
            self.write_header()?;
            self.file.sync_data().map_err(io_error)?;
        }
        Ok(())
    }
}

/// What `lookout doctor` does with a damaged journal: the records that still read, in order
/// up to the damage, and the damage. The file is not changed; the caller sets it aside.
pub(crate) fn read_damaged(
    file: Box<dyn StorageBackend>,
    path: &Path,
    facts: Facts,
) -> Result<Reading, StorageError> {
    Ok(Journal::read(file, path, facts, true)?.1)
}

/// Where a damaged journal is set aside: `lookout.journal.damaged`, or `.damaged-2`, `-3`…,
/// never a name that is taken.
pub(crate) fn aside_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".damaged");
    let first = PathBuf::from(&name);
    if std::fs::symlink_metadata(&first).is_err() {
        return first;
    }
    (2..)
        .map(|n| {
            let mut numbered = name.clone();
            numbered.push(format!("-{n}"));
            PathBuf::from(numbered)
        })
        .find(|candidate| std::fs::symlink_metadata(candidate).is_err())
        .expect("some number is free")
}

fn checksum(header: &[u8], payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(header);
    hasher.update(payload);
    hasher.finalize()
}

fn io_error(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StorageError {
    StorageError::Redb(redb::Error::Io(io::Error::other(error)))
}

/// The journal format, one variant per version (append only, as in `codec.rs`).
#[derive(Serialize, Deserialize)]
enum Entry {
    V1(Vec<Logged>),
}

/// A [`Mutation`] as the journal keeps it: records in their own versioned encoding.
#[derive(Serialize, Deserialize)]
enum Logged {
    PutTask(Vec<u8>),
    AppendMessage {
        task_id: String,
        seq: u64,
        message: Vec<u8>,
    },
    PutPlanRevision(Vec<u8>),
    RaiseCounter {
        counter: String,
        at_least: u64,
    },
    AddToCounter {
        counter: String,
        by: u64,
    },
    PutEvent(Vec<u8>),
    PutWait(Vec<u8>),
}

/// The payload of the record for a commit of `batches`.
pub(crate) fn encode(batches: &[WriteBatch]) -> Vec<u8> {
    let logged = batches
        .iter()
        .flat_map(|batch| &batch.mutations)
        .map(|mutation| match mutation {
            Mutation::PutTask(task) => Logged::PutTask(task.encode()),
            Mutation::AppendMessage {
                task_id,
                seq,
                message,
            } => Logged::AppendMessage {
                task_id: task_id.as_str().to_owned(),
                seq: *seq,
                message: message.encode(),
            },
            Mutation::PutPlanRevision(revision) => Logged::PutPlanRevision(revision.encode()),
            Mutation::RaiseCounter { counter, at_least } => Logged::RaiseCounter {
                counter: counter.key().to_owned(),
                at_least: *at_least,
            },
            Mutation::AddToCounter { counter, by } => Logged::AddToCounter {
                counter: counter.key().to_owned(),
                by: *by,
            },
            Mutation::PutEvent(event) => Logged::PutEvent(event.encode()),
            Mutation::PutWait(wait) => Logged::PutWait(wait.encode()),
        })
        .collect();
    postcard::to_stdvec(&Entry::V1(logged))
        .expect("postcard encodes plain records into a Vec without error")
}

/// The writes of a record's payload; `None` if any part does not decode.
fn decode(payload: &[u8]) -> Option<WriteBatch> {
    let Entry::V1(logged) = postcard::from_bytes(payload).ok()?;
    let mut batch = WriteBatch::new();
    for entry in logged {
        batch.push(match entry {
            Logged::PutTask(bytes) => Mutation::PutTask(TaskRecord::decode(&bytes).ok()?),
            Logged::AppendMessage {
                task_id,
                seq,
                message,
            } => Mutation::AppendMessage {
                task_id: TaskId::new(task_id),
                seq,
                message: MessageRecord::decode(&message).ok()?,
            },
            Logged::PutPlanRevision(bytes) => {
                Mutation::PutPlanRevision(PlanRevisionRecord::decode(&bytes).ok()?)
            }
            Logged::RaiseCounter { counter, at_least } => Mutation::RaiseCounter {
                counter: Counter::from_key(&counter)?,
                at_least,
            },
            Logged::AddToCounter { counter, by } => Mutation::AddToCounter {
                counter: Counter::from_key(&counter)?,
                by,
            },
            Logged::PutEvent(bytes) => Mutation::PutEvent(EventRecord::decode(&bytes).ok()?),
            Logged::PutWait(bytes) => Mutation::PutWait(WaitRecord::decode(&bytes).ok()?),
        });
    }
    Some(batch)
}

#[cfg(test)]
mod tests;
