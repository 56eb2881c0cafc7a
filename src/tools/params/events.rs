//! Params of the event stream: `events.subscribe`, with the last event a subscriber saw.

use actors::wake::event::event_seq;
use serde::Deserialize;
use storage::Timestamp;

use crate::jsonrpc::RpcError;

/// `events.subscribe`: wake events from now on, and the ones the subscriber missed: after
/// the last event it heard (it was disconnected while the daemon restarted), or since a time
/// (it started before the daemon did).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventsSubscribeParams {
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    since: Option<String>,
}

/// Which stored events a subscription hands back first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missed {
    /// None: only what happens from now on.
    Nothing,
    /// The events after this seq.
    After(u64),
    /// The events made at or after this time.
    Since(Timestamp),
}

impl EventsSubscribeParams {
    pub fn validate(self) -> Result<Missed, RpcError> {
        match (self.after, self.since) {
            (None, None) => Ok(Missed::Nothing),
            (Some(_), Some(_)) => Err(RpcError::invalid_params(
                "give after or since, not both",
                "after: the id of the last event you heard (\"e-000123\"); since: a time \
                 (\"2026-11-27T03:00:00Z\") when you have heard none yet",
            )),
            (Some(after), None) => event_seq(&after).map(Missed::After).ok_or_else(|| {
                RpcError::invalid_params(
                    format!("after: '{after}' is not an event id"),
                    "give the id of the last event you saw, as events carry it (\"e-000123\"), \
                     or leave after out to hear only new events",
                )
            }),
            (None, Some(since)) => Timestamp::parse_rfc3339(&since)
                .map(Missed::Since)
                .ok_or_else(|| {
                    RpcError::invalid_params(
                        format!("since: '{since}' is not a time"),
                        "give an RFC 3339 time in UTC, as events carry it \
                         (\"2026-11-27T03:00:00Z\")",
                    )
                }),
        }
    }
}
