//! A wake-event subscription that outlives daemon restarts: `events.subscribe` on a
//! connection of its own, read in a task of its own (a line read is never cut short), and
//! taken again whenever the daemon comes back, from the last event it heard. `lookout wait`, `lookout events --follow` and
//! the MCP bridge's channel read wake events through it.

use std::path::Path;
use std::time::Duration;

use actors::wake::event::event_seq;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::client::Client;
use crate::tools::spine::Method;

/// How long a bounded listener keeps trying to reach a daemon that went away, and how often.
const RECONNECT_FOR: Duration = Duration::from_secs(60);
const RECONNECT_PAUSE: Duration = Duration::from_millis(250);
/// How often an endless listener looks for a daemon once the first minute has passed.
const IDLE_RECONNECT_PAUSE: Duration = Duration::from_secs(2);

/// What the subscription task hands over.
pub enum Heard {
    Event(Value),
    /// Subscribed (again): anything that happened while disconnected must be looked up.
    Subscribed,
    /// The daemon is gone and did not come back within [`RECONNECT_FOR`].
    Gone(String),
}

/// How long a listener keeps trying to reach a daemon that went away.
#[derive(Clone, Copy, Debug)]
pub enum Patience {
    /// [`RECONNECT_FOR`], then [`Heard::Gone`]: a command the user is watching.
    Bounded,
    /// Until the receiver is dropped: a bridge that lives as long as its client.
    Endless,
}

/// Subscribes, and subscribes again after the daemon went away, forwarding every
/// notification. Each time it subscribes again it names the last event it heard (or the
/// newest there was when it first subscribed), and the events the daemon stored meanwhile
/// are forwarded first, so a restart loses none and repeats none.
pub fn listen(socket: &Path, patience: Patience) -> mpsc::UnboundedReceiver<Heard> {
    listen_since(socket, patience, None)
}

/// [`listen`], and the first subscription also hands over the events made since `since`
/// (an RFC 3339 time): what a listener started before the daemon must not miss.
pub fn listen_since(
    socket: &Path,
    patience: Patience,
    since: Option<String>,
) -> mpsc::UnboundedReceiver<Heard> {
    let (heard, receiver) = mpsc::unbounded_channel();
    let socket = socket.to_path_buf();
    tokio::spawn(async move {
        let mut last_heard: Option<String> = None;
        loop {
            let mut client = match reconnect(&socket, patience, || !heard.is_closed()).await {
                Ok(client) => client,
                Err(error) => {
                    let _ = heard.send(Heard::Gone(error));
                    return;
                }
            };
            let params = match (&last_heard, &since) {
                (Some(after), _) => json!({"after": after}),
                (None, Some(since)) => json!({"since": since}),
                (None, None) => json!({}),
            };
            let answer = match client.call(Method::EventsSubscribe.name(), params).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(error)) => {
                    let _ = heard.send(Heard::Gone(format!("{} ({})", error.message, error.hint)));
                    return;
                }
                Err(_) => continue,
            };
            if last_heard.is_none() {
                last_heard = answer["last_event_id"].as_str().map(str::to_owned);
            }
            let missed = answer["missed"].as_array().cloned().unwrap_or_default();
            for event in missed {
                let notification = json!({"jsonrpc": "2.0", "method": "event", "params": event});
                note_heard(&mut last_heard, &notification);
                if heard.send(Heard::Event(notification)).is_err() {
                    return;
                }
            }
            if heard.send(Heard::Subscribed).is_err() {
                return;
            }
            while let Ok(notification) = client.read_json().await {
                note_heard(&mut last_heard, &notification);
                if heard.send(Heard::Event(notification)).is_err() {
                    return;
                }
            }
            // The connection closed: the daemon stopped or restarted.
        }
    });
    receiver
}

/// Remembers the id of an `event` notification as the last one heard.
fn note_heard(last_heard: &mut Option<String>, notification: &Value) {
    if notification["method"] != "event" {
        return;
    }
    let Some(id) = notification["params"]["id"].as_str() else {
        return;
    };
    let newer = match last_heard.as_deref().and_then(event_seq) {
        Some(last) => event_seq(id).is_some_and(|seq| seq > last),
        None => true,
    };
    if newer {
        *last_heard = Some(id.to_owned());
    }
}

/// A wait's `wait_status` once it no longer watches: its state and what it last saw. What
/// tells of a wait that ended while nobody was subscribed.
pub fn ended_wait(status: &Value) -> Option<(&str, &str)> {
    let state = status["status"].as_str().unwrap_or("watching");
    if state == "watching" {
        return None;
    }
    let said = status["last_observation"]
        .as_str()
        .or(status["message"].as_str())
        .unwrap_or("no observation");
    Some((state, said))
}

/// Connects to the daemon, trying every [`RECONNECT_PAUSE`] for [`RECONNECT_FOR`]; then a
/// bounded caller gets the last error, an endless one goes on every [`IDLE_RECONNECT_PAUSE`]
/// for as long as `wanted()` says someone still listens.
pub(crate) async fn reconnect(
    socket: &Path,
    patience: Patience,
    wanted: impl Fn() -> bool,
) -> Result<Client, String> {
    let mut quick_attempts = RECONNECT_FOR.as_millis() / RECONNECT_PAUSE.as_millis();
    let mut last = "nobody listens any more".to_owned();
    while wanted() {
        match Client::connect(socket).await {
            Ok(client) => return Ok(client),
            Err(error) => last = error.to_string(),
        }
        let pause = match patience {
            _ if quick_attempts > 0 => {
                quick_attempts -= 1;
                RECONNECT_PAUSE
            }
            Patience::Bounded => break,
            Patience::Endless => IDLE_RECONNECT_PAUSE,
        };
        tokio::time::sleep(pause).await;
    }
    Err(last)
}
