//! Storing a wait. A wait with a task hands each change of its own to the task's actor,
//! which writes it with the task's linkage, the thread message and the wake event in one
//! transaction; a wait with no task writes its record and its wake event itself.

use storage::{Mutation, WaitRecord, WriteBatch};

use crate::directory::Directory;
use crate::error::CallError;
use crate::linkage::WaitChange;
use crate::registry;
use crate::tasks::{TASK_CALL_TIMEOUT, TaskMsg, TasksMsg};
use crate::waits::texts;
use crate::wake::event::with_event_id;
use crate::wake::outbox::{self, NewEvent, Staged};

/// Saves the record alone (no task change, no event).
pub async fn save(directory: &Directory, record: WaitRecord) -> Result<(), CallError> {
    let mut batch = WriteBatch::new();
    batch.push(Mutation::PutWait(record));
    registry::write(&directory.registry()?, batch).await
}

/// Stores the change with its linkage: through the task's actor when the wait has a task,
/// else directly. Returns the stored record (which may have inherited the task's session
/// key).
pub async fn store_change(
    directory: &Directory,
    change: WaitChange,
) -> Result<WaitRecord, CallError> {
    let Some(task_id) = change.wait.task_id.clone() else {
        return store_taskless(directory, change).await;
    };
    let tasks = directory.tasks()?;
    let outcome = tasks
        .call(
            |reply| TasksMsg::Forward(task_id, TaskMsg::Wait(Box::new(change), reply)),
            Some(TASK_CALL_TIMEOUT),
        )
        .await;
    crate::error::from_call("task actor", TASK_CALL_TIMEOUT, outcome)
}

async fn store_taskless(
    directory: &Directory,
    change: WaitChange,
) -> Result<WaitRecord, CallError> {
    let WaitChange {
        wait, event, extra, ..
    } = change;
    let mut batch = WriteBatch::new();
    batch.push(Mutation::PutWait(wait.clone()));
    batch.mutations.extend(extra);
    let mut staged = Staged::default();
    if let Some((kind, head)) = event {
        staged.stage(
            directory,
            &mut batch,
            NewEvent {
                kind,
                task_id: None,
                wait_id: Some(wait.id.to_string()),
                session_key: wait.session_key.clone(),
            },
            |id| with_event_id(&(head + &texts::taskless_tail(kind, &wait.id)), id),
        );
    }
    outbox::commit_and_announce(directory, batch, staged).await?;
    Ok(wait)
}
