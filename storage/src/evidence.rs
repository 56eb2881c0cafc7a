//! How a completed step was established: proven by something lookout watched (a wait that
//! resolved, a terminal session that exited 0) or on the agent's word alone. A task keeps
//! one per completed step; a completed step without one (a task from before evidence was
//! kept) reads as claimed.
//!
//! Stored by variant index (postcard): append only.

use serde::{Deserialize, Serialize};

use crate::model::{Timestamp, WaitId};

/// What established a step, and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepEvidence {
    pub proof: StepProof,
    pub at: Timestamp,
}

/// What established a step. Stored by variant index: append only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepProof {
    /// The agent's word: the note that said so (shortened), or `None` when the step was
    /// marked through `completed_steps` with no note.
    Claimed { note: Option<String> },
    /// A wait linked to the step resolved: its target and the observation that decided it.
    Wait {
        wait_id: WaitId,
        target: String,
        observation: String,
    },
    /// A terminal session linked to the step exited 0.
    Session {
        session_id: String,
        command: String,
        exit_code: i32,
    },
}

impl StepProof {
    /// Whether lookout saw it happen, rather than took the agent's word.
    pub fn is_verified(&self) -> bool {
        !matches!(self, StepProof::Claimed { .. })
    }

    /// "verified" or "claimed".
    pub fn kind(&self) -> &'static str {
        if self.is_verified() {
            "verified"
        } else {
            "claimed"
        }
    }
}
