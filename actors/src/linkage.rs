//! What passes between a wait or a terminal session and its task (docs/contract.md §4), in
//! types both sides use without importing each other: a wait hands each change of its own
//! (created, ended, revived) to its task's TaskActor, which stores the wait record, the
//! task's `active_wait_ids` and `last_wait_state`, the `wait` thread message and the wake
//! event in one transaction; a session linked to a task tells it when it started and how
//! it ended, which proves the linked step (exit 0) or blocks it.

use storage::{EventKind, Mutation, TaskId, WaitRecord};

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

/// A terminal session's task, and the step of it the session proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepLink {
    pub task_id: TaskId,
    pub step: Option<u32>,
}

/// What a linked terminal session tells its task.
#[derive(Clone, Debug)]
pub enum SessionChange {
    /// Before the program starts: is the link sound (the task open, the step in its plan)?
    Check { step: Option<u32> },
    Started {
        session_id: String,
        command: String,
        step: Option<u32>,
    },
    /// The program ended: with its exit code, or by a signal (`code` none, `how` says).
    Ended {
        session_id: String,
        command: String,
        step: Option<u32>,
        code: Option<i32>,
        how: String,
        last_line: Option<String>,
    },
}
