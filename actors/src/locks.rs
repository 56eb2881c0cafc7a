//! Taking a `std::sync::Mutex` whose holder may have panicked: the actors restart after a
//! panic and carry on with the data as it was left, so a poisoned lock is taken anyway.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, poisoned or not.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
