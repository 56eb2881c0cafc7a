//! What the recall index holds, as documents. A task: its name as the title; its plan, every
//! message of its thread and the reasons of its plan revisions as the body; its notes,
//! progress and status changes with their times as steps (a note and its "✓ Step N" echo
//! are one); a one-line summary. A terminal session that ended: its command as the title,
//! its output as the body, its start, last lines and exit as steps. A wait that woke someone: its target and condition as the
//! title, its observations and wake texts as the body and steps. Pure.

use recall::{Document, Source, Step};
use storage::{
    EventRecord, MessageRecord, MsgType, PlanRevisionRecord, Role, TaskRecord, WaitRecord,
};

use crate::tasks::plan::step_text;
use crate::tasks::transition::progress_of;
use crate::terminals::types::{ExitStatus, SessionSnapshot};
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
    let steps = task_steps(thread);
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
        app: None,
        step: None,
        frames: Vec::new(),
    }
}

/// One step per event: the agent's notes, progress, status changes and plan revisions. A
/// note and the "✓ Step N" lookout posted for it (at the same moment) are one step: "Step 1
/// done — built the image → ✓ Step 1: Build Docker image". The last [`MAX_STEPS`].
fn task_steps(thread: &[(u64, MessageRecord)]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut note_at: Option<u64> = None;
    for (_, message) in thread {
        let note = message.role == Role::Agent && message.msg_type == MsgType::Text;
        if !note
            && !matches!(
                message.msg_type,
                MsgType::Progress | MsgType::Lifecycle | MsgType::Plan
            )
        {
            continue;
        }
        let at_ms = message.created_at.as_millis();
        let text = message.content.replace('\n', " ");
        if message.msg_type == MsgType::Progress
            && note_at == Some(at_ms)
            && let Some(last) = steps.last_mut()
        {
            last.text = shorten(&format!("{} → {text}", last.text), STEP_CHARS);
            note_at = None;
            continue;
        }
        note_at = note.then_some(at_ms);
        steps.push(Step {
            at_ms,
            text: shorten(&text, STEP_CHARS),
        });
    }
    steps[steps.len().saturating_sub(MAX_STEPS)..].to_vec()
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

/// Lines of a session's output a result shows as its last steps.
const OUTPUT_TAIL_STEPS: usize = 5;

/// A terminal session that ended, `status` at `ended_ms`, for the task `task_id` when it
/// was started for one.
pub fn session_document(
    snapshot: &SessionSnapshot,
    status: ExitStatus,
    ended_ms: u64,
    task_id: Option<&str>,
) -> Document {
    let mut lines: Vec<&str> = snapshot.scrollback.iter().map(String::as_str).collect();
    lines.extend(snapshot.screen.lines());
    let mut body = String::new();
    for line in &lines {
        if body.len() + line.len() > MAX_BODY_BYTES {
            break;
        }
        body.push_str(line);
        body.push('\n');
    }
    let start_ms = snapshot.started_at.as_millis();
    let mut steps = vec![Step {
        at_ms: start_ms,
        text: shorten(&format!("$ {}", snapshot.command), STEP_CHARS),
    }];
    let output: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    steps.extend(
        output[output.len().saturating_sub(OUTPUT_TAIL_STEPS)..]
            .iter()
            .map(|line| Step {
                at_ms: ended_ms,
                text: shorten(line.trim_end(), STEP_CHARS),
            }),
    );
    steps.push(Step {
        at_ms: ended_ms,
        text: format!("The command {status}."),
    });
    Document {
        key: format!("terminal:{}:{start_ms}", snapshot.id),
        source: Source::Terminal,
        task_id: task_id.map(str::to_owned),
        title: snapshot.command.clone(),
        body,
        start_ms,
        end_ms: ended_ms,
        steps,
        summary: format!(
            "Terminal session {}: `{}` {} after {} s, {} of output.",
            snapshot.id,
            shorten(&snapshot.command, 120),
            status,
            ended_ms.saturating_sub(start_ms) / 1000,
            count(output.len() as u64, "line", None)
        ),
        app: None,
        step: None,
        frames: Vec::new(),
    }
}

/// A wait and the wake events it raised so far (oldest first).
pub fn wait_document(wait: &WaitRecord, wakes: &[EventRecord]) -> Document {
    let mut body = String::new();
    let mut steps = Vec::new();
    for entry in &wait.history {
        if let Some(detail) = &entry.detail {
            body.push_str(detail);
            body.push('\n');
            steps.push(Step {
                at_ms: entry.at.as_millis(),
                text: shorten(&format!("{}: {detail}", entry.event.as_str()), STEP_CHARS),
            });
        }
    }
    for wake in wakes {
        body.push_str(&wake.text);
        body.push('\n');
        steps.push(Step {
            at_ms: wake.created_at.as_millis(),
            text: shorten(&wake.text, STEP_CHARS),
        });
    }
    steps.sort_by_key(|step| step.at_ms);
    let steps = steps[steps.len().saturating_sub(MAX_STEPS)..].to_vec();
    let end_ms = wait
        .ended_at
        .map_or(wait.created_at.as_millis(), |at| at.as_millis());
    Document {
        key: format!("wait:{}", wait.id.as_str()),
        source: Source::Wait,
        task_id: wait.task_id.as_ref().map(|id| id.as_str().to_owned()),
        title: format!("{} — {}", wait.target, wait.condition),
        body,
        start_ms: wait.created_at.as_millis(),
        end_ms,
        steps,
        summary: format!(
            "Wait {} on {} for \"{}\": {}{}.",
            wait.id.as_str(),
            shorten(&wait.target, 120),
            shorten(&wait.condition, 160),
            wait.state.as_str(),
            wait.last_observation
                .as_deref()
                .map(|seen| format!("; last observation: \"{}\"", shorten(seen, 160)))
                .unwrap_or_default()
        ),
        app: None,
        step: None,
        frames: Vec::new(),
    }
}
