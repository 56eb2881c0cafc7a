//! Children kept by key (a task id, a wait id), for the supervisors that run one actor per
//! thing: who serves a key now, which child is which key, and the requests that arrive while
//! a key's actor is retiring. A retiring actor is drained (it answers what it already holds)
//! and requests for its key wait here until it has stopped, so two actors never serve one key.

use std::collections::HashMap;
use std::hash::Hash;

use ractor::{ActorId, ActorRef, Message, MessagingErr};

pub struct KeyedChildren<K, M: Message> {
    live: HashMap<K, ActorRef<M>>,
    key_of: HashMap<ActorId, K>,
    /// Keys whose actor is draining, with the requests that arrived meanwhile.
    retiring: HashMap<K, (ActorId, Vec<M>)>,
}

impl<K: Hash + Eq + Clone, M: Message> Default for KeyedChildren<K, M> {
    fn default() -> Self {
        Self {
            live: HashMap::new(),
            key_of: HashMap::new(),
            retiring: HashMap::new(),
        }
    }
}

/// What to do with a request for a key.
pub enum Route<M> {
    /// Delivered to the key's live actor.
    Delivered,
    /// Held until the key's retiring actor has stopped.
    Held,
    /// No actor serves the key: start one and send it this.
    Spawn(M),
}

impl<K: Hash + Eq + Clone, M: Message> KeyedChildren<K, M> {
    /// Sends `msg` to the key's actor, holds it while that actor retires, or hands it back
    /// when a new actor must be started (also when the actor stopped in between).
    pub fn route(&mut self, key: &K, msg: M) -> Route<M> {
        if let Some((_, held)) = self.retiring.get_mut(key) {
            held.push(msg);
            return Route::Held;
        }
        let Some(child) = self.live.get(key) else {
            return Route::Spawn(msg);
        };
        match child.cast(msg) {
            Ok(()) => Route::Delivered,
            Err(MessagingErr::SendErr(msg)) => {
                self.live.remove(key);
                Route::Spawn(msg)
            }
            // The message is lost with the other errors; they cannot happen for a typed ref.
            Err(_) => Route::Delivered,
        }
    }

    pub fn insert(&mut self, key: K, child: ActorRef<M>) {
        self.key_of.insert(child.get_id(), key.clone());
        self.live.insert(key, child);
    }

    pub fn get(&self, key: &K) -> Option<&ActorRef<M>> {
        self.live.get(key)
    }

    pub fn live(&self) -> impl Iterator<Item = (&K, &ActorRef<M>)> {
        self.live.iter()
    }

    /// Live and retiring actors.
    pub fn len(&self) -> usize {
        self.live.len() + self.retiring.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn key_of(&self, actor: &ActorId) -> Option<&K> {
        self.key_of.get(actor)
    }

    /// Drains the key's actor if `actor` is still the one serving it.
    pub fn retire(&mut self, key: &K, actor: ActorId) {
        if self
            .live
            .get(key)
            .is_some_and(|child| child.get_id() == actor)
            && let Some(child) = self.live.remove(key)
        {
            self.retiring.insert(key.clone(), (actor, Vec::new()));
            let _ = child.drain();
        }
    }

    /// Forgets a stopped or failed child; returns its key and the requests held for it,
    /// which the caller routes again (starting a successor).
    pub fn gone(&mut self, actor: ActorId) -> Option<(K, Vec<M>)> {
        let key = self.key_of.remove(&actor)?;
        if self
            .live
            .get(&key)
            .is_some_and(|child| child.get_id() == actor)
        {
            self.live.remove(&key);
        }
        let held = match self.retiring.get(&key) {
            Some((draining, _)) if *draining == actor => {
                self.retiring.remove(&key).map(|(_, held)| held)
            }
            _ => None,
        };
        Some((key, held.unwrap_or_default()))
    }
}
