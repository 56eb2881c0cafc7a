//! Human-readable output of the CLI, rendered from the same JSON results clients get.

use serde_json::Value;

const BAR_WIDTH: usize = 20;

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or("")
}

fn numbers(value: &Value) -> Vec<u64> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// `[████████░░░░░░░░░░░░] 40%`
pub fn progress_bar(pct: u64) -> String {
    let filled = (pct.min(100) as usize * BAR_WIDTH + 50) / 100;
    format!(
        "[{}{}] {pct}%",
        "█".repeat(filled),
        "░".repeat(BAR_WIDTH - filled)
    )
}

/// The plan as a checklist: ✓ done (verified, with its proof), ✓? done on the agent's word
/// only, ▶ current, ○ to do. `plan` is either the stored step texts (a registration) or
/// step entries (`{"step", "text", "status", "evidence", "proof"}`, from a query or
/// `task_get`); `not_shown` is a windowed answer's `plan_not_shown`.
pub fn checklist(plan: &Value, progress: &Value, not_shown: &Value) -> String {
    let done = numbers(&progress["completed"]);
    let current = progress["current"].as_u64();
    let steps = plan.as_array().cloned().unwrap_or_default();
    let mut lines = Vec::new();
    if let Some(ranges) = not_shown["done"].as_str().filter(|r| !r.is_empty()) {
        lines.push(format!("  ✓ steps {ranges} done"));
    }
    for (index, step) in steps.iter().enumerate() {
        let (number, text) = match step {
            Value::String(text) => (index as u64 + 1, text.as_str()),
            entry => (entry["step"].as_u64().unwrap_or(0), text(entry, "text")),
        };
        let evidence = step["evidence"].as_str();
        let mark = if done.contains(&number) {
            if evidence == Some("claimed") {
                "✓?"
            } else {
                "✓"
            }
        } else if Some(number) == current {
            "▶"
        } else {
            "○"
        };
        let text = actors::tasks::plan::step_text(text);
        let proof = match (evidence, step["proof"].as_str()) {
            (Some("verified"), Some(proof)) => format!(" — {proof}"),
            _ => String::new(),
        };
        lines.push(format!("  {mark} {number}. {text}{proof}"));
    }
    if let Some(ranges) = not_shown["todo"].as_str().filter(|r| !r.is_empty()) {
        lines.push(format!("  ○ steps {ranges} not shown"));
    }
    lines.join("\n")
}

/// The heading, bar and checklist of a task result (a query answer or `task_get`).
fn task_heading(result: &Value) -> Vec<String> {
    let progress = &result["plan_progress"];
    let done = numbers(&progress["completed"]).len();
    let plan_len = done
        + progress["current"].as_u64().map_or(0, |_| 1)
        + numbers(&progress["remaining"]).len();
    vec![
        format!(
            "{}  ({}, {})",
            text(result, "name"),
            text(result, "task_id"),
            text(result, "status")
        ),
        format!(
            "{}  {done} of {plan_len} step{} done",
            progress_bar(progress["pct"].as_u64().unwrap_or(0)),
            if plan_len == 1 { "" } else { "s" }
        ),
        checklist(&result["plan"], progress, &result["plan_not_shown"]),
        format!("Last update: {}", text(result, "last_update")),
    ]
}

/// `lookout task show`: a task whole (from `task_get`): heading, checklist, what it was
/// registered with, its plan revisions and its waits.
pub fn task_show(result: &Value) -> String {
    let mut lines = task_heading(result);
    let linkage = ["active_wait_ids", "last_wait_state", "last_wait_event_at"];
    if let Some(metadata) = result["metadata"].as_object() {
        let given: serde_json::Map<String, Value> = metadata
            .iter()
            .filter(|(key, _)| !linkage.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if !given.is_empty() {
            lines.push(format!("Metadata: {}", Value::Object(given)));
        }
    }
    for revision in result["plan_revisions"].as_array().into_iter().flatten() {
        lines.push(format!(
            "Plan revision {} ({}, {}): {}",
            revision["revision"],
            text(revision, "at"),
            text(revision, "author"),
            text(revision, "reason")
        ));
    }
    for wait in result["waits"].as_array().into_iter().flatten() {
        lines.push(format!(
            "Wait {} {}: {} — {}",
            text(wait, "wait_id"),
            text(wait, "status"),
            text(wait, "target"),
            text(wait, "wake_when")
        ));
    }
    lines.push(text(result, "message").to_owned());
    lines.retain(|line| !line.is_empty());
    lines.join("\n")
}

/// `lookout task update --query`: the heading and summary, then the messages that answer
/// the question (each with its seq, for `lookout task thread --before`).
pub fn task_answer(result: &Value) -> String {
    let mut lines = task_heading(result);
    lines.push(text(result, "summary").to_owned());
    lines.push(text(result, "message").to_owned());
    lines.retain(|line| !line.is_empty());
    let mut text = lines.join("\n");
    let relevant = result["relevant_messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if !relevant.is_empty() {
        text.push_str("\nRelevant messages:");
        for message in relevant {
            text.push_str(&format!(
                "\n  #{} {} {}: {}",
                message["seq"],
                message["created_at"].as_str().unwrap_or(""),
                message["role"].as_str().unwrap_or(""),
                message["content"].as_str().unwrap_or("")
            ));
        }
    }
    text
}

/// `lookout recall`: each result with its time, source, confidence, summary and steps.
pub fn recalled(result: &Value) -> String {
    let mut lines = Vec::new();
    for (index, found) in result["results"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        lines.push(format!(
            "{}. {} {} ({} s, confidence {})",
            index + 1,
            text(found, "timestamp"),
            text(found, "source"),
            found["duration_seconds"],
            found["confidence"]
        ));
        lines.push(format!("   {}", text(found, "summary")));
        for step in found["steps"].as_array().into_iter().flatten() {
            lines.push(format!("   - {}", step.as_str().unwrap_or("")));
        }
        if let Some(url) = found["video_url"].as_str() {
            lines.push(format!(
                "   keyframes: {url} ({} pictures)",
                found["frames"].as_array().map_or(0, Vec::len)
            ));
        }
    }
    lines.push(text(result, "message").to_owned());
    lines.join("\n")
}

pub fn task_registered(result: &Value) -> String {
    let progress = serde_json::json!({"completed": [], "current": 1});
    format!(
        "Registered {}: {}\n{}\n{}",
        text(result, "task_id"),
        text(result, "name"),
        checklist(&result["plan"], &progress, &Value::Null),
        text(result, "message")
    )
}

pub fn task_list(result: &Value) -> String {
    let tasks = result["tasks"].as_array().cloned().unwrap_or_default();
    let mut lines: Vec<String> = tasks
        .iter()
        .map(|task| {
            format!(
                "{:<10} {:<10} {:>4}%  {:>3} steps  {:>4} msgs  {}  {}",
                text(task, "task_id"),
                text(task, "status"),
                task["progress_pct"].as_u64().unwrap_or(0),
                task["plan_steps"].as_u64().unwrap_or(0),
                task["messages"].as_u64().unwrap_or(0),
                text(task, "last_update"),
                text(task, "name"),
            )
        })
        .collect();
    lines.push(text(result, "message").to_owned());
    if let Some(cursor) = result["next_cursor"].as_str() {
        lines.push(format!("Next page: lookout task list --cursor {cursor}"));
    }
    lines.join("\n")
}

pub fn task_thread(result: &Value) -> String {
    let messages = result["messages"].as_array().cloned().unwrap_or_default();
    let mut lines: Vec<String> = messages
        .iter()
        .map(|message| {
            let content = text(message, "content").replace('\n', "\n      ");
            format!(
                "#{:<4} {} {:<6} {:<9} {content}",
                message["seq"].as_u64().unwrap_or(0),
                text(message, "created_at"),
                text(message, "role"),
                text(message, "msg_type"),
            )
        })
        .collect();
    lines.push(text(result, "message").to_owned());
    lines.join("\n")
}

/// One line per wake event: `e-000123 2026-02-13T17:16:00Z task_stuck t-7k2m9q  <text>`;
/// other notifications (e.g. `events.lagged`) print their message.
pub fn event(notification: &Value) -> String {
    let params = &notification["params"];
    if notification["method"] != "event" {
        return format!(
            "({}) {}",
            text(notification, "method"),
            text(params, "message")
        );
    }
    let subject = params["task_id"]
        .as_str()
        .or(params["wait_id"].as_str())
        .unwrap_or("-");
    format!(
        "{} {} {} {subject}  {}",
        text(params, "id"),
        text(params, "created_at"),
        text(params, "kind"),
        text(params, "text")
    )
}

pub fn status(result: &Value) -> String {
    let storage = &result["storage"];
    let tasks = result["tasks"].as_object().cloned().unwrap_or_default();
    let counts: Vec<String> = tasks
        .iter()
        .map(|(status, n)| format!("{status} {n}"))
        .collect();
    [
        format!(
            "lookout {} (pid {}) — {}",
            text(result, "version"),
            result["pid"],
            text(result, "health")
        ),
        format!(
            "uptime:   {}s since {}",
            result["uptime_s"],
            text(result, "started_at")
        ),
        format!("socket:   {}", text(result, "socket")),
        format!(
            "data:     {} ({} bytes, schema v{}){}",
            text(result, "data_file"),
            storage["file_bytes"],
            storage["schema_version"],
            if storage["writes_refused_for_space"] == true {
                format!(
                    "; THE DISK IS FULL ({} bytes free): {} until space is freed",
                    storage["free_bytes"],
                    if storage["read_only"] == true {
                        "open read-only, writes are refused"
                    } else {
                        "writes are refused"
                    }
                )
            } else {
                String::new()
            }
        ),
        format!("config:   {}", text(result, "config")),
        format!("tasks:    {}", counts.join(", ")),
        format!(
            "commits:  {} for {} writes (largest group {}, group commit {}); {} in the journal only, {} replayed at start",
            storage["commits"],
            storage["writes"],
            storage["largest_group"],
            storage["group_commit"],
            storage["journal_records"],
            storage["replayed_writes"]
        ),
        format!("pixels:   {}", text(&result["waits"], "pixels")),
        stuck_line(&result["stuck"]),
        recall_line(&result["recall"]),
        format!(
            "wakes:    {} pending, {} dead, {} refused; {} not taken, {} reminded; sinks: {}",
            result["wake"]["pending"],
            result["wake"]["dead"],
            result["wake"]["rejected"],
            result["wake"]["not_taken"],
            result["wake"]["reminded"],
            result["wake"]["sinks"]
                .as_array()
                .filter(|sinks| !sinks.is_empty())
                .map(|sinks| sinks
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "))
                .unwrap_or_else(|| "none (subscribers only)".to_owned())
        ),
    ]
    .into_iter()
    .chain(
        result["wake"]["sink_states"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(sink, state)| format!("  {sink}: {}", state.as_str().unwrap_or_default())),
    )
    .collect::<Vec<_>>()
    .join("\n")
}

fn recall_line(recall: &Value) -> String {
    let mode = text(recall, "mode");
    if mode == "off" || mode.is_empty() {
        return "screen:   recording off ([recall] mode)".to_owned();
    }
    let mut line = format!(
        "screen:   {} (mode {}): {}; {} segments, {} OCR runs, {} redactions, {} keyframe bytes",
        text(recall, "state"),
        mode,
        text(recall, "reason"),
        recall["segments"],
        recall["ocr_runs"],
        recall["redactions"],
        recall["keyframe_bytes"]
    );
    let described = recall["procedures"].as_u64().unwrap_or(0);
    let failed = recall["procedure_failures"].as_u64().unwrap_or(0);
    if described + failed > 0 {
        line.push_str(&format!(
            "; {described} segments described by the model ({failed} failed, {} tokens)",
            recall["procedure_tokens"]
        ));
    }
    if let Some(error) = recall["last_error"].as_str() {
        line.push_str(&format!("; last error: {error}"));
    }
    line
}

fn stuck_line(stuck: &Value) -> String {
    if stuck["enabled"] != true {
        return "stuck:    detection off".to_owned();
    }
    format!(
        "stuck:    after {}s idle, scanned every {}s; {} scans, {} alerts",
        stuck["threshold_s"], stuck["scan_interval_s"], stuck["scans"], stuck["alerts"]
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn show_renders_a_checklist_a_bar_and_what_was_stored() {
        let step =
            |n: u32, text: &str, status: &str| json!({"step": n, "text": text, "status": status});
        let result = json!({
            "task_id": "t-7k2m9q", "name": "Deploy", "status": "active",
            "plan": [step(1, "Build", "done"), step(2, "Push", "done"), step(3, "SSH", "current"),
                     step(4, "Run", "todo"), step(5, "Verify", "todo")],
            "plan_progress": {"completed": [1, 2], "current": 3, "remaining": [4, 5], "pct": 40},
            "metadata": {"repo": "coursefolio", "active_wait_ids": [], "last_wait_state": null},
            "plan_revisions": [{"revision": 1, "at": "2026-02-13T17:10:00Z", "author": "agent", "reason": "needs SSH"}],
            "waits": [{"wait_id": "w-4hx8", "status": "watching", "target": "pty:s-1", "wake_when": "\"DONE\""}],
            "last_update": "2026-02-13T17:15:00Z", "message": "Task t-7k2m9q is active."
        });
        let text = task_show(&result);
        assert!(
            text.contains("[████████░░░░░░░░░░░░] 40%  2 of 5 steps done"),
            "{text}"
        );
        assert!(
            text.contains("  ✓ 2. Push\n  ▶ 3. SSH\n  ○ 4. Run"),
            "{text}"
        );
        assert!(
            text.contains("Metadata: {\"repo\":\"coursefolio\"}\n"),
            "{text}"
        );
        assert!(
            text.contains("Plan revision 1 (2026-02-13T17:10:00Z, agent): needs SSH"),
            "{text}"
        );
        assert!(
            text.contains("Wait w-4hx8 watching: pty:s-1 — \"DONE\""),
            "{text}"
        );
        assert!(text.ends_with("Task t-7k2m9q is active."), "{text}");
    }

    #[test]
    fn a_numbered_plan_is_numbered_once_in_the_checklist() {
        let text = checklist(
            &json!(["1. Build", "2) Push", "Step 3: Verify"]),
            &json!({"completed": [1], "current": 2}),
            &Value::Null,
        );
        assert_eq!(text, "  ✓ 1. Build\n  ▶ 2. Push\n  ○ 3. Verify");
    }

    #[test]
    fn a_query_prints_its_window_and_the_messages_that_answer_it() {
        let result = json!({
            "task_id": "t-7k2m9q", "name": "Deploy", "status": "active",
            "plan": [{"step": 41, "text": "Push", "status": "current"}],
            "plan_not_shown": {"done": "1-40", "todo": "42-100"},
            "plan_progress": {"completed": (1..=40).collect::<Vec<u32>>(), "current": 41,
                              "remaining": (42..=100).collect::<Vec<u32>>(), "pct": 40},
            "relevant_messages": [{"seq": 4, "role": "agent", "msg_type": "text",
                "content": "pushed ghcr.io/alex/coursefolio:v1.2.3", "created_at": "2026-02-13T17:15:00Z"}],
            "message": "Next: step 41, Push."
        });
        let text = task_answer(&result);
        assert!(text.contains("40 of 100 steps done"), "{text}");
        assert!(
            text.contains("  ✓ steps 1-40 done\n  ▶ 41. Push\n  ○ steps 42-100 not shown"),
            "{text}"
        );
        assert!(
            text.ends_with("Relevant messages:\n  #4 2026-02-13T17:15:00Z agent: pushed ghcr.io/alex/coursefolio:v1.2.3"),
            "{text}"
        );
    }

    #[test]
    fn bars_round_and_clamp() {
        assert_eq!(progress_bar(0), format!("[{}] 0%", "░".repeat(20)));
        assert_eq!(progress_bar(100), format!("[{}] 100%", "█".repeat(20)));
        assert!(progress_bar(33).starts_with("[███████░"));
    }

    #[test]
    fn the_screen_line_says_what_the_model_described_once_it_did() {
        let mut recall = json!({"mode": "always", "state": "capturing", "reason": "recording",
            "segments": 3, "ocr_runs": 9, "redactions": 0, "keyframe_bytes": 1000,
            "procedures": 0, "procedure_failures": 0, "procedure_tokens": 0, "last_error": null});
        assert!(
            !recall_line(&recall).contains("described"),
            "{}",
            recall_line(&recall)
        );
        recall["procedures"] = json!(2);
        recall["procedure_failures"] = json!(1);
        recall["procedure_tokens"] = json!(5400);
        let line = recall_line(&recall);
        assert!(
            line.contains("2 segments described by the model (1 failed, 5400 tokens)"),
            "{line}"
        );
    }
}
