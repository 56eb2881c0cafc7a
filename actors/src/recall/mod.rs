//! Recall: "have I done this before?" over what lookout already knows.
//!
//! - [`actor`] is the Recall actor, the only owner of `recall.sqlite` (the FTS5 index of the
//!   `recall` crate); it catches up with the tasks that changed in redb before each search
//!   and in the background after it starts, so a lost index is rebuilt from the record;
//! - [`documents`] turns a task (its plan, thread, revisions and outcome) into the document
//!   the index holds, with the steps and the summary a result shows. Pure;
//! - `calls` the tree's calls to them (search, the recorder's status and pause, forget);
//! - [`recorder`] the opt-in screen history: the Recorder actor and its segments, privacy
//!   rules and keyframes;
//! - [`transcripts`] the agent's own past sessions (Claude Code's JSONL), opt-in, read by
//!   the Recall actor as they grow, and the document every runtime's sessions become;
//! - [`openclaw_sessions`] OpenClaw's sessions, opt-in, read through its gateway on a
//!   timer's task and handed to the Recall actor.

pub mod actor;
mod calls;
pub mod documents;
pub mod openclaw_sessions;
pub mod recorder;
pub mod transcripts;

pub use actor::{
    RECALL_CALL_TIMEOUT, RecallActor, RecallAnswer, RecallArgs, RecallMsg, RecallRequest,
};
