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
//! The file (`lookout.journal` beside `lookout.redb`) is [`JOURNAL_BYTES`] long, zero-filled
//! once so that a record overwrites blocks that exist (a sync writes data, not file size).
//! Records lie back to back from offset 0: `LKJ1`, the payload's length (u32), the record's
//! sequence number (u64), a CRC-32 of the three before it and the payload (u32), the payload.
//! Each record's number is one more than the one before, and redb keeps the number of the
//! last record it applied (`journal_seq` in the meta table) in the same transaction as the
//! writes. Replay reads from the beginning and stops at the first record that is torn (its
//! CRC fails), left from before the last restart (not the next number) or absent (zeros).
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
use crate::store::{Mutation, WriteBatch};

/// The journal file's length: room for a group of writes far larger than any one call makes.
pub const JOURNAL_BYTES: u64 = 4 * 1024 * 1024;
/// Records between checkpoints: redb cannot reuse the pages freed by commits that are not
/// synced until a synced one, so this bounds how far the file grows meanwhile (about ten
/// pages per record) and how much a start replays.
pub const CHECKPOINT_RECORDS: u64 = 128;
/// Journal bytes after which a checkpoint is due whatever the count.
const CHECKPOINT_BYTES: u64 = JOURNAL_BYTES / 4;

const MAGIC: [u8; 4] = *b"LKJ1";
const HEADER_BYTES: u64 = 20;

/// Where the journal of the database at `db_path` is: `lookout.journal` for `lookout.redb`.
pub fn path_beside(db_path: &Path) -> PathBuf {
    db_path.with_extension("journal")
}

/// The journal file at `path`, created (0600) if missing, as the backend [`Journal::open`]
/// takes; the fault harness wraps the same file in its own backend instead.
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

/// The journal file and where its next record goes.
pub(crate) struct Journal {
    file: Box<dyn StorageBackend>,
    /// Where the next record starts.
    end: u64,
    /// Records since the last checkpoint.
    records: u64,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("end", &self.end)
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}

/// A record read back: its number and its writes.
pub(crate) struct Replayed {
    pub seq: u64,
    pub batch: WriteBatch,
}

impl Journal {
    /// Takes the file (zero-filling it to [`JOURNAL_BYTES`] and syncing it when shorter) and
    /// returns the journal with the records it holds, oldest first; the next record goes after
    /// them until [`Journal::restart`].
    /// A record whose CRC holds but whose writes do not decode (written by a newer lookout)
    /// fails the open rather than being dropped: its caller was told it is saved.
    pub(crate) fn open(
        file: Box<dyn StorageBackend>,
        path: &Path,
    ) -> Result<(Journal, Vec<Replayed>), StorageError> {
        let length = file.len().map_err(io_error)?;
        if length < JOURNAL_BYTES {
            let zeros = vec![0; usize::try_from(JOURNAL_BYTES - length).map_err(io_error)?];
            file.write(length, &zeros).map_err(io_error)?;
            file.sync_data().map_err(io_error)?;
        }
        let mut journal = Journal {
            file,
            end: 0,
            records: 0,
        };
        let mut replayed: Vec<Replayed> = Vec::new();
        while let Some((seq, payload, next)) = journal.read_record(journal.end)? {
            if replayed.last().is_some_and(|last| seq != last.seq + 1) {
                break;
            }
            let Some(batch) = decode(&payload) else {
                return Err(StorageError::JournalUnreadable {
                    path: path.to_owned(),
                    seq,
                });
            };
            replayed.push(Replayed { seq, batch });
            journal.end = next;
            journal.records += 1;
        }
        Ok((journal, replayed))
    }

    /// The record at `offset` and where the next one starts; `None` where none is whole.
    fn read_record(&self, offset: u64) -> Result<Option<(u64, Vec<u8>, u64)>, StorageError> {
        if offset + HEADER_BYTES > JOURNAL_BYTES {
            return Ok(None);
        }
        let mut header = [0; HEADER_BYTES as usize];
        self.file.read(offset, &mut header).map_err(io_error)?;
        let (magic, rest) = header.split_at(4);
        if magic != MAGIC {
            return Ok(None);
        }
        let length = u64::from(u32::from_le_bytes(rest[0..4].try_into().expect("4 bytes")));
        let seq = u64::from_le_bytes(rest[4..12].try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(rest[12..16].try_into().expect("4 bytes"));
        let next = offset + HEADER_BYTES + length;
        if next > JOURNAL_BYTES {
            return Ok(None);
        }
        let mut payload = vec![0; usize::try_from(length).map_err(io_error)?];
        self.file
            .read(offset + HEADER_BYTES, &mut payload)
            .map_err(io_error)?;
        if checksum(&header[..16], &payload) != crc {
            return Ok(None);
        }
        Ok(Some((seq, payload, next)))
    }

    /// Whether a record of `payload` bytes fits after the ones already written.
    pub(crate) fn has_room_for(&self, payload: usize) -> bool {
        self.end + HEADER_BYTES + payload as u64 <= JOURNAL_BYTES
    }

    /// Whether a record of `payload` bytes fits in an empty journal at all.
    pub(crate) fn can_hold(payload: usize) -> bool {
        HEADER_BYTES + payload as u64 <= JOURNAL_BYTES
    }

    /// Writes record `seq` and syncs it: when this returns `Ok`, the record survives a crash.
    /// The caller checked [`Journal::has_room_for`].
    pub(crate) fn append(&mut self, seq: u64, payload: &[u8]) -> Result<(), StorageError> {
        let length = u32::try_from(payload.len()).map_err(io_error)?;
        let mut record = Vec::with_capacity(HEADER_BYTES as usize + payload.len());
        record.extend_from_slice(&MAGIC);
        record.extend_from_slice(&length.to_le_bytes());
        record.extend_from_slice(&seq.to_le_bytes());
        let crc = checksum(&record, payload);
        record.extend_from_slice(&crc.to_le_bytes());
        record.extend_from_slice(payload);
        self.file.write(self.end, &record).map_err(io_error)?;
        self.file.sync_data().map_err(io_error)?;
        self.end += record.len() as u64;
        self.records += 1;
        Ok(())
    }

    /// Whether the file should catch up now (see [`CHECKPOINT_RECORDS`]).
    pub(crate) fn checkpoint_due(&self) -> bool {
        self.records >= CHECKPOINT_RECORDS || self.end >= CHECKPOINT_BYTES
    }

    /// Records since the last checkpoint.
    pub(crate) fn records(&self) -> u64 {
        self.records
    }

    /// After a durable redb commit: every record is in the file, so the next one goes to the
    /// beginning (the older ones left behind it carry lower numbers, so replay stops there).
    pub(crate) fn restart(&mut self) {
        self.end = 0;
        self.records = 0;
    }
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
mod tests {
    use super::*;
    use crate::model::Timestamp;

    fn journal_in(dir: &Path) -> (Journal, Vec<Replayed>) {
        let path = dir.join("test.journal");
        Journal::open(file_at(&path).unwrap(), &path).unwrap()
    }

    /// A commit that raises the task counter to `n`: payloads of one size for every `n`.
    fn raise(n: u64) -> Vec<u8> {
        let mut batch = WriteBatch::new();
        batch.push(Mutation::RaiseCounter {
            counter: Counter::TaskSequence,
            at_least: n,
        });
        encode(&[batch])
    }

    fn seqs(replayed: &[Replayed]) -> Vec<u64> {
        replayed.iter().map(|record| record.seq).collect()
    }

    #[test]
    fn records_replay_in_order_with_their_writes() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, replayed) = journal_in(dir.path());
        assert!(replayed.is_empty(), "a new journal is zeros");
        for n in 1..=3 {
            journal.append(n, &raise(n * 10)).unwrap();
        }
        drop(journal);
        let (journal, replayed) = journal_in(dir.path());
        assert_eq!(seqs(&replayed), [1, 2, 3]);
        assert_eq!(
            replayed[2].batch.mutations,
            [Mutation::RaiseCounter {
                counter: Counter::TaskSequence,
                at_least: 30
            }]
        );
        assert_eq!(journal.records(), 3, "the next record goes after them");
    }

    #[test]
    fn replay_stops_at_a_torn_record_and_at_records_left_from_before_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, _) = journal_in(dir.path());
        for n in 1..=4 {
            journal.append(n, &raise(n)).unwrap();
        }
        // After a checkpoint the next record overwrites record 1; records 2..4 stay behind it,
        // whole and with good checksums, but not numbered next.
        journal.restart();
        journal.append(5, &raise(5)).unwrap();
        drop(journal);
        let (mut journal, replayed) = journal_in(dir.path());
        assert_eq!(seqs(&replayed), [5]);
        journal.append(6, &raise(6)).unwrap();
        journal.append(7, &raise(7)).unwrap();
        drop(journal);
        // A torn write: one byte of record 6's payload never reached the disk.
        let path = dir.path().join("test.journal");
        let mut bytes = std::fs::read(&path).unwrap();
        let record = HEADER_BYTES as usize + raise(5).len();
        bytes[record + HEADER_BYTES as usize + 1] ^= 0xff;
        std::fs::write(&path, bytes).unwrap();
        let (_, replayed) = journal_in(dir.path());
        assert_eq!(seqs(&replayed), [5], "stops before the torn record");
    }

    #[test]
    fn every_mutation_comes_back_as_it_was_logged() {
        let task = crate::testkit::deploy_task(&["Build", "Deploy"], &[1]);
        let message = crate::model::MessageRecord {
            role: crate::model::Role::Agent,
            msg_type: crate::model::MsgType::Text,
            content: "Step 1 done".into(),
            created_at: Timestamp::from_secs(1_771_000_000),
        };
        let mut batch = WriteBatch::new();
        batch
            .push(Mutation::AppendMessage {
                task_id: task.id.clone(),
                seq: 7,
                message,
            })
            .push(Mutation::PutTask(task));
        for counter in Counter::ALL {
            batch.push(Mutation::AddToCounter { counter, by: 2 });
        }
        assert_eq!(decode(&encode(&[batch.clone()])), Some(batch));
    }
}
