//! What passes between a wait and its task (docs/contract.md §4), in types both sides use without
//! importing each other: a wait hands each change of its own (created, ended, revived) to
//! its task's TaskActor, which stores the wait record, the task's `active_wait_ids` and
//! `last_wait_state`, the `wait` thread message and the wake event in one transaction.

use storage::{EventKind, Mutation, WaitRecord};

/// What a wait change does to its task's linkage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    Add,
    Remove,
}

/// A wait change the TaskActor applies in one transaction with the task.
#[derive(Clone, Debug)]
pub struct WaitChange {
    pub wait: WaitRecord,
    pub link: Link,
    /// The thread message (msg_type `wait`).
    pub note: String,
    /// A wake event: its kind and the head of its text (the TaskActor adds the task part:
    /// the task and what to do next).
    pub event: Option<(EventKind, String)>,
    /// More mutations for the same transaction (the wait counter).
    pub extra: Vec<Mutation>,
}
