//! Vision: the actor that asks models whether a wait's condition holds, and its backends.
//!
//! The wait code holds a [`VisionJudge`] (a cheap handle implementing `Judge`) and asks it
//! about a settled change. The Vision actor answers from its cache when the same content
//! was judged against the same condition; otherwise it queues the request, keeps at most
//! `max_concurrency` attempts running, spaces one wait's calls by `min_interval`, retries a
//! 429 / 5xx / timeout / refused connection with backoff (a 429's `Retry-After` pauses the
//! whole backend until then), and counts calls, failures, retries, tokens and latency per
//! wait and in total in the [`ledger::VisionLedger`].
//!
//! The actor only decides and counts; image work runs on blocking threads and attempts run
//! as tasks that report back, so no handler waits on a model. Delays go through the tree's
//! timer registry, so a ManualClock drives them in tests. This module reads no config and
//! no environment: `src/` hands it a resolved [`backend::BackendSpec`].

pub mod anthropic;
pub mod backend;
pub mod cache;
pub mod handle;
pub mod image;
pub mod ledger;
pub mod none;
pub mod ocr;
pub mod openai;
pub mod prompt;
pub mod remote;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use ractor::rpc::CallResult;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use storage::Timestamp;

use crate::clock::Clock;
use crate::condition::judge::{
    AnsweredOnDrop, JudgeFailure, JudgeProgress, JudgeRequest, Usage, Verdict,
};
use crate::directory::Directory;
use crate::faults::ActorKind;
use backend::{AttemptError, Backend, BackendSpec, Cost, Material, Question};
use cache::VerdictCache;
pub use handle::VisionJudge;
use image::ImageSettings;
use ledger::{Entry, VisionLedger, VisionUsage};

/// How long the pump timer waits for the actor to start what is due.
pub const PUMP_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a status call waits.
pub const VISION_STATUS_TIMEOUT: Duration = Duration::from_secs(5);
/// An attempt is abandoned this long after the backend's own timeout would have fired.
const ATTEMPT_TIMEOUT_SLACK: Duration = Duration::from_secs(30);
/// The first retry waits this long, each further one twice as long, up to the maximum.
pub const FIRST_RETRY_DELAY: Duration = Duration::from_secs(1);
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(60);
/// A provider asking for a longer pause than this fails the request instead: a wait should
/// hear about it, not hang.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);
/// The pump timer's name in the timer registry.
pub const PUMP_TIMER: &str = "vision-pump";

/// How long to wait before attempt `attempts + 1`, after `attempts` failed ones.
pub fn retry_delay(attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(16);
    FIRST_RETRY_DELAY
        .saturating_mul(1 << doublings)
        .min(MAX_RETRY_DELAY)
}

/// The limits around the backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisionSettings {
    /// Attempts running at once, across all waits.
    pub max_concurrency: usize,
    /// The least time between two calls for one wait.
    pub min_interval: Duration,
    /// Further attempts after a retryable failure.
    pub retries: u32,
    /// Each HTTP request or tesseract run gives up after this long.
    pub timeout: Duration,
}

impl Default for VisionSettings {
    fn default() -> Self {
        Self {
            max_concurrency: 2,
            min_interval: Duration::from_secs(5),
            retries: 3,
            timeout: Duration::from_secs(60),
        }
    }
}

/// The vision part of the tree's arguments, as `src/` resolved it.
#[derive(Debug, Default)]
pub struct VisionSpec {
    pub backend: BackendSpec,
    pub settings: VisionSettings,
    pub image: ImageSettings,
}

/// What the Root needs to (re)start the Vision actor.
#[derive(Clone, Debug)]
pub struct VisionSetup {
    pub backend: Arc<dyn Backend>,
    pub settings: VisionSettings,
    pub ledger: VisionLedger,
}

/// A judge request on its way to the actor, with its content's hash (computed by the
/// caller, off the actor).
#[derive(Debug)]
pub struct Ask {
    pub request: JudgeRequest,
    pub content_key: u128,
}

pub enum VisionMsg {
    Judge(Box<Ask>, RpcReplyPort<Result<Verdict, JudgeFailure>>),
    /// An attempt finished (sent by the attempt's task).
    Attempted(Box<AttemptReport>),
    /// Start what is due; with a port, answer with the progress of the judgments started.
    Pump(Option<RpcReplyPort<Vec<JudgeProgress>>>),
    Status(RpcReplyPort<VisionStatus>),
}

pub struct AttemptReport {
    job: u64,
    /// What was prepared, kept for the next attempt.
    material: Option<Arc<Material>>,
    outcome: Result<backend::Answer, AttemptError>,
    latency_ms: u64,
}

/// The Vision actor's state for `daemon.status`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisionStatus {
    pub backend: String,
    pub max_concurrency: usize,
    pub min_interval: Duration,
    pub in_flight: usize,
    pub queued: usize,
    /// A 429 paused the backend until then.
    pub rate_limited_until: Option<Timestamp>,
    pub cache_entries: usize,
    pub tracked_waits: usize,
    pub totals: VisionUsage,
}

pub struct VisionActor;

pub struct VisionArgs {
    pub directory: Directory,
    pub setup: VisionSetup,
}

pub struct VisionState {
    directory: Directory,
    backend: Arc<dyn Backend>,
    settings: VisionSettings,
    ledger: VisionLedger,
    cache: VerdictCache,
    /// Waiting for a slot, their wait's interval, their retry delay or a 429 pause; oldest
    /// first.
    queue: VecDeque<Job>,
    running: HashMap<u64, Running>,
    /// When each wait's last call started (entries older than `min_interval` are dropped).
    last_call: HashMap<String, Timestamp>,
    paused_until: Option<Timestamp>,
    next_job: u64,
}

struct Job {
    id: u64,
    ask: Ask,
    reply: RpcReplyPort<Result<Verdict, JudgeFailure>>,
    /// Attempts started so far.
    attempts: u32,
    not_before: Timestamp,
    material: Option<Arc<Material>>,
    usage: Usage,
    reached_model: bool,
    /// The job's end, answered or dropped (a restarted actor), ends its progress.
    _answered: AnsweredOnDrop,
    /// Other waits that asked the same question (the same content, the same condition)
    /// while this job was queued or running: they get its answer instead of a call.
    followers: Vec<Follower>,
}

/// A caller whose question is already being asked.
struct Follower {
    wait_id: String,
    reply: RpcReplyPort<Result<Verdict, JudgeFailure>>,
    _answered: AnsweredOnDrop,
}

impl Job {
    /// Whether this job's question is `ask`'s.
    fn asks(&self, ask: &Ask) -> bool {
        self.ask.content_key == ask.content_key
            && self.ask.request.condition == ask.request.condition
    }

    /// Nobody waits for the answer any more: the caller and every follower gave up.
    fn abandoned(&self) -> bool {
        self.reply.is_closed() && self.followers.iter().all(|f| f.reply.is_closed())
    }

    /// Answers the followers with the caller's verdict (no model call of their own) or its
    /// failure.
    fn answer_followers(
        &mut self,
        ledger: &VisionLedger,
        outcome: &Result<(bool, String), String>,
    ) {
        for follower in self.followers.drain(..) {
            let answer = match outcome {
                Ok((met, observation)) => Ok(answered_without_a_call(
                    ledger,
                    &follower.wait_id,
                    *met,
                    observation.clone(),
                )),
                Err(message) => Err(JudgeFailure {
                    message: message.clone(),
                    model_call: false,
                }),
            };
            let _ = follower.reply.send(answer);
        }
    }
}

struct Running {
    job: Job,
    task: tokio::task::AbortHandle,
}

impl Actor for VisionActor {
    type Msg = VisionMsg;
    type State = VisionState;
    type Arguments = VisionArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<VisionMsg>,
        args: VisionArgs,
    ) -> Result<VisionState, ActorProcessingErr> {
        let VisionSetup {
            backend,
            settings,
            ledger,
        } = args.setup;
        Ok(VisionState {
            directory: args.directory,
            backend,
            settings,
            ledger,
            cache: VerdictCache::default(),
            queue: VecDeque::new(),
            running: HashMap::new(),
            last_call: HashMap::new(),
            paused_until: None,
            next_job: 0,
        })
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<VisionMsg>,
        state: &mut VisionState,
    ) -> Result<(), ActorProcessingErr> {
        // Callers see their reply ports dropped; nothing keeps calling a model for them.
        for running in state.running.values() {
            running.task.abort();
        }
        state.directory.timers().cancel(PUMP_TIMER);
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<VisionMsg>,
        msg: VisionMsg,
        state: &mut VisionState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.faults().check(ActorKind::Vision);
        match msg {
            VisionMsg::Judge(ask, reply) => {
                admit(&myself, state, *ask, reply);
            }
            VisionMsg::Attempted(report) => {
                settle_attempt(state, *report);
                pump(&myself, state);
            }
            VisionMsg::Pump(reply) => {
                let started = pump(&myself, state);
                if let Some(reply) = reply {
                    let _ = reply.send(started);
                }
            }
            VisionMsg::Status(reply) => {
                let _ = reply.send(VisionStatus {
                    backend: state.backend.describe(),
                    max_concurrency: state.settings.max_concurrency,
                    min_interval: state.settings.min_interval,
                    in_flight: state.running.len(),
                    queued: state.queue.len(),
                    rate_limited_until: state.paused_until,
                    cache_entries: state.cache.len(),
                    tracked_waits: state.ledger.tracked_waits(),
                    totals: state.ledger.totals(),
                });
            }
        }
        Ok(())
    }
}

/// A new judge request: answered at once (model-free, or from the cache) or queued.
fn admit(
    myself: &ActorRef<VisionMsg>,
    state: &mut VisionState,
    ask: Ask,
    reply: RpcReplyPort<Result<Verdict, JudgeFailure>>,
) {
    let wait_id = ask.request.wait_id.clone();
    if state.backend.cost(&ask.request.content) == Cost::Free {
        answer_free(state.backend.clone(), state.ledger.clone(), ask, reply);
        return;
    }
    if let Some((met, observation)) = state.cache.get(ask.content_key, &ask.request.condition) {
        let verdict = answered_without_a_call(&state.ledger, &wait_id, met, observation);
        let _ = reply.send(Ok(verdict));
        return;
    }
    // The same question already queued or being asked (identical waits on one window): it
    // is asked once, and this caller gets the same answer.
    let asked = state
        .queue
        .iter_mut()
        .chain(state.running.values_mut().map(|running| &mut running.job))
        .find(|job| job.asks(&ask));
    if let Some(job) = asked {
        job.followers.push(Follower {
            wait_id,
            reply,
            _answered: AnsweredOnDrop(ask.request.progress.clone()),
        });
        return;
    }
    state.next_job += 1;
    let answered = AnsweredOnDrop(ask.request.progress.clone());
    state.queue.push_back(Job {
        id: state.next_job,
        ask,
        reply,
        attempts: 0,
        not_before: state.directory.now(),
        material: None,
        usage: Usage::default(),
        reached_model: false,
        _answered: answered,
        followers: Vec::new(),
    });
    pump(myself, state);
}

/// A verdict a wait gets from an answer already given (the cache, or the same question asked
/// for another wait): counted as a cache hit and a judgement, with no model call of its own.
fn answered_without_a_call(
    ledger: &VisionLedger,
    wait_id: &str,
    met: bool,
    observation: String,
) -> Verdict {
    ledger.record(wait_id, Entry::CacheHit);
    ledger.record(wait_id, Entry::Judgement);
    Verdict {
        met,
        observation,
        model_call: None,
    }
}

/// Model-free answers cost nothing: no queue, no cache, no call counted.
fn answer_free(
    backend: Arc<dyn Backend>,
    ledger: VisionLedger,
    ask: Ask,
    reply: RpcReplyPort<Result<Verdict, JudgeFailure>>,
) {
    tokio::spawn(async move {
        let request = ask.request;
        let outcome = match backend.prepare(&request.content) {
            Ok(material) => backend.ask(question(&request, Arc::new(material))).await,
            Err(message) => Err(AttemptError::permanent(message, false)),
        };
        ledger.record(&request.wait_id, Entry::Judgement);
        let verdict = match outcome {
            Ok(answer) => Ok(Verdict {
                met: answer.met,
                observation: answer.observation,
                model_call: None,
            }),
            Err(error) => {
                ledger.record(&request.wait_id, Entry::Failure);
                Err(JudgeFailure {
                    message: error.message,
                    model_call: false,
                })
            }
        };
        let _ = reply.send(verdict);
    });
}

fn question(request: &JudgeRequest, material: Arc<Material>) -> Question {
    Question {
        condition: request.condition.clone(),
        target: request.target.clone(),
        elapsed: request.elapsed,
        material,
    }
}

/// Starts every queued job that is due while slots are free; marks those that wait for
/// the clock parked and arms the pump timer for the first of them. Returns the progress of
/// the judgments it started.
fn pump(myself: &ActorRef<VisionMsg>, state: &mut VisionState) -> Vec<JudgeProgress> {
    let now = state.directory.now();
    if let Some(until) = state.paused_until {
        if until > now {
            for job in &state.queue {
                job.ask.request.progress.parked();
            }
            arm_pump_timer(state, Some(until));
            return Vec::new();
        }
        state.paused_until = None;
    }
    let interval = millis(state.settings.min_interval);
    state
        .last_call
        .retain(|_, at| at.saturating_add_millis(interval) > now);
    // A job whose caller gave up (its wait ended, or timed out waiting) is answered by nobody:
    // it is dropped, not started, so no model is called for it.
    let before = state.queue.len();
    state.queue.retain(|job| !job.abandoned());
    if state.queue.len() < before {
        tracing::debug!(
            dropped = before - state.queue.len(),
            "dropped judge jobs whose callers are gone"
        );
    }
    let mut started = Vec::new();
    let mut next_due: Option<Timestamp> = None;
    let mut index = 0;
    let slots = state.settings.max_concurrency.max(1);
    while index < state.queue.len() && state.running.len() < slots {
        let job = &state.queue[index];
        let spaced = state
            .last_call
            .get(&job.ask.request.wait_id)
            .map(|at| at.saturating_add_millis(interval));
        let due = spaced.map_or(job.not_before, |spaced| spaced.max(job.not_before));
        if due > now {
            job.ask.request.progress.parked();
            next_due = Some(next_due.map_or(due, |next| next.min(due)));
            index += 1;
            continue;
        }
        if let Some(job) = state.queue.remove(index) {
            started.push(job.ask.request.progress.clone());
            start_attempt(myself, state, job, now);
        }
    }
    arm_pump_timer(state, next_due);
    started
}

fn arm_pump_timer(state: &VisionState, at: Option<Timestamp>) {
    let timers = state.directory.timers();
    let Some(at) = at else {
        timers.cancel(PUMP_TIMER);
        return;
    };
    if timers.deadline(PUMP_TIMER) == Some(at) {
        return;
    }
    let directory = state.directory.clone();
    timers.at(PUMP_TIMER, at, move || async move {
        if let Ok(vision) = directory.vision() {
            let started = vision
                .call(|reply| VisionMsg::Pump(Some(reply)), Some(PUMP_TIMEOUT))
                .await;
            // A tick waits for the judgments it set going again, as it does for new ones.
            if let Ok(CallResult::Success(started)) = started {
                for progress in started {
                    progress.until_not_running().await;
                }
            }
        }
    });
}

/// Runs one attempt as a task: prepare the content (once per job, on a blocking thread),
/// ask the backend, report back.
fn start_attempt(
    myself: &ActorRef<VisionMsg>,
    state: &mut VisionState,
    mut job: Job,
    now: Timestamp,
) {
    job.attempts += 1;
    job.ask.request.progress.running();
    state.last_call.insert(job.ask.request.wait_id.clone(), now);
    let backend = state.backend.clone();
    let clock: Arc<dyn Clock> = state.directory.clock().clone();
    let actor = myself.clone();
    let prepared = job.material.clone();
    let request = job.ask.request.clone();
    let id = job.id;
    let cap = state.settings.timeout + ATTEMPT_TIMEOUT_SLACK;
    let task = tokio::spawn(async move {
        let material = match prepared {
            Some(material) => Ok(material),
            None => {
                let preparer = backend.clone();
                let content = request.content.clone();
                match tokio::task::spawn_blocking(move || preparer.prepare(&content)).await {
                    Ok(prepared) => prepared.map(Arc::new),
                    Err(error) => Err(format!("preparing the frame failed: {error}")),
                }
            }
        };
        let report = match material {
            Ok(material) => {
                let started = clock.now();
                let attempt = backend.ask(question(&request, material.clone()));
                let outcome = tokio::time::timeout(cap, attempt)
                    .await
                    .unwrap_or_else(|_| {
                        Err(AttemptError::transient(
                            format!("no answer within {}s", cap.as_secs()),
                            true,
                        ))
                    });
                AttemptReport {
                    job: id,
                    material: Some(material),
                    outcome,
                    latency_ms: clock.now().millis_since(started),
                }
            }
            Err(message) => AttemptReport {
                job: id,
                material: None,
                outcome: Err(AttemptError::permanent(message, false)),
                latency_ms: 0,
            },
        };
        let _ = actor.cast(VisionMsg::Attempted(Box::new(report)));
    });
    state.running.insert(
        id,
        Running {
            job,
            task: task.abort_handle(),
        },
    );
}

/// Counts an attempt and answers its caller, or queues the next attempt.
fn settle_attempt(state: &mut VisionState, report: AttemptReport) {
    let Some(Running { mut job, .. }) = state.running.remove(&report.job) else {
        return;
    };
    let wait_id = job.ask.request.wait_id.clone();
    let reached = match &report.outcome {
        Ok(_) => true,
        Err(error) => error.reached_model,
    };
    if reached {
        job.reached_model = true;
        state.ledger.record(
            &wait_id,
            Entry::Call {
                latency_ms: report.latency_ms,
            },
        );
    }
    job.material = report.material;
    let error = match report.outcome {
        Ok(answer) => {
            job.usage.input_tokens += answer.usage.input_tokens;
            job.usage.output_tokens += answer.usage.output_tokens;
            state.ledger.record(&wait_id, Entry::Tokens(answer.usage));
            state.ledger.record(&wait_id, Entry::Judgement);
            state.cache.insert(
                job.ask.content_key,
                &job.ask.request.condition,
                answer.met,
                &answer.observation,
            );
            job.answer_followers(&state.ledger, &Ok((answer.met, answer.observation.clone())));
            let _ = job.reply.send(Ok(Verdict {
                met: answer.met,
                observation: answer.observation,
                model_call: Some(job.usage),
            }));
            return;
        }
        Err(error) => error,
    };
    let cost = state.backend.cost(&job.ask.request.content);
    let retry = error
        .retry
        .filter(|_| cost == Cost::Remote && job.attempts <= state.settings.retries);
    let mut message = error.message;
    if retry.is_some() && job.abandoned() {
        tracing::debug!(wait = %wait_id, error = %message, "vision call failed; its caller is gone, so no retry");
        return;
    }
    if let Some(hint) = retry {
        let delay = hint.after.unwrap_or_else(|| retry_delay(job.attempts));
        if delay <= MAX_RETRY_AFTER {
            let at = state.directory.now().saturating_add_millis(millis(delay));
            tracing::warn!(
                wait = %wait_id,
                attempt = job.attempts,
                retry_in_ms = millis(delay),
                error = %message,
                "vision call failed; retrying"
            );
            if hint.rate_limited {
                state.paused_until = Some(state.paused_until.map_or(at, |until| until.max(at)));
            }
            job.not_before = at;
            state.ledger.record(&wait_id, Entry::Retry);
            state.queue.push_front(job);
            return;
        }
        message = format!(
            "{message}; the provider asks to wait {}s, longer than lookout waits ({}s)",
            delay.as_secs(),
            MAX_RETRY_AFTER.as_secs()
        );
    }
    if job.attempts > 1 {
        message = format!("{message} (after {} attempts)", job.attempts);
    }
    tracing::warn!(wait = %wait_id, error = %message, "vision judge failed");
    state.ledger.record(&wait_id, Entry::Failure);
    state.ledger.record(&wait_id, Entry::Judgement);
    job.answer_followers(&state.ledger, &Err(message.clone()));
    let _ = job.reply.send(Err(JudgeFailure {
        message,
        model_call: job.reached_model,
    }));
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_from_one_second_to_a_minute() {
        let delays: Vec<u64> = (1..=9).map(|n| retry_delay(n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(retry_delay(u32::MAX), MAX_RETRY_DELAY);
    }
}
