//! The pixel gate: which captures of a window or the screen are worth a vision model call.
//!
//! Every frame is cut into 32x32 tiles with an xxh3 hash each ([`tiles`]). The gate keeps
//! the tiles of the **last frame the judge saw** (the baseline), so a slow drift adds up
//! instead of hiding between two neighbouring captures, and a short history per tile:
//!
//! - **Meaningful change**: a tile whose hash differs from the baseline and in which at least
//!   one pixel differs from the baseline by more than [`PIXEL_DELTA`] in some channel (a
//!   smaller difference is dithering or compression noise). Pixels are compared only inside
//!   changed tiles, and at least [`MIN_CHANGED_PIXELS`] must differ in all.
//! - **Blinking**: a tile that has come back to one of its last few states several times
//!   recently, or that flips back and forth on consecutive captures (a blinking cursor, a
//!   spinner), is ignored while it keeps doing so.
//! - **Busy regions**: a tile whose 3x3 neighbourhood changed to new states four or more
//!   times in the last minute is busy (a clock, a ticker, a moving progress bar, a
//!   scrolling log) when its own change came on that region's beat and the region is still
//!   at it; so is every changed tile connected to it (the bar's trail). Changes confined to
//!   busy regions are rate-limited, not dropped: with nothing else changing they are judged
//!   after 30 s, then at doubling intervals up to the floor. A region calms as soon as its
//!   next change is overdue (most of one usual interval); its last state then counts as an
//!   ordinary change (the log stopped: the build finished), and so does a change that comes
//!   off the beat or after the calm — text that appears where a clock stopped ticking is
//!   judged like any other change.
//! - **Settling**: a meaningful change is judged once it holds still, i.e. its tiles have
//!   the same hash as on the capture before (or the one before that, so a cursor blinking in
//!   freshly printed text does not keep it "moving"): `Judge(Settled)`. Its first sight is
//!   `Judge(Changing)`, once per change, for judges that are cheap enough to look early.
//! - **Floor**: with nothing meaningful happening, the frame is judged again `floor` after
//!   the last judgment, so a condition that became true without a visible change (or that a
//!   judge missed) is not waited on forever.
//! - **Settle probes**: the Watcher may look again soon after a change was first seen
//!   ([`Gate::settle_probe`]): the change has settled when its tiles hold the state of the
//!   capture before (the poll's or the previous probe's), and is judged on the probe's frame.
//!   Probes leave the tile histories alone, so blinking and busy regions are told apart on
//!   the polls' rhythm as before.
//! - A frame of a new size (the first capture, a resize, a different window) has nothing to
//!   compare with and is judged at once as `Settled`. Non-frame content (a closed window)
//!   is judged like text: `Changing` when new, `Settled` when it repeats.
//!
//! Pure and synchronous: it receives timestamps, reads no clock, and does about a memcpy's
//! worth of work per 1080p frame (BENCHMARKS.md); a watcher runs it beside the capture on a
//! blocking thread.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use storage::Timestamp;

use crate::waits::content::{Content, Frame};
use crate::waits::gate::tiles::{self, TileGrid, TileRect};
use crate::waits::gate::{Gate, GateDecision, Readiness};

/// A pixel whose channels all moved by at most this much has not changed (dithering, video
/// and compression noise stay below it; text, widgets and progress bars are far above it).
pub const PIXEL_DELTA: u8 = 24;

/// Fewer changed pixels than this, over all quiet tiles, is not a change (one flipped pixel
/// of an anti-aliased edge). One typed character changes a few dozen.
pub const MIN_CHANGED_PIXELS: usize = 8;

/// How many captures a tile's record of blinks covers.
const HISTORY_CAPTURES: u32 = 16;

/// How many distinct earlier states of a tile are remembered (a four-frame spinner fits).
const RECENT_STATES: usize = 6;

/// A tile that came back to an earlier state this many times within the history, and is in
/// such a state now, is blinking. Three, not two: a dialog that opens, closes and opens
/// again is still news.
const BLINK_REVISITS: u32 = 3;

/// A region is busy when it changed to new states at least this many times within
/// [`BUSY_WINDOW`] (more often than every 15 s)...
const BUSY_CHANGES: usize = 4;

/// ...and a tile's change belongs to it when it comes on the region's beat: at least half
/// and at most this many percent of its usual interval after the region's change before
/// (a change that comes later came after the region had calmed)...
const ON_BEAT_PERCENT: u64 = 150;

/// ...and the region is still at it while its last change is younger than this share (in
/// percent) of its usual interval: a log that stops scrolling calms one poll after its last
/// line, a progress bar stepping every 12 s about 11 s after its last step.
const STILL_AT_IT_PERCENT: u64 = 90;

/// How far back a region's changes count.
const BUSY_WINDOW: Duration = Duration::from_secs(60);

/// The first wait before changes confined to busy regions are judged; it doubles with each
/// such judgment up to the floor, and starts over once no region has been busy for
/// [`BUSY_WINDOW`].
pub const NOISE_FIRST_INTERVAL: Duration = Duration::from_secs(30);

/// Not a time: an empty slot of a tile's change times.
const NEVER: u64 = u64::MAX;

/// How many change times a tile keeps: one more than [`BUSY_CHANGES`], because the current
/// capture's change does not count.
const NOVEL_TIMES: usize = BUSY_CHANGES + 1;

const HISTORY_MASK: u32 = (1 << HISTORY_CAPTURES) - 1;

/// Why the gate last asked for a judgment (for logs, counters and the benchmarks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JudgeReason {
    /// The first frame, or the first at a new size: nothing to compare with.
    FirstSight,
    /// Quiet tiles changed meaningfully: `tiles` of them, at least `pixels` pixels.
    Change { tiles: usize, pixels: usize },
    /// Only busy regions changed, and their rate limit allows a look.
    BusyRegions,
    /// Nothing meaningful changed for the floor interval.
    Floor,
    /// Non-frame content (a closed window) that the judge has not seen.
    NotAFrame,
}

/// The pixel gate of window and screen targets. See the module documentation.
pub struct PixelGate {
    floor: Duration,
    /// The target's recent captures, tile by tile: the gate's own, or shared by every wait
    /// on the target (a feed computes it once per capture: [`Timeline::after`]).
    tracking: Option<Arc<Timeline>>,
    /// Fingerprint of the last capture when it was not a frame.
    previous_other: Option<u64>,
    baseline: Option<Baseline>,
    changing_reported: bool,
    noise_interval: Duration,
    /// The last capture in which a busy region differed from what the judge saw.
    last_busy_at: Option<Timestamp>,
    last_reason: Option<JudgeReason>,
    /// Where the last frame considered differs meaningfully from the baseline.
    changed_region: Option<TileRect>,
    /// The quiet tiles of the change last seen `Changing`, for the settle probes.
    changing_tiles: Vec<usize>,
    /// The last probe's frame and tile hashes (what the next probe compares with).
    probed: Option<(Frame, Vec<u64>)>,
}

impl std::fmt::Debug for PixelGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PixelGate")
            .field("floor", &self.floor)
            .field("grid", &self.tracking.as_ref().map(|t| t.grid))
            .field("noise_interval", &self.noise_interval)
            .field("last_reason", &self.last_reason)
            .finish_non_exhaustive()
    }
}

/// What the judge last saw (a `Settled` judgment) and when.
struct Baseline {
    seen: Seen,
    at: Timestamp,
}

enum Seen {
    Frame { frame: Frame, hashes: Vec<u64> },
    Other(u64),
}

/// Tile hashes and histories of a target's recent captures at one frame size: what the gate
/// knows about the target regardless of what any judge saw, so one serves every wait on it.
#[derive(Clone)]
pub struct Timeline {
    grid: TileGrid,
    current: Vec<u64>,
    previous: Option<Vec<u64>>,
    before_previous: Option<Vec<u64>>,
    tiles: Vec<TileHistory>,
    /// The frame `current` was computed from, to reuse its hashes in `judged`.
    frame: Frame,
}

#[derive(Clone, Copy)]
struct TileHistory {
    /// Distinct recent states, most recent first; `states[0]` is the current one.
    states: [u64; RECENT_STATES],
    known: usize,
    /// Bit 0 is the latest capture: the tile changed back to one of `states`.
    revisits: u32,
    /// The tile reached its current state by coming back to it.
    returned: bool,
    /// When the tile last changed to new states (ms), most recent first; [`NEVER`] if empty.
    novel_at: [u64; NOVEL_TIMES],
    /// When the tile reached its current state (ms); 0 for its first state.
    since: u64,
}

impl TileHistory {
    fn starting_at(state: u64) -> TileHistory {
        let mut states = [0; RECENT_STATES];
        states[0] = state;
        TileHistory {
            states,
            known: 1,
            revisits: 0,
            returned: false,
            novel_at: [NEVER; NOVEL_TIMES],
            since: 0,
        }
    }

    fn observe(&mut self, state: u64, now: Timestamp) {
        self.revisits <<= 1;
        if state == self.states[0] {
            return;
        }
        let earlier = self.states[1..self.known].iter().position(|&s| s == state);
        let end = match earlier {
            Some(offset) => {
                self.revisits |= 1;
                offset + 1
            }
            None => {
                self.novel_at.copy_within(0..NOVEL_TIMES - 1, 1);
                self.novel_at[0] = now.0;
                self.known = (self.known + 1).min(RECENT_STATES);
                self.known - 1
            }
        };
        self.states.copy_within(0..end, 1);
        self.states[0] = state;
        self.returned = earlier.is_some();
        self.since = now.0;
    }

    fn is_blinking(&self) -> bool {
        self.returned && (self.revisits & HISTORY_MASK).count_ones() >= BLINK_REVISITS
    }
}

impl Timeline {
    /// `previous` moved on by the capture of `frame` (a new timeline at a new size), sharing
    /// `previous`'s buffers when nobody else holds it. What a feed runs once per capture.
    pub fn after(previous: Option<Arc<Timeline>>, frame: &Frame, now: Timestamp) -> Arc<Timeline> {
        let grid = TileGrid::of(frame);
        match previous {
            Some(mut timeline) if timeline.grid == grid => {
                let moving = Arc::make_mut(&mut timeline);
                // Reuse the oldest hash buffer: no allocation per capture.
                let mut hashes = moving.before_previous.take().unwrap_or_default();
                tiles::hash_tiles(frame, &mut hashes);
                moving.observe(hashes, frame.clone(), now);
                timeline
            }
            _ => {
                let mut hashes = Vec::new();
                tiles::hash_tiles(frame, &mut hashes);
                Arc::new(Timeline::new(grid, hashes, frame.clone()))
            }
        }
    }

    /// Whether this timeline's latest capture is `frame`.
    pub fn is_of(&self, frame: &Frame) -> bool {
        Arc::ptr_eq(&self.frame.pixels, &frame.pixels)
    }

    fn new(grid: TileGrid, hashes: Vec<u64>, frame: Frame) -> Timeline {
        Timeline {
            grid,
            tiles: hashes
                .iter()
                .map(|&h| TileHistory::starting_at(h))
                .collect(),
            current: hashes,
            previous: None,
            before_previous: None,
            frame,
        }
    }

    fn observe(&mut self, hashes: Vec<u64>, frame: Frame, now: Timestamp) {
        for (tile, &hash) in self.tiles.iter_mut().zip(&hashes) {
            tile.observe(hash, now);
        }
        let older = std::mem::replace(&mut self.current, hashes);
        self.before_previous = self.previous.replace(older);
        self.frame = frame;
    }

    /// Whether the change of tile `index` is part of a busy region's activity. Two things
    /// must hold:
    ///
    /// - the region was busy when the tile reached its current state: its neighbourhood had
    ///   changed to new states at least [`BUSY_CHANGES`] times within [`BUSY_WINDOW`] before,
    ///   and the tile's change came on the region's beat ([`ON_BEAT_PERCENT`]): text that
    ///   appears between a slow clock's ticks, or after it stopped, is news;
    /// - the region is still at it: its last change is less than
    ///   [`STILL_AT_IT_PERCENT`] of its usual interval old. A clock that stops, or a log that
    ///   stops scrolling, calms one interval after its last change, and what changed there
    ///   since is judged like any other change.
    fn in_busy_region(&self, index: usize, now: Timestamp) -> bool {
        let since_state = self.tiles[index].since.min(now.0);
        let from = since_state.saturating_sub(BUSY_WINDOW.as_millis() as u64);
        // On the stack, as this runs for every changed tile of every capture. It holds every
        // change time of the neighbourhood: at most NEIGHBOURHOOD_TILES tiles of NOVEL_TIMES.
        let mut times = [0u64; tiles::NEIGHBOURHOOD_TILES * NOVEL_TIMES];
        let mut count = 0;
        let changes = (self.grid.neighbourhood(index))
            .flat_map(|i| self.tiles[i].novel_at)
            .filter(|&at| at != NEVER && at >= from && at <= now.0);
        for at in changes {
            times[count] = at;
            count += 1;
        }
        times[..count].sort_unstable();
        // Tiles that changed on the same capture changed once: keep each time once.
        let mut distinct = 0;
        for i in 0..count {
            if distinct == 0 || times[i] != times[distinct - 1] {
                times[distinct] = times[i];
                distinct += 1;
            }
        }
        let times = &times[..distinct];
        // The region's beat before the tile reached its state; when it is only becoming busy
        // (three changes before), the tile's own change completes the count.
        let before = times.partition_point(|&at| at < since_state);
        let with_own = times.partition_point(|&at| at <= since_state);
        let Some(beat) =
            usual_interval(&times[..before]).or_else(|| usual_interval(&times[..with_own]))
        else {
            return false;
        };
        let Some(&last_before) = times[..before].last() else {
            return false;
        };
        let gap = since_state - last_before;
        if gap * 100 > beat * ON_BEAT_PERCENT || gap * 2 < beat {
            return false;
        }
        let Some(recent_beat) = usual_interval(times) else {
            return false;
        };
        let last = times[times.len() - 1];
        (now.0 - last) * 100 < recent_beat * STILL_AT_IT_PERCENT
    }

    /// Whether tile `index` is blinking: it came back to earlier states often lately, or it
    /// is flipping right now (A, B, A on the last three captures). The second catches a
    /// cursor at once when it moves to a new tile with the next line of output.
    fn is_blinking(&self, index: usize) -> bool {
        let now = self.current[index];
        let flipping = match (&self.previous, &self.before_previous) {
            (Some(previous), Some(before)) => previous[index] != now && before[index] == now,
            _ => false,
        };
        flipping || self.tiles[index].is_blinking()
    }

    /// Whether tile `index` holds the state it had one or two captures ago.
    fn holds_still(&self, index: usize) -> bool {
        let now = self.current[index];
        let same_as = |hashes: &Option<Vec<u64>>| hashes.as_ref().is_some_and(|h| h[index] == now);
        same_as(&self.previous) || same_as(&self.before_previous)
    }
}

/// The usual interval (ms) between the last [`BUSY_CHANGES`] of `times` (sorted, distinct),
/// or `None` when there are fewer.
fn usual_interval(times: &[u64]) -> Option<u64> {
    let recent = times.last_chunk::<BUSY_CHANGES>()?;
    Some(((recent[BUSY_CHANGES - 1] - recent[0]) / (BUSY_CHANGES as u64 - 1)).max(1))
}

impl PixelGate {
    /// A gate that judges a static frame again `floor` after the last judgment (`[wait]
    /// floor_s`, default 120 s).
    pub fn new(floor: Duration) -> PixelGate {
        PixelGate {
            floor,
            tracking: None,
            previous_other: None,
            baseline: None,
            changing_reported: false,
            noise_interval: NOISE_FIRST_INTERVAL.min(floor),
            last_busy_at: None,
            last_reason: None,
            changed_region: None,
            changing_tiles: Vec::new(),
            probed: None,
        }
    }

    /// The rectangle (in pixels, tile-aligned) bounding what differs meaningfully from what
    /// the judge saw in the last frame considered, busy regions included (a scrolling log is
    /// read when its rate limit allows a look); the whole frame at first sight. `None` when
    /// nothing does, or the content was not a frame. What the screen recorder reads text
    /// from.
    pub fn changed_region(&self) -> Option<TileRect> {
        self.changed_region
    }

    /// Why the last `Judge` decision was made.
    pub fn last_reason(&self) -> Option<JudgeReason> {
        self.last_reason
    }

    fn decide(&mut self, decision: GateDecision, reason: JudgeReason) -> GateDecision {
        self.last_reason = Some(reason);
        decision
    }

    fn since_judged(&self, now: Timestamp) -> Duration {
        let at = self.baseline.as_ref().map_or(0, |b| b.at.0);
        Duration::from_millis(now.0.saturating_sub(at))
    }

    /// Considers a frame; `shared` is the target's timeline as of this frame when a feed
    /// keeps it for every wait (else the gate moves its own on).
    fn consider_frame(
        &mut self,
        frame: &Frame,
        shared: Option<&Arc<Timeline>>,
        now: Timestamp,
    ) -> GateDecision {
        self.previous_other = None;
        self.probed = None;
        self.changing_tiles.clear();
        self.changed_region = Some(TileRect {
            x: 0,
            y: 0,
            width: frame.width,
            height: frame.height,
        });
        let grid = TileGrid::of(frame);
        self.tracking = Some(match shared.filter(|timeline| timeline.is_of(frame)) {
            Some(timeline) => timeline.clone(),
            None => Timeline::after(self.tracking.take(), frame, now),
        });
        let Some(Baseline {
            seen:
                Seen::Frame {
                    frame: seen_frame,
                    hashes: seen_hashes,
                },
            ..
        }) = &self.baseline
        else {
            return self.decide(
                GateDecision::Judge(Readiness::Settled),
                JudgeReason::FirstSight,
            );
        };
        if TileGrid::of(seen_frame) != grid {
            return self.decide(
                GateDecision::Judge(Readiness::Settled),
                JudgeReason::FirstSight,
            );
        }
        let tracking = self.tracking.as_ref().expect("tracking was just set");

        // Tiles that really differ from what the judge saw (not blinking, some pixel beyond
        // the delta), each marked busy or not.
        let mut changed: Vec<ChangedTile> = Vec::new();
        let differing = (tracking.current.iter().zip(seen_hashes))
            .enumerate()
            .filter(|(_, (now, seen))| now != seen)
            .map(|(index, _)| index);
        for index in differing {
            if tracking.is_blinking(index) {
                continue;
            }
            let busy = tracking.in_busy_region(index, now);
            // A busy tile needs one real pixel; a quiet one is counted up to the threshold so
            // that a few stray pixels spread over tiles still add up.
            let enough = if busy { 1 } else { MIN_CHANGED_PIXELS };
            let pixels = tiles::count_changed_pixels(
                seen_frame,
                frame,
                grid.rect(index),
                PIXEL_DELTA,
                enough,
            );
            if pixels > 0 {
                changed.push(ChangedTile {
                    index,
                    pixels,
                    busy,
                });
            }
        }
        spread_busy(&grid, &mut changed);

        let mut changed_pixels = 0;
        let mut changed_tiles = 0;
        let mut settled = true;
        let mut busy_changed = false;
        let mut region: Option<TileRect> = None;
        for tile in &changed {
            let rect = grid.rect(tile.index);
            region = Some(region.map_or(rect, |bounds| bounds.union(rect)));
            if tile.busy {
                busy_changed = true;
            } else {
                changed_pixels += tile.pixels;
                changed_tiles += 1;
                settled &= tracking.holds_still(tile.index);
            }
        }
        self.changed_region = region;
        if busy_changed {
            self.last_busy_at = Some(now);
        }

        if changed_pixels >= MIN_CHANGED_PIXELS {
            let reason = JudgeReason::Change {
                tiles: changed_tiles,
                pixels: changed_pixels,
            };
            if !settled {
                self.changing_tiles
                    .extend(changed.iter().filter(|tile| !tile.busy).map(|t| t.index));
            }
            return if settled {
                self.decide(GateDecision::Judge(Readiness::Settled), reason)
            } else if !self.changing_reported {
                self.decide(GateDecision::Judge(Readiness::Changing), reason)
            } else {
                GateDecision::Skip
            };
        }
        self.changing_reported = false;
        let since = self.since_judged(now);
        if busy_changed && since >= self.noise_interval {
            return self.decide(
                GateDecision::Judge(Readiness::Settled),
                JudgeReason::BusyRegions,
            );
        }
        let calm_for = self.last_busy_at.map_or(Duration::MAX, |at| {
            Duration::from_millis(now.0.saturating_sub(at.0))
        });
        if calm_for >= BUSY_WINDOW {
            self.noise_interval = NOISE_FIRST_INTERVAL.min(self.floor);
        }
        if since >= self.floor {
            return self.decide(GateDecision::Judge(Readiness::Settled), JudgeReason::Floor);
        }
        GateDecision::Skip
    }

    fn consider_other(&mut self, content: &Content, now: Timestamp) -> GateDecision {
        self.tracking = None;
        self.changed_region = None;
        let current = fingerprint(content);
        let repeated = self.previous_other.replace(current) == Some(current);
        let seen =
            matches!(&self.baseline, Some(Baseline { seen: Seen::Other(s), .. }) if *s == current);
        if seen {
            return if self.since_judged(now) >= self.floor {
                self.decide(GateDecision::Judge(Readiness::Settled), JudgeReason::Floor)
            } else {
                GateDecision::Skip
            };
        }
        if repeated {
            self.decide(
                GateDecision::Judge(Readiness::Settled),
                JudgeReason::NotAFrame,
            )
        } else if !self.changing_reported {
            self.decide(
                GateDecision::Judge(Readiness::Changing),
                JudgeReason::NotAFrame,
            )
        } else {
            GateDecision::Skip
        }
    }

    /// A settle probe of a frame: see [`Gate::settle_probe`].
    fn probe_frame(&mut self, frame: &Frame, now: Timestamp) -> GateDecision {
        let grid = TileGrid::of(frame);
        let Some(tracking) = self.tracking.as_ref().filter(|t| t.grid == grid) else {
            return self.consider_frame(frame, None, now);
        };
        if self.changing_tiles.is_empty() {
            // Nothing is moving (the change settled, went back, or was never seen).
            return GateDecision::Skip;
        }
        let mut hashes = Vec::new();
        tiles::hash_tiles(frame, &mut hashes);
        let before = self.probed.as_ref().map_or(&tracking.current, |(_, h)| h);
        let still = (self.changing_tiles.iter()).all(|&index| hashes[index] == before[index]);
        self.probed = Some((frame.clone(), hashes));
        if still {
            self.changing_tiles.clear();
            let reason = self.last_reason.unwrap_or(JudgeReason::FirstSight);
            self.decide(GateDecision::Judge(Readiness::Settled), reason)
        } else {
            GateDecision::Skip
        }
    }

    fn seen(&self, content: &Content) -> Seen {
        match content {
            Content::Frame(frame) => {
                let probed = (self.probed.as_ref())
                    .filter(|(probed, _)| Arc::ptr_eq(&probed.pixels, &frame.pixels));
                let hashes = match &self.tracking {
                    _ if probed.is_some() => probed.map(|(_, h)| h.clone()).unwrap_or_default(),
                    Some(tracking) if tracking.is_of(frame) => tracking.current.clone(),
                    _ => {
                        let mut hashes = Vec::new();
                        tiles::hash_tiles(frame, &mut hashes);
                        hashes
                    }
                };
                Seen::Frame {
                    frame: frame.clone(),
                    hashes,
                }
            }
            other => Seen::Other(fingerprint(other)),
        }
    }
}

/// A tile that differs from what the judge saw.
struct ChangedTile {
    index: usize,
    /// Pixels beyond the delta, counted up to what was needed.
    pixels: usize,
    busy: bool,
}

/// Marks busy every changed tile connected (through changed tiles, diagonals included) to a
/// busy one: the filled part of a progress bar behind its busy edge is the same activity,
/// not a new change.
fn spread_busy(grid: &TileGrid, changed: &mut [ChangedTile]) {
    if !changed.iter().any(|tile| tile.busy) {
        return;
    }
    let mut position = vec![usize::MAX; grid.len()];
    for (at, tile) in changed.iter().enumerate() {
        position[tile.index] = at;
    }
    let mut pending: Vec<usize> = (0..changed.len()).filter(|&at| changed[at].busy).collect();
    while let Some(at) = pending.pop() {
        for neighbour in grid.neighbourhood(changed[at].index) {
            let next = position[neighbour];
            if next != usize::MAX && !changed[next].busy {
                changed[next].busy = true;
                pending.push(next);
            }
        }
    }
}

fn fingerprint(content: &Content) -> u64 {
    let mut hasher = DefaultHasher::new();
    match content {
        Content::Text { text, exit, .. } => (0u8, text, exit.map(|e| e.code)).hash(&mut hasher),
        Content::Absent { description } => (1u8, description).hash(&mut hasher),
        Content::Frame(frame) => {
            (2u8, frame.width, frame.height, &frame.pixels[..]).hash(&mut hasher)
        }
    }
    hasher.finish()
}

impl Gate for PixelGate {
    fn consider(&mut self, content: &Content, now: Timestamp) -> GateDecision {
        match content {
            Content::Frame(frame) => self.consider_frame(frame, None, now),
            other => self.consider_other(other, now),
        }
    }

    fn consider_shared(
        &mut self,
        content: &Content,
        timeline: Option<&Arc<Timeline>>,
        now: Timestamp,
    ) -> GateDecision {
        match content {
            Content::Frame(frame) => self.consider_frame(frame, timeline, now),
            other => self.consider_other(other, now),
        }
    }

    fn judged(&mut self, content: &Content, readiness: Readiness, now: Timestamp) {
        match readiness {
            Readiness::Changing => self.changing_reported = true,
            Readiness::Settled => {
                if self.last_reason == Some(JudgeReason::BusyRegions) {
                    self.noise_interval = (self.noise_interval * 2).min(self.floor);
                }
                self.baseline = Some(Baseline {
                    seen: self.seen(content),
                    at: now,
                });
                self.changing_reported = false;
            }
        }
    }

    fn reset(&mut self) {
        *self = PixelGate::new(self.floor);
    }

    fn settle_probe(&mut self, content: &Content, now: Timestamp) -> GateDecision {
        match content {
            Content::Frame(frame) => self.probe_frame(frame, now),
            other => self.consider_other(other, now),
        }
    }
}

#[cfg(any(test, feature = "testkit"))]
pub mod synthetic;
#[cfg(test)]
mod tests;
