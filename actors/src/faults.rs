//! Fault injection: make a chosen actor panic on its next (or Nth) message.
//!
//! Always compiled and always consulted, so the code under test is the code that ships;
//! when nothing is armed the check is one relaxed atomic load. Only the fault-injection
//! harness and tests arm it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The kinds of actor a fault can target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActorKind {
    Registry,
    Clock,
    Wake,
    Tasks,
    Task,
    Waits,
    Wait,
    Watcher,
    Terminals,
    Vision,
}

impl ActorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActorKind::Registry => "registry",
            ActorKind::Clock => "clock",
            ActorKind::Wake => "wake actor",
            ActorKind::Waits => "waits supervisor",
            ActorKind::Wait => "wait actor",
            ActorKind::Watcher => "watcher",
            ActorKind::Tasks => "tasks supervisor",
            ActorKind::Task => "task actor",
            ActorKind::Terminals => "terminals actor",
            ActorKind::Vision => "vision actor",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Faults {
    inner: Arc<FaultsInner>,
}

#[derive(Debug, Default)]
struct FaultsInner {
    any_armed: AtomicBool,
    /// Messages to let through before panicking, per actor kind.
    countdowns: Mutex<HashMap<ActorKind, u32>>,
}

impl Faults {
    /// The next message `kind` handles panics.
    pub fn panic_next(&self, kind: ActorKind) {
        self.panic_on_nth(kind, 1);
    }

    /// The `n`-th message (1 = the next) that `kind` handles panics.
    pub fn panic_on_nth(&self, kind: ActorKind, n: u32) {
        let mut countdowns = self
            .inner
            .countdowns
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        countdowns.insert(kind, n.max(1));
        self.inner.any_armed.store(true, Ordering::SeqCst);
    }

    /// Whether a fault for `kind` is armed and has not fired yet.
    pub fn is_armed(&self, kind: ActorKind) -> bool {
        self.inner
            .countdowns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(&kind)
    }

    pub fn disarm_all(&self) {
        self.inner
            .countdowns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.inner.any_armed.store(false, Ordering::SeqCst);
    }

    /// Called by every actor at the top of its message handler.
    pub fn check(&self, kind: ActorKind) {
        if !self.inner.any_armed.load(Ordering::Relaxed) {
            return;
        }
        let fire = {
            let mut countdowns = self
                .inner
                .countdowns
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            match countdowns.get_mut(&kind) {
                Some(1) => {
                    countdowns.remove(&kind);
                    if countdowns.is_empty() {
                        self.inner.any_armed.store(false, Ordering::SeqCst);
                    }
                    true
                }
                Some(left) => {
                    *left -= 1;
                    false
                }
                None => false,
            }
        };
        if fire {
            panic!(
                "injected fault: the {} panics on this message",
                kind.as_str()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_once_on_the_nth_message_of_its_kind() {
        let faults = Faults::default();
        faults.panic_on_nth(ActorKind::Task, 2);
        faults.check(ActorKind::Registry);
        faults.check(ActorKind::Task);
        let fired = std::panic::catch_unwind(|| faults.check(ActorKind::Task));
        assert!(fired.is_err());
        faults.check(ActorKind::Task); // disarmed after firing
    }
}
