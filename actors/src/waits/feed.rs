//! Feeds: one capture of a target serves every wait on it.
//!
//! A [`Feed`] owns the target's `Source` (for a window: one X connection and one shared-memory
//! segment) and its latest captures; [`Feeds`] hands the same feed to every Watcher whose
//! wait watches the same target, and the feed goes (its source closed) when the last of them
//! does. A Watcher asks for a capture at each poll; one taken for another wait moments ago
//! (within [`COALESCE`]) is handed on instead of capturing again, and waits' polls are aligned
//! to multiples of their interval, so a hundred waits on one window cost one capture per poll.
//! For window and screen targets the feed also moves the target's tile [`Timeline`] on once per
//! capture, so each wait's pixel gate keeps only what its own judge saw (a baseline of tile
//! hashes and the frame judged), not a history of the target of its own.
//!
//! A source told of its target's changes (a file, a terminal session) has each Watcher
//! capture as soon as its count moves on; a capture that began before the latest change is
//! never handed on, so a line written just after another wait's capture is not missed.
//!
//! **Unchanged without a read.** A source that tells *every* change while it is told at all
//! (an X11 window under DAMAGE: [`Source::tells_every_change`]) need not be read at a poll
//! that comes after no change: when the wait's gate would skip the frame it saw last anyway
//! ([`Gate::skips_unchanged`](crate::sight::gate::Gate::skips_unchanged)),
//! [`Feed::unchanged_since`] says so without capturing, and moves the target's timeline on
//! as if that frame were seen again. Still windows cost a timer and two messages per poll,
//! not a frame's read and hashes; the target is read anyway [`READ_ANYWAY_AFTER`] after its
//! last read, the safety net of a report lost.
//!
//! Settle probes share captures too but never move the timeline (their captures are not the
//! polls' rhythm), and a poll never takes a probe's capture for its own.
//!
//! A capture is kept for handing on only until every wait on the target has taken it: on a
//! still window nothing holds its pixels between polls (the gates keep tile hashes and the
//! judged frame compressed), so a window wait costs well under one frame of memory.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use storage::Timestamp;
use tokio::sync::watch;

use crate::error::CallError;
use crate::sight::capture::{CaptureError, Source};
use crate::sight::content::Content;
use crate::sight::gate::pixel::Timeline;
use crate::sight::target::Target;

/// A capture this recent, taken for another wait on the target, is handed on instead of
/// capturing again: the waits polled on the same clock tick.
pub const COALESCE: Duration = Duration::from_millis(100);

/// How long one capture may take before it counts as a failed capture.
pub const CAPTURE_TIMEOUT: Duration = Duration::from_secs(20);

/// A target whose source tells every change is read at least this often all the same: a
/// report that never came (a server bug, a lost event) costs at most this long.
pub const READ_ANYWAY_AFTER: Duration = Duration::from_secs(60);

/// How many window or screen captures run at once, over all targets. Polls are aligned, so
/// without a limit every watched window would be captured on the same tick, each into a
/// frame-sized buffer of its own on a thread of its own; the allocator keeps such buffers
/// once freed, and the daemon would grow by about a frame per window. Two at a time keep
/// both cores busy and the buffers few (a 640x480 capture and its hashing take about a
/// millisecond, so twenty windows are captured within a few).
pub const PIXEL_CAPTURES_AT_ONCE: usize = 2;

/// What a capture is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// A regular poll: moves the target's timeline on.
    Poll,
    /// A settle probe: a quick second look at a change still moving.
    SettleProbe,
}

/// One capture, as handed to each wait on the target.
#[derive(Clone)]
pub struct Captured {
    /// Counts the feed's captures from 1: a wait never takes one it has seen as new.
    pub seq: u64,
    pub at: Timestamp,
    pub content: Result<Content, CaptureError>,
    /// The target's tile timeline as of this capture (window and screen polls).
    pub timeline: Option<Arc<Timeline>>,
}

/// A poll that found its target unchanged without reading it ([`Feed::unchanged_since`]).
pub struct Unchanged {
    /// The target's tile timeline, moved on as if its last frame were seen again.
    pub timeline: Option<Arc<Timeline>>,
}

/// The feeds of the targets being watched, by target.
#[derive(Debug)]
pub struct Feeds {
    live: Mutex<HashMap<String, Weak<Feed>>>,
    /// Whether a source's changes are followed ([`Source::changes`]), or the polls alone look.
    follow_changes: bool,
    /// Turns for window and screen captures: [`PIXEL_CAPTURES_AT_ONCE`].
    pixel_captures: Arc<tokio::sync::Semaphore>,
}

impl Default for Feeds {
    fn default() -> Feeds {
        Feeds::new(true)
    }
}

impl Feeds {
    /// Feeds that follow their sources' changes, or (`follow_changes` false) poll only.
    pub fn new(follow_changes: bool) -> Feeds {
        Feeds {
            live: Mutex::default(),
            follow_changes,
            pixel_captures: Arc::new(tokio::sync::Semaphore::new(PIXEL_CAPTURES_AT_ONCE)),
        }
    }
}

impl Feeds {
    /// The feed of `target`: the one other waits use, or a new one on the source `make`
    /// builds.
    pub fn join(
        &self,
        target: &Target,
        make: impl FnOnce() -> Result<Box<dyn Source>, CallError>,
    ) -> Result<Arc<Feed>, CallError> {
        let key = target.to_string();
        let mut live = crate::locks::lock(&self.live);
        live.retain(|_, feed| feed.strong_count() > 0);
        if let Some(feed) = live.get(&key).and_then(Weak::upgrade) {
            return Ok(feed);
        }
        let mut source = make()?;
        let feed = Arc::new(Feed {
            pixels: target.is_pixels(),
            turns: target.is_pixels().then(|| self.pixel_captures.clone()),
            captures: AtomicU64::new(0),
            changes: self.follow_changes.then(|| source.changes()).flatten(),
            state: tokio::sync::Mutex::new(FeedState {
                source,
                last: None,
                last_poll: None,
                timeline: None,
                timeline_at: None,
                last_read: None,
            }),
        });
        live.insert(key, Arc::downgrade(&feed));
        Ok(feed)
    }

    /// The targets watched now, and the captures their feeds made in all.
    pub fn stats(&self) -> FeedStats {
        let live = crate::locks::lock(&self.live);
        let feeds: Vec<Arc<Feed>> = live.values().filter_map(Weak::upgrade).collect();
        FeedStats {
            targets: feeds.len(),
            captures: feeds.iter().map(|feed| feed.captures()).sum(),
        }
    }
}

/// How many targets are watched and what capturing them cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeedStats {
    pub targets: usize,
    pub captures: u64,
}

/// One watched target's source and latest captures. See the module documentation.
pub struct Feed {
    pixels: bool,
    /// Turns to take before capturing (window and screen targets).
    turns: Option<Arc<tokio::sync::Semaphore>>,
    captures: AtomicU64,
    /// The source's count of changes, when it is told of them ([`Source::changes`]).
    changes: Option<watch::Receiver<u64>>,
    state: tokio::sync::Mutex<FeedState>,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed")
            .field("pixels", &self.pixels)
            .finish_non_exhaustive()
    }
}

impl FeedState {
    /// Lets go of capture `seq`: every wait on the target took it.
    fn forget(&mut self, seq: u64) {
        for slot in [&mut self.last, &mut self.last_poll] {
            if slot
                .as_ref()
                .is_some_and(|cached| cached.captured.seq == seq)
            {
                *slot = None;
            }
        }
    }
}

struct FeedState {
    source: Box<dyn Source>,
    /// The latest capture of any kind, and the latest of a poll, while some wait on the
    /// target has not taken it yet.
    last: Option<Cached>,
    last_poll: Option<Cached>,
    timeline: Option<Arc<Timeline>>,
    /// When the timeline last moved on (a capture, or a poll that found nothing changed).
    timeline_at: Option<Timestamp>,
    /// The latest read of the source when it was a poll's and found a frame, while its source
    /// is told of changes (`None` after any other read: a probe's, a closed window, a failure).
    last_read: Option<LastRead>,
}

/// A poll's read of a frame of a source told of its changes: a later poll may go without one
/// while the count of changes stands where it stood when this read began.
struct LastRead {
    seq: u64,
    at: Timestamp,
    changes_seen: u64,
}

/// A capture kept for handing on, and how many waits took it.
struct Cached {
    captured: Captured,
    taken: usize,
    /// The source's count of changes when the capture began: once it moved on, the capture
    /// is not handed on (it may miss what changed).
    changes_seen: u64,
}

impl Feed {
    /// A capture for a wait's `look` at `now`, newer than the capture `seen_seq` the wait
    /// had last: one taken for another wait within [`COALESCE`] (a poll takes only a
    /// poll's), else a new one. Once every wait on the target (every holder of this feed)
    /// took a capture, the feed lets go of it.
    pub async fn capture(self: &Arc<Self>, look: Look, now: Timestamp, seen_seq: u64) -> Captured {
        let members = Arc::strong_count(self);
        let mut state = self.state.lock().await;
        let changes_seen = self.changes.as_ref().map_or(0, |changes| *changes.borrow());
        let recent = match look {
            Look::Poll => state.last_poll.as_mut(),
            Look::SettleProbe => state.last.as_mut(),
        };
        if let Some(recent) = recent.filter(|cached| {
            let c = &cached.captured;
            c.seq > seen_seq
                && c.at <= now
                && now.millis_since(c.at) <= COALESCE.as_millis() as u64
                && cached.changes_seen == changes_seen
        }) {
            recent.taken += 1;
            let (captured, everyone) = (recent.captured.clone(), recent.taken >= members);
            if everyone {
                state.forget(captured.seq);
            }
            return captured;
        }
        let seq = self.captures.fetch_add(1, Ordering::Relaxed) + 1;
        let _turn = match &self.turns {
            Some(turns) => Some(
                turns
                    .acquire()
                    .await
                    .expect("the semaphore is never closed"),
            ),
            None => None,
        };
        let content = match tokio::time::timeout(CAPTURE_TIMEOUT, state.source.capture()).await {
            Ok(captured) => captured,
            Err(_) => Err(CaptureError::retryable(format!(
                "capturing {} took longer than {}s",
                state.source.describe(),
                CAPTURE_TIMEOUT.as_secs()
            ))),
        };
        let poll_of_a_frame = look == Look::Poll && matches!(content, Ok(Content::Frame(_)));
        state.last_read = (self.changes.is_some() && poll_of_a_frame).then_some(LastRead {
            seq,
            at: now,
            changes_seen,
        });
        let (content, timeline) = match (content, look) {
            (Ok(Content::Frame(frame)), Look::Poll) if self.pixels => {
                let timeline = Timeline::after(state.timeline.take(), &frame, now);
                state.timeline = Some(timeline.clone());
                state.timeline_at = Some(now);
                (Ok(Content::Frame(frame)), Some(timeline))
            }
            (content, _) => (content, None),
        };
        let captured = Captured {
            seq,
            at: now,
            content,
            timeline,
        };
        if members > 1 {
            let cached = || Cached {
                captured: captured.clone(),
                taken: 1,
                changes_seen,
            };
            if look == Look::Poll {
                state.last_poll = Some(cached());
            }
            state.last = Some(cached());
        } else {
            state.last = None;
            state.last_poll = None;
        }
        captured
    }

    /// Whether a poll at `now` of a wait that last took capture `seen_seq` may go without a
    /// read: the source tells every change, nothing was told since that capture (the
    /// latest read, a poll's, of a frame) began, and it is younger than
    /// [`READ_ANYWAY_AFTER`]. Then the target's timeline moves on as if the frame were seen
    /// again (once for all the waits polling on one tick). The caller asks only when its
    /// gate would skip that frame again. Gives the target's timeline as moved on (for the
    /// gate to hold instead of the one before, so the two are not both kept).
    pub async fn unchanged_since(&self, seen_seq: u64, now: Timestamp) -> Option<Unchanged> {
        let changes = self.changes.as_ref()?;
        let mut state = self.state.lock().await;
        let count = *changes.borrow();
        let unchanged = state.source.tells_every_change()
            && state.last_read.as_ref().is_some_and(|read| {
                read.seq == seen_seq
                    && read.changes_seen == count
                    && read.at <= now
                    && now.millis_since(read.at) < READ_ANYWAY_AFTER.as_millis() as u64
            });
        if !unchanged {
            return None;
        }
        let due =
            (state.timeline_at).is_none_or(|at| now.millis_since(at) > COALESCE.as_millis() as u64);
        if let Some(timeline) = state.timeline.take() {
            state.timeline = Some(if due {
                state.timeline_at = Some(now);
                Timeline::again(timeline)
            } else {
                timeline
            });
        }
        Some(Unchanged {
            timeline: state.timeline.clone(),
        })
    }

    /// The source's count of changes, for a Watcher to capture at once when it moves on;
    /// `None` when the target is polled only.
    pub fn changes(&self) -> Option<watch::Receiver<u64>> {
        self.changes.clone()
    }

    /// Captures made so far (shared ones once).
    pub fn captures(&self) -> u64 {
        self.captures.load(Ordering::Relaxed)
    }
}
