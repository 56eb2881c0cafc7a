//! Ordering what BM25 found: relevance against recency, by the caller's `recency_bias`, and
//! the `confidence` each result reports. Pure.

use crate::{Candidate, Document, Search};

/// How fast recency fades: a week-old document weighs e⁻¹ of one from now.
const RECENCY_SCALE_MS: f64 = 7.0 * 24.0 * 3600.0 * 1000.0;

/// A document in the order it is returned.
#[derive(Clone, Debug)]
pub struct Ranked {
    pub document: Document,
    /// `(1 − bias) · relevance + bias · recency`, what the order follows.
    pub score: f64,
    /// See [`confidence`].
    pub confidence: f64,
}

/// The best `search.limit` of `candidates` (any order), best first — those holding every
/// word of the question before the others — each with its score and its relevance (its
/// BM25 relative to the best candidate's); ties go to the newer.
pub fn rank(candidates: Vec<Candidate>, search: &Search) -> Vec<(Candidate, f64, f64)> {
    let best = candidates
        .iter()
        .map(|candidate| candidate.bm25)
        .fold(0.0_f64, f64::min);
    let bias = search.recency_bias.clamp(0.0, 1.0);
    let mut ranked: Vec<(Candidate, f64, f64)> = candidates
        .into_iter()
        .map(|candidate| {
            // FTS5's bm25 is negative, lower is better.
            let relevance = if best < 0.0 {
                (candidate.bm25 / best).clamp(0.0, 1.0)
            } else {
                1.0
            };
            let age_ms = search.now_ms.saturating_sub(candidate.end_ms) as f64;
            let recency = (-age_ms / RECENCY_SCALE_MS).exp();
            (
                candidate,
                (1.0 - bias) * relevance + bias * recency,
                relevance,
            )
        })
        .collect();
    ranked.sort_by(|(a, a_score, _), (b, b_score, _)| {
        b.holds_all
            .cmp(&a.holds_all)
            .then(b_score.total_cmp(a_score))
            .then(b.end_ms.cmp(&a.end_ms))
    });
    ranked.truncate(search.limit);
    ranked
}

/// The document's relevance times the share of the question's `words` it holds: 1.0 for
/// the best match holding every word. A ranking score in [0, 1], not a probability.
pub fn confidence(relevance: f64, words: &[String], document: &Document) -> f64 {
    if words.is_empty() {
        return 0.0;
    }
    let text = format!(
        "{} {}",
        document.title.to_lowercase(),
        document.body.to_lowercase()
    );
    let held = words
        .iter()
        .filter(|word| text.contains(word.as_str()))
        .count();
    (relevance * held as f64 / words.len() as f64 * 100.0).round() / 100.0
}
