//! The resume packet (docs/contract.md §6): the wake text of a stuck alert,
//! `[task_stuck_resume] {json}`, with exactly the seed's keys, so an agent that lost its
//! context can pick the task up from the wake alone.
//!
//! The text fits the configured size and uses it. What it keeps, in order of worth: the
//! agent's own notes (newest first), then progress and wait events, then lifecycle messages.
//! Lower-worth messages are shortened, then the notes; the plan is windowed around the
//! current step before any message is dropped; at least three notes stay as long as any
//! message does. Each stage is rendered whole and measured ([`crate::budget`]), so the JSON
//! is valid at every size.

use serde_json::{Value, json};
use storage::{MessageRecord, MsgType, Role, TaskRecord, WaitId, WaitState};

use crate::budget::{self, Shrinkable, lower};
use crate::tasks::plan::{PlanProgress, PlanWindow, step_ranges, step_text};
use crate::tasks::report::{self, step_label};
use crate::tasks::transition::progress_of;
use crate::words::shorten;

pub const ENVELOPE: &str = "[task_stuck_resume] ";
/// Messages in a packet: the seed's "last 3–5 meaningful messages".
pub const RECENT_MESSAGES: usize = 5;
/// Notes kept while any message is: the seed's three.
const NOTES_KEPT: usize = 3;

/// The full wake text for a stuck task, within `max_bytes`.
pub fn wake_text(
    task: &TaskRecord,
    thread: &[(u64, MessageRecord)],
    reason: &str,
    event_id: &str,
    max_bytes: usize,
) -> String {
    let budget = max_bytes.saturating_sub(ENVELOPE.len());
    let mut packet = Packet::new(task, thread, reason, event_id);
    match budget::fit(&mut packet, budget) {
        Some((value, _)) => format!("{ENVELOPE}{value}"),
        None => minimal_wake_text(task, reason, event_id),
    }
}

/// The fallback when the packet cannot be built (or cannot fit): id, name, status, reason.
pub fn minimal_wake_text(task: &TaskRecord, reason: &str, event_id: &str) -> String {
    let packet = json!({
        "event_id": event_id,
        "task_id": task.id.as_str(),
        "name": shorten(&task.name, 120),
        "status": task.status.as_str(),
        "reason": reason,
    });
    format!("{ENVELOPE}{packet}")
}

/// One thing the packet gives up when it does not fit, in the order given up.
#[derive(Clone, Copy, Debug)]
enum Give {
    /// Events and lifecycle messages shortened to this many characters.
    OtherChars(usize),
    /// The agent's notes shortened to this many characters.
    NoteChars(usize),
    /// The plan shows this many steps from the current one.
    Window(usize),
    /// Each shown step shortened to this many characters.
    StepChars(usize),
    /// The least worthy event or lifecycle message goes.
    DropOthers,
    /// The oldest notes go, down to this many.
    DropNotes(usize),
}

const GIVE_UP: &[Give] = &[
    Give::OtherChars(1_000),
    Give::NoteChars(4_000),
    Give::OtherChars(300),
    Give::NoteChars(2_000),
    Give::Window(20),
    Give::StepChars(200),
    Give::Window(10),
    Give::DropOthers,
    Give::NoteChars(1_000),
    Give::Window(5),
    Give::StepChars(120),
    Give::NoteChars(600),
    Give::Window(3),
    Give::StepChars(80),
    Give::NoteChars(400),
    Give::Window(1),
    Give::NoteChars(250),
    Give::DropNotes(NOTES_KEPT),
    Give::NoteChars(160),
    Give::StepChars(40),
    Give::DropNotes(0),
];

/// A packet at some stage of giving up: what is kept and how long each text may be.
struct Packet<'a> {
    task: &'a TaskRecord,
    progress: PlanProgress,
    reason: &'a str,
    event_id: &'a str,
    action: String,
    /// The agent's notes (with their seqs), newest first.
    notes: Vec<&'a (u64, MessageRecord)>,
    /// Progress and wait events, then lifecycle messages, each newest first.
    others: Vec<&'a (u64, MessageRecord)>,
    note_chars: usize,
    other_chars: usize,
    window: usize,
    step_chars: usize,
    next: usize,
}

impl<'a> Packet<'a> {
    fn new(
        task: &'a TaskRecord,
        thread: &'a [(u64, MessageRecord)],
        reason: &'a str,
        event_id: &'a str,
    ) -> Self {
        let progress = progress_of(task);
        let newest_first = || thread.iter().rev();
        let is_note =
            |(_, m): &&(u64, MessageRecord)| m.role == Role::Agent && m.msg_type == MsgType::Text;
        let is_event = |(_, m): &&(u64, MessageRecord)| {
            matches!(
                m.msg_type,
                MsgType::Progress | MsgType::Wait | MsgType::Blocker
            )
        };
        let is_lifecycle = |entry: &&(u64, MessageRecord)| {
            !is_note(entry) && !is_event(entry) && entry.1.msg_type != MsgType::Stuck
        };
        let notes: Vec<_> = newest_first()
            .filter(is_note)
            .take(RECENT_MESSAGES)
            .collect();
        let room = RECENT_MESSAGES - notes.len();
        let others: Vec<_> = newest_first()
            .filter(is_event)
            .chain(newest_first().filter(is_lifecycle))
            .take(room)
            .collect();
        Self {
            action: suggested_next_action(task, &progress, thread),
            task,
            progress,
            reason,
            event_id,
            notes,
            others,
            note_chars: usize::MAX,
            other_chars: usize::MAX,
            window: usize::MAX,
            step_chars: usize::MAX,
            next: 0,
        }
    }

    /// The kept messages, oldest first, each with its length limit.
    fn messages(&self) -> Vec<(&MessageRecord, usize)> {
        let mut kept: Vec<(u64, &MessageRecord, usize)> = self
            .notes
            .iter()
            .map(|(seq, m)| (*seq, m, self.note_chars))
            .chain(
                self.others
                    .iter()
                    .map(|(seq, m)| (*seq, m, self.other_chars)),
            )
            .collect();
        kept.sort_by_key(|(seq, _, _)| *seq);
        kept.into_iter().map(|(_, m, limit)| (m, limit)).collect()
    }

    fn plan(&self) -> Vec<String> {
        plan_lines(self.task, &self.progress, self.window, self.step_chars)
    }
}

impl Shrinkable for Packet<'_> {
    fn render(&self) -> Value {
        let progress = &self.progress;
        json!({
            "event_id": self.event_id,
            "task_id": self.task.id.as_str(),
            "name": self.task.name,
            "status": self.task.status.as_str(),
            "progress": {
                "completed": progress.completed,
                "current": progress.current,
                "remaining": progress.remaining,
                "pct": progress.pct,
                // Done steps lookout saw proven; the other done steps rest on the agent's word.
                "verified": report::verified_steps(self.task),
            },
            "plan": self.plan(),
            "recent_messages": self.messages().into_iter().map(|(message, limit)| json!({
                "role": message.role.as_str(),
                "msg_type": message.msg_type.as_str(),
                "content": shorten(&message.content, limit),
                "created_at": message.created_at.to_rfc3339(),
            })).collect::<Vec<_>>(),
            "wait": {
                "active_wait_ids": self.task.active_wait_ids,
                "last_wait_state": self.task.last_wait_state.map(WaitState::as_str),
                "last_wait_event_at": self.task.last_wait_event_at.map(|at| at.as_secs()),
            },
            "reason": self.reason,
            "suggested_next_action": self.action,
        })
    }

    fn shrink(&mut self) -> bool {
        while let Some(give) = GIVE_UP.get(self.next) {
            let dropped = match *give {
                Give::OtherChars(n) => lower(&mut self.other_chars, n),
                Give::NoteChars(n) => lower(&mut self.note_chars, n),
                Give::Window(n) => lower(&mut self.window, n),
                Give::StepChars(n) => lower(&mut self.step_chars, n),
                Give::DropOthers => self.others.pop().is_some(),
                Give::DropNotes(floor) => self.notes.len() > floor && self.notes.pop().is_some(),
            };
            // Dropping goes one message at a time: stay on this stage while it gives.
            let repeatable = matches!(give, Give::DropOthers | Give::DropNotes(_));
            if !(repeatable && dropped) {
                self.next += 1;
            }
            if dropped {
                return true;
            }
        }
        false
    }
}

/// The packet's `plan`: the stored step texts when the whole plan fits as it is; else the
/// steps around the current one as "41. text", with one line each for the done and open
/// steps left out.
pub fn plan_lines(
    task: &TaskRecord,
    progress: &PlanProgress,
    window: usize,
    step_chars: usize,
) -> Vec<String> {
    let shown = PlanWindow::new(task.plan.len(), progress, window);
    let cut = task
        .plan
        .iter()
        .any(|step| step.chars().count() > step_chars);
    if shown.is_whole() && !cut {
        return task.plan.clone();
    }
    let mut lines = Vec::new();
    if !shown.hidden_done.is_empty() {
        lines.push(format!("steps {}: done", step_ranges(&shown.hidden_done)));
    }
    for step in shown.shown.clone() {
        let text = task
            .plan
            .get(step as usize - 1)
            .map_or("", |t| step_text(t));
        lines.push(format!("{step}. {}", shorten(text, step_chars)));
    }
    if !shown.hidden_open.is_empty() {
        lines.push(format!(
            "steps {}: to do, not shown (task_get lists them)",
            step_ranges(&shown.hidden_open)
        ));
    }
    lines
}

/// A simple heuristic for what to do first after waking, from the task and the newest
/// messages of its thread (oldest first): the wait that ended, naming it; else the latest
/// blocker, when no step was done since; else the step to resume.
pub fn suggested_next_action(
    task: &TaskRecord,
    progress: &PlanProgress,
    thread: &[(u64, MessageRecord)],
) -> String {
    // A wait outcome is the latest news only when nothing happened after it.
    let wait_is_latest = task
        .last_wait_event_at
        .is_some_and(|at| at >= task.updated_at);
    let last_wait = thread
        .iter()
        .rev()
        .find(|(_, m)| m.msg_type == MsgType::Wait)
        .and_then(|(_, m)| wait_id_in(&m.content))
        .map_or_else(|| "The last wait".to_owned(), |id| format!("Wait {id}"));
    match task.last_wait_state {
        Some(WaitState::Timeout) if wait_is_latest => {
            return format!(
                "{last_wait} timed out: look at its target (read the terminal or take a \
                 screenshot) to see where things stand, then extend it with wait_update (a new \
                 condition or a longer timeout) or change approach."
            );
        }
        Some(WaitState::Error) if wait_is_latest => {
            return format!(
                "{last_wait} ended in an error: check that its target still exists, then start \
                 a new smart_wait or continue without it."
            );
        }
        Some(WaitState::Changed) if wait_is_latest => {
            return "The last wait woke you at a change nobody judged (no model was configured for its \
                    condition): look at its target to see whether the condition holds, then go on or \
                    send it back to watching with wait_update."
                .to_owned();
        }
        _ => {}
    }
    match progress.current {
        None => format!(
            "{} marked done: verify the result, then mark the task completed with \
             task_update(status: \"completed\").",
            match task.plan.len() {
                1 => "The only step is".to_owned(),
                n => format!("All {n} steps are"),
            }
        ),
        Some(step) => {
            let label = step_label(task, step);
            let label = label.strip_prefix("step ").unwrap_or(&label);
            let resume = format!(
                "step {label}. Report it with task_update when it is done, or revise the plan \
                 with task_plan_update if it no longer applies."
            );
            match report::blocker_since_progress(thread) {
                Some((seq, text)) => format!(
                    "First deal with the blocker in message {seq}: \"{}\". Then resume {resume}",
                    shorten(text, 200)
                ),
                None => format!("Resume {resume}"),
            }
        }
    }
}

/// The first wait id (`w-` and six base-36 characters) a text names.
fn wait_id_in(text: &str) -> Option<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .find(|word| {
            word.len() == 8
                && word.starts_with(WaitId::PREFIX)
                && word[2..]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        })
}

#[cfg(test)]
mod tests {

    use storage::{Role, Timestamp};

    use super::*;

    fn task() -> TaskRecord {
        TaskRecord {
            created_at: Timestamp::from_secs(1_000),
            updated_at: Timestamp::from_secs(2_000),
            ..storage::testkit::deploy_task(&storage::testkit::DEPLOY_PLAN, &[1, 2])
        }
    }

    fn message(seq: u64, msg_type: MsgType, content: &str) -> (u64, MessageRecord) {
        let role = if msg_type == MsgType::Text {
            Role::Agent
        } else {
            Role::System
        };
        (
            seq,
            MessageRecord {
                role,
                msg_type,
                content: content.into(),
                created_at: Timestamp::from_secs(seq),
            },
        )
    }

    fn parse(text: &str) -> Value {
        let json = text.strip_prefix(ENVELOPE).expect("the envelope");
        serde_json::from_str(json).expect("valid JSON")
    }

    #[test]
    fn the_packet_has_exactly_the_seed_keys_and_recent_meaningful_messages() {
        let thread: Vec<_> = (1..=8)
            .map(|seq| {
                message(
                    seq,
                    if seq == 7 {
                        MsgType::Stuck
                    } else {
                        MsgType::Text
                    },
                    &format!("note {seq}"),
                )
            })
            .collect();
        let packet = parse(&wake_text(
            &task(),
            &thread,
            "no updates for 9 minutes and no active wait",
            "e-000042",
            8192,
        ));
        let keys: Vec<&str> = packet
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "event_id",
                "task_id",
                "name",
                "status",
                "progress",
                "plan",
                "recent_messages",
                "wait",
                "reason",
                "suggested_next_action"
            ]
        );
        assert_eq!(
            packet["progress"],
            json!({"completed": [1, 2], "current": 3, "remaining": [4, 5], "pct": 40, "verified": []})
        );
        let contents: Vec<&str> = packet["recent_messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        assert_eq!(
            contents,
            ["note 3", "note 4", "note 5", "note 6", "note 8"],
            "last five, oldest first, no stuck alert"
        );
        assert_eq!(
            packet["wait"],
            json!({"active_wait_ids": [], "last_wait_state": null, "last_wait_event_at": null})
        );
        assert_eq!(
            packet["suggested_next_action"],
            "Resume step 3, SSH into server. Report it with task_update when it is done, or revise the plan with task_plan_update if it no longer applies."
        );
    }

    #[test]
    fn six_hundred_long_messages_stay_under_the_cap_and_parse() {
        let long = "x".repeat(5_000);
        let thread: Vec<_> = (1..=600)
            .map(|seq| message(seq, MsgType::Text, &long))
            .collect();
        for cap in [8192, 2048, 1024] {
            let text = wake_text(
                &task(),
                &thread,
                "no updates for 2 hours and no active wait",
                "e-000042",
                cap,
            );
            assert!(text.len() <= cap, "{} > {cap}", text.len());
            let packet = parse(&text);
            assert_eq!(packet["task_id"], "t-7k2m9q");
            assert_eq!(packet["event_id"], "e-000042");
        }
        let roomy = parse(&wake_text(&task(), &thread, "r", "e-000042", 8192));
        assert!(
            !roomy["recent_messages"].as_array().unwrap().is_empty(),
            "shortening comes before dropping"
        );
        let tight = parse(&wake_text(&task(), &thread, "r", "e-000042", 1024));
        assert!(tight["recent_messages"].as_array().unwrap().len() < 5);
    }

    #[test]
    fn an_impossible_cap_falls_back_to_the_minimal_packet() {
        let mut huge = task();
        huge.plan = vec!["s".repeat(400); 100];
        let text = wake_text(&huge, &[], "r", "e-000042", 600);
        assert_eq!(
            parse(&text).as_object().unwrap().keys().collect::<Vec<_>>(),
            ["event_id", "task_id", "name", "status", "reason"]
        );
    }

    #[test]
    fn the_next_action_heuristic() {
        let progress = |task: &TaskRecord| progress_of(task);
        let mut timed_out = task();
        timed_out.last_wait_state = Some(WaitState::Timeout);
        timed_out.last_wait_event_at = Some(timed_out.updated_at);
        assert!(
            suggested_next_action(&timed_out, &progress(&timed_out), &[])
                .starts_with("The last wait timed out: look at its target")
        );

        // A wait that timed out before later progress is old news.
        let mut moved_on = timed_out.clone();
        moved_on.last_wait_event_at = Some(Timestamp::from_secs(1_500));
        assert!(
            suggested_next_action(&moved_on, &progress(&moved_on), &[])
                .starts_with("Resume step 3")
        );

        let mut failed = timed_out;
        failed.last_wait_state = Some(WaitState::Error);
        let mut changed = failed.clone();
        changed.last_wait_state = Some(WaitState::Changed);
        assert!(
            suggested_next_action(&changed, &progress(&changed), &[])
                .contains("change nobody judged")
        );
        assert!(
            suggested_next_action(&failed, &progress(&failed), &[])
                .starts_with("The last wait ended in an error")
        );

        // The wait that timed out is named, from its note in the thread.
        let thread = [message(
            7,
            MsgType::Wait,
            "Wait w-4hx8q2 timed out after 600s. Last observation: still building",
        )];
        let mut named = task();
        named.last_wait_state = Some(WaitState::Timeout);
        named.last_wait_event_at = Some(named.updated_at);
        assert!(
            suggested_next_action(&named, &progress(&named), &thread)
                .starts_with("Wait w-4hx8q2 timed out: look at its target")
        );
        // The latest blocker comes first while no step was done after it.
        let blocked = [
            message(8, MsgType::Progress, "✓ Step 2: Push to registry"),
            message(
                9,
                MsgType::Blocker,
                "⚠ Blocker on step 3, SSH into server: session s-1a2b3c (ssh prod) exited with status 255",
            ),
        ];
        let action = suggested_next_action(&moved_on, &progress(&moved_on), &blocked);
        assert!(
            action.starts_with(
                "First deal with the blocker in message 9: \"⚠ Blocker on step 3, SSH into server: \
                 session s-1a2b3c (ssh prod) exited with status 255\". Then resume step 3"
            ),
            "{action}"
        );
        let unblocked = [
            blocked[1].clone(),
            message(10, MsgType::Progress, "✓ Step 3: SSH into server"),
        ];
        assert!(
            suggested_next_action(&moved_on, &progress(&moved_on), &unblocked)
                .starts_with("Resume step 3")
        );

        let mut finished = task();
        finished.completed_steps = (1..=5).collect();
        assert!(
            suggested_next_action(&finished, &progress(&finished), &[])
                .starts_with("All 5 steps are marked done: verify")
        );
    }
}
