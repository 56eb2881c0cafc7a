//! The task requests and replies, and the validated values they are made of.
//!
//! The edge validates each parameter once, into these types; past that point a `Plan` is
//! known to have 1–100 sensible steps and nobody checks again.

use std::collections::BTreeSet;

use storage::{MessageRecord, Status, TaskId, TaskRecord};

use crate::error::CallError;
use crate::tasks::plan::PlanProgress;

pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_STEPS: usize = 100;
pub const MAX_STEP_CHARS: usize = 500;
pub const MAX_METADATA_BYTES: usize = 16 * 1024;
pub const MAX_MESSAGE_CHARS: usize = 32 * 1024;
pub const MAX_QUERY_CHARS: usize = 2_000;
pub const MAX_REASON_CHARS: usize = 2_000;
pub const MAX_KEY_CHARS: usize = 200;

/// A task name: not blank, at most [`MAX_NAME_CHARS`] characters, trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskName(String);

impl TaskName {
    pub fn new(name: &str) -> Result<Self, CallError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(CallError::invalid(
                "name is blank",
                "give the task a short human-readable name, e.g. \"Deploy coursefolio to production\"",
            ));
        }
        let chars = name.chars().count();
        if chars > MAX_NAME_CHARS {
            return Err(CallError::invalid(
                format!("name is {chars} characters long"),
                format!(
                    "keep the name under {MAX_NAME_CHARS} characters; put details in the plan or metadata"
                ),
            ));
        }
        Ok(Self(name.to_owned()))
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// A plan: 1–[`MAX_STEPS`] steps, none blank, each at most [`MAX_STEP_CHARS`] characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan(Vec<String>);

impl Plan {
    pub fn new(steps: &[String]) -> Result<Self, CallError> {
        if steps.is_empty() {
            return Err(CallError::invalid(
                "plan is empty",
                "give the plan as an ordered list of 1 to 100 steps, e.g. [\"Build image\", \"Push\", \"Deploy\"]",
            ));
        }
        if steps.len() > MAX_STEPS {
            return Err(CallError::invalid(
                format!("plan has {} steps", steps.len()),
                format!("a plan holds at most {MAX_STEPS} steps; group small steps together"),
            ));
        }
        let mut trimmed = Vec::with_capacity(steps.len());
        for (index, step) in steps.iter().enumerate() {
            let step = step.trim();
            if step.is_empty() {
                return Err(CallError::invalid(
                    format!("plan step {} is blank", index + 1),
                    "every step needs a few words saying what it is; remove empty entries",
                ));
            }
            let chars = step.chars().count();
            if chars > MAX_STEP_CHARS {
                return Err(CallError::invalid(
                    format!("plan step {} is {chars} characters long", index + 1),
                    format!("keep each step under {MAX_STEP_CHARS} characters"),
                ));
            }
            trimmed.push(step.to_owned());
        }
        Ok(Self(trimmed))
    }

    pub fn steps(&self) -> &[String] {
        &self.0
    }

    pub fn into_steps(self) -> Vec<String> {
        self.0
    }
}

/// Seed 004 §4's wait linkage keys: lookout keeps them, and `task_get` shows them in the
/// task's metadata, so the caller's metadata may not use them.
pub const LINKAGE_KEYS: [&str; 3] = ["active_wait_ids", "last_wait_event_at", "last_wait_state"];

/// The metadata key by which a task sets its own stuck threshold (seconds, at least 1).
pub const STUCK_THRESHOLD_KEY: &str = "stuck_threshold_s";

/// The caller's metadata: a JSON object of at most [`MAX_METADATA_BYTES`], kept as text,
/// and the per-task stuck threshold read out of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metadata {
    json: String,
    stuck_threshold_s: Option<u64>,
}

impl Metadata {
    pub fn empty() -> Self {
        Self {
            json: "{}".to_owned(),
            stuck_threshold_s: None,
        }
    }

    pub fn new(value: &serde_json::Value) -> Result<Self, CallError> {
        if !value.is_object() {
            return Err(CallError::invalid(
                "metadata must be a JSON object",
                "pass key-value pairs, e.g. {\"repo\": \"coursefolio\", \"branch\": \"main\"}",
            ));
        }
        if let Some(key) = LINKAGE_KEYS.iter().find(|key| value.get(**key).is_some()) {
            return Err(CallError::invalid(
                format!("metadata.{key} is lookout's to keep"),
                format!(
                    "leave {} out of metadata: lookout keeps them for the task's waits (task_get \
                     shows them in its metadata); name your own key differently",
                    LINKAGE_KEYS.join(", ")
                ),
            ));
        }
        let text = value.to_string();
        if text.len() > MAX_METADATA_BYTES {
            return Err(CallError::too_large(
                format!("metadata is {} bytes", text.len()),
                format!(
                    "keep metadata under {} KiB; store large data in a file and name its path",
                    MAX_METADATA_BYTES / 1024
                ),
            ));
        }
        let stuck_threshold_s = match value.get(STUCK_THRESHOLD_KEY) {
            None => None,
            Some(seconds) => Some(seconds.as_u64().filter(|s| *s >= 1).ok_or_else(|| {
                CallError::invalid(
                    format!("metadata.{STUCK_THRESHOLD_KEY} is {seconds}"),
                    format!(
                        "{STUCK_THRESHOLD_KEY} is this task's stuck threshold: a whole number of seconds, at least 1"
                    ),
                )
            })?),
        };
        Ok(Self {
            json: text,
            stuck_threshold_s,
        })
    }

    pub fn as_json(&self) -> &str {
        &self.json
    }

    pub fn stuck_threshold_s(&self) -> Option<u64> {
        self.stuck_threshold_s
    }
}

/// Checks a free-text field against its limit; `what` names it in the error.
pub fn bounded_text(what: &str, text: &str, max_chars: usize) -> Result<String, CallError> {
    let chars = text.chars().count();
    if chars > max_chars {
        return Err(CallError::too_large(
            format!("{what} is {chars} characters long"),
            format!(
                "keep {what} under {max_chars} characters; put long output in a file and mention its path"
            ),
        ));
    }
    Ok(text.to_owned())
}

#[derive(Clone, Debug)]
pub struct RegisterTask {
    pub name: TaskName,
    pub plan: Plan,
    pub metadata: Metadata,
    pub session_key: Option<String>,
    pub agent_id: Option<String>,
    /// The agent session and folder it was registered from, when the client knew them.
    pub origin: Option<storage::Origin>,
}

/// A replacement plan and why.
#[derive(Clone, Debug)]
pub struct PlanChange {
    pub new_plan: Plan,
    pub reason: Option<String>,
}

/// `task_update`: any mix of a note, a status, a plan revision, explicit progress, a query.
#[derive(Clone, Debug, Default)]
pub struct UpdateTask {
    pub message: Option<String>,
    pub query: Option<String>,
    pub status: Option<Status>,
    pub plan: Option<PlanChange>,
    pub completed_steps: BTreeSet<u32>,
    pub current_step: Option<u32>,
}

impl UpdateTask {
    /// Whether the call changes anything (a query alone does not).
    pub fn changes_something(&self) -> bool {
        self.message.is_some()
            || self.status.is_some()
            || self.plan.is_some()
            || !self.completed_steps.is_empty()
            || self.current_step.is_some()
    }
}

/// What an update did, for the reply and its message.
#[derive(Clone, Debug, Default)]
pub struct UpdateEffects {
    /// Steps newly marked done by this call.
    pub newly_completed: Vec<u32>,
    pub status_change: Option<(Status, Status)>,
    pub revision: Option<PlanRevised>,
    /// The explicit current step changed to this.
    pub current_step_set: Option<u32>,
    /// Steps past the plan's end that the message reported done (nothing marked for them).
    pub beyond_plan: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct TaskUpdated {
    pub task: TaskRecord,
    /// The call changed something (a query alone does not).
    pub changed: bool,
    pub progress: PlanProgress,
    pub effects: UpdateEffects,
    /// Present when the call carried a query.
    pub report: Option<TaskReport>,
}

/// The answer to "where am I?".
#[derive(Clone, Debug)]
pub struct TaskReport {
    pub task: TaskRecord,
    /// The question asked, to cut long messages around the words that answer it.
    pub query: String,
    pub progress: PlanProgress,
    pub summary: String,
    /// The thread messages most relevant to the query, best first.
    pub relevant_messages: Vec<(u64, MessageRecord)>,
    /// One line: what to do next.
    pub next: String,
    /// What still runs for the task (filled in by the tree, which sees the sessions).
    pub inventory: Inventory,
}

/// What still runs for a task, for an agent whose context was wiped: its waits still
/// watching and the terminal sessions started for it that still run.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    /// Oldest first.
    pub waits: Vec<storage::WaitRecord>,
    /// Oldest first.
    pub sessions: Vec<RunningSession>,
    /// This run's wakes of the task nobody asked about since (reminders aside), newest
    /// first.
    pub wakes: Vec<storage::EventRecord>,
    /// When it was taken, to say how long each has been running.
    pub at: storage::Timestamp,
}

/// A terminal session still running for a task.
#[derive(Clone, Debug)]
pub struct RunningSession {
    pub id: String,
    pub command: String,
    pub step: Option<u32>,
    pub started_at: storage::Timestamp,
    /// The newest non-blank line of its output.
    pub last_line: Option<String>,
}

/// A stored plan revision and how completion marks carried over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanRevised {
    pub revision: u32,
    pub reason: String,
    /// New step numbers whose completion was kept.
    pub kept_completed: Vec<u32>,
    /// Old step numbers (and texts) whose completion was dropped: their text changed.
    pub dropped_completed: Vec<(u32, String)>,
}

#[derive(Clone, Debug)]
pub struct PlanUpdated {
    pub task: TaskRecord,
    pub progress: PlanProgress,
    pub revised: PlanRevised,
}

#[derive(Clone, Debug)]
pub struct TaskListing {
    pub tasks: Vec<TaskRecord>,
    pub more: bool,
}

/// One task whole, for `task_get`.
#[derive(Clone, Debug)]
pub struct TaskDetail {
    pub task: TaskRecord,
    /// Oldest first.
    pub revisions: Vec<storage::PlanRevisionRecord>,
    /// The waits the task launched, live or ended.
    pub waits: Vec<storage::WaitRecord>,
    /// What still runs for it.
    pub inventory: Inventory,
}

#[derive(Clone, Debug)]
pub struct ThreadPage {
    pub task_id: TaskId,
    pub messages: Vec<(u64, MessageRecord)>,
    pub total: u64,
}
