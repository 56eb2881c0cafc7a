//! A wake-event subscription that outlives daemon restarts: `events.subscribe` on a
//! connection of its own, read in a task of its own (a line read is never cut short), and
//! taken again whenever the daemon comes back. `lookout wait`, `lookout events --follow` and
//! the MCP bridge's channel read wake events through it.

use std::path::Path;
use std::time::Duration;

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
/// notification.
pub fn listen(socket: &Path, patience: Patience) -> mpsc::UnboundedReceiver<Heard> {
    let (heard, receiver) = mpsc::unbounded_channel();
    let socket = socket.to_path_buf();
    tokio::spawn(async move {
        loop {
            let mut client = match reconnect(&socket, patience, || !heard.is_closed()).await {
                Ok(client) => client,
                Err(error) => {
                    let _ = heard.send(Heard::Gone(error));
                    return;
                }
            };
            match client.call(Method::EventsSubscribe.name(), json!({})).await {
                Ok(Ok(_)) => {}
                Ok(Err(error)) => {
                    let _ = heard.send(Heard::Gone(format!("{} ({})", error.message, error.hint)));
                    return;
                }
                Err(_) => continue,
            }
            if heard.send(Heard::Subscribed).is_err() {
                return;
            }
            while let Ok(notification) = client.read_json().await {
                if heard.send(Heard::Event(notification)).is_err() {
                    return;
                }
            }
            // The connection closed: the daemon stopped or restarted.
        }
    });
    receiver
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
