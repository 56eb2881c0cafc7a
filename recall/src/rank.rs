//! Ordering what BM25 found: relevance against recency, by the caller's `recency_bias`, and
//! the `confidence` each result reports. Pure.

use crate::{Candidate, Document, Search, query_words};

/// How fast recency fades: a week-old document weighs e⁻¹ of one from now.
const RECENCY_SCALE_MS: f64 = 7.0 * 24.0 * 3600.0 * 1000.0;

/// A document in the order it is returned.
#[derive(Clone, Debug)]
pub struct Ranked {
    pub document: Document,
    /// `(1 − bias) · relevance + bias · recency`, what the order follows.
    pub score: f64,
    /// The document's BM25 relative to the best candidate's, times the share of the
    /// question's words it holds: 1.0 for the best match holding every word. A ranking score
    /// in [0, 1], not a probability.
    pub confidence: f64,
}

/// The best `search.limit` of `candidates` (any order), best first; ties go to the newer.
pub fn rank(candidates: Vec<Candidate>, search: &Search) -> Vec<Ranked> {
    let best = candidates
        .iter()
        .map(|candidate| candidate.bm25)
        .fold(0.0_f64, f64::min);
    let words = query_words(&search.words);
    let bias = search.recency_bias.clamp(0.0, 1.0);
    let mut ranked: Vec<Ranked> = candidates
        .into_iter()
        .map(|candidate| {
            // FTS5's bm25 is negative, lower is better.
            let relevance = if best < 0.0 {
                (candidate.bm25 / best).clamp(0.0, 1.0)
            } else {
                1.0
            };
            let age_ms = search.now_ms.saturating_sub(candidate.document.end_ms) as f64;
            let recency = (-age_ms / RECENCY_SCALE_MS).exp();
            let text = format!(
                "{} {}",
                candidate.document.title.to_lowercase(),
                candidate.document.body.to_lowercase()
            );
            let held = words
                .iter()
                .filter(|word| text.contains(word.as_str()))
                .count();
            let share = if words.is_empty() {
                0.0
            } else {
                held as f64 / words.len() as f64
            };
            Ranked {
                score: (1.0 - bias) * relevance + bias * recency,
                confidence: (relevance * share * 100.0).round() / 100.0,
                document: candidate.document,
            }
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.document.end_ms.cmp(&a.document.end_ms))
    });
    ranked.truncate(search.limit);
    ranked
}
