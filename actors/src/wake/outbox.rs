//! The one way a wake event is born: staged into the write batch of the change that caused
//! it (the stuck alert, a wait's end, a taskless wait's end), committed with it, and
//! announced to the Wake actor after the commit — also when the commit failed, since an I/O
//! error may still have stored it, and the Wake actor skips events that are not there.

use storage::{Counter, EventKind, EventRecord, Mutation, TaskId, WriteBatch};

use crate::directory::Directory;
use crate::error::CallError;
use crate::wake::event::event_id;

/// A wake event about to be staged; its text is written once its id is known.
#[derive(Clone, Debug)]
pub struct NewEvent {
    pub kind: EventKind,
    pub task_id: Option<TaskId>,
    pub wait_id: Option<String>,
    pub session_key: Option<String>,
}

/// The events staged into one batch, to announce once it is committed.
#[must_use = "announce the staged events with commit_and_announce or announce"]
#[derive(Debug, Default)]
pub struct Staged(Vec<u64>);

impl Staged {
    /// Adds `event` to `batch` (the event record and the raised event counter) under a fresh
    /// seq, with the text `text` writes for its id (`e-000123`), and returns that seq.
    pub fn stage(
        &mut self,
        directory: &Directory,
        batch: &mut WriteBatch,
        event: NewEvent,
        text: impl FnOnce(&str) -> String,
    ) -> u64 {
        let seq = directory.next_event_seq();
        batch
            .push(Mutation::PutEvent(EventRecord {
                seq,
                kind: event.kind,
                text: text(&event_id(seq)),
                task_id: event.task_id,
                wait_id: event.wait_id,
                session_key: event.session_key,
                created_at: directory.now(),
                deliveries: Vec::new(),
                settled: false,
            }))
            .push(Mutation::RaiseCounter {
                counter: Counter::EventSequence,
                at_least: seq,
            });
        self.0.push(seq);
        seq
    }

    /// Tells the Wake actor about the staged events; call it once the batch's commit returned,
    /// whatever it returned.
    pub fn announce(self, directory: &Directory) {
        super::notify(directory, self.0);
    }
}

/// Commits `batch` through the Registry and announces the events staged into it.
pub async fn commit_and_announce(
    directory: &Directory,
    batch: WriteBatch,
    staged: Staged,
) -> Result<(), CallError> {
    let written = match directory.registry() {
        Ok(registry) => crate::registry::write(&registry, batch).await,
        Err(error) => Err(error),
    };
    staged.announce(directory);
    written
}
