//! The words lookout says about a task: summaries, "next" lines and the `message` of each
//! reply. Every text stands on its own for an agent that has lost its context. Pure.

use storage::{EventKind, MessageRecord, MsgType, Role, Status, StepProof, TaskRecord, WaitId};

use crate::tasks::plan::{PlanProgress, step_ranges, step_text};
use crate::tasks::types::{PlanRevised, UpdateEffects};
use crate::words::{count, shorten};

/// Step text is cut to this many characters inside one-line summaries.
const STEP_TEXT_IN_SUMMARY: usize = 80;
/// Completed and remaining steps are named one by one up to this many; beyond, only their
/// numbers.
const NAMED_STEPS_IN_SUMMARY: usize = 5;
/// Agent messages scanned for blockers.
const BLOCKER_LOOKBACK: usize = 5;
const BLOCKER_WORDS: &[&str] = &[
    "blocked",
    "blocker",
    "error",
    "failed",
    "failing",
    "failure",
    "stuck",
    "cannot",
    "can't",
    "unable",
    "denied",
    "timed out",
    "timeout",
    "crash",
];

/// "step 3, SSH into server"
pub fn step_label(task: &TaskRecord, step: u32) -> String {
    format!("step {step}, {}", step_name(task, step))
}

/// A step's text as one-line texts show it: without the agent's own number, shortened.
fn step_name(task: &TaskRecord, step: u32) -> String {
    let text = task
        .plan
        .get(step as usize - 1)
        .map_or("", |text| step_text(text));
    shorten(text, STEP_TEXT_IN_SUMMARY)
}

/// What established a step, in a few words: "wait w-4hx8q2 on file:/tmp/build.log
/// resolved: BUILD SUCCESSFUL", "session s-1a2b3c (cargo test) exited 0", "claimed: \"Step 2
/// done\"".
pub fn proof_text(proof: &StepProof) -> String {
    match proof {
        StepProof::Wait {
            wait_id,
            target,
            observation,
        } => format!(
            "wait {wait_id} on {} resolved: {}",
            shorten(target, 80),
            shorten(observation, 160)
        ),
        StepProof::Session {
            session_id,
            command,
            exit_code,
        } => format!(
            "session {session_id} ({}) exited {exit_code}",
            shorten(command, 80)
        ),
        StepProof::Claimed { note: Some(note) } => {
            format!("claimed: \"{}\"", shorten(note, 160))
        }
        StepProof::Claimed { note: None } => "claimed (marked with completed_steps)".to_owned(),
    }
}

/// Done steps lookout saw proven (a wait resolved, a session exited 0), in order.
pub fn verified_steps(task: &TaskRecord) -> Vec<u32> {
    task.completed_steps
        .iter()
        .copied()
        .filter(|step| is_verified(task, *step))
        .collect()
}

/// Done steps that only the agent's word says are done, in order (a done step without
/// evidence, from before evidence was kept, is claimed).
pub fn claimed_steps(task: &TaskRecord) -> Vec<u32> {
    task.completed_steps
        .iter()
        .copied()
        .filter(|step| !is_verified(task, *step))
        .collect()
}

fn is_verified(task: &TaskRecord, step: u32) -> bool {
    task.step_evidence
        .get(&step)
        .is_some_and(|evidence| evidence.proof.is_verified())
}

/// What to do next, in one sentence.
pub fn next_line(task: &TaskRecord, progress: &PlanProgress) -> String {
    match (task.status, progress.current) {
        (Status::Completed, _) => "The task is completed; nothing is left to do.".to_owned(),
        (Status::Failed, _) => {
            "The task is marked failed; register a new task or set status 'active' to retry it."
                .to_owned()
        }
        (Status::Cancelled, _) => {
            "The task is cancelled; set status 'active' to pick it up again.".to_owned()
        }
        (Status::Paused, Some(step)) => format!(
            "The task is paused; set status 'active' to resume at {}.",
            step_label(task, step)
        ),
        (_, Some(step)) => format!("Next: {}.", step_label(task, step)),
        (_, None) => "All steps are done; verify the result, then mark the task completed with \
                      task_update(status: \"completed\")."
            .to_owned(),
    }
}

/// The `summary` of a query: done, in hand, left, waits, blockers.
pub fn summary(
    task: &TaskRecord,
    progress: &PlanProgress,
    recent_messages: &[(u64, MessageRecord)],
) -> String {
    let mut parts = Vec::new();
    if task.status != Status::Active {
        parts.push(format!("Task is {}.", task.status));
    }
    parts.push(completed_part(task, progress));
    parts.extend(evidence_part(task));
    if let Some(step) = progress.current {
        parts.push(format!(
            "Currently on step {step} ({}).",
            step_name(task, step)
        ));
    }
    if !progress.remaining.is_empty() {
        let (named, unnamed) = progress
            .remaining
            .split_at(progress.remaining.len().min(NAMED_STEPS_IN_SUMMARY));
        let mut names: Vec<String> = named.iter().map(|&s| step_name(task, s)).collect();
        if !unnamed.is_empty() {
            names.push(format!(
                "and {} more ({})",
                unnamed.len(),
                step_ranges(unnamed)
            ));
        }
        parts.push(format!("Remaining: {}.", names.join(", ")));
    }
    parts.push(waits_part(task));
    parts.push(match blocker(recent_messages) {
        Some((seq, content)) => {
            format!(
                "Possible blocker in message {seq}: \"{}\".",
                shorten(content, 160)
            )
        }
        None => "No blockers noted.".to_owned(),
    });
    parts.join(" ")
}

fn completed_part(task: &TaskRecord, progress: &PlanProgress) -> String {
    let done = &progress.completed;
    match done.len() {
        0 => "No steps completed yet.".to_owned(),
        1 if task.plan.len() == 1 => "The only step is completed.".to_owned(),
        n if n == task.plan.len() => format!("All {n} steps completed."),
        n if n <= NAMED_STEPS_IN_SUMMARY => {
            let names: Vec<String> = done.iter().map(|&s| step_name(task, s)).collect();
            let noun = if n == 1 { "step" } else { "steps" };
            format!(
                "Completed {noun} {} ({}).",
                step_ranges(done),
                names.join(", ")
            )
        }
        n => format!(
            "Completed {n} of {} ({}).",
            count(task.plan.len() as u64, "step", None),
            step_ranges(done)
        ),
    }
}

/// Which done steps lookout saw proven: "Verified: step 1 (session s-1a2b3c exited 0);
/// steps 2-3 claimed." Nothing when no step is done.
fn evidence_part(task: &TaskRecord) -> Option<String> {
    if task.completed_steps.is_empty() {
        return None;
    }
    let claimed = claimed_steps(task);
    let verified: Vec<String> = task
        .step_evidence
        .iter()
        .filter(|(step, evidence)| {
            evidence.proof.is_verified() && task.completed_steps.contains(step)
        })
        .take(NAMED_STEPS_IN_SUMMARY)
        .map(|(step, evidence)| format!("step {step} ({})", proof_brief(&evidence.proof)))
        .collect();
    let claimed_part = match claimed.len() {
        0 => None,
        1 => Some(format!(" {} claimed", claimed[0])),
        _ => Some(format!("s {} claimed", step_ranges(&claimed))),
    };
    Some(match (verified.is_empty(), claimed_part) {
        (true, Some(claimed)) => format!("Step{claimed}, none verified."),
        (false, Some(claimed)) => format!("Verified: {}; step{claimed}.", verified.join(", ")),
        (false, None) => format!("Verified: {}.", verified.join(", ")),
        (true, None) => return None,
    })
}

/// A proof in a handful of words, for one-line summaries.
fn proof_brief(proof: &StepProof) -> String {
    match proof {
        StepProof::Wait { wait_id, .. } => format!("wait {wait_id} resolved"),
        StepProof::Session {
            session_id,
            exit_code,
            ..
        } => format!("session {session_id} exited {exit_code}"),
        StepProof::Claimed { .. } => "claimed".to_owned(),
    }
}

fn waits_part(task: &TaskRecord) -> String {
    let last = task
        .last_wait_state
        .map(|state| format!(" Last wait ended: {}.", state.as_str()))
        .unwrap_or_default();
    if task.active_wait_ids.is_empty() {
        format!("No active waits.{last}")
    } else {
        format!("Active waits: {}.", task.active_wait_ids.join(", "))
    }
}

/// The newest blocker with no progress after it (a step marked done since makes it old
/// news): its seq and text.
pub fn blocker_since_progress(thread: &[(u64, MessageRecord)]) -> Option<(u64, &str)> {
    let last_progress = thread
        .iter()
        .rev()
        .find(|(_, m)| m.msg_type == MsgType::Progress && m.content.starts_with('✓'))
        .map_or(0, |(seq, _)| *seq);
    blocker(thread).filter(|(seq, _)| *seq > last_progress)
}

/// The newest recent blocker: one lookout posted (a wait on a step that timed out, a
/// session on it that failed), or an agent message that sounds like something is in the way.
fn blocker(recent_messages: &[(u64, MessageRecord)]) -> Option<(u64, &str)> {
    recent_messages
        .iter()
        .rev()
        .filter(|(_, m)| {
            m.msg_type == MsgType::Blocker || (m.role == Role::Agent && m.msg_type == MsgType::Text)
        })
        .take(BLOCKER_LOOKBACK)
        .find(|(_, m)| {
            let lower = m.content.to_lowercase();
            m.msg_type == MsgType::Blocker || BLOCKER_WORDS.iter().any(|word| lower.contains(word))
        })
        .map(|(seq, m)| (*seq, m.content.as_str()))
}

/// The `message` of a registration.
pub fn registered_message(task: &TaskRecord) -> String {
    format!(
        "Task {} registered with {} step{}. Report progress with task_update (e.g. \"Step 1 done — …\"); \
         ask 'where am I?' with task_update(query) any time, e.g. after your context was compacted.",
        task.id,
        task.plan.len(),
        if task.plan.len() == 1 { "" } else { "s" }
    )
}

/// The `message` of an update.
pub fn update_message(
    task: &TaskRecord,
    progress: &PlanProgress,
    effects: &UpdateEffects,
) -> String {
    let mut parts = vec!["Noted.".to_owned()];
    if let Some(revised) = &effects.revision {
        parts.push(format!("Plan revised (revision {}).", revised.revision));
    }
    let done_count = format!(
        "{} of {} done",
        progress.completed.len(),
        count(task.plan.len() as u64, "step", None)
    );
    if !effects.newly_completed.is_empty() {
        let noun = if effects.newly_completed.len() == 1 {
            "Step"
        } else {
            "Steps"
        };
        parts.push(format!(
            "{noun} {} marked done ({done_count}).",
            step_ranges(&effects.newly_completed)
        ));
    } else if !task.status.is_terminal() {
        parts.push(format!("Progress: {done_count}."));
    }
    if !effects.beyond_plan.is_empty() {
        let (noun, verb) = if effects.beyond_plan.len() == 1 {
            ("Step", "is")
        } else {
            ("Steps", "are")
        };
        parts.push(format!(
            "{noun} {} {verb} not in the plan ({}), so nothing was marked for {}; revise the plan \
             with task_plan_update if it grew.",
            step_ranges(&effects.beyond_plan),
            count(task.plan.len() as u64, "step", None),
            if effects.beyond_plan.len() == 1 {
                "it"
            } else {
                "them"
            }
        ));
    }
    if let Some((from, to)) = effects.status_change {
        parts.push(format!("Status {from} → {to}."));
        if to == Status::Completed && !progress.all_done() {
            let open: Vec<u32> = progress
                .current
                .into_iter()
                .chain(progress.remaining.iter().copied())
                .collect();
            let (noun, verb) = if open.len() == 1 {
                ("Step", "was")
            } else {
                ("Steps", "were")
            };
            parts.push(format!(
                "{noun} {} {verb} never marked done; if done, say so with completed_steps.",
                step_ranges(&open)
            ));
        }
        let claimed = claimed_steps(task);
        if to == Status::Completed && !claimed.is_empty() {
            let (noun, verb) = if claimed.len() == 1 {
                ("Step", "rests")
            } else {
                ("Steps", "rest")
            };
            parts.push(format!(
                "{noun} {} {verb} on your word only (nothing lookout watched proved {}); a                  smart_wait or term_start with step proves a step.",
                step_ranges(&claimed),
                if claimed.len() == 1 { "it" } else { "them" }
            ));
        }
    }
    parts.push(next_line(task, progress));
    parts.join(" ")
}

/// The `message` of a plan revision.
pub fn plan_revised_message(
    revised: &PlanRevised,
    progress: &PlanProgress,
    task: &TaskRecord,
) -> String {
    let mut parts = vec![format!(
        "Plan revised (revision {}): {}.",
        revised.revision,
        revised.reason.trim_end_matches('.')
    )];
    if !revised.kept_completed.is_empty() {
        parts.push(format!(
            "Kept steps {} as done.",
            step_ranges(&revised.kept_completed)
        ));
    }
    if !revised.dropped_completed.is_empty() {
        let dropped: Vec<String> = revised
            .dropped_completed
            .iter()
            .map(|(step, text)| format!("old step {step} ({})", shorten(step_text(text), 60)))
            .collect();
        parts.push(format!(
            "Dropped the done mark of {} because its text changed; mark it again with completed_steps if it still holds.",
            dropped.join(", ")
        ));
    }
    parts.push(next_line(task, progress));
    parts.join(" ")
}

/// The thread message posted for a registration: the name and the numbered plan.
pub fn registration_note(task: &TaskRecord) -> String {
    let steps: Vec<String> = task
        .plan
        .iter()
        .enumerate()
        .map(|(i, step)| format!("  {}. {}", i + 1, step_text(step)))
        .collect();
    format!(
        "Task registered: {}\nPlan:\n{}",
        task.name,
        steps.join("\n")
    )
}

/// The thread message posted when steps are marked done: "✓ Step 1: Build Docker image".
pub fn progress_note(task: &TaskRecord, steps: &[u32]) -> String {
    steps
        .iter()
        .map(|&s| {
            format!(
                "✓ Step {s}: {}",
                task.plan
                    .get(s as usize - 1)
                    .map_or("", |text| step_text(text))
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The end of a wake text about one of the task's waits: the task, and what to do next.
pub fn wait_event_tail(
    kind: EventKind,
    wait_id: &WaitId,
    task: &TaskRecord,
    progress: &PlanProgress,
    step_outcome: Option<&str>,
) -> String {
    let on = match progress.current {
        Some(step) => format!("the task is on {}", step_label(task, step)),
        None => "every step of the task is marked done".to_owned(),
    };
    let next = match kind {
        EventKind::WaitResolved => match progress.current {
            Some(step) => format!("continue with {}", step_label(task, step)),
            None => "verify the result, then mark the task completed with task_update(status: \"completed\")".to_owned(),
        },
        EventKind::WaitTimeout => format!(
            "look at the target, then extend the wait with wait_update(wait_id: \"{wait_id}\", timeout: …) or change \
             approach; {on}"
        ),
        EventKind::WaitError | EventKind::TaskStuck => {
            format!("fix what the error names, then start a new smart_wait or continue without it; {on}")
        }
        EventKind::WaitChanged => format!(
            "look at the target and decide whether the condition holds (wait_update(wait_id: \"{wait_id}\") \
             watches again); {on}"
        ),
    };
    let step_outcome = step_outcome
        .map(|outcome| format!(" {outcome}"))
        .unwrap_or_default();
    format!(
        "{step_outcome} Task {} \"{}\": {next}.",
        task.id,
        shorten(&task.name, 80)
    )
}

#[cfg(test)]
mod tests {

    use storage::{Timestamp, WaitState};

    use super::*;

    fn task(done: &[u32]) -> TaskRecord {
        storage::testkit::deploy_task(&storage::testkit::DEPLOY_PLAN, done)
    }

    fn agent(seq: u64, text: &str) -> (u64, MessageRecord) {
        let message = MessageRecord {
            role: Role::Agent,
            msg_type: MsgType::Text,
            content: text.into(),
            created_at: Timestamp(0),
        };
        (seq, message)
    }

    #[test]
    fn summary_reads_like_the_protocol_example() {
        let task = task(&[1, 2]);
        let progress = PlanProgress::new(5, &task.completed_steps, None);
        assert_eq!(
            summary(&task, &progress, &[agent(4, "Step 2 done — pushed")]),
            "Completed steps 1-2 (Build Docker image, Push to registry). Steps 1-2 claimed, none verified. Currently on step 3 \
             (SSH into server). Remaining: Pull and run, Verify. No active waits. No blockers noted."
        );
        assert_eq!(
            next_line(&task, &progress),
            "Next: step 3, SSH into server."
        );
    }

    #[test]
    fn summary_names_blockers_waits_and_status() {
        let mut task = task(&[]);
        task.status = Status::Paused;
        task.active_wait_ids = vec!["w-abc123".into()];
        let progress = PlanProgress::new(5, &task.completed_steps, None);
        let text = summary(
            &task,
            &progress,
            &[
                agent(3, "push failed: permission denied"),
                agent(4, "retrying"),
            ],
        );
        assert!(
            text.starts_with("Task is paused. No steps completed yet."),
            "{text}"
        );
        assert!(text.contains("Active waits: w-abc123."), "{text}");
        assert!(text.contains("Possible blocker in message 3"), "{text}");
        task.active_wait_ids.clear();
        task.last_wait_state = Some(WaitState::Timeout);
        assert!(
            summary(&task, &progress, &[]).contains("No active waits. Last wait ended: timeout.")
        );
    }

    #[test]
    fn completing_with_open_steps_is_pointed_out() {
        let mut task = task(&[1, 2, 3]);
        task.status = Status::Completed;
        let progress = PlanProgress::new(5, &task.completed_steps, None);
        let effects = UpdateEffects {
            status_change: Some((Status::Active, Status::Completed)),
            ..UpdateEffects::default()
        };
        let text = update_message(&task, &progress, &effects);
        assert!(text.contains("Status active → completed."), "{text}");
        assert!(text.contains("Steps 4-5 were never marked done"), "{text}");
    }

    #[test]
    fn all_done_but_active_suggests_completing() {
        let task = task(&[1, 2, 3, 4, 5]);
        let progress = PlanProgress::new(5, &task.completed_steps, None);
        assert!(next_line(&task, &progress).contains("mark the task completed"));
        assert!(summary(&task, &progress, &[]).starts_with("All 5 steps completed."));
    }

    #[test]
    fn shorten_counts_characters_not_bytes() {
        assert_eq!(shorten("ééééé", 3), "éé…");
        assert_eq!(shorten("short", 10), "short");
    }
}
