//! Searches beside the Recall actor. A search of an index that holds everything the task
//! database committed, and every document put before it, needs nothing of the actor: it
//! runs on the caller's task, on a reader of its own ([`recall::RecallReader`]). That spares
//! it the hop to the actor and back, and the queue behind the actor's other work. The actor
//! says how far the index is caught up and which of the documents put to it it indexed;
//! a search that finds the index behind either (or not open) goes to the actor, which
//! catches up first. Readers are kept between searches, and dropped when the actor opens
//! the index again (a damaged file set aside is replaced by a new one).

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use recall::{Document, RecallReader, Search};

use crate::directory::Directory;
use crate::locks::lock;
use crate::recall::actor::{RecallAnswer, RecallMsg, answered, off_the_runtime};

/// Sends the Recall actor `documents` to put in the index (whose only record they are: a
/// terminal session that ended, a screen segment). Searches beside the actor wait for them:
/// until the actor indexed them, a search goes through it.
pub(crate) fn put(directory: &Directory, documents: Vec<Document>) {
    let Ok(recall) = directory.recall() else {
        return;
    };
    let readers = directory.recall_readers();
    // One send at a time, so the numbers reach the actor in their order.
    let _sending = lock(&readers.sending);
    let number = readers.puts_sent.load(Ordering::SeqCst) + 1;
    if recall.cast(RecallMsg::Put(documents, number)).is_ok() {
        readers.puts_sent.store(number, Ordering::SeqCst);
    }
}

/// Readers kept for the next searches; more run at once when asked, and are then closed.
const MOST_IDLE_READERS: usize = 4;

#[derive(Default)]
pub struct RecallReaders {
    index: Mutex<Index>,
    /// Held while documents are sent to the actor.
    sending: Mutex<()>,
    /// Sends of documents to the actor to put in the index (each the next number).
    puts_sent: AtomicU64,
    /// The newest of those the actor indexed (or gave up on).
    puts_done: AtomicU64,
}

#[derive(Default)]
struct Index {
    /// The file the actor opened (`None`: not open).
    path: Option<PathBuf>,
    /// Counts the openings: a reader of an earlier one is not kept.
    opening: u64,
    /// The commit count the index holds everything up to (`None`: not caught up yet).
    caught_up_to: Option<u64>,
    idle: Vec<RecallReader>,
}

/// A reader taken for one search.
pub struct Taken<'a> {
    readers: &'a RecallReaders,
    reader: RecallReader,
    opening: u64,
}

impl RecallReaders {
    /// For the actor: it opened the index at `path` (`None`: it could not), not caught up
    /// yet. Documents put to an actor before it started were lost with its mailbox.
    pub(crate) fn opened(&self, path: Option<PathBuf>) {
        let mut index = lock(&self.index);
        index.path = path;
        index.opening += 1;
        index.caught_up_to = None;
        index.idle.clear();
    }

    /// For the actor: the index holds everything committed up to `commits`.
    pub(crate) fn caught_up(&self, commits: u64) {
        lock(&self.index).caught_up_to = Some(commits);
    }

    /// For the actor: the send `number` was handled, and every one before it.
    pub(crate) fn put_done(&self, number: u64) {
        self.puts_done.fetch_max(number, Ordering::SeqCst);
    }

    /// For the actor, as it starts: the sends to its predecessor were lost.
    pub(crate) fn puts_lost(&self) {
        self.put_done(self.puts_sent.load(Ordering::SeqCst));
    }

    /// A reader of the index, when it holds everything up to `commits` and every document
    /// sent to it; `None`: ask the actor.
    pub fn take(&self, commits: u64) -> Option<Taken<'_>> {
        if self.puts_done.load(Ordering::SeqCst) < self.puts_sent.load(Ordering::SeqCst) {
            return None;
        }
        let (path, opening) = {
            let mut index = lock(&self.index);
            if index.caught_up_to != Some(commits) {
                return None;
            }
            if let Some(reader) = index.idle.pop() {
                let opening = index.opening;
                return Some(Taken {
                    readers: self,
                    reader,
                    opening,
                });
            }
            (index.path.clone()?, index.opening)
        };
        match RecallReader::open(&path) {
            Ok(reader) => Some(Taken {
                readers: self,
                reader,
                opening,
            }),
            Err(error) => {
                tracing::debug!("a recall reader did not open ({error}); the actor searches");
                None
            }
        }
    }

    /// Keeps `reader` for the next search, unless the index was opened again meanwhile.
    fn give_back(&self, reader: RecallReader, opening: u64) {
        let mut index = lock(&self.index);
        if index.opening == opening && index.idle.len() < MOST_IDLE_READERS {
            index.idle.push(reader);
        }
    }
}

impl Taken<'_> {
    /// The answer to `search`; `None` when the reader failed (the actor is asked instead,
    /// and says what went wrong if it fails too).
    pub async fn search(self, search: Search) -> Option<RecallAnswer> {
        let Taken {
            readers,
            mut reader,
            opening,
        } = self;
        let searched = off_the_runtime(move || {
            let found = reader.search(&search)?;
            let indexed = reader.counts()?;
            Ok((reader, answered(found, indexed)))
        })
        .await;
        match searched {
            Ok((reader, answer)) => {
                readers.give_back(reader, opening);
                Some(answer)
            }
            Err(error) => {
                tracing::debug!(
                    "a search beside the recall actor failed ({error}); the actor searches"
                );
                None
            }
        }
    }
}
