//! Answering a question: it is read against the index's vocabulary ([`Question`]), FTS5
//! finds the candidates (those holding every word first, then those holding any), each
//! candidate is checked for which of the question's words it holds and how well
//! ([`holding`]), and the best are read whole in the order of their confidence ([`rank`]).

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::holding::{self, Text};
use crate::question::{Concept, Question, Term, Vocabulary, content_words};
use crate::rank::{Ranked, rank};
use crate::{RecallError, RecallStore, Source};

/// Candidates each FTS5 query returns (those holding every word, those holding any).
const CANDIDATES: usize = 30;
/// Documents holding every word, per result asked for, that make asking for those holding
/// any word needless.
const ENOUGH_PER_RESULT: usize = 3;

/// A search: the question, the filters, and how much recency counts against how well a
/// document matches (0 = not at all, 1 = an old document scores nothing).
#[derive(Clone, Debug)]
pub struct Search {
    pub words: String,
    pub limit: usize,
    pub recency_bias: f64,
    pub task_id: Option<String>,
    pub source: Option<Source>,
    pub now_ms: u64,
}

/// What a search found, and how it read the question.
#[derive(Clone, Debug, Default)]
pub struct Found {
    pub results: Vec<Ranked>,
    /// The question's words, as written (none: it had only common words).
    pub words: Vec<String>,
    /// Words read as another the index holds: "postgress → postgres".
    pub read_as: Vec<String>,
    /// Words nothing in the index matches, in any form.
    pub unmatched: Vec<String>,
}

/// A document FTS5 found (best BM25 first): its row, source, title and end.
struct Candidate {
    row: i64,
    source: Source,
    title: String,
    end_ms: u64,
}

/// The index's words, as FTS5 keeps them (`doc_vocab`).
struct IndexVocabulary<'a>(&'a Connection);

impl Vocabulary for IndexVocabulary<'_> {
    fn holds(&self, term: &str, prefix: bool) -> bool {
        let first: Option<String> = self
            .0
            .prepare_cached("SELECT term FROM doc_vocab WHERE term >= ?1 ORDER BY term LIMIT 1")
            .and_then(|mut statement| statement.query_row([term], |row| row.get(0)).optional())
            .unwrap_or(None);
        first.is_some_and(|found| found == term || (prefix && found.starts_with(term)))
    }

    fn starting_with(&self, first: char) -> Vec<(String, u64)> {
        let Some(next) = char::from_u32(first as u32 + 1) else {
            return Vec::new();
        };
        let read = || -> rusqlite::Result<Vec<(String, u64)>> {
            let mut statement = self
                .0
                .prepare_cached("SELECT term, doc FROM doc_vocab WHERE term >= ?1 AND term < ?2")?;
            let rows = statement
                .query_map(params![first.to_string(), next.to_string()], |row| {
                    Ok((row.get(0)?, row.get::<_, i64>(1)? as u64))
                })?;
            rows.collect()
        };
        read().unwrap_or_default()
    }
}

impl RecallStore {
    /// The best `search.limit` documents for the question, each read whole with its
    /// confidence, best first; and how the question was read.
    pub fn search(&self, search: &Search) -> Result<Found, RecallError> {
        let question = Question::read(&search.words, &IndexVocabulary(&self.connection));
        let mut found = Found {
            words: question.words(),
            read_as: question.read_as(),
            unmatched: question.unmatched(),
            results: Vec::new(),
        };
        let known: Vec<&Concept> = question.concepts.iter().filter(|c| c.known).collect();
        if known.is_empty() {
            return Ok(found);
        }
        let texts = self.texts(self.candidates(&known, search)?)?;
        let held = holding::held(&question, &texts);
        for (held, confidence, weak) in rank(held, search.recency_bias, search.now_ms, search.limit)
        {
            found.results.push(Ranked {
                document: self.document(held.row)?,
                confidence,
                weak,
            });
        }
        Ok(found)
    }

    /// The documents holding every known concept, then (when those are few) any of them.
    fn candidates(
        &self,
        known: &[&Concept],
        search: &Search,
    ) -> Result<Vec<Candidate>, RecallError> {
        let every: Vec<String> = known.iter().map(|c| any_term(&c.terms)).collect();
        let mut found = self.matching(&every.join(" AND "), search)?;
        // Enough documents holding every word outrank any holding some (a lower coverage), and
        // asking for those holding any word of a question of common words scores most of
        // the index: it is asked only when the first are few.
        if known.len() > 1 && found.len() < search.limit * ENOUGH_PER_RESULT {
            for candidate in self.matching(&every.join(" OR "), search)? {
                if !found.iter().any(|seen| seen.row == candidate.row) {
                    found.push(candidate);
                }
            }
        }
        Ok(found)
    }

    /// The candidates' text, for what they hold of the question.
    fn texts(&self, candidates: Vec<Candidate>) -> Result<Vec<Text>, RecallError> {
        let rows = serde_json::to_string(&candidates.iter().map(|c| c.row).collect::<Vec<_>>())
            .expect("rows serialise");
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT id, body FROM doc WHERE id IN (SELECT value FROM json_each(?1))",
            )
            .map_err(|e| self.fail(e))?;
        let mut bodies: HashMap<i64, String> = statement
            .query_map([rows], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| self.fail(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.fail(e))?;
        Ok(candidates
            .into_iter()
            .map(|candidate| Text {
                body: bodies.remove(&candidate.row).unwrap_or_default(),
                row: candidate.row,
                source: candidate.source,
                end_ms: candidate.end_ms,
                title: candidate.title,
            })
            .collect())
    }

    /// The documents that match the FTS5 `expression`, best BM25 first, within the filters.
    ///
    /// Without a filter FTS5 ranks and cuts the list itself (`ORDER BY rank`), and only the
    /// candidates kept are joined to their documents; a filter needs every match joined first.
    /// Both statements take the same four parameters (SQLite numbers them up to the highest
    /// used, so the first leaves `?2` and `?3` unread).
    fn matching(&self, expression: &str, search: &Search) -> Result<Vec<Candidate>, RecallError> {
        let sql = if search.task_id.is_none() && search.source.is_none() {
            "SELECT doc.id, doc.title, doc.end_ms, doc.source
             FROM (SELECT rowid, rank FROM doc_fts
                   WHERE doc_fts MATCH ?1 AND rank MATCH 'bm25(5.0, 1.0)'
                   ORDER BY rank LIMIT ?4) AS ranked
             JOIN doc ON doc.id = ranked.rowid
             ORDER BY ranked.rank"
        } else {
            "SELECT doc.id, doc.title, doc.end_ms, doc.source, bm25(doc_fts, 5.0, 1.0) AS score
             FROM doc_fts JOIN doc ON doc.id = doc_fts.rowid
             WHERE doc_fts MATCH ?1
               AND (?2 IS NULL OR doc.task_id = ?2)
               AND (?3 IS NULL OR doc.source = ?3)
             ORDER BY score LIMIT ?4"
        };
        let mut statement = self
            .connection
            .prepare_cached(sql)
            .map_err(|e| self.fail(e))?;
        let rows = statement
            .query_map(
                params![
                    expression,
                    search.task_id,
                    search.source.map(Source::as_str),
                    CANDIDATES as i64
                ],
                |row| {
                    Ok(Candidate {
                        row: row.get(0)?,
                        title: row.get(1)?,
                        end_ms: row.get::<_, i64>(2)? as u64,
                        source: Source::parse(&row.get::<_, String>(3)?).unwrap_or(Source::Task),
                    })
                },
            )
            .map_err(|e| self.fail(e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.fail(e))
    }
}

/// A term as FTS5 syntax: quoted (no character of it is FTS5 syntax), a prefix when it is.
fn quoted(term: &Term) -> String {
    let text = format!("\"{}\"", term.text.replace('"', "\"\""));
    if term.prefix { text + "*" } else { text }
}

/// Any of the terms, as one FTS5 group.
fn any_term(terms: &[Term]) -> String {
    let any: Vec<String> = terms.iter().map(quoted).collect();
    format!("({})", any.join(" OR "))
}

/// The question's words as a plain FTS5 expression (each a prefix, any of them), as a raw
/// FTS5 search would put it: what the benchmarks compare with. `None` without a word.
pub fn match_expression(question: &str) -> Option<String> {
    let words = content_words(question);
    (!words.is_empty()).then(|| {
        words
            .iter()
            .map(|word| format!("\"{word}\"*"))
            .collect::<Vec<_>>()
            .join(" OR ")
    })
}
