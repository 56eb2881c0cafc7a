//! The task results: registration, updates, "where am I?", plan revisions, the list, a
//! thread page and one task whole.
//!
//! The answers that grow with a task — the query answer, the thread, the list and
//! `task_get` — are built at their most generous and shrunk until they fit their byte budget
//! (`max_bytes`, with a default per call). Each says in its `message` what it left out and
//! which call returns it whole, so an agent whose context was just compacted gets what it
//! needs first and knows where the rest is.

use actors::budget::{self, Shrinkable, items_that_fit, json_bytes, lower};
use actors::tasks::plan::{PlanProgress, PlanWindow, step_ranges};
use actors::tasks::relevance::Excerpt;
use actors::tasks::report;
use actors::tasks::transition::progress_of;
use actors::tasks::types::{
    Inventory, PlanRevised, PlanUpdated, TaskDetail, TaskListing, TaskReport, TaskUpdated,
    ThreadPage,
};
use actors::words::{count, shorten};
use serde_json::{Map, Value, json};
use storage::{
    ListCursor, MessageRecord, StatusFilter, StepProof, TaskRecord, Timestamp, WaitRecord,
};

use super::{message, plan_progress, wait_linkage};
use crate::tools::limits::*;

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

/// The result of `task_update`: the update shape, or the query answer (within `max_bytes`)
/// when it asked.
pub fn updated(updated: &TaskUpdated, max_bytes: usize) -> Value {
    let mut result = match &updated.report {
        Some(answer) => {
            let mut result = query_answer(answer, max_bytes);
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
    };
    // A new plan says what became of the done marks, as task_plan_update's reply does.
    if let Some(revised) = &updated.effects.revision {
        result["revision"] = json!(revised.revision);
        result["kept_completed"] = json!(revised.kept_completed);
        result["dropped_completed"] = json!(dropped_steps(revised));
    }
    result
}

/// The old numbers of the done steps a revision dropped.
fn dropped_steps(revised: &PlanRevised) -> Vec<u32> {
    revised
        .dropped_completed
        .iter()
        .map(|(step, _)| *step)
        .collect()
}

pub fn plan_updated(updated: &PlanUpdated) -> Value {
    let revised = &updated.revised;
    json!({
        "task_id": updated.task.id.as_str(),
        "revision": revised.revision,
        "plan": updated.task.plan,
        "kept_completed": revised.kept_completed,
        "dropped_completed": dropped_steps(revised),
        "plan_progress": plan_progress(&updated.progress),
        "message": report::plan_revised_message(revised, &updated.progress, &updated.task),
    })
}

// ---- steps as answers show them ----

/// One plan step: `{"step": 3, "text": "…", "status": "current"}`, with `"chars"` (its full
/// length) when the text was shortened to `max_chars`; a done step says how it was
/// established: `"evidence": "verified"` or `"claimed"`, and `"proof"` in a few words.
fn step_entry(task: &TaskRecord, progress: &PlanProgress, step: u32, max_chars: usize) -> Value {
    let text = task.plan.get(step as usize - 1).map_or("", String::as_str);
    let status = if progress.completed.binary_search(&step).is_ok() {
        "done"
    } else if progress.current == Some(step) {
        "current"
    } else {
        "todo"
    };
    let mut entry = json!({"step": step, "text": shorten(text, max_chars), "status": status});
    let chars = text.chars().count();
    if chars > max_chars {
        entry["chars"] = json!(chars);
    }
    if status == "done" {
        let claimed = StepProof::Claimed { note: None };
        let proof = task
            .step_evidence
            .get(&step)
            .map_or(&claimed, |evidence| &evidence.proof);
        entry["evidence"] = json!(proof.kind());
        entry["proof"] = json!(report::proof_text(proof));
    }
    entry
}

// ---- what still runs for a task ----

/// A task's live waits and running sessions, each with the call that continues it, at most
/// `keep` of each (the newest). What is left out is counted.
fn inventory(inventory: &Inventory, keep: usize) -> Value {
    let seconds_since = |at: Timestamp| inventory.at.0.saturating_sub(at.0) / 1000;
    let newest = |len: usize| len.saturating_sub(keep);
    let waits: Vec<Value> = inventory.waits[newest(inventory.waits.len())..]
        .iter()
        .map(|wait| {
            json!({
                "wait_id": wait.id.as_str(),
                "target": shorten(&wait.target, 80),
                "wake_when": shorten(&wait.condition, 120),
                "step": wait.step,
                "running_for_s": seconds_since(wait.started_at),
                "last_observation": wait.last_observation.as_deref().map(|text| shorten(text, 120)),
                "continue": format!("wait_status(wait_id: \"{}\")", wait.id),
            })
        })
        .collect();
    let sessions: Vec<Value> = inventory.sessions[newest(inventory.sessions.len())..]
        .iter()
        .map(|session| {
            json!({
                "session_id": session.id,
                "command": shorten(&session.command, 80),
                "step": session.step,
                "running_for_s": seconds_since(session.started_at),
                "last_line": session.last_line.as_deref().map(|text| shorten(text, 120)),
                "continue": format!("term_read(session_id: \"{}\")", session.id),
            })
        })
        .collect();
    let wakes: Vec<Value> = inventory
        .wakes
        .iter()
        .take(keep)
        .map(|event| {
            let next = match (&event.wait_id, &event.task_id) {
                (Some(wait), _) => format!("wait_status(wait_id: \"{wait}\")"),
                (None, Some(task)) => format!("task_update(task_id: \"{task}\", query: …)"),
                (None, None) => "events.subscribe".to_owned(),
            };
            json!({
                "event_id": event.id(),
                "kind": event.kind.as_str(),
                "ago_s": seconds_since(event.created_at),
                "text": shorten(&event.text, 240),
                "continue": next,
            })
        })
        .collect();
    let mut result = json!({"waits": waits, "sessions": sessions, "wakes_not_taken": wakes});
    let left_out = newest(inventory.waits.len())
        + newest(inventory.sessions.len())
        + newest(inventory.wakes.len());
    if left_out > 0 {
        result["not_shown"] = json!(format!(
            "{} more: wait_status(task_id) lists every live wait, task_get the sessions",
            left_out
        ));
    }
    result
}

/// One sentence on what still runs, for a reply's `message`; empty when nothing does.
fn inventory_sentence(inventory: &Inventory) -> String {
    let (waits, sessions) = (inventory.waits.len(), inventory.sessions.len());
    let untaken = match inventory.wakes.len() {
        0 => String::new(),
        n => format!(
            " {} of this task came while you were away and nobody asked about {} since \
             (inventory.wakes_not_taken).",
            count(n as u64, "wake", None),
            if n == 1 { "it" } else { "them" }
        ),
    };
    if waits + sessions == 0 {
        return untaken;
    }
    let mut parts = Vec::new();
    if waits > 0 {
        parts.push(format!(
            "{} still watching",
            count(waits as u64, "wait", None)
        ));
    }
    if sessions > 0 {
        parts.push(format!(
            "{} still running",
            count(sessions as u64, "terminal session", None)
        ));
    }
    format!(
        " {} for this task (inventory): continue them, do not start them again.{untaken}",
        parts.join(" and ")
    )
}

// ---- "where am I?" ----

/// One thing a query answer gives up when it does not fit, in the order given up.
#[derive(Clone, Copy)]
enum Give {
    /// Each relevant message cut to this many characters around the words that matched.
    MessageChars(usize),
    /// The plan shows this many steps from the current one.
    Window(usize),
    /// Each shown step cut to this many characters.
    StepChars(usize),
    /// The least relevant message goes, down to this many.
    DropMessages(usize),
    /// The inventory lists this many waits and as many sessions (the newest).
    Inventory(usize),
}

const QUERY_GIVE_UP: &[Give] = &[
    Give::MessageChars(8_000),
    Give::Window(20),
    Give::MessageChars(4_000),
    Give::StepChars(300),
    Give::MessageChars(2_000),
    Give::Window(10),
    Give::MessageChars(1_000),
    Give::StepChars(160),
    Give::Window(6),
    Give::MessageChars(600),
    Give::StepChars(100),
    Give::Window(4),
    Give::MessageChars(400),
    Give::MessageChars(300),
    Give::Window(3),
    Give::StepChars(60),
    Give::DropMessages(2),
    Give::MessageChars(200),
    Give::Window(2),
    Give::DropMessages(1),
    Give::Window(1),
    Give::MessageChars(120),
    Give::DropMessages(0),
    Give::Inventory(3),
    Give::Inventory(1),
];

/// A query answer at some stage of giving up.
struct QueryAnswer<'a> {
    answer: &'a TaskReport,
    /// Each relevant message, matched against the query once, in the report's order.
    excerpts: Vec<Excerpt>,
    max_bytes: usize,
    window: usize,
    step_chars: usize,
    message_chars: usize,
    messages: usize,
    inventory: usize,
    next: usize,
}

impl QueryAnswer<'_> {
    /// What was left out and where to get it, or nothing when the answer is whole.
    fn left_out(&self, window: &PlanWindow) -> Option<String> {
        let task = &self.answer.task;
        let relevant = &self.answer.relevant_messages;
        let mut parts = Vec::new();
        if !window.is_whole() {
            parts.push(format!(
                "the plan shows steps {}-{} of {}",
                window.shown.start(),
                window.shown.end(),
                task.plan.len()
            ));
        }
        let shown = window.shown.clone();
        if task.plan[*shown.start() as usize - 1..*shown.end() as usize]
            .iter()
            .any(|step| step.chars().count() > self.step_chars)
        {
            parts.push(format!("steps cut to {} characters", self.step_chars));
        }
        let cut = self
            .excerpts
            .iter()
            .take(self.messages)
            .filter(|excerpt| excerpt.len() > self.message_chars)
            .count();
        if cut > 0 {
            parts.push(format!(
                "{} cut around the words that matched",
                count(cut as u64, "message", None)
            ));
        }
        let dropped = relevant.len().saturating_sub(self.messages);
        if dropped > 0 {
            parts.push(format!(
                "{} left out",
                count(dropped as u64, "less relevant message", None)
            ));
        }
        if parts.is_empty() {
            return None;
        }
        Some(format!(
            "To fit {} bytes, {}. task_get returns the whole plan; task_thread(before: seq + 1, \
             limit: 1, max_bytes: {MAX_ANSWER_BYTES}) reads one message whole; or ask again with \
             max_bytes up to {MAX_ANSWER_BYTES}.",
            self.max_bytes,
            parts.join(", ")
        ))
    }
}

impl Shrinkable for QueryAnswer<'_> {
    fn render(&self) -> Value {
        let answer = self.answer;
        let task = &answer.task;
        let window = PlanWindow::new(task.plan.len(), &answer.progress, self.window);
        let plan: Vec<Value> = window
            .shown
            .clone()
            .map(|step| step_entry(task, &answer.progress, step, self.step_chars))
            .collect();
        let mut kept: Vec<(&(u64, MessageRecord), &Excerpt)> = answer
            .relevant_messages
            .iter()
            .zip(&self.excerpts)
            .take(self.messages)
            .collect();
        kept.sort_by_key(|((seq, _), _)| *seq);
        let relevant: Vec<Value> = kept
            .into_iter()
            .map(|((seq, m), excerpt)| {
                let mut entry = message(*seq, m);
                if excerpt.len() > self.message_chars {
                    entry["content"] = json!(excerpt.cut(self.message_chars));
                    entry["chars"] = json!(excerpt.len());
                }
                entry
            })
            .collect();
        let mut result = json!({
            "task_id": task.id.as_str(),
            "name": task.name,
            "status": task.status.as_str(),
            "summary": answer.summary,
            "plan": plan,
            "plan_progress": plan_progress(&answer.progress),
            "last_update": task.updated_at.to_rfc3339(),
            "relevant_messages": relevant,
            "wait": wait_linkage(task),
            "inventory": inventory(&answer.inventory, self.inventory),
            "message": format!("{}{}", answer.next, inventory_sentence(&answer.inventory)),
        });
        if !window.is_whole() {
            result["plan_not_shown"] = json!({
                "done": step_ranges(&window.hidden_done),
                "todo": step_ranges(&window.hidden_open),
            });
        }
        if let Some(note) = self.left_out(&window) {
            result["message"] = json!(format!(
                "{}{} {note}",
                answer.next,
                inventory_sentence(&answer.inventory)
            ));
        }
        result
    }

    fn at_least(&self) -> usize {
        let answer = self.answer;
        let window = PlanWindow::new(answer.task.plan.len(), &answer.progress, self.window);
        let steps: usize = window
            .shown
            .map(|step| {
                let text = &answer.task.plan[step as usize - 1];
                text.len().min(self.step_chars)
            })
            .sum();
        let messages: usize = self
            .excerpts
            .iter()
            .take(self.messages)
            .map(|excerpt| excerpt.len().min(self.message_chars))
            .sum();
        // An excerpt cut at word boundaries may come out shorter than its limit: count half.
        steps + messages / 2
    }

    fn shrink(&mut self) -> bool {
        while let Some(give) = QUERY_GIVE_UP.get(self.next) {
            self.next += 1;
            let gave = match *give {
                Give::MessageChars(n) => lower(&mut self.message_chars, n),
                Give::Window(n) => lower(&mut self.window, n),
                Give::StepChars(n) => lower(&mut self.step_chars, n),
                Give::DropMessages(n) => lower(&mut self.messages, n),
                Give::Inventory(n) => lower(&mut self.inventory, n),
            };
            if gave {
                return true;
            }
        }
        false
    }
}

/// The answer to "where am I?" within `max_bytes`: the summary, the plan around the current
/// step and the messages that answer the question, shortened around the words that matched.
fn query_answer(answer: &TaskReport, max_bytes: usize) -> Value {
    let mut shaped = QueryAnswer {
        answer,
        excerpts: answer
            .relevant_messages
            .iter()
            .map(|(_, m)| Excerpt::new(&answer.query, &m.content))
            .collect(),
        max_bytes,
        window: usize::MAX,
        step_chars: usize::MAX,
        message_chars: usize::MAX,
        messages: answer.relevant_messages.len(),
        inventory: usize::MAX,
        next: 0,
    };
    match budget::fit(&mut shaped, max_bytes) {
        Some((value, _)) => value,
        None => {
            let task = &answer.task;
            json!({
                "task_id": task.id.as_str(),
                "name": shorten(&task.name, 80),
                "status": task.status.as_str(),
                "plan_progress": plan_progress(&answer.progress),
                "message": format!(
                    "{} The answer does not fit {max_bytes} bytes; ask again with a larger max_bytes.",
                    shorten(&answer.next, 200)
                ),
            })
        }
    }
}

// ---- the list ----

/// `task_list`: up to `limit` tasks, as many as fit `max_bytes`, with a cursor to the rest.
pub fn task_list(
    listing: &TaskListing,
    filter: &StatusFilter,
    limit: usize,
    max_bytes: usize,
) -> Value {
    let items: Vec<Value> = listing.tasks.iter().map(list_entry).collect();
    let which = match filter {
        StatusFilter::Only(status) => format!("{status} "),
        StatusFilter::All => String::new(),
    };
    let render = |shown: usize| {
        let more = listing.more || shown < items.len();
        let message = match (shown, more) {
            (0, false) => format!("No {which}tasks."),
            (n, false) => format!("{}.", count(n as u64, &format!("{which}task"), None)),
            (n, true) => {
                let newest = match n {
                    1 => format!("The most recently updated {which}task"),
                    n => format!("The {n} most recently updated {which}tasks"),
                };
                let raise = if shown < items.len() {
                    format!("max_bytes (now {max_bytes}, up to {MAX_ANSWER_BYTES})")
                } else {
                    format!("limit (now {limit}, max 1000)")
                };
                format!(
                    "{newest}; more exist — pass next_cursor as cursor for the next page, or raise {raise}."
                )
            }
        };
        let mut result = json!({"tasks": &items[..shown], "message": message});
        if more && shown > 0 {
            result["next_cursor"] = json!(ListCursor::after(&listing.tasks[shown - 1]).encode());
        }
        result
    };
    let shown = fitting_prefix(&items, max_bytes, render(0).to_string().len() + 400);
    fit_by_dropping(shown, max_bytes, render)
}

fn list_entry(task: &TaskRecord) -> Value {
    let progress = progress_of(task);
    let mut item = json!({
        "task_id": task.id.as_str(),
        "name": task.name,
        "status": task.status.as_str(),
        "plan_steps": task.plan.len(),
        "messages": task.message_count(),
        "progress_pct": progress.pct,
        "last_update": task.updated_at.to_rfc3339(),
    });
    // Only tasks registered through a client that knew its session carry one.
    if let Some(origin) = &task.origin {
        item["origin"] = json!({"session_id": origin.session_id, "cwd": origin.cwd});
    }
    item
}

/// How many of `items` fit `max_bytes` next to a frame of about `frame_bytes`.
fn fitting_prefix(items: &[Value], max_bytes: usize, frame_bytes: usize) -> usize {
    items_that_fit(items, max_bytes.saturating_sub(frame_bytes))
}

/// `render(shown)`, dropping one more item while it does not fit (the estimate that chose
/// `shown` leaves room, so this rarely loops), down to none.
fn fit_by_dropping(mut shown: usize, max_bytes: usize, render: impl Fn(usize) -> Value) -> Value {
    loop {
        let value = render(shown);
        if shown == 0 || json_bytes(&value) <= max_bytes {
            return value;
        }
        shown -= 1;
    }
}

// ---- the thread ----

/// Content lengths a thread page tries, most generous first, before it drops old messages.
const THREAD_CONTENT_CHARS: &[usize] = &[usize::MAX, 8_000, 4_000, 2_000, 1_000];

/// `task_thread`: the page's messages within `max_bytes`. Long contents are shortened before
/// any message is dropped; then the oldest go, and the page says where to page back from.
pub fn thread(page: &ThreadPage, max_bytes: usize) -> Value {
    let entries = |limit: usize| -> Vec<Value> {
        page.messages
            .iter()
            .map(|(seq, m)| {
                let mut entry = message(*seq, m);
                let chars = m.content.chars().count();
                if chars > limit {
                    entry["content"] = json!(shorten(&m.content, limit));
                    entry["chars"] = json!(chars);
                }
                entry
            })
            .collect()
    };
    let frame = 600 + page.task_id.as_str().len();
    let mut chosen = None;
    for &limit in THREAD_CONTENT_CHARS {
        let items = entries(limit);
        if items_that_fit(&items, max_bytes.saturating_sub(frame)) == items.len() {
            chosen = Some((limit, items));
            break;
        }
    }
    let (limit, items) = chosen.unwrap_or_else(|| {
        let last = *THREAD_CONTENT_CHARS.last().expect("a ladder");
        (last, entries(last))
    });
    // Newest first: what stays when the oldest go.
    let newest_first: Vec<Value> = items.iter().rev().cloned().collect();
    let keep = items_that_fit(&newest_first, max_bytes.saturating_sub(frame)).max(1);
    let render = |kept: usize| {
        let shown = &items[items.len() - kept.min(items.len())..];
        thread_result(page, shown, limit, max_bytes)
    };
    fit_by_dropping(keep.min(items.len()), max_bytes, render)
}

fn thread_result(page: &ThreadPage, shown: &[Value], limit: usize, max_bytes: usize) -> Value {
    let seq = |entry: &Value| entry["seq"].as_u64().unwrap_or(0);
    let dropped = page.messages.len() - shown.len();
    let cut = shown
        .iter()
        .filter(|entry| entry.get("chars").is_some())
        .count();
    let mut message = match (shown.first(), shown.last()) {
        (Some(first), Some(last)) if seq(first) > 1 => format!(
            "Messages {}-{} of {}; page back with before: {}.",
            seq(first),
            seq(last),
            page.total,
            seq(first)
        ),
        (Some(_), Some(_)) => format!("{} of {} messages.", shown.len(), page.total),
        _ => format!(
            "No messages in this range; the thread has {}.",
            count(page.total, "message", None)
        ),
    };
    if cut > 0 || dropped > 0 {
        let mut parts = Vec::new();
        if cut > 0 {
            parts.push(format!(
                "{} shortened to {limit} characters (\"chars\" is the full length)",
                count(cut as u64, "message", None)
            ));
        }
        if dropped > 0 {
            parts.push(format!(
                "the {} older of the page left out",
                count(dropped as u64, "message", None)
            ));
        }
        message.push_str(&format!(
            " To fit {max_bytes} bytes, {}. Read one message whole with before: its seq + 1, \
             limit: 1 and max_bytes: {MAX_ANSWER_BYTES}, or raise max_bytes (up to {MAX_ANSWER_BYTES}).",
            parts.join(" and ")
        ));
    }
    json!({"task_id": page.task_id.as_str(), "messages": shown, "message": message})
}

// ---- one task whole ----

/// One thing `task_get` gives up when it does not fit, in the order given up.
#[derive(Clone, Copy)]
enum GiveDetail {
    /// Steps of the old and new plans of each revision cut to this many characters.
    RevisionSteps(usize),
    /// The old and new plans of revisions no longer listed, only their step counts.
    RevisionPlans,
    /// Only this many of the newest waits listed.
    Waits(usize),
    /// Each plan step cut to this many characters.
    StepChars(usize),
    /// Only this many of the newest revisions listed.
    Revisions(usize),
}

const DETAIL_GIVE_UP: &[GiveDetail] = &[
    GiveDetail::RevisionSteps(200),
    GiveDetail::RevisionSteps(60),
    GiveDetail::RevisionPlans,
    GiveDetail::Waits(20),
    GiveDetail::StepChars(300),
    GiveDetail::Revisions(10),
    GiveDetail::Waits(5),
    GiveDetail::StepChars(120),
    GiveDetail::Revisions(2),
    GiveDetail::StepChars(60),
    GiveDetail::Waits(0),
    GiveDetail::Revisions(0),
];

struct Detail<'a> {
    detail: &'a TaskDetail,
    max_bytes: usize,
    revision_steps: usize,
    revision_plans: bool,
    waits: usize,
    step_chars: usize,
    revisions: usize,
    next: usize,
}

/// The caller's metadata exactly as given, with the linkage keys of docs/contract.md §4 beside it.
fn metadata(task: &TaskRecord) -> Value {
    let mut fields: Map<String, Value> =
        serde_json::from_str(&task.metadata_json).unwrap_or_default();
    if let Value::Object(linkage) = wait_linkage(task) {
        fields.extend(linkage);
    }
    Value::Object(fields)
}

fn wait_entry(wait: &WaitRecord) -> Value {
    json!({
        "wait_id": wait.id.as_str(),
        "status": wait.state.as_str(),
        "target": wait.target,
        "wake_when": wait.condition,
        "created_at": wait.created_at.to_rfc3339(),
        "ended_at": wait.ended_at.map(|at| at.to_rfc3339()),
        "last_observation": wait.last_observation,
    })
}

impl Detail<'_> {
    fn left_out(&self) -> Option<String> {
        let detail = self.detail;
        let mut parts = Vec::new();
        if detail
            .task
            .plan
            .iter()
            .any(|s| s.chars().count() > self.step_chars)
        {
            parts.push(format!("steps cut to {} characters", self.step_chars));
        }
        let revisions = detail.revisions.len();
        if self.revisions < revisions {
            parts.push(format!(
                "only the newest {} of {} plan revisions listed",
                self.revisions, revisions
            ));
        }
        if !self.revision_plans && self.revisions > 0 {
            parts.push("revisions' plans given as step counts".to_owned());
        } else if self.revision_steps < usize::MAX && self.revisions > 0 {
            parts.push(format!(
                "revisions' steps cut to {} characters",
                self.revision_steps
            ));
        }
        if self.waits < detail.waits.len() {
            parts.push(format!(
                "only the newest {} of {} waits listed (wait_status gives any one)",
                self.waits,
                detail.waits.len()
            ));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "To fit {} bytes: {}; raise max_bytes (up to {MAX_TASK_GET_BYTES}) for all of it.",
                self.max_bytes,
                parts.join("; ")
            )
        })
    }
}

impl Shrinkable for Detail<'_> {
    fn render(&self) -> Value {
        let detail = self.detail;
        let task = &detail.task;
        let progress = progress_of(task);
        let plan: Vec<Value> = (1..=task.plan.len() as u32)
            .map(|step| step_entry(task, &progress, step, self.step_chars))
            .collect();
        let revision_plan = |steps: &[String]| -> Value {
            if self.revision_plans {
                json!(
                    steps
                        .iter()
                        .map(|s| shorten(s, self.revision_steps))
                        .collect::<Vec<_>>()
                )
            } else {
                json!(count(steps.len() as u64, "step", None))
            }
        };
        let skip = detail.revisions.len().saturating_sub(self.revisions);
        let revisions: Vec<Value> = detail.revisions[skip..]
            .iter()
            .map(|revision| {
                json!({
                    "revision": revision.revision,
                    "at": revision.created_at.to_rfc3339(),
                    "author": revision.author.as_str(),
                    "reason": revision.reason,
                    "old_plan": revision_plan(&revision.old_plan),
                    "new_plan": revision_plan(&revision.new_plan),
                })
            })
            .collect();
        let mut waits: Vec<&WaitRecord> = detail.waits.iter().collect();
        waits.sort_by_key(|wait| std::cmp::Reverse(wait.created_at));
        let waits: Vec<Value> = waits.into_iter().take(self.waits).map(wait_entry).collect();
        let live = detail.waits.iter().filter(|w| w.is_live()).count();
        let mut message = format!(
            "{} Task {} \"{}\" is {}: {} of {} done; {}; {} ({} watching). task_thread reads \
             its {}.",
            report::next_line(task, &progress),
            task.id.as_str(),
            shorten(&task.name, 80),
            task.status.as_str(),
            progress.completed.len(),
            count(task.plan.len() as u64, "step", None),
            count(u64::from(task.plan_revisions), "plan revision", None),
            count(detail.waits.len() as u64, "wait", None),
            live,
            count(task.message_count(), "message", None),
        );
        message.push_str(&inventory_sentence(&detail.inventory));
        if let Some(note) = self.left_out() {
            message.push(' ');
            message.push_str(&note);
        }
        let mut result = json!({
            "task_id": task.id.as_str(),
            "name": task.name,
            "status": task.status.as_str(),
            "session_key": task.session_key,
            "agent_id": task.agent_id,
            "created_at": task.created_at.to_rfc3339(),
            "last_update": task.updated_at.to_rfc3339(),
            "metadata": metadata(task),
            "plan": plan,
            "plan_progress": plan_progress(&progress),
            "plan_revisions": revisions,
            "waits": waits,
            "inventory": inventory(&detail.inventory, usize::MAX),
            "messages": task.message_count(),
            "message": message,
        });
        if let Some(origin) = &task.origin {
            result["origin"] = json!({"session_id": origin.session_id, "cwd": origin.cwd});
        }
        result
    }

    fn shrink(&mut self) -> bool {
        while let Some(give) = DETAIL_GIVE_UP.get(self.next) {
            self.next += 1;
            let gave = match *give {
                GiveDetail::RevisionSteps(n) => {
                    self.revision_plans && lower(&mut self.revision_steps, n)
                }
                GiveDetail::RevisionPlans => std::mem::replace(&mut self.revision_plans, false),
                GiveDetail::Waits(n) => lower(&mut self.waits, n),
                GiveDetail::StepChars(n) => lower(&mut self.step_chars, n),
                GiveDetail::Revisions(n) => lower(&mut self.revisions, n),
            };
            if gave {
                return true;
            }
        }
        false
    }
}

/// `task_get`: one task whole, within `max_bytes`.
pub fn task_detail(detail: &TaskDetail, max_bytes: usize) -> Value {
    let mut shaped = Detail {
        detail,
        max_bytes,
        revision_steps: usize::MAX,
        revision_plans: true,
        waits: detail.waits.len(),
        step_chars: usize::MAX,
        revisions: detail.revisions.len(),
        next: 0,
    };
    match budget::fit(&mut shaped, max_bytes) {
        Some((value, _)) => value,
        None => {
            let task = &detail.task;
            json!({
                "task_id": task.id.as_str(),
                "name": shorten(&task.name, 80),
                "status": task.status.as_str(),
                "message": format!(
                    "The task does not fit {max_bytes} bytes even shortened; ask again with a larger \
                     max_bytes (up to {MAX_TASK_GET_BYTES})."
                ),
            })
        }
    }
}
