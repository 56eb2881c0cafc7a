//! The restart policy: a small pure decision every supervisor asks when a child dies.
//!
//! ractor has no restart strategy of its own. Ours is Erlang's intensity rule with a
//! backoff: restart after a delay that doubles with each recent failure, and give up when
//! more than `max_restarts` failures fall inside `window`. Giving up at the root makes the
//! daemon exit non-zero so systemd restarts the whole process.

use std::collections::VecDeque;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Failures tolerated inside `window`; one more means give up.
    pub max_restarts: usize,
    pub window: Duration,
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            max_restarts: 5,
            window: Duration::from_secs(60),
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Restart { after: Duration },
    GiveUp { failures: usize, window: Duration },
}

/// The failure times of one child, in milliseconds on any monotonic scale.
#[derive(Clone, Debug, Default)]
pub struct RestartHistory {
    failures: VecDeque<u64>,
}

impl RestartHistory {
    pub fn failures_in_window(&self) -> usize {
        self.failures.len()
    }
}

impl RestartPolicy {
    /// Records a failure at `now_ms` and decides what to do about it.
    pub fn on_failure(&self, history: &mut RestartHistory, now_ms: u64) -> Decision {
        let window_ms = self.window.as_millis() as u64;
        while history
            .failures
            .front()
            .is_some_and(|&at| now_ms.saturating_sub(at) >= window_ms)
        {
            history.failures.pop_front();
        }
        history.failures.push_back(now_ms);
        let recent = history.failures.len();
        if recent > self.max_restarts {
            return Decision::GiveUp {
                failures: recent,
                window: self.window,
            };
        }
        let doublings = (recent - 1).min(20) as u32;
        let after = self
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(doublings));
        Decision::Restart {
            after: after.min(self.max_backoff),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RestartPolicy {
        RestartPolicy {
            max_restarts: 3,
            window: Duration::from_secs(10),
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(300),
        }
    }

    #[test]
    fn decisions_follow_the_intensity_rule() {
        // (failure time in ms, expected decision)
        let table = [
            (
                0,
                Decision::Restart {
                    after: Duration::from_millis(100),
                },
            ),
            (
                1_000,
                Decision::Restart {
                    after: Duration::from_millis(200),
                },
            ),
            (
                2_000,
                Decision::Restart {
                    after: Duration::from_millis(300),
                },
            ), // capped
            (
                3_000,
                Decision::GiveUp {
                    failures: 4,
                    window: Duration::from_secs(10),
                },
            ),
        ];
        let mut history = RestartHistory::default();
        for (at, expected) in table {
            assert_eq!(
                policy().on_failure(&mut history, at),
                expected,
                "failure at {at} ms"
            );
        }
    }

    #[test]
    fn old_failures_leave_the_window() {
        let mut history = RestartHistory::default();
        for at in [0, 1_000, 2_000] {
            policy().on_failure(&mut history, at);
        }
        // Ten seconds after the first two, only the third still counts.
        let decision = policy().on_failure(&mut history, 11_500);
        assert_eq!(
            decision,
            Decision::Restart {
                after: Duration::from_millis(200)
            }
        );
        assert_eq!(history.failures_in_window(), 2);
    }

    #[test]
    fn a_zero_budget_gives_up_at_the_first_failure() {
        let strict = RestartPolicy {
            max_restarts: 0,
            ..policy()
        };
        let decision = strict.on_failure(&mut RestartHistory::default(), 5);
        assert!(matches!(decision, Decision::GiveUp { failures: 1, .. }));
    }
}
