//! Ordering what the index found: each candidate's `confidence` from how much of the
//! question it holds (coverage), how well BM25 rates it beside the others (relevance), how
//! many of the question's words its title holds, and — by the caller's `recency_bias` — how
//! recent it is. The list is sorted by that confidence, the number each result reports. Pure.

use crate::asks::Asks;
use crate::{Document, Source};

/// How fast recency fades: a month-old document weighs e⁻¹ of one from now.
const RECENCY_SCALE_MS: f64 = 30.0 * 24.0 * 3600.0 * 1000.0;
/// A result holding less than this share of the question's words (an everyday word
/// counting half) is weak: it matched on some words only ("configure" of "configure
/// kubernetes ingress"). So is one holding exactly this share when what it lacks is nowhere
/// in the index ("cluster" of "elasticsearch cluster") — but not a plan dropped, asked why
/// it was ("why didn't we build an app" of the cancelled loyalty app: what was not built
/// was seldom named as the question names it).
pub const WEAK_COVERAGE: f64 = 0.5;

/// The most question words whose parts [`ByWord`] keeps apart; a longer question's later
/// words are not kept apart (a record then holds only what its task does of them).
const WORDS_KEPT_APART: usize = 16;

/// What a candidate holds of each question word: its part of the coverage and of the
/// share, so that a record and its task can be told apart word by word.
#[derive(Clone, Copy, Debug, Default)]
pub struct ByWord {
    coverage: [f32; WORDS_KEPT_APART],
    share: [f32; WORDS_KEPT_APART],
}

impl ByWord {
    /// From each word's part of the coverage and of the share.
    pub fn new(parts: impl Iterator<Item = (f64, f64)>) -> ByWord {
        let mut by_word = ByWord::default();
        for (at, (coverage, share)) in parts.take(WORDS_KEPT_APART).enumerate() {
            by_word.coverage[at] = coverage as f32;
            by_word.share[at] = share as f32;
        }
        by_word
    }

    /// Each word held by either, at the better of the two.
    fn either(&self, other: &ByWord) -> ByWord {
        let mut either = *self;
        for at in 0..WORDS_KEPT_APART {
            either.coverage[at] = either.coverage[at].max(other.coverage[at]);
            either.share[at] = either.share[at].max(other.share[at]);
        }
        either
    }

    fn coverage(&self) -> f64 {
        self.coverage.iter().map(|part| f64::from(*part)).sum()
    }

    fn share(&self) -> f64 {
        self.share.iter().map(|part| f64::from(*part)).sum()
    }
}

/// What a candidate holds of the question.
#[derive(Clone, Copy, Debug)]
pub struct Held {
    pub row: i64,
    pub end_ms: u64,
    /// Per question word, the weight of the best term of it the document holds (1.0 the
    /// word itself, less a synonym or a correction), averaged: 0 to 1.
    pub coverage: f64,
    /// The same with everyday words counting half ([`crate::everyday`]): what decides
    /// whether it is weak.
    pub share: f64,
    /// The share of the question's words its title holds.
    pub in_title: f64,
    /// Its BM25 relative to the best candidate's: 0 to 1.
    pub relevance: f64,
    /// How much its source counts: see [`source_weight`].
    pub source_weight: f64,
    /// Every question word it lacks is one nothing in the index holds.
    pub lacks_only_unknown: bool,
    /// The question asks why something was not done ([`crate::asks::asks_why_not`]) and it
    /// records a plan dropped (it says cancelled or abandoned): see [`WHY_NOT_WEIGHT`].
    pub answers_why_not: bool,
    /// What it holds of each question word.
    pub by_word: ByWord,
}

/// How much more a record of a plan dropped counts on a question asking why something was
/// not done: "why not ai for x-rays" wants the cancelled plan before the imaging driver
/// whose record also says x-rays.
const WHY_NOT_WEIGHT: f64 = 1.25;

/// A task is the record of how something was done; a terminal session and a wait are
/// moments of one (a command's output, an observation), so they rank just below a task
/// that holds as much of the question. A question asking for a figure puts a command's
/// output first, one asking whether something came to pass the wait that watched it.
pub fn source_weight(source: Source, asks: Asks) -> f64 {
    match (asks, source) {
        (Asks::Figure, Source::Terminal) | (Asks::Outcome, Source::Wait) => 1.0,
        (Asks::Figure | Asks::Outcome, Source::Task | Source::Screen | Source::Transcript) => 0.6,
        (_, Source::Task | Source::Screen | Source::Transcript) => 1.0,
        (_, Source::Terminal) => 0.95,
        (_, Source::Wait) => 0.9,
    }
}

impl Held {
    /// A wait or a command run for a task, on a question asking for what it recorded (an
    /// outcome, a figure): it answers what its task answers, though its own text seldom
    /// says what for ("md0 [UU]" of "did the raid resync finish"). It holds each word of
    /// the question that it or its task holds ("empty: 14" of a scanning run for the task
    /// about ewes holds "how many empty ewes"), a fifth less than its task would, with its
    /// own words telling the task's waits apart, and is weak only where it and its task
    /// together are.
    pub fn served(self, task: &Held) -> Held {
        let with_task = self.by_word.either(&task.by_word);
        let coverage = with_task.coverage().max(task.coverage);
        if coverage <= self.coverage {
            return self;
        }
        let blend = |own: f64, of_task: f64| 0.8 * of_task + 0.2 * own;
        Held {
            coverage: blend(self.coverage, coverage),
            // Weak only where it and its task together are: what it answers, its task
            // answers.
            share: self.share.max(task.share).max(with_task.share()),
            by_word: with_task,
            in_title: blend(self.in_title, task.in_title),
            relevance: blend(self.relevance, task.relevance),
            lacks_only_unknown: task.lacks_only_unknown,
            ..self
        }
    }

    /// A task, on a question naming a topic: it holds the question at least as well as a
    /// wait or terminal session recorded for it (`record`), so the record of how something
    /// was done comes before its moments.
    pub fn answering_for(self, record: &Held) -> Held {
        if (record.coverage, record.relevance) <= (self.coverage, self.relevance) {
            return self;
        }
        Held {
            coverage: record.coverage,
            share: record.share,
            in_title: record.in_title,
            relevance: record.relevance,
            lacks_only_unknown: record.lacks_only_unknown,
            by_word: record.by_word,
            ..self
        }
    }
}

/// A document in the order it is returned.
#[derive(Clone, Debug)]
pub struct Ranked {
    pub document: Document,
    /// What the order follows; see [`score`].
    pub confidence: f64,
    /// It holds less than half of the question's words (see [`WEAK_COVERAGE`]).
    pub weak: bool,
    /// Every word of the question it lacks is one nothing indexed holds: it holds all that
    /// anything could ("pwa" of "pwa update not showing", where the record says "service
    /// worker"). A weak one may still be the answer, if those words name what it is about.
    pub lacks_only_unindexed: bool,
}

/// The confidence: `coverage × (0.7 + 0.2·relevance + 0.1·in_title) × source weight`,
/// weighed against recency by `bias` (0: not at all; 1: an old document scores nothing),
/// reported rounded to hundredths. A ranking score in [0, 1], not a probability: 1.0 is a
/// recent document that holds every word of the question, in its title, and is the best
/// BM25 match.
///
/// The order follows it before rounding, so that two results reported alike are still in
/// the order of what they hold.
fn score(held: &Held, recency_bias: f64, now_ms: u64) -> f64 {
    // A plan dropped is as much the answer to why it was not done however long ago it was
    // dropped: its age does not count against it.
    let bias = if held.answers_why_not {
        0.0
    } else {
        recency_bias.clamp(0.0, 1.0)
    };
    let age_ms = now_ms.saturating_sub(held.end_ms) as f64;
    let recency = (-age_ms / RECENCY_SCALE_MS).exp();
    let matched =
        held.coverage * (0.7 + 0.2 * held.relevance + 0.1 * held.in_title) * held.source_weight;
    let why_not = if held.answers_why_not {
        WHY_NOT_WEIGHT
    } else {
        1.0
    };
    (matched * why_not).min(1.0) * (1.0 - bias + bias * recency)
}

/// The best `limit` of `candidates`, best first by confidence (the newer on a tie), with
/// their confidence and whether they are weak. Weak ones are kept only when nothing better
/// was found, so a miss says it is one instead of looking like an answer. Every one is weak
/// when the question names what was never recorded
/// ([`crate::question::Question::names_the_unrecorded`]).
pub fn rank(
    candidates: Vec<Held>,
    names_the_unrecorded: bool,
    recency_bias: f64,
    now_ms: u64,
    limit: usize,
) -> Vec<(Held, f64, bool)> {
    let mut ranked: Vec<(Held, f64, bool)> = candidates
        .into_iter()
        .filter(|held| held.coverage > 0.0)
        .map(|held| {
            let score = score(&held, recency_bias, now_ms);
            let weak = held.share < WEAK_COVERAGE
                || (held.share <= WEAK_COVERAGE
                    && held.lacks_only_unknown
                    && !held.answers_why_not)
                || names_the_unrecorded;
            (held, score, weak)
        })
        .collect();
    if ranked.iter().any(|(_, _, weak)| !weak) {
        ranked.retain(|(_, _, weak)| !weak);
    }
    ranked.sort_by(|(a, a_score, _), (b, b_score, _)| {
        b_score.total_cmp(a_score).then(b.end_ms.cmp(&a.end_ms))
    });
    ranked.truncate(limit);
    for (_, score, _) in &mut ranked {
        *score = (*score * 100.0).round() / 100.0;
    }
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(row: i64, coverage: f64, relevance: f64, age_days: u64) -> Held {
        Held {
            row,
            end_ms: 100 * 86_400_000 - age_days * 86_400_000,
            coverage,
            share: coverage,
            in_title: 0.0,
            relevance,
            source_weight: 1.0,
            lacks_only_unknown: false,
            answers_why_not: false,
            by_word: ByWord::default(),
        }
    }

    const NOW: u64 = 100 * 86_400_000;

    #[test]
    fn holding_more_of_the_question_beats_a_better_bm25_on_one_word() {
        let ranked = rank(
            vec![held(1, 0.6, 1.0, 0), held(2, 1.0, 0.3, 0)],
            false,
            0.0,
            NOW,
            5,
        );
        let rows: Vec<i64> = ranked.iter().map(|(h, _, _)| h.row).collect();
        assert_eq!(rows, [2, 1]);
        // The order is the confidence each reports.
        assert!(ranked[0].1 >= ranked[1].1);
    }

    #[test]
    fn weak_results_stay_only_when_nothing_better_was_found() {
        let ranked = rank(
            vec![held(1, 0.4, 1.0, 0), held(2, 1.0, 0.5, 0)],
            false,
            0.0,
            NOW,
            5,
        );
        assert_eq!(ranked.len(), 1);
        assert!(!ranked[0].2);
        let ranked = rank(vec![held(1, 0.34, 1.0, 0)], false, 0.0, NOW, 5);
        assert_eq!(ranked.len(), 1);
        assert!(ranked[0].2, "reported as weak");
        // Half of the question is an answer, unless the other half is nowhere indexed.
        let half = held(1, 0.5, 1.0, 0);
        assert!(!rank(vec![half], false, 0.0, NOW, 5)[0].2);
        let unknown = Held {
            lacks_only_unknown: true,
            ..half
        };
        assert!(rank(vec![unknown], false, 0.0, NOW, 5)[0].2);
    }

    #[test]
    fn a_record_holds_what_it_says_and_what_its_task_says() {
        // "how many empty ewes": the command printed "empty", its task is about ewes.
        // Each holding `empty` and `ewes` of the two words' halves.
        let holding = |row: i64, relevance: f64, empty: f64, ewes: f64| Held {
            by_word: ByWord::new([(empty, empty), (ewes, ewes)].into_iter()),
            ..held(row, empty + ewes, relevance, 0)
        };
        let record = holding(1, 0.5, 0.5, 0.0);
        let task = holding(2, 1.0, 0.0, 0.5);
        let served = record.served(&task);
        assert!((served.coverage - 0.9).abs() < 1e-6, "{}", served.coverage);
        assert!((served.share - 1.0).abs() < 1e-6, "{}", served.share);
        // A record holding nothing its task lacks holds the question as its task does, a
        // fifth less.
        let record = holding(1, 0.0, 0.0, 0.0);
        let full_task = holding(2, 1.0, 0.5, 0.5);
        assert!((record.served(&full_task).coverage - 0.8).abs() < 1e-6);
        // One holding more than its task keeps what it holds.
        let record = holding(1, 1.0, 0.5, 0.5);
        assert_eq!(record.served(&task).coverage, 1.0);
    }

    #[test]
    fn recency_counts_by_the_bias_alone() {
        let old = held(1, 1.0, 1.0, 30);
        let new = held(2, 1.0, 1.0, 0);
        assert_eq!(score(&old, 0.0, NOW), score(&new, 0.0, NOW));
        assert!(score(&old, 0.5, NOW) < score(&new, 0.5, NOW));
        let ranked = rank(vec![old, new], false, 1.0, NOW, 1);
        assert_eq!(ranked[0].0.row, 2);
    }
}
