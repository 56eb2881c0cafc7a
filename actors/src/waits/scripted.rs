//! Scripted stand-ins for the seams of smart waits: a source whose content a test sets, and a
//! judge that answers by a rule. Used by the tests and by the fault-injection harness; they
//! go through exactly the code paths real sources and judges do.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::watch;

use crate::condition::judge::{Judge, JudgeFailure, JudgeRequest, Verdict};
use crate::directory::Directory;
use crate::error::CallError;
use crate::sight::capture::{CaptureError, Source};
use crate::sight::content::Content;
use crate::sight::gate::Gate;
use crate::sight::gate::pixel::PixelGate;
use crate::sight::gate::text::TextGate;
use crate::sight::target::Target;

/// A target whose content the test controls.
#[derive(Clone, Debug)]
pub struct ScriptedTarget {
    state: Arc<Mutex<ScriptState>>,
}

#[derive(Debug)]
struct ScriptState {
    current: Content,
    failures: VecDeque<CaptureError>,
    captures: u64,
    panic_next: bool,
    /// Tells the waits when it changed (a target made with `told_target`), until
    /// `stop_telling`.
    changes: Option<watch::Sender<u64>>,
    /// Says it tells every change (a window under DAMAGE: `told_window`).
    tells_every_change: bool,
    /// How long each capture takes (`slow_captures`).
    capture_delay: Duration,
}

impl ScriptedTarget {
    fn new(initial: Content) -> Self {
        let state = ScriptState {
            current: initial,
            failures: VecDeque::new(),
            captures: 0,
            panic_next: false,
            changes: None,
            tells_every_change: false,
            capture_delay: Duration::ZERO,
        };
        Self {
            state: Arc::new(Mutex::new(state)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ScriptState> {
        crate::locks::lock(&self.state)
    }

    /// What the next captures see.
    pub fn show(&self, content: Content) {
        let mut state = self.lock();
        state.current = content;
        if let Some(changes) = &state.changes {
            changes.send_modify(|count| *count += 1);
        }
    }

    /// From now on the target no longer says when it changed: only the polls see it.
    pub fn stop_telling(&self) {
        self.lock().changes = None;
    }

    /// The next capture fails with this error (queued after earlier ones).
    pub fn fail_next(&self, error: CaptureError) {
        self.lock().failures.push_back(error);
    }

    /// The next capture panics (the watcher dies and is restarted).
    pub fn panic_next(&self) {
        self.lock().panic_next = true;
    }

    pub fn captures(&self) -> u64 {
        self.lock().captures
    }

    /// From now on each capture takes this long.
    pub fn slow_captures(&self, delay: Duration) {
        self.lock().capture_delay = delay;
    }

    /// How many follow the target's changes (a Watcher's follower, a feed).
    pub fn listeners(&self) -> usize {
        self.lock()
            .changes
            .as_ref()
            .map_or(0, watch::Sender::receiver_count)
    }
}

struct ScriptedSource {
    name: String,
    target: ScriptedTarget,
}

impl Source for ScriptedSource {
    fn describe(&self) -> String {
        format!("scripted {}", self.name)
    }

    fn changes(&mut self) -> Option<watch::Receiver<u64>> {
        self.target
            .lock()
            .changes
            .as_ref()
            .map(watch::Sender::subscribe)
    }

    fn tells_every_change(&self) -> bool {
        let state = self.target.lock();
        state.tells_every_change && state.changes.is_some()
    }

    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        let delay = self.target.lock().capture_delay;
        let outcome = {
            let mut state = self.target.lock();
            state.captures += 1;
            if std::mem::take(&mut state.panic_next) {
                drop(state);
                panic!("the scripted source of {} panics on purpose", self.name);
            }
            match state.failures.pop_front() {
                Some(error) => Err(error),
                None => Ok(state.current.clone()),
            }
        };
        Box::pin(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            outcome
        })
    }
}

/// A source factory serving scripted targets by their target text (`file:/x`, `pty:s-1`…).
#[derive(Debug, Default)]
pub struct ScriptedSources {
    targets: Mutex<HashMap<String, ScriptedTarget>>,
    /// Targets gated by the pixel gate with this floor (`told_window`); the rest by the text
    /// gate.
    pixel_floors: Mutex<HashMap<String, Duration>>,
}

impl ScriptedSources {
    /// Registers `target` (e.g. "tmux:build") with its first content; returns its handle.
    pub fn target(&self, target: &str, initial: Content) -> ScriptedTarget {
        let handle = ScriptedTarget::new(initial);
        crate::locks::lock(&self.targets).insert(canonical(target), handle.clone());
        handle
    }

    /// The same for a target that tells the waits when it changed, as a file or a terminal
    /// session does.
    pub fn told_target(&self, target: &str, initial: Content) -> ScriptedTarget {
        let handle = self.target(target, initial);
        handle.lock().changes = Some(watch::Sender::new(0));
        handle
    }

    /// A window as X11 under DAMAGE shows it: told of every change (until `stop_telling`),
    /// gated by the pixel gate whose floor is `floor`.
    pub fn told_window(&self, target: &str, initial: Content, floor: Duration) -> ScriptedTarget {
        let handle = self.told_target(target, initial);
        handle.lock().tells_every_change = true;
        crate::locks::lock(&self.pixel_floors).insert(canonical(target), floor);
        handle
    }
}

/// A target as the factory is asked for it (as `Target` writes it), or as written when it
/// does not parse.
fn canonical(target: &str) -> String {
    Target::parse(target).map_or_else(|_| target.to_owned(), |t| t.to_string())
}

impl crate::waits::sources::SourceFactory for ScriptedSources {
    fn source(
        &self,
        target: &Target,
        _directory: &Directory,
    ) -> Result<Box<dyn Source>, CallError> {
        let name = target.to_string();
        let handle = crate::locks::lock(&self.targets).get(&name).cloned();
        match handle {
            Some(target) => Ok(Box::new(ScriptedSource { name, target })),
            None => Err(CallError::not_found(
                format!("no scripted target {name}"),
                "register it with ScriptedSources::target before waiting on it",
            )),
        }
    }

    fn gate(&self, target: &Target) -> Box<dyn Gate> {
        match crate::locks::lock(&self.pixel_floors).get(&target.to_string()) {
            Some(&floor) => Box::new(PixelGate::new(floor)),
            None => Box::new(TextGate::default()),
        }
    }
}

type Rule = dyn Fn(&JudgeRequest) -> Result<Verdict, JudgeFailure> + Send + Sync;

/// A model stand-in that answers by a rule and counts its calls.
pub struct ScriptedJudge {
    rule: Box<Rule>,
    calls: AtomicU64,
}

impl ScriptedJudge {
    pub fn new(
        rule: impl Fn(&JudgeRequest) -> Result<Verdict, JudgeFailure> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            rule: Box::new(rule),
            calls: AtomicU64::new(0),
        })
    }

    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::SeqCst)
    }
}

impl fmt::Debug for ScriptedJudge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedJudge")
            .field("calls", &self.calls())
            .finish_non_exhaustive()
    }
}

impl Judge for ScriptedJudge {
    fn describe(&self) -> String {
        "scripted judge".to_owned()
    }

    fn judge(&self, request: JudgeRequest) -> BoxFuture<'static, Result<Verdict, JudgeFailure>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let answer = (self.rule)(&request);
        Box::pin(async move { answer })
    }
}
