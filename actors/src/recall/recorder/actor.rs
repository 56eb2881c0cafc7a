//! The Recorder actor: recall's screen history. Every interval (a Clock timer) it decides
//! whether it may record at all (the mode, a pause, an active task in `tasks` mode), then on
//! a blocking thread asks the desktop (X11, or a wlroots Wayland compositor: [`super::desk`])
//! for the focused window and, when the screen is not locked and the window can be named and
//! is not excluded, captures it. The pixel gate says whether
//! anything changed and where; a settled change queues an OCR job for that region only
//! (tesseract, one job at a time, the latest per segment). What tesseract reads is redacted
//! and added to the window's open segment, which goes to the recall index when it opens, then
//! at most every 10 s while it changes (each put re-indexes it whole), at its close and when
//! the daemon stops: a crash loses at most the last 10 s read. A segment with nothing new for
//! the idle gap closes; the notes the agent posted to its task meanwhile become steps. With a
//! model for procedures, a closed segment is then described by it ([`super::procedure`]) in
//! a task of its own and put again with the model's summary and steps, unless it was
//! forgotten meanwhile.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use recall::{Document, Forget};
use storage::{MsgType, Role, Status, StatusFilter, Store, TaskId, Timestamp};

use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::locks::lock;
use crate::recall::RecallMsg;
use crate::recall::recorder::desk::{Desk, Look, look};
use crate::recall::recorder::keyframes::Keyframes;
use crate::recall::recorder::privacy::{Exclusions, redact};
use crate::recall::recorder::procedure::{self, Described};
use crate::recall::recorder::segment::{Segment, Stamp};
use crate::recall::recorder::{RecordMode, RecorderSettings, RecorderState, RecorderStatus};
use crate::registry;
use crate::sight::content::{Content, Frame};
use crate::sight::gate::pixel::PixelGate;
use crate::sight::gate::tiles::{TILE_SIZE, TileRect};
use crate::sight::gate::{Gate, GateDecision, Readiness};
use crate::tasks::transition::progress_of;
use crate::vision::image::encode_grey_region;
use crate::vision::ocr::read_text;

/// The timer that drives the recorder.
const TICK_TIMER: &str = "recall:recorder";
/// How long tesseract may take on one region.
const OCR_TIMEOUT: Duration = Duration::from_secs(60);
/// tesseract's arguments: the PNG on stdin, the text on stdout, one block of text.
const OCR_ARGS: [&str; 4] = ["stdin", "stdout", "--psm", "6"];
/// The gate's floor: a busy region (a scrolling log, a ticking clock) is read at most every
/// 30 s, then at doubling intervals up to this. A still window asked again at the floor has
/// no changed rectangle, so it costs no OCR.
const GATE_FLOOR: Duration = Duration::from_secs(60);
/// Keyframes per segment at most, and the least time between two.
const MAX_KEYFRAMES: usize = 12;
const KEYFRAME_SPACING_MS: u64 = 10_000;
/// Segments kept open at once (one per recently focused window).
const MAX_OPEN_SEGMENTS: usize = 8;
/// Thread messages read for the notes of a closing segment.
const NOTES_DEPTH: usize = 500;
/// An open segment that changed goes to the index at most this often (the first time and at
/// its close at once): each put re-indexes it whole.
const PUT_EVERY_MS: u64 = 10_000;

pub enum RecorderMsg {
    Tick,
    /// tesseract finished a job.
    Read(Box<OcrOutcome>),
    /// `lookout recall pause [--for]`.
    Pause(Option<Duration>, RpcReplyPort<RecorderStatus>),
    Resume(RpcReplyPort<RecorderStatus>),
    Status(RpcReplyPort<RecorderStatus>),
    /// Drop the open segments the filter names (before the index forgets them); replies
    /// how many.
    Forget(Forget, RpcReplyPort<u64>),
    /// The model answered for the closed segment of this key (or failed).
    Described(String, Result<Described, String>),
}

/// A closed segment for the model, and whether it was asked yet.
struct Describing {
    document: Document,
    asked: bool,
}

pub struct RecorderActor;

pub struct RecorderArgs {
    pub directory: Directory,
    pub settings: Arc<RecorderSettings>,
}

/// One region of one window to read.
pub struct OcrJob {
    segment_id: String,
    frame: Frame,
    region: TileRect,
    at_ms: u64,
}

pub struct OcrOutcome {
    job: OcrJob,
    text: Result<String, String>,
    took_ms: u64,
}

pub struct RecorderActorState {
    directory: Directory,
    settings: Arc<RecorderSettings>,
    exclusions: Exclusions,
    desk: Option<Desk>,
    gate: PixelGate,
    gate_window: Option<u32>,
    open: Vec<Segment>,
    keyframes: Option<Arc<Mutex<Keyframes>>>,
    ocr_busy: bool,
    /// The latest job per segment, waiting for tesseract.
    pending: Vec<OcrJob>,
    /// Closed segments for the model to describe (put again once it answered).
    describing: Vec<Describing>,
    /// `Some(None)`: paused until resumed; `Some(Some(at))`: until then.
    paused: Option<Option<Timestamp>>,
    status: RecorderStatus,
}

impl Actor for RecorderActor {
    type Msg = RecorderMsg;
    type State = RecorderActorState;
    type Arguments = RecorderArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<RecorderMsg>,
        args: RecorderArgs,
    ) -> Result<RecorderActorState, ActorProcessingErr> {
        let settings = args.settings;
        let mut status = RecorderStatus {
            mode: settings.mode,
            ..RecorderStatus::default()
        };
        let mut keyframes = None;
        if settings.mode != RecordMode::Off {
            let (dir, budget) = (settings.frames_dir.clone(), settings.keyframe_budget_bytes);
            match tokio::task::spawn_blocking(move || Keyframes::open(&dir, budget)).await? {
                Ok(opened) => {
                    status.keyframe_bytes = opened.used_bytes();
                    keyframes = Some(Arc::new(Mutex::new(opened)));
                }
                Err(error) => {
                    status.last_error = Some(format!(
                        "keyframes are not kept: {}: {error}",
                        settings.frames_dir.display()
                    ));
                }
            }
            let tick = myself.clone();
            let first = args
                .directory
                .now()
                .saturating_add_millis(settings.interval.as_millis() as u64);
            args.directory
                .timers()
                .every(TICK_TIMER, first, settings.interval, move || {
                    let _ = tick.cast(RecorderMsg::Tick);
                    async {}
                });
        }
        Ok(RecorderActorState {
            exclusions: Exclusions::new(&settings.exclude),
            directory: args.directory,
            desk: None,
            gate: PixelGate::new(GATE_FLOOR),
            gate_window: None,
            open: Vec::new(),
            keyframes,
            ocr_busy: false,
            pending: Vec::new(),
            describing: Vec::new(),
            paused: None,
            status,
            settings,
        })
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<RecorderMsg>,
        state: &mut RecorderActorState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.timers().cancel(TICK_TIMER);
        // What changed since the last put goes to the index before the daemon stops.
        for segment in state.open.iter().filter(|segment| segment.dirty) {
            put(&state.directory, segment.document());
        }
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<RecorderMsg>,
        message: RecorderMsg,
        state: &mut RecorderActorState,
    ) -> Result<(), ActorProcessingErr> {
        let faults = state.directory.faults().clone();
        faults.check(ActorKind::Recorder);
        faults.hold_if_wedged(ActorKind::Recorder).await;
        match message {
            RecorderMsg::Tick => {
                tick(&myself, state).await;
                put_due(state, state.directory.now());
                ask_for_procedures(&myself, state);
            }
            RecorderMsg::Read(outcome) => {
                state.ocr_busy = false;
                took_in(state, *outcome).await;
                dispatch(&myself, state);
            }
            RecorderMsg::Pause(duration, reply) => {
                let until = duration.map(|d| {
                    state
                        .directory
                        .now()
                        .saturating_add_millis(d.as_millis() as u64)
                });
                state.paused = Some(until);
                pause_state(state, until);
                let _ = reply.send(status_of(state));
            }
            RecorderMsg::Resume(reply) => {
                state.paused = None;
                if state.status.state == RecorderState::PausedUser {
                    if state.settings.mode == RecordMode::Off {
                        // Nothing records with the mode off: back to what it was.
                        state.status.state = RecorderState::Off;
                        state.status.reason = None;
                    } else {
                        set_state(
                            state,
                            RecorderState::Idle,
                            "resumed: recording starts again at the next capture",
                        );
                    }
                }
                let _ = reply.send(status_of(state));
            }
            RecorderMsg::Status(reply) => {
                let _ = reply.send(status_of(state));
            }
            RecorderMsg::Forget(filter, reply) => {
                let before = state.open.len();
                state.open.retain(|segment| {
                    let task = segment.stamp.as_ref().map(|stamp| stamp.task_id.as_str());
                    !forgets(&filter, segment.end_ms, &segment.app, task)
                });
                state.describing.retain(|Describing { document, .. }| {
                    let app = document.app.as_deref().unwrap_or_default();
                    !forgets(&filter, document.end_ms, app, document.task_id.as_deref())
                });
                let kept: Vec<&str> = state.open.iter().map(|s| s.id.as_str()).collect();
                state
                    .pending
                    .retain(|job| kept.contains(&job.segment_id.as_str()));
                let _ = reply.send((before - state.open.len()) as u64);
            }
            RecorderMsg::Described(key, outcome) => described(state, &key, outcome),
        }
        Ok(())
    }
}

fn status_of(state: &RecorderActorState) -> RecorderStatus {
    let mut status = state.status.clone();
    status.open_segments = state.open.len();
    if let Some(keyframes) = &state.keyframes {
        status.keyframe_bytes = lock(keyframes).used_bytes();
    }
    status
}

fn set_state(state: &mut RecorderActorState, to: RecorderState, reason: impl Into<String>) {
    state.status.state = to;
    state.status.reason = Some(reason.into());
    if to != RecorderState::Capturing {
        state.status.app = None;
    }
}

fn pause_state(state: &mut RecorderActorState, until: Option<Timestamp>) {
    state.status.paused_until = until;
    let reason = match until {
        Some(at) => format!("paused by the user until {}", at.to_rfc3339()),
        None => "paused by the user until `lookout recall resume`".to_owned(),
    };
    set_state(state, RecorderState::PausedUser, reason);
}

/// Whether `filter` (a `recall forget`) names a segment that ended at `end_ms`, of `app`,
/// stamped with `task`.
fn forgets(filter: &Forget, end_ms: u64, app: &str, task: Option<&str>) -> bool {
    filter.since_ms.is_none_or(|since| end_ms >= since)
        && filter.before_ms.is_none_or(|before| end_ms < before)
        && (filter.app.as_ref()).is_none_or(|wanted| wanted.eq_ignore_ascii_case(app))
        && (filter.task_id.as_deref()).is_none_or(|wanted| task == Some(wanted))
}

async fn tick(myself: &ActorRef<RecorderMsg>, state: &mut RecorderActorState) {
    let now = state.directory.now();
    if let Some(until) = state.paused {
        if until.is_none_or(|at| now < at) {
            pause_state(state, until);
            return;
        }
        state.paused = None;
        state.status.paused_until = None;
    }
    let stamp = match active_task(&state.directory).await {
        Ok(stamp) => stamp,
        Err(error) => {
            set_state(state, RecorderState::Stalled, error.message);
            return;
        }
    };
    if state.settings.mode == RecordMode::Tasks && stamp.is_none() {
        set_state(
            state,
            RecorderState::Idle,
            "no task is active; mode \"tasks\" records only while one is",
        );
        close_segments(state, now, true).await;
        return;
    }
    let desk = state.desk.take();
    let settings = state.settings.desk.clone();
    let exclusions = state.exclusions.clone();
    let joined = tokio::task::spawn_blocking(move || look(desk, &settings, &exclusions)).await;
    let (desk, seen) = match joined {
        Ok(result) => result,
        Err(error) => (None, Err(format!("the capture thread failed: {error}"))),
    };
    state.desk = desk;
    match seen {
        Err(message) => set_state(state, RecorderState::Stalled, message),
        Ok(Look::Locked) => set_state(
            state,
            RecorderState::PausedLocked,
            "the screen is locked (the screen saver is on)",
        ),
        Ok(Look::Unknown(reason)) => set_state(
            state,
            RecorderState::PausedPrivacy,
            format!("nothing is recorded while the focused window cannot be named: {reason}"),
        ),
        Ok(Look::Excluded(pattern)) => set_state(
            state,
            RecorderState::PausedPrivacy,
            format!("the focused window is excluded (it matches \"{pattern}\")"),
        ),
        Ok(Look::Window {
            id,
            title,
            class,
            content,
        }) => {
            set_state(
                state,
                RecorderState::Capturing,
                "recording the focused window",
            );
            state.status.app = Some(class.clone());
            state.status.captures += 1;
            if let Content::Frame(frame) = content {
                record(state, id, &title, &class, frame, stamp, now).await;
                dispatch(myself, state);
            }
        }
    }
    close_segments(state, now, false).await;
}

/// Puts the open segments that changed, each at most every [`PUT_EVERY_MS`].
fn put_due(state: &mut RecorderActorState, now: Timestamp) {
    for segment in &mut state.open {
        let due = segment
            .put_at_ms
            .is_none_or(|at| now.as_millis().saturating_sub(at) >= PUT_EVERY_MS);
        if segment.dirty && due {
            put(&state.directory, segment.document());
            segment.put_at_ms = Some(now.as_millis());
            segment.dirty = false;
        }
    }
}

/// The newest active task and its current step.
async fn active_task(directory: &Directory) -> Result<Option<Stamp>, CallError> {
    registry::read(&directory.registry()?, |store: &Store| {
        let page = store.list_tasks(&StatusFilter::Only(Status::Active), 1)?;
        Ok(page.tasks.into_iter().next().map(|task| Stamp {
            step: progress_of(&task).current,
            task_id: task.id.as_str().to_owned(),
        }))
    })
    .await
}

/// A capture of the focused window: its segment, and an OCR job when it settled on a change.
async fn record(
    state: &mut RecorderActorState,
    window: u32,
    title: &str,
    class: &str,
    frame: Frame,
    stamp: Option<Stamp>,
    now: Timestamp,
) {
    let title = redact(title).0;
    let at_ms = now.as_millis();
    if state.gate_window != Some(window) {
        state.gate.reset();
        state.gate_window = Some(window);
    }
    let content = Content::Frame(frame.clone());
    let decision = state.gate.consider(&content, now);
    let mut news = false;
    let segment = match state.open.iter().position(|s| s.window == window) {
        Some(at) => {
            news |= state.open[at].retitle(&title, at_ms);
            &mut state.open[at]
        }
        None => {
            if state.open.len() >= MAX_OPEN_SEGMENTS {
                close_oldest(state).await;
            }
            state.status.segments += 1;
            news = true;
            state
                .open
                .push(Segment::open(window, class, &title, stamp, at_ms));
            state.open.last_mut().expect("just pushed")
        }
    };
    segment.seen(at_ms);
    let segment_id = segment.id.clone();
    if let GateDecision::Judge(readiness) = decision {
        state.gate.judged(&content, readiness, now);
        if readiness == Readiness::Settled
            && let Some(region) = state.gate.changed_region()
        {
            let job = OcrJob {
                segment_id: segment_id.clone(),
                region: region.padded(TILE_SIZE, frame.width, frame.height),
                frame,
                at_ms,
            };
            state
                .pending
                .retain(|queued| queued.segment_id != segment_id);
            state.pending.push(job);
        }
    }
    if news && let Some(segment) = state.open.iter_mut().find(|s| s.id == segment_id) {
        segment.dirty = true;
    }
}

/// Starts the next OCR job when none runs.
fn dispatch(myself: &ActorRef<RecorderMsg>, state: &mut RecorderActorState) {
    if state.ocr_busy || state.pending.is_empty() {
        return;
    }
    let job = state.pending.remove(0);
    state.ocr_busy = true;
    let settings = state.settings.clone();
    let directory = state.directory.clone();
    let myself = myself.clone();
    tokio::spawn(async move {
        let started = directory.now();
        let (frame, region) = (job.frame.clone(), job.region);
        let encoded = tokio::task::spawn_blocking(move || encode_grey_region(&frame, region))
            .await
            .map_err(|error| error.to_string())
            .and_then(|encoded| encoded);
        let args: Vec<String> = OCR_ARGS.iter().map(|arg| arg.to_string()).collect();
        let text = match encoded {
            Ok(image) => read_text(
                &*settings.spawner,
                &settings.ocr_program,
                image.bytes,
                &args,
                OCR_TIMEOUT,
            )
            .await
            .map_err(|failure| failure.message),
            Err(error) => Err(error),
        };
        let took_ms = directory.now().millis_since(started);
        let _ = myself.cast(RecorderMsg::Read(Box::new(OcrOutcome {
            job,
            text,
            took_ms,
        })));
    });
}

/// What tesseract read: redacted, added to its segment, a keyframe when it is news, and the
/// segment put in the index.
async fn took_in(state: &mut RecorderActorState, outcome: OcrOutcome) {
    state.status.ocr_runs += 1;
    state.status.ocr_ms += outcome.took_ms;
    let text = match outcome.text {
        Ok(text) => text,
        Err(error) => {
            state.status.ocr_failures += 1;
            tracing::warn!("recall could not read the screen: {error}");
            state.status.last_error = Some(error);
            return;
        }
    };
    let OcrJob {
        segment_id,
        frame,
        at_ms,
        ..
    } = outcome.job;
    let Some(at) = state.open.iter().position(|s| s.id == segment_id) else {
        return; // closed or forgotten meanwhile
    };
    let (text, secrets) = redact(&text);
    let segment = &mut state.open[at];
    if secrets > 0 {
        state.status.redactions += secrets as u64;
        segment.secret_seen = true;
        segment.frames.clear();
        if let Some(keyframes) = state.keyframes.clone() {
            let id = segment_id.clone();
            let _ = tokio::task::spawn_blocking(move || lock(&keyframes).remove_segment(&id)).await;
        }
    }
    let news = segment.read(&text, at_ms) > 0;
    let wants_keyframe = !segment.secret_seen
        && segment.frames.len() < MAX_KEYFRAMES
        && segment.frames.last().is_none_or(|last| {
            at_ms.saturating_sub(segment.start_ms + last.offset_ms) >= KEYFRAME_SPACING_MS
        })
        && (news || segment.frames.is_empty());
    if wants_keyframe && let Some(keyframes) = state.keyframes.clone() {
        let offset_ms = at_ms - segment.start_ms;
        let id = segment_id.clone();
        let written =
            tokio::task::spawn_blocking(move || lock(&keyframes).write(&id, offset_ms, &frame))
                .await
                .map_err(|error| error.to_string())
                .and_then(|written| written);
        match written {
            Ok(keyframe) => {
                state.status.keyframes += 1;
                state.open[at].frames.push(keyframe);
            }
            Err(error) => state.status.last_error = Some(error),
        }
    }
    if news || secrets > 0 {
        state.open[at].dirty = true;
    }
}

/// Puts a segment's document in the index (replacing the one of its key).
fn put(directory: &Directory, document: Document) {
    if let Ok(recall) = directory.recall() {
        let _ = recall.cast(RecallMsg::Put(vec![document]));
    }
}

/// Closes the segments with nothing new for the idle gap (all of them with `all`), adding
/// the notes posted to their task meanwhile.
async fn close_segments(state: &mut RecorderActorState, now: Timestamp, all: bool) {
    let gap = state.settings.idle_gap.as_millis() as u64;
    let focused = state.gate_window;
    let (closing, open): (Vec<Segment>, Vec<Segment>) = std::mem::take(&mut state.open)
        .into_iter()
        .partition(|segment| {
            all || (Some(segment.window) != focused
                && now.as_millis().saturating_sub(segment.last_news_ms) >= gap)
        });
    state.open = open;
    if all {
        state.gate_window = None;
    }
    for segment in closing {
        close(state, segment).await;
    }
}

async fn close_oldest(state: &mut RecorderActorState) {
    if let Some(at) = (0..state.open.len()).min_by_key(|&at| state.open[at].last_news_ms) {
        let segment = state.open.remove(at);
        close(state, segment).await;
    }
}

async fn close(state: &mut RecorderActorState, mut segment: Segment) {
    if let Some(stamp) = segment.stamp.clone()
        && let Ok(notes) = notes_during(&state.directory, &stamp.task_id, &segment).await
    {
        for (at_ms, text) in notes {
            if !segment.has_step_at(at_ms) {
                segment.note(&redact(&text).0, at_ms);
            }
        }
    }
    let document = segment.document();
    // Only the opening: nothing happened to describe.
    if state.settings.procedures.is_some() && document.steps.len() > 1 {
        state.describing.push(Describing {
            document: document.clone(),
            asked: false,
        });
    }
    put(&state.directory, document);
}

/// Asks the model for the procedures of the segments closed since the last time.
fn ask_for_procedures(myself: &ActorRef<RecorderMsg>, state: &mut RecorderActorState) {
    let Some(model) = &state.settings.procedures else {
        return;
    };
    for describing in state.describing.iter_mut().filter(|d| !d.asked) {
        describing.asked = true;
        procedure::ask(myself.clone(), model.clone(), describing.document.clone());
    }
}

/// Puts a described segment again with the model's summary and steps (unless it was
/// forgotten meanwhile); a failure keeps the steps read off the screen and is reported.
fn described(state: &mut RecorderActorState, key: &str, outcome: Result<Described, String>) {
    let Some(at) = state.describing.iter().position(|d| d.document.key == key) else {
        return; // forgotten meanwhile
    };
    let mut document = state.describing.remove(at).document;
    match outcome {
        Ok(described) => {
            procedure::apply(&mut document, described.procedure);
            state.status.procedures += 1;
            state.status.procedure_tokens += described.tokens;
            put(&state.directory, document);
        }
        Err(error) => {
            state.status.procedure_failures += 1;
            state.status.last_error = Some(format!(
                "the model did not describe a segment of {} (its steps are those read off the screen): {error}",
                document.app.as_deref().unwrap_or("a window")
            ));
        }
    }
}

/// The agent's notes to `task_id` while `segment` was open.
async fn notes_during(
    directory: &Directory,
    task_id: &str,
    segment: &Segment,
) -> Result<Vec<(u64, String)>, CallError> {
    let id = TaskId::new(task_id);
    let (start, end) = (segment.start_ms, segment.end_ms);
    registry::read(&directory.registry()?, move |store: &Store| {
        Ok(store
            .thread(&id, None, NOTES_DEPTH)?
            .into_iter()
            .filter(|(_, m)| m.role == Role::Agent && m.msg_type == MsgType::Text)
            .map(|(_, m)| (m.created_at.as_millis(), m.content))
            .filter(|(at, _)| (start..=end).contains(at))
            .collect())
    })
    .await
}
