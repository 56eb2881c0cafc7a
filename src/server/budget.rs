//! The server's memory budget: how many bytes of requests and replies it holds at once.
//!
//! Every connection may buffer a small request (`FREE_LINE_BYTES`) on its own; beyond that,
//! the bytes of a partial request line, of a line being answered and of replies waiting to be
//! written all come out of one shared pool (`POOL_BYTES`). A connection that cannot get its
//! bytes waits, which is back-pressure: the daemon stops reading from it, and from a client
//! that does not read its replies once that client's own share (`OUTBOX_BYTES`) is queued.
//! Replies themselves are bounded (`MAX_REPLY_BYTES`, `MAX_BATCH_REPLY_BYTES`), so no request
//! makes the daemon build an answer it could not hold. The timeouts of `server/mod.rs` free
//! what a stalled client holds.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Bytes of a request line each connection buffers without drawing on the pool.
pub const FREE_LINE_BYTES: usize = 16 * 1024;
/// The shared pool: partial lines beyond the free share, lines in hand, queued replies.
pub const POOL_BYTES: usize = 64 * 1024 * 1024;
/// Reply bytes one connection may have queued before the daemon stops reading from it.
pub const OUTBOX_BYTES: usize = 4 * 1024 * 1024;
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
