//! Task memory: the Tasks supervisor and its TaskActors, one per task in use.
//!
//! - [`supervisor`] routes each request to the task's actor, spawning it on first use (it
//!   loads its record from storage) and retiring it when the task turns terminal;
//! - [`actor`] is the TaskActor: every change to one task, one at a time, replied to once
//!   durable; it raises its task's stuck alert;
//! - [`scan`] is the stuck scan the supervisor runs every `[stuck] scan_interval_s`, and
//!   [`stuck`] the rule it applies (docs/contract.md §5); [`resume`] builds the resume packet (§6);
//! - [`types`] and [`transition`] are the validated requests and the pure changes;
//!   [`plan`], [`progress`], [`relevance`] and [`report`] what a task's texts are made of.

pub mod actor;
pub mod plan;
pub mod progress;
pub mod relevance;
pub mod report;
pub mod resume;
pub mod scan;
pub mod stuck;
pub mod supervisor;
pub mod transition;
pub mod types;

pub use actor::{TASK_CALL_TIMEOUT, TaskMsg};
pub use scan::ScanReport;
pub use supervisor::{SCAN_TIMEOUT, TasksArgs, TasksMsg, TasksStats, TasksSupervisor};
