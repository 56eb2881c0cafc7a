//! The vocabulary every layer shares: ids, statuses, message kinds, timestamps and the
//! stored records.
//!
//! Enums here are stored by variant index (postcard), so their variants are append-only:
//! never reorder or remove one, only add at the end.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::evidence::StepEvidence;

/// Milliseconds since the Unix epoch, UTC. Only the clock makes these.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Timestamp(pub u64);

impl Timestamp {
    pub const fn from_millis(millis: u64) -> Self {
        Self(millis)
    }

    pub const fn from_secs(secs: u64) -> Self {
        Self(secs * 1000)
    }

    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Whole seconds since the epoch: the unit of the `*_at` keys in task metadata.
    pub const fn as_secs(self) -> u64 {
        self.0 / 1000
    }

    pub fn saturating_add_millis(self, millis: u64) -> Self {
        Self(self.0.saturating_add(millis))
    }

    /// Milliseconds from `earlier` to `self`, zero when `earlier` is later.
    pub fn millis_since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// RFC 3339 in UTC with second precision, e.g. `2026-02-13T17:00:00Z`.
    pub fn to_rfc3339(self) -> String {
        self.rfc3339().to_string()
    }

    /// The same, to write into a longer text (a JSON answer) without a string of its own.
    pub const fn rfc3339(self) -> Rfc3339 {
        Rfc3339(self)
    }

    /// Parses what [`Timestamp::to_rfc3339`] writes (`YYYY-MM-DDTHH:MM:SSZ`, fractions and
    /// `+00:00` accepted), for tests and the ManualClock's start time.
    pub fn parse_rfc3339(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || bytes[13] != b':' {
            return None;
        }
        let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<u64>().ok();
        let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
        let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
            return None;
        }
        let mut rest = &text[19..];
        let mut millis = 0;
        if let Some(fraction) = rest.strip_prefix('.') {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            let padded = format!("{:0<3}", &fraction[..digits.min(3)]);
            millis = padded.parse::<u64>().ok()?;
            rest = &fraction[digits..];
        }
        if rest != "Z" && rest != "+00:00" {
            return None;
        }
        let days = days_from_civil(year as i64, month as u32, day as u32);
        let secs = u64::try_from(days).ok()? * 86_400 + hour * 3600 + minute * 60 + second;
        Some(Self(secs * 1000 + millis))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

// Howard Hinnant's civil-calendar algorithms (public domain), for the proleptic Gregorian
// calendar; they save a date-time dependency for two conversions.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = year - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// A task's id, e.g. `t-7k2m9q`. Made by [`TaskId::from_sequence`]; any text a client sends
/// is looked up as is (an unknown id is simply not found).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TaskId(String);

/// Ids are `t-` plus six base-36 digits: a bijective scramble of a counter, so they look
/// random, never collide and replay the same from the same history.
const ID_SPACE: u64 = 36u64.pow(6);
const ID_MULTIPLIER: u64 = 2_654_435_761; // prime, so coprime with 36^6: a bijection
const ID_OFFSET: u64 = 1_234_567_891;

impl TaskId {
    pub const PREFIX: &'static str = "t-";

    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The id of the `sequence`-th task (unique for the first 36^6 tasks).
    pub fn from_sequence(sequence: u64) -> Self {
        Self(format!("{}{}", Self::PREFIX, scrambled_base36(sequence)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A random start for a new database's id sequences, below 36^6 (from the OS's randomness
/// through std's hasher seeds: unpredictable enough for ids that need only differ).
pub(crate) fn random_id_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(u64::from(std::process::id()));
    hasher.finish() % ID_SPACE
}

/// The `sequence`-th id of a database whose ids start at `seed` (see `Counter::IdSeed`).
pub fn seeded(sequence: u64, seed: u64) -> u64 {
    (sequence % ID_SPACE + seed % ID_SPACE) % ID_SPACE
}

/// The `sequence`-th wait id of a database whose ids start at `seed`: half the id space
/// away from its tasks, so the first wait does not read as if it belonged to the first task
/// (`t-mmx8li`, `w-mmx8li`). A database from before this offset never reuses an id: its
/// waits would need to number half the space first.
pub fn seeded_wait(sequence: u64, seed: u64) -> u64 {
    seeded(sequence, seed % ID_SPACE + ID_SPACE / 2)
}

/// Six base-36 digits that look random but are unique per `sequence` below 36^6.
pub fn scrambled_base36(sequence: u64) -> String {
    let mut value = ((sequence % ID_SPACE) * ID_MULTIPLIER + ID_OFFSET) % ID_SPACE;
    let mut digits = [b'0'; 6];
    for slot in digits.iter_mut().rev() {
        *slot = b"0123456789abcdefghijklmnopqrstuvwxyz"[(value % 36) as usize];
        value /= 36;
    }
    String::from_utf8_lossy(&digits).into_owned()
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A task's lifecycle state (docs/contract.md §1). Stored by variant index: append only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Status {
    Active,
    Paused,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Active,
        Status::Paused,
        Status::Completed,
        Status::Failed,
        Status::Cancelled,
    ];

    /// Accepts the five names and the alias `canceled`, case-insensitively.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "active" => Some(Self::Active),
            "paused" => Some(Self::Paused),
            "completed" => Some(Self::Completed),
            "failed" => Some(Self::Failed),
            "cancelled" | "canceled" => Some(Self::Cancelled),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Paused => "paused",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// The byte that orders this status in the status index.
    pub(crate) fn index_code(self) -> u8 {
        self as u8
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who wrote a thread message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    Agent,
    System,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::System => "system",
        }
    }
}

/// The kind of a thread message (docs/contract.md §3). Stored by variant index: append only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MsgType {
    Text,
    Lifecycle,
    Progress,
    Wait,
    Stuck,
    Plan,
    /// Something stands in the way of a step: a wait on it timed out or failed, a session
    /// on it exited non-zero.
    Blocker,
}

impl MsgType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Lifecycle => "lifecycle",
            Self::Progress => "progress",
            Self::Wait => "wait",
            Self::Stuck => "stuck",
            Self::Plan => "plan",
            Self::Blocker => "blocker",
        }
    }
}

/// Who revised a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Author {
    Agent,
    System,
}

impl Author {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::System => "system",
        }
    }
}

/// A wait's state (docs/contract.md §4). Stored by variant index: append only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WaitState {
    Watching,
    Resolved,
    Timeout,
    Cancelled,
    Error,
    /// Woken by a change nobody judged (no model for the condition): not "resolved".
    Changed,
}

impl WaitState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Watching => "watching",
            Self::Resolved => "resolved",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Error => "error",
            Self::Changed => "changed",
        }
    }
}

/// One task as stored. Steps are numbered from 1 everywhere, here too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub id: TaskId,
    pub name: String,
    pub status: Status,
    pub plan: Vec<String>,
    /// Step numbers (1-based) marked done.
    pub completed_steps: BTreeSet<u32>,
    /// The step the agent said it is on, when it said so and that step is not done yet.
    pub current_step: Option<u32>,
    /// The caller's metadata object, as JSON text (postcard cannot carry arbitrary JSON).
    pub metadata_json: String,
    pub session_key: Option<String>,
    pub agent_id: Option<String>,
    pub created_at: Timestamp,
    /// Last activity: an update with a message, status or plan; a plan revision; a wait event.
    pub updated_at: Timestamp,
    /// Sequence number of the newest thread message (messages are numbered from 1).
    pub last_seq: u64,
    /// Number of plan revisions so far (revisions are numbered from 1).
    pub plan_revisions: u32,
    /// Seed 004 §4 wait linkage.
    pub active_wait_ids: Vec<String>,
    pub last_wait_state: Option<WaitState>,
    pub last_wait_event_at: Option<Timestamp>,
    /// Seed 004 §5 anti-spam stamp.
    pub last_stuck_alert_at: Option<Timestamp>,
    /// The task's own stuck threshold (metadata key `stuck_threshold_s`), overriding the
    /// configured one. Added in record format V2.
    pub stuck_threshold_s: Option<u64>,
    /// The agent session and working directory the task was registered from, when the
    /// client knew them (`lookout mcp` under Claude Code does). Added in record format V3.
    pub origin: Option<Origin>,
    /// How each completed step was established (a completed step missing here was
    /// claimed). Added in record format V4.
    pub step_evidence: BTreeMap<u32, StepEvidence>,
}

/// Where a task was registered from: the agent runtime's session id and working directory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
}

impl TaskRecord {
    pub fn message_count(&self) -> u64 {
        self.last_seq
    }

    /// Whether the stuck scan should look at this task at all: active, and no wait live.
    pub fn is_stuck_candidate(&self) -> bool {
        self.status == Status::Active && self.active_wait_ids.is_empty()
    }

    /// What the stuck index keeps for this task.
    pub fn stuck_info(&self) -> StuckInfo {
        StuckInfo {
            threshold_override_s: self.stuck_threshold_s,
            last_alert_at: self.last_stuck_alert_at,
        }
    }
}

/// The value of the stuck-candidate index: enough to decide "stuck" without the record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StuckInfo {
    pub threshold_override_s: Option<u64>,
    pub last_alert_at: Option<Timestamp>,
}

/// An entry of the stuck-candidate index: an active task with no live wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StuckCandidate {
    pub task_id: TaskId,
    pub updated_at: Timestamp,
    pub info: StuckInfo,
}

/// A wait's id, e.g. `w-4hx8q2`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WaitId(String);

impl WaitId {
    pub const PREFIX: &'static str = "w-";

    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The id of the `sequence`-th wait.
    pub fn from_sequence(sequence: u64) -> Self {
        Self(format!("{}{}", Self::PREFIX, scrambled_base36(sequence)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for WaitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a wait has been through. Stored by variant index: append only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WaitEvent {
    Created,
    Judged,
    JudgeFailed,
    CaptureFailed,
    Updated,
    Revived,
    Resolved,
    TimedOut,
    Failed,
    Cancelled,
    /// Ended by a change nobody judged.
    Changed,
}

impl WaitEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Judged => "judged",
            Self::JudgeFailed => "judge_failed",
            Self::CaptureFailed => "capture_failed",
            Self::Updated => "updated",
            Self::Revived => "revived",
            Self::Resolved => "resolved",
            Self::TimedOut => "timeout",
            Self::Failed => "error",
            Self::Cancelled => "cancelled",
            Self::Changed => "changed",
        }
    }
}

/// One line of a wait's history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitHistoryEntry {
    pub at: Timestamp,
    pub event: WaitEvent,
    /// For `Judged`: whether the condition held.
    pub met: Option<bool>,
    /// The observation, error, reason or note.
    pub detail: Option<String>,
}

/// What a wait has cost so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitCounters {
    pub captures: u64,
    pub skipped_by_gate: u64,
    pub judge_calls: u64,
    pub judge_failures: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// One smart wait as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitRecord {
    pub id: WaitId,
    /// The target as the agent wrote it, normalised (`pty:s-1a2b3c`, `window:0x4200003`).
    pub target: String,
    /// The agent's `wake_when`.
    pub condition: String,
    pub task_id: Option<TaskId>,
    pub session_key: Option<String>,
    pub state: WaitState,
    pub created_at: Timestamp,
    /// When the current watch began: creation, or the last restart of the clock.
    pub started_at: Timestamp,
    /// When the current watch times out (absolute, so it survives restarts).
    pub deadline: Timestamp,
    pub timeout_s: u64,
    pub poll_interval_ms: u64,
    pub last_observation: Option<String>,
    pub ended_at: Option<Timestamp>,
    pub counters: WaitCounters,
    /// The most recent entries (bounded).
    pub history: Vec<WaitHistoryEntry>,
    /// Count what was already in the target when the watch began (text targets match only
    /// what arrives after it otherwise).
    pub match_existing: bool,
    /// Where the text target stood when the watch began; `None` when everything counts.
    pub baseline: Option<TextBaseline>,
    /// The deadline on the machine's steady clock (`CLOCK_BOOTTIME`) of the boot that set
    /// it: a daemon restarted in the same boot counts the time left from it, so a wall clock
    /// set forward or back meanwhile moves no deadline. `None` for records from before it.
    pub deadline_boot: Option<BootDeadline>,
    /// The step of its task this wait proves when it resolves. Added in record format V4.
    pub step: Option<u32>,
}

/// A deadline on one boot's steady clock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BootDeadline {
    /// The kernel's id of the boot (`/proc/sys/kernel/random/boot_id`).
    pub boot_id: String,
    /// Milliseconds of that boot's `CLOCK_BOOTTIME` at which the wait times out.
    pub at_ms: u64,
}

/// Where a text target stood when a watch began, so only what arrives after it counts.
/// Stored by variant index: append only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextBaseline {
    /// A file: its identity and its length then. The same file grown past `length` has new
    /// bytes after it; a shorter or different file is all new.
    File {
        device: u64,
        inode: u64,
        length: u64,
    },
    /// A screen (terminal, tmux pane): its last lines then (each at most
    /// [`TextBaseline::LINE_CHARS`] characters), found again to see what came after.
    Lines(Vec<String>),
}

impl TextBaseline {
    /// Lines of a screen baseline are kept and compared at most this long.
    pub const LINE_CHARS: usize = 256;
    /// A screen baseline keeps this many of the last non-empty lines.
    pub const LINES: usize = 50;
}

impl WaitRecord {
    pub fn is_live(&self) -> bool {
        self.state == WaitState::Watching
    }
}

/// What a wake event is about. Stored by variant index: append only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventKind {
    WaitResolved,
    WaitTimeout,
    WaitError,
    TaskStuck,
    /// A wait woke its agent at a change nobody judged.
    WaitChanged,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::WaitResolved => "wait_resolved",
            Self::WaitTimeout => "wait_timeout",
            Self::WaitError => "wait_error",
            Self::TaskStuck => "task_stuck",
            Self::WaitChanged => "wait_changed",
        }
    }
}

/// Where one sink stands with one event. Stored by variant index: append only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeliveryOutcome {
    /// Not delivered yet; retried at `next_attempt_at`.
    Pending {
        last_error: Option<String>,
    },
    Delivered {
        at: Timestamp,
    },
    /// Gave up after the configured number of attempts.
    Dead {
        at: Timestamp,
        error: String,
    },
    /// The sink refused it for good (e.g. HTTP 400); not retried.
    Rejected {
        at: Timestamp,
        error: String,
    },
}

impl DeliveryOutcome {
    pub fn is_settled(&self) -> bool {
        !matches!(self, DeliveryOutcome::Pending { .. })
    }
}

/// One sink's delivery record for one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkDelivery {
    pub sink: String,
    pub attempts: u32,
    pub next_attempt_at: Timestamp,
    pub outcome: DeliveryOutcome,
}

/// A wake event in the durable outbox, keyed by its sequence number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRecord {
    pub seq: u64,
    pub kind: EventKind,
    pub text: String,
    pub task_id: Option<TaskId>,
    pub wait_id: Option<String>,
    pub session_key: Option<String>,
    pub created_at: Timestamp,
    /// Per-sink delivery state, for the sinks configured when it was last attempted.
    pub deliveries: Vec<SinkDelivery>,
    /// Every configured sink has delivered, rejected or given up: nothing left to do.
    pub settled: bool,
}

impl EventRecord {
    /// The id clients see, e.g. `e-000123`.
    pub fn id(&self) -> String {
        format!("e-{:06}", self.seq)
    }
}

/// One message of a task's thread, keyed by (task id, seq).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRecord {
    pub role: Role,
    pub msg_type: MsgType,
    pub content: String,
    pub created_at: Timestamp,
}

/// One plan revision (docs/contract.md §2), keyed by (task id, revision number from 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanRevisionRecord {
    pub task_id: TaskId,
    pub revision: u32,
    pub old_plan: Vec<String>,
    pub new_plan: Vec<String>,
    pub reason: String,
    pub author: Author,
    pub created_at: Timestamp,
}

/// A [`Timestamp`] shown as RFC 3339 in UTC with second precision.
#[derive(Clone, Copy, Debug)]
pub struct Rfc3339(Timestamp);

impl std::fmt::Display for Rfc3339 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.0.as_secs();
        let days = (secs / 86_400) as i64;
        let second_of_day = secs % 86_400;
        let (year, month, day) = civil_from_days(days);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            second_of_day / 3600,
            (second_of_day / 60) % 60,
            second_of_day % 60
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trips_known_instants() {
        let cases = [
            (0, "1970-01-01T00:00:00Z"),
            (1_771_002_000_000, "2026-02-13T17:00:00Z"),
            (951_782_400_000, "2000-02-29T00:00:00Z"),
            (4_107_542_399_000, "2100-02-28T23:59:59Z"),
        ];
        for (millis, text) in cases {
            assert_eq!(Timestamp(millis).to_rfc3339(), text);
            assert_eq!(Timestamp::parse_rfc3339(text), Some(Timestamp(millis)));
        }
        assert_eq!(
            Timestamp::parse_rfc3339("2026-02-13T17:00:00.250+00:00"),
            Some(Timestamp(1_771_002_000_250))
        );
        assert_eq!(Timestamp::parse_rfc3339("2026-13-01T00:00:00Z"), None);
        assert_eq!(Timestamp::parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn task_ids_are_unique_and_well_formed() {
        let ids: BTreeSet<String> = (0..50_000)
            .map(|n| TaskId::from_sequence(n).as_str().to_owned())
            .collect();
        assert_eq!(ids.len(), 50_000);
        assert!(ids.iter().all(|id| id.len() == 8 && id.starts_with("t-")));
        assert_ne!(TaskId::from_sequence(1).as_str(), "t-000001");
    }

    #[test]
    fn status_parses_alias_and_rejects_others() {
        assert_eq!(Status::parse("canceled"), Some(Status::Cancelled));
        assert_eq!(Status::parse(" Completed "), Some(Status::Completed));
        assert_eq!(Status::parse("done-ish"), None);
        assert!(Status::Failed.is_terminal());
        assert!(!Status::Paused.is_terminal());
    }
}
