//! The tree's recall calls: `memory_recall`, the screen recorder's status and pause, and
//! `recall forget`, each to the actor that owns it.

use std::time::Duration;

use crate::error::{CallError, from_call};
use crate::recall::recorder::{RecorderMsg, RecorderStatus};
use crate::recall::{RECALL_CALL_TIMEOUT, RecallAnswer, RecallMsg, RecallRequest};
use crate::tree::{STATUS_TIMEOUT, Tree};

impl Tree {
    /// `memory_recall`: what the index finds for the request, after indexing what changed.
    pub async fn recall(&self, request: RecallRequest) -> Result<RecallAnswer, CallError> {
        let outcome = self
            .directory()
            .recall()?
            .call(
                |reply| RecallMsg::Search(request, reply),
                Some(RECALL_CALL_TIMEOUT),
            )
            .await;
        from_call("recall actor", RECALL_CALL_TIMEOUT, outcome)
    }

    /// What the screen recorder is doing.
    pub async fn recorder_status(&self) -> Result<RecorderStatus, CallError> {
        let outcome = self
            .directory()
            .recorder()?
            .call(RecorderMsg::Status, Some(STATUS_TIMEOUT))
            .await;
        from_call(
            "screen recorder",
            STATUS_TIMEOUT,
            outcome.map(|r| r.map(Ok)),
        )
    }

    /// `lookout recall pause [--for]`: nothing is captured until it ends or is resumed.
    pub async fn pause_recorder(
        &self,
        duration: Option<Duration>,
    ) -> Result<RecorderStatus, CallError> {
        let outcome = self
            .directory()
            .recorder()?
            .call(
                |reply| RecorderMsg::Pause(duration, reply),
                Some(STATUS_TIMEOUT),
            )
            .await;
        from_call(
            "screen recorder",
            STATUS_TIMEOUT,
            outcome.map(|r| r.map(Ok)),
        )
    }

    pub async fn resume_recorder(&self) -> Result<RecorderStatus, CallError> {
        let outcome = self
            .directory()
            .recorder()?
            .call(RecorderMsg::Resume, Some(STATUS_TIMEOUT))
            .await;
        from_call(
            "screen recorder",
            STATUS_TIMEOUT,
            outcome.map(|r| r.map(Ok)),
        )
    }

    /// `lookout recall forget`: the recorder drops the open segments the filter names, then
    /// the index removes them and every closed one, with their keyframes. Returns how many
    /// documents went from the index.
    pub async fn forget(&self, filter: recall::Forget) -> Result<u64, CallError> {
        let dropped = self
            .directory()
            .recorder()?
            .call(
                |reply| RecorderMsg::Forget(filter.clone(), reply),
                Some(STATUS_TIMEOUT),
            )
            .await;
        from_call(
            "screen recorder",
            STATUS_TIMEOUT,
            dropped.map(|r| r.map(Ok)),
        )?;
        let outcome = self
            .directory()
            .recall()?
            .call(
                |reply| RecallMsg::Forget(filter, reply),
                Some(RECALL_CALL_TIMEOUT),
            )
            .await;
        from_call("recall actor", RECALL_CALL_TIMEOUT, outcome)
    }
}
