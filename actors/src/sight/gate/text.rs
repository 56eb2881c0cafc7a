//! The gate of text targets (terminals, tmux panes, log files): any change in the text, or
//! the watched process ending, is news; the same text twice in a row has settled.

use std::sync::Arc;

use storage::Timestamp;

use crate::sight::content::{Content, ProcessExit};
use crate::sight::gate::{Gate, GateDecision, Readiness, fingerprint};

/// The gate of text targets: any change in the text (or the process ending) is news.
#[derive(Debug, Default)]
pub struct TextGate {
    previous: Option<u64>,
    seen_changing: Option<u64>,
    seen_settled: Option<u64>,
    /// The last text hashed and its fingerprint: a source that saw no change hands out the
    /// same shared text, which then costs a pointer comparison instead of a hash.
    last_hashed: Option<(Arc<str>, Option<ProcessExit>, u64)>,
}

impl TextGate {
    fn fingerprint_of(&mut self, content: &Content) -> u64 {
        let Content::Text { text, exit, .. } = content else {
            return fingerprint(content);
        };
        if let Some((last_text, last_exit, print)) = &self.last_hashed
            && Arc::ptr_eq(last_text, text)
            && last_exit == exit
        {
            return *print;
        }
        let print = fingerprint(content);
        self.last_hashed = Some((Arc::clone(text), *exit, print));
        print
    }
}

impl Gate for TextGate {
    fn consider(&mut self, content: &Content, _now: Timestamp) -> GateDecision {
        let current = self.fingerprint_of(content);
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
        let current = self.fingerprint_of(content);
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
    use crate::sight::content::ProcessExit;

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
            origin: Default::default(),
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
