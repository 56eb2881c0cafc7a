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
//! Pure and synchronous: it receives timestamps and reads no clock. On a still window a
//! 1080p frame costs about 1.3 memcpys (one hash per row; only the bands of tiles whose rows
//! changed are hashed again; BENCHMARKS.md), and between captures the gate holds no pixels:
//! tile hashes, and the frame its judge saw compressed tile by tile ([`CompactFrame`]),
//! read back only for the tiles that differ.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use storage::Timestamp;

use crate::sight::content::{Content, Frame};
use crate::sight::gate::compact::CompactFrame;
use crate::sight::gate::tiles::{self, TileGrid, TileRect};
use crate::sight::gate::{Gate, GateDecision, Readiness};

/// A pixel whose channels all moved by at most this much has not changed (dithering, video
/// and compression noise stay below it; text, widgets and progress bars are far above it).
pub const PIXEL_DELTA: u8 = 24;

/// Fewer changed pixels than this, over all quiet tiles, is not a change (one flipped pixel
/// of an anti-aliased edge). One typed character changes a few dozen.
pub const MIN_CHANGED_PIXELS: usize = 8;

/// The first wait before changes confined to busy regions are judged; it doubles with each
/// such judgment up to the floor, and starts over once no region has been busy for
/// [`BUSY_WINDOW`].
pub const NOISE_FIRST_INTERVAL: Duration = Duration::from_secs(30);

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
    /// The last probe's frame id and tile hashes (what the next probe compares with).
    probed: Option<(u64, Vec<u64>)>,
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
    /// The frame, compressed, and its tile hashes.
    Frame {
        compact: Arc<CompactFrame>,
        hashes: Vec<u64>,
    },
    Other(u64),
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
                    compact: seen_frame,
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
        if seen_frame.grid() != grid {
            return self.decide(
                GateDecision::Judge(Readiness::Settled),
                JudgeReason::FirstSight,
            );
        }
        let tracking = self.tracking.as_ref().expect("tracking was just set");

        // Tiles that really differ from what the judge saw (not blinking, some pixel beyond
        // the delta), each marked busy or not.
        let mut changed: Vec<ChangedTile> = Vec::new();
        let mut seen_tile = tiles::tile_buffer();
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
            seen_frame.tile(index, &mut seen_tile);
            let pixels = tiles::count_changed_pixels(
                &seen_tile,
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
        // A change among tiles already on the move (blinks and tickers not yet known as
        // such) waits for the next poll to show it holds.
        if (self.changing_tiles.iter()).any(|&index| tracking.was_moving(index)) {
            self.changing_tiles.clear();
            return GateDecision::Skip;
        }
        let mut hashes = Vec::new();
        tiles::hash_tiles(frame, &mut hashes);
        let before = self.probed.as_ref().map_or(&tracking.current, |(_, h)| h);
        let still = (self.changing_tiles.iter()).all(|&index| hashes[index] == before[index]);
        self.probed = Some((frame.id(), hashes));
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
                // The hashes of a probe's frame or a poll's were computed already.
                let probed = (self.probed.as_ref())
                    .filter(|(probed, _)| *probed == frame.id())
                    .map(|(_, hashes)| hashes);
                let polled = (self.tracking.as_ref())
                    .filter(|tracking| tracking.is_of(frame))
                    .map(|tracking| &tracking.current);
                let hashes = match probed.or(polled) {
                    Some(hashes) => hashes.clone(),
                    None => {
                        let mut hashes = Vec::new();
                        tiles::hash_tiles(frame, &mut hashes);
                        hashes
                    }
                };
                Seen::Frame {
                    compact: frame.compact(),
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

    fn seen_unchanged(&mut self, timeline: Option<&Arc<Timeline>>) {
        if let Some(timeline) = timeline {
            self.tracking = Some(timeline.clone());
        }
    }

    /// The last poll's frame is exactly what the judge saw (every tile hash the baseline's),
    /// no probe or change is under way, and the floor is not due: the same frame again
    /// finds no tile to look at, blinking, busy or otherwise, so only the floor could judge
    /// it. A frame with any tile off the baseline is read again, since whether such a tile
    /// still counts as blinking or busy changes with time.
    fn skips_unchanged(&self, now: Timestamp) -> bool {
        let (Some(tracking), Some(baseline)) = (&self.tracking, &self.baseline) else {
            return false;
        };
        let Seen::Frame { hashes, .. } = &baseline.seen else {
            return false;
        };
        self.probed.is_none()
            && self.changing_tiles.is_empty()
            && tracking.current == *hashes
            && self.since_judged(now) < self.floor
    }
}

#[cfg(any(test, feature = "testkit"))]
pub mod synthetic;
mod timeline;

use timeline::BUSY_WINDOW;
pub use timeline::Timeline;
#[cfg(test)]
mod tests;
