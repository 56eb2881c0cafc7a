//! Pure task state transitions: given the stored record and a request, the new record, the
//! thread messages to post and the plan revision to store. No I/O; the TaskActor writes
//! what these return in one batch, or nothing.

use std::collections::BTreeSet;

use storage::{
    Author, MessageRecord, MsgType, PlanRevisionRecord, Role, Status, TaskId, TaskRecord, Timestamp,
};

use crate::error::CallError;
use crate::tasks::plan::{PlanProgress, remap_progress};
use crate::tasks::progress::{steps_reported_beyond, steps_reported_done};
use crate::tasks::report;
use crate::tasks::types::{PlanChange, PlanRevised, RegisterTask, UpdateEffects, UpdateTask};

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
            .map(|(step, text)| format!("{step} ({text})"))
            .collect();
        note.push_str(&format!(
            "\nDropped done marks of old steps: {}",
            dropped.join(", ")
        ));
    }
    note
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
mod tests {
    use super::*;
    use crate::tasks::types::{Metadata, Plan, TaskName};

    fn registered() -> TaskRecord {
        let request = RegisterTask {
            name: TaskName::new("Deploy coursefolio").unwrap(),
            plan: Plan::new(&["Build", "Push", "SSH", "Pull and run", "Verify"].map(String::from))
                .unwrap(),
            metadata: Metadata::empty(),
            session_key: None,
            agent_id: None,
            origin: None,
        };
        register(TaskId::new("t-000001"), request, Timestamp::from_secs(100)).record
    }

    fn note(text: &str) -> UpdateTask {
        UpdateTask {
            message: Some(text.into()),
            ..UpdateTask::default()
        }
    }

    #[test]
    fn registration_posts_the_plan_as_a_lifecycle_message() {
        let request = RegisterTask {
            name: TaskName::new("  Ship  ").unwrap(),
            plan: Plan::new(&["Build".into(), "Ship".into()]).unwrap(),
            metadata: Metadata::empty(),
            session_key: Some("agent:main:main".into()),
            agent_id: None,
            origin: None,
        };
        let transition = register(TaskId::new("t-000001"), request, Timestamp::from_secs(5));
        assert_eq!(transition.record.name, "Ship");
        assert_eq!(transition.record.last_seq, 1);
        assert_eq!(transition.messages[0].msg_type, MsgType::Lifecycle);
        assert_eq!(
            transition.messages[0].content,
            "Task registered: Ship\nPlan:\n  1. Build\n  2. Ship"
        );
    }

    #[test]
    fn a_progress_message_marks_steps_and_posts_a_progress_note() {
        let task = registered();
        let next = update(
            &task,
            &note("Step 1 done — built image"),
            Timestamp::from_secs(200),
        )
        .unwrap();
        assert_eq!(next.effects.newly_completed, [1]);
        assert_eq!(next.record.updated_at, Timestamp::from_secs(200));
        let kinds: Vec<MsgType> = next.messages.iter().map(|m| m.msg_type).collect();
        assert_eq!(kinds, [MsgType::Text, MsgType::Progress]);
        assert_eq!(next.messages[1].content, "✓ Step 1: Build");
        assert_eq!(next.record.last_seq, 3);
        // Saying it again changes nothing but the thread.
        let again = update(
            &next.record,
            &note("step 1 done"),
            Timestamp::from_secs(300),
        )
        .unwrap();
        assert!(again.effects.newly_completed.is_empty());
        assert_eq!(again.messages.len(), 1);
    }

    #[test]
    fn explicit_steps_are_checked_against_the_plan() {
        let task = registered();
        let request = UpdateTask {
            completed_steps: BTreeSet::from([6]),
            ..UpdateTask::default()
        };
        let error = update(&task, &request, Timestamp::from_secs(1)).unwrap_err();
        assert!(error.message.contains("the plan has 5 steps"), "{error}");
        let request = UpdateTask {
            current_step: Some(0),
            ..UpdateTask::default()
        };
        assert!(update(&task, &request, Timestamp::from_secs(1)).is_err());
    }

    #[test]
    fn status_changes_post_lifecycle_and_terminal_tasks_refuse_notes() {
        let task = registered();
        let request = UpdateTask {
            message: Some("All done — site is live".into()),
            status: Some(Status::Completed),
            ..UpdateTask::default()
        };
        let done = update(&task, &request, Timestamp::from_secs(10)).unwrap();
        assert_eq!(
            done.effects.status_change,
            Some((Status::Active, Status::Completed))
        );
        assert_eq!(
            done.messages.last().unwrap().content,
            "Status changed: active → completed"
        );

        let error = update(
            &done.record,
            &note("one more thing"),
            Timestamp::from_secs(11),
        )
        .unwrap_err();
        assert_eq!(error.kind, crate::error::ErrorKind::Conflict);

        let reopen = UpdateTask {
            status: Some(Status::Active),
            ..note("one more thing")
        };
        let reopened = update(&done.record, &reopen, Timestamp::from_secs(12)).unwrap();
        assert_eq!(reopened.record.status, Status::Active);
    }

    #[test]
    fn a_query_alone_does_not_count_as_activity() {
        let task = registered();
        let query = UpdateTask {
            query: Some("where am I?".into()),
            ..UpdateTask::default()
        };
        let next = update(&task, &query, Timestamp::from_secs(999)).unwrap();
        assert_eq!(next.record.updated_at, task.updated_at);
        assert!(next.messages.is_empty());
    }

    #[test]
    fn plan_revision_stores_old_and_new_and_keeps_unchanged_marks() {
        let mut task = registered();
        task.completed_steps = BTreeSet::from([1, 2]);
        let new_plan = [
            "Build",
            "Push",
            "Run migrations",
            "SSH",
            "Pull and run",
            "Verify",
        ];
        let request = UpdateTask {
            plan: Some(PlanChange {
                new_plan: Plan::new(&new_plan.map(String::from)).unwrap(),
                reason: Some("the release needs a schema migration".into()),
            }),
            ..UpdateTask::default()
        };
        let next = update(&task, &request, Timestamp::from_secs(50)).unwrap();
        let stored = next.revision.unwrap();
        assert_eq!(
            (
                stored.revision,
                stored.old_plan.len(),
                stored.new_plan.len()
            ),
            (1, 5, 6)
        );
        assert_eq!(stored.author, Author::Agent);
        let revised = next.effects.revision.unwrap();
        assert_eq!(revised.kept_completed, [1, 2]);
        assert_eq!(
            next.messages[0].content,
            "Plan revised: the release needs a schema migration"
        );
        assert_eq!(next.messages[0].msg_type, MsgType::Plan);
        assert_eq!(progress_of(&next.record).current, Some(3));
    }

    #[test]
    fn current_step_is_named_then_cleared_once_done() {
        let task = registered();
        let request = UpdateTask {
            current_step: Some(3),
            ..UpdateTask::default()
        };
        let next = update(&task, &request, Timestamp::from_secs(1)).unwrap();
        assert_eq!(next.messages[0].content, "▶ Now on step 3, SSH");
        assert_eq!(progress_of(&next.record).current, Some(3));
        let done = update(&next.record, &note("step 3 done"), Timestamp::from_secs(2)).unwrap();
        assert_eq!(done.record.current_step, None);
        assert_eq!(progress_of(&done.record).current, Some(1));
    }
}
