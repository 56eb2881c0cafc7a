//! Taking a `std::sync::Mutex` or `RwLock` whose holder may have panicked: the actors restart
//! after a panic and carry on with the data as it was left, so a poisoned lock is taken
//! anyway. The one way a lock is taken in the workspace (clippy's `disallowed-methods`
//! forbids the others); it lives here, the crate every other depends on, and `actors::locks`
//! re-exports it.

#![allow(clippy::disallowed_methods)]

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `mutex`, poisoned or not.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Reads `lock`, poisoned or not.
pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes `lock`, poisoned or not.
pub fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
