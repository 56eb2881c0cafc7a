//! Time: the `Clock` seam, its two implementations, the timer registry and the Clock actor
//! that drives it.
//!
//! Nothing else in lookout reads the system time. Actors hold the tree's `Arc<dyn Clock>`
//! and ask it for `now()`. The system clock's `now()` is the wall time of the moment the
//! daemon started carried forward by the boot-time clock (monotonic, and counting suspend),
//! so while the daemon runs every duration — wait timeouts, poll spacing, stuck idle time,
//! retries — is measured monotonically, and a wall clock set back or forward moves nothing;
//! wall time only anchors the daemon's time at start (persisted deadlines stay meaningful
//! across restarts) and is compared with it to tell of a jump. Deadlines go into [`Timers`] (deadline → action, keyed by name so
//! rescheduling replaces); the Clock actor fires every due timer on each tick. With the
//! system clock it ticks by itself; with a [`ManualClock`] nothing fires until a test calls
//! `Tree::tick`, which also waits for the fired actions to finish, so tests are exact.
//!
//! The timer table is shared data, not actor state: a restarted Clock actor drives the same
//! timers. Owners persist the deadlines that must survive the process (wait timeouts, retry
//! times) in their own records and re-arm them when they start.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::Timestamp;

use crate::faults::{ActorKind, Faults};

/// A boxed future, for actions and seams that must be object-safe.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The tick of the system clock: the resolution of every deadline.
pub const TICK_PERIOD: Duration = Duration::from_millis(200);
/// How long a waited-for tick lets the fired actions run before answering anyway.
pub const TICK_ACTIONS_TIMEOUT: Duration = Duration::from_secs(60);

/// The source of "now". `Send + Sync` so one instance serves the whole tree.
pub trait Clock: Debug + Send + Sync + 'static {
    fn now(&self) -> Timestamp;

    /// How far the wall clock is ahead of `now()` (negative: behind), in milliseconds: zero
    /// until someone sets the system clock while the daemon runs.
    fn wall_offset_ms(&self) -> i64 {
        0
    }

    /// Whether time moves by itself (the Clock actor then ticks on its own).
    fn moves_by_itself(&self) -> bool {
        true
    }

    /// The machine's boot and its steady clock now, which a wall clock set forward or back
    /// does not move: what a stored deadline is anchored to, so a daemon restarted in the
    /// same boot keeps the time a wait had left. `None` for a clock with no boot (a test's).
    fn boot_now(&self) -> Option<BootNow> {
        None
    }
}

/// A boot, and its steady clock (`CLOCK_BOOTTIME`) now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootNow {
    pub boot_id: String,
    pub steady_ms: u64,
}

/// Where the system clock reads its two times, in milliseconds: the wall clock (since the
/// epoch) and a steady one (any origin; never set back or forward).
#[derive(Clone, Copy, Debug)]
pub struct TimeSources {
    pub wall_ms: fn() -> u64,
    pub steady_ms: fn() -> u64,
}

impl TimeSources {
    /// The machine's: `SystemTime` and `CLOCK_BOOTTIME` (which, unlike `CLOCK_MONOTONIC`,
    /// goes on while the machine sleeps, so a wait's timeout still counts a suspend).
    pub fn machine() -> Self {
        Self {
            wall_ms: machine_wall_ms,
            steady_ms: machine_boot_ms,
        }
    }
}

fn machine_wall_ms() -> u64 {
    #[allow(clippy::disallowed_methods)] // the Clock is the one reader of time
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    since_epoch.as_millis() as u64
}

fn machine_boot_ms() -> u64 {
    let boot = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    (boot.tv_sec.max(0) as u64) * 1000 + (boot.tv_nsec.max(0) as u64) / 1_000_000
}

/// The daemon's time: the wall time at start, carried forward by the steady clock.
#[derive(Debug)]
pub struct SystemClock {
    sources: TimeSources,
    start_wall_ms: u64,
    start_steady_ms: u64,
    /// The kernel's id of this boot; `None` where it cannot be read.
    boot_id: Option<String>,
}

impl SystemClock {
    pub fn new() -> Self {
        Self::with_sources(TimeSources::machine())
    }

    pub fn with_sources(sources: TimeSources) -> Self {
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .ok()
            .map(|id| id.trim().to_owned())
            .filter(|id| !id.is_empty());
        Self {
            start_wall_ms: (sources.wall_ms)(),
            start_steady_ms: (sources.steady_ms)(),
            sources,
            boot_id,
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let elapsed = (self.sources.steady_ms)().saturating_sub(self.start_steady_ms);
        Timestamp::from_millis(self.start_wall_ms.saturating_add(elapsed))
    }

    fn boot_now(&self) -> Option<BootNow> {
        Some(BootNow {
            boot_id: self.boot_id.clone()?,
            steady_ms: (self.sources.steady_ms)(),
        })
    }

    fn wall_offset_ms(&self) -> i64 {
        let now = self.now().as_millis();
        let wall = (self.sources.wall_ms)();
        if wall >= now {
            i64::try_from(wall - now).unwrap_or(i64::MAX)
        } else {
            -i64::try_from(now - wall).unwrap_or(i64::MAX)
        }
    }
}

/// Time that only moves when a test says so.
#[derive(Debug)]
pub struct ManualClock {
    now_millis: AtomicU64,
}

impl ManualClock {
    pub fn new(start: Timestamp) -> Arc<Self> {
        Arc::new(Self {
            now_millis: AtomicU64::new(start.as_millis()),
        })
    }

    /// Moves time forward.
    pub fn advance(&self, by: Duration) {
        self.now_millis
            .fetch_add(by.as_millis() as u64, Ordering::SeqCst);
    }

    /// Jumps to `to` (never backwards: time that went back would break ordering).
    pub fn set(&self, to: Timestamp) {
        self.now_millis.fetch_max(to.as_millis(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_millis(self.now_millis.load(Ordering::SeqCst))
    }

    fn moves_by_itself(&self) -> bool {
        false
    }
}

type OnceAction = Box<dyn FnOnce() -> BoxFuture<()> + Send>;
type RepeatAction = Arc<dyn Fn() -> BoxFuture<()> + Send + Sync>;

enum Action {
    Once(OnceAction),
    Every(Duration, RepeatAction),
}

#[derive(Default)]
struct TimerTable {
    /// (deadline, insertion order) → (key, action).
    due: BTreeMap<(Timestamp, u64), (String, Action)>,
    by_key: HashMap<String, (Timestamp, u64)>,
    order: u64,
}

impl TimerTable {
    fn insert(&mut self, key: String, at: Timestamp, action: Action) {
        self.remove(&key);
        self.order += 1;
        let slot = (at, self.order);
        self.by_key.insert(key.clone(), slot);
        self.due.insert(slot, (key, action));
    }

    fn remove(&mut self, key: &str) {
        if let Some(slot) = self.by_key.remove(key) {
            self.due.remove(&slot);
        }
    }
}

/// The timer registry: named deadlines and what to do at each.
#[derive(Clone, Default)]
pub struct Timers {
    table: Arc<Mutex<TimerTable>>,
}

impl Timers {
    fn table(&self) -> std::sync::MutexGuard<'_, TimerTable> {
        crate::locks::lock(&self.table)
    }

    /// Runs `action` once at `at` (at the first tick from then on), replacing any timer named
    /// `key`. A deadline already past fires at the next tick.
    pub fn at<F, Fut>(&self, key: impl Into<String>, at: Timestamp, action: F)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let action: OnceAction = Box::new(move || Box::pin(action()));
        self.table().insert(key.into(), at, Action::Once(action));
    }

    /// Runs `action` every `period`, first at `first`, replacing any timer named `key`.
    pub fn every<F, Fut>(
        &self,
        key: impl Into<String>,
        first: Timestamp,
        period: Duration,
        action: F,
    ) where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let action: RepeatAction = Arc::new(move || Box::pin(action()));
        self.table().insert(
            key.into(),
            first,
            Action::Every(period.max(TICK_PERIOD), action),
        );
    }

    pub fn cancel(&self, key: &str) {
        self.table().remove(key);
    }

    /// When the timer named `key` fires next.
    pub fn deadline(&self, key: &str) -> Option<Timestamp> {
        self.table().by_key.get(key).map(|(at, _)| *at)
    }

    /// Whether a timer whose name starts with `prefix` is armed.
    pub fn any_named_like(&self, prefix: &str) -> bool {
        self.table()
            .by_key
            .keys()
            .any(|key| key.starts_with(prefix))
    }

    pub fn len(&self) -> usize {
        self.table().by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes every timer due at `now`, re-arming the repeating ones, and returns their
    /// actions' futures.
    fn take_due(&self, now: Timestamp) -> Vec<BoxFuture<()>> {
        let mut table = self.table();
        let mut fired = Vec::new();
        while let Some(entry) = table.due.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let ((at, _), (key, action)) = entry.remove_entry();
            table.by_key.remove(&key);
            match action {
                Action::Once(action) => fired.push(action()),
                Action::Every(period, action) => {
                    fired.push(action());
                    let mut next = at.saturating_add_millis(period.as_millis() as u64);
                    if next <= now {
                        // Fell behind (the daemon was busy or asleep): skip, don't burst.
                        next = now.saturating_add_millis(period.as_millis() as u64);
                    }
                    table.insert(key, next, Action::Every(period, action));
                }
            }
        }
        fired
    }
}

/// The Clock actor: drives the timer registry with one tick.
pub struct ClockActor;

pub struct ClockArgs {
    pub clock: Arc<dyn Clock>,
    pub timers: Timers,
    pub faults: Faults,
}

pub struct ClockState {
    clock: Arc<dyn Clock>,
    timers: Timers,
    faults: Faults,
    /// The wall clock's offset when it was last told of, to tell of each jump once.
    told_offset_ms: i64,
}

/// A change of the wall clock's offset larger than this is a jump worth a log line.
const WALL_JUMP_MS: i64 = 2_000;

pub enum ClockMsg {
    Now(RpcReplyPort<Timestamp>),
    /// Fire every due timer. With a reply port, answer (with the number fired) once their
    /// actions have finished.
    Tick(Option<RpcReplyPort<usize>>),
}

impl Actor for ClockActor {
    type Msg = ClockMsg;
    type State = ClockState;
    type Arguments = ClockArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<ClockMsg>,
        args: ClockArgs,
    ) -> Result<ClockState, ActorProcessingErr> {
        if args.clock.moves_by_itself() {
            myself.send_interval(TICK_PERIOD, || ClockMsg::Tick(None));
        }
        Ok(ClockState {
            told_offset_ms: args.clock.wall_offset_ms(),
            clock: args.clock,
            timers: args.timers,
            faults: args.faults,
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<ClockMsg>,
        msg: ClockMsg,
        state: &mut ClockState,
    ) -> Result<(), ActorProcessingErr> {
        state.faults.check(ActorKind::Clock);
        match msg {
            ClockMsg::Now(reply) => {
                let _ = reply.send(state.clock.now());
            }
            ClockMsg::Tick(reply) => {
                let offset = state.clock.wall_offset_ms();
                if (offset - state.told_offset_ms).abs() > WALL_JUMP_MS {
                    tracing::warn!(
                        jump_s = (offset - state.told_offset_ms) / 1000,
                        wall_ahead_s = offset / 1000,
                        "the system clock was set; lookout goes on measuring wait timeouts, \
                         polls and idle time on the steady clock, so nothing fires early or \
                         freezes; the times it shows are its own until it restarts"
                    );
                    state.told_offset_ms = offset;
                }
                let fired = state.timers.take_due(state.clock.now());
                let count = fired.len();
                let running: Vec<_> = fired.into_iter().map(tokio::spawn).collect();
                if let Some(reply) = reply {
                    tokio::spawn(async move {
                        let all = async {
                            for action in running {
                                let _ = action.await;
                            }
                        };
                        let _ = tokio::time::timeout(TICK_ACTIONS_TIMEOUT, all).await;
                        let _ = reply.send(count);
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    #[test]
    fn manual_clock_moves_only_forward() {
        let clock = ManualClock::new(Timestamp::from_secs(100));
        clock.advance(Duration::from_millis(1500));
        assert_eq!(clock.now(), Timestamp::from_millis(101_500));
        clock.set(Timestamp::from_secs(50));
        assert_eq!(clock.now(), Timestamp::from_millis(101_500));
        clock.set(Timestamp::from_secs(200));
        assert_eq!(clock.now(), Timestamp::from_secs(200));
    }

    #[test]
    fn system_clock_is_after_2025() {
        assert!(SystemClock::new().now() > Timestamp::from_secs(1_735_689_600));
    }

    static WALL_MS: AtomicU64 = AtomicU64::new(1_771_000_000_000);
    static STEADY_MS: AtomicU64 = AtomicU64::new(5_000);

    /// The wall clock set back an hour and forward a day: the daemon's time follows only
    /// the steady clock, and the offset says how far the wall moved.
    #[test]
    fn a_wall_clock_that_jumps_moves_nothing() {
        let clock = SystemClock::with_sources(TimeSources {
            wall_ms: || WALL_MS.load(Ordering::SeqCst),
            steady_ms: || STEADY_MS.load(Ordering::SeqCst),
        });
        let start = clock.now();
        assert_eq!(start.as_millis(), 1_771_000_000_000);
        STEADY_MS.fetch_add(2_000, Ordering::SeqCst);
        WALL_MS.fetch_add(2_000, Ordering::SeqCst);
        assert_eq!(clock.now().millis_since(start), 2_000);
        assert_eq!(clock.wall_offset_ms(), 0);
        WALL_MS.fetch_sub(3_600_000, Ordering::SeqCst);
        STEADY_MS.fetch_add(1_000, Ordering::SeqCst);
        assert_eq!(
            clock.now().millis_since(start),
            3_000,
            "set back: time goes on"
        );
        assert_eq!(clock.wall_offset_ms(), -3_600_000 - 1_000);
        WALL_MS.fetch_add(86_400_000 + 3_600_000, Ordering::SeqCst);
        assert_eq!(
            clock.now().millis_since(start),
            3_000,
            "set forward: no leap"
        );
        assert_eq!(clock.wall_offset_ms(), 86_400_000 - 1_000);
    }

    fn counter_action(
        counter: &Arc<AtomicUsize>,
    ) -> impl Fn() -> BoxFuture<()> + Send + Sync + 'static {
        let counter = counter.clone();
        move || {
            let counter = counter.clone();
            Box::pin(async move {
                counter.fetch_add(1, Ordering::SeqCst);
            })
        }
    }

    #[tokio::test]
    async fn due_timers_fire_in_deadline_order_and_keys_replace() {
        let timers = Timers::default();
        let log = Arc::new(Mutex::new(Vec::new()));
        for (key, at) in [("b", 20), ("a", 10), ("c", 30), ("b", 15)] {
            let log = log.clone();
            timers.at(key, Timestamp::from_secs(at), move || async move {
                crate::locks::lock(&log).push(format!("{key}@{at}"));
            });
        }
        assert_eq!(timers.len(), 3, "the second \"b\" replaced the first");
        for action in timers.take_due(Timestamp::from_secs(20)) {
            action.await;
        }
        assert_eq!(*crate::locks::lock(&log), ["a@10", "b@15"]);
        assert_eq!(timers.deadline("c"), Some(Timestamp::from_secs(30)));
        timers.cancel("c");
        assert!(timers.take_due(Timestamp::from_secs(100)).is_empty());
        assert!(timers.is_empty());
    }

    #[tokio::test]
    async fn repeating_timers_rearm_and_skip_missed_periods() {
        let timers = Timers::default();
        let count = Arc::new(AtomicUsize::new(0));
        timers.every(
            "scan",
            Timestamp::from_secs(60),
            Duration::from_secs(60),
            counter_action(&count),
        );
        assert!(timers.take_due(Timestamp::from_secs(59)).is_empty());
        for action in timers.take_due(Timestamp::from_secs(60)) {
            action.await;
        }
        assert_eq!(timers.deadline("scan"), Some(Timestamp::from_secs(120)));
        // Asleep for ten periods: one firing, then back on the period from now.
        for action in timers.take_due(Timestamp::from_secs(700)) {
            action.await;
        }
        assert_eq!(count.load(Ordering::SeqCst), 2);
        assert_eq!(timers.deadline("scan"), Some(Timestamp::from_secs(760)));
    }
}
