//! A task as the recall index holds it: its name as the title; its plan, every message of
//! its thread and the reasons of its plan revisions as the body; its notes, progress and
//! status changes with their times as steps; and a one-line summary. Pure.

use recall::{Document, Source, Step};
use storage::{MessageRecord, MsgType, PlanRevisionRecord, Role, TaskRecord};

use crate::tasks::plan::step_text;
use crate::tasks::transition::progress_of;
use crate::words::{count, shorten};

/// Steps a result shows at most: the last ones.
const MAX_STEPS: usize = 40;
/// A step's text is cut to this many characters.
const STEP_CHARS: usize = 200;
/// The body indexed at most, in bytes (a thread of notes of 32 KB each adds up).
const MAX_BODY_BYTES: usize = 512 * 1024;

/// The key of a task's document.
pub fn task_key(task: &TaskRecord) -> String {
    format!("task:{}", task.id.as_str())
}

pub fn task_document(
    task: &TaskRecord,
    thread: &[(u64, MessageRecord)],
    revisions: &[PlanRevisionRecord],
) -> Document {
    let mut body = String::new();
    for (index, step) in task.plan.iter().enumerate() {
        body.push_str(&format!("{}. {}\n", index + 1, step_text(step)));
    }
    for revision in revisions {
        body.push_str(&format!("Plan revised: {}\n", revision.reason));
    }
    for (_, message) in thread {
        if body.len() + message.content.len() > MAX_BODY_BYTES {
            break;
        }
        body.push_str(&message.content);
        body.push('\n');
    }
    let steps: Vec<Step> = thread
        .iter()
        .filter(|(_, m)| {
            (m.role == Role::Agent && m.msg_type == MsgType::Text)
                || matches!(
                    m.msg_type,
                    MsgType::Progress | MsgType::Lifecycle | MsgType::Plan
                )
        })
        .map(|(_, m)| Step {
            at_ms: m.created_at.as_millis(),
            text: shorten(&m.content.replace('\n', " "), STEP_CHARS),
        })
        .collect();
    let steps = steps[steps.len().saturating_sub(MAX_STEPS)..].to_vec();
    Document {
        key: task_key(task),
        source: Source::Task,
        task_id: Some(task.id.as_str().to_owned()),
        title: task.name.clone(),
        body,
        start_ms: task.created_at.as_millis(),
        end_ms: task.updated_at.as_millis(),
        steps,
        summary: summary(task, thread),
    }
}

/// "Task "Deploy coursefolio" (completed): 5 of 5 steps done; last note: "…"."
fn summary(task: &TaskRecord, thread: &[(u64, MessageRecord)]) -> String {
    let progress = progress_of(task);
    let last_note = thread
        .iter()
        .rev()
        .find(|(_, m)| m.role == Role::Agent && m.msg_type == MsgType::Text)
        .map(|(_, m)| {
            format!(
                "; last note: \"{}\"",
                shorten(&m.content.replace('\n', " "), 160)
            )
        })
        .unwrap_or_default();
    format!(
        "Task {} \"{}\" ({}): {} of {} done{last_note}.",
        task.id.as_str(),
        shorten(&task.name, 120),
        task.status.as_str(),
        progress.completed.len(),
        count(task.plan.len() as u64, "step", None),
    )
}
