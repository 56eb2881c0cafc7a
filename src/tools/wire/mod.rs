//! What clients see: the JSON results, built by hand from the tree's replies.
//!
//! Field names follow docs/contract.md §7 and §4 exactly; timestamps are RFC 3339 UTC; the
//! `*_at` keys of the wait linkage are epoch seconds, as §4 requires. Every result
//! has a `message` saying what happened and what to expect next. [`tasks`] holds the task
//! results; every answer that grows with what it reports fits a byte budget
//! ([`actors::budget`]) and says what it left out and how to get it.

pub mod recall;
pub mod status;
pub mod tasks;

pub use recall::{forgotten, recalled, recorder_changed, recorder_status};
pub use tasks::{plan_updated, registered, task_detail, task_list, thread, updated};

use actors::linkage::StepLink;
use actors::tasks::plan::PlanProgress;
use actors::terminals::session::MAX_ENDED_SESSIONS;
use actors::terminals::types::{
    ExitStatus, InputSent, SessionSnapshot, SessionStarted, SessionStopped, StopOutcome,
};
use actors::vision::VisionStatus;
use actors::vision::ledger::VisionUsage;
use actors::waits::WaitView;
use actors::waits::types::{JudgedClause, ReadingView};
use actors::words;
use serde_json::{Value, json};
use storage::{MessageRecord, TaskId, TaskRecord, WaitEvent, WaitHistoryEntry, WaitState};

use crate::tools::limits;

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

/// One line of a wait's history, with the key that fits its event.
fn wait_history_entry(entry: &WaitHistoryEntry) -> Value {
    let mut line = json!({"at": entry.at.to_rfc3339(), "event": entry.event.as_str()});
    if let Some(met) = entry.met {
        line["met"] = json!(met);
    }
    if let Some(detail) = &entry.detail {
        let key = match entry.event {
            WaitEvent::Judged | WaitEvent::Resolved | WaitEvent::TimedOut | WaitEvent::Changed => {
                "observation"
            }
            WaitEvent::JudgeFailed | WaitEvent::CaptureFailed | WaitEvent::Failed => "error",
            WaitEvent::Cancelled => "reason",
            WaitEvent::Created | WaitEvent::Updated | WaitEvent::Revived => "note",
        };
        line[key] = json!(detail);
    }
    line
}

/// How a condition was read: `{"any_of": [...]}` or `{"all_of": [...]}`, and who judges each
/// clause (`"judged_by": {clause: judge}`).
pub fn reading(view: &ReadingView) -> Value {
    let clause_text = |clause: &JudgedClause| {
        if clause.negated {
            format!("not {}", clause.text)
        } else {
            clause.text.clone()
        }
    };
    let mut judged_by = serde_json::Map::new();
    for clause in view.iter().flatten() {
        judged_by.insert(clause_text(clause), json!(clause.judged_by.to_string()));
    }
    match view.as_slice() {
        [group] => json!({
            "all_of": group.iter().map(clause_text).collect::<Vec<_>>(),
            "judged_by": judged_by,
        }),
        groups => json!({
            "any_of": groups
                .iter()
                .map(|group| group.iter().map(clause_text).collect::<Vec<_>>().join(" and "))
                .collect::<Vec<_>>(),
            "judged_by": judged_by,
        }),
    }
}

/// `smart_wait`'s result.
pub fn wait_created(view: &WaitView) -> Value {
    json!({
        "wait_id": view.record.id.as_str(),
        "status": view.record.state.as_str(),
        "target": view.record.target,
        "reading": reading(&view.reading),
        "message": view.message,
    })
}

/// `wait_update`'s and `wait_cancel`'s result.
pub fn wait_changed(view: &WaitView) -> Value {
    json!({
        "wait_id": view.record.id.as_str(),
        "status": view.record.state.as_str(),
        "reading": reading(&view.reading),
        "message": view.message,
    })
}

/// History entries a wait's status tries, most generous first, when it must give.
const HISTORY_KEPT: &[usize] = &[usize::MAX, 20, 10, 5, 2, 0];

/// One wait, within `max_bytes`: its history keeps its newest entries when it must give.
pub fn wait_status(view: &WaitView, max_bytes: usize) -> Value {
    let mut result = Value::Null;
    for &kept in HISTORY_KEPT {
        result = wait_status_keeping(view, kept);
        let left_out = view.record.history.len().saturating_sub(kept);
        if left_out > 0 {
            let note = format!(
                " To fit {max_bytes} bytes, the {} older of its history left out; raise \
                 max_bytes (up to {}) for all of it.",
                words::count(left_out as u64, "entry", Some("entries")),
                limits::MAX_ANSWER_BYTES
            );
            result["message"] = json!(format!(
                "{}{note}",
                result["message"].as_str().unwrap_or("")
            ));
        }
        if actors::budget::json_bytes(&result) <= max_bytes {
            break;
        }
    }
    result
}

/// One wait with only the newest `kept` entries of its history.
fn wait_status_keeping(view: &WaitView, kept: usize) -> Value {
    let record = &view.record;
    let end = record.ended_at.unwrap_or(view.now);
    let elapsed_s = end.millis_since(record.started_at) / 1000;
    let remaining_s = if record.is_live() {
        record.deadline.millis_since(view.now) / 1000
    } else {
        0
    };
    let counters = &record.counters;
    let message = match record.state {
        WaitState::Watching => format!(
            "Watching for {elapsed_s}s, {remaining_s}s left; {} model call{} so far.",
            counters.judge_calls,
            if counters.judge_calls == 1 { "" } else { "s" }
        ),
        WaitState::Resolved => format!(
            "Resolved after {elapsed_s}s: {}. wait_update sends it back to watching.",
            record
                .last_observation
                .as_deref()
                .unwrap_or("the condition held")
        ),
        WaitState::Timeout => format!(
            "Timed out after {}s. wait_update(wait_id, timeout) watches again.",
            record.timeout_s
        ),
        WaitState::Error => format!(
            "Ended in an error: {}. Fix it and start a new smart_wait, or wait_update to retry.",
            record
                .history
                .last()
                .and_then(|h| h.detail.as_deref())
                .unwrap_or("see the history")
        ),
        WaitState::Cancelled => "Cancelled.".to_owned(),
        WaitState::Changed => format!(
            "Woke you after {elapsed_s}s at a change nobody judged: {}. Look at the target; \
             wait_update sends it back to watching.",
            record
                .last_observation
                .as_deref()
                .unwrap_or("the target changed")
        ),
    };
    json!({
        "wait_id": record.id.as_str(),
        "status": record.state.as_str(),
        "target": record.target,
        "wake_when": record.condition,
        "reading": reading(&view.reading),
        "match_existing": record.match_existing,
        "task_id": record.task_id.as_ref().map(TaskId::as_str),
        "step": record.step,
        "created_at": record.created_at.to_rfc3339(),
        "elapsed_s": elapsed_s,
        "remaining_s": remaining_s,
        "timeout_s": record.timeout_s,
        "poll_interval": record.poll_interval_ms as f64 / 1000.0,
        "last_observation": record.last_observation,
        "counters": {
            "captures": counters.captures,
            "skipped_by_gate": counters.skipped_by_gate,
            "judge_calls": counters.judge_calls,
            "judge_failures": counters.judge_failures,
            "input_tokens": counters.input_tokens,
            "output_tokens": counters.output_tokens,
        },
        "history": record.history[record.history.len().saturating_sub(kept)..]
            .iter()
            .map(wait_history_entry)
            .collect::<Vec<_>>(),
        "message": message,
    })
}

/// The live waits (of one task, when `of_task` names it), within `max_bytes`: histories
/// are shortened first, then the waits past the budget are left out with a word on how to
/// see them.
pub fn wait_list(views: &[WaitView], of_task: Option<&TaskId>, max_bytes: usize) -> Value {
    let whose = of_task.map_or(String::new(), |id| format!(" of task {}", id.as_str()));
    let render = |items: &[Value], kept_history: usize| {
        let total = views.len();
        let mut message = match total {
            0 => format!("No live waits{whose}."),
            n => format!("{}{whose}.", words::count(n as u64, "live wait", None)),
        };
        if items.len() < total {
            message.push_str(&format!(
                " {} shown to fit {max_bytes} bytes; wait_status(wait_id) gives any one, task_id \
                 narrows the list, or raise max_bytes (up to {}).",
                items.len(),
                limits::MAX_ANSWER_BYTES
            ));
        } else if kept_history < usize::MAX
            && views.iter().any(|v| v.record.history.len() > kept_history)
        {
            message.push_str(&format!(
                " Histories cut to their newest {kept_history} entries to fit {max_bytes} bytes; \
                 wait_status(wait_id) gives one whole."
            ));
        }
        json!({"waits": items, "message": message})
    };
    let frame = render(&[], 0).to_string().len() + 300;
    for &kept in &[usize::MAX, 5, 0] {
        let items: Vec<Value> = views.iter().map(|v| wait_status_keeping(v, kept)).collect();
        let fitting = actors::budget::items_that_fit(&items, max_bytes.saturating_sub(frame));
        if fitting == items.len() || kept == 0 {
            return render(&items[..fitting], kept);
        }
    }
    unreachable!("the last level always returns")
}

// ---- terminal sessions (term_start, term_send, term_read, term_stop) ----

pub fn term_started(started: &SessionStarted) -> Value {
    let id = &started.id;
    let linked = match &started.link {
        Some(StepLink {
            task_id,
            step: Some(step),
        }) => format!(
            " It works for step {step} of {task_id}: exit 0 marks that step done as verified, \
             any other end posts a blocker on it."
        ),
        Some(StepLink { task_id, .. }) => {
            format!(" Its start and end are noted in {task_id}'s thread.")
        }
        None => String::new(),
    };
    json!({
        "session_id": id.as_str(),
        "pid": started.pid,
        "command": started.command,
        "cols": started.size.cols,
        "rows": started.size.rows,
        "message": format!(
            "Started {id} (pid {}) in a {} terminal: `{}`. It keeps running if you disconnect. \
             Read its screen with term_read, type into it with term_send, stop it with term_stop, \
             or let lookout wait for it: smart_wait(target: \"pty:{id}\", wake_when: \"'DONE' is printed or the command exits\").{linked}",
            started.pid, started.size, started.command
        ),
    })
}

pub fn term_sent(sent: &InputSent) -> Value {
    json!({
        "session_id": sent.id.as_str(),
        "bytes": sent.bytes,
        "message": format!(
            "Typed {} bytes into {}. Read the screen with term_read to see what the program made of it.",
            sent.bytes, sent.id
        ),
    })
}

fn exit_fields(status: Option<ExitStatus>) -> (Value, Value) {
    (
        json!(status.and_then(|s| s.code)),
        json!(status.and_then(|s| s.signal_name())),
    )
}

pub fn term_read(snapshot: &SessionSnapshot) -> Value {
    let id = &snapshot.id;
    let status = snapshot.state.exit();
    let (exit_code, exit_signal) = exit_fields(status);
    let shown = snapshot.scrollback.len();
    let scrollback = if shown == 0 {
        "no scrollback lines".to_owned()
    } else if shown < snapshot.scrollback_kept {
        format!(
            "the last {shown} of {} scrollback lines (raise lines to see more)",
            snapshot.scrollback_kept
        )
    } else {
        format!("all {shown} scrollback lines")
    };
    let message = match status {
        None => format!(
            "{id} (`{}`, pid {}) is running; showing the screen and {scrollback}. Read again later, \
             or hand the waiting to smart_wait(target: \"pty:{id}\").",
            snapshot.command, snapshot.pid
        ),
        Some(status) => format!(
            "{id} (`{}`) {status}; this is its final screen, with {scrollback}. It stays readable \
             while it is among the last {MAX_ENDED_SESSIONS} ended sessions.",
            snapshot.command
        ),
    };
    json!({
        "session_id": id.as_str(),
        "command": snapshot.command,
        "pid": snapshot.pid,
        "running": status.is_none(),
        "exit_code": exit_code,
        "exit_signal": exit_signal,
        "screen": snapshot.screen,
        "scrollback": snapshot.scrollback.join("\n"),
        "scrollback_lines": shown,
        "scrollback_kept": snapshot.scrollback_kept,
        "started_at": snapshot.started_at.to_rfc3339(),
        "output_bytes": snapshot.output_bytes,
        "message": message,
    })
}

pub fn term_stopped(stopped: &SessionStopped) -> Value {
    let id = &stopped.id;
    let signal = stopped.signal;
    let (status, message) = match stopped.outcome {
        StopOutcome::AlreadyEnded(status) => (
            Some(status),
            format!("{id} had already ended: its program {status}. Nothing was sent."),
        ),
        StopOutcome::Ended(status) => (
            Some(status),
            format!(
                "Sent {signal} to {id} (pid {}); its program {status}. Its last screen stays readable with term_read.",
                stopped.pid
            ),
        ),
        StopOutcome::StillRunning(waited) => (
            None,
            format!(
                "Sent {signal} to {id} (pid {}), but it is still running after {}s (it may handle or ignore {signal}). \
                 Check it with term_read, or call term_stop with signal KILL to force it.",
                stopped.pid,
                waited.as_secs()
            ),
        ),
    };
    let (exit_code, exit_signal) = exit_fields(status);
    json!({
        "session_id": id.as_str(),
        "signal": signal.as_str(),
        "running": status.is_none(),
        "exit_code": exit_code,
        "exit_signal": exit_signal,
        "message": message,
    })
}

// ---- end of terminal sessions ----
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
