//! The user's OpenClaw gateway, as lookout talks to it: one WebSocket RPC client
//! ([`client`]), shared by the `openclaw` wake sink (`wake::gateway`) and by the watch of the
//! agent's own exec sessions, which are read from the gateway's task ledger ([`exec`]).

pub mod client;
pub mod exec;
