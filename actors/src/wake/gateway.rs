//! The `openclaw` sink: wakes an OpenClaw agent through its gateway's own WebSocket RPC
//! (`openclaw::client`), with no `openclaw` process per wake.
//!
//! `wake` with `{mode: "now", text, sessionKey?}` is answered by a `res` frame; an event
//! counts as delivered only when the gateway acknowledges it with `ok: true`. The client's
//! one connection is shared by every delivery; a dropped one is opened again at the next
//! delivery, and the Wake actor's retry backoff spaces the attempts. A refusal of the wake
//! itself (its params) is not retried; a refused session key is retried at once without it,
//! so the wake reaches the main session rather than nobody.

use std::fmt;
use std::sync::Arc;

use serde_json::json;

use crate::clock::BoxFuture;
use crate::openclaw::client::GatewayClient;
use crate::wake::event::{CLAUDE_CODE_SESSION, WakeEvent};
use crate::wake::sinks::{Delivery, Sink};

/// The `openclaw` sink: a name and the gateway client it wakes through.
pub struct GatewaySink {
    name: String,
    client: Arc<GatewayClient>,
}

impl fmt::Debug for GatewaySink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GatewaySink")
            .field("name", &self.name)
            .field("url", &self.client.url())
            .finish_non_exhaustive()
    }
}

impl GatewaySink {
    pub fn new(name: String, client: Arc<GatewayClient>) -> Arc<Self> {
        Arc::new(Self { name, client })
    }

    /// The client it wakes through (also what reads the gateway's exec sessions).
    pub fn client(&self) -> &Arc<GatewayClient> {
        &self.client
    }
}

impl Sink for Arc<GatewaySink> {
    fn name(&self) -> &str {
        &self.name
    }

    fn state(&self) -> Option<String> {
        Some(self.client.state())
    }

    /// A Claude Code session's wake is not for OpenClaw: waking the gateway's main session
    /// with it would wake the wrong agent.
    fn owes(&self, session_key: Option<&str>) -> bool {
        !session_key.is_some_and(|key| key.starts_with(CLAUDE_CODE_SESSION))
    }

    fn deliver(&self, event: WakeEvent) -> BoxFuture<Delivery> {
        let sink = self.clone();
        Box::pin(async move {
            let mut params = json!({"mode": "now", "text": event.text});
            if let Some(key) = &event.session_key {
                params["sessionKey"] = json!(key);
            }
            let mut outcome = sink.client.request("wake", params.clone()).await;
            if let Err(error) = &outcome
                && error.refused
                && event.session_key.is_some()
            {
                // A key the gateway does not route (another agent's, a subagent's): the main
                // session hears it rather than nobody.
                tracing::warn!(sink = %sink.name, %error, "the gateway refused the session key; waking its main session");
                if let Some(params) = params.as_object_mut() {
                    params.remove("sessionKey");
                }
                outcome = sink.client.request("wake", params).await;
            }
            match outcome {
                Ok(_) => Delivery::Delivered,
                Err(error) if error.refused => Delivery::Reject(error.message),
                Err(error) if error.unreachable => Delivery::Unreachable(error.message),
                Err(error) => Delivery::Retry(error.message),
            }
        })
    }
}
