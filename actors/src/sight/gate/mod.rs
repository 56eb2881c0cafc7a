//! The `Gate` seam: which captures are worth showing the judge.
//!
//! A gate compares each capture with what the judge last saw, so an unchanged target costs
//! nothing. It answers `Changing` for a change still in motion (cheap checks may look) and
//! `Settled` once the change holds still for a capture (the moment for a model call).
//! [`text::TextGate`] serves text targets; [`pixel::PixelGate`] (tiles, blink and ticker
//! suppression, a floor interval) window and screen targets.

pub mod compact;
pub mod pixel;
pub mod text;
pub mod tiles;

use std::sync::Arc;

use storage::Timestamp;
use twox_hash::XxHash3_64;

use crate::sight::content::Content;
use crate::sight::gate::pixel::Timeline;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// Different from what the judge saw, and still moving.
    Changing,
    /// Different from what the judge saw, and the same as the capture before: settled.
    Settled,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateDecision {
    /// Nothing the judge has not seen.
    Skip,
    Judge(Readiness),
}

pub trait Gate: Send + 'static {
    /// Looks at a fresh capture.
    fn consider(&mut self, content: &Content, now: Timestamp) -> GateDecision;

    /// Looks at a capture a feed shares between the waits on one target, with the target's
    /// tile timeline as of it (computed once per capture for window and screen targets).
    fn consider_shared(
        &mut self,
        content: &Content,
        _timeline: Option<&Arc<Timeline>>,
        now: Timestamp,
    ) -> GateDecision {
        self.consider(content, now)
    }

    /// The judge looked at `content` at this readiness: the baseline for later changes.
    fn judged(&mut self, content: &Content, readiness: Readiness, now: Timestamp);

    /// Forget every baseline, so the next capture is judged (a new condition, a revived wait).
    fn reset(&mut self);

    /// Whether the capture this gate considered last, shown again at `now`, would be
    /// skipped: then a target that says it did not change since need not be read at all
    /// (`waits::feed`). `false` by default, and whenever time alone could change the answer.
    fn skips_unchanged(&self, _now: Timestamp) -> bool {
        false
    }

    /// A poll found the target unchanged without reading it (it asked
    /// [`Gate::skips_unchanged`] first): `timeline` is the target's, moved on for that poll.
    fn seen_unchanged(&mut self, _timeline: Option<&Arc<Timeline>>) {}

    /// A quick second look soon after a capture found a change still moving (the Watcher's
    /// settle probe): `Judge(Settled)` once the change holds still. By default a capture
    /// like any other; the pixel gate keeps probes out of its tile histories.
    fn settle_probe(&mut self, content: &Content, now: Timestamp) -> GateDecision {
        self.consider(content, now)
    }
}

/// A hash of everything a gate compares (one-shot xxh3: the streaming `Hasher` route costs
/// several times more on a 64 KiB log tail).
pub fn fingerprint(content: &Content) -> u64 {
    match content {
        Content::Text { text, exit, .. } => {
            let exit = match exit.map(|e| e.code) {
                None => 0,
                Some(None) => 1,
                Some(Some(code)) => 2 + u64::from(code as u32),
            };
            XxHash3_64::oneshot_with_seed(exit << 2, text.as_bytes())
        }
        Content::Absent { description } => XxHash3_64::oneshot_with_seed(1, description.as_bytes()),
        Content::Frame(frame) => XxHash3_64::oneshot_with_seed(
            (u64::from(frame.width) << 34) | (u64::from(frame.height) << 2) | 2,
            &frame.pixels,
        ),
    }
}
