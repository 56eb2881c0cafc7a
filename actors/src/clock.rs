//! Time: the `Clock` seam, its two implementations, and the Clock actor.
//!
//! Nothing else in lookout reads the system time. Actors hold the tree's `Arc<dyn Clock>`
//! and ask it for `now()`; tests and the harness plug in a [`ManualClock`] and move time
//! by hand, so every timestamp a test sees is exact.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::Timestamp;

/// The source of "now". `Send + Sync` so one instance serves the whole tree.
pub trait Clock: Debug + Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// Wall-clock time.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp::from_millis(since_epoch.as_millis() as u64)
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
}

/// The Clock actor: the tree's owner of time. Answers `Now` for actors that prefer a
/// message to a shared handle.
pub struct ClockActor;

pub struct ClockState {
    clock: Arc<dyn Clock>,
}

pub enum ClockMsg {
    Now(RpcReplyPort<Timestamp>),
}

impl Actor for ClockActor {
    type Msg = ClockMsg;
    type State = ClockState;
    type Arguments = Arc<dyn Clock>;

    async fn pre_start(
        &self,
        _myself: ActorRef<ClockMsg>,
        clock: Arc<dyn Clock>,
    ) -> Result<ClockState, ActorProcessingErr> {
        Ok(ClockState { clock })
    }

    async fn handle(
        &self,
        _myself: ActorRef<ClockMsg>,
        msg: ClockMsg,
        state: &mut ClockState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            ClockMsg::Now(reply) => {
                let _ = reply.send(state.clock.now());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
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
        assert!(SystemClock.now() > Timestamp::from_secs(1_735_689_600));
    }
}
