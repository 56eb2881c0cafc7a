//! What a terminal session's end tells the rest of the daemon: the task it worked for (which
//! proves or blocks the linked step) and the recall index (its command, output and exit).

use crate::directory::Directory;
use crate::linkage::{SessionChange, StepLink};
use crate::recall::RecallMsg;
use crate::recall::documents::session_document;
use crate::tasks::{TaskMsg, TasksMsg};
use crate::terminals::screen::SCROLLBACK_LINES;
use crate::terminals::session::Session;
use crate::terminals::types::{ExitStatus, SessionSnapshot};

/// Tells the session's task and the recall index that `session` ended with `status`.
pub(crate) fn announce(directory: &Directory, session: &Session, status: ExitStatus) {
    let snapshot = session.snapshot(SCROLLBACK_LINES);
    if let Some(link) = &session.link {
        tell_task(directory, link, &snapshot, status);
    }
    let task_id = session.link.as_ref().map(|link| link.task_id.as_str());
    let document = session_document(&snapshot, status, directory.now().as_millis(), task_id);
    if let Ok(recall) = directory.recall() {
        let _ = recall.cast(RecallMsg::Put(vec![document]));
    }
}

/// Tells the session's task how it ended (the task proves or blocks the linked step).
fn tell_task(
    directory: &Directory,
    link: &StepLink,
    snapshot: &SessionSnapshot,
    status: ExitStatus,
) {
    let last_line = snapshot.last_line();
    let change = SessionChange::Ended {
        session_id: snapshot.id.to_string(),
        command: snapshot.command.clone(),
        step: link.step,
        code: status.code,
        how: status.to_string(),
        last_line,
    };
    if let Ok(tasks) = directory.tasks() {
        let message = TaskMsg::Session(Box::new(change), None);
        let _ = tasks.cast(TasksMsg::Forward(link.task_id.clone(), message));
    }
}
