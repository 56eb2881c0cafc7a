//! Typos: the word a misspelt one was meant to be, among the words the index holds or the
//! curated tables' ([`crate::synonyms`]), within the edits a typist makes by slip (a far
//! key is not a slip: "slack" is not read as "stack"). Pure, but for the index's
//! [`Vocabulary`].

use crate::framing::is_framing;
use crate::question::{Vocabulary, among};
use crate::stems::stem;
use crate::tables::curated_starting_with;

/// The word the index holds nearest to `word`: one a slip away ("postgress" → "postgres"; a
/// word of three letters only by its last two swapped, [`swapped_held`]),
/// else the longest word of five letters or more it starts with, short of at most three
/// ("cleanup" → "clean"; "compose" is not "comp"), else the nearest by edit distance (one
/// edit for words of four to seven letters, two from eight), else the word whose stem is
/// the word's with a letter dropped back in or a doubled one undoubled; the more common on
/// a tie, `None` for shorter words or when none is near.
pub fn nearest_word(word: &str, vocabulary: &impl Vocabulary) -> Option<String> {
    let length = word.chars().count();
    if length == 3 {
        return swapped_held(word, vocabulary);
    }
    let most = edits_allowed(word)?;
    // One read of the words sharing its first letter answers both questions.
    let first = word.chars().next()?;
    let words = vocabulary.starting_with(first);
    let held = || words.iter().map(|(w, n)| (w.as_str(), *n));
    // A slip of one edit first ("replicaton" is "replication", not "replica").
    if let Some(nearest) = nearest_by_edits(word, 1, held()) {
        return Some(nearest.to_owned());
    }
    for cut in 1..=3 {
        if length - cut < 5 {
            break;
        }
        let start: String = word.chars().take(length - cut).collect();
        if among(&words, &start) {
            return Some(start);
        }
    }
    // Two edits, for a word long enough to allow them (one was tried first).
    if let Some(nearest) = (most > 1)
        .then(|| nearest_by_edits(word, most, held()))
        .flatten()
    {
        return Some(nearest.to_owned());
    }
    // A misspelt form of a word held in another form, a letter dropped or a doubled one
    // written once: "vacine" of "vaccinations" (their stems "vacin" and "vaccin"),
    // "captoning" of "captioned". Each such stem is looked up in the sorted words, not the
    // words walked.
    let typed = stem(word);
    if typed.chars().count() < 5 {
        return None;
    }
    a_letter_more_or_undoubled(&typed, &words)
        .into_iter()
        .filter(|meant| meant.chars().count() >= 5)
        .flat_map(|meant| {
            (starting_with(&words, &meant).iter()).filter(move |(held, _)| stem(held) == meant)
        })
        .max_by_key(|(_, documents)| *documents)
        .map(|(held, _)| held.clone())
}

/// `word` with a letter put back in (so any of its letters doubled), or one of its doubled
/// letters written once ("vacin" → "vaccin", …; "capton" → "caption"), each once: of the
/// letters put back in, only those a word of `words` (sorted) has there after the same
/// letters, so a word nothing goes on with ("qx…") costs a few lookups, not one per letter
/// of the alphabet at every place.
fn a_letter_more_or_undoubled(word: &str, words: &[(String, u64)]) -> Vec<String> {
    let letters: Vec<char> = word.chars().collect();
    let mut spellings: Vec<String> = Vec::new();
    for at in 1..letters.len() {
        if letters[at] == letters[at - 1] {
            let mut undoubled = letters.clone();
            undoubled.remove(at);
            spellings.push(undoubled.into_iter().collect());
        }
    }
    // After the first letter: the words are those of one first letter (and a letter
    // doubled there is the same spelling either way).
    let places = (word.char_indices().skip(1).map(|(at, _)| at)).chain([word.len()]);
    for at in places {
        let (before, after) = word.split_at(at);
        let mut going_on = starting_with(words, before);
        if going_on.is_empty() {
            break; // nothing goes on with these letters, nor with more of them
        }
        // The held words in runs of the letter each has next.
        while let Some((held, _)) = going_on.first() {
            let Some(next) = held[at..].chars().next() else {
                going_on = &going_on[1..];
                continue;
            };
            let run = going_on.partition_point(|(held, _)| held[at..].starts_with(next));
            spellings.push(format!("{before}{next}{after}"));
            going_on = &going_on[run..];
        }
    }
    spellings.sort_unstable();
    spellings.dedup();
    spellings
}

/// The words of `words` (sorted) that start with `prefix`.
fn starting_with<'w>(words: &'w [(String, u64)], prefix: &str) -> &'w [(String, u64)] {
    let from = words.partition_point(|(held, _)| held.as_str() < prefix);
    let to = from + words[from..].partition_point(|(held, _)| held.starts_with(prefix));
    &words[from..to]
}

/// A word of three letters with its last two swapped, when the index holds that ("bpg" →
/// "bgp", "tpc" → "tcp"): the one slip a word that short is read through, since any other
/// edit of it makes another word ("log" is not "long").
fn swapped_held(word: &str, vocabulary: &impl Vocabulary) -> Option<String> {
    let letters: Vec<char> = word.chars().collect();
    let swapped: String = [letters[0], letters[2], letters[1]].iter().collect();
    (swapped != word && vocabulary.holds_word(&swapped)).then_some(swapped)
}

/// The shortest word a word is corrected from, or to.
const SHORTEST_CORRECTED: usize = 4;

/// How many edits a word may be from the word it is read as: none below four letters, one
/// for four to seven, two from eight.
fn edits_allowed(word: &str) -> Option<usize> {
    match word.chars().count() {
        length if length < SHORTEST_CORRECTED => None,
        4..=7 => Some(1),
        _ => Some(2),
    }
}

/// The word among `words` (each with how many documents hold it) within `most` edits of
/// `word`, or whose singular in -s is, the nearest, then the more common; `word` itself is
/// not one.
fn nearest_by_edits<W: AsRef<str>>(
    word: &str,
    most: usize,
    words: impl IntoIterator<Item = (W, u64)>,
) -> Option<W> {
    let length = word.chars().count();
    let mut best: Option<(usize, u64, W)> = None;
    for (candidate, documents) in words {
        let text = candidate.as_ref();
        // A word of three letters is too short to be sure of ("long" is not "log").
        if text.chars().count() < SHORTEST_CORRECTED || text == word {
            continue;
        }
        // A misspelt singular of a word the index holds only in the plural: "reciept" of
        // "receipts".
        let singular = (text.strip_suffix('s'))
            .filter(|singular| singular.chars().count() >= SHORTEST_CORRECTED && *singular != word);
        let near = |meant: &str| meant.chars().count().abs_diff(length) <= most;
        let plain = near(text).then(|| typo_distance(word, text));
        // (Without its last letter a word is at most one edit nearer: the singular is
        // measured only where that can bring it within reach.)
        let of_singular = singular
            .filter(|singular| near(singular) && plain.is_none_or(|d| d <= most + 1))
            .map(|singular| typo_distance(word, singular));
        let Some(distance) = plain
            .into_iter()
            .chain(of_singular)
            .min()
            .filter(|distance| *distance <= most)
        else {
            continue;
        };
        // A word every question has is never what was meant ("theme" is not "them"); asked
        // only of a word within reach, as the list is read through for each.
        if is_framing(text) {
            continue;
        }
        let better = best
            .as_ref()
            .is_none_or(|(d, n, _)| distance < *d || (distance == *d && documents > *n));
        if better {
            best = Some((distance, documents, candidate));
        }
    }
    best.map(|(_, _, word)| word)
}

/// The word of the curated tables ([`crate::synonyms`]) nearest to `word`, by the edits
/// [`nearest_word`] allows.
pub fn nearest_curated_word(word: &str) -> Option<&'static str> {
    let most = edits_allowed(word)?;
    let first = word.chars().next()?;
    let words = curated_starting_with(first).iter().map(|known| (*known, 0));
    nearest_by_edits(word, most, words)
}

/// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    edits(a, b, |_, _, _| 1)
}

/// Edits from `typed` to `meant` as a typist makes them: a letter replaced by one far from
/// it on the keyboard counts two, since that is seldom a slip ("slack" is not a typo of
/// "stack"); by a key next to it, a vowel by a vowel ("beet" for "beat"), or by the letter
/// beside it typed twice ("vaccum" for "vacuum"), one.
fn typo_distance(typed: &str, meant: &str) -> usize {
    let spelt = typo_distance_as_spelt(typed, meant);
    // "ph" heard as "f": "tachograf" for "tachograph". Hearing it so is two edits, so it
    // is measured only where it can bring the word within the two edits ever allowed.
    if spelt <= 4 && meant.contains("ph") && !typed.contains("ph") {
        let heard = meant.replace("ph", "f");
        return typo_distance_as_spelt(typed, &heard).min(spelt);
    }
    spelt
}

/// [`typo_distance`] of the words as they are spelt.
fn typo_distance_as_spelt(typed: &str, meant: &str) -> usize {
    edits(typed, meant, |typed, at, meant| {
        let doubled =
            (at > 0 && typed[at - 1] == typed[at]) || typed.get(at + 1) == Some(&typed[at]);
        if doubled || is_slip(typed[at], meant) {
            1
        } else {
            2
        }
    })
}

/// Whether typing `typed` for `meant` is a slip of the finger or of the ear: neighbouring
/// keys on a QWERTY keyboard, two vowels, two letters that sound alike ("sidekick" for
/// "sidekiq"), or a character off the keyboard's letters and digits (nothing is known of
/// it).
fn is_slip(typed: char, meant: char) -> bool {
    const ROWS: [(&str, f32); 4] = [
        ("1234567890", 0.0),
        ("qwertyuiop", 0.5),
        ("asdfghjkl", 0.75),
        ("zxcvbnm", 1.25),
    ];
    const VOWELS: &str = "aeiouy";
    const SOUNDS_ALIKE: [&str; 2] = ["ckq", "csz"];
    let place = |key: char| {
        ROWS.iter().enumerate().find_map(|(row, (keys, offset))| {
            keys.find(key)
                .map(|column| (row as f32, column as f32 + offset))
        })
    };
    let alike = |letters: &str| letters.contains(typed) && letters.contains(meant);
    if alike(VOWELS) || SOUNDS_ALIKE.into_iter().any(alike) {
        return true;
    }
    match (place(typed), place(meant)) {
        (Some((row_a, x_a)), Some((row_b, x_b))) => {
            let (rows, across) = ((row_a - row_b).abs(), (x_a - x_b).abs());
            (rows == 0.0 && across <= 1.0) || (rows == 1.0 && across < 1.0)
        }
        _ => true,
    }
}

/// Edits from `a` to `b`, a replacement of `a[at]` by a letter costing what
/// `replace(a, at, letter)` says (at least one).
fn edits(a: &str, b: &str, replace: impl Fn(&[char], usize, char) -> usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = if a[i - 1] == b[j - 1] {
                0
            } else {
                replace(&a, i - 1, b[j - 1])
            };
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_never_read_as_one_every_question_has() {
        let held = [("them", 40), ("themes", 1)];
        assert_eq!(nearest_by_edits("theme", 1, held), Some("themes"));
        assert_eq!(nearest_by_edits("theme", 1, [("them", 40)]), None);
    }

    #[test]
    fn edits_are_counted_with_swaps_as_one() {
        assert_eq!(edit_distance("postgress", "postgres"), 1);
        assert_eq!(edit_distance("teh", "the"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn a_letter_far_from_the_one_meant_on_the_keyboard_is_not_a_slip() {
        // Neighbouring keys, a vowel for a vowel, swaps, a letter dropped or doubled: one.
        assert_eq!(typo_distance("certbto", "certbot"), 1);
        assert_eq!(typo_distance("beet", "beat"), 1);
        assert_eq!(typo_distance("vacum", "vacuum"), 1);
        assert_eq!(typo_distance("nginc", "nginx"), 1);
        assert_eq!(typo_distance("k9s", "k8s"), 1);
        assert_eq!(typo_distance("sidekick", "sidekiq"), 2); // a sound-alike, and a letter more
        assert_eq!(typo_distance("vaccum", "vacuum"), 1); // the wrong letter doubled
        assert_eq!(typo_distance("tachograf", "tachograph"), 0); // "ph" heard as "f"
        let held = |words: &[&str]| -> Vec<(String, u64)> {
            let mut held: Vec<(String, u64)> = words.iter().map(|w| (w.to_string(), 1)).collect();
            held.sort();
            held
        };
        let index = held(&["caption", "captioned", "promoted", "reaper", "vaccinations"]);
        let spelt = |word: &str| a_letter_more_or_undoubled(word, &index);
        assert!(spelt("vacin").contains(&"vaccin".to_owned()));
        assert!(spelt("occur").contains(&"ocur".to_owned()));
        assert!(spelt("capton").contains(&"caption".to_owned()));
        assert!(!spelt("prompt").contains(&"promot".to_owned()));
        assert!(!spelt("reappear").contains(&"reaper".to_owned()));
        // Only the letters a held word has there: no word goes on with "qx".
        assert_eq!(spelt("qxdeploy"), Vec::<String>::new());
        // Keys apart: two, so a short word is not read as another real word.
        assert_eq!(typo_distance("slack", "stack"), 2);
        assert_eq!(typo_distance("cost", "host"), 2);
        assert_eq!(edit_distance("slack", "stack"), 1);
    }
}
