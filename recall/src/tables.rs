//! Every word of the curated tables together — the synonyms' groups ([`crate::synonyms`],
//! [`crate::trades`]),
//! the kinds and their members ([`crate::kinds`]) and the words phrases stand for
//! ([`crate::phrases`]) — for what asks of all of them at once: whether a question's word
//! is one of them (then it is spelt right), and which of them a misspelt word may be. Built
//! once into a set and a list by first letter, so a question's word costs a lookup, not a
//! walk of the tables.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use crate::kinds::KINDS;
use crate::phrases::PHRASES;
use crate::synonyms::all_groups;

/// Every single word of the tables: the groups' words, the kinds and their members, and
/// the words phrases stand for (what a misspelt word may be read as when the index holds it
/// only by a synonym or a member).
pub fn curated_words() -> impl Iterator<Item = &'static str> {
    (all_groups().flat_map(|group| group.iter().copied()))
        .chain(
            (KINDS.iter())
                .flat_map(|(kind, members)| std::iter::once(*kind).chain(members.iter().copied())),
        )
        .chain(PHRASES.iter().map(|(_, word)| *word))
}

/// [`curated_words`] as a set, and by first letter (each list in byte order).
struct Lookups {
    words: HashSet<&'static str>,
    by_first: HashMap<char, Vec<&'static str>>,
}

static LOOKUPS: LazyLock<Lookups> = LazyLock::new(|| {
    let words: HashSet<&'static str> = curated_words().collect();
    let mut by_first: HashMap<char, Vec<&'static str>> = HashMap::new();
    for word in &words {
        if let Some(first) = word.chars().next() {
            by_first.entry(first).or_default().push(word);
        }
    }
    for found in by_first.values_mut() {
        found.sort_unstable();
    }
    Lookups { words, by_first }
});

/// Whether `word` is a word of the tables ([`curated_words`]).
pub fn is_curated(word: &str) -> bool {
    LOOKUPS.words.contains(word)
}

/// The words of the tables starting with `first`, in byte order.
pub fn curated_starting_with(first: char) -> &'static [&'static str] {
    LOOKUPS.by_first.get(&first).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lookups_answer_as_a_walk_of_the_tables() {
        assert!(curated_words().all(is_curated) && !is_curated("qxzzy"));
        for first in ['a', 'k', 'p', '4'] {
            let mut walked: Vec<&str> = curated_words().filter(|w| w.starts_with(first)).collect();
            walked.sort_unstable();
            walked.dedup();
            assert_eq!(curated_starting_with(first), walked.as_slice(), "{first}");
        }
    }
}
