//! Taking a `std::sync::Mutex` or `RwLock` whose holder may have panicked, as `actors::locks`
//! does (storage depends on no other crate of the workspace): a poisoned lock is taken anyway,
//! and this is the one way a lock is taken here.

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
