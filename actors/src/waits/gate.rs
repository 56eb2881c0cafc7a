//! The `Gate` seam: which captures are worth showing the judge.
//!
//! A gate compares each capture with what the judge last saw, so an unchanged target costs
//! nothing. It answers `Changing` for a change still in motion (cheap checks may look) and
//! `Settled` once the change holds still for a capture (the moment for a model call). The
//! pixel gate (tiles, blink and ticker suppression, a floor interval) implements the same
//! trait for window and screen targets.

use std::hash::{DefaultHasher, Hash, Hasher};

use storage::Timestamp;

use crate::waits::content::Content;

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

    /// The judge looked at `content` at this readiness: the baseline for later changes.
    fn judged(&mut self, content: &Content, readiness: Readiness, now: Timestamp);

    /// Forget every baseline, so the next capture is judged (a new condition, a revived wait).
    fn reset(&mut self);
}

/// The gate of text targets: any change in the text (or the process ending) is news.
#[derive(Debug, Default)]
pub struct TextGate {
    previous: Option<u64>,
    seen_changing: Option<u64>,
    seen_settled: Option<u64>,
}

fn fingerprint(content: &Content) -> u64 {
    let mut hasher = DefaultHasher::new();
    content.hash_for_gate(&mut hasher);
    hasher.finish()
}

impl Content {
    fn hash_for_gate(&self, hasher: &mut impl Hasher) {
        match self {
            Content::Text { text, exit } => (0u8, text, exit.map(|e| e.code)).hash(hasher),
            Content::Absent { description } => (1u8, description).hash(hasher),
            Content::Frame(frame) => {
                (2u8, frame.width, frame.height, &frame.pixels[..]).hash(hasher)
            }
        }
    }
}

impl Gate for TextGate {
    fn consider(&mut self, content: &Content, _now: Timestamp) -> GateDecision {
        let current = fingerprint(content);
        let settled = self.previous == Some(current);
        let ended = matches!(content, Content::Text { exit: Some(_), .. });
        self.previous = Some(current);
        if (settled || ended) && self.seen_settled != Some(current) {
            GateDecision::Judge(Readiness::Settled)
        } else if !settled
            && self.seen_changing != Some(current)
            && self.seen_settled != Some(current)
        {
            GateDecision::Judge(Readiness::Changing)
        } else {
            GateDecision::Skip
        }
    }

    fn judged(&mut self, content: &Content, readiness: Readiness, _now: Timestamp) {
        let current = fingerprint(content);
        self.seen_changing = Some(current);
        if readiness == Readiness::Settled {
            self.seen_settled = Some(current);
        }
    }

    fn reset(&mut self) {
        *self = TextGate::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::waits::content::ProcessExit;

    /// Feeds captures through the gate, marking every judged one as seen, and returns the
    /// decisions.
    fn run(captures: &[Content]) -> Vec<GateDecision> {
        let mut gate = TextGate::default();
        captures
            .iter()
            .map(|content| {
                let decision = gate.consider(content, Timestamp(0));
                if let GateDecision::Judge(readiness) = decision {
                    gate.judged(content, readiness, Timestamp(0));
                }
                decision
            })
            .collect()
    }

    #[test]
    fn changes_are_judged_quickly_then_once_settled_and_static_text_costs_nothing() {
        use GateDecision::{Judge, Skip};
        use Readiness::{Changing, Settled};
        let a = Content::text("step 1");
        let b = Content::text("step 1\nstep 2");
        let decisions = run(&[a.clone(), a.clone(), a.clone(), b.clone(), b.clone(), b, a]);
        assert_eq!(
            decisions,
            [
                Judge(Changing),
                Judge(Settled),
                Skip,
                Judge(Changing),
                Judge(Settled),
                Skip,
                Judge(Changing)
            ]
        );
    }

    #[test]
    fn a_process_exit_is_judged_at_once_as_settled() {
        let running = Content::text("ALL DONE");
        let ended = Content::Text {
            text: "ALL DONE".into(),
            exit: Some(ProcessExit { code: Some(0) }),
        };
        let decisions = run(&[running.clone(), running, ended.clone(), ended]);
        assert_eq!(decisions[2], GateDecision::Judge(Readiness::Settled));
        assert_eq!(decisions[3], GateDecision::Skip);
    }

    #[test]
    fn reset_makes_the_next_capture_news_again() {
        let mut gate = TextGate::default();
        let a = Content::text("same");
        for _ in 0..2 {
            if let GateDecision::Judge(readiness) = gate.consider(&a, Timestamp(0)) {
                gate.judged(&a, readiness, Timestamp(0));
            }
        }
        assert_eq!(gate.consider(&a, Timestamp(0)), GateDecision::Skip);
        gate.reset();
        assert_eq!(
            gate.consider(&a, Timestamp(0)),
            GateDecision::Judge(Readiness::Changing)
        );
    }
}
