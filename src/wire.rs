//! What clients see: the JSON results, built by hand from the tree's replies.
//!
//! Field names follow seed 000 and seed 004 exactly; timestamps are RFC 3339 UTC; the
//! `*_at` keys of the wait linkage are epoch seconds, as seed 004 requires. Every result
//! has a `message` saying what happened and what to expect next.

use actors::tasks::plan::PlanProgress;
use actors::tasks::report;
use actors::tasks::types::{PlanUpdated, TaskListing, TaskReport, TaskUpdated, ThreadPage};
use actors::vision::VisionStatus;
use actors::vision::ledger::VisionUsage;
use serde_json::{Value, json};
use storage::{MessageRecord, StatusFilter, TaskRecord};

pub fn plan_progress(progress: &PlanProgress) -> Value {
    json!({
        "completed": progress.completed,
        "current": progress.current,
        "remaining": progress.remaining,
        "pct": progress.pct,
    })
}

pub fn message(seq: u64, message: &MessageRecord) -> Value {
    json!({
        "seq": seq,
        "role": message.role.as_str(),
        "msg_type": message.msg_type.as_str(),
        "content": message.content,
        "created_at": message.created_at.to_rfc3339(),
    })
}

/// Seed 004 §4: the task's wait linkage.
pub fn wait_linkage(task: &TaskRecord) -> Value {
    json!({
        "active_wait_ids": task.active_wait_ids,
        "last_wait_state": task.last_wait_state.map(|state| state.as_str()),
        "last_wait_event_at": task.last_wait_event_at.map(|at| at.as_secs()),
    })
}

pub fn registered(task: &TaskRecord) -> Value {
    json!({
        "task_id": task.id.as_str(),
        "name": task.name,
        "status": task.status.as_str(),
        "plan": task.plan,
        "created_at": task.created_at.to_rfc3339(),
        "message": report::registered_message(task),
    })
}

/// The result of `task_update`: the update shape, or the query shape when it asked.
pub fn updated(updated: &TaskUpdated) -> Value {
    match &updated.report {
        Some(answer) => {
            let mut result = query_result(answer);
            if updated.changed {
                result["acknowledged"] = json!(true);
                result["message_count"] = json!(updated.task.message_count());
            }
            result
        }
        None => json!({
            "task_id": updated.task.id.as_str(),
            "message_count": updated.task.message_count(),
            "status": updated.task.status.as_str(),
            "acknowledged": true,
            "plan_progress": plan_progress(&updated.progress),
            "message": report::update_message(&updated.task, &updated.progress, &updated.effects),
        }),
    }
}

fn query_result(answer: &TaskReport) -> Value {
    let task = &answer.task;
    json!({
        "task_id": task.id.as_str(),
        "name": task.name,
        "status": task.status.as_str(),
        "summary": answer.summary,
        "plan": task.plan,
        "plan_progress": plan_progress(&answer.progress),
        "last_update": task.updated_at.to_rfc3339(),
        "relevant_messages": answer.relevant_messages.iter().map(|(seq, m)| message(*seq, m)).collect::<Vec<_>>(),
        "wait": wait_linkage(task),
        "message": answer.next,
    })
}

pub fn plan_updated(updated: &PlanUpdated) -> Value {
    let revised = &updated.revised;
    json!({
        "task_id": updated.task.id.as_str(),
        "revision": revised.revision,
        "plan": updated.task.plan,
        "kept_completed": revised.kept_completed,
        "dropped_completed": revised.dropped_completed.iter().map(|(step, _)| *step).collect::<Vec<_>>(),
        "plan_progress": plan_progress(&updated.progress),
        "message": report::plan_revised_message(revised, &updated.progress, &updated.task),
    })
}

pub fn task_list(listing: &TaskListing, filter: &StatusFilter, limit: usize) -> Value {
    let tasks: Vec<Value> = listing
        .tasks
        .iter()
        .map(|task| {
            let progress = actors::tasks::transition::progress_of(task);
            json!({
                "task_id": task.id.as_str(),
                "name": task.name,
                "status": task.status.as_str(),
                "plan_steps": task.plan.len(),
                "messages": task.message_count(),
                "progress_pct": progress.pct,
                "last_update": task.updated_at.to_rfc3339(),
            })
        })
        .collect();
    let which = match filter {
        StatusFilter::Only(status) => format!("{status} "),
        StatusFilter::All => String::new(),
    };
    let count = tasks.len();
    let message = match (count, listing.more) {
        (0, _) => format!("No {which}tasks."),
        (1, false) => format!("1 {which}task."),
        (n, false) => format!("{n} {which}tasks."),
        (n, true) => format!(
            "The {n} most recently updated {which}tasks; more exist — raise limit (now {limit}, max 1000) to see them."
        ),
    };
    json!({"tasks": tasks, "message": message})
}

pub fn thread(page: &ThreadPage) -> Value {
    let messages: Vec<Value> = page
        .messages
        .iter()
        .map(|(seq, m)| message(*seq, m))
        .collect();
    let message = match (page.messages.first(), page.messages.last()) {
        (Some((first, _)), Some((last, _))) if *first > 1 => format!(
            "Messages {first}-{last} of {}; page back with before: {first}.",
            page.total
        ),
        (Some(_), Some(_)) => format!("{} of {} messages.", page.messages.len(), page.total),
        _ => format!(
            "No messages in this range; the thread has {} messages.",
            page.total
        ),
    };
    json!({"task_id": page.task_id.as_str(), "messages": messages, "message": message})
}

/// What judging cost, in `daemon.status` (`vision`) and wherever a wait reports its own.
pub fn vision_usage(usage: &VisionUsage) -> Value {
    json!({
        "judgements": usage.judgements,
        "calls": usage.calls,
        "failures": usage.failures,
        "retries": usage.retries,
        "cache_hits": usage.cache_hits,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "latency_ms": {"mean": usage.latency_ms_mean(), "max": usage.latency_ms_max},
    })
}

/// `daemon.status`'s `vision` object: the backend, its limits and queue, and the totals.
pub fn vision_status(status: &VisionStatus) -> Value {
    let mut value = vision_usage(&status.totals);
    if let Value::Object(fields) = &mut value {
        let mut head = serde_json::Map::new();
        head.insert("backend".into(), json!(status.backend));
        head.insert("max_concurrency".into(), json!(status.max_concurrency));
        head.insert(
            "min_interval_s".into(),
            json!(status.min_interval.as_secs()),
        );
        head.insert("in_flight".into(), json!(status.in_flight));
        head.insert("queued".into(), json!(status.queued));
        head.insert(
            "rate_limited_until".into(),
            json!(status.rate_limited_until.map(|at| at.to_rfc3339())),
        );
        head.insert("cache_entries".into(), json!(status.cache_entries));
        head.append(fields);
        *fields = head;
    }
    value
}
