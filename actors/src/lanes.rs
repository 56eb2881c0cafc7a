//! Lanes: small pools of dedicated threads for blocking work, one per kind of work, so that
//! work which never returns in one kind (opening a FIFO, reading a hung network mount) cannot
//! take the threads another kind needs (the database's reads and commits).
//!
//! tokio's blocking pool is one pool for everything, and a runtime being dropped waits for
//! every thread in it; a lane's threads are detached, so a job that hangs holds neither the
//! other lanes nor the process's exit. A job that panics is answered as [`LaneError::Panicked`]
//! and its thread carries on.
//!
//! A lane whose jobs come one right after another (the commits of a writer that waits for
//! each before sending the next) can keep its threads awake for a while after each job
//! ([`Lane::staying_awake`]): they look for the next job between yields of their core before
//! they sleep, so that job does not wait for a sleeping thread to be woken — on a virtual
//! machine a futex wake and an inter-processor interrupt, tens of microseconds.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::locks::lock;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// How many times the commit thread yields its core, looking for the next commit, before it
/// sleeps: 0.07-0.3 ms on the development machine (`cargo bench --bench socket` prints it; a
/// yield that finds another thread waiting gives the core away), at most that much CPU per
/// commit. A sequential writer's round trip drops by a fifth with it; 1,000 did no better.
pub const COMMIT_AWAKE_YIELDS: u32 = 200;

/// How long a thread above a lane's floor stays without work before it ends.
const IDLE_THREAD_LIFETIME: Duration = Duration::from_secs(30);

/// A named pool of threads that run blocking jobs in the order they come: `floor` threads
/// always, more while jobs wait for one, up to `ceiling`.
#[derive(Clone, Debug)]
pub struct Lane {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    name: &'static str,
    sender: Mutex<Sender<Job>>,
    receiver: Arc<Mutex<Receiver<Job>>>,
    floor: usize,
    ceiling: usize,
    /// Threads alive, and of those the ones running a job.
    threads: AtomicUsize,
    busy: AtomicUsize,
    /// How many times a thread yields its core, looking for the next job, before it sleeps.
    awake_yields: u32,
}

/// Why a job gave no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaneError {
    /// The job panicked; the message says with what.
    Panicked(String),
    /// No thread could take the job (the system refused to start one).
    Closed,
}

impl std::fmt::Display for LaneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaneError::Panicked(message) => write!(f, "panicked: {message}"),
            LaneError::Closed => write!(f, "no thread could take the job"),
        }
    }
}

impl Lane {
    /// A lane of `threads` threads named `lookout-{name}-N`.
    pub fn fixed(name: &'static str, threads: usize) -> Self {
        Self::elastic(name, threads, threads)
    }

    /// A lane of `threads` threads that, after each job, yield their core up to `yields`
    /// times looking for the next job before they sleep (see the module documentation).
    pub fn staying_awake(name: &'static str, threads: usize, yields: u32) -> Self {
        Self::build(name, threads, threads, yields)
    }

    /// A lane of at least `floor` threads that grows to `ceiling` while jobs wait.
    pub fn elastic(name: &'static str, floor: usize, ceiling: usize) -> Self {
        Self::build(name, floor, ceiling, 0)
    }

    fn build(name: &'static str, floor: usize, ceiling: usize, awake_yields: u32) -> Self {
        let (sender, receiver) = channel::<Job>();
        let lane = Self {
            inner: Arc::new(Inner {
                name,
                sender: Mutex::new(sender),
                receiver: Arc::new(Mutex::new(receiver)),
                floor: floor.max(1),
                ceiling: ceiling.max(floor).max(1),
                threads: AtomicUsize::new(0),
                busy: AtomicUsize::new(0),
                awake_yields,
            }),
        };
        for _ in 0..lane.inner.floor {
            lane.add_thread();
        }
        lane
    }

    /// Runs `job` on one of the lane's threads and returns what it returned. Dropping the
    /// future does not stop a job already running; it only drops its result.
    pub async fn run<T, F>(&self, job: F) -> Result<T, LaneError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        let inner = self.inner.clone();
        self.queue(Box::new(move || {
            let outcome =
                catch_unwind(AssertUnwindSafe(job)).map_err(|payload| panic_message(&*payload));
            inner.busy.fetch_sub(1, Ordering::SeqCst);
            let _ = sender.send(outcome);
        }))?;
        match receiver.await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(message)) => Err(LaneError::Panicked(message)),
            Err(_) => Err(LaneError::Closed),
        }
    }

    /// Queues `job` and returns at once: the job answers whoever waits for it itself (from
    /// the lane's thread, without a hop back through the runtime). A panic in it is logged
    /// and the thread carries on; the job must not leave anyone waiting when it unwinds.
    pub fn submit<F>(&self, job: F) -> Result<(), LaneError>
    where
        F: FnOnce() + Send + 'static,
    {
        let inner = self.inner.clone();
        self.queue(Box::new(move || {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(job)) {
                let message = panic_message(&*payload);
                tracing::error!(lane = inner.name, %message, "a submitted job panicked");
            }
            inner.busy.fetch_sub(1, Ordering::SeqCst);
        }))
    }

    /// Hands a job to the threads, starting one more if every thread is busy.
    fn queue(&self, job: Job) -> Result<(), LaneError> {
        // Counted busy from the moment it is queued, so a queue that outgrows the threads
        // starts another one.
        let busy = self.inner.busy.fetch_add(1, Ordering::SeqCst) + 1;
        if busy > self.inner.threads.load(Ordering::SeqCst) {
            self.add_thread();
        }
        if lock(&self.inner.sender).send(job).is_err() {
            self.inner.busy.fetch_sub(1, Ordering::SeqCst);
            return Err(LaneError::Closed);
        }
        Ok(())
    }

    pub fn name(&self) -> &'static str {
        self.inner.name
    }

    /// Jobs running or waiting for a thread.
    pub fn busy(&self) -> usize {
        self.inner.busy.load(Ordering::SeqCst)
    }

    /// Threads alive now.
    pub fn threads(&self) -> usize {
        self.inner.threads.load(Ordering::SeqCst)
    }

    /// Starts one more thread unless the lane is at its ceiling.
    fn add_thread(&self) {
        let inner = &self.inner;
        let claimed = inner
            .threads
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |alive| {
                (alive < inner.ceiling).then_some(alive + 1)
            });
        let Ok(index) = claimed else {
            return;
        };
        let receiver = inner.receiver.clone();
        let lane = Arc::downgrade(inner);
        let awake_yields = inner.awake_yields;
        let spawned = std::thread::Builder::new()
            .name(format!("lookout-{}-{index}", inner.name))
            .spawn(move || serve(&receiver, &lane, awake_yields));
        if let Err(error) = spawned {
            inner.threads.fetch_sub(1, Ordering::SeqCst);
            tracing::error!(lane = inner.name, %error, "cannot start a lane thread");
        }
    }
}

/// One thread's life: take the next job and run it, looking for it between `awake_yields`
/// yields first; a thread above the floor ends after [`IDLE_THREAD_LIFETIME`] without work,
/// and every thread ends once the lane is dropped.
fn serve(receiver: &Mutex<Receiver<Job>>, lane: &Weak<Inner>, awake_yields: u32) {
    loop {
        if let Some(job) = next_while_awake(receiver, awake_yields) {
            job();
            continue;
        }
        let next = lock(receiver).recv_timeout(IDLE_THREAD_LIFETIME);
        match next {
            Ok(job) => job(),
            Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => {
                let Some(inner) = lane.upgrade() else {
                    return;
                };
                let retired =
                    inner
                        .threads
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |alive| {
                            (alive > inner.floor).then_some(alive - 1)
                        });
                if retired.is_ok() {
                    return;
                }
            }
        }
    }
}

/// The next job if one comes while the thread yields its core `yields` times; `None` if
/// none did (or the lane is gone), and the thread may sleep.
fn next_while_awake(receiver: &Mutex<Receiver<Job>>, yields: u32) -> Option<Job> {
    for _ in 0..yields {
        match lock(receiver).try_recv() {
            Ok(job) => return Some(job),
            Err(std::sync::mpsc::TryRecvError::Empty) => std::thread::yield_now(),
            Err(std::sync::mpsc::TryRecvError::Disconnected) => return None,
        }
    }
    None
}

/// The text a panic carried.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// The lanes of one actor tree, kept in the Directory so restarted actors use the same ones.
#[derive(Clone, Debug)]
pub struct Lanes {
    /// The Registry's reads (redb read transactions run side by side).
    pub storage_reads: Lane,
    /// The Registry's commits (one at a time; redb has one writer).
    pub commits: Lane,
    /// What a wait's source does to a file: `stat`, open, read.
    pub targets: Lane,
}

impl Default for Lanes {
    fn default() -> Self {
        Self {
            storage_reads: Lane::fixed("storage-read", 4),
            // A sequential writer's next commit comes a socket round trip after its last
            // (about 0.2 ms): the commit thread stays awake that long instead of being woken.
            commits: Lane::staying_awake("commit", 1, COMMIT_AWAKE_YIELDS),
            // A file on a hung mount holds a thread until the mount answers; each wait has at
            // most one read out, so the lane grows with such waits instead of stalling others.
            targets: Lane::elastic("targets", 1, 256),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_lane_staying_awake_takes_jobs_while_awake_and_after_it_slept() {
        let lane = Lane::staying_awake("test", 1, 50);
        for round in 0..3 {
            assert_eq!(lane.run(move || round * 2).await, Ok(round * 2));
        }
        // Long past 50 yields: the thread sleeps, and a job still wakes it.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(lane.run(|| 7).await, Ok(7));
        assert_eq!(lane.threads(), 1);
        assert_eq!(lane.busy(), 0);
    }

    #[tokio::test]
    async fn a_job_runs_and_answers() {
        let lane = Lane::fixed("test", 2);
        assert_eq!(lane.run(|| 6 * 7).await, Ok(42));
    }

    #[tokio::test]
    async fn a_panicking_job_is_an_error_and_the_thread_carries_on() {
        let lane = Lane::fixed("test", 1);
        let outcome: Result<(), _> = lane.run(|| panic!("page 7 is corrupt")).await;
        assert_eq!(
            outcome,
            Err(LaneError::Panicked("page 7 is corrupt".to_owned()))
        );
        assert_eq!(lane.run(|| "still here").await, Ok("still here"));
    }

    #[tokio::test]
    async fn a_submitted_job_answers_for_itself_and_a_panic_in_one_spares_the_thread() {
        let lane = Lane::fixed("test", 1);
        lane.submit(|| panic!("page 7 is corrupt")).unwrap();
        let (answer, answered) = oneshot::channel();
        lane.submit(move || {
            let _ = answer.send(std::thread::current().name().map(str::to_owned));
        })
        .unwrap();
        assert_eq!(answered.await.unwrap().as_deref(), Some("lookout-test-0"));
        assert_eq!(lane.threads(), 1, "the panic did not cost the thread");
        while lane.busy() > 0 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn a_hung_job_holds_only_its_own_lane() {
        let stuck = Lane::fixed("stuck", 1);
        let other = Lane::fixed("other", 1);
        let (release, held) = std::sync::mpsc::channel::<()>();
        let hung = stuck.clone();
        let hanging = tokio::spawn(async move { hung.run(move || held.recv()).await });
        // The other lane answers while the stuck one's only thread is held.
        assert_eq!(other.run(|| 1).await, Ok(1));
        while stuck.busy() == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(stuck.busy(), 1);
        release.send(()).unwrap();
        assert_eq!(hanging.await.unwrap(), Ok(Ok(())));
        assert_eq!(stuck.busy(), 0);
    }

    #[tokio::test]
    async fn an_elastic_lane_grows_past_a_hung_job_up_to_its_ceiling() {
        let lane = Lane::elastic("grows", 1, 2);
        let (release, held) = std::sync::mpsc::channel::<()>();
        let hung = lane.clone();
        let hanging = tokio::spawn(async move { hung.run(move || held.recv()).await });
        while lane.busy() == 0 {
            tokio::task::yield_now().await;
        }
        // The only thread is held; the next job gets a second one.
        assert_eq!(lane.run(|| 2).await, Ok(2));
        assert_eq!(lane.threads(), 2);
        release.send(()).unwrap();
        assert_eq!(hanging.await.unwrap(), Ok(Ok(())));
    }
}
