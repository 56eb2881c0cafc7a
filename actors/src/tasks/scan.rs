//! The stuck scan (docs/contract.md §5): which active tasks with no live wait have been quiet past
//! their threshold. It reads the stuck-candidate index (no task records), then asks each due
//! task's actor to check the rule against the authoritative record and alert. It runs beside
//! the Tasks supervisor's mailbox, so requests keep flowing meanwhile.

use ractor::{ActorRef, RpcReplyPort};
use storage::{Store, Timestamp};

use crate::directory::Directory;
use crate::registry;
use crate::tasks::actor::{TASK_CALL_TIMEOUT, TaskMsg};
use crate::tasks::stuck::{MIN_THRESHOLD, StuckPolicy};
use crate::tasks::supervisor::TasksMsg;

/// Alerts one scan raises at most; the rest wait for the next scan.
const MAX_ALERTS_PER_SCAN: usize = 1000;

/// What one stuck scan found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanReport {
    pub at: Timestamp,
    /// Tasks the index said were due.
    pub candidates: usize,
    /// Event seqs of the alerts raised.
    pub alerts: Vec<u64>,
    pub duration_ms: u64,
}

/// One stuck scan: reads the due candidates from the index (no task records), then asks
/// each one's actor to check and alert, one after the other. Runs beside the supervisor, so
/// requests keep flowing meanwhile.
pub(crate) async fn scan_stuck(
    tasks: ActorRef<TasksMsg>,
    directory: Directory,
    policy: StuckPolicy,
    reply: Option<RpcReplyPort<ScanReport>>,
) {
    let now = directory.now();
    let cutoff = Timestamp::from_millis(
        now.as_millis()
            .saturating_sub(MIN_THRESHOLD.as_millis() as u64),
    );
    let due_policy = policy.clone();
    let candidates = match directory.registry() {
        Ok(registry) => {
            registry::read(&registry, move |store: &Store| {
                store.stuck_candidates(cutoff, |updated_at, info| {
                    due_policy.is_due(now, updated_at, info)
                })
            })
            .await
        }
        Err(error) => Err(error),
    };
    let mut report = ScanReport {
        at: now,
        ..ScanReport::default()
    };
    match candidates {
        Ok(candidates) => {
            report.candidates = candidates.len();
            for candidate in candidates.into_iter().take(MAX_ALERTS_PER_SCAN) {
                let policy = policy.clone();
                let outcome = tasks
                    .call(
                        |reply| {
                            TasksMsg::Forward(
                                candidate.task_id.clone(),
                                TaskMsg::CheckStuck(policy, reply),
                            )
                        },
                        Some(TASK_CALL_TIMEOUT),
                    )
                    .await;
                match outcome {
                    Ok(ractor::rpc::CallResult::Success(Ok(Some(seq)))) => report.alerts.push(seq),
                    Ok(ractor::rpc::CallResult::Success(Ok(None))) => {}
                    Ok(ractor::rpc::CallResult::Success(Err(error))) => {
                        tracing::warn!(task = %candidate.task_id, %error, "stuck check failed; the next scan retries");
                    }
                    _ => {
                        tracing::warn!(task = %candidate.task_id, "stuck check got no answer; the next scan retries")
                    }
                }
            }
        }
        Err(error) => tracing::error!(%error, "the stuck scan cannot read the index"),
    }
    report.duration_ms = directory.now().millis_since(now);
    let _ = tasks.cast(TasksMsg::ScanFinished(report.clone()));
    if let Some(reply) = reply {
        let _ = reply.send(report);
    }
}
