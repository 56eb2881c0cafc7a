//! `lookout mcp` as a Claude Code channel: the wake events that belong to this bridge's
//! session are pushed to its client as `notifications/claude/channel` (`content` = the wake
//! text, `meta` = kind, event id, wait id, task id), which Claude Code started with the
//! channel enabled adds to the session as a `<channel source="lookout" …>` message.
//!
//! An event belongs to the session when its wait was created (or revived) through this
//! bridge, its task was registered through this bridge or from the same Claude Code session
//! (the task's `origin`), or it names one of the bridge's session keys. Events the daemon
//! staged while the bridge was not subscribed (the daemon restarted) are looked up per wait
//! when the subscription is taken again, so an ended wait is still told once.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use actors::locks::lock;
use actors::wake::event::claude_code_session_key;
use rmcp::RoleServer;
use rmcp::model::{CustomNotification, ServerNotification};
use rmcp::service::Peer;
use serde_json::{Map, Value, json};
use tokio::sync::{Notify, mpsc};

use crate::client::Client;
use crate::client::subscription::{Heard, Patience, ended_wait, listen};
use crate::tools::spine::Method;

/// The capability key the bridge declares under `experimental`.
pub const CAPABILITY: &str = "claude/channel";
/// The notification that carries one wake into the session.
pub const METHOD: &str = "notifications/claude/channel";
/// Unclaimed events kept for a moment: a wait can end before the `smart_wait` answer that
/// names it has reached the bridge.
const RECENT_UNCLAIMED: usize = 64;

/// Who this bridge speaks for: its session keys (`--session`, Claude Code's session id) and
/// the origin it stamps on the tasks it registers.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    pub session_keys: Vec<String>,
    /// Claude Code's session id (`CLAUDE_CODE_SESSION_ID` in the bridge's environment).
    pub session_id: Option<String>,
    /// The project folder (`CLAUDE_PROJECT_DIR`, else the bridge's working directory).
    pub cwd: Option<PathBuf>,
}

impl Identity {
    /// The session key this bridge stamps on what it makes: `claude-code:<session id>`.
    pub fn stamped_key(&self) -> Option<String> {
        self.session_id.as_deref().map(claude_code_session_key)
    }

    /// `{"session_id", "cwd"}` for `task_register`, when the bridge knows either.
    pub fn origin(&self) -> Option<Value> {
        if self.session_id.is_none() && self.cwd.is_none() {
            return None;
        }
        Some(json!({
            "session_id": self.session_id,
            "cwd": self.cwd.as_ref().map(|cwd| cwd.display().to_string()),
        }))
    }
}

/// What belongs to the session, and which waits were told already.
#[derive(Debug, Default)]
pub struct Ownership {
    identity: Identity,
    /// Wait id → whether its end was pushed.
    waits: HashMap<String, bool>,
    tasks: HashSet<String>,
    /// Event ids pushed, so an event seen twice (live and looked up) is pushed once.
    pushed: HashSet<String>,
    unclaimed: VecDeque<Value>,
}

impl Ownership {
    pub fn new(identity: Identity) -> Self {
        Self {
            identity,
            ..Self::default()
        }
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Records what a successful tool call created; returns the events that arrived before
    /// it and belong to the session now.
    pub fn note_result(&mut self, tool: Method, result: &Value) -> Vec<Value> {
        let id = |key: &str| result[key].as_str().map(str::to_owned);
        match tool {
            Method::SmartWait | Method::WaitUpdate => {
                if let Some(wait_id) = id("wait_id") {
                    // A revived wait will end again: tell that end too.
                    self.waits.insert(wait_id, false);
                }
            }
            Method::TaskRegister => {
                if let Some(task_id) = id("task_id") {
                    self.tasks.insert(task_id);
                }
            }
            _ => return Vec::new(),
        }
        let (claimed, unclaimed) = std::mem::take(&mut self.unclaimed)
            .into_iter()
            .partition(|event| self.owns(event));
        self.unclaimed = unclaimed;
        claimed
            .into_iter()
            .filter_map(|event| self.first_telling(event))
            .collect()
    }

    /// Adopts tasks registered from this Claude Code session (by an earlier bridge).
    pub fn adopt_tasks(&mut self, listing: &Value) {
        let Some(session_id) = self.identity.session_id.clone() else {
            return;
        };
        for task in listing["tasks"].as_array().into_iter().flatten() {
            if task["origin"]["session_id"].as_str() == Some(session_id.as_str())
                && let Some(task_id) = task["task_id"].as_str()
            {
                self.tasks.insert(task_id.to_owned());
            }
        }
    }

    /// A live event: the params to push when it belongs to the session and is new.
    pub fn heard(&mut self, event: Value) -> Option<Value> {
        if !self.owns(&event) {
            if self.unclaimed.len() == RECENT_UNCLAIMED {
                self.unclaimed.pop_front();
            }
            self.unclaimed.push_back(event);
            return None;
        }
        self.first_telling(event)
    }

    /// The waits whose end was not pushed yet.
    pub fn untold_waits(&self) -> Vec<String> {
        let mut waits: Vec<String> = self
            .waits
            .iter()
            .filter(|(_, told)| !**told)
            .map(|(id, _)| id.clone())
            .collect();
        waits.sort();
        waits
    }

    /// A wait that ended while the bridge was not subscribed: what to push, from its status.
    pub fn ended_unheard(&mut self, status: &Value) -> Option<Value> {
        let wait_id = status["wait_id"].as_str()?;
        let (state, said) = ended_wait(status)?;
        // The agent cancelled it: there is nothing to wake for.
        if state == "cancelled" {
            self.waits.insert(wait_id.to_owned(), true);
            return None;
        }
        if self.waits.get(wait_id) != Some(&false) {
            return None;
        }
        self.waits.insert(wait_id.to_owned(), true);
        Some(json!({
            "kind": format!("wait_{state}"),
            "text": format!(
                "smart_wait {state} ({wait_id}) while this session's bridge could not \
                 listen (lookout's daemon was restarting): {said}. Call wait_status with \
                 this wait_id for its history."
            ),
            "wait_id": wait_id,
            "task_id": status["task_id"],
        }))
    }

    fn owns(&self, event: &Value) -> bool {
        let field = |key: &str| event[key].as_str();
        field("wait_id").is_some_and(|id| self.waits.contains_key(id))
            || field("task_id").is_some_and(|id| self.tasks.contains(id))
            || field("session_key")
                .is_some_and(|key| self.identity.session_keys.iter().any(|mine| mine == key))
    }

    /// The event, unless it was told already (its id, or its wait's end).
    fn first_telling(&mut self, event: Value) -> Option<Value> {
        if let Some(id) = event["id"].as_str()
            && !self.pushed.insert(id.to_owned())
        {
            return None;
        }
        if let Some(wait_id) = event["wait_id"].as_str()
            && let Some(told) = self.waits.get_mut(wait_id)
        {
            // Told already when its end was looked up after a restart.
            if std::mem::replace(told, true) {
                return None;
            }
        }
        Some(event)
    }
}

/// The channel notification for one event (`event` in the shape of `events.subscribe`).
/// `meta` keys are plain identifiers: Claude Code drops others.
pub fn notification(event: &Value) -> ServerNotification {
    let mut meta = Map::new();
    for (key, from) in [
        ("kind", "kind"),
        ("event_id", "id"),
        ("wait_id", "wait_id"),
        ("task_id", "task_id"),
    ] {
        if let Some(value) = event[from].as_str() {
            meta.insert(key.to_owned(), Value::String(value.to_owned()));
        }
    }
    ServerNotification::CustomNotification(CustomNotification::new(
        METHOD,
        Some(json!({
            "content": event["text"].as_str().unwrap_or_default(),
            "meta": meta,
        })),
    ))
}

/// Sends what `pushes` carries to the client until either side is gone.
pub async fn push(peer: Peer<RoleServer>, mut pushes: mpsc::UnboundedReceiver<Value>) {
    while let Some(event) = pushes.recv().await {
        if let Err(error) = peer.send_notification(notification(&event)).await {
            tracing::info!(%error, "the MCP client is gone; no more channel messages");
            return;
        }
    }
}

/// Listens to the daemon's wake events for as long as the bridge runs, handing the
/// session's to `pushes`; `subscribed` is told each time the subscription is (re)taken.
pub async fn follow(
    socket: PathBuf,
    ownership: Arc<Mutex<Ownership>>,
    pushes: mpsc::UnboundedSender<Value>,
    subscribed: Arc<Notify>,
) {
    let mut heard = listen(&socket, Patience::Endless);
    while let Some(news) = heard.recv().await {
        if matches!(news, Heard::Subscribed) {
            subscribed.notify_waiters();
        }
        let to_push = match news {
            Heard::Event(notification) if notification["method"] == "event" => lock(&ownership)
                .heard(notification["params"].clone())
                .into_iter()
                .collect(),
            Heard::Event(_) => Vec::new(),
            Heard::Subscribed => catch_up(&socket, &ownership).await,
            Heard::Gone(error) => {
                tracing::warn!(%error, "the wake subscription ended");
                return;
            }
        };
        for event in to_push {
            if pushes.send(event).is_err() {
                return;
            }
        }
    }
}

/// After (re)subscribing: adopts this Claude Code session's tasks and finds the waits that
/// ended unheard.
async fn catch_up(socket: &std::path::Path, ownership: &Arc<Mutex<Ownership>>) -> Vec<Value> {
    let Ok(mut client) = Client::connect(socket).await else {
        return Vec::new();
    };
    if lock(ownership).identity().session_id.is_some()
        && let Ok(Ok(listing)) = client
            .call(
                Method::TaskList.name(),
                json!({"status": "active", "limit": 1000}),
            )
            .await
    {
        lock(ownership).adopt_tasks(&listing);
    }
    let untold = lock(ownership).untold_waits();
    let mut to_push = Vec::new();
    for wait_id in untold {
        if let Ok(Ok(status)) = client
            .call(Method::WaitStatus.name(), json!({"wait_id": wait_id}))
            .await
            && let Some(event) = lock(ownership).ended_unheard(&status)
        {
            to_push.push(event);
        }
    }
    to_push
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alice() -> Ownership {
        Ownership::new(Identity {
            session_keys: vec!["session-alice".into()],
            session_id: Some("session-alice".into()),
            cwd: None,
        })
    }

    fn event(id: &str, wait_id: &str, task_id: Option<&str>) -> Value {
        json!({"id": id, "kind": "wait_resolved", "text": "smart_wait resolved", "wait_id": wait_id,
               "task_id": task_id, "session_key": null})
    }

    #[test]
    fn an_event_that_beats_the_answer_naming_its_wait_is_pushed_with_that_answer() {
        let mut mine = alice();
        assert_eq!(mine.heard(event("e-000001", "w-early", None)), None);
        let claimed = mine.note_result(Method::SmartWait, &json!({"wait_id": "w-early"}));
        assert_eq!(claimed.len(), 1);
        assert!(mine.untold_waits().is_empty(), "told once, and marked so");
        assert_eq!(mine.heard(event("e-000001", "w-early", None)), None);
    }

    #[test]
    fn a_wait_ended_unheard_is_told_once_and_its_late_event_is_dropped() {
        let mut mine = alice();
        mine.note_result(Method::SmartWait, &json!({"wait_id": "w-1"}));
        let watching = json!({"wait_id": "w-1", "status": "watching"});
        assert_eq!(mine.ended_unheard(&watching), None);
        let ended = json!({"wait_id": "w-1", "status": "timeout", "task_id": null,
                           "last_observation": "still compiling"});
        let told = mine.ended_unheard(&ended).unwrap();
        assert_eq!(told["kind"], "wait_timeout");
        assert!(told["text"].as_str().unwrap().contains("still compiling"));
        assert_eq!(mine.ended_unheard(&ended), None);
        assert_eq!(mine.heard(event("e-000002", "w-1", None)), None);
        // Revived, it will end again: that end is told.
        mine.note_result(Method::WaitUpdate, &json!({"wait_id": "w-1"}));
        assert!(mine.heard(event("e-000003", "w-1", None)).is_some());
    }

    #[test]
    fn a_cancelled_wait_is_not_told_and_strangers_are_not_owned() {
        let mut mine = alice();
        mine.note_result(Method::SmartWait, &json!({"wait_id": "w-1"}));
        let cancelled = json!({"wait_id": "w-1", "status": "cancelled"});
        assert_eq!(mine.ended_unheard(&cancelled), None);
        assert!(mine.untold_waits().is_empty());
        assert_eq!(
            mine.heard(event("e-000004", "w-other", Some("t-other"))),
            None
        );
        let keyed = json!({"id": "e-000005", "kind": "task_stuck", "text": "stuck",
                           "task_id": "t-x", "wait_id": null, "session_key": "session-alice"});
        assert!(mine.heard(keyed).is_some());
    }

    #[test]
    fn tasks_of_the_same_claude_code_session_are_adopted() {
        let mut mine = alice();
        mine.adopt_tasks(&json!({"tasks": [
            {"task_id": "t-mine", "origin": {"session_id": "session-alice", "cwd": "/p"}},
            {"task_id": "t-bobs", "origin": {"session_id": "session-bob", "cwd": "/p"}},
            {"task_id": "t-none"},
        ]}));
        assert!(
            mine.heard(event("e-000006", "w-9", Some("t-mine")))
                .is_some()
        );
        assert!(
            mine.heard(event("e-000007", "w-8", Some("t-bobs")))
                .is_none()
        );
        assert!(
            mine.heard(event("e-000008", "w-7", Some("t-none")))
                .is_none()
        );
    }

    #[test]
    fn the_notification_carries_the_text_and_identifier_meta_keys() {
        let ServerNotification::CustomNotification(sent) =
            notification(&event("e-000009", "w-1", Some("t-1")))
        else {
            panic!("a custom notification");
        };
        assert_eq!(sent.method, METHOD);
        assert_eq!(
            sent.params.unwrap(),
            json!({"content": "smart_wait resolved", "meta": {
                "kind": "wait_resolved", "event_id": "e-000009", "wait_id": "w-1", "task_id": "t-1"}})
        );
    }
}
