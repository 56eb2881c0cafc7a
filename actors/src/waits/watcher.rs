//! The Watcher: a WaitActor's child that owns the capture loop of one target — its source
//! and its gate. On each poll it captures and asks the gate; only news goes to the WaitActor
//! (as an observation), and a failed capture is reported. It also times how long a watched
//! window has been closed, since the gate lets the absence through only once: a window
//! closed for the grace period is reported at every poll until the wait ends (the WaitActor
//! decides, after any judgment in flight). A panicking source kills the Watcher; its
//! WaitActor counts the failure and starts a new one (which times a closed window afresh).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::Timestamp;
use tokio::task::JoinHandle;

use crate::directory::Directory;
use crate::faults::ActorKind;
use crate::waits::actor::WaitMsg;
use crate::waits::capture::{CaptureError, Source};
use crate::waits::content::Content;
use crate::waits::gate::{Gate, GateDecision, Readiness};

/// How long the Watcher waits for its WaitActor to take an observation.
const HANDOFF_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one capture may take before it counts as a failed capture.
pub const CAPTURE_TIMEOUT: Duration = Duration::from_secs(20);

/// Capture counts, shared with the WaitActor (which persists them).
#[derive(Debug, Default)]
pub struct WatchCounters {
    pub captures: AtomicU64,
    pub skipped_by_gate: AtomicU64,
}

pub enum WatcherMsg {
    /// Capture now. The reply carries the judgment this capture set off, if any, so that a
    /// caller can wait for all of its effects.
    Poll(Option<RpcReplyPort<Option<JoinHandle<()>>>>),
    /// The judge looked at observation `seq`: it becomes the gate's baseline.
    Judged(u64),
    /// Forget the baselines: the next capture is news (a new condition, a revived wait); a
    /// closed window gets a full grace period again, so the new condition is judged on it.
    Reset,
}

pub struct WatcherActor;

pub struct WatcherArgs {
    pub wait: ActorRef<WaitMsg>,
    pub source: Box<dyn Source>,
    pub gate: Box<dyn Gate>,
    pub counters: Arc<WatchCounters>,
    pub directory: Directory,
    /// How long a watched window may stay closed before the WaitActor hears of it.
    pub window_gone_grace: Duration,
}

pub struct WatcherState {
    wait: ActorRef<WaitMsg>,
    source: Box<dyn Source>,
    gate: Box<dyn Gate>,
    counters: Arc<WatchCounters>,
    directory: Directory,
    next_seq: u64,
    /// The last observation handed over, until the WaitActor says it was judged.
    handed_over: Option<(u64, Content, Readiness)>,
    window_gone_grace: Duration,
    /// When the captures started finding the watched window closed.
    closed_since: Option<Timestamp>,
}

impl Actor for WatcherActor {
    type Msg = WatcherMsg;
    type State = WatcherState;
    type Arguments = WatcherArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<WatcherMsg>,
        args: WatcherArgs,
    ) -> Result<WatcherState, ActorProcessingErr> {
        Ok(WatcherState {
            wait: args.wait,
            source: args.source,
            gate: args.gate,
            counters: args.counters,
            directory: args.directory,
            next_seq: 1,
            handed_over: None,
            window_gone_grace: args.window_gone_grace,
            closed_since: None,
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<WatcherMsg>,
        msg: WatcherMsg,
        state: &mut WatcherState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.faults().check(ActorKind::Watcher);
        match msg {
            WatcherMsg::Poll(reply) => {
                let judging = poll(state).await;
                if let Some(reply) = reply {
                    let _ = reply.send(judging);
                }
            }
            WatcherMsg::Judged(seq) => {
                if let Some((handed, content, readiness)) = state.handed_over.take() {
                    if handed == seq {
                        state
                            .gate
                            .judged(&content, readiness, state.directory.now());
                    } else {
                        state.handed_over = Some((handed, content, readiness));
                    }
                }
            }
            WatcherMsg::Reset => {
                state.gate.reset();
                state.handed_over = None;
                state.closed_since = None;
            }
        }
        Ok(())
    }
}

/// One capture: gate it, hand news over, report failures and a window that stays closed.
async fn poll(state: &mut WatcherState) -> Option<JoinHandle<()>> {
    state.counters.captures.fetch_add(1, Ordering::Relaxed);
    let captured = match tokio::time::timeout(CAPTURE_TIMEOUT, state.source.capture()).await {
        Ok(captured) => captured,
        Err(_) => Err(CaptureError::retryable(format!(
            "capturing {} took longer than {}s",
            state.source.describe(),
            CAPTURE_TIMEOUT.as_secs()
        ))),
    };
    let content = match captured {
        Ok(content) => content,
        Err(error) => {
            let _ = state
                .wait
                .call(
                    |reply| WaitMsg::CaptureFailed(error, reply),
                    Some(HANDOFF_TIMEOUT),
                )
                .await;
            return None;
        }
    };
    let now = state.directory.now();
    let closed_for = closed_for(&mut state.closed_since, &content, now);
    // The absence goes through the gate first, so a model can still find the condition met
    // by it; the WaitActor ignores the report while that judgment runs.
    let judging = hand_over(state, content, now).await;
    if let Some(closed_for) = closed_for.filter(|d| *d >= state.window_gone_grace) {
        let _ = state
            .wait
            .call(
                |reply| WaitMsg::WindowClosed { closed_for, reply },
                Some(HANDOFF_TIMEOUT),
            )
            .await;
    }
    judging
}

/// How long the watched window has been closed, as of this capture: timed from the first
/// capture that found it closed; any other content (a window again, shown or hidden, or a
/// target that is no window at all) ends the count.
fn closed_for(
    closed_since: &mut Option<Timestamp>,
    content: &Content,
    now: Timestamp,
) -> Option<Duration> {
    if !content.is_closed_window() {
        *closed_since = None;
        return None;
    }
    let since = *closed_since.get_or_insert(now);
    Some(Duration::from_millis(now.millis_since(since)))
}

/// Asks the gate about a capture and hands news to the WaitActor; returns the judgment it
/// set off.
async fn hand_over(
    state: &mut WatcherState,
    content: Content,
    now: Timestamp,
) -> Option<JoinHandle<()>> {
    let readiness = match state.gate.consider(&content, now) {
        GateDecision::Skip => {
            state
                .counters
                .skipped_by_gate
                .fetch_add(1, Ordering::Relaxed);
            let _ = state.wait.cast(WaitMsg::CaptureSucceeded);
            return None;
        }
        GateDecision::Judge(readiness) => readiness,
    };
    let seq = state.next_seq;
    state.next_seq += 1;
    state.handed_over = Some((seq, content.clone(), readiness));
    let outcome = state
        .wait
        .call(
            |reply| WaitMsg::Observe {
                seq,
                content,
                readiness,
                reply,
            },
            Some(HANDOFF_TIMEOUT),
        )
        .await;
    match outcome {
        Ok(ractor::rpc::CallResult::Success(judging)) => judging,
        _ => None,
    }
}
