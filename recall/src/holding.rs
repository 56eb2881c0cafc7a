//! What a candidate holds of a question, read off its text: per question word the best
//! weight of a term of it the document holds (coverage), the share of the words its title
//! holds, and a BM25 on the question's own words (the title counting five times) beside the
//! other candidates'. Reading the few candidates' text is far cheaper than asking FTS5 once
//! per term (each such query walks the term's whole posting list). Pure.

use crate::Source;
use crate::question::{CORRECTION_WEIGHT, Question, Term};
use crate::rank::{Held, source_weight};

/// Of a long document, the words of this many bytes of its body are read.
const READ_BYTES: usize = 256 * 1024;
/// BM25's term saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// How many times a word of the title counts beside one of the body.
const TITLE_WEIGHT: u32 = 5;

/// A candidate's text, as the search read it.
pub struct Text {
    pub row: i64,
    pub source: Source,
    pub end_ms: u64,
    pub title: String,
    pub body: String,
}

/// The distinct words of a text with how often each occurs, sorted, so that a prefix finds
/// its words by binary search. The text is lowercased once; words are ranges of it.
struct Words {
    lower: String,
    /// Each distinct word's start and end in `lower`, and its count.
    counts: Vec<(u32, u32, u32)>,
    length: u32,
}

impl Words {
    fn of(text: &str, weight: u32) -> Words {
        let lower = text.to_lowercase();
        let mut spans: Vec<(u32, u32)> = Vec::new();
        let mut start = None;
        for (at, c) in lower.char_indices() {
            match (c.is_alphanumeric(), start) {
                (true, None) => start = Some(at),
                (false, Some(from)) => {
                    spans.push((from as u32, at as u32));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(from) = start {
            spans.push((from as u32, lower.len() as u32));
        }
        let length = spans.len() as u32 * weight;
        let word = |(from, to): (u32, u32)| &lower[from as usize..to as usize];
        spans.sort_unstable_by(|a, b| word(*a).cmp(word(*b)));
        let mut counts: Vec<(u32, u32, u32)> = Vec::new();
        for span in spans {
            match counts.last_mut() {
                Some((from, to, count)) if word((*from, *to)) == word(span) => *count += weight,
                _ => counts.push((span.0, span.1, weight)),
            }
        }
        Words {
            lower,
            counts,
            length,
        }
    }

    fn word(&self, (from, to, _): (u32, u32, u32)) -> &str {
        &self.lower[from as usize..to as usize]
    }

    /// How often the term occurs (every word it starts, when a prefix; for a phrase, its
    /// rarest word: the candidates FTS5 found for a phrase hold it as one).
    fn count(&self, term: &Term) -> u32 {
        if term.is_phrase() {
            return (term.text.split(' '))
                .map(|word| self.count_word(word, false))
                .min()
                .unwrap_or(0);
        }
        self.count_word(&term.text, term.prefix)
    }

    fn count_word(&self, text: &str, prefix: bool) -> u32 {
        let start = self
            .counts
            .partition_point(|entry| self.word(*entry) < text);
        self.counts[start..]
            .iter()
            .take_while(|entry| {
                let word = self.word(**entry);
                if prefix {
                    word.starts_with(text)
                } else {
                    word == text
                }
            })
            .map(|(_, _, count)| count)
            .sum()
    }
}

/// What each candidate holds of `question`.
pub fn held(question: &Question, texts: &[Text]) -> Vec<Held> {
    let concepts = question.concepts.len().max(1) as f64;
    let read: Vec<(Words, Words)> = texts
        .iter()
        .map(|text| {
            let mut end = text.body.len().min(READ_BYTES);
            while !text.body.is_char_boundary(end) {
                end -= 1;
            }
            (
                Words::of(&text.title, TITLE_WEIGHT),
                Words::of(&text.body[..end], 1),
            )
        })
        .collect();
    // BM25 on the question's own words (as written, or corrected) over the candidates: a
    // rare synonym must not outweigh the word itself.
    let own: Vec<&Term> = question
        .concepts
        .iter()
        .flat_map(|c| c.terms.iter().filter(|t| t.weight >= CORRECTION_WEIGHT))
        .collect();
    let average = read
        .iter()
        .map(|(title, body)| f64::from(title.length + body.length))
        .sum::<f64>()
        / read.len().max(1) as f64;
    let documents = read.len() as f64;
    let mut bm25 = vec![0.0; read.len()];
    for term in &own {
        let counts: Vec<u32> = read
            .iter()
            .map(|(title, body)| title.count(term) + body.count(term))
            .collect();
        let holding = counts.iter().filter(|n| **n > 0).count() as f64;
        let idf = (1.0 + (documents - holding + 0.5) / (holding + 0.5)).ln();
        for (index, count) in counts.iter().enumerate() {
            let tf = f64::from(*count);
            let length = f64::from(read[index].0.length + read[index].1.length);
            bm25[index] +=
                idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average.max(1.0)));
        }
    }
    let best = bm25.iter().copied().fold(0.0_f64, f64::max);
    texts
        .iter()
        .zip(&read)
        .enumerate()
        .map(|(index, (text, (title, body)))| {
            let weights: Vec<f64> = question
                .concepts
                .iter()
                .map(|concept| {
                    concept
                        .terms
                        .iter()
                        .filter(|term| title.count(term) + body.count(term) > 0)
                        .map(|term| term.weight)
                        .fold(0.0, f64::max)
                })
                .collect();
            let in_title = question
                .concepts
                .iter()
                .filter(|concept| concept.terms.iter().any(|term| title.count(term) > 0))
                .count() as f64;
            Held {
                row: text.row,
                end_ms: text.end_ms,
                coverage: weights.iter().sum::<f64>() / concepts,
                in_title: in_title / concepts,
                relevance: if best > 0.0 { bm25[index] / best } else { 0.0 },
                source_weight: source_weight(text.source),
                lacks_only_unknown: question
                    .concepts
                    .iter()
                    .zip(&weights)
                    .filter(|(_, weight)| **weight == 0.0)
                    .all(|(concept, _)| !concept.known),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_counts_every_word_it_starts_and_the_title_counts_more() {
        let words = Words::of("Deployed the deploy; deployment later. Undeploy", 1);
        let term = |text: &str, prefix| Term {
            text: text.into(),
            prefix,
            weight: 1.0,
        };
        assert_eq!(words.count(&term("deploy", true)), 3);
        assert_eq!(words.count(&term("deploy", false)), 1);
        assert_eq!(words.count(&term("zebra", true)), 0);
        assert_eq!(
            Words::of("Deploy", TITLE_WEIGHT).count(&term("deploy", true)),
            5
        );
    }
}
