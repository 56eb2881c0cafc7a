//! `Store`: the one redb file, the write batches applied to it, and the reads.
//!
//! Everything here is synchronous and blocking; the caller (the Registry actor) runs it on
//! a blocking thread. When `apply` returns `Ok` the batch survives a crash: its record in the
//! write journal is synced (`journal.rs`), and a checkpoint or the next open brings it into
//! the redb file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use redb::{
    Database, Durability, ReadOnlyDatabase, ReadTransaction, ReadableDatabase, ReadableTable,
    ReadableTableMetadata, StorageBackend, WriteTransaction,
};

use crate::StorageError;
use crate::codec::Versioned;
use crate::faults::{FaultyFile, StorageFaults};
use crate::journal::{self, Journal};
use crate::locks::lock;
use crate::model::{
    EventRecord, MessageRecord, PlanRevisionRecord, Status, StuckCandidate, StuckInfo, TaskId,
    TaskRecord, Timestamp, WaitId, WaitRecord,
};
use crate::private;
use crate::schema::{
    self, Counter, EVENTS, EVENTS_PENDING, JOURNAL_PAIRED_KEY, JOURNAL_SEQ_KEY, MESSAGES, META,
    PLAN_REVISIONS, SCHEMA_VERSION_KEY, SHUTDOWN_CLEAN_KEY, STUCK_CANDIDATES, TASKS,
    TASKS_BY_STATUS, WAITS, WAITS_BY_TASK, WAITS_LIVE, status_count_key, walk_status_index,
};
use crate::space::{self, SPACE_FOR_WRITES};

/// One change to the database. A [`WriteBatch`] of them is applied all or nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum Mutation {
    /// Insert or replace a task; keeps the status index in step.
    PutTask(TaskRecord),
    /// Add a message to a thread; refuses to overwrite an existing one.
    AppendMessage {
        task_id: TaskId,
        seq: u64,
        message: MessageRecord,
    },
    /// Store a plan revision under (task id, revision).
    PutPlanRevision(PlanRevisionRecord),
    /// Raise a counter to at least this value (never lowers it).
    RaiseCounter { counter: Counter, at_least: u64 },
    /// Add to a counter.
    AddToCounter { counter: Counter, by: u64 },
    /// Insert or replace a wake event; keeps the pending index in step with `settled`.
    PutEvent(EventRecord),
    /// Insert or replace a wait; keeps the live index in step with its state.
    PutWait(WaitRecord),
}

/// The mutations of one acknowledged write: applied together or not at all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteBatch {
    pub mutations: Vec<Mutation>,
}

impl WriteBatch {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, mutation: Mutation) -> &mut Self {
        self.mutations.push(mutation);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.mutations.is_empty()
    }
}

/// Which statuses a listing covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StatusFilter {
    Only(Status),
    All,
}

impl StatusFilter {
    fn statuses(&self) -> Vec<Status> {
        match self {
            StatusFilter::Only(status) => vec![*status],
            StatusFilter::All => Status::ALL.to_vec(),
        }
    }
}

/// A page of tasks, most recently updated first.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskPage {
    pub tasks: Vec<TaskRecord>,
    /// More tasks matched than the limit allowed.
    pub more: bool,
}

/// Where a page of [`Store::list_tasks_after`] stopped: the last task it listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListCursor {
    pub updated_at_ms: u64,
    pub task_id: String,
}

impl ListCursor {
    pub fn after(task: &TaskRecord) -> Self {
        Self {
            updated_at_ms: task.updated_at.as_millis(),
            task_id: task.id.as_str().to_owned(),
        }
    }

    /// `"1771000000123.t-7k2m9q"`: opaque to clients, read back by [`ListCursor::parse`].
    pub fn encode(&self) -> String {
        format!("{}.{}", self.updated_at_ms, self.task_id)
    }

    pub fn parse(text: &str) -> Option<Self> {
        let (millis, id) = text.split_once('.')?;
        Some(Self {
            updated_at_ms: millis.parse().ok()?,
            task_id: id.to_owned(),
        })
        .filter(|cursor| !cursor.task_id.is_empty())
    }
}

/// Counts for `daemon.status`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Tasks per status, in [`Status::ALL`] order.
    pub tasks_by_status: Vec<(Status, u64)>,
    pub messages: u64,
    pub plan_revisions: u64,
    pub file_bytes: u64,
    pub schema_version: u64,
    pub events: u64,
    pub events_pending: u64,
    pub dead_deliveries: u64,
    pub rejected_deliveries: u64,
    pub waits: u64,
    pub live_waits: u64,
    /// Writes only the journal holds so far: the file catches up at the next checkpoint.
    pub journal_records: u64,
    /// Writes applied from the journal when the file was opened (or reopened after an I/O
    /// error): acknowledged before a crash, not yet in the file then.
    pub replayed_writes: u64,
    /// Free bytes on the volume of the database (`None` when it cannot be told).
    pub free_bytes: Option<u64>,
    /// Writes are refused until more than [`SPACE_FOR_WRITES`] bytes are free.
    pub writes_refused_for_space: bool,
    /// The store was opened read-only (the disk was full at the open): reads only, until
    /// space is freed and a write reopens it.
    pub read_only: bool,
}

/// How long a reopen waits for operations still running on the failed handle to finish.
const RELEASE_TIMEOUT: Duration = Duration::from_secs(10);

/// The database. Cheap to share behind an `Arc`; redb serialises writers itself.
///
/// After an I/O error redb refuses every later operation on that handle (its `PreviousIo`),
/// so the store reopens the file on the next operation: redb repairs it from the last
/// durable commit, and the daemon goes on once the disk works again.
#[derive(Debug)]
pub struct Store {
    /// The open database and its generation; `None` while a reopen has not succeeded.
    handle: RwLock<Option<(u64, Arc<Opened>)>>,
    /// One more than the newest generation an I/O error was seen on (0: none).
    failed_generation: AtomicU64,
    reopens: AtomicU64,
    /// Writes the opens so far applied from the journal.
    replayed_writes: AtomicU64,
    /// Whether the reserve beside the file is whole (`space::keep_reserve`).
    reserve_whole: AtomicBool,
    path: PathBuf,
    options: OpenOptions,
}

/// The database file and its write journal, opened together: a reopen replays the journal.
#[derive(Debug)]
struct Opened {
    db: Db,
    /// The journal's records since its last checkpoint, as `apply` left them (read without
    /// waiting for a commit in flight).
    journal_records: AtomicU64,
}

/// The database as opened: for writing, with its journal, or for reading only.
enum Db {
    Writable {
        db: Database,
        /// Locked by `apply` before it begins its transaction (so never while one waits
        /// for it).
        journal: Mutex<Journal>,
    },
    /// Opened on a full disk: nothing is written, not even redb's header, until a write
    /// finds space again and reopens the file for writing.
    ReadOnly(ReadOnlyDatabase),
}

impl Db {
    fn begin_read(&self) -> Result<ReadTransaction, redb::TransactionError> {
        match self {
            Db::Writable { db, .. } => db.begin_read(),
            Db::ReadOnly(db) => db.begin_read(),
        }
    }
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Db::Writable { journal, .. } => f
                .debug_struct("Writable")
                .field("journal", journal)
                .finish(),
            Db::ReadOnly(_) => f.write_str("ReadOnly"),
        }
    }
}

/// redb's page cache unless configured: enough for the pages a busy daemon touches again
/// (the newest tasks, the indexes' upper levels), small enough that the daemon's memory
/// stays flat while the file grows. redb's own default, 1 GiB, let the resident memory
/// follow the file (see BENCHMARKS.md, "Load").
pub const DEFAULT_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// How [`Store::open_with`] opens the file.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// The most memory redb's page cache may hold.
    pub cache_bytes: usize,
    /// A backend that fails reads and commits and cuts the file back to a crash image when
    /// these say so (the fault-injection harness). It runs without a cache, so that every
    /// read reaches the backend and read faults fire when asked.
    pub faults: Option<StorageFaults>,
}

impl Default for OpenOptions {
    fn default() -> Self {
        Self {
            cache_bytes: DEFAULT_CACHE_BYTES,
            faults: None,
        }
    }
}

impl Store {
    /// Opens (creating if missing) the database file and brings it to the current schema.
    /// Fails at once with [`StorageError::Locked`] when another process has it open.
    pub fn open(path: &Path) -> Result<Store, StorageError> {
        Self::open_with(path, OpenOptions::default())
    }

    /// Like [`Store::open`], with a cache size or injected faults.
    pub fn open_with(path: &Path, options: OpenOptions) -> Result<Store, StorageError> {
        Ok(Self::open_private(path, options)?.0)
    }

    /// Like [`Store::open_with`], making the data private on the way: the folder is created
    /// 0700 and the file 0600, and either is tightened to that when it is looser (and owned
    /// by this user). Returns what was tightened, for the log.
    pub fn open_private(
        path: &Path,
        options: OpenOptions,
    ) -> Result<(Store, Vec<String>), StorageError> {
        let mut tightened = Vec::new();
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            tightened.extend(private::private_folder(folder)?);
        }
        let existed = std::fs::metadata(path);
        if existed
            .as_ref()
            .is_ok_and(|meta| meta.is_file() && meta.len() == 0)
        {
            return Err(StorageError::Empty {
                path: path.to_owned(),
            });
        }
        let store = Store {
            handle: RwLock::new(None),
            failed_generation: AtomicU64::new(0),
            reopens: AtomicU64::new(0),
            replayed_writes: AtomicU64::new(0),
            reserve_whole: AtomicBool::new(false),
            path: path.to_owned(),
            options,
        };
        let journal_path = store.journal_path();
        let journal_existed = std::fs::metadata(&journal_path);
        let opened = store.open_files()?;
        // The folder is private already, so the moment a file was looser did not matter;
        // a file just made under the umask is no news worth reporting.
        for (file, existed) in [(path.to_owned(), existed), (journal_path, journal_existed)] {
            let tightening =
                private::tighten(&file, 0o600).map_err(|source| StorageError::DataFolder {
                    path: file.clone(),
                    source,
                })?;
            if existed.is_ok() {
                tightened.extend(tightening);
            }
        }
        *crate::locks::write(&store.handle) = Some((1, Arc::new(opened)));
        Ok((store, tightened))
    }

    /// The write journal beside the database file: `lookout.journal` for `lookout.redb`.
    pub fn journal_path(&self) -> PathBuf {
        journal::path_beside(&self.path)
    }

    /// Opens the database, brings it to the current schema, opens the journal and applies
    /// the records the file has not caught up with. On a volume with less than
    /// [`SPACE_FOR_WRITES`] free, an existing database opens read-only instead.
    fn open_files(&self) -> Result<Opened, StorageError> {
        let mut free = space::free_bytes(&self.path);
        if space::too_full(free) && space::release_reserve(&self.path) {
            self.reserve_whole.store(false, Ordering::SeqCst);
            free = space::free_bytes(&self.path);
        }
        if let Some(free) = free.filter(|_| space::too_full(free))
            && self.path.exists()
        {
            return self.open_read_only(free);
        }
        let opened = self.open_writable()?;
        self.reserve_whole.store(
            space::keep_reserve(&self.path, space::free_bytes(&self.path)),
            Ordering::SeqCst,
        );
        Ok(opened)
    }

    /// [`Store::open_files`] with room to write.
    fn open_writable(&self) -> Result<Opened, StorageError> {
        let db = self.open_database()?;
        // What the file says of its journal; a damaged journal refuses the open before
        // anything is written.
        let facts = journal_facts(&db)?;
        let journal_path = self.journal_path();
        let existed = journal::presence(&journal_path, facts)?;
        let backend = self.journal_backend(&journal_path)?;
        let opened = Journal::open(backend, &journal_path, facts, existed)?;
        migrate(&db, &self.path)?;
        let (journal, replayed) = replay_opened(&db, opened, facts, batching(&journal_path))?;
        self.replayed_writes.fetch_add(replayed, Ordering::SeqCst);
        Ok(Opened {
            db: Db::Writable {
                db,
                journal: Mutex::new(journal),
            },
            journal_records: AtomicU64::new(0),
        })
    }

    /// Opens the database for reading only, on a disk with `free` bytes, too few to write:
    /// what it holds is served as it is. Refused when that would hide or risk something: a
    /// database that needs a repair (it was not shut down cleanly) or a migration, or a
    /// journal holding acknowledged writes the file does not have yet.
    fn open_read_only(&self, free: u64) -> Result<Opened, StorageError> {
        let path = &self.path;
        let full = |why: String| StorageError::FullAtOpen {
            path: path.clone(),
            free,
            why,
        };
        let db = Database::builder()
            .set_cache_size(self.options.cache_bytes)
            .open_read_only(path)
            .map_err(|source| match source {
                redb::DatabaseError::RepairAborted => full(
                    "the database was not shut down cleanly: its repair writes to it".to_owned(),
                ),
                redb::DatabaseError::DatabaseAlreadyOpen => {
                    StorageError::Locked { path: path.clone() }
                }
                source => StorageError::Open {
                    path: path.clone(),
                    source,
                },
            })?;
        let version = schema_version(&db)?;
        if version != schema::SCHEMA_VERSION {
            return Err(full(format!(
                "the database is at schema version {version}, and bringing it to {} writes to it",
                schema::SCHEMA_VERSION
            )));
        }
        let facts = journal_facts(&db)?;
        let journal_path = self.journal_path();
        if journal::presence(&journal_path, facts)? {
            let (_, records) =
                Journal::open(journal::file_at(&journal_path)?, &journal_path, facts, true)?;
            let pending = records
                .iter()
                .filter(|record| record.seq > facts.applied)
                .count();
            if pending > 0 {
                return Err(full(format!(
                    "the write journal holds {pending} acknowledged writes the database file \
                     does not have yet, and applying them writes to it"
                )));
            }
        }
        Ok(Opened {
            db: Db::ReadOnly(db),
            journal_records: AtomicU64::new(0),
        })
    }

    /// The journal file, or the fault harness's backend over it.
    fn journal_backend(&self, path: &Path) -> Result<Box<dyn StorageBackend>, StorageError> {
        Ok(match &self.options.faults {
            None => journal::file_at(path)?,
            Some(faults) => Box::new(
                FaultyFile::open(path, faults.clone())
                    .map_err(|source| journal::open_error(path, source))?,
            ),
        })
    }

    fn open_database(&self) -> Result<Database, StorageError> {
        let path = &self.path;
        let opened = match &self.options.faults {
            None => Database::builder()
                .set_cache_size(self.options.cache_bytes)
                .create(path),
            Some(faults) => {
                let backend = FaultyFile::open(path, faults.clone()).map_err(|source| {
                    StorageError::Open {
                        path: path.clone(),
                        source: source.into(),
                    }
                })?;
                Database::builder()
                    .set_cache_size(0)
                    .create_with_backend(backend)
            }
        };
        opened.map_err(|source| match source {
            redb::DatabaseError::DatabaseAlreadyOpen => StorageError::Locked { path: path.clone() },
            source => StorageError::Open {
                path: path.clone(),
                source,
            },
        })
    }

    /// Runs `operation` on the open database, reopening it first when an I/O error left the
    /// handle unusable; an I/O error now marks this handle for reopening.
    fn with_db<T>(
        &self,
        operation: impl FnOnce(&Db) -> Result<T, StorageError>,
    ) -> Result<T, StorageError> {
        let (generation, opened) = self.current()?;
        let outcome = operation(&opened.db);
        if outcome.as_ref().is_err_and(StorageError::is_io) {
            self.reopen_after(generation);
        }
        outcome
    }

    /// Marks the handle of `generation` for reopening: an I/O error was seen on it.
    fn reopen_after(&self, generation: u64) {
        self.failed_generation
            .fetch_max(generation + 1, Ordering::SeqCst);
    }

    fn current(&self) -> Result<(u64, Arc<Opened>), StorageError> {
        {
            let handle = crate::locks::read(&self.handle);
            if let Some((generation, db)) = handle.as_ref()
                && self.failed_generation.load(Ordering::SeqCst) <= *generation
            {
                return Ok((*generation, db.clone()));
            }
        }
        self.reopen()
    }

    /// Closes the failed handle (once operations still on it finish) and opens the file again.
    fn reopen(&self) -> Result<(u64, Arc<Opened>), StorageError> {
        let mut handle = crate::locks::write(&self.handle);
        let failed = self.failed_generation.load(Ordering::SeqCst);
        let mut next_generation = failed.max(1);
        if let Some((generation, db)) = handle.take() {
            if failed <= generation {
                // Another caller reopened it meanwhile.
                *handle = Some((generation, db.clone()));
                return Ok((generation, db));
            }
            next_generation = generation + 1;
            let mut db = db;
            if !wait_until_unique(&mut db) {
                *handle = Some((generation, db));
                return Err(StorageError::Recovering {
                    path: self.path.clone(),
                });
            }
            drop(db);
        }
        let opened = Arc::new(self.open_files()?);
        self.reopens.fetch_add(1, Ordering::SeqCst);
        *handle = Some((next_generation, opened.clone()));
        Ok((next_generation, opened))
    }

    /// Writes the opens so far applied from the journal: acknowledged before a crash and not
    /// yet in the file then.
    pub fn replayed_writes(&self) -> u64 {
        self.replayed_writes.load(Ordering::SeqCst)
    }

    /// Whether the file is open for reading only (the disk was full when it was opened):
    /// the first write that finds space opens it for writing.
    pub fn is_read_only(&self) -> bool {
        let handle = crate::locks::read(&self.handle);
        handle
            .as_ref()
            .is_some_and(|(_, opened)| matches!(opened.db, Db::ReadOnly(_)))
    }

    /// How many times an I/O error made the store reopen the file.
    pub fn reopens(&self) -> u64 {
        self.reopens.load(Ordering::SeqCst)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Applies the batches in one transaction, in order, and returns once it is durable: its
    /// record synced in the journal (or, for a commit too large for the journal, the redb
    /// commit itself synced). Any failure aborts them all and changes nothing.
    ///
    /// With less than [`SPACE_FOR_WRITES`] free on the volume it is refused before it starts
    /// ([`StorageError::DiskFull`]); below [`space::SPACE_FOR_BATCHING`] it is its own durable
    /// commit.
    /// A store opened read-only is opened for writing again by the first write that finds
    /// space.
    pub fn apply(&self, batches: &[WriteBatch]) -> Result<(), StorageError> {
        let free = space::free_bytes(&self.path);
        if let Some(free) = free.filter(|_| space::too_full(free)) {
            return Err(self.disk_full(free));
        }
        let (mut generation, mut opened) = self.current()?;
        if matches!(opened.db, Db::ReadOnly(_)) {
            // There is space again: open the file for writing (the reopen waits for this
            // handle's last holder).
            drop(opened);
            self.reopen_after(generation);
            (generation, opened) = self.current()?;
        }
        let Db::Writable { db, journal } = &opened.db else {
            // The space went again before the reopen.
            return Err(self.disk_full(free.unwrap_or(0)));
        };
        let batched = space::room_to_batch(free);
        if !self.reserve_whole.load(Ordering::Relaxed) {
            self.reserve_whole
                .store(space::keep_reserve(&self.path, free), Ordering::SeqCst);
        }
        let mut journal = lock(journal);
        let outcome = apply_journaled(db, &mut journal, batches, batched);
        if outcome.as_ref().is_err_and(StorageError::is_io) {
            self.reopen_after(generation);
            return outcome;
        }
        if outcome.is_ok() && journal.checkpoint_due() {
            // The write is durable in the journal already: a checkpoint that fails leaves
            // the records there, and the reopen that follows an I/O error replays them.
            if let Err(error) = checkpoint(db, &mut journal)
                && error.is_io()
            {
                self.reopen_after(generation);
            }
        }
        opened
            .journal_records
            .store(journal.records(), Ordering::Relaxed);
        outcome
    }

    fn disk_full(&self, free: u64) -> StorageError {
        StorageError::DiskFull {
            path: self.path.clone(),
            free,
            needed: SPACE_FOR_WRITES,
        }
    }

    pub fn task(&self, id: &TaskId) -> Result<Option<TaskRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let tasks = txn.open_table(TASKS)?;
            let found = tasks.get(id.as_str())?;
            found
                .map(|guard| decode_task(id.as_str(), guard.value()))
                .transpose()
        })
    }

    /// Up to `limit` messages with seq below `before` (all when `None`), oldest first.
    pub fn thread(
        &self,
        id: &TaskId,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Vec<(u64, MessageRecord)>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let table = txn.open_table(MESSAGES)?;
            let end = before.unwrap_or(u64::MAX);
            let mut newest_first = Vec::with_capacity(limit.min(1024));
            for entry in table
                .range((id.as_str(), 0)..(id.as_str(), end))?
                .rev()
                .take(limit)
            {
                let (key, value) = entry?;
                let seq = key.value().1;
                newest_first.push((seq, decode_message(id, seq, value.value())?));
            }
            newest_first.reverse();
            Ok(newest_first)
        })
    }

    /// Plan revisions of a task, oldest first.
    pub fn plan_revisions(&self, id: &TaskId) -> Result<Vec<PlanRevisionRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let table = txn.open_table(PLAN_REVISIONS)?;
            let mut revisions = Vec::new();
            for entry in table.range((id.as_str(), 0)..=(id.as_str(), u32::MAX))? {
                let (key, value) = entry?;
                let revision = PlanRevisionRecord::decode(value.value()).map_err(|error| {
                    corrupt::<PlanRevisionRecord>(format!("{id}#{}", key.value().1), &error)
                })?;
                revisions.push(revision);
            }
            Ok(revisions)
        })
    }

    /// Tasks of the filter's statuses, most recently updated first.
    pub fn list_tasks(
        &self,
        filter: &StatusFilter,
        limit: usize,
    ) -> Result<TaskPage, StorageError> {
        self.list_tasks_after(filter, limit, None)
    }

    /// [`Store::list_tasks`] from where an earlier page stopped: only tasks listed after
    /// `after` (updated earlier, or at the same millisecond with a lower id).
    pub fn list_tasks_after(
        &self,
        filter: &StatusFilter,
        limit: usize,
        after: Option<&ListCursor>,
    ) -> Result<TaskPage, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let index = txn.open_table(TASKS_BY_STATUS)?;
            let mut candidates: Vec<(u64, String)> = Vec::new();
            for status in filter.statuses() {
                let code = status.index_code();
                let range = match after {
                    Some(cursor) => index.range(
                        (code, 0, "")..(code, cursor.updated_at_ms, cursor.task_id.as_str()),
                    )?,
                    None => index.range((code, 0, "")..(code + 1, 0, ""))?,
                };
                for entry in range.rev().take(limit.saturating_add(1)) {
                    let (key, ()) = entry.map(|(k, v)| (k, v.value()))?;
                    let (_, updated_at, id) = key.value();
                    candidates.push((updated_at, id.to_owned()));
                }
            }
            candidates.sort_by(|a, b| b.cmp(a));
            let more = candidates.len() > limit;
            candidates.truncate(limit);
            let tasks_table = txn.open_table(TASKS)?;
            let mut tasks = Vec::with_capacity(candidates.len());
            for (_, id) in candidates {
                if let Some(guard) = tasks_table.get(id.as_str())? {
                    tasks.push(decode_task(&id, guard.value())?);
                }
            }
            Ok(TaskPage { tasks, more })
        })
    }

    /// Up to `limit` tasks of any status last updated at or after `since_ms`, oldest update
    /// first (ties by id), starting after `after` when given: how the recall index catches
    /// up with what changed.
    pub fn tasks_updated_since(
        &self,
        since_ms: u64,
        after: Option<&ListCursor>,
        limit: usize,
    ) -> Result<Vec<TaskRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let index = txn.open_table(TASKS_BY_STATUS)?;
            let mut found: Vec<(u64, String)> = Vec::new();
            for status in Status::ALL {
                let code = status.index_code();
                let range = index.range((code, since_ms, "")..(code + 1, 0, ""))?;
                let mut taken = 0;
                for entry in range {
                    let (key, ()) = entry.map(|(k, v)| (k, v.value()))?;
                    let (_, updated_at, id) = key.value();
                    let past_cursor = after.is_none_or(|cursor| {
                        (updated_at, id) > (cursor.updated_at_ms, cursor.task_id.as_str())
                    });
                    if past_cursor {
                        found.push((updated_at, id.to_owned()));
                        taken += 1;
                        if taken == limit {
                            break;
                        }
                    }
                }
            }
            found.sort();
            found.truncate(limit);
            let tasks_table = txn.open_table(TASKS)?;
            let mut tasks = Vec::with_capacity(found.len());
            for (_, id) in found {
                if let Some(guard) = tasks_table.get(id.as_str())? {
                    tasks.push(decode_task(&id, guard.value())?);
                }
            }
            Ok(tasks)
        })
    }

    /// Active tasks without a live wait, last updated at or before `cutoff`, oldest first,
    /// that `is_due` accepts — decided from the stuck index alone, without reading a record.
    pub fn stuck_candidates(
        &self,
        cutoff: Timestamp,
        mut is_due: impl FnMut(Timestamp, &StuckInfo) -> bool,
    ) -> Result<Vec<StuckCandidate>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let table = txn.open_table(STUCK_CANDIDATES)?;
            let mut due = Vec::new();
            for entry in table.range((0, "")..=(cutoff.as_millis(), "\u{10FFFF}"))? {
                let (key, value) = entry?;
                let (updated_ms, id) = key.value();
                let info = StuckInfo::decode(value.value())
                    .map_err(|error| corrupt::<StuckInfo>(id.to_owned(), &error))?;
                let updated_at = Timestamp(updated_ms);
                if is_due(updated_at, &info) {
                    due.push(StuckCandidate {
                        task_id: TaskId::new(id),
                        updated_at,
                        info,
                    });
                }
            }
            Ok(due)
        })
    }

    pub fn wait(&self, id: &WaitId) -> Result<Option<WaitRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let waits = txn.open_table(WAITS)?;
            let found = waits.get(id.as_str())?;
            found
                .map(|guard| decode_wait(id.as_str(), guard.value()))
                .transpose()
        })
    }

    /// Every wait still watching (what a restarted daemon resumes).
    pub fn live_waits(&self) -> Result<Vec<WaitRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let live = txn.open_table(WAITS_LIVE)?;
            let waits = txn.open_table(WAITS)?;
            let mut found = Vec::new();
            for entry in live.iter()? {
                let (key, _) = entry?;
                if let Some(guard) = waits.get(key.value())? {
                    found.push(decode_wait(key.value(), guard.value())?);
                }
            }
            Ok(found)
        })
    }

    /// The waits `task` launched, live or ended, oldest id first.
    pub fn waits_of_task(&self, task: &TaskId) -> Result<Vec<WaitRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let index = txn.open_table(WAITS_BY_TASK)?;
            let waits = txn.open_table(WAITS)?;
            let mut found = Vec::new();
            for entry in index.range((task.as_str(), "")..)? {
                let (key, ()) = entry.map(|(k, v)| (k, v.value()))?;
                let (owner, wait_id) = key.value();
                if owner != task.as_str() {
                    break;
                }
                if let Some(guard) = waits.get(wait_id)? {
                    found.push(decode_wait(wait_id, guard.value())?);
                }
            }
            Ok(found)
        })
    }

    /// Every wait, whatever its state (the harness's invariant checks).
    pub fn waits(&self) -> Result<Vec<WaitRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let waits = txn.open_table(WAITS)?;
            let mut found = Vec::new();
            for entry in waits.iter()? {
                let (key, value) = entry?;
                found.push(decode_wait(key.value(), value.value())?);
            }
            Ok(found)
        })
    }

    /// Ids of the waits in the live index.
    pub fn live_wait_ids(&self) -> Result<Vec<String>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let live = txn.open_table(WAITS_LIVE)?;
            let mut ids = Vec::new();
            for entry in live.iter()? {
                ids.push(entry?.0.value().to_owned());
            }
            Ok(ids)
        })
    }

    /// Sequence numbers in the pending-delivery index.
    pub fn pending_event_seqs(&self) -> Result<Vec<u64>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let pending = txn.open_table(EVENTS_PENDING)?;
            let mut seqs = Vec::new();
            for entry in pending.iter()? {
                seqs.push(entry?.0.value());
            }
            Ok(seqs)
        })
    }

    /// Events some sink still has to deliver, oldest first.
    pub fn pending_events(&self) -> Result<Vec<EventRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let pending = txn.open_table(EVENTS_PENDING)?;
            let events = txn.open_table(EVENTS)?;
            let mut found = Vec::new();
            for entry in pending.iter()? {
                let seq = entry?.0.value();
                if let Some(guard) = events.get(seq)? {
                    found.push(decode_event(seq, guard.value())?);
                }
            }
            Ok(found)
        })
    }

    /// The events with these seqs (missing ones are skipped).
    pub fn events(&self, seqs: &[u64]) -> Result<Vec<EventRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let events = txn.open_table(EVENTS)?;
            let mut found = Vec::with_capacity(seqs.len());
            for &seq in seqs {
                if let Some(guard) = events.get(seq)? {
                    found.push(decode_event(seq, guard.value())?);
                }
            }
            Ok(found)
        })
    }

    /// The newest `limit` events, oldest first.
    pub fn recent_events(&self, limit: usize) -> Result<Vec<EventRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let events = txn.open_table(EVENTS)?;
            let mut found = Vec::new();
            for entry in events.iter()?.rev().take(limit) {
                let (key, value) = entry?;
                found.push(decode_event(key.value(), value.value())?);
            }
            found.reverse();
            Ok(found)
        })
    }

    /// Up to `limit` events with a seq above `after`, oldest first.
    pub fn events_after(&self, after: u64, limit: usize) -> Result<Vec<EventRecord>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let events = txn.open_table(EVENTS)?;
            let mut found = Vec::new();
            for entry in events.range(after.saturating_add(1)..)?.take(limit) {
                let (key, value) = entry?;
                found.push(decode_event(key.value(), value.value())?);
            }
            Ok(found)
        })
    }

    pub fn counter(&self, counter: Counter) -> Result<u64, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let meta = txn.open_table(META)?;
            Ok(meta
                .get(counter.key())?
                .map(|guard| guard.value())
                .unwrap_or(0))
        })
    }

    pub fn stats(&self) -> Result<StoreStats, StorageError> {
        let free_bytes = space::free_bytes(&self.path);
        let (_, opened) = self.current()?;
        let journal_records = opened.journal_records.load(Ordering::Relaxed);
        let read_only = matches!(opened.db, Db::ReadOnly(_));
        self.with_db(|db| {
            let txn = db.begin_read()?;
            let meta = txn.open_table(META)?;
            let counter = |key: &str| -> Result<u64, StorageError> {
                Ok(meta.get(key)?.map(|guard| guard.value()).unwrap_or(0))
            };
            let mut tasks_by_status = Vec::with_capacity(Status::ALL.len());
            for status in Status::ALL {
                tasks_by_status.push((status, counter(status_count_key(status))?));
            }
            let messages = txn.open_table(MESSAGES)?.len()?;
            let plan_revisions = txn.open_table(PLAN_REVISIONS)?.len()?;
            let schema_version = counter(SCHEMA_VERSION_KEY)?;
            let file_bytes = std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
            Ok(StoreStats {
                tasks_by_status,
                messages,
                plan_revisions,
                file_bytes,
                schema_version,
                events: txn.open_table(EVENTS)?.len()?,
                events_pending: txn.open_table(EVENTS_PENDING)?.len()?,
                dead_deliveries: counter(Counter::DeadDeliveries.key())?,
                rejected_deliveries: counter(Counter::RejectedDeliveries.key())?,
                waits: txn.open_table(WAITS)?.len()?,
                live_waits: txn.open_table(WAITS_LIVE)?.len()?,
                journal_records,
                replayed_writes: self.replayed_writes(),
                free_bytes,
                writes_refused_for_space: space::too_full(free_bytes),
                read_only,
            })
        })
    }

    /// The tasks of each status counted by walking the status index: what the counts
    /// [`Store::stats`] reads must always equal (the harness's invariant checks compare them).
    pub fn count_tasks_by_status(&self) -> Result<Vec<(Status, u64)>, StorageError> {
        self.with_db(|db| {
            let txn = db.begin_read()?;
            walk_status_index(&txn.open_table(TASKS_BY_STATUS)?)
        })
    }

    /// redb's full integrity check (the harness runs it after every scenario). Waits for
    /// the operations in flight to finish, since the check needs the database to itself.
    pub fn check_integrity(&self) -> Result<bool, StorageError> {
        self.current()?;
        let mut handle = crate::locks::write(&self.handle);
        let recovering = || StorageError::Recovering {
            path: self.path.clone(),
        };
        let (_, db) = handle.as_mut().ok_or_else(recovering)?;
        if !wait_until_unique(db) {
            return Err(recovering());
        }
        let opened = Arc::get_mut(db).ok_or_else(recovering)?;
        let Db::Writable { db, .. } = &mut opened.db else {
            let free = space::free_bytes(&self.path).unwrap_or(0);
            return Err(self.disk_full(free));
        };
        db.check_integrity().map_err(|source| StorageError::Open {
            path: self.path.clone(),
            source,
        })
    }
}

impl Drop for Store {
    /// Catches the file up with the journal, so that the next start replays nothing and a
    /// copy of the file alone is whole; a crash instead leaves that to the next open.
    fn drop(&mut self) {
        let handle = self.handle.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some((_, opened)) = handle.as_ref()
            && let Db::Writable { db, journal } = &opened.db
        {
            // The shutdown's commit needs a few pages: on a full disk, the reserve has them.
            if space::too_full(space::free_bytes(&self.path)) {
                space::release_reserve(&self.path);
            }
            // Every record goes into the file, and the file says so: a journal that goes
            // missing after a clean shutdown loses nothing.
            let mut journal = lock(journal);
            let _ = checkpoint_marked(db, &mut journal, true);
        }
    }
}

fn decode_event(seq: u64, bytes: &[u8]) -> Result<EventRecord, StorageError> {
    EventRecord::decode(bytes)
        .map_err(|error| corrupt::<EventRecord>(format!("e-{seq:06}"), &error))
}

/// Writes the batches' mutations into `txn`, with the number of the journal record that
/// carries them (one more than the last one applied); returns that number.
fn write_batches(txn: &WriteTransaction, batches: &[WriteBatch]) -> Result<u64, StorageError> {
    let mut tasks = txn.open_table(TASKS)?;
    let mut index = txn.open_table(TASKS_BY_STATUS)?;
    let mut messages = txn.open_table(MESSAGES)?;
    let mut revisions = txn.open_table(PLAN_REVISIONS)?;
    let mut meta = txn.open_table(META)?;
    let mut candidates = txn.open_table(STUCK_CANDIDATES)?;
    let mut events = txn.open_table(EVENTS)?;
    let mut pending = txn.open_table(EVENTS_PENDING)?;
    let mut waits = txn.open_table(WAITS)?;
    let mut live_waits = txn.open_table(WAITS_LIVE)?;
    let mut waits_by_task = txn.open_table(WAITS_BY_TASK)?;
    // Tasks gained (or lost) by each status, in `Status::ALL` order.
    let mut status_deltas = [0i64; Status::ALL.len()];
    for mutation in batches.iter().flat_map(|batch| &batch.mutations) {
        match mutation {
            Mutation::PutTask(task) => {
                let id = task.id.as_str();
                let previous = tasks.get(id)?.map(|guard| decode_task(id, guard.value()));
                let previous = previous.transpose()?;
                if previous.as_ref().map(|p| p.status) != Some(task.status) {
                    status_deltas[usize::from(task.status.index_code())] += 1;
                    if let Some(previous) = &previous {
                        status_deltas[usize::from(previous.status.index_code())] -= 1;
                    }
                }
                if let Some(previous) = previous {
                    let updated = previous.updated_at.as_millis();
                    index.remove((previous.status.index_code(), updated, id))?;
                    if previous.is_stuck_candidate() {
                        candidates.remove((updated, id))?;
                    }
                }
                let updated = task.updated_at.as_millis();
                index.insert((task.status.index_code(), updated, id), ())?;
                if task.is_stuck_candidate() {
                    candidates.insert((updated, id), task.stuck_info().encode().as_slice())?;
                }
                tasks.insert(id, task.encode().as_slice())?;
            }
            Mutation::AppendMessage {
                task_id,
                seq,
                message,
            } => {
                let key = (task_id.as_str(), *seq);
                if messages.insert(key, message.encode().as_slice())?.is_some() {
                    return Err(StorageError::DuplicateMessage {
                        task_id: task_id.to_string(),
                        seq: *seq,
                    });
                }
            }
            Mutation::PutPlanRevision(revision) => {
                let key = (revision.task_id.as_str(), revision.revision);
                revisions.insert(key, revision.encode().as_slice())?;
            }
            Mutation::RaiseCounter { counter, at_least } => {
                let current = meta.get(counter.key())?.map(|g| g.value()).unwrap_or(0);
                if *at_least > current {
                    meta.insert(counter.key(), *at_least)?;
                }
            }
            Mutation::AddToCounter { counter, by } => {
                let current = meta.get(counter.key())?.map(|g| g.value()).unwrap_or(0);
                meta.insert(counter.key(), current.saturating_add(*by))?;
            }
            Mutation::PutEvent(event) => {
                events.insert(event.seq, event.encode().as_slice())?;
                if event.settled {
                    pending.remove(event.seq)?;
                } else {
                    pending.insert(event.seq, ())?;
                }
            }
            Mutation::PutWait(wait) => {
                let id = wait.id.as_str();
                waits.insert(id, wait.encode().as_slice())?;
                if wait.is_live() {
                    live_waits.insert(id, ())?;
                } else {
                    live_waits.remove(id)?;
                }
                if let Some(task_id) = &wait.task_id {
                    waits_by_task.insert((task_id.as_str(), id), ())?;
                }
            }
        }
    }
    for (status, delta) in Status::ALL.into_iter().zip(status_deltas) {
        if delta != 0 {
            let key = status_count_key(status);
            let current = meta.get(key)?.map(|g| g.value()).unwrap_or(0);
            meta.insert(key, current.saturating_add_signed(delta))?;
        }
    }
    let seq = meta.get(JOURNAL_SEQ_KEY)?.map(|g| g.value()).unwrap_or(0) + 1;
    meta.insert(JOURNAL_SEQ_KEY, seq)?;
    Ok(seq)
}

/// One commit of `batches`: written into a transaction, its journal record synced, then
/// committed without a sync of its own. A commit too large for the journal, or not to be
/// `batched` (the disk is nearly full), is synced by redb itself. The journal is made to
/// have room first (a checkpoint when it is full).
fn apply_journaled(
    db: &Database,
    journal: &mut Journal,
    batches: &[WriteBatch],
    batched: bool,
) -> Result<(), StorageError> {
    let payload = journal::encode(batches);
    let journaled = batched && Journal::can_hold(payload.len());
    if journaled && !journal.has_room_for(payload.len()) {
        checkpoint(db, journal)?;
    }
    let mut txn = db.begin_write()?;
    txn.set_durability(if journaled {
        Durability::None
    } else {
        Durability::Immediate
    })?;
    let seq = write_batches(&txn, batches)?;
    if journaled {
        // A failed append drops `txn` unapplied: the write changes nothing.
        journal.append(seq, &payload)?;
    }
    txn.commit()?;
    if !journaled {
        // Synced by redb with everything before it.
        journal.restart(seq)?;
    }
    Ok(())
}

/// Applies the records of the journal in `backend` (at `path`) that `db` does not hold yet,
/// in order, then catches the file up (one synced commit) so the journal starts over;
/// returns the journal and how many records were applied. `db` was just opened, so what it
/// holds is durable: with nothing to apply, the journal starts over without a sync of the
/// file. Damage refuses it ([`StorageError::JournalDamaged`]).
pub(crate) fn replay_journal(
    db: &Database,
    backend: Box<dyn StorageBackend>,
    path: &Path,
    facts: journal::Facts,
    existed: bool,
) -> Result<(Journal, u64), StorageError> {
    let opened = Journal::open(backend, path, facts, existed)?;
    replay_opened(db, opened, facts, batching(path))
}

/// Whether commits may be batched until a checkpoint on the volume holding `path` (see
/// [`space::SPACE_FOR_BATCHING`]).
fn batching(path: &Path) -> bool {
    space::room_to_batch(space::free_bytes(path))
}

/// Replays an opened journal's records into `db` (see [`replay_journal`]).
fn replay_opened(
    db: &Database,
    (mut journal, records): (Journal, Vec<journal::Replayed>),
    facts: journal::Facts,
    batched: bool,
) -> Result<(Journal, u64), StorageError> {
    journal.prepare()?;
    let replayed = apply_records(db, records, facts.applied, batched)?;
    if replayed > 0 || !facts.paired {
        checkpoint(db, &mut journal)?;
    } else {
        journal.restart(facts.applied)?;
    }
    Ok((journal, replayed))
}

/// Applies the `records` numbered after `applied`, in order, each in a commit of its own
/// that is not synced (a checkpoint follows) unless not `batched` (the disk is nearly
/// full); returns how many.
fn apply_records(
    db: &Database,
    records: Vec<journal::Replayed>,
    applied: u64,
    batched: bool,
) -> Result<u64, StorageError> {
    let mut replayed = 0;
    for record in records.into_iter().filter(|record| record.seq > applied) {
        let mut txn = db.begin_write()?;
        txn.set_durability(if batched {
            Durability::None
        } else {
            Durability::Immediate
        })?;
        let seq = write_batches(&txn, std::slice::from_ref(&record.batch))?;
        debug_assert_eq!(seq, record.seq, "records replay in order");
        txn.commit()?;
        replayed += 1;
    }
    Ok(replayed)
}

/// What `lookout doctor` did with the journal.
#[derive(Debug, Default)]
pub(crate) struct Salvage {
    /// Writes applied from it.
    pub replayed: u64,
    /// The damage found, in words.
    pub damage: Option<String>,
    /// Where the damaged journal was set aside.
    pub set_aside: Option<PathBuf>,
}

/// How far the id counters jump after a damaged journal: past every id the lost records can
/// have handed out (at most [`journal::CHECKPOINT_RECORDS`] records, each far fewer ids).
const IDS_PAST_A_LOST_TAIL: u64 = 1_000_000;

/// The doctor's replay: as a start would, and when the journal is damaged, the records that
/// still read up to the damage; then the damaged journal is set aside (renamed, never
/// changed or deleted), a new one starts, and the id counters move past any id the lost
/// records handed out, so the daemon can start again without giving one out twice.
pub(crate) fn salvage_journal(db: &Database, path: &Path) -> Result<Salvage, StorageError> {
    let facts = journal_facts(db)?;
    let damage = match journal::presence(path, facts) {
        Ok(existed) => match replay_journal(db, journal::file_at(path)?, path, facts, existed) {
            Ok((_, replayed)) => {
                return Ok(Salvage {
                    replayed,
                    ..Salvage::default()
                });
            }
            Err(StorageError::JournalDamaged { what, .. }) => (what, existed),
            Err(other) => return Err(other),
        },
        Err(StorageError::JournalDamaged { what, .. }) => (what, false),
        Err(other) => return Err(other),
    };
    let (what, readable) = damage;
    let mut replayed = 0;
    if readable {
        let reading = journal::read_damaged(journal::file_at(path)?, path, facts)?;
        replayed = apply_records(db, reading.records, facts.applied, batching(path))?;
    }
    let set_aside = std::fs::symlink_metadata(path)
        .is_ok()
        .then(|| journal::aside_path(path));
    if let Some(aside) = &set_aside {
        std::fs::rename(path, aside).map_err(|source| journal::open_error(path, source))?;
    }
    raise_ids_past_a_lost_tail(db)?;
    let fresh = journal::Facts {
        applied: journal_seq(db)?,
        paired: false,
        clean: true,
    };
    replay_journal(db, journal::file_at(path)?, path, fresh, false)?;
    Ok(Salvage {
        replayed,
        damage: Some(what),
        set_aside,
    })
}

/// Moves the task, wait and event counters past any id a lost journal tail handed out.
fn raise_ids_past_a_lost_tail(db: &Database) -> Result<(), StorageError> {
    let txn = db.begin_write()?;
    {
        let mut meta = txn.open_table(META)?;
        for counter in [
            Counter::TaskSequence,
            Counter::WaitSequence,
            Counter::EventSequence,
        ] {
            let current = meta.get(counter.key())?.map(|g| g.value()).unwrap_or(0);
            meta.insert(counter.key(), current + IDS_PAST_A_LOST_TAIL)?;
        }
    }
    txn.commit()?;
    Ok(())
}

/// Makes the database file durable with every commit so far (one synced commit), so the
/// journal's records are no longer needed and the next one goes to its beginning.
fn checkpoint(db: &Database, journal: &mut Journal) -> Result<(), StorageError> {
    checkpoint_marked(db, journal, false)
}

/// A checkpoint that also says whether the file may be left without its journal: `clean`
/// at a shutdown. Every checkpoint marks the file as paired with a journal.
fn checkpoint_marked(
    db: &Database,
    journal: &mut Journal,
    clean: bool,
) -> Result<(), StorageError> {
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::Immediate)?;
    let base = {
        let mut meta = txn.open_table(META)?;
        meta.insert(JOURNAL_PAIRED_KEY, 1)?;
        if clean {
            meta.insert(SHUTDOWN_CLEAN_KEY, 1)?;
        }
        meta.get(JOURNAL_SEQ_KEY)?.map(|g| g.value()).unwrap_or(0)
    };
    txn.commit()?;
    journal.restart(base)
}

/// What the file says of its journal.
fn journal_facts(db: &impl ReadableDatabase) -> Result<journal::Facts, StorageError> {
    let txn = db.begin_read()?;
    let meta = match txn.open_table(META) {
        Ok(meta) => meta,
        // A new file: no table yet.
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(journal::Facts::default()),
        Err(error) => return Err(error.into()),
    };
    let value = |key: &str| -> Result<u64, StorageError> {
        Ok(meta.get(key)?.map(|g| g.value()).unwrap_or(0))
    };
    Ok(journal::Facts {
        applied: value(JOURNAL_SEQ_KEY)?,
        paired: value(JOURNAL_PAIRED_KEY)? > 0,
        clean: value(SHUTDOWN_CLEAN_KEY)? > 0,
    })
}

/// The schema version the file is at (0: a file with no tables yet).
fn schema_version(db: &impl ReadableDatabase) -> Result<u64, StorageError> {
    let txn = db.begin_read()?;
    let meta = match txn.open_table(META) {
        Ok(meta) => meta,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
        Err(error) => return Err(error.into()),
    };
    Ok(meta
        .get(SCHEMA_VERSION_KEY)?
        .map(|g| g.value())
        .unwrap_or(0))
}

/// The number of the last journal record the file holds.
fn journal_seq(db: &Database) -> Result<u64, StorageError> {
    let txn = db.begin_read()?;
    let meta = txn.open_table(META)?;
    Ok(meta.get(JOURNAL_SEQ_KEY)?.map(|g| g.value()).unwrap_or(0))
}

/// Brings the schema to this build's version in one synced commit.
/// Also clears the clean-shutdown mark: from now on the journal holds writes again.
fn migrate(db: &Database, path: &Path) -> Result<(), StorageError> {
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::Immediate)?;
    schema::migrate(&txn, path)?;
    txn.open_table(META)?.remove(SHUTDOWN_CLEAN_KEY)?;
    txn.commit()?;
    Ok(())
}

pub(crate) fn decode_wait(id: &str, bytes: &[u8]) -> Result<WaitRecord, StorageError> {
    WaitRecord::decode(bytes).map_err(|error| corrupt::<WaitRecord>(id.to_owned(), &error))
}

pub(crate) fn decode_task(id: &str, bytes: &[u8]) -> Result<TaskRecord, StorageError> {
    TaskRecord::decode(bytes).map_err(|error| corrupt::<TaskRecord>(id.to_owned(), &error))
}

fn decode_message(id: &TaskId, seq: u64, bytes: &[u8]) -> Result<MessageRecord, StorageError> {
    MessageRecord::decode(bytes)
        .map_err(|error| corrupt::<MessageRecord>(format!("{id}#{seq}"), &error))
}

fn corrupt<T: Versioned>(key: String, error: &postcard::Error) -> StorageError {
    StorageError::Corrupt {
        kind: T::KIND,
        key,
        detail: error.to_string(),
    }
}

/// Waits (about [`RELEASE_TIMEOUT`] at most) until no operation in flight holds the
/// database any more; false when one still does. Counted in sleeps: storage reads no clock.
fn wait_until_unique(db: &mut Arc<Opened>) -> bool {
    const PAUSE: Duration = Duration::from_millis(1);
    let attempts = RELEASE_TIMEOUT.as_millis() / PAUSE.as_millis();
    for _ in 0..attempts {
        if Arc::get_mut(db).is_some() {
            return true;
        }
        std::thread::sleep(PAUSE);
    }
    Arc::get_mut(db).is_some()
}
