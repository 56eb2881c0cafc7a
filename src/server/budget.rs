//! The server's memory budget: how many bytes of requests and replies it holds at once.
//!
//! Every connection may buffer a small request (`FREE_LINE_BYTES`) on its own and queue one
//! small reply (`SMALL_REPLY_BYTES`): the next request is read only once the last reply went
//! to the socket, so a client that does not read is no longer read, and what it holds is
//! bounded by the connection cap. Beyond that, the bytes of a partial request line, of a line
//! being answered and of a large reply all come out of one shared pool (`POOL_BYTES`). A
//! large reply takes its bytes as it is built (`replies.rs`) and never waits for them: when
//! the pool has none, the reply is an error saying to try again, so no client ever waits
//! behind another's unread replies. A client that takes no bytes of a reply holding pool
//! bytes is cut off after `STALL_UNDER_PRESSURE` while the pool runs low, and after the line
//! timeout in any case. Replies themselves are bounded (`MAX_REPLY_BYTES`,
//! `MAX_BATCH_REPLY_BYTES`), as are batches (`jsonrpc::MAX_BATCH_ENTRIES`).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Bytes of a request line each connection buffers without drawing on the pool.
pub const FREE_LINE_BYTES: usize = 16 * 1024;
/// The shared pool: partial lines beyond the free share, lines in hand, queued replies.
pub const POOL_BYTES: usize = 64 * 1024 * 1024;
/// A reply up to this size is not taken from the pool: each connection queues one reply at
/// most, so these are bounded by the connection cap (512 × 64 KiB by default).
pub const SMALL_REPLY_BYTES: usize = 64 * 1024;
/// How long a client may take none of a reply that holds pool bytes, while the pool is low,
/// before it is cut off (its reply dropped, its bytes given back).
pub const STALL_UNDER_PRESSURE: Duration = Duration::from_millis(500);
/// The largest reply to one request; a larger one is answered with an error saying to page.
pub const MAX_REPLY_BYTES: usize = 2 * 1024 * 1024;
/// The largest reply to one batch; entries past it are answered with an error, unrun.
pub const MAX_BATCH_REPLY_BYTES: usize = 4 * 1024 * 1024;

/// A pool of bytes shared by every connection (or a connection's own share of it).
#[derive(Clone)]
pub struct Budget {
    bytes: Arc<Semaphore>,
    capacity: usize,
}

/// Bytes taken from a `Budget`, given back when dropped.
pub struct Held(Option<OwnedSemaphorePermit>);

impl Budget {
    pub fn new(capacity: usize) -> Self {
        Self {
            bytes: Arc::new(Semaphore::new(capacity)),
            capacity,
        }
    }

    /// Takes `bytes` (at most the whole budget, so one large request can always go through
    /// alone), waiting until they are free.
    pub async fn take(&self, bytes: usize) -> Held {
        let wanted = bytes.min(self.capacity);
        if wanted == 0 {
            return Held(None);
        }
        let permits = u32::try_from(wanted).unwrap_or(u32::MAX);
        match self.bytes.clone().acquire_many_owned(permits).await {
            Ok(permit) => Held(Some(permit)),
            // The semaphore is never closed; holding nothing is the safe reading if it were.
            Err(_) => Held(None),
        }
    }

    /// Takes as much of `bytes` as is free now, or, when less than `minimum` is free, waits
    /// for `minimum`: a reader short of room makes progress with what there is.
    pub async fn take_up_to(&self, bytes: usize, minimum: usize) -> Held {
        let minimum = minimum.min(bytes);
        let free = self.bytes.available_permits();
        if free >= minimum && free > 0 {
            let grant = u32::try_from(bytes.min(free)).unwrap_or(u32::MAX);
            if let Ok(permit) = self.bytes.clone().try_acquire_many_owned(grant) {
                return Held(Some(permit));
            }
        }
        self.take(minimum).await
    }

    /// Takes `bytes` if they are free now; never waits.
    pub fn try_take(&self, bytes: usize) -> Option<Held> {
        if bytes == 0 {
            return Some(Held(None));
        }
        let permits = u32::try_from(bytes).ok()?;
        self.bytes
            .clone()
            .try_acquire_many_owned(permits)
            .ok()
            .map(|permit| Held(Some(permit)))
    }

    /// Whether less than a quarter of the budget is free.
    pub fn is_low(&self) -> bool {
        self.available() < self.capacity / 4
    }

    /// Bytes not taken right now (for `daemon.status` and the tests).
    pub fn available(&self) -> usize {
        self.bytes.available_permits()
    }
}

impl Held {
    /// Holding nothing.
    pub fn nothing() -> Self {
        Self(None)
    }

    /// Adds what `other`, taken from the same budget, holds to this.
    pub fn merge(&mut self, other: Held) {
        match (&mut self.0, other.0) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }

    pub fn bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |permit| permit.num_permits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bytes_come_back_when_dropped_and_a_request_over_capacity_takes_all() {
        let budget = Budget::new(100);
        let mut held = budget.take(30).await;
        held.merge(budget.take(20).await);
        assert_eq!(held.bytes(), 50);
        assert_eq!(budget.available(), 50);
        drop(held);
        assert_eq!(budget.available(), 100);
        let all = budget.take(1_000).await;
        assert_eq!(all.bytes(), 100);
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(20), budget.take(1))
                .await
                .is_err(),
            "nothing is left while the whole budget is held"
        );
        drop(all);
        assert_eq!(budget.take(0).await.bytes(), 0);
    }
}
