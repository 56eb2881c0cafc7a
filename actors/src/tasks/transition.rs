//! Pure task state transitions: given the stored record and a request, the new record, the
//! thread messages to post and the plan revision to store. No I/O; the TaskActor writes
//! what these return in one batch, or nothing.

use std::collections::{BTreeMap, BTreeSet};

use storage::{
    Author, MessageRecord, MsgType, PlanRevisionRecord, Role, Status, StepEvidence, StepProof,
    TaskId, TaskRecord, Timestamp, WaitRecord, WaitState,
};

use crate::error::CallError;
use crate::linkage::SessionChange;
use crate::tasks::plan::{PlanProgress, remap_progress, step_text};
use crate::tasks::progress::{steps_reported_beyond, steps_reported_done};
use crate::tasks::report;
use crate::tasks::types::{PlanChange, PlanRevised, RegisterTask, UpdateEffects, UpdateTask};
use crate::words::shorten;

/// The outcome of a transition, ready to be written.
#[derive(Clone, Debug)]
pub struct Transition {
    pub record: TaskRecord,
    /// New thread messages, in posting order (seqs follow the record's previous `last_seq`).
    pub messages: Vec<MessageRecord>,
    pub revision: Option<PlanRevisionRecord>,
    pub effects: UpdateEffects,
}

/// A new task and its registration note.
pub fn register(id: TaskId, request: RegisterTask, now: Timestamp) -> Transition {
    let mut record = TaskRecord {
        id,
        name: request.name.into_string(),
        status: Status::Active,
        plan: request.plan.into_steps(),
        completed_steps: BTreeSet::new(),
        current_step: None,
        metadata_json: request.metadata.as_json().to_owned(),
        session_key: request.session_key,
        agent_id: request.agent_id,
        created_at: now,
        updated_at: now,
        last_seq: 0,
        plan_revisions: 0,
        active_wait_ids: Vec::new(),
        last_wait_state: None,
        last_wait_event_at: None,
        last_stuck_alert_at: None,
        stuck_threshold_s: request.metadata.stuck_threshold_s(),
        origin: request.origin,
        step_evidence: BTreeMap::new(),
    };
    let note = system_message(MsgType::Lifecycle, report::registration_note(&record), now);
    record.last_seq = 1;
    Transition {
        record,
        messages: vec![note],
        revision: None,
        effects: UpdateEffects::default(),
    }
}

/// Applies a `task_update` (or a `task_plan_update`, which is an update with only a plan).
pub fn update(
    current: &TaskRecord,
    request: &UpdateTask,
    now: Timestamp,
) -> Result<Transition, CallError> {
    let touches_content = request.message.is_some()
        || request.plan.is_some()
        || !request.completed_steps.is_empty()
        || request.current_step.is_some();
    // A completed task whose steps were not all marked may still have them marked: the
    // completion reply says to, and nothing else about the task changes.
    let marks_a_completed_task = current.status == Status::Completed
        && request.message.is_none()
        && request.plan.is_none()
        && request.current_step.is_none();
    if current.status.is_terminal()
        && touches_content
        && request.status.is_none()
        && !marks_a_completed_task
    {
        return Err(CallError::conflict(
            format!(
                "task {} is {}; its plan and progress are closed",
                current.id, current.status
            ),
            "reopen it with task_update(status: \"active\") in the same call, or register a new task",
        ));
    }

    let mut record = current.clone();
    let mut messages = Vec::new();
    let mut effects = UpdateEffects::default();
    let mut revision = None;

    if let Some(message) = &request.message {
        messages.push(MessageRecord {
            role: Role::Agent,
            msg_type: MsgType::Text,
            content: message.clone(),
            created_at: now,
        });
    }

    if let Some(change) = &request.plan {
        let (revised, stored) = revise(&mut record, change, now);
        messages.push(system_message(MsgType::Plan, plan_note(&revised), now));
        effects.revision = Some(revised);
        revision = Some(stored);
    }

    let plan_len = record.plan.len() as u32;
    check_steps(
        "completed_steps",
        request.completed_steps.iter().copied(),
        plan_len,
    )?;
    check_steps("current_step", request.current_step, plan_len)?;

    let mut reported: BTreeSet<u32> = request.completed_steps.clone();
    if let Some(message) = &request.message {
        reported.extend(steps_reported_done(message, plan_len));
        effects.beyond_plan = steps_reported_beyond(message, plan_len)
            .into_iter()
            .collect();
    }
    effects.newly_completed = reported
        .difference(&record.completed_steps)
        .copied()
        .collect();
    if !effects.newly_completed.is_empty() {
        record
            .completed_steps
            .extend(effects.newly_completed.iter().copied());
        let note = request
            .message
            .as_deref()
            .map(|text| shorten(text.trim(), 200));
        for &step in &effects.newly_completed {
            let proof = StepProof::Claimed { note: note.clone() };
            record
                .step_evidence
                .insert(step, StepEvidence { proof, at: now });
        }
        let note = report::progress_note(&record, &effects.newly_completed);
        messages.push(system_message(MsgType::Progress, note, now));
    }

    if let Some(step) = request.current_step
        && record.current_step != Some(step)
    {
        record.current_step = Some(step);
        effects.current_step_set = Some(step);
        if !record.completed_steps.contains(&step) {
            let note = format!("▶ Now on {}", report::step_label(&record, step));
            messages.push(system_message(MsgType::Progress, note, now));
        }
    }
    // A named current step that is now done is no longer current.
    if record
        .current_step
        .is_some_and(|step| record.completed_steps.contains(&step))
    {
        record.current_step = None;
    }

    if let Some(status) = request.status
        && status != record.status
    {
        effects.status_change = Some((record.status, status));
        let note = format!("Status changed: {} → {}", record.status, status);
        record.status = status;
        messages.push(system_message(MsgType::Lifecycle, note, now));
    }

    if request.changes_something() {
        record.updated_at = now;
    }
    record.last_seq += messages.len() as u64;
    Ok(Transition {
        record,
        messages,
        revision,
        effects,
    })
}

/// Replaces the plan in `record`, carrying completion marks over, and returns the revision.
fn revise(
    record: &mut TaskRecord,
    change: &PlanChange,
    now: Timestamp,
) -> (PlanRevised, PlanRevisionRecord) {
    let new_plan = change.new_plan.steps().to_vec();
    let remapped = remap_progress(
        &record.plan,
        &new_plan,
        &record.completed_steps,
        record.current_step,
    );
    let reason = change
        .reason
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .unwrap_or("no reason given")
        .to_owned();
    record.plan_revisions += 1;
    let stored = PlanRevisionRecord {
        task_id: record.id.clone(),
        revision: record.plan_revisions,
        old_plan: std::mem::replace(&mut record.plan, new_plan.clone()),
        new_plan,
        reason: reason.clone(),
        author: Author::Agent,
        created_at: now,
    };
    record.completed_steps = remapped.completed;
    record.current_step = remapped.current_step;
    let mut evidence = std::mem::take(&mut record.step_evidence);
    record.step_evidence = remapped
        .moved
        .iter()
        .filter_map(|(old, new)| Some((*new, evidence.remove(old)?)))
        .collect();
    let revised = PlanRevised {
        revision: record.plan_revisions,
        reason,
        kept_completed: remapped.kept,
        dropped_completed: remapped.dropped,
    };
    (revised, stored)
}

fn plan_note(revised: &PlanRevised) -> String {
    let mut note = format!("Plan revised: {}", revised.reason);
    if !revised.dropped_completed.is_empty() {
        let dropped: Vec<String> = revised
            .dropped_completed
            .iter()
            .map(|(step, text)| format!("{step} ({})", step_text(text)))
            .collect();
        note.push_str(&format!(
            "\nDropped done marks of old steps: {}",
            dropped.join(", ")
        ));
    }
    note
}

/// What a proof did to its step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proved {
    /// The step was not done: it is now, verified.
    Marked,
    /// The step was done on the agent's word: now it is verified.
    Confirmed,
    /// Nothing changed: the step was verified already, or the task is closed (failed or
    /// cancelled), or its plan has no such step any more (the reason).
    Unchanged(String),
}

/// A linked wait resolved or a linked session exited 0: `step` is done, verified by
/// `proof`. Returns what changed and the thread message saying so (none when nothing did).
pub fn prove_step(
    record: &mut TaskRecord,
    step: u32,
    proof: StepProof,
    now: Timestamp,
) -> (Proved, Option<MessageRecord>) {
    if matches!(record.status, Status::Failed | Status::Cancelled) {
        let why = format!("the task is {}", record.status);
        return (Proved::Unchanged(why), None);
    }
    if step == 0 || step as usize > record.plan.len() {
        let why = format!(
            "the plan has {} now",
            crate::words::count(record.plan.len() as u64, "step", None)
        );
        return (Proved::Unchanged(why), None);
    }
    let was_verified = record
        .step_evidence
        .get(&step)
        .is_some_and(|evidence| evidence.proof.is_verified());
    if record.completed_steps.contains(&step) && was_verified {
        return (Proved::Unchanged("it was verified already".into()), None);
    }
    let proved = if record.completed_steps.insert(step) {
        Proved::Marked
    } else {
        Proved::Confirmed
    };
    let note = format!("✓ Step {step} verified: {}", report::proof_text(&proof));
    record
        .step_evidence
        .insert(step, StepEvidence { proof, at: now });
    if record.current_step == Some(step) {
        record.current_step = None;
    }
    (proved, Some(system_message(MsgType::Progress, note, now)))
}

/// A wait linked to `step` ended: resolved, the step is proven (verified); timed out or
/// failed, a blocker is posted on it; a change nobody judged proves nothing. Returns the
/// sentence the wake text says about the step, and the thread message.
pub fn settle_step(
    record: &mut TaskRecord,
    wait: &WaitRecord,
    step: u32,
    now: Timestamp,
) -> (Option<String>, Option<MessageRecord>) {
    let observation = wait.last_observation.clone().unwrap_or_default();
    match wait.state {
        WaitState::Resolved => {
            let proof = StepProof::Wait {
                wait_id: wait.id.clone(),
                target: wait.target.clone(),
                observation,
            };
            let (proved, message) = prove_step(record, step, proof, now);
            let sentence = match proved {
                Proved::Marked => format!("Step {step} is marked done, verified by this wait."),
                Proved::Confirmed => {
                    format!("Step {step}, claimed done before, is now verified by this wait.")
                }
                Proved::Unchanged(why) => format!("Step {step} was not marked: {why}."),
            };
            (Some(sentence), message)
        }
        WaitState::Timeout | WaitState::Error => {
            let what = if wait.state == WaitState::Timeout {
                format!("wait {} timed out after {}s", wait.id, wait.timeout_s)
            } else {
                format!("wait {} failed", wait.id)
            };
            let why = if observation.is_empty() {
                what
            } else {
                format!("{what}; last observation: {}", shorten(&observation, 160))
            };
            let message = block_step(record, step, &why, now);
            let sentence = format!("Step {step} is not marked done; a blocker is posted on it.");
            (Some(sentence), Some(message))
        }
        WaitState::Changed => (
            Some(format!(
                "Step {step} is not marked done: nobody judged the change; look, then mark it \
                 with task_update(completed_steps: [{step}]) if it holds."
            )),
            None,
        ),
        WaitState::Watching | WaitState::Cancelled => (None, None),
    }
}

/// A linked wait timed out or failed, or a linked session exited non-zero: a blocker on
/// `step` (the step stays as it was).
pub fn block_step(record: &TaskRecord, step: u32, why: &str, now: Timestamp) -> MessageRecord {
    let label = if step >= 1 && step as usize <= record.plan.len() {
        report::step_label(record, step)
    } else {
        format!("step {step}")
    };
    system_message(
        MsgType::Blocker,
        format!("⚠ Blocker on {label}: {why}"),
        now,
    )
}

/// A terminal session linked to the task: `Check` before it starts (the task open, the
/// step in its plan), a thread message when it started, and when it ended one saying how,
/// with the step it was linked to proven (exit 0) or blocked (anything else).
pub fn session_change(
    record: &mut TaskRecord,
    change: &SessionChange,
    now: Timestamp,
) -> Result<Vec<MessageRecord>, CallError> {
    match change {
        SessionChange::Check { step } => {
            if record.status.is_terminal() {
                return Err(CallError::conflict(
                    format!(
                        "task {} is {}; a session cannot be linked to it",
                        record.id, record.status
                    ),
                    "reopen the task with task_update(status: \"active\") first, or start \
                     the session without task_id",
                ));
            }
            check_steps("step", *step, record.plan.len() as u32)?;
            Ok(Vec::new())
        }
        SessionChange::Started {
            session_id,
            command,
            step,
        } => {
            let on = step.map_or_else(String::new, |step| {
                format!(" for {}", report::step_label(record, step))
            });
            let note = format!(
                "▶ Terminal session {session_id} started{on}: {}",
                shorten(command, 200)
            );
            Ok(vec![system_message(MsgType::Progress, note, now)])
        }
        SessionChange::Ended {
            session_id,
            command,
            step,
            code,
            how,
            last_line,
        } => {
            let last = last_line
                .as_deref()
                .map(|line| format!("; last line: {}", shorten(line, 160)))
                .unwrap_or_default();
            let ended = format!(
                "Terminal session {session_id} ({}) {how}{last}",
                shorten(command, 120)
            );
            let mut messages = vec![system_message(MsgType::Progress, ended.clone(), now)];
            match (step, code) {
                (Some(step), Some(0)) => {
                    let proof = StepProof::Session {
                        session_id: session_id.clone(),
                        command: command.clone(),
                        exit_code: 0,
                    };
                    messages.extend(prove_step(record, *step, proof, now).1);
                }
                (Some(step), _) => messages.push(block_step(record, *step, &ended, now)),
                (None, _) => {}
            }
            Ok(messages)
        }
    }
}

fn check_steps(
    field: &str,
    steps: impl IntoIterator<Item = u32>,
    plan_len: u32,
) -> Result<(), CallError> {
    for step in steps {
        if !(1..=plan_len).contains(&step) {
            return Err(CallError::invalid(
                format!(
                    "{field} names step {step}, but the plan has {}",
                    crate::words::count(plan_len, "step", None)
                ),
                format!("step numbers start at 1 and go up to {plan_len}"),
            ));
        }
    }
    Ok(())
}

fn system_message(msg_type: MsgType, content: String, now: Timestamp) -> MessageRecord {
    MessageRecord {
        role: Role::System,
        msg_type,
        content,
        created_at: now,
    }
}

/// Where the task stands now.
pub fn progress_of(record: &TaskRecord) -> PlanProgress {
    PlanProgress::new(
        record.plan.len(),
        &record.completed_steps,
        record.current_step,
    )
}

#[cfg(test)]
mod tests;
