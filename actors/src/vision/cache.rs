//! The verdict cache: the same content (by hash) and the same condition get the same
//! answer without a second model call. A window that flips back to a state already judged,
//! or two waits on the same screen with the same condition, cost one call.
//!
//! Bounded; the least recently used entry goes first. Only verdicts are cached, never
//! failures.

use std::collections::HashMap;

/// Entries kept.
pub const CACHE_ENTRIES: usize = 512;

#[derive(Debug, Default)]
pub struct VerdictCache {
    entries: HashMap<(u128, String), (bool, String, u64)>,
    uses: u64,
}

impl VerdictCache {
    pub fn get(&mut self, content: u128, condition: &str) -> Option<(bool, String)> {
        self.uses += 1;
        let uses = self.uses;
        let entry = self.entries.get_mut(&(content, condition.to_owned()))?;
        entry.2 = uses;
        Some((entry.0, entry.1.clone()))
    }

    pub fn insert(&mut self, content: u128, condition: &str, met: bool, observation: &str) {
        self.uses += 1;
        if self.entries.len() >= CACHE_ENTRIES
            && let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, (_, _, used))| *used)
                .map(|(key, _)| key.clone())
        {
            self.entries.remove(&oldest);
        }
        self.entries.insert(
            (content, condition.to_owned()),
            (met, observation.to_owned(), self.uses),
        );
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_need_the_same_content_and_condition_and_old_entries_go_first() {
        let mut cache = VerdictCache::default();
        cache.insert(1, "done", true, "it is done");
        assert_eq!(cache.get(1, "done"), Some((true, "it is done".into())));
        assert_eq!(cache.get(2, "done"), None);
        assert_eq!(cache.get(1, "finished"), None);
        for n in 2..=CACHE_ENTRIES as u128 {
            cache.insert(n, "done", false, "not yet");
        }
        cache.get(1, "done");
        cache.insert(9999, "done", false, "not yet");
        assert_eq!(cache.len(), CACHE_ENTRIES);
        assert!(cache.get(1, "done").is_some());
        assert!(cache.get(2, "done").is_none());
    }
}
