//! Table definitions, the schema version, and the migrations `Store::open` runs.
//!
//! A migration moves the file from version N-1 to N inside the same write transaction that
//! stamps the new version, so a crash mid-migration leaves the old version intact.

use redb::{ReadableTable, TableDefinition, WriteTransaction};

use crate::StorageError;
use crate::codec::Versioned;
use crate::model::Status;

/// Counters and the schema version.
pub(crate) const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// Task id → task record envelope.
pub(crate) const TASKS: TableDefinition<&str, &[u8]> = TableDefinition::new("tasks");
/// (task id, seq) → message envelope. Seq counts from 1 per task.
pub(crate) const MESSAGES: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("messages");
/// (task id, revision) → plan revision envelope. Revisions count from 1 per task.
pub(crate) const PLAN_REVISIONS: TableDefinition<(&str, u32), &[u8]> =
    TableDefinition::new("plan_revisions");
/// (status code, updated_at millis, task id) → (). Lists tasks of one status newest first
/// and gives the stuck scan the active tasks ordered by last update without reading them.
pub(crate) const TASKS_BY_STATUS: TableDefinition<(u8, u64, &str), ()> =
    TableDefinition::new("tasks_by_status");
/// (updated_at millis, task id) → StuckInfo envelope, for active tasks with no live wait
/// only: the stuck scan reads this and nothing else. Since schema version 2.
pub(crate) const STUCK_CANDIDATES: TableDefinition<(u64, &str), &[u8]> =
    TableDefinition::new("stuck_candidates");
/// Event seq → event envelope: the durable wake outbox. Since schema version 2.
pub(crate) const EVENTS: TableDefinition<u64, &[u8]> = TableDefinition::new("events");
/// Seqs of events some sink still has to deliver. Since schema version 2.
pub(crate) const EVENTS_PENDING: TableDefinition<u64, ()> = TableDefinition::new("events_pending");
/// Wait id → wait envelope. Since schema version 3.
pub(crate) const WAITS: TableDefinition<&str, &[u8]> = TableDefinition::new("waits");
/// Ids of the waits still watching: what a restarted daemon resumes. Since schema version 3.
pub(crate) const WAITS_LIVE: TableDefinition<&str, ()> = TableDefinition::new("waits_live");
/// (task id, wait id) → (): the waits each task launched, live or ended, so reading one task
/// whole does not walk every wait. Since schema version 5.
pub(crate) const WAITS_BY_TASK: TableDefinition<(&str, &str), ()> =
    TableDefinition::new("waits_by_task");

pub(crate) const SCHEMA_VERSION_KEY: &str = "schema_version";
/// The number of the last journal record applied to this file (`journal.rs`).
pub(crate) const JOURNAL_SEQ_KEY: &str = "journal_seq";
/// Set once the file was paired with a journal that has a header: from then on a missing or
/// zeroed journal is damage, unless the last run shut down cleanly.
pub(crate) const JOURNAL_PAIRED_KEY: &str = "journal_paired";
/// Set by the checkpoint of a clean shutdown, cleared when the file is opened again.
pub(crate) const SHUTDOWN_CLEAN_KEY: &str = "shutdown_clean";

/// The version this build writes. Bump it together with a new entry in [`MIGRATIONS`].
pub const SCHEMA_VERSION: u64 = 5;

/// The meta key counting the tasks of `status`, kept in the transaction that changes a
/// task's status so `daemon.status` reads five numbers instead of walking the status
/// index. Since schema version 4.
pub(crate) fn status_count_key(status: Status) -> &'static str {
    match status {
        Status::Active => "tasks_active",
        Status::Paused => "tasks_paused",
        Status::Completed => "tasks_completed",
        Status::Failed => "tasks_failed",
        Status::Cancelled => "tasks_cancelled",
    }
}

/// Monotonic counters kept in the meta table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// Tasks ever registered: the next task id is derived from it.
    TaskSequence,
    /// Wake events ever created: the next event seq.
    EventSequence,
    /// Deliveries that gave up after the last attempt, ever.
    DeadDeliveries,
    /// Deliveries a sink refused for good, ever.
    RejectedDeliveries,
    /// Waits ever created: the next wait id is derived from it.
    WaitSequence,
    /// Where this database's id sequences start (task and wait ids): random for a database
    /// that had made no id when it got one, so two installs never hand out the same ids;
    /// 0 (absent) for one that had, so its ids stay unique.
    IdSeed,
}

impl Counter {
    pub(crate) const ALL: [Counter; 6] = [
        Counter::TaskSequence,
        Counter::EventSequence,
        Counter::DeadDeliveries,
        Counter::RejectedDeliveries,
        Counter::WaitSequence,
        Counter::IdSeed,
    ];

    /// The counter stored under `key` (the journal names counters by their keys).
    pub(crate) fn from_key(key: &str) -> Option<Counter> {
        Counter::ALL
            .into_iter()
            .find(|counter| counter.key() == key)
    }

    pub(crate) fn key(self) -> &'static str {
        match self {
            Counter::TaskSequence => "task_sequence",
            Counter::EventSequence => "event_sequence",
            Counter::DeadDeliveries => "dead_deliveries",
            Counter::RejectedDeliveries => "rejected_deliveries",
            Counter::WaitSequence => "wait_sequence",
            Counter::IdSeed => "id_seed",
        }
    }
}

struct Migration {
    to_version: u64,
    run: fn(&WriteTransaction) -> Result<(), StorageError>,
}

const MIGRATIONS: &[Migration] = &[
    Migration {
        to_version: 1,
        run: create_version_1,
    },
    Migration {
        to_version: 2,
        run: add_stuck_index_and_outbox,
    },
    Migration {
        to_version: 3,
        run: add_waits,
    },
    Migration {
        to_version: 4,
        run: count_tasks_by_status,
    },
    Migration {
        to_version: 5,
        run: index_waits_by_task,
    },
];

/// Version 5: the waits of each task, indexed from the waits already stored.
fn index_waits_by_task(txn: &WriteTransaction) -> Result<(), StorageError> {
    let waits = txn.open_table(WAITS)?;
    let mut by_task = txn.open_table(WAITS_BY_TASK)?;
    for entry in waits.iter()? {
        let (key, value) = entry?;
        let wait = crate::store::decode_wait(key.value(), value.value())?;
        if let Some(task_id) = &wait.task_id {
            by_task.insert((task_id.as_str(), wait.id.as_str()), ())?;
        }
    }
    Ok(())
}

/// Version 4: the per-status task counts, counted once from the status index.
fn count_tasks_by_status(txn: &WriteTransaction) -> Result<(), StorageError> {
    let counts = walk_status_index(&txn.open_table(TASKS_BY_STATUS)?)?;
    let mut meta = txn.open_table(META)?;
    for (status, count) in counts {
        meta.insert(status_count_key(status), count)?;
    }
    Ok(())
}

/// Counts the status index's entries of each status, in [`Status::ALL`] order: the slow
/// way, for the migration and for checking the kept counts.
pub(crate) fn walk_status_index(
    index: &impl ReadableTable<(u8, u64, &'static str), ()>,
) -> Result<Vec<(Status, u64)>, StorageError> {
    let mut counts = Vec::with_capacity(Status::ALL.len());
    for status in Status::ALL {
        let code = status.index_code();
        let count = index.range((code, 0, "")..(code + 1, 0, ""))?.count() as u64;
        counts.push((status, count));
    }
    Ok(counts)
}

/// Version 3: smart waits.
fn add_waits(txn: &WriteTransaction) -> Result<(), StorageError> {
    txn.open_table(WAITS)?;
    txn.open_table(WAITS_LIVE)?;
    Ok(())
}

fn create_version_1(txn: &WriteTransaction) -> Result<(), StorageError> {
    txn.open_table(META)?;
    txn.open_table(TASKS)?;
    txn.open_table(MESSAGES)?;
    txn.open_table(PLAN_REVISIONS)?;
    txn.open_table(TASKS_BY_STATUS)?;
    Ok(())
}

/// Version 2: the stuck-candidate index, built from the tasks already stored, and the
/// wake outbox.
fn add_stuck_index_and_outbox(txn: &WriteTransaction) -> Result<(), StorageError> {
    let tasks = txn.open_table(TASKS)?;
    let mut candidates = txn.open_table(STUCK_CANDIDATES)?;
    for entry in tasks.iter()? {
        let (key, value) = entry?;
        let task = crate::store::decode_task(key.value(), value.value())?;
        if task.is_stuck_candidate() {
            let info = task.stuck_info().encode();
            candidates.insert(
                (task.updated_at.as_millis(), task.id.as_str()),
                info.as_slice(),
            )?;
        }
    }
    txn.open_table(EVENTS)?;
    txn.open_table(EVENTS_PENDING)?;
    Ok(())
}

/// Brings the file to [`SCHEMA_VERSION`]; returns the version found before (0 for a new file).
pub(crate) fn migrate(txn: &WriteTransaction, path: &std::path::Path) -> Result<u64, StorageError> {
    let found = {
        let meta = txn.open_table(META)?;
        meta.get(SCHEMA_VERSION_KEY)?
            .map(|guard| guard.value())
            .unwrap_or(0)
    };
    if found > SCHEMA_VERSION {
        return Err(StorageError::NewerSchema {
            path: path.to_owned(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    for migration in MIGRATIONS.iter().filter(|m| m.to_version > found) {
        (migration.run)(txn)?;
        txn.open_table(META)?
            .insert(SCHEMA_VERSION_KEY, migration.to_version)?;
    }
    seed_ids(txn)?;
    Ok(found)
}

/// Gives a database that has made no task or wait id yet its own random id seed.
fn seed_ids(txn: &WriteTransaction) -> Result<(), StorageError> {
    let mut meta = txn.open_table(META)?;
    let made_ids = [
        Counter::IdSeed,
        Counter::TaskSequence,
        Counter::WaitSequence,
    ]
    .into_iter()
    .map(|counter| meta.get(counter.key()).map(|value| value.is_some()))
    .collect::<Result<Vec<bool>, _>>()?;
    if !made_ids.contains(&true) {
        meta.insert(Counter::IdSeed.key(), crate::model::random_id_seed())?;
    }
    Ok(())
}
