//! A target's tile timeline: the tile hashes of its last three captures at one frame size
//! and a short history per tile (its recent states, when it changed to new ones, whether it
//! keeps coming back), from which the pixel gate tells blinking tiles and busy regions from
//! news. It knows nothing of what any judge saw, so one timeline serves every wait on a
//! target: a feed moves it on once per poll capture ([`Timeline::after`]) and shares it.

use std::sync::Arc;
use std::time::Duration;

use storage::Timestamp;

use crate::sight::content::Frame;
use crate::sight::gate::tiles::{self, TileGrid};

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
pub(super) const BUSY_WINDOW: Duration = Duration::from_secs(60);

/// Not a time: an empty slot of a tile's change times.
const NEVER: u64 = u64::MAX;

/// How many change times a tile keeps: one more than [`BUSY_CHANGES`], because the current
/// capture's change does not count.
const NOVEL_TIMES: usize = BUSY_CHANGES + 1;

const HISTORY_MASK: u32 = (1 << HISTORY_CAPTURES) - 1;

/// Tile hashes and histories of a target's recent captures at one frame size: what the gate
/// knows about the target regardless of what any judge saw, so one serves every wait on it.
#[derive(Clone)]
pub struct Timeline {
    pub(super) grid: TileGrid,
    pub(super) current: Vec<u64>,
    previous: Option<Vec<u64>>,
    before_previous: Option<Vec<u64>>,
    tiles: Vec<TileHistory>,
    /// The row hashes of the latest capture: which bands of tiles the next one changed.
    rows: Vec<u64>,
    /// The id of the frame `current` was computed from, to reuse its hashes in `judged`.
    frame_id: u64,
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
    /// Keeps no pixels: the row hashes tell which tiles to hash again.
    pub fn after(previous: Option<Arc<Timeline>>, frame: &Frame, now: Timestamp) -> Arc<Timeline> {
        let grid = TileGrid::of(frame);
        match previous {
            Some(mut timeline) if timeline.grid == grid => {
                let moving = Arc::make_mut(&mut timeline);
                // Reuse the oldest hash buffer: no allocation per capture. `current` holds
                // the hashes of `frame`'s predecessor, so only the bands of tiles whose rows
                // changed are hashed again.
                let mut hashes = moving.before_previous.take().unwrap_or_default();
                let previous_rows = std::mem::take(&mut moving.rows);
                tiles::hash_tiles_since(
                    &previous_rows,
                    &moving.current,
                    frame,
                    &mut moving.rows,
                    &mut hashes,
                );
                moving.observe(hashes, frame.id(), now);
                timeline
            }
            _ => {
                let (mut rows, mut hashes) = (Vec::new(), Vec::new());
                tiles::hash_rows(frame, &mut rows);
                tiles::hash_tiles(frame, &mut hashes);
                Arc::new(Timeline::new(grid, rows, hashes, frame.id()))
            }
        }
    }

    /// `timeline` moved on by a poll that found the target unchanged without reading it (its
    /// source was told of no change since the latest capture): as if that capture's frame
    /// were seen again, so blinks and busy regions are still told on the polls' rhythm.
    /// Hashes nothing.
    pub fn again(mut timeline: Arc<Timeline>) -> Arc<Timeline> {
        let moving = Arc::make_mut(&mut timeline);
        let mut hashes = moving.before_previous.take().unwrap_or_default();
        hashes.clone_from(&moving.current);
        for tile in &mut moving.tiles {
            tile.revisits <<= 1;
        }
        let older = std::mem::replace(&mut moving.current, hashes);
        moving.before_previous = moving.previous.replace(older);
        timeline
    }

    /// Whether this timeline's latest capture is `frame`.
    pub fn is_of(&self, frame: &Frame) -> bool {
        self.frame_id == frame.id()
    }

    fn new(grid: TileGrid, rows: Vec<u64>, hashes: Vec<u64>, frame_id: u64) -> Timeline {
        Timeline {
            grid,
            tiles: hashes
                .iter()
                .map(|&h| TileHistory::starting_at(h))
                .collect(),
            current: hashes,
            previous: None,
            before_previous: None,
            rows,
            frame_id,
        }
    }

    fn observe(&mut self, hashes: Vec<u64>, frame_id: u64, now: Timestamp) {
        for (tile, &hash) in self.tiles.iter_mut().zip(&hashes) {
            tile.observe(hash, now);
        }
        self.frame_id = frame_id;
        let older = std::mem::replace(&mut self.current, hashes);
        self.before_previous = self.previous.replace(older);
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
    pub(super) fn in_busy_region(&self, index: usize, now: Timestamp) -> bool {
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
    pub(super) fn is_blinking(&self, index: usize) -> bool {
        let now = self.current[index];
        let flipping = match (&self.previous, &self.before_previous) {
            (Some(previous), Some(before)) => previous[index] != now && before[index] == now,
            _ => false,
        };
        flipping || self.tiles[index].is_blinking()
    }

    /// Whether tile `index` was already on the move before its latest change: it came back
    /// to a state it had lately (a blink not yet known as one), or it had changed at the
    /// capture before too (a ticker not yet known as busy). Such a change is left to the
    /// polls' rhythm, which tells blinks and tickers from news; a settle probe, looking a
    /// moment later, would see a ticking clock hold still.
    pub(super) fn was_moving(&self, index: usize) -> bool {
        let changed_before = match (&self.previous, &self.before_previous) {
            (Some(previous), Some(before)) => previous[index] != before[index],
            _ => false,
        };
        self.tiles[index].returned || changed_before
    }

    /// Whether tile `index` holds the state it had one or two captures ago.
    pub(super) fn holds_still(&self, index: usize) -> bool {
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
