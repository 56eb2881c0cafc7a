//! Answering a question: it is read against the index's vocabulary ([`Question`]), FTS5
//! finds each of its words' documents (unranked), those holding the most of the question
//! are read and checked for which of its words they hold and how well ([`holding`]), and
//! the best are read whole in the order of their confidence ([`rank`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use rusqlite::{Connection, params};

use crate::asks::Asks;
use crate::holding::{self, Text};
use crate::question::{Concept, IndexWords, Question, Term, Vocabulary, content_words};
use crate::rank::{Held, Ranked, rank};
use crate::{RecallError, RecallStore, Source};

/// Candidates read whole and scored on what they hold (see [`holding`]).
const CANDIDATES: usize = 30;

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

impl Search {
    /// Whether it is narrowed to one task or one source.
    fn is_filtered(&self) -> bool {
        self.task_id.is_some() || self.source.is_some()
    }
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

/// The most of the index's words [`WordsByLetter`] keeps (about 40 bytes each).
const MOST_WORDS_KEPT: usize = 200_000;

/// The index's words by their first letter, with how many documents hold each, kept from
/// one search to the next until the index changes. Correcting a word reads every word of
/// its first letter, and that read (FTS5's vocabulary walks the whole term list of every
/// segment) was a fifth of a search with a word the index does not hold.
#[derive(Default)]
pub(crate) struct WordsByLetter {
    letters: RefCell<HashMap<char, IndexWords>>,
}

impl WordsByLetter {
    /// The words starting with `first`: kept, or read with `read` (and kept while the
    /// letters kept hold fewer than [`MOST_WORDS_KEPT`] words).
    fn get(
        &self,
        first: char,
        read: impl FnOnce() -> rusqlite::Result<Vec<(String, u64)>>,
    ) -> IndexWords {
        if let Some(words) = self.letters.borrow().get(&first) {
            return words.clone();
        }
        let Ok(words) = read() else {
            return Arc::from([]);
        };
        let words: IndexWords = words.into();
        let mut letters = self.letters.borrow_mut();
        let kept: usize = letters.values().map(|words| words.len()).sum();
        if kept + words.len() <= MOST_WORDS_KEPT {
            letters.insert(first, words.clone());
        }
        words
    }
}

/// The index's words, as FTS5 finds them: each term is asked for once per search, and the
/// documents holding it are kept for choosing the candidates.
struct IndexVocabulary<'a> {
    connection: &'a Connection,
    words_by_letter: &'a WordsByLetter,
    found: RefCell<HashMap<TermKey, Rc<[i64]>>>,
}

/// A term as looked up: its text, and whether words it starts count.
type TermKey = (String, bool);

impl<'a> IndexVocabulary<'a> {
    fn new(connection: &'a Connection, words_by_letter: &'a WordsByLetter) -> Self {
        Self {
            connection,
            words_by_letter,
            found: RefCell::default(),
        }
    }

    /// The rows of the documents holding `term` (a word it starts, when `prefix`; a
    /// phrase as one), unranked.
    fn rows(&self, term: &str, prefix: bool) -> rusqlite::Result<Rc<[i64]>> {
        let key = (term.to_owned(), prefix);
        if let Some(rows) = self.found.borrow().get(&key) {
            return Ok(rows.clone());
        }
        let expression = quoted(&Term {
            text: term.to_owned(),
            prefix,
            weight: 1.0,
        });
        let mut statement = self
            .connection
            .prepare_cached("SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?1")?;
        let rows: Rc<[i64]> = statement
            .query_map([expression], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        self.found.borrow_mut().insert(key, rows.clone());
        Ok(rows)
    }
}

impl Vocabulary for IndexVocabulary<'_> {
    fn holds(&self, term: &str, prefix: bool) -> bool {
        self.rows(term, prefix).is_ok_and(|rows| !rows.is_empty())
    }

    fn starting_with(&self, first: char) -> IndexWords {
        let Some(next) = char::from_u32(first as u32 + 1) else {
            return Arc::from([]);
        };
        let read = || -> rusqlite::Result<Vec<(String, u64)>> {
            let mut statement = self.connection.prepare_cached(
                "SELECT term, doc FROM doc_vocab WHERE term >= ?1 AND term < ?2 ORDER BY term",
            )?;
            let rows = statement
                .query_map(params![first.to_string(), next.to_string()], |row| {
                    Ok((row.get(0)?, row.get::<_, i64>(1)? as u64))
                })?;
            rows.collect()
        };
        self.words_by_letter.get(first, read)
    }
}

impl RecallStore {
    /// The best `search.limit` documents for the question, each read whole with its
    /// confidence, best first; and how the question was read.
    pub fn search(&self, search: &Search) -> Result<Found, RecallError> {
        let vocabulary = IndexVocabulary::new(&self.reader, &self.words_by_letter);
        let question = Question::read(&search.words, &vocabulary);
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
        let mut texts = self.texts(&self.candidates(&known, &vocabulary, search)?)?;
        let written_in = question.asks.written_in();
        // A topic's answer is the task its records were made for; a figure's or an
        // outcome's, the records its tasks made.
        let linked: &[Source] = match question.asks {
            Asks::Topic => &[Source::Task],
            _ => written_in,
        };
        for &source in linked {
            let more = self.linked(&texts, source, search)?;
            texts.extend(self.texts(&more)?);
        }
        let mut held = holding::held(&question, &texts);
        for &source in written_in {
            // A wait watched for what its task was about; a command run for a task answers
            // whether something holds only when it names some of it ("(0 rows)" of a
            // query for duplicates), not because its task does (smartctl of a resync).
            let own_words_needed = question.asks == Asks::Outcome && source == Source::Terminal;
            served_as_their_tasks(&mut held, &texts, source, own_words_needed);
        }
        if question.asks == Asks::Topic {
            tasks_answer_for_their_records(&mut held, &texts);
        }
        let ranked = rank(
            held,
            question.names_the_unrecorded,
            search.recency_bias,
            search.now_ms,
            search.limit,
        );
        for (held, confidence, weak) in ranked {
            found.results.push(Ranked {
                document: self.document(held.row)?,
                confidence,
                weak,
                lacks_only_unindexed: held.lacks_only_unknown,
            });
        }
        Ok(found)
    }

    /// The documents to read: those holding the most of the known concepts, then (when
    /// more hold as many than can be read) those holding more of them in their title, then
    /// the most recently indexed. Each concept is one FTS5 query that returns its
    /// documents unranked: what a document holds is read off its text afterwards, so
    /// FTS5's own BM25 over every match, the larger part of a ranked query, is not needed.
    fn candidates(
        &self,
        known: &[&Concept],
        vocabulary: &IndexVocabulary,
        search: &Search,
    ) -> Result<Vec<i64>, RecallError> {
        let mut held: HashMap<i64, Holds> = HashMap::new();
        for concept in known {
            let mut rows: Vec<i64> = if !search.is_filtered() {
                // The terms' documents as the question's reading found them.
                let mut rows = Vec::new();
                for term in &concept.terms {
                    let found = vocabulary.rows(&term.text, term.prefix);
                    rows.extend_from_slice(&found.map_err(|e| self.fail(e))?);
                }
                rows
            } else {
                self.matching(&any_term(&concept.terms), search)?
            };
            rows.sort_unstable();
            rows.dedup();
            for row in rows {
                held.entry(row).or_default().concepts += 1;
            }
        }
        let most = held.values().map(|holds| holds.concepts).max().unwrap_or(0);
        if held.values().filter(|holds| holds.concepts == most).count() > CANDIDATES {
            for concept in known {
                let in_title = format!("title : {}", any_term(&concept.terms));
                for row in self.matching(&in_title, search)? {
                    if let Some(holds) = held.get_mut(&row) {
                        holds.in_title += 1;
                    }
                }
            }
        }
        let mut rows: Vec<(i64, Holds)> = held.into_iter().collect();
        rows.sort_unstable_by(|(a_row, a), (b_row, b)| {
            (b.concepts, b.in_title, b_row).cmp(&(a.concepts, a.in_title, a_row))
        });
        rows.truncate(CANDIDATES);
        Ok(rows.into_iter().map(|(row, _)| row).collect())
    }

    /// The documents of `source` linked to those among `texts` by their task that are not
    /// among them, within the search's filters (whatever is among `texts` is within its
    /// `task_id` already). Waits or terminal sessions: those recorded for the tasks among
    /// `texts`, where a question asking for a figure or an outcome finds its answer when
    /// the task, not the record, holds its words. Tasks: those the waits and terminal
    /// sessions among `texts` were recorded for, where a question naming a topic finds the
    /// record of how it was done when only a moment of it holds its words ("pms" of a task
    /// about the night audit, whose log is under `/var/log/pms`).
    fn linked(
        &self,
        texts: &[Text],
        source: Source,
        search: &Search,
    ) -> Result<Vec<i64>, RecallError> {
        if search.source.is_some_and(|only| only != source) {
            return Ok(Vec::new());
        }
        let from_task = source != Source::Task;
        let tasks: Vec<&str> = (texts.iter())
            .filter(|text| match text.source {
                Source::Task => from_task,
                Source::Wait | Source::Terminal => !from_task,
                Source::Screen | Source::Transcript => false,
            })
            .filter_map(|text| text.task_id.as_deref())
            .collect();
        if tasks.is_empty() {
            return Ok(Vec::new());
        }
        let tasks = serde_json::to_string(&tasks).expect("task ids serialise");
        let mut statement = self
            .reader
            .prepare_cached(
                "SELECT id FROM doc WHERE source = ?2
                   AND task_id IN (SELECT value FROM json_each(?1))",
            )
            .map_err(|e| self.fail(e))?;
        let rows = statement
            .query_map(params![tasks, source.as_str()], |row| row.get::<_, i64>(0))
            .map_err(|e| self.fail(e))?
            .collect::<Result<Vec<i64>, _>>()
            .map_err(|e| self.fail(e))?;
        Ok(rows
            .into_iter()
            .filter(|row| texts.iter().all(|text| text.row != *row))
            .collect())
    }

    /// The candidates' text, for what they hold of the question, in the order of `rows`.
    fn texts(&self, rows: &[i64]) -> Result<Vec<Text>, RecallError> {
        let wanted = serde_json::to_string(rows).expect("rows serialise");
        let mut statement = self
            .reader
            .prepare_cached(
                "SELECT id, source, task_id, title, end_ms, body FROM doc
                 WHERE id IN (SELECT value FROM json_each(?1))",
            )
            .map_err(|e| self.fail(e))?;
        let mut texts: HashMap<i64, Text> = statement
            .query_map([wanted], |row| {
                Ok(Text {
                    row: row.get(0)?,
                    source: Source::parse(&row.get::<_, String>(1)?).unwrap_or(Source::Task),
                    task_id: row.get(2)?,
                    title: row.get(3)?,
                    end_ms: row.get::<_, i64>(4)? as u64,
                    body: row.get(5)?,
                })
            })
            .map_err(|e| self.fail(e))?
            .map(|text| text.map(|text| (text.row, text)))
            .collect::<Result<_, _>>()
            .map_err(|e| self.fail(e))?;
        Ok(rows.iter().filter_map(|row| texts.remove(row)).collect())
    }

    /// The rows of the documents that match the FTS5 `expression` within the filters,
    /// unranked.
    fn matching(&self, expression: &str, search: &Search) -> Result<Vec<i64>, RecallError> {
        let rows = |sql: &str, parameters: &[&dyn rusqlite::ToSql]| {
            let mut statement = self.reader.prepare_cached(sql)?;
            let rows = statement.query_map(parameters, |row| row.get(0))?;
            rows.collect::<Result<Vec<i64>, _>>()
        };
        let found = if !search.is_filtered() {
            rows(
                "SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?1",
                params![expression],
            )
        } else {
            rows(
                "SELECT doc.id FROM doc_fts JOIN doc ON doc.id = doc_fts.rowid
                 WHERE doc_fts MATCH ?1
                   AND (?2 IS NULL OR doc.task_id = ?2)
                   AND (?3 IS NULL OR doc.source = ?3)",
                params![
                    expression,
                    search.task_id,
                    search.source.map(Source::as_str)
                ],
            )
        };
        found.map_err(|e| self.fail(e))
    }
}

/// Each document of `source` among `texts` recorded for a task among them holds the
/// question at least as its task does ([`Held::served`]), with `own_words_needed` only one
/// that holds some of it itself; `held` is in the order of `texts`.
fn served_as_their_tasks(
    held: &mut [Held],
    texts: &[Text],
    source: Source,
    own_words_needed: bool,
) {
    let tasks: HashMap<&str, Held> = (texts.iter().zip(held.iter()))
        .filter(|(text, _)| text.source == Source::Task)
        .filter_map(|(text, held)| Some((text.task_id.as_deref()?, *held)))
        .collect();
    for (text, held) in texts.iter().zip(held.iter_mut()) {
        if text.source == source
            && (held.coverage > 0.0 || !own_words_needed)
            && let Some(task) = text.task_id.as_deref().and_then(|id| tasks.get(id))
        {
            *held = held.served(task);
        }
    }
}

/// Each task among `texts` holds the question at least as well as the waits and terminal
/// sessions among them recorded for it ([`Held::answering_for`]).
fn tasks_answer_for_their_records(held: &mut [Held], texts: &[Text]) {
    let mut records: HashMap<&str, Held> = HashMap::new();
    for (text, held) in texts.iter().zip(held.iter()) {
        if matches!(text.source, Source::Wait | Source::Terminal)
            && let Some(task) = text.task_id.as_deref()
        {
            let best = records.entry(task).or_insert(*held);
            *best = best.answering_for(held);
        }
    }
    for (text, held) in texts.iter().zip(held.iter_mut()) {
        if text.source == Source::Task
            && let Some(record) = text.task_id.as_deref().and_then(|id| records.get(id))
        {
            *held = held.answering_for(record);
        }
    }
}

/// How much of the question a document holds, as its concepts' FTS5 queries found.
#[derive(Clone, Copy, Default)]
struct Holds {
    concepts: usize,
    in_title: usize,
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
