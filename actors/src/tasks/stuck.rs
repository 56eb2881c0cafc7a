//! Stuck detection, the authoritative rule of docs/contract.md §5: a task is stuck iff it is
//! active, no wait of it is live, and it has had no activity for its threshold; it is
//! alerted at most once per cooldown. Pure; the Tasks supervisor runs the scan and each
//! TaskActor re-checks its own task before alerting.

use std::time::Duration;

use storage::{StuckInfo, Timestamp};

/// No threshold is shorter than this (tests and demos use it); the scan looks no further.
pub const MIN_THRESHOLD: Duration = Duration::from_secs(1);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StuckPolicy {
    pub enabled: bool,
    pub threshold: Duration,
    pub scan_interval: Duration,
    pub cooldown: Duration,
    /// The wake text (envelope and JSON) never exceeds this many bytes.
    pub max_packet_bytes: usize,
}

impl Default for StuckPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            threshold: Duration::from_secs(300),
            scan_interval: Duration::from_secs(60),
            cooldown: Duration::from_secs(600),
            max_packet_bytes: 8 * 1024,
        }
    }
}

impl StuckPolicy {
    /// The task's own threshold when it set one, else the configured one.
    pub fn threshold_for(&self, info: &StuckInfo) -> Duration {
        info.threshold_override_s
            .map(Duration::from_secs)
            .unwrap_or(self.threshold)
            .max(MIN_THRESHOLD)
    }

    /// Whether a candidate (active, no live wait) last updated at `updated_at` is due for
    /// an alert at `now`.
    pub fn is_due(&self, now: Timestamp, updated_at: Timestamp, info: &StuckInfo) -> bool {
        let idle = Duration::from_millis(now.millis_since(updated_at));
        let cooled_down = info
            .last_alert_at
            .is_none_or(|at| Duration::from_millis(now.millis_since(at)) >= self.cooldown);
        idle >= self.threshold_for(info) && cooled_down
    }
}

/// "no updates for 9 minutes and no active wait"
pub fn reason(now: Timestamp, updated_at: Timestamp) -> String {
    format!(
        "no updates for {} and no active wait",
        describe_duration(now.millis_since(updated_at))
    )
}

/// "45 seconds", "1 minute", "9 minutes", "2 hours", "3 days": rounded down to one unit.
pub fn describe_duration(millis: u64) -> String {
    let seconds = millis / 1000;
    let (amount, unit) = match seconds {
        0..120 => (seconds, "second"),
        120..7200 => (seconds / 60, "minute"),
        7200..172_800 => (seconds / 3600, "hour"),
        _ => (seconds / 86_400, "day"),
    };
    format!("{amount} {unit}{}", if amount == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(threshold_override_s: Option<u64>, last_alert_s: Option<u64>) -> StuckInfo {
        StuckInfo {
            threshold_override_s,
            last_alert_at: last_alert_s.map(Timestamp::from_secs),
        }
    }

    #[test]
    fn the_rule_follows_threshold_override_and_cooldown() {
        let policy = StuckPolicy::default();
        // (now, updated_at, override, last alert, due?)
        let table = [
            (1_299, 1_000, None, None, false),    // idle 299 s < 300
            (1_300, 1_000, None, None, true),     // idle exactly the threshold
            (1_010, 1_000, Some(10), None, true), // the task's own threshold
            (1_009, 1_000, Some(10), None, false),
            (1_000, 1_000, Some(0), None, false), // never below one second
            (2_000, 1_000, None, Some(1_500), false), // alerted 500 s ago, cooldown 600
            (2_100, 1_000, None, Some(1_500), true), // cooldown over
        ];
        for (now, updated, threshold, alert, due) in table {
            let got = policy.is_due(
                Timestamp::from_secs(now),
                Timestamp::from_secs(updated),
                &info(threshold, alert),
            );
            assert_eq!(
                got, due,
                "now {now}, updated {updated}, override {threshold:?}, alert {alert:?}"
            );
        }
    }

    #[test]
    fn reasons_read_naturally() {
        let at = |s| Timestamp::from_secs(s);
        assert_eq!(
            reason(at(1540), at(1000)),
            "no updates for 9 minutes and no active wait"
        );
        assert_eq!(describe_duration(1_000), "1 second");
        assert_eq!(describe_duration(45_000), "45 seconds");
        assert_eq!(describe_duration(120_000), "2 minutes");
        assert_eq!(describe_duration(3 * 3_600_000), "3 hours");
        assert_eq!(describe_duration(3 * 86_400_000), "3 days");
    }
}
