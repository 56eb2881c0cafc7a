//! The systemd watchdog: pet (`WATCHDOG=1`) at half the interval systemd asked for, but
//! only after the actor tree answered a liveness ping, so a wedged tree stops the pets and
//! systemd restarts the daemon.

use std::future::Future;
use std::time::Duration;

use actors::CallError;
use tokio::time::MissedTickBehavior;

use super::Notifier;

/// Half of `WATCHDOG_USEC`, when that is set for this process (`WATCHDOG_PID` absent or
/// ours) and positive.
pub fn interval_from(
    usec: Option<&str>,
    watchdog_pid: Option<&str>,
    our_pid: u32,
) -> Option<Duration> {
    if let Some(pid) = watchdog_pid.filter(|pid| !pid.is_empty())
        && pid.trim().parse::<u32>().ok() != Some(our_pid)
    {
        return None;
    }
    let usec: u64 = usec?.trim().parse().ok().filter(|&usec| usec > 0)?;
    Some(Duration::from_micros(usec / 2))
}

/// Every `interval`, runs `alive` (bounded by `interval`) and pets the watchdog only if it
/// answered `Ok`. Runs until aborted.
pub async fn pet_while_alive<Ping, Answer>(notifier: Notifier, interval: Duration, mut alive: Ping)
where
    Ping: FnMut() -> Answer,
    Answer: Future<Output = Result<(), CallError>>,
{
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        match tokio::time::timeout(interval, alive()).await {
            Ok(Ok(())) => {
                if let Err(error) = notifier.notify("WATCHDOG=1") {
                    tracing::warn!(%error, "cannot pet the systemd watchdog");
                }
            }
            Ok(Err(error)) => {
                tracing::warn!(%error, "the actor tree failed its liveness ping; not petting the watchdog");
            }
            Err(_) => {
                tracing::warn!(
                    waited_ms = interval.as_millis() as u64,
                    "the actor tree did not answer its liveness ping; not petting the watchdog"
                );
            }
        }
    }
}
