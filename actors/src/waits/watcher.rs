//! The Watcher: a WaitActor's child that runs its wait's capture loop — the target's
//! [`Feed`] (shared with every wait on the same target) and the wait's own gate. On each poll
//! it takes a capture from the feed and asks the gate; only news goes to the WaitActor
//! (as an observation), and a failed capture is reported. It also times how long a watched
//! window has been closed, since the gate lets the absence through only once: a window
//! closed for the grace period is reported at every poll until the wait ends (the WaitActor
//! decides, after any judgment in flight). A panicking source kills the Watcher; its
//! WaitActor counts the failure and starts a new one (which times a closed window afresh).
//!
//! **Told of changes.** When the target's source says when it changed (a file, a terminal
//! session: [`Feed::changes`]), the Watcher also polls its wait at each change, so a line is
//! decided on the read that brought it; the timer's polls go on as the safety net.
//!
//! **Unchanged, unread.** A poll whose gate would skip the frame it saw last anyway, of a
//! target whose source tells every change and told none since, reads nothing
//! ([`Feed::unchanged_since`]): it counts as a capture the gate skipped.
//!
//! **The settle probe.** A change the gate sees for the first time (`Changing`) is judged
//! once it holds still, which the next regular capture would tell a whole poll later. For a
//! window or the screen the Watcher instead captures again after a short probe delay (50 ms
//! by default, doubling), up to [`MAX_SETTLE_PROBES`] times within the first half of the
//! poll, so a settled change reaches the judge within a fraction of a poll. A still window
//! costs no probe: only a change the gate calls news starts them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::Timestamp;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::directory::Directory;
use crate::faults::ActorKind;
use crate::sight::content::Content;
use crate::sight::gate::pixel::Timeline;
use crate::sight::gate::{Gate, GateDecision, Readiness};
use crate::waits::actor::{POLL_TIMEOUT, WaitMsg};
use crate::waits::feed::{Feed, Look};

/// The least time between two polls a source's changes set off: a program printing
/// thousands of lines a second is looked at fifty times a second, not thousands.
pub const CHANGE_POLL_SPACING: Duration = Duration::from_millis(20);

/// How long the Watcher waits for its WaitActor to take an observation.
const HANDOFF_TIMEOUT: Duration = Duration::from_secs(30);

/// At most this many quick captures follow a change first seen, looking for it to settle.
pub const MAX_SETTLE_PROBES: u32 = 3;

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
    /// A settle probe: capture again soon after a change was first seen (the reply as for
    /// `Poll`). `round` tells a probe from one a new poll superseded; one that comes more
    /// than half a poll after `due` is stale too (the next poll is as near).
    Probe {
        round: u64,
        due: Timestamp,
        reply: RpcReplyPort<Option<JoinHandle<()>>>,
    },
    /// The judge looked at observation `seq`: it becomes the gate's baseline.
    Judged(u64),
    /// Forget the baselines: the next capture is news (a new condition, a revived wait); a
    /// closed window gets a full grace period again, so the new condition is judged on it.
    Reset,
}

pub struct WatcherActor;

pub struct WatcherArgs {
    pub wait: ActorRef<WaitMsg>,
    pub feed: Arc<Feed>,
    pub gate: Box<dyn Gate>,
    pub counters: Arc<WatchCounters>,
    pub directory: Directory,
    /// How long a watched window may stay closed, or a watched file deleted, before the
    /// WaitActor hears of it.
    pub window_gone_grace: Duration,
    /// The settle probe's delay and how many probes fit in a poll (`None`: no probes).
    pub settle_probe: Option<SettleProbe>,
}

/// When to capture again a change first seen, in a wait polling every `poll`: `count`
/// captures, the first `delay` after the poll and each next one twice as long after the
/// one before (50, 100, 200 ms by default: a quick look, and room for an animation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettleProbe {
    pub delay: Duration,
    pub count: u32,
    pub poll: Duration,
}

impl SettleProbe {
    /// The probes that fit in the first half of a `poll` (at most [`MAX_SETTLE_PROBES`]);
    /// `None` when the delay is zero or not one fits.
    pub fn within(delay: Duration, poll: Duration) -> Option<SettleProbe> {
        if delay.is_zero() {
            return None;
        }
        let (mut count, mut total) = (0, Duration::ZERO);
        while count < MAX_SETTLE_PROBES && total + delay * 2u32.pow(count) <= poll / 2 {
            total += delay * 2u32.pow(count);
            count += 1;
        }
        (count > 0).then_some(SettleProbe { delay, count, poll })
    }

    /// How long after the capture before it probe number `index` (from 0) comes.
    fn delay_of(self, index: u32) -> Duration {
        self.delay * 2u32.pow(index)
    }
}

pub struct WatcherState {
    wait: ActorRef<WaitMsg>,
    feed: Arc<Feed>,
    gate: Box<dyn Gate>,
    counters: Arc<WatchCounters>,
    directory: Directory,
    next_seq: u64,
    /// The last observation handed over, until the WaitActor says it was judged.
    handed_over: Option<(u64, Content, Readiness)>,
    window_gone_grace: Duration,
    /// When the captures started finding the watched window closed.
    closed_since: Option<Timestamp>,
    settle_probe: Option<SettleProbe>,
    /// Probes still allowed for the change being looked at.
    probes_left: u32,
    /// Counts regular polls, so a probe scheduled before the latest one is dropped.
    round: u64,
    /// The feed's capture this Watcher looked at last.
    feed_seq: u64,
    /// Polls the wait whenever its target's source says it changed (see [`follow_changes`]);
    /// held for its drop.
    _follower: Option<Follower>,
}

/// The task that follows a source's changes, ended with the Watcher's state however the
/// Watcher ends: one killed mid-poll (its wait's actor stopping) runs no `post_stop`, and a
/// follower left running would hold the source's count of changes, so the source would go
/// on being told (a tmux pane kept piped) after every wait on it ended.
struct Follower(JoinHandle<()>);

impl Drop for Follower {
    fn drop(&mut self) {
        self.0.abort();
    }
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
        let follower = args
            .feed
            .changes()
            .map(|changes| Follower(follow_changes(args.wait.clone(), changes)));
        Ok(WatcherState {
            _follower: follower,
            wait: args.wait,
            feed: args.feed,
            gate: args.gate,
            counters: args.counters,
            directory: args.directory,
            next_seq: 1,
            handed_over: None,
            window_gone_grace: args.window_gone_grace,
            closed_since: None,
            settle_probe: args.settle_probe,
            probes_left: 0,
            round: 0,
            feed_seq: 0,
        })
    }

    async fn post_stop(
        &self,
        myself: ActorRef<WatcherMsg>,
        state: &mut WatcherState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.timers().cancel(&probe_timer(&myself));
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<WatcherMsg>,
        msg: WatcherMsg,
        state: &mut WatcherState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.faults().check(ActorKind::Watcher);
        match msg {
            WatcherMsg::Poll(reply) => {
                state.round += 1;
                state.probes_left = state.settle_probe.map_or(0, |probe| probe.count);
                let (judging, decision) = poll(state, Look::Poll).await;
                probe_if_changing(&myself, state, decision);
                if let Some(reply) = reply {
                    let _ = reply.send(judging);
                }
            }
            WatcherMsg::Probe { round, due, reply } => {
                let judging = if round == state.round
                    && state.probes_left > 0
                    && !is_stale(state.settle_probe, due, state.directory.now())
                {
                    state.probes_left -= 1;
                    let (judging, decision) = poll(state, Look::SettleProbe).await;
                    probe_if_changing(&myself, state, decision);
                    judging
                } else {
                    None
                };
                let _ = reply.send(judging);
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

/// Whether a probe due at `due` comes too late to be of use: more than half a poll late
/// (a busy runtime; a test clock moved by whole polls), the next poll being as near.
fn is_stale(probe: Option<SettleProbe>, due: Timestamp, now: Timestamp) -> bool {
    probe.is_none_or(|probe| now.millis_since(due) > probe.poll.as_millis() as u64 / 2)
}

fn probe_timer(watcher: &ActorRef<WatcherMsg>) -> String {
    format!("watcher-probe-{}", watcher.get_id())
}

/// After a capture that found a change still moving (first seen, or not yet still on a
/// probe), schedules the next settle probe while any are left for this poll.
fn probe_if_changing(
    myself: &ActorRef<WatcherMsg>,
    state: &WatcherState,
    decision: Option<GateDecision>,
) {
    let Some(probe) = state.settle_probe else {
        return;
    };
    let moving = match decision {
        Some(GateDecision::Judge(Readiness::Changing)) => true,
        // A probe that found no news yet: the change is still moving (or went back).
        Some(GateDecision::Skip) => state.probes_left < probe.count,
        _ => false,
    };
    if !moving || state.probes_left == 0 {
        return;
    }
    let (watcher, round) = (myself.clone(), state.round);
    let delay = probe.delay_of(probe.count - state.probes_left);
    let due = (state.directory.now()).saturating_add_millis(delay.as_millis() as u64);
    state
        .directory
        .after(probe_timer(myself), delay, move || async move {
            let outcome = watcher
                .call(
                    |reply| WatcherMsg::Probe { round, due, reply },
                    Some(HANDOFF_TIMEOUT),
                )
                .await;
            if let Ok(ractor::rpc::CallResult::Success(Some(judging))) = outcome {
                let _ = judging.await;
            }
        });
}

/// One capture: gate it, hand news over, report failures and a window that stays closed.
/// Returns the judgment it set off and the gate's decision (`None`: the capture failed).
async fn poll(
    state: &mut WatcherState,
    look: Look,
) -> (Option<JoinHandle<()>>, Option<GateDecision>) {
    state.counters.captures.fetch_add(1, Ordering::Relaxed);
    let now = state.directory.now();
    let unchanged = match look {
        Look::Poll if state.gate.skips_unchanged(now) => {
            state.feed.unchanged_since(state.feed_seq, now).await
        }
        _ => None,
    };
    if let Some(unchanged) = unchanged {
        state.gate.seen_unchanged(unchanged.timeline.as_ref());
        skipped(state);
        return (None, Some(GateDecision::Skip));
    }
    let captured = (state.feed).capture(look, now, state.feed_seq).await;
    state.feed_seq = captured.seq;
    let content = match captured.content {
        Ok(content) => content,
        Err(error) => {
            let _ = state
                .wait
                .call(
                    |reply| WaitMsg::CaptureFailed(error, reply),
                    Some(HANDOFF_TIMEOUT),
                )
                .await;
            return (None, None);
        }
    };
    let now = state.directory.now();
    let closed_for = closed_for(&mut state.closed_since, &content, now);
    // The absence goes through the gate first, so a model can still find the condition met
    // by it; the WaitActor ignores the report while that judgment runs.
    let shared = captured.timeline.as_ref();
    let (judging, decision) = hand_over(state, content, shared, now, look).await;
    let closed_for = closed_for.filter(|_| look == Look::Poll);
    if let Some(closed_for) = closed_for.filter(|d| *d >= state.window_gone_grace) {
        let _ = state
            .wait
            .call(
                |reply| WaitMsg::TargetGone {
                    gone_for: closed_for,
                    reply,
                },
                Some(HANDOFF_TIMEOUT),
            )
            .await;
    }
    (judging, Some(decision))
}

/// How long the watched window has been closed, as of this capture: timed from the first
/// capture that found it closed; any other content (a window again, shown or hidden, or a
/// target that is no window at all) ends the count.
fn closed_for(
    closed_since: &mut Option<Timestamp>,
    content: &Content,
    now: Timestamp,
) -> Option<Duration> {
    if !content.is_gone() {
        *closed_since = None;
        return None;
    }
    let since = *closed_since.get_or_insert(now);
    Some(Duration::from_millis(now.millis_since(since)))
}

/// A look the gate skipped (with or without a read): counted, and the wait told the target
/// was seen.
fn skipped(state: &WatcherState) {
    (state.counters.skipped_by_gate).fetch_add(1, Ordering::Relaxed);
    let _ = state.wait.cast(WaitMsg::CaptureSucceeded);
}

/// Asks the gate about a capture and hands news to the WaitActor; returns the judgment it
/// set off and the gate's decision.
async fn hand_over(
    state: &mut WatcherState,
    content: Content,
    shared: Option<&Arc<Timeline>>,
    now: Timestamp,
    look: Look,
) -> (Option<JoinHandle<()>>, GateDecision) {
    let decision = match look {
        Look::Poll => state.gate.consider_shared(&content, shared, now),
        Look::SettleProbe => state.gate.settle_probe(&content, now),
    };
    let readiness = match decision {
        GateDecision::Skip => {
            skipped(state);
            return (None, decision);
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
    let judging = match outcome {
        Ok(ractor::rpc::CallResult::Success(judging)) => judging,
        _ => None,
    };
    (judging, decision)
}

/// Polls the wait as the timer does, each time the target's source says it changed: a line
/// is decided on the read that brought it. Changes that come while a poll and its judgment
/// run are taken together by the next one. Ends with the Watcher (aborted), the wait, or the
/// source's count (dropped with the feed).
fn follow_changes(wait: ActorRef<WaitMsg>, mut changes: watch::Receiver<u64>) -> JoinHandle<()> {
    tokio::spawn(async move {
        changes.mark_unchanged();
        // `changed` marks what it saw: a change during the poll below is the next one.
        while changes.changed().await.is_ok() {
            match wait.call(WaitMsg::Poll, Some(POLL_TIMEOUT)).await {
                Ok(ractor::rpc::CallResult::Success(judging)) => {
                    if let Some(judging) = judging {
                        let _ = judging.await;
                    }
                }
                Ok(_) => {}
                Err(_) => return,
            }
            tokio::time::sleep(CHANGE_POLL_SPACING).await;
        }
    })
}
