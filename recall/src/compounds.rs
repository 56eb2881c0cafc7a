//! Words written together or apart: a word of letters and digits also read apart ("dns01"
//! as "dns 01"), a word the index lacks as two it holds ("pgdump" as "pg dump"), two
//! neighbouring words of a question as the one word the index writes ("uber eats" as
//! "ubereats"), and a number with dots as one word ("3.4"), matched as the numbers the
//! index holds apart. Each asks only the index's words by first letter, kept between
//! searches.

use crate::diacritics::without_diacritic;
use crate::question::{Concept, Vocabulary, holds, lowercase_words};
use crate::stems::{term_for, whole};

/// A word of letters and digits as its runs of each, a space apart ("dns01" → "dns 01");
/// `None` for a word of one run.
pub(crate) fn letters_and_digits_apart(word: &str) -> Option<String> {
    let mut apart = String::with_capacity(word.len() + 4);
    let mut last: Option<bool> = None;
    for c in word.chars() {
        let digit = c.is_ascii_digit();
        if last.is_some_and(|was_digit| was_digit != digit) {
            apart.push(' ');
        }
        apart.push(c);
        last = Some(digit);
    }
    (apart.len() > word.len()).then_some(apart)
}

/// A word of six letters or more as two words the index holds, a space apart ("pgdump" →
/// "pg dump", "nodemodules" → "node modules"), the first split that works from the longest
/// first word down; `None` when no split does. Asked only of words the index lacks.
pub(crate) fn two_held_words(word: &str, vocabulary: &impl Vocabulary) -> Option<String> {
    const SHORTEST_PART: usize = 2;
    if !word.is_ascii() || word.len() < 6 {
        return None;
    }
    (SHORTEST_PART..=word.len() - SHORTEST_PART)
        .rev()
        .map(|at| word.split_at(at))
        .find(|(first, second)| vocabulary.holds_word(first) && vocabulary.holds_word(second))
        .map(|(first, second)| format!("{first} {second}"))
}

/// Two neighbouring words of the question read as the one word the index writes them as,
/// when one of them is held nowhere on its own ("uber eats" as "ubereats"): reported as
/// read so.
pub(crate) fn joined_where_held(
    text: &str,
    concepts: Vec<Concept>,
    vocabulary: &impl Vocabulary,
) -> Vec<Concept> {
    // Most questions have every word held: nothing to join, nothing to read again.
    if concepts.iter().all(|concept| concept.known) {
        return concepts;
    }
    let written: Vec<String> = lowercase_words(text).collect();
    let neighbours = |first: &str, second: &str| {
        (written.windows(2)).any(|pair| pair[0] == first && pair[1] == second)
    };
    let single = |concept: &Concept| !concept.word.contains(' ');
    let mut read = Vec::with_capacity(concepts.len());
    let mut concepts = concepts.into_iter().peekable();
    while let Some(first) = concepts.next() {
        if let Some(second) = concepts.peek()
            && single(&first)
            && single(second)
            && !(first.known && second.known)
            && neighbours(&first.word, &second.word)
        {
            let word = format!("{}{}", first.word, second.word);
            if word.len() >= 5 && vocabulary.holds_word(&word) {
                let phrase = format!("{} {}", first.word, second.word);
                concepts.next();
                read.push(Concept {
                    terms: vec![term_for(&word, 1.0), term_for(&phrase, 1.0)],
                    word: phrase,
                    corrected: Some(word),
                    known: true,
                });
                continue;
            }
        }
        read.push(first);
    }
    read
}

/// [`lowercase_words`], but a number with dots ("3.4", "10.0.0.9") one word.
pub(crate) fn words_and_dotted_numbers(text: &str) -> impl Iterator<Item = String> {
    let chars: Vec<char> = text.chars().collect();
    let digit_at = |at: usize| chars.get(at).is_some_and(char::is_ascii_digit);
    let mut words = Vec::new();
    let mut word = String::new();
    for (at, &c) in chars.iter().enumerate() {
        let inside_number = c == '.'
            && at > 0
            && digit_at(at - 1)
            && digit_at(at + 1)
            && word.chars().all(|c| c.is_ascii_digit() || c == '.');
        if c.is_alphanumeric() || inside_number {
            word.extend(c.to_lowercase().map(without_diacritic));
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words.into_iter()
}

/// A number with dots as the index holds it: its numbers one after the other, a space
/// apart ("5.1" → "5 1", "v1.29.4" → "v1 29 4").
pub(crate) fn numbers_in_a_row(dotted: &str) -> String {
    (dotted.split('.').filter(|n| !n.is_empty()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A number with dots, as written ("3.4"), matched as its numbers in a row ("3 4", which
/// "3.4.1" holds too).
pub(crate) fn dotted_number(word: String, vocabulary: &impl Vocabulary) -> Concept {
    let term = whole(numbers_in_a_row(&word), 1.0);
    Concept {
        known: holds(vocabulary, &term),
        word,
        terms: vec![term],
        corrected: None,
    }
}
