//! Fault injection: make a chosen actor panic on its next (or Nth) message, or on every one;
//! or wedge it (its next message waits until released, as a handler stuck on a disk would).
//!
//! Always compiled and always consulted, so the code under test is the code that ships;
//! when nothing is armed the check is one relaxed atomic load. Only the fault-injection
//! harness and tests arm it (and, in a build with the `harness` feature, the real binary
//! from `LOOKOUT_HARNESS_FAULTS`, parsed by [`FaultSpec::parse_list`]).

use std::collections::{HashMap, HashSet};
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
    Recall,
    Recorder,
}

impl ActorKind {
    pub const ALL: [ActorKind; 12] = [
        ActorKind::Registry,
        ActorKind::Clock,
        ActorKind::Wake,
        ActorKind::Tasks,
        ActorKind::Task,
        ActorKind::Waits,
        ActorKind::Wait,
        ActorKind::Watcher,
        ActorKind::Terminals,
        ActorKind::Vision,
        ActorKind::Recall,
        ActorKind::Recorder,
    ];

    /// The one-word name fault specs use (`registry`, `task`, `wake`, …).
    pub fn key(self) -> &'static str {
        match self {
            ActorKind::Registry => "registry",
            ActorKind::Clock => "clock",
            ActorKind::Wake => "wake",
            ActorKind::Tasks => "tasks",
            ActorKind::Task => "task",
            ActorKind::Waits => "waits",
            ActorKind::Wait => "wait",
            ActorKind::Watcher => "watcher",
            ActorKind::Terminals => "terminals",
            ActorKind::Vision => "vision",
            ActorKind::Recall => "recall",
            ActorKind::Recorder => "recorder",
        }
    }

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
            ActorKind::Recall => "recall actor",
            ActorKind::Recorder => "screen recorder",
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
    /// What is armed, per actor kind.
    countdowns: Mutex<HashMap<ActorKind, Arming>>,
    /// The kinds whose next message waits (see [`Faults::wedge`]), and what releases them.
    wedged: Mutex<HashSet<ActorKind>>,
    released: tokio::sync::Notify,
}

/// When an armed actor kind panics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arming {
    /// Once, on the `n`-th message from now (1 = the next); then disarmed.
    Nth(u32),
    /// On every message until disarmed: each restart dies again (a crash loop).
    Every,
}

/// One armed fault: `kind` panics as `arming` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultSpec {
    pub kind: ActorKind,
    pub arming: Arming,
}

impl FaultSpec {
    /// Parses a comma-separated list of `<actor>:<when>`, where `<actor>` is one of
    /// `registry`, `clock`, `wake`, `tasks`, `task`, `waits`, `wait`, `watcher`,
    /// `terminals`, `vision` and `<when>` is a number N (panic once, on the N-th message)
    /// or `every` (panic on every message): `registry:every`, `task:3,wake:1`.
    pub fn parse_list(text: &str) -> Result<Vec<FaultSpec>, String> {
        text.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(FaultSpec::parse)
            .collect()
    }

    fn parse(item: &str) -> Result<FaultSpec, String> {
        let (actor, when) = item
            .split_once(':')
            .ok_or_else(|| format!("{item:?} is not <actor>:<N|every>"))?;
        let kind = ActorKind::ALL
            .into_iter()
            .find(|kind| kind.key() == actor.trim())
            .ok_or_else(|| {
                let keys: Vec<&str> = ActorKind::ALL.iter().map(|kind| kind.key()).collect();
                format!(
                    "unknown actor {actor:?} in {item:?}; one of {}",
                    keys.join(", ")
                )
            })?;
        let arming = match when.trim() {
            "every" => Arming::Every,
            number => match number.parse::<u32>() {
                Ok(n) if n >= 1 => Arming::Nth(n),
                _ => {
                    return Err(format!(
                        "{when:?} in {item:?} is neither a message number (1 or more) nor \"every\""
                    ));
                }
            },
        };
        Ok(FaultSpec { kind, arming })
    }
}

impl Faults {
    /// The next message `kind` handles panics.
    pub fn panic_next(&self, kind: ActorKind) {
        self.panic_on_nth(kind, 1);
    }

    /// The `n`-th message (1 = the next) that `kind` handles panics.
    pub fn panic_on_nth(&self, kind: ActorKind, n: u32) {
        let mut countdowns = crate::locks::lock(&self.inner.countdowns);
        countdowns.insert(kind, Arming::Nth(n.max(1)));
        self.inner.any_armed.store(true, Ordering::SeqCst);
    }

    /// Whether a fault for `kind` is armed and has not fired yet.
    pub fn is_armed(&self, kind: ActorKind) -> bool {
        crate::locks::lock(&self.inner.countdowns).contains_key(&kind)
    }

    /// Every message `kind` handles panics, until [`Faults::disarm_all`].
    pub fn panic_every(&self, kind: ActorKind) {
        let mut countdowns = crate::locks::lock(&self.inner.countdowns);
        countdowns.insert(kind, Arming::Every);
        self.inner.any_armed.store(true, Ordering::SeqCst);
    }

    /// Arms what `spec` says.
    pub fn arm(&self, spec: FaultSpec) {
        match spec.arming {
            Arming::Nth(n) => self.panic_on_nth(spec.kind, n),
            Arming::Every => self.panic_every(spec.kind),
        }
    }

    pub fn disarm_all(&self) {
        crate::locks::lock(&self.inner.countdowns).clear();
        self.release();
        self.inner.any_armed.store(false, Ordering::SeqCst);
    }

    /// The next message `kind` handles waits (its mailbox fills behind it) until
    /// [`Faults::release`]: a wedged actor, alive but answering nothing.
    pub fn wedge(&self, kind: ActorKind) {
        crate::locks::lock(&self.inner.wedged).insert(kind);
        self.inner.any_armed.store(true, Ordering::SeqCst);
    }

    /// Lets every wedged actor go on.
    pub fn release(&self) {
        crate::locks::lock(&self.inner.wedged).clear();
        self.inner.released.notify_waiters();
    }

    /// Called by the actors that can be wedged at the top of their message handler: waits
    /// while `kind` is wedged.
    pub async fn hold_if_wedged(&self, kind: ActorKind) {
        if !self.inner.any_armed.load(Ordering::Relaxed) {
            return;
        }
        loop {
            let released = self.inner.released.notified();
            let wedged = crate::locks::lock(&self.inner.wedged).contains(&kind);
            if !wedged {
                return;
            }
            released.await;
        }
    }

    /// Called by every actor at the top of its message handler.
    pub fn check(&self, kind: ActorKind) {
        if !self.inner.any_armed.load(Ordering::Relaxed) {
            return;
        }
        let fire = {
            let mut countdowns = crate::locks::lock(&self.inner.countdowns);
            match countdowns.get_mut(&kind) {
                Some(Arming::Every) => true,
                Some(Arming::Nth(1)) => {
                    countdowns.remove(&kind);
                    let wedged = crate::locks::lock(&self.inner.wedged);
                    if countdowns.is_empty() && wedged.is_empty() {
                        self.inner.any_armed.store(false, Ordering::SeqCst);
                    }
                    true
                }
                Some(Arming::Nth(left)) => {
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

    #[test]
    fn every_fires_on_each_message_until_disarmed() {
        let faults = Faults::default();
        faults.panic_every(ActorKind::Registry);
        for _ in 0..3 {
            let fired = std::panic::catch_unwind(|| faults.check(ActorKind::Registry));
            assert!(fired.is_err());
        }
        faults.check(ActorKind::Wake); // other kinds pass
        faults.disarm_all();
        faults.check(ActorKind::Registry);
    }

    #[test]
    fn specs_parse_from_the_harness_variable() {
        assert_eq!(
            FaultSpec::parse_list("registry:every, task:3,,wake:1").unwrap(),
            [
                FaultSpec {
                    kind: ActorKind::Registry,
                    arming: Arming::Every
                },
                FaultSpec {
                    kind: ActorKind::Task,
                    arming: Arming::Nth(3)
                },
                FaultSpec {
                    kind: ActorKind::Wake,
                    arming: Arming::Nth(1)
                },
            ]
        );
        assert_eq!(FaultSpec::parse_list("").unwrap(), []);
        for (bad, says) in [
            ("registry", "not <actor>:<N|every>"),
            ("regsitry:every", "unknown actor \"regsitry\""),
            ("task:0", "neither a message number"),
            ("task:often", "neither a message number"),
        ] {
            let error = FaultSpec::parse_list(bad).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
        }
        // Every kind's key parses back to it.
        for kind in ActorKind::ALL {
            let spec = FaultSpec::parse_list(&format!("{}:2", kind.key())).unwrap();
            assert_eq!(spec[0].kind, kind);
        }

        let faults = Faults::default();
        for spec in FaultSpec::parse_list("task:2").unwrap() {
            faults.arm(spec);
        }
        faults.check(ActorKind::Task);
        assert!(std::panic::catch_unwind(|| faults.check(ActorKind::Task)).is_err());
    }
}
