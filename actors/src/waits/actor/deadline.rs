//! A wait's time: its deadline anchored on the machine's steady clock (so a wall clock
//! corrected while the daemon was down moves no deadline) and the refusal of a quiet window
//! the timeout cannot hold.

use storage::WaitRecord;

use crate::condition::{Reading, Test};
use crate::directory::Directory;
use crate::error::CallError;
use crate::waits::texts;
use crate::waits::types::WaitUpdate;

/// Anchors the record's deadline on the machine's steady clock too (when the Clock has one),
/// so a restart in the same boot keeps the time left whatever the wall clock did.
pub(super) fn anchor_deadline(record: &mut WaitRecord, directory: &Directory) {
    let Some(boot) = directory.clock().boot_now() else {
        return;
    };
    let left = record.deadline.millis_since(directory.now());
    record.deadline_boot = Some(storage::BootDeadline {
        boot_id: boot.boot_id,
        at_ms: boot.steady_ms.saturating_add(left),
    });
}

/// A resumed wait's deadline: within the boot that set it, what its steady-clock anchor
/// leaves from now (a wall clock corrected while the daemon was down moves nothing); after a
/// reboot, the stored wall time.
pub(super) fn deadline_from_boot(record: &mut WaitRecord, directory: &Directory) {
    let (Some(anchor), Some(boot)) = (&record.deadline_boot, directory.clock().boot_now()) else {
        return;
    };
    if anchor.boot_id != boot.boot_id {
        return;
    }
    let left = anchor.at_ms.saturating_sub(boot.steady_ms);
    record.deadline = directory.now().saturating_add_millis(left);
}

/// Refuses a condition that waits for more quiet than the timeout leaves: "the output goes
/// quiet" (30 s) in a wait of 30 s could never hold, and would only time out.
pub(super) fn check_quiet_fits(condition: &str, timeout_s: u64) -> Result<(), CallError> {
    let reading = Reading::parse(condition);
    let too_long = reading.clauses().find_map(|clause| match clause.test {
        Test::Quiet(quiet) if !clause.negated && quiet.as_secs() >= timeout_s => {
            Some((clause.text.clone(), quiet.as_secs()))
        }
        _ => None,
    });
    match too_long {
        Some((clause, quiet_s)) => Err(texts::quiet_beyond_timeout(&clause, quiet_s, timeout_s)),
        None => Ok(()),
    }
}

/// [`check_quiet_fits`] for the condition and timeout a `wait_update` leaves.
pub(super) fn check_update_fits(record: &WaitRecord, update: &WaitUpdate) -> Result<(), CallError> {
    let condition = update.wake_when.as_deref().unwrap_or(&record.condition);
    check_quiet_fits(condition, update.timeout_s.unwrap_or(record.timeout_s))
}
