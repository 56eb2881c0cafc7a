//! A wake-event subscription that outlives daemon restarts: `events.subscribe` on a
//! connection of its own, read in a task of its own (a line read is never cut short), and
//! taken again whenever the daemon comes back. `lookout wait`, `lookout events --follow` and
//! the MCP bridge's channel read wake events through it.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::client::Client;
use crate::methods::SUBSCRIBE_METHOD;

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
            let connected = match patience {
                Patience::Bounded => connect_patiently(&socket).await,
                Patience::Endless => Ok(connect_endlessly(&socket, &heard).await),
            };
            let mut client = match connected {
                Ok(Some(client)) => client,
                Ok(None) => return,
                Err(error) => {
                    let _ = heard.send(Heard::Gone(error));
                    return;
                }
            };
            match client.call(SUBSCRIBE_METHOD, json!({})).await {
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

pub(crate) async fn connect_patiently(socket: &Path) -> Result<Option<Client>, String> {
    let attempts = RECONNECT_FOR.as_millis() / RECONNECT_PAUSE.as_millis();
    let mut last = String::new();
    for _ in 0..attempts {
        match Client::connect(socket).await {
            Ok(client) => return Ok(Some(client)),
            Err(error) => last = error.to_string(),
        }
        tokio::time::sleep(RECONNECT_PAUSE).await;
    }
    Err(last)
}

/// Connects whenever a daemon appears; `None` once nobody listens any more. Tries every
/// [`RECONNECT_PAUSE`] for [`RECONNECT_FOR`], then every [`IDLE_RECONNECT_PAUSE`].
async fn connect_endlessly(socket: &Path, heard: &mpsc::UnboundedSender<Heard>) -> Option<Client> {
    let mut quick_attempts = RECONNECT_FOR.as_millis() / RECONNECT_PAUSE.as_millis();
    while !heard.is_closed() {
        if let Ok(client) = Client::connect(socket).await {
            return Some(client);
        }
        let pause = if quick_attempts > 0 {
            quick_attempts -= 1;
            RECONNECT_PAUSE
        } else {
            IDLE_RECONNECT_PAUSE
        };
        tokio::time::sleep(pause).await;
    }
    None
}
