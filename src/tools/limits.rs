//! Every bound of a tool call, in one place: the defaults a call gets unless it asks, and
//! the least and most it may ask for.
//!
//! The catalogue quotes these in each tool's JSON Schema, [`super::params`] enforces them with
//! errors that name them, and [`super::wire`] fits answers to them. Bounds the tree itself
//! enforces (a plan's length, a terminal's size) are defined beside that enforcement and
//! re-exported here, so the surface reads every bound from this module.

use std::time::Duration;

pub use actors::tasks::types::{
    MAX_KEY_CHARS, MAX_MESSAGE_CHARS, MAX_NAME_CHARS, MAX_QUERY_CHARS, MAX_REASON_CHARS,
    MAX_STEP_CHARS, MAX_STEPS,
};
pub use actors::terminals::screen::SCROLLBACK_LINES;
pub use actors::terminals::types::{
    DEFAULT_COLS, DEFAULT_ROWS, MAX_COLS, MAX_KEYS, MAX_ROWS, MIN_COLS, MIN_ROWS,
};

// ---- lists and threads (task_list, task_thread) ----

/// Tasks `task_list` returns unless asked.
pub const DEFAULT_LIST_LIMIT: usize = 10;
/// Messages `task_thread` returns unless asked.
pub const DEFAULT_THREAD_LIMIT: usize = 50;
/// The most any `limit` may be.
pub const MAX_LIMIT: u32 = 1000;
/// A task id an agent chose: short enough to quote back in every answer.
pub const MAX_TASK_ID_CHARS: usize = 100;
/// An origin's folder is a path: room for a deep one.
pub const MAX_ORIGIN_CWD_CHARS: usize = 4096;

// ---- answer sizes (max_bytes) ----

/// What a "where am I?" answer fits in unless the call asks for more.
pub const DEFAULT_QUERY_BYTES: usize = 4 * 1024;
/// What a thread page or a task list fits in unless the call asks for more.
pub const DEFAULT_READ_BYTES: usize = 16 * 1024;
/// What `task_get` fits in unless the call asks for more.
pub const DEFAULT_TASK_GET_BYTES: usize = 64 * 1024;
/// The most any of these answers may be given with `max_bytes`.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// The most `task_get` may be given: a whole plan of long steps with its revisions.
pub const MAX_TASK_GET_BYTES: usize = 1024 * 1024;
/// The least `max_bytes` may be.
pub const MIN_ANSWER_BYTES: usize = 1024;

// ---- recall (memory_recall, recall.pause) ----

/// Results `memory_recall` returns unless asked.
pub const DEFAULT_RECALL_LIMIT: usize = 3;
/// The most results `memory_recall` may be asked for.
pub const MAX_RECALL_LIMIT: u32 = 20;
/// `memory_recall`'s balance of match and age unless asked: halfway.
pub const DEFAULT_RECENCY_BIAS: f64 = 0.5;
/// The longest `recall.pause` with an end (a pause without one lasts until resumed).
pub const MAX_PAUSE: Duration = Duration::from_secs(30 * 86_400);

// ---- the event stream (events.subscribe) ----

/// The most missed events one `events.subscribe {after}` hands back; the rest are counted.
pub const MAX_MISSED_EVENTS: usize = 200;

// ---- waits (wait_create, wait_update) ----

/// Seconds a wait watches unless asked.
pub const DEFAULT_WAIT_TIMEOUT_S: u64 = 300;
/// The longest a wait may watch: a day.
pub const MAX_WAIT_TIMEOUT_S: u64 = 86_400;
/// Seconds between looks unless asked.
pub const DEFAULT_POLL_INTERVAL_S: f64 = 2.0;
/// The least and most `poll_interval` may be.
pub const POLL_INTERVAL_RANGE_S: (f64, f64) = (0.2, 60.0);
/// A `wake_when` is a sentence or a few, not a document.
pub const MAX_CONDITION_CHARS: usize = 2_000;

// ---- terminals (term_read) ----

/// Scrollback lines `term_read` returns unless asked.
pub const DEFAULT_TERM_READ_LINES: usize = 50;
