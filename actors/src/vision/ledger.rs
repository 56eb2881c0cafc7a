//! The vision ledger: what judging cost, per wait and in total, since the daemon started.
//!
//! Kept outside the Vision actor (shared, behind a mutex) for two reasons: a restarted
//! actor keeps counting where the old one stopped, and the wait code reads its own numbers
//! without a round trip through the actor's mailbox. Only the Vision actor writes it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::condition::judge::Usage;

/// Waits whose numbers are kept; the least recently active is dropped beyond this.
pub const MAX_TRACKED_WAITS: usize = 4096;

/// What judging cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VisionUsage {
    /// Judge requests answered, verdict or failure, cache hits and model-free answers
    /// included.
    pub judgements: u64,
    /// Requests that reached a model (or tesseract runs), retries included: what a
    /// provider counts and bills.
    pub calls: u64,
    /// Judge requests that ended in a failure (after their retries).
    pub failures: u64,
    /// Attempts repeated after a 429, a 5xx, a timeout or a refused connection.
    pub retries: u64,
    /// Judge requests answered from the cache, without a call.
    pub cache_hits: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Summed over `calls`, by the tree's clock.
    pub latency_ms_total: u64,
    pub latency_ms_max: u64,
}

impl VisionUsage {
    /// Mean latency of a call, in milliseconds.
    pub fn latency_ms_mean(&self) -> u64 {
        self.latency_ms_total.checked_div(self.calls).unwrap_or(0)
    }

    fn add(&mut self, entry: &Entry) {
        match *entry {
            Entry::Judgement => self.judgements += 1,
            Entry::Call { latency_ms } => {
                self.calls += 1;
                self.latency_ms_total += latency_ms;
                self.latency_ms_max = self.latency_ms_max.max(latency_ms);
            }
            Entry::Tokens(usage) => {
                self.input_tokens += usage.input_tokens;
                self.output_tokens += usage.output_tokens;
            }
            Entry::Failure => self.failures += 1,
            Entry::Retry => self.retries += 1,
            Entry::CacheHit => self.cache_hits += 1,
        }
    }
}

/// One thing to count.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Entry {
    Judgement,
    Call { latency_ms: u64 },
    Tokens(Usage),
    Failure,
    Retry,
    CacheHit,
}

#[derive(Clone, Debug, Default)]
pub struct VisionLedger {
    inner: Arc<Mutex<Books>>,
}

#[derive(Debug, Default)]
struct Books {
    totals: VisionUsage,
    /// Per wait: its usage and when it was last active (a counter, for eviction).
    waits: HashMap<String, (VisionUsage, u64)>,
    activity: u64,
}

impl VisionLedger {
    fn books(&self) -> MutexGuard<'_, Books> {
        crate::locks::lock(&self.inner)
    }

    pub(crate) fn record(&self, wait_id: &str, entry: Entry) {
        let mut books = self.books();
        books.totals.add(&entry);
        books.activity += 1;
        let now = books.activity;
        match books.waits.get_mut(wait_id) {
            Some((usage, last)) => {
                usage.add(&entry);
                *last = now;
            }
            None => {
                if books.waits.len() >= MAX_TRACKED_WAITS
                    && let Some(oldest) = books
                        .waits
                        .iter()
                        .min_by_key(|(_, (_, last))| *last)
                        .map(|(id, _)| id.clone())
                {
                    books.waits.remove(&oldest);
                }
                let mut usage = VisionUsage::default();
                usage.add(&entry);
                books.waits.insert(wait_id.to_owned(), (usage, now));
            }
        }
    }

    /// One wait's numbers, if it was ever judged (and not forgotten).
    pub fn usage(&self, wait_id: &str) -> Option<VisionUsage> {
        self.books().waits.get(wait_id).map(|(usage, _)| *usage)
    }

    /// Everything since the daemon started.
    pub fn totals(&self) -> VisionUsage {
        self.books().totals
    }

    /// Drops a finished wait's numbers (the totals keep them).
    pub fn forget(&self, wait_id: &str) {
        self.books().waits.remove(wait_id);
    }

    pub fn tracked_waits(&self) -> usize {
        self.books().waits.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_add_up_per_wait_and_in_total() {
        let ledger = VisionLedger::default();
        ledger.record("w-1", Entry::Call { latency_ms: 100 });
        ledger.record("w-1", Entry::Call { latency_ms: 300 });
        ledger.record(
            "w-1",
            Entry::Tokens(Usage {
                input_tokens: 800,
                output_tokens: 20,
            }),
        );
        ledger.record("w-2", Entry::CacheHit);
        let one = ledger.usage("w-1").unwrap();
        assert_eq!(
            (one.calls, one.input_tokens, one.output_tokens),
            (2, 800, 20)
        );
        assert_eq!((one.latency_ms_mean(), one.latency_ms_max), (200, 300));
        let totals = ledger.totals();
        assert_eq!((totals.calls, totals.cache_hits), (2, 1));
        ledger.forget("w-1");
        assert_eq!(ledger.usage("w-1"), None);
        assert_eq!(ledger.totals(), totals);
        assert_eq!(VisionUsage::default().latency_ms_mean(), 0);
    }

    #[test]
    fn the_least_recently_active_wait_is_dropped_past_the_limit() {
        let ledger = VisionLedger::default();
        for n in 0..MAX_TRACKED_WAITS {
            ledger.record(&format!("w-{n}"), Entry::Judgement);
        }
        ledger.record("w-0", Entry::Judgement);
        ledger.record("w-new", Entry::Judgement);
        assert_eq!(ledger.tracked_waits(), MAX_TRACKED_WAITS);
        assert!(ledger.usage("w-0").is_some());
        assert!(ledger.usage("w-1").is_none());
        assert_eq!(ledger.totals().judgements, MAX_TRACKED_WAITS as u64 + 2);
    }
}
