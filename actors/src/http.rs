//! The HTTP client shared by the webhook sinks and the vision backends.
//!
//! rustls with the ring provider: installed once, process-wide, before the first client.

use std::time::Duration;

use crate::error::CallError;

/// A client whose every request gives up after `timeout`.
pub fn client(timeout: Duration) -> Result<reqwest::Client, CallError> {
    // Fails only when a provider is already installed, which is what we want anyway.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(timeout)
        .user_agent(concat!("lookout/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|error| {
            CallError::internal(
                format!("cannot build the HTTP client: {error}"),
                "see the daemon log",
            )
        })
}
