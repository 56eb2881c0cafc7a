//! The Recall actor: the only owner of `recall.sqlite`. One request at a time. The index
//! follows the task database off the query path: once the database's commits go quiet for
//! [`QUIET_BEFORE_CATCH_UP`] (or at the latest [`LONGEST_CATCH_UP_DELAY`] after the first),
//! it indexes the tasks and wakes that changed since its marks. A search catches up first
//! only when a commit came after the last catch-up began (so an answer never misses what
//! was just recorded), which makes a search on a quiet database the index query alone. It
//! also catches up after it starts, which is how an index that was lost or deleted is
//! rebuilt. What has no other record (the output of a terminal session that ended) is put
//! here as it happens. Index work never holds up the runtime: it runs in place with the
//! worker's other tasks moved to another thread (see [`with_index`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use recall::{Document, Forget, Forgotten, Ranked, RecallError, RecallStore, Search, Source};
use storage::{EventRecord, ListCursor, Store, WaitId};
use tokio::sync::watch;

use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::locks::lock;
use crate::openclaw::client::GatewayClient;
use crate::recall::documents::{task_document, wait_document};
use crate::recall::openclaw_sessions::OpenClawSessions;
use crate::recall::transcripts;
use crate::registry;

/// How long a caller waits for a search, catching up included.
pub const RECALL_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// Tasks read from redb and indexed per step of a catch-up.
const CATCH_UP_BATCH: usize = 200;
/// Thread messages read per task (the newest).
const THREAD_DEPTH: usize = 2_000;
/// The index's mark for tasks: the newest `updated_at` indexed.
const TASKS_MARK: &str = "tasks_updated_at_ms";
/// The index's mark for wakes: the newest event seq whose wait is indexed.
const EVENTS_MARK: &str = "events_seq";
/// Wake events read per step of a catch-up.
const EVENTS_BATCH: usize = 500;
/// How often screen and terminal history past the retention age is removed.
const EXPIRY_PERIOD: Duration = Duration::from_secs(6 * 3600);
const EXPIRY_TIMER: &str = "recall:expiry";
/// How often the agent sessions are looked at for what they added.
pub const TRANSCRIPTS_PERIOD: Duration = Duration::from_secs(5);
const TRANSCRIPTS_TIMER: &str = "recall:transcripts";
const OPENCLAW_TIMER: &str = "recall:openclaw";
/// How long the database's commits must pause before the index catches up with them.
pub const QUIET_BEFORE_CATCH_UP: Duration = Duration::from_millis(500);
/// The longest a steady stream of commits delays the catch-up.
pub const LONGEST_CATCH_UP_DELAY: Duration = Duration::from_secs(5);

/// A `memory_recall`, validated.
#[derive(Clone, Debug)]
pub struct RecallRequest {
    pub query: String,
    pub limit: usize,
    pub recency_bias: f64,
    pub task_id: Option<String>,
    pub source: Option<Source>,
}

#[derive(Clone, Debug)]
pub struct RecallAnswer {
    pub results: Vec<Ranked>,
    /// Documents indexed per source when the search ran.
    pub indexed: Vec<(Source, u64)>,
    /// The words searched for (none: the question had only common words).
    pub words: Vec<String>,
    /// Words read as another the index holds: "postgress → postgres".
    pub read_as: Vec<String>,
    /// Words nothing in the index matches, in any form.
    pub unmatched: Vec<String>,
}

pub enum RecallMsg {
    Search(RecallRequest, RpcReplyPort<Result<RecallAnswer, CallError>>),
    /// Index what changed since the mark (sent to itself after it starts).
    CatchUp,
    /// Index documents whose only record is this index (a terminal session that ended, a
    /// screen segment).
    Put(Vec<Document>),
    /// `lookout recall forget`: remove the screen segments and terminal sessions the filter
    /// names, and their keyframes; replies how many documents went.
    Forget(Forget, RpcReplyPort<Result<u64, CallError>>),
    /// Remove what is older than the retention age (a timer sends it).
    Expire,
    /// Index the agent sessions that grew since the last look (a timer sends it).
    ReadTranscripts,
    /// Which of these agent sessions (document key, and the mark it changed to) the index
    /// lacks: not indexed at that mark, and not forgotten (the OpenClaw reader asks).
    Unread(
        Vec<(String, u64)>,
        RpcReplyPort<Result<Vec<String>, CallError>>,
    ),
    /// Index agent sessions read elsewhere and move their marks, unless one was forgotten
    /// meanwhile (the OpenClaw reader sends them).
    PutSessions(Vec<Document>, Vec<(String, u64)>),
    /// Answers at once: the liveness ping (`Tree::ping`).
    Ping(RpcReplyPort<()>),
}

pub struct RecallActor;

pub struct RecallArgs {
    pub directory: Directory,
    pub path: PathBuf,
    /// Screen segments and terminal sessions older than this are removed (`None`: kept).
    pub retention: Option<Duration>,
    /// Claude Code's projects folder, read every [`TRANSCRIPTS_PERIOD`] (`None`: not a
    /// source).
    pub transcripts: Option<PathBuf>,
    /// The OpenClaw gateway whose sessions are read every [`TRANSCRIPTS_PERIOD`] (`None`:
    /// not a source).
    pub openclaw: Option<Arc<GatewayClient>>,
}

pub struct RecallState {
    directory: Directory,
    transcripts: Option<PathBuf>,
    retention: Option<Duration>,
    path: PathBuf,
    /// `Err` while the index cannot be opened (a full disk): searches say why, and each
    /// message but a ping tries to open it again.
    index: Result<Arc<Mutex<RecallStore>>, String>,
    /// The database's commit count.
    commits: watch::Receiver<u64>,
    /// The commit count read before the last catch-up that finished began: the index holds
    /// everything committed up to it (`None`: not caught up since the start).
    caught_up_to: Option<u64>,
    /// Casts a catch-up once the database's commits go quiet.
    follower: tokio::task::JoinHandle<()>,
}

impl Actor for RecallActor {
    type Msg = RecallMsg;
    type State = RecallState;
    type Arguments = RecallArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<RecallMsg>,
        args: RecallArgs,
    ) -> Result<RecallState, ActorProcessingErr> {
        let index = open_index(args.path.clone()).await?;
        if let Err(error) = &index {
            tracing::warn!("recall is unavailable: {error}");
        }
        let _ = myself.cast(RecallMsg::CatchUp);
        let follower = tokio::spawn(follow_commits(
            args.directory.database_commits(),
            myself.clone(),
        ));
        if args.retention.is_some() {
            let expire = myself.clone();
            let first = args.directory.now();
            args.directory
                .timers()
                .every(EXPIRY_TIMER, first, EXPIRY_PERIOD, move || {
                    let _ = expire.cast(RecallMsg::Expire);
                    async {}
                });
        }
        if args.transcripts.is_some() {
            let read = myself.clone();
            let first = args.directory.now();
            args.directory.timers().every(
                TRANSCRIPTS_TIMER,
                first,
                TRANSCRIPTS_PERIOD,
                move || {
                    let _ = read.cast(RecallMsg::ReadTranscripts);
                    async {}
                },
            );
        }
        if let Some(client) = args.openclaw {
            let reader = OpenClawSessions::new(client);
            let recall = myself.clone();
            let first = args.directory.now();
            args.directory
                .timers()
                .every(OPENCLAW_TIMER, first, TRANSCRIPTS_PERIOD, move || {
                    let (reader, recall) = (reader.clone(), recall.clone());
                    async move { reader.look(&recall).await }
                });
        }
        Ok(RecallState {
            transcripts: args.transcripts,
            commits: args.directory.database_commits(),
            directory: args.directory,
            retention: args.retention,
            path: args.path,
            index,
            caught_up_to: None,
            follower,
        })
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<RecallMsg>,
        state: &mut RecallState,
    ) -> Result<(), ActorProcessingErr> {
        state.follower.abort();
        Ok(())
    }

    async fn handle(
        &self,
        _myself: ActorRef<RecallMsg>,
        message: RecallMsg,
        state: &mut RecallState,
    ) -> Result<(), ActorProcessingErr> {
        let faults = state.directory.faults().clone();
        faults.check(ActorKind::Recall);
        faults.hold_if_wedged(ActorKind::Recall).await;
        if state.index.is_err() && !matches!(message, RecallMsg::Ping(_)) {
            state.index = open_index(state.path.clone()).await?;
            if state.index.is_ok() {
                tracing::info!("recall's index opens again; it catches up with the tasks");
                state.caught_up_to = None;
            }
        }
        match message {
            RecallMsg::Ping(reply) => {
                let _ = reply.send(());
            }
            RecallMsg::CatchUp => {
                if let Err(error) = catch_up(state).await {
                    tracing::warn!("recall could not index the tasks: {}", error.message);
                }
            }
            RecallMsg::Put(documents) => {
                let stored = match index_of(state) {
                    Ok(index) => with_index(index, move |store| store.put(&documents)).await,
                    Err(error) => Err(error),
                };
                if let Err(error) = stored {
                    tracing::warn!(
                        "recall could not index a terminal session: {}",
                        error.message
                    );
                }
            }
            RecallMsg::Forget(filter, reply) => {
                let _ = reply.send(forget(state, filter).await);
            }
            RecallMsg::ReadTranscripts => match read_transcripts(state).await {
                Ok(0) => {}
                Ok(read) => tracing::debug!("recall indexed {read} agent sessions"),
                Err(error) => tracing::warn!(
                    "recall could not read the agent sessions: {}",
                    error.message
                ),
            },
            RecallMsg::Unread(marks, reply) => {
                let _ = reply.send(unread_sessions(state, marks).await);
            }
            RecallMsg::PutSessions(documents, marks) => {
                if let Err(error) = put_sessions(state, documents, marks).await {
                    tracing::warn!("recall could not index agent sessions: {}", error.message);
                }
            }
            RecallMsg::Expire => {
                if let Some(retention) = state.retention {
                    let before = state
                        .directory
                        .now()
                        .as_millis()
                        .saturating_sub(retention.as_millis() as u64);
                    let filter = Forget {
                        before_ms: Some(before),
                        ..Forget::default()
                    };
                    match forget(state, filter).await {
                        Ok(0) => {}
                        Ok(removed) => tracing::info!(
                            "recall removed {removed} screen segments and terminal sessions past the retention age"
                        ),
                        Err(error) => tracing::warn!("recall expiry failed: {}", error.message),
                    }
                }
            }
            RecallMsg::Search(request, reply) => {
                let outcome = match catch_up(state).await {
                    Ok(()) => search(state, request).await,
                    Err(error) => Err(error),
                };
                let _ = reply.send(outcome);
            }
        }
        Ok(())
    }
}

/// Removes what `filter` names from the index, then their keyframe files (and the folders
/// that held them).
async fn forget(state: &RecallState, filter: Forget) -> Result<u64, CallError> {
    let index = index_of(state)?;
    let Forgotten { documents, frames } =
        with_index(index, move |store| store.forget(&filter)).await?;
    tokio::task::spawn_blocking(move || {
        for frame in &frames {
            let path = std::path::Path::new(&frame.path);
            let _ = std::fs::remove_file(path);
            if let Some(folder) = path.parent() {
                let _ = std::fs::remove_dir(folder); // only once empty
            }
        }
    })
    .await
    .map_err(|_| CallError::internal("deleting keyframes panicked", "try again"))?;
    Ok(documents)
}

/// Opens the index on a blocking thread; `Err` says why it cannot be opened now.
async fn open_index(
    path: PathBuf,
) -> Result<Result<Arc<Mutex<RecallStore>>, String>, ActorProcessingErr> {
    let opened = tokio::task::spawn_blocking(move || open_private(&path)).await?;
    Ok(opened
        .map(|store| Arc::new(Mutex::new(store)))
        .map_err(|error| error.to_string()))
}

/// Opens the index with the same privacy as the database: only its user reads it (the
/// file is made 0600 before SQLite creates its `-wal` and `-shm` beside it, which take the
/// file's mode, and all three are tightened when found looser). An index that does not open
/// because it is damaged or not an SQLite database is set aside, renamed and never deleted,
/// and a new one takes its place: the catch-up that follows rebuilds it from the task
/// database. One that does not open for another reason (a full disk) is left as it is.
fn open_private(path: &std::path::Path) -> Result<RecallStore, RecallError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path);
    let store = match RecallStore::open(path) {
        Ok(store) => store,
        Err(error) if error.is_damage() => {
            let aside = set_aside(path);
            tracing::warn!(
                "the recall index {} does not open ({error}); it was set aside as {} and is \
                 rebuilt from the task database",
                path.display(),
                aside.display()
            );
            RecallStore::open(path)?
        }
        // A full disk, or one that fails for now: the file is kept as it is.
        Err(error) => return Err(error),
    };
    for file in [
        path.to_owned(),
        path.with_extension("sqlite-wal"),
        path.with_extension("sqlite-shm"),
    ] {
        if file.exists() {
            let _ = std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600));
        }
    }
    Ok(store)
}

/// Renames a damaged index (and its `-wal` and `-shm`) to `….damaged`, or `.damaged-2`…,
/// a name nothing has; returns the new name of the index.
fn set_aside(path: &std::path::Path) -> std::path::PathBuf {
    let named = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        std::path::PathBuf::from(name)
    };
    let suffix = std::iter::once(".damaged".to_owned())
        .chain((2..).map(|n| format!(".damaged-{n}")))
        .find(|suffix| std::fs::symlink_metadata(named(suffix)).is_err())
        .expect("some number is free");
    for companion in ["", "-wal", "-shm"] {
        let from = named(companion);
        if std::fs::symlink_metadata(&from).is_ok() {
            let _ = std::fs::rename(&from, named(&format!("{companion}{suffix}")));
        }
    }
    named(&suffix)
}

fn index_of(state: &RecallState) -> Result<Arc<Mutex<RecallStore>>, CallError> {
    state.index.clone().map_err(|error| {
        CallError::unavailable(
            format!("the recall index cannot be opened: {error}"),
            "check the data folder (lookout status shows it); removing recall.sqlite there and \
             restarting the daemon rebuilds it from the task database",
        )
    })
}

fn index_failed(error: &RecallError) -> CallError {
    CallError::unavailable(
        format!("recall failed: {error}"),
        "try again; if it persists, remove recall.sqlite in the data folder and restart the \
         daemon (it is rebuilt from the task database)",
    )
}

/// Runs `job` on the index without holding up the runtime. On the daemon's multi-threaded
/// runtime it runs in place, the worker's other tasks handed to another thread: a search
/// then costs no hop to a blocking thread and back, which measured 0.05 ms of a 0.3–1 ms
/// `memory_recall` (`cargo bench --bench recall -- end-to-end`). Elsewhere it runs on a
/// blocking thread.
async fn with_index<T: Send + 'static>(
    index: Arc<Mutex<RecallStore>>,
    job: impl FnOnce(&mut RecallStore) -> Result<T, RecallError> + Send + 'static,
) -> Result<T, CallError> {
    let run = move || job(&mut lock(&index));
    let outcome = match tokio::runtime::Handle::current().runtime_flavor() {
        tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).map_err(drop)
        }),
        _ => tokio::task::spawn_blocking(run).await.map_err(drop),
    };
    outcome
        .map_err(|()| CallError::internal("the recall index job panicked", "try again"))?
        .map_err(|error| index_failed(&error))
}

/// Indexes the agent sessions whose file changed length since the last look (a forgotten
/// one stays forgotten); returns how many were read.
async fn read_transcripts(state: &RecallState) -> Result<usize, CallError> {
    let Some(folder) = state.transcripts.clone() else {
        return Ok(0);
    };
    let index = index_of(state)?;
    with_index(index, move |store| {
        let mut documents = Vec::new();
        let mut read = Vec::new();
        for (path, length) in transcripts::scan(&folder) {
            let Some(session) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
                continue;
            };
            let key = format!("transcript:{session}");
            if !is_unread(store, &key, length)? {
                continue;
            }
            let Ok(text) = transcripts::read_tail(&path, length) else {
                continue; // removed meanwhile, or unreadable: tried again at the next look
            };
            documents.extend(transcripts::transcript_document(&path, &text));
            read.push((key, length));
        }
        if !documents.is_empty() {
            store.put(&documents)?;
        }
        for (key, length) in &read {
            store.set_mark(key, *length)?;
        }
        Ok(read.len())
    })
    .await
}

/// Whether the agent session `key`, changed to `mark` (a file's length, a time), is to be
/// read: not indexed at that mark, and not forgotten.
fn is_unread(store: &RecallStore, key: &str, mark: u64) -> Result<bool, RecallError> {
    let held = store.mark(key)?;
    Ok(held != recall::FORGOTTEN && held != mark)
}

/// Which of the agent sessions (document key, the mark it changed to) are to be read.
async fn unread_sessions(
    state: &RecallState,
    marks: Vec<(String, u64)>,
) -> Result<Vec<String>, CallError> {
    let index = index_of(state)?;
    with_index(index, move |store| {
        let mut unread = Vec::new();
        for (key, mark) in marks {
            if is_unread(store, &key, mark)? {
                unread.push(key);
            }
        }
        Ok(unread)
    })
    .await
}

/// Indexes agent sessions read elsewhere, and moves their marks; a session forgotten since
/// it was read stays forgotten.
async fn put_sessions(
    state: &RecallState,
    documents: Vec<Document>,
    marks: Vec<(String, u64)>,
) -> Result<(), CallError> {
    let index = index_of(state)?;
    with_index(index, move |store| {
        let mut kept = Vec::with_capacity(marks.len());
        for (key, mark) in marks {
            if store.mark(&key)? != recall::FORGOTTEN {
                kept.push((key, mark));
            }
        }
        let documents: Vec<Document> = documents
            .into_iter()
            .filter(|document| kept.iter().any(|(key, _)| *key == document.key))
            .collect();
        store.put(&documents)?;
        for (key, mark) in &kept {
            store.set_mark(key, *mark)?;
        }
        Ok(())
    })
    .await
}

/// Indexes what changed since the marks — the tasks, then the waits that woke someone —
/// unless nothing was committed since the last catch-up began.
async fn catch_up(state: &mut RecallState) -> Result<(), CallError> {
    let commits = *state.commits.borrow_and_update();
    if state.caught_up_to == Some(commits) {
        return Ok(());
    }
    catch_up_tasks(state).await?;
    catch_up_waits(state).await?;
    state.caught_up_to = Some(commits);
    Ok(())
}

/// Casts [`RecallMsg::CatchUp`] once the database's commits pause for
/// [`QUIET_BEFORE_CATCH_UP`], or [`LONGEST_CATCH_UP_DELAY`] after the first of a steady
/// stream; ends with the actor (or the directory).
async fn follow_commits(mut commits: watch::Receiver<u64>, recall: ActorRef<RecallMsg>) {
    let most_rounds = LONGEST_CATCH_UP_DELAY.as_millis() / QUIET_BEFORE_CATCH_UP.as_millis();
    while commits.changed().await.is_ok() {
        for _ in 0..most_rounds {
            let seen = *commits.borrow_and_update();
            tokio::time::sleep(QUIET_BEFORE_CATCH_UP).await;
            if *commits.borrow() == seen {
                break;
            }
        }
        commits.mark_unchanged();
        if recall.cast(RecallMsg::CatchUp).is_err() {
            return;
        }
    }
}

/// Indexes the wait of every wake event past the mark (with all its wakes so far).
async fn catch_up_waits(state: &RecallState) -> Result<(), CallError> {
    let index = index_of(state)?;
    loop {
        let after = with_index(index.clone(), |store| store.mark(EVENTS_MARK)).await?;
        let (newest, read, documents) =
            registry::read(&state.directory.registry()?, move |store: &Store| {
                let events = store.events_after(after, EVENTS_BATCH)?;
                let mut wait_ids: Vec<&str> =
                    events.iter().filter_map(|e| e.wait_id.as_deref()).collect();
                wait_ids.sort_unstable();
                wait_ids.dedup();
                let mut documents = Vec::with_capacity(wait_ids.len());
                for id in wait_ids {
                    if let Some(wait) = store.wait(&WaitId::new(id))? {
                        let wakes: Vec<EventRecord> = store
                            .events(&wait_event_seqs(&events, id))?
                            .into_iter()
                            .collect();
                        documents.push(wait_document(&wait, &wakes));
                    }
                }
                Ok((events.last().map(|e| e.seq), events.len(), documents))
            })
            .await?;
        let Some(newest) = newest else {
            return Ok(());
        };
        with_index(index.clone(), move |store| {
            store.put(&documents)?;
            store.set_mark(EVENTS_MARK, newest)
        })
        .await?;
        if read < EVENTS_BATCH {
            return Ok(());
        }
    }
}

/// The seqs of `events` raised by wait `id`.
fn wait_event_seqs(events: &[EventRecord], id: &str) -> Vec<u64> {
    events
        .iter()
        .filter(|e| e.wait_id.as_deref() == Some(id))
        .map(|e| e.seq)
        .collect()
}

/// Indexes every task updated since the mark, a batch at a time, then moves the mark.
async fn catch_up_tasks(state: &RecallState) -> Result<(), CallError> {
    let index = index_of(state)?;
    let since = with_index(index.clone(), |store| store.mark(TASKS_MARK)).await?;
    let mut cursor: Option<ListCursor> = None;
    loop {
        let after = cursor.clone();
        let batch = registry::read(&state.directory.registry()?, move |store: &Store| {
            let tasks = store.tasks_updated_since(since, after.as_ref(), CATCH_UP_BATCH)?;
            let mut documents = Vec::with_capacity(tasks.len());
            for task in &tasks {
                let thread = store.thread(&task.id, None, THREAD_DEPTH)?;
                let revisions = store.plan_revisions(&task.id)?;
                documents.push(task_document(task, &thread, &revisions));
            }
            Ok((tasks.last().map(ListCursor::after), tasks.len(), documents))
        })
        .await?;
        let (last, read, documents): (Option<ListCursor>, usize, Vec<Document>) = batch;
        let Some(last) = last else {
            return Ok(());
        };
        let mark = last.updated_at_ms;
        with_index(index.clone(), move |store| {
            store.put(&documents)?;
            store.set_mark(TASKS_MARK, mark)
        })
        .await?;
        if read < CATCH_UP_BATCH {
            return Ok(());
        }
        cursor = Some(last);
    }
}

async fn search(state: &RecallState, request: RecallRequest) -> Result<RecallAnswer, CallError> {
    let index = index_of(state)?;
    let search = Search {
        words: request.query.clone(),
        limit: request.limit,
        recency_bias: request.recency_bias,
        task_id: request.task_id,
        source: request.source,
        now_ms: state.directory.now().as_millis(),
    };
    with_index(index, move |store| {
        let found = store.search(&search)?;
        let mut results = found.results;
        // Keyframes past the byte budget were deleted: list only those still there.
        for ranked in &mut results {
            ranked
                .document
                .frames
                .retain(|frame| std::path::Path::new(&frame.path).exists());
        }
        Ok(RecallAnswer {
            results,
            indexed: store.counts()?,
            words: found.words,
            read_as: found.read_as,
            unmatched: found.unmatched,
        })
    })
    .await
}
