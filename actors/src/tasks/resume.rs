//! The resume packet (seed 004 §6): the wake text of a stuck alert,
//! `[task_stuck_resume] {json}`, with exactly the seed's keys, so an agent that lost its
//! context can pick the task up from the wake alone.
//!
//! The text never exceeds the configured size: message contents are shortened first, then
//! the oldest messages dropped, then plan steps shortened; the JSON stays valid at every
//! stage because each stage is serialised whole and measured.

use serde_json::{Value, json};
use storage::{MessageRecord, MsgType, TaskRecord, WaitState};

use crate::tasks::plan::PlanProgress;
use crate::tasks::report::step_label;
use crate::tasks::transition::progress_of;
use crate::words::shorten;

pub const ENVELOPE: &str = "[task_stuck_resume] ";
/// Messages in a packet: the last few meaningful ones.
pub const RECENT_MESSAGES: usize = 5;

/// The full wake text for a stuck task, within `max_bytes`.
pub fn wake_text(
    task: &TaskRecord,
    thread: &[(u64, MessageRecord)],
    reason: &str,
    event_id: &str,
    max_bytes: usize,
) -> String {
    let progress = progress_of(task);
    let meaningful: Vec<&MessageRecord> = thread
        .iter()
        .map(|(_, message)| message)
        .filter(|message| message.msg_type != MsgType::Stuck)
        .collect();
    let recent = &meaningful[meaningful.len().saturating_sub(RECENT_MESSAGES)..];
    let action = suggested_next_action(task, &progress);
    // Shrinking stages: (message content limit, messages kept, plan step limit).
    let mut stages: Vec<(Option<usize>, usize, Option<usize>)> = vec![
        (None, recent.len(), None),
        (Some(500), recent.len(), None),
        (Some(160), recent.len(), None),
    ];
    stages.extend((0..recent.len()).rev().map(|kept| (Some(160), kept, None)));
    stages.extend([(Some(160), 0, Some(80)), (Some(160), 0, Some(24))]);
    for (content_limit, kept, step_limit) in stages {
        let messages = &recent[recent.len() - kept..];
        let packet = packet(
            task,
            &progress,
            messages,
            content_limit,
            step_limit,
            reason,
            &action,
            event_id,
        );
        let text = format!("{ENVELOPE}{packet}");
        if text.len() <= max_bytes {
            return text;
        }
    }
    minimal_wake_text(task, reason, event_id)
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

fn packet(
    task: &TaskRecord,
    progress: &PlanProgress,
    messages: &[&MessageRecord],
    content_limit: Option<usize>,
    step_limit: Option<usize>,
    reason: &str,
    action: &str,
    event_id: &str,
) -> Value {
    let cut = |text: &str, limit: Option<usize>| {
        limit.map_or_else(|| text.to_owned(), |max| shorten(text, max))
    };
    json!({
        "event_id": event_id,
        "task_id": task.id.as_str(),
        "name": task.name,
        "status": task.status.as_str(),
        "progress": {
            "completed": progress.completed,
            "current": progress.current,
            "remaining": progress.remaining,
            "pct": progress.pct,
        },
        "plan": task.plan.iter().map(|step| cut(step, step_limit)).collect::<Vec<_>>(),
        "recent_messages": messages.iter().map(|message| json!({
            "role": message.role.as_str(),
            "msg_type": message.msg_type.as_str(),
            "content": cut(&message.content, content_limit),
            "created_at": message.created_at.to_rfc3339(),
        })).collect::<Vec<_>>(),
        "wait": {
            "active_wait_ids": task.active_wait_ids,
            "last_wait_state": task.last_wait_state.map(WaitState::as_str),
            "last_wait_event_at": task.last_wait_event_at.map(|at| at.as_secs()),
        },
        "reason": reason,
        "suggested_next_action": action,
    })
}

/// A simple heuristic for what to do first after waking.
pub fn suggested_next_action(task: &TaskRecord, progress: &PlanProgress) -> String {
    // A wait outcome is the latest news only when nothing happened after it.
    let wait_is_latest = task
        .last_wait_event_at
        .is_some_and(|at| at >= task.updated_at);
    match task.last_wait_state {
        Some(WaitState::Timeout) if wait_is_latest => {
            return "The last wait timed out: look at its target (read the terminal or take a screenshot) to \
                    see where things stand, then extend it with wait_update (a new condition or a longer \
                    timeout) or change approach."
                .to_owned();
        }
        Some(WaitState::Error) if wait_is_latest => {
            return "The last wait ended in an error: check that its target still exists, then start a new \
                    smart_wait or continue without it."
                .to_owned();
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
            format!(
                "Resume step {label}. Report it with task_update when it is done, or revise the plan with \
                 task_plan_update if it no longer applies."
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use storage::{Role, Status, TaskId, Timestamp};

    use super::*;

    fn task() -> TaskRecord {
        TaskRecord {
            id: TaskId::new("t-7k2m9q"),
            name: "Deploy coursefolio to production".into(),
            status: Status::Active,
            plan: [
                "Build Docker image",
                "Push to registry",
                "SSH into server",
                "Pull and run",
                "Verify",
            ]
            .map(String::from)
            .to_vec(),
            completed_steps: BTreeSet::from([1, 2]),
            current_step: None,
            metadata_json: "{}".into(),
            session_key: None,
            agent_id: None,
            created_at: Timestamp::from_secs(1_000),
            updated_at: Timestamp::from_secs(2_000),
            last_seq: 0,
            plan_revisions: 0,
            active_wait_ids: vec![],
            last_wait_state: None,
            last_wait_event_at: None,
            last_stuck_alert_at: None,
            stuck_threshold_s: None,
            origin: None,
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
            json!({"completed": [1, 2], "current": 3, "remaining": [4, 5], "pct": 40})
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
            suggested_next_action(&timed_out, &progress(&timed_out))
                .starts_with("The last wait timed out: look at its target")
        );

        // A wait that timed out before later progress is old news.
        let mut moved_on = timed_out.clone();
        moved_on.last_wait_event_at = Some(Timestamp::from_secs(1_500));
        assert!(
            suggested_next_action(&moved_on, &progress(&moved_on)).starts_with("Resume step 3")
        );

        let mut failed = timed_out;
        failed.last_wait_state = Some(WaitState::Error);
        let mut changed = failed.clone();
        changed.last_wait_state = Some(WaitState::Changed);
        assert!(
            suggested_next_action(&changed, &progress(&changed)).contains("change nobody judged")
        );
        assert!(
            suggested_next_action(&failed, &progress(&failed))
                .starts_with("The last wait ended in an error")
        );

        let mut finished = task();
        finished.completed_steps = (1..=5).collect();
        assert!(
            suggested_next_action(&finished, &progress(&finished))
                .starts_with("All 5 steps are marked done: verify")
        );
    }
}
