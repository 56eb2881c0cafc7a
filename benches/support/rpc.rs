//! One JSON-RPC call of a bench to the daemon, whose failure ends the bench saying which
//! method failed and why. Shared by the benches that drive the daemon over its socket
//! (included with `#[path]`).

use lookout::client::Client;
use serde_json::Value;

/// Calls `method` and returns its result; panics with the method and the error otherwise.
pub async fn call(client: &mut Client, method: &str, params: Value) -> Value {
    client
        .call(method, params)
        .await
        .unwrap()
        .unwrap_or_else(|error| panic!("{method}: {error:?}"))
}
