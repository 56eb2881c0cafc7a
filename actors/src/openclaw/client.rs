//! The OpenClaw gateway's WebSocket RPC, as a client: one connection, opened on first use and
//! again after it drops, shared by every request.
//!
//! The gateway speaks frames of JSON text: it opens with a `connect.challenge` event, the
//! client's first request is `connect` (protocol 4, the shared gateway token, the
//! `operator.read` and `operator.write` scopes: reading the task ledger, waking a session),
//! and each later request (`{type: "req", id, method, params}`) is answered by a `res` frame
//! with the same id. The wake sink (`wake::gateway`) and the watch of the agent's own exec
//! sessions (`openclaw::exec`) both talk through a [`GatewayClient`].

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

use crate::locks::lock;
use crate::wake::sinks::Secret;

/// The gateway protocol lookout speaks.
const PROTOCOL: u64 = 4;

/// Where the gateway is and how to sign in.
#[derive(Clone, Debug)]
pub struct GatewaySpec {
    /// `ws://127.0.0.1:18789`
    pub url: String,
    pub token: Option<Secret>,
    /// For connecting, and for each acknowledgement.
    pub timeout: Duration,
}

/// Why the gateway could not be reached or refused a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatewayError {
    pub message: String,
    /// Retrying cannot help (the gateway refused the request itself).
    pub refused: bool,
    /// The gateway's error code when it answered a request with an error (`INVALID_REQUEST`,
    /// `FORBIDDEN`); `None` when it could not be reached, did not answer, or refused the
    /// connection itself.
    pub code: Option<String>,
    /// No connection could be opened (the gateway is down or not answering its handshake):
    /// the gateway is not there, and nothing about the request is wrong.
    pub unreachable: bool,
}

impl fmt::Display for GatewayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

type Reply = Result<Value, GatewayError>;

/// An open connection: requests go out through `outgoing`; the reader task answers each
/// from `pending` by request id, and fails them all when the connection drops.
struct Link {
    outgoing: mpsc::UnboundedSender<String>,
    pending: Arc<Mutex<HashMap<String, oneshot::Sender<Reply>>>>,
    /// "OpenClaw 2026.9.6", from the hello.
    server: String,
}

impl Link {
    fn is_open(&self) -> bool {
        !self.outgoing.is_closed()
    }
}

pub struct GatewayClient {
    spec: GatewaySpec,
    link: tokio::sync::Mutex<Option<Arc<Link>>>,
    next_request: AtomicU64,
    /// The last thing learned about the connection, for `daemon.status`.
    state: Mutex<String>,
}

impl fmt::Debug for GatewayClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GatewayClient")
            .field("url", &self.spec.url)
            .finish_non_exhaustive()
    }
}

impl GatewayClient {
    pub fn new(spec: GatewaySpec) -> Arc<Self> {
        let state = format!("not connected yet ({})", spec.url);
        Arc::new(Self {
            spec,
            link: tokio::sync::Mutex::new(None),
            next_request: AtomicU64::new(1),
            state: Mutex::new(state),
        })
    }

    /// Connects now (or reuses the open connection) and says to whom: what the start-up log
    /// prints, so a one-time step the gateway needs is named before the first wake.
    pub async fn probe(&self) -> Result<String, GatewayError> {
        let link = self.link().await?;
        Ok(format!("connected to {} at {}", link.server, self.spec.url))
    }

    /// The open connection, or a new one.
    async fn link(&self) -> Result<Arc<Link>, GatewayError> {
        let mut slot = self.link.lock().await;
        if let Some(link) = slot.as_ref().filter(|link| link.is_open()) {
            return Ok(link.clone());
        }
        *slot = None;
        let opened = tokio::time::timeout(self.spec.timeout, self.open()).await;
        let outcome = match opened {
            Ok(outcome) => outcome,
            Err(_) => Err(GatewayError {
                message: format!(
                    "the OpenClaw gateway at {} did not complete its handshake within {}s",
                    self.spec.url,
                    self.spec.timeout.as_secs()
                ),
                refused: false,
                code: None,
                unreachable: true,
            }),
        };
        match outcome {
            Ok(link) => {
                self.set_state(format!("connected to {} at {}", link.server, self.spec.url));
                *slot = Some(link.clone());
                Ok(link)
            }
            Err(error) => {
                self.set_state(error.message.clone());
                Err(error)
            }
        }
    }

    async fn open(&self) -> Result<Arc<Link>, GatewayError> {
        let unreachable = |error: &dyn fmt::Display| GatewayError {
            message: format!(
                "cannot reach the OpenClaw gateway at {}: {error}; is it running (openclaw gateway \
                 status)?",
                self.spec.url
            ),
            refused: false,
            code: None,
            unreachable: true,
        };
        let (mut socket, _) = tokio_tungstenite::connect_async(self.spec.url.as_str())
            .await
            .map_err(|error| unreachable(&error))?;
        // The gateway speaks first: a challenge (its nonce signs device identities, which a
        // token on loopback does not need).
        loop {
            let frame = next_json(&mut socket)
                .await
                .map_err(|error| unreachable(&error))?;
            if frame["type"] == "event" && frame["event"] == "connect.challenge" {
                break;
            }
        }
        let mut params = json!({
            "minProtocol": PROTOCOL,
            "maxProtocol": PROTOCOL,
            "client": {
                "id": "gateway-client",
                "displayName": "lookout",
                "version": env!("CARGO_PKG_VERSION"),
                "platform": std::env::consts::OS,
                "mode": "backend",
            },
            "role": "operator",
            "scopes": ["operator.read", "operator.write"],
            "caps": [],
        });
        if let Some(token) = &self.spec.token {
            params["auth"] = json!({"token": token.expose()});
        }
        let connect =
            json!({"type": "req", "id": "connect", "method": "connect", "params": params});
        socket
            .send(Message::text(connect.to_string()))
            .await
            .map_err(|error| unreachable(&error))?;
        let hello = loop {
            let frame = next_json(&mut socket)
                .await
                .map_err(|error| unreachable(&error))?;
            if frame["type"] == "res" && frame["id"] == "connect" {
                break frame;
            }
        };
        if hello["ok"] != true {
            return Err(self.refused_connect(&hello["error"]));
        }
        let server = match hello["payload"]["server"]["version"].as_str() {
            Some(version) => format!("OpenClaw {version}"),
            None => "an OpenClaw gateway".to_owned(),
        };
        let (outgoing, requests) = mpsc::unbounded_channel();
        let pending = Arc::new(Mutex::new(HashMap::new()));
        tokio::spawn(carry(socket, requests, pending.clone()));
        Ok(Arc::new(Link {
            outgoing,
            pending,
            server,
        }))
    }

    /// What a refused `connect` means, and the command that fixes it.
    fn refused_connect(&self, error: &Value) -> GatewayError {
        let code = error["details"]["code"]
            .as_str()
            .or_else(|| error["code"].as_str())
            .unwrap_or("");
        let said = error["message"].as_str().unwrap_or("no reason given");
        let fix = match code {
            "AUTH_TOKEN_MISMATCH" | "AUTH_TOKEN_MISSING" | "AUTH_REQUIRED" | "UNAUTHORIZED" => {
                "lookout signs in with the gateway token from the OpenClaw config \
                 (gateway.auth.token) or $OPENCLAW_GATEWAY_TOKEN; check `openclaw config get \
                 gateway.auth.token` and restart lookout"
            }
            "PAIRING_REQUIRED" | "NOT_PAIRED" | "DEVICE_IDENTITY_REQUIRED" => {
                "this gateway accepts token-only clients on loopback only; for a remote gateway \
                 use the CLI sink ([[wake.sinks]] kind = \"openclaw-cli\") or enable hooks and \
                 use a webhook sink to /hooks/wake"
            }
            _ => "see the gateway's log (openclaw logs)",
        };
        GatewayError {
            message: format!(
                "the OpenClaw gateway at {} refused lookout's connection ({code}: {said}); {fix}",
                self.spec.url
            ),
            refused: false,
            code: None,
            unreachable: false,
        }
    }

    /// Sends one request and waits for its answer: the response's payload, or why there is
    /// none.
    pub async fn request(&self, method: &str, params: Value) -> Reply {
        let link = self.link().await?;
        let id = format!(
            "lookout-{}",
            self.next_request.fetch_add(1, Ordering::Relaxed)
        );
        let (reply, answer) = oneshot::channel();
        lock(&link.pending).insert(id.clone(), reply);
        let frame = json!({"type": "req", "id": id, "method": method, "params": params});
        let lost = || GatewayError {
            message: format!(
                "the connection to the OpenClaw gateway at {} dropped before it answered",
                self.spec.url
            ),
            refused: false,
            code: None,
            unreachable: false,
        };
        if link.outgoing.send(frame.to_string()).is_err() {
            return Err(lost());
        }
        match tokio::time::timeout(self.spec.timeout, answer).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(lost()),
            Err(_) => {
                lock(&link.pending).remove(&id);
                Err(GatewayError {
                    message: format!(
                        "the OpenClaw gateway at {} did not answer {method} within {}s",
                        self.spec.url,
                        self.spec.timeout.as_secs()
                    ),
                    refused: false,
                    code: None,
                    unreachable: false,
                })
            }
        }
    }

    /// The last thing learned about the connection ("connected to OpenClaw 2026.9.6 at …",
    /// or why it could not be opened), for `daemon.status`.
    pub fn state(&self) -> String {
        lock(&self.state).clone()
    }

    /// Where the gateway is: `ws://127.0.0.1:18789`.
    pub fn url(&self) -> &str {
        &self.spec.url
    }

    fn set_state(&self, state: String) {
        *lock(&self.state) = state;
    }
}

/// Carries one connection: writes the requests, answers each `res` frame's waiting request,
/// and when the connection ends (or every sender is gone) fails what is still waiting.
async fn carry<S>(
    socket: S,
    mut requests: mpsc::UnboundedReceiver<String>,
    pending: Arc<Mutex<HashMap<String, oneshot::Sender<Reply>>>>,
) where
    S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>>
        + futures::Sink<Message>
        + Unpin,
{
    let (mut write, mut read) = socket.split();
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                if write.send(Message::text(request)).await.is_err() {
                    break;
                }
            }
            frame = read.next() => {
                let text = match frame {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => continue,
                };
                let Ok(frame) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                if frame["type"] != "res" {
                    continue; // events: health, presence, ticks
                }
                let Some(id) = frame["id"].as_str() else { continue };
                let waiting = lock(&pending)
                    .remove(id);
                if let Some(waiting) = waiting {
                    let _ = waiting.send(answer_of(&frame));
                }
            }
        }
    }
    // Closing the receiver marks the link closed; dropping the senders fails the waiters.
    requests.close();
    lock(&pending).clear();
}

/// A `res` frame as a reply: its payload, or why the request was refused.
fn answer_of(frame: &Value) -> Reply {
    if frame["ok"] == true {
        return Ok(frame["payload"].clone());
    }
    let error = &frame["error"];
    let code = error["code"].as_str().unwrap_or("ERROR");
    let message = error["message"].as_str().unwrap_or("no reason given");
    Err(GatewayError {
        message: format!("the OpenClaw gateway refused the request ({code}: {message})"),
        // The request itself is wrong: sending it again cannot help. Anything else (the
        // gateway busy, shutting down, unavailable) may pass later.
        refused: code == "INVALID_REQUEST",
        code: Some(code.to_owned()),
        unreachable: false,
    })
}

/// The next text frame, as JSON.
async fn next_json<S>(socket: &mut S) -> Result<Value, String>
where
    S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(text))) => {
                return serde_json::from_str(text.as_str())
                    .map_err(|error| format!("a frame that is not JSON ({error})"));
            }
            Some(Ok(Message::Close(_))) | None => {
                return Err("the gateway closed the connection".to_owned());
            }
            Some(Ok(_)) => continue,
            Some(Err(error)) => return Err(error.to_string()),
        }
    }
}
