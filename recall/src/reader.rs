//! A connection that only searches the index, keeping what it read between searches (the
//! counts per source, the words by letter) until the index changes. The store holds one for
//! its own searches; the daemon keeps more beside the Recall actor, so that a search of an
//! index already caught up needs no hop to the actor. Whoever wrote, a reader sees each
//! commit on its next statement, and `PRAGMA data_version` tells it that what it kept is
//! out of date.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::search::WordsByLetter;
use crate::{Document, RecallError, Source, decode_frames, decode_steps};

pub struct RecallReader {
    /// Read-only. Searches do not run on the writing connection: FTS5 keeps, on a
    /// connection that has written, a table of pending terms that every prefix lookup scans
    /// slot by slot even when it is empty, and the table keeps the size the largest write
    /// gave it (a search there after indexing a thousand tasks took half as long again).
    pub(crate) connection: Connection,
    path: PathBuf,
    /// The index's `data_version` when what is kept was read (`None`: nothing kept).
    version: Option<i64>,
    /// Documents indexed per source: every answer reports them.
    counts: Option<Vec<(Source, u64)>>,
    /// The index's words by their first letter, as read for correcting a word.
    pub(crate) words_by_letter: WordsByLetter,
}

impl RecallReader {
    /// Opens the index at `path` for searching; the store that writes it must have made it
    /// (its tables and its write-ahead log).
    pub fn open(path: &Path) -> Result<Self, RecallError> {
        let connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| RecallError::Sqlite {
            path: path.to_owned(),
            source,
        })?;
        Ok(Self {
            connection,
            path: path.to_owned(),
            version: None,
            counts: None,
            words_by_letter: WordsByLetter::default(),
        })
    }

    pub(crate) fn fail(&self, source: rusqlite::Error) -> RecallError {
        RecallError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Drops what was kept when a commit came since it was read.
    pub(crate) fn refresh(&mut self) -> Result<(), RecallError> {
        let version = self
            .connection
            .prepare_cached("PRAGMA data_version")
            .and_then(|mut statement| statement.query_row([], |row| row.get::<_, i64>(0)))
            .map_err(|e| self.fail(e))?;
        if self.version != Some(version) {
            self.version = Some(version);
            self.counts = None;
            self.words_by_letter = WordsByLetter::default();
        }
        Ok(())
    }

    /// How many documents of each source are indexed (counted once per change).
    pub fn counts(&mut self) -> Result<Vec<(Source, u64)>, RecallError> {
        self.refresh()?;
        if let Some(counts) = &self.counts {
            return Ok(counts.clone());
        }
        let counts = Source::ALL
            .into_iter()
            .map(|source| {
                self.connection
                    .prepare_cached("SELECT count(*) FROM doc WHERE source = ?1")
                    .and_then(|mut statement| {
                        statement.query_row([source.as_str()], |row| row.get::<_, i64>(0))
                    })
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
            .connection
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
