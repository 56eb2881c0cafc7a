//! lookout's recall index: one document per thing an agent did (a task with its plan, notes
//! and outcome; later terminal sessions and screen segments), searchable by `memory_recall`.
//!
//! SQLite FTS5 (BM25 with the title weighted 5×, prefix matching, `unicode61` folding
//! diacritics; a question read with synonyms and typo correction, `question.rs`, and ranked
//! by what it holds of it, `search.rs` and `rank.rs`) in `recall.sqlite`, a file of its own beside the redb database, which stays
//! the record: everything indexed here from tasks can be rebuilt from it, so losing this file
//! loses nothing. Synchronous; one owner (the Recall actor) holds the store: a connection
//! that writes, and one that only searches (see [`RecallStore::open`]).

mod asks;
mod compounds;
mod diacritics;
mod everyday;
mod forms;
mod framing;
mod holding;
mod kinds;
mod phrases;
pub mod quality;
mod question;
mod rank;
mod search;
mod stems;
mod symptoms;
mod synonyms;
mod tables;
mod trades;
mod typos;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

pub use kinds::KIND_WEIGHT;
pub use question::{CORRECTION_WEIGHT, content_words};
pub use rank::{Ranked, WEAK_COVERAGE};
pub use search::{Found, Search, match_expression};
pub use synonyms::SYNONYM_WEIGHT;
pub use typos::edit_distance;

/// The mark of an agent session (named by its document's key) that was forgotten.
pub const FORGOTTEN: u64 = u64::MAX;

/// The index's layout version; a file of another version is rebuilt from scratch.
const SCHEMA_VERSION: i64 = 3;

#[derive(Debug, thiserror::Error)]
pub enum RecallError {
    #[error("recall index {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

impl RecallError {
    /// Whether the file itself is bad (damaged, or not an SQLite database), as opposed to a
    /// disk that is full or cannot be written for now.
    pub fn is_damage(&self) -> bool {
        let RecallError::Sqlite { source, .. } = self;
        matches!(
            source.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
        )
    }
}

/// Where a document comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Task,
    Wait,
    Terminal,
    Screen,
    /// The agent's own past sessions (Claude Code transcripts).
    Transcript,
}

impl Source {
    pub const ALL: [Source; 5] = [
        Source::Task,
        Source::Wait,
        Source::Terminal,
        Source::Screen,
        Source::Transcript,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Task => "task",
            Source::Wait => "wait",
            Source::Terminal => "terminal",
            Source::Screen => "screen",
            Source::Transcript => "transcript",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|source| source.as_str() == text)
    }
}

/// One step of a document, at its time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub at_ms: u64,
    pub text: String,
}

/// A picture kept of a screen segment: a JPEG file, at an offset into the segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Milliseconds after the segment started.
    pub offset_ms: u64,
    pub path: String,
    pub bytes: u64,
}

/// What is indexed: `key` names it (re-indexing replaces it), `title` weighs 5× in ranking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    pub key: String,
    pub source: Source,
    pub task_id: Option<String>,
    pub title: String,
    pub body: String,
    pub start_ms: u64,
    pub end_ms: u64,
    pub steps: Vec<Step>,
    pub summary: String,
    /// The application of a screen segment (`WM_CLASS`).
    pub app: Option<String>,
    /// The task's current step when it was recorded (screen segments).
    pub step: Option<u32>,
    /// Keyframes of a screen segment.
    pub frames: Vec<Frame>,
}

/// What `recall forget` removes: screen segments and terminal sessions that overlap the
/// time range, of the application, or recorded for the task (every filter given must hold).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forget {
    /// Those that ended at or after this time.
    pub since_ms: Option<u64>,
    /// Those that ended before this time (retention: older than the age limit).
    pub before_ms: Option<u64>,
    pub app: Option<String>,
    pub task_id: Option<String>,
}

/// The body as it is indexed: with the words of each identifier written in camel case
/// spelled out after it ("PermitRootLogin" adds "permit root login", "maxSurge" "max
/// surge"), so a question in plain words finds a setting, a field or a class by its name.
fn searchable_body<'a>(title: &str, body: &'a str) -> std::borrow::Cow<'a, str> {
    let mut spelled: Vec<String> = Vec::new();
    for token in [title, body]
        .into_iter()
        .flat_map(|text| text.split(|c: char| !c.is_alphanumeric()))
    {
        // Most tokens are all small letters (or all capitals): skipped without a copy.
        if !(token.chars().any(char::is_lowercase) && token.chars().any(char::is_uppercase)) {
            continue;
        }
        let words = camel_case_words(token);
        if words.len() > 1 {
            let words = words.join(" ");
            if !spelled.contains(&words) {
                spelled.push(words);
            }
        }
    }
    if spelled.is_empty() {
        return std::borrow::Cow::Borrowed(body);
    }
    std::borrow::Cow::Owned(format!("{body}\n{}", spelled.join("\n")))
}

/// The words of an identifier in camel case, lowercase ("HTTPServerError" → http, server,
/// error); one word when it has none (all lowercase, all capitals, or digits in it).
fn camel_case_words(token: &str) -> Vec<String> {
    let chars: Vec<char> = token.chars().collect();
    if chars.iter().any(char::is_ascii_digit) {
        return vec![token.to_lowercase()];
    }
    let mut words = Vec::new();
    let mut start = 0;
    for at in 1..chars.len() {
        let (before, this) = (chars[at - 1], chars[at]);
        let after = chars.get(at + 1).copied();
        // "rootLogin" breaks before the L; "HTTPServer" before the S of "Server".
        let starts_word = (before.is_lowercase() && this.is_uppercase())
            || (before.is_uppercase()
                && this.is_uppercase()
                && after.is_some_and(char::is_lowercase));
        if starts_word {
            words.push(chars[start..at].iter().collect::<String>().to_lowercase());
            start = at;
        }
    }
    words.push(chars[start..].iter().collect::<String>().to_lowercase());
    words
}

/// What [`RecallStore::forget`] removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forgotten {
    pub documents: u64,
    /// Their keyframes: the files to delete.
    pub frames: Vec<Frame>,
}

pub struct RecallStore {
    /// Writes, and reads what writing needs (marks, counts, what to forget).
    connection: Connection,
    /// Searches. FTS5 keeps, on a connection that has written, a table of pending terms
    /// that every prefix lookup scans slot by slot even when it is empty, and the table
    /// keeps the size the largest write gave it: a search on the writing connection after
    /// indexing a thousand tasks took half as long again.
    reader: Connection,
    path: PathBuf,
    /// [`RecallStore::counts`] until the next change: every answer reports them.
    counts: Option<Vec<(Source, u64)>>,
    /// The index's words by their first letter, as read for correcting a word, until the
    /// next change (see [`search::WordsByLetter`]).
    words_by_letter: search::WordsByLetter,
}

impl RecallStore {
    /// Opens (or creates) the index at `path`; a file of another layout is started afresh
    /// (its content is rebuilt from the record by the caller).
    pub fn open(path: &Path) -> Result<Self, RecallError> {
        let fail = |source| RecallError::Sqlite {
            path: path.to_owned(),
            source,
        };
        let connection = Connection::open(path).map_err(fail)?;
        prepare(&connection).map_err(fail)?;
        // Opened once the writer made the file and its write-ahead log: it sees each
        // commit on its next statement.
        let reader = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(fail)?;
        Ok(Self {
            connection,
            reader,
            path: path.to_owned(),
            counts: None,
            words_by_letter: search::WordsByLetter::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Drops what was kept of the index between searches: it is about to change.
    fn forget_what_was_read(&mut self) {
        self.counts = None;
        self.words_by_letter = search::WordsByLetter::default();
    }

    pub(crate) fn fail(&self, source: rusqlite::Error) -> RecallError {
        RecallError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Indexes `documents` in one transaction, each replacing the one of its key.
    pub fn put(&mut self, documents: &[Document]) -> Result<(), RecallError> {
        self.forget_what_was_read();
        let path = self.path.clone();
        let fail = |source| RecallError::Sqlite {
            path: path.clone(),
            source,
        };
        let transaction = self.connection.transaction().map_err(fail)?;
        for document in documents {
            let steps = serde_json::to_string(
                &document
                    .steps
                    .iter()
                    .map(|step| serde_json::json!([step.at_ms, step.text]))
                    .collect::<Vec<_>>(),
            )
            .expect("steps serialise");
            let frames = encode_frames(&document.frames);
            transaction
                .execute("DELETE FROM doc WHERE key = ?1", params![document.key])
                .map_err(fail)?;
            transaction
                .execute(
                    "INSERT INTO doc(key, source, task_id, title, body, start_ms, end_ms, steps,
                                     summary, app, step, frames)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                    params![
                        document.key,
                        document.source.as_str(),
                        document.task_id,
                        document.title,
                        searchable_body(&document.title, &document.body),
                        document.start_ms as i64,
                        document.end_ms as i64,
                        steps,
                        document.summary,
                        document.app,
                        document.step,
                        frames,
                    ],
                )
                .map_err(fail)?;
        }
        transaction.commit().map_err(fail)
    }

    /// A named high-water mark (how far a source has been indexed); 0 when never set.
    pub fn mark(&self, name: &str) -> Result<u64, RecallError> {
        self.connection
            .query_row("SELECT value FROM mark WHERE name = ?1", [name], |row| {
                row.get::<_, i64>(0)
            })
            .optional()
            .map(|value| value.unwrap_or(0) as u64)
            .map_err(|e| self.fail(e))
    }

    pub fn set_mark(&self, name: &str, value: u64) -> Result<(), RecallError> {
        self.connection
            .execute(
                "INSERT INTO mark(name, value) VALUES (?1, ?2)
                 ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                params![name, value as i64],
            )
            .map(|_| ())
            .map_err(|e| self.fail(e))
    }

    /// Removes the screen segments, terminal sessions and agent sessions the filter names
    /// (the records only this index holds; tasks and waits come back from the task
    /// database), returning the keyframe files they listed, for the caller to delete. An
    /// agent session forgotten is marked so ([`FORGOTTEN`]): it is not read again.
    pub fn forget(&mut self, filter: &Forget) -> Result<Forgotten, RecallError> {
        self.forget_what_was_read();
        let path = self.path.clone();
        let fail = |source| RecallError::Sqlite {
            path: path.clone(),
            source,
        };
        let transaction = self.connection.transaction().map_err(fail)?;
        let (documents, frames) = {
            let mut statement = transaction
                .prepare(
                    "SELECT id, frames, key FROM doc
                     WHERE source IN ('screen', 'terminal', 'transcript')
                       AND (?1 IS NULL OR end_ms >= ?1)
                       AND (?2 IS NULL OR end_ms < ?2)
                       AND (?3 IS NULL OR (source IN ('screen', 'transcript')
                                           AND lower(app) = lower(?3)))
                       AND (?4 IS NULL OR task_id = ?4)",
                )
                .map_err(fail)?;
            let rows = statement
                .query_map(
                    params![
                        filter.since_ms.map(|ms| ms as i64),
                        filter.before_ms.map(|ms| ms as i64),
                        filter.app,
                        filter.task_id
                    ],
                    |row| {
                        Ok((
                            row.get::<_, i64>(0)?,
                            row.get::<_, String>(1)?,
                            row.get::<_, String>(2)?,
                        ))
                    },
                )
                .map_err(fail)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(fail)?;
            let frames: Vec<Frame> = rows
                .iter()
                .flat_map(|(_, frames, _)| decode_frames(frames))
                .collect();
            (rows, frames)
        };
        for (id, _, key) in &documents {
            transaction
                .execute("DELETE FROM doc WHERE id = ?1", [id])
                .map_err(fail)?;
            if key.starts_with("transcript:") {
                transaction
                    .execute(
                        "INSERT INTO mark(name, value) VALUES (?1, ?2)
                         ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                        params![key, FORGOTTEN as i64],
                    )
                    .map_err(fail)?;
            }
        }
        transaction.commit().map_err(fail)?;
        Ok(Forgotten {
            documents: documents.len() as u64,
            frames,
        })
    }

    /// How many documents of each source are indexed (counted once per change).
    pub fn counts(&mut self) -> Result<Vec<(Source, u64)>, RecallError> {
        if let Some(counts) = &self.counts {
            return Ok(counts.clone());
        }
        let counts = Source::ALL
            .into_iter()
            .map(|source| {
                self.connection
                    .query_row(
                        "SELECT count(*) FROM doc WHERE source = ?1",
                        [source.as_str()],
                        |row| row.get::<_, i64>(0),
                    )
                    .map(|count| (source, count as u64))
                    .map_err(|e| self.fail(e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.counts = Some(counts.clone());
        Ok(counts)
    }

    /// One indexed document, by its row.
    pub(crate) fn document(&self, row: i64) -> Result<Document, RecallError> {
        let mut statement = self
            .reader
            .prepare_cached(
                "SELECT key, source, task_id, title, body, start_ms, end_ms, steps, summary,
                        app, step, frames
                 FROM doc WHERE id = ?1",
            )
            .map_err(|e| self.fail(e))?;
        statement
            .query_row([row], |row| {
                let steps: String = row.get(7)?;
                Ok(Document {
                    key: row.get(0)?,
                    source: Source::parse(&row.get::<_, String>(1)?).unwrap_or(Source::Task),
                    task_id: row.get(2)?,
                    title: row.get(3)?,
                    body: row.get(4)?,
                    start_ms: row.get::<_, i64>(5)? as u64,
                    end_ms: row.get::<_, i64>(6)? as u64,
                    steps: decode_steps(&steps),
                    summary: row.get(8)?,
                    app: row.get(9)?,
                    step: row.get(10)?,
                    frames: decode_frames(&row.get::<_, String>(11)?),
                })
            })
            .map_err(|e| self.fail(e))
    }
}

/// Makes the index's tables (or brings an older layout up to date) on the writing
/// connection, in write-ahead-log mode.
fn prepare(connection: &Connection) -> rusqlite::Result<()> {
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    let version: i64 = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if version == 2 {
        // Version 3 added what screen segments carry; nothing indexed is lost.
        connection.execute_batch(
            "ALTER TABLE doc ADD COLUMN app TEXT;
             ALTER TABLE doc ADD COLUMN step INTEGER;
             ALTER TABLE doc ADD COLUMN frames TEXT NOT NULL DEFAULT '[]';
             CREATE INDEX IF NOT EXISTS doc_end ON doc(source, end_ms);",
        )?;
    } else if version != SCHEMA_VERSION {
        connection.execute_batch(
            "DROP TABLE IF EXISTS doc_vocab; DROP TABLE IF EXISTS doc_fts; DROP TABLE IF EXISTS doc;
             DROP TABLE IF EXISTS mark;",
        )?;
    }
    connection.execute_batch(
        "CREATE TABLE IF NOT EXISTS doc(
             id INTEGER PRIMARY KEY,
             key TEXT NOT NULL UNIQUE,
             source TEXT NOT NULL,
             task_id TEXT,
             title TEXT NOT NULL,
             body TEXT NOT NULL,
             start_ms INTEGER NOT NULL,
             end_ms INTEGER NOT NULL,
             steps TEXT NOT NULL,
             summary TEXT NOT NULL,
             app TEXT,
             step INTEGER,
             frames TEXT NOT NULL DEFAULT '[]');
         CREATE INDEX IF NOT EXISTS doc_task ON doc(task_id);
         CREATE INDEX IF NOT EXISTS doc_end ON doc(source, end_ms);
         CREATE VIRTUAL TABLE IF NOT EXISTS doc_fts USING fts5(
             title, body, content='doc', content_rowid='id',
             tokenize='unicode61 remove_diacritics 2', prefix='2 3 4');
         CREATE TRIGGER IF NOT EXISTS doc_added AFTER INSERT ON doc BEGIN
             INSERT INTO doc_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
         END;
         CREATE TRIGGER IF NOT EXISTS doc_removed AFTER DELETE ON doc BEGIN
             INSERT INTO doc_fts(doc_fts, rowid, title, body)
                 VALUES ('delete', old.id, old.title, old.body);
         END;
         CREATE VIRTUAL TABLE IF NOT EXISTS doc_vocab USING fts5vocab(doc_fts, 'row');
         CREATE TABLE IF NOT EXISTS mark(name TEXT PRIMARY KEY, value INTEGER NOT NULL);",
    )?;
    connection.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(())
}

fn encode_frames(frames: &[Frame]) -> String {
    serde_json::to_string(
        &frames
            .iter()
            .map(|frame| serde_json::json!([frame.offset_ms, frame.path, frame.bytes]))
            .collect::<Vec<_>>(),
    )
    .expect("frames serialise")
}

fn decode_frames(text: &str) -> Vec<Frame> {
    let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    value
        .as_array()
        .map(|frames| {
            frames
                .iter()
                .filter_map(|frame| {
                    Some(Frame {
                        offset_ms: frame[0].as_u64()?,
                        path: frame[1].as_str()?.to_owned(),
                        bytes: frame[2].as_u64()?,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn decode_steps(text: &str) -> Vec<Step> {
    let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    value
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .filter_map(|step| {
                    Some(Step {
                        at_ms: step[0].as_u64()?,
                        text: step[1].as_str()?.to_owned(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
