//! The Registry: sole owner of the database.
//!
//! Writes that arrive while a commit is in flight wait in `pending` and go into the next
//! transaction together (group commit); each caller is answered only after the transaction
//! holding its write is durable. A batch that fails as a group is retried write by write,
//! so one bad write cannot fail its neighbours. Reads run on the storage-read lane beside
//! the writer, commits on a lane of their own (`lanes.rs`): every redb call happens on a
//! thread no other kind of work can hold, never on the runtime. A read that panics (redb does
//! on a damaged page) answers a storage error and is counted. [`probe`], behind the
//! watchdog, is a real round trip: a read and an (empty) durable commit.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::{Counter, StorageError, Store, WriteBatch};
use tokio::sync::{oneshot, watch};

use crate::error::{CallError, from_call};
use crate::faults::{ActorKind, Faults};
use crate::lanes::{LaneError, Lanes, panic_message};

/// How long a caller waits for its write to be committed.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a caller waits for a read.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `daemon.status` waits for the counters.
pub const STATS_TIMEOUT: Duration = Duration::from_secs(5);

/// A read to run against the store on the storage-read lane; it returns whether it found the
/// storage damaged (its read panicked).
pub type ReadJob = Box<dyn FnOnce(&Store) -> ReadHealth + Send + 'static>;

/// What a read found out about the store besides its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadHealth {
    Sound,
    /// The read panicked inside redb: a damaged page.
    Damaged,
}

type WriteReply = RpcReplyPort<Result<(), CallError>>;

pub enum RegistryMsg {
    Write(WriteBatch, WriteReply),
    Read(ReadJob),
    Stats(RpcReplyPort<RegistryStats>),
    /// From the commit task: the transaction it ran is over.
    CommitFinished {
        writes: usize,
        failed: usize,
    },
}

pub struct RegistryActor;

pub struct RegistryArgs {
    pub store: Arc<Store>,
    pub lanes: Lanes,
    /// Off only to measure what group commit buys: one transaction per write.
    pub group_commit: bool,
    pub faults: Faults,
    /// Counts each transaction that committed (`Directory::database_commits`).
    pub commits: Arc<watch::Sender<u64>>,
}

pub struct RegistryState {
    store: Arc<Store>,
    lanes: Lanes,
    /// Reads that panicked since the Registry started (shared with the read tasks).
    damaged_reads: Arc<AtomicU64>,

    group_commit: bool,
    faults: Faults,
    commits: Arc<watch::Sender<u64>>,
    pending: Vec<(WriteBatch, WriteReply)>,
    committing: bool,
    stats: RegistryStats,
}

/// Commit counters since the Registry started.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegistryStats {
    pub commits: u64,
    pub writes: u64,
    pub failed_writes: u64,
    pub largest_group: usize,
    pub group_commit: bool,
    /// Reads that found a damaged page (redb panicked reading it).
    pub damaged_reads: u64,
}

impl Actor for RegistryActor {
    type Msg = RegistryMsg;
    type State = RegistryState;
    type Arguments = RegistryArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<RegistryMsg>,
        args: RegistryArgs,
    ) -> Result<RegistryState, ActorProcessingErr> {
        Ok(RegistryState {
            store: args.store,
            lanes: args.lanes,
            damaged_reads: Arc::default(),
            group_commit: args.group_commit,
            faults: args.faults,
            commits: args.commits,
            pending: Vec::new(),
            committing: false,
            stats: RegistryStats {
                group_commit: args.group_commit,
                ..RegistryStats::default()
            },
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<RegistryMsg>,
        msg: RegistryMsg,
        state: &mut RegistryState,
    ) -> Result<(), ActorProcessingErr> {
        state.faults.check(ActorKind::Registry);
        match msg {
            RegistryMsg::Write(batch, reply) => {
                state.pending.push((batch, reply));
                if !state.committing {
                    start_commit(&myself, state);
                }
            }
            RegistryMsg::Read(job) => {
                let store = state.store.clone();
                let lane = state.lanes.storage_reads.clone();
                let damaged_reads = state.damaged_reads.clone();
                tokio::spawn(async move {
                    if let Ok(ReadHealth::Damaged) = lane.run(move || job(&store)).await {
                        damaged_reads.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
            RegistryMsg::Stats(reply) => {
                let mut stats = state.stats.clone();
                stats.damaged_reads = state.damaged_reads.load(Ordering::Relaxed);
                let _ = reply.send(stats);
            }
            RegistryMsg::CommitFinished { writes, failed } => {
                state.committing = false;
                state.stats.commits += 1;
                state.stats.writes += writes as u64;
                state.stats.failed_writes += failed as u64;
                state.stats.largest_group = state.stats.largest_group.max(writes);
                if !state.pending.is_empty() {
                    start_commit(&myself, state);
                }
            }
        }
        Ok(())
    }
}

/// Takes the pending writes (all of them, or one without group commit) and commits them on
/// the commit lane, whose thread tells the Registry the commit is over and answers the
/// callers once the commit is durable (no hop back through the runtime).
fn start_commit(myself: &ActorRef<RegistryMsg>, state: &mut RegistryState) {
    let take = if state.group_commit {
        state.pending.len()
    } else {
        1
    };
    let group: Vec<_> = state.pending.drain(..take).collect();
    let writes = group.len();
    state.committing = true;
    let store = state.store.clone();
    let registry = myself.clone();
    let commits = state.commits.clone();
    let submitted = state.lanes.commits.submit(move || {
        let (batches, replies): (Vec<_>, Vec<_>) = group.into_iter().unzip();
        let outcomes = catch_unwind(AssertUnwindSafe(|| commit_group(&store, &batches)))
            .unwrap_or_else(|payload| {
                let error = CallError::internal(
                    format!(
                        "the commit thread failed: {}",
                        LaneError::Panicked(panic_message(&*payload))
                    ),
                    "nothing was saved; retry the call",
                );
                vec![Err(error); batches.len()]
            });
        let failed = outcomes.iter().filter(|outcome| outcome.is_err()).count();
        if failed < writes {
            commits.send_modify(|count| *count += 1);
        }
        // Counted before anyone is answered, so a caller that asks for the stats after its
        // write returned sees it counted. A Registry that died meanwhile has a successor
        // with its own state; nothing to do.
        let _ = registry.cast(RegistryMsg::CommitFinished { writes, failed });
        for (reply, outcome) in replies.into_iter().zip(outcomes) {
            let _ = reply.send(outcome);
        }
    });
    if let Err(error) = submitted {
        // The job, and with it the callers' reply ports, was dropped: they get an error.
        tracing::error!(%error, writes, "the commit lane took no job");
        let _ = myself.cast(RegistryMsg::CommitFinished {
            writes,
            failed: writes,
        });
    }
}

/// One transaction for the whole group; if that fails, each write alone, so the outcome of
/// every write is its own.
fn commit_group(store: &Store, batches: &[WriteBatch]) -> Vec<Result<(), CallError>> {
    match store.apply(batches) {
        Ok(()) => vec![Ok(()); batches.len()],
        Err(error) if batches.len() == 1 => vec![Err(log_storage_error(&error))],
        Err(group_error) => {
            tracing::warn!(%group_error, writes = batches.len(), "group commit failed; retrying writes one by one");
            batches
                .iter()
                .map(|batch| {
                    store
                        .apply(std::slice::from_ref(batch))
                        .map_err(|e| log_storage_error(&e))
                })
                .collect()
        }
    }
}

fn log_storage_error(error: &StorageError) -> CallError {
    tracing::error!(%error, "write failed");
    CallError::storage(error)
}

/// Commits `batch` durably; returns once it is on disk (or failed).
pub async fn write(registry: &ActorRef<RegistryMsg>, batch: WriteBatch) -> Result<(), CallError> {
    let outcome = registry
        .call(
            |reply| RegistryMsg::Write(batch, reply),
            Some(WRITE_TIMEOUT),
        )
        .await;
    from_call("registry", WRITE_TIMEOUT, outcome)
}

/// Runs `read` against the store on the storage-read lane and returns its result; a read
/// that panics (a damaged page) is a storage error that says how to check the file.
pub async fn read<T, F>(registry: &ActorRef<RegistryMsg>, read: F) -> Result<T, CallError>
where
    T: Send + 'static,
    F: FnOnce(&Store) -> Result<T, StorageError> + Send + 'static,
{
    let (sender, receiver) = oneshot::channel();
    let job: ReadJob = Box::new(move |store| {
        let (outcome, health) = match catch_unwind(AssertUnwindSafe(|| read(store))) {
            Ok(outcome) => (
                outcome.map_err(|error| CallError::storage_read(&error)),
                ReadHealth::Sound,
            ),
            Err(panic) => {
                let message = crate::lanes::panic_message(&*panic);
                tracing::error!(%message, "a read of the database panicked: a damaged page?");
                (
                    Err(CallError::storage_damaged(&message)),
                    ReadHealth::Damaged,
                )
            }
        };
        let _ = sender.send(outcome);
        health
    });
    registry
        .cast(RegistryMsg::Read(job))
        .map_err(|_| CallError::actor_lost("registry"))?;
    match tokio::time::timeout(READ_TIMEOUT, receiver).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(_)) => Err(CallError::actor_lost("registry")),
        Err(_) => Err(CallError::timed_out("registry", READ_TIMEOUT)),
    }
}

/// The storage round trip behind the watchdog: a real read through the read lane and an
/// empty durable commit through the commit lane, each within `timeout`. A disk that stopped
/// answering, or lanes held by hung work, fail it.
pub async fn probe(registry: &ActorRef<RegistryMsg>, timeout: Duration) -> Result<(), CallError> {
    let round_trip = async {
        read(registry, |store: &Store| {
            store.counter(Counter::TaskSequence)
        })
        .await?;
        write(registry, WriteBatch::new()).await
    };
    tokio::time::timeout(timeout, round_trip)
        .await
        .map_err(|_| CallError::timed_out("storage probe", timeout))?
}

pub async fn stats(registry: &ActorRef<RegistryMsg>) -> Result<RegistryStats, CallError> {
    let outcome = registry.call(RegistryMsg::Stats, Some(STATS_TIMEOUT)).await;
    from_call("registry", STATS_TIMEOUT, outcome.map(|r| r.map(Ok)))
}
