//! A JSON-RPC client for the daemon's socket, used by the CLI and the tests.

pub mod subscription;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use crate::jsonrpc::RpcError;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(
        "no lookout daemon is listening on {} ({reason}); start one with `lookout serve`, or \
         `systemctl --user start lookout` if it is installed as a service",
        path.display()
    )]
    NoDaemon { path: PathBuf, reason: String },
    #[error(
        "refusing to talk to {}: the process listening there runs as uid {listener_uid}, not as \
         this user (uid {own_uid}), so another user may be standing in for lookout; nothing was \
         sent. Remove the socket's folder if it is not yours, or set socket_path (or \
         XDG_RUNTIME_DIR) to a folder only you can write",
        path.display()
    )]
    Impostor {
        path: PathBuf,
        listener_uid: u32,
        own_uid: u32,
    },
    #[error("the connection to the daemon failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("the daemon closed the connection")]
    Closed,
    #[error("the daemon sent something that is not a JSON-RPC response: {0}")]
    Protocol(String),
}

pub struct Client {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
    next_id: u64,
    /// Notifications that arrived while a call waited for its answer (an event pushed
    /// between `events.subscribe` and its answer), handed out by `read_json` first.
    held: VecDeque<Value>,
}

/// The error object of a response, if it is one.
fn error_of(response: &Value) -> Option<RpcError> {
    let error = response.get("error")?;
    Some(RpcError::new(
        error["code"].as_i64()?,
        error["message"].as_str().unwrap_or_default(),
        error["data"]["hint"].as_str().unwrap_or_default(),
    ))
}

impl Client {
    pub async fn connect(path: &Path) -> Result<Client, ClientError> {
        let stream = UnixStream::connect(path)
            .await
            .map_err(|error| ClientError::NoDaemon {
                path: path.to_owned(),
                reason: match error.kind() {
                    std::io::ErrorKind::NotFound => "no socket there".to_owned(),
                    std::io::ErrorKind::ConnectionRefused => "connection refused".to_owned(),
                    _ => error.to_string(),
                },
            })?;
        // Before anything is sent: the daemon must be this user's own.
        let own_uid = crate::config::paths::current_uid();
        let listener_uid = stream.peer_cred()?.uid();
        if listener_uid != own_uid {
            return Err(ClientError::Impostor {
                path: path.to_owned(),
                listener_uid,
                own_uid,
            });
        }
        let (read_half, write_half) = stream.into_split();
        Ok(Client {
            reader: BufReader::new(read_half),
            writer: write_half,
            next_id: 1,
            held: VecDeque::new(),
        })
    }

    /// Calls `method` and waits for its response; notifications that arrive first are kept
    /// for `read_json`, other answers skipped.
    pub async fn call(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<Result<Value, RpcError>, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Err(error) = self.send_line(request.to_string().as_bytes()).await {
            // The daemon may have answered and closed before reading (it refuses peers of
            // another user that way): what it said explains the failure better.
            return match self.read_line_json().await.ok().as_ref().and_then(error_of) {
                Some(refusal) => Ok(Err(refusal)),
                None => Err(error),
            };
        }
        loop {
            let mut response = self.read_line_json().await?;
            // Keep notifications, skip other answers; an error with a null id (the daemon
            // could not read the request, or refused the connection) is ours too.
            let ours = response.get("id") == Some(&json!(id))
                || (response.get("id") == Some(&Value::Null) && response.get("error").is_some());
            if !ours {
                if response.get("method").is_some() && response.get("id").is_none() {
                    self.held.push_back(response);
                }
                continue;
            }
            if let Some(result) = response.get_mut("result") {
                return Ok(Ok(result.take()));
            }
            return match error_of(&response) {
                Some(error) => Ok(Err(error)),
                None => Err(ClientError::Protocol(response.to_string())),
            };
        }
    }

    /// Sends raw bytes followed by a newline, in one write: the daemon wakes once for the
    /// line, not once for its text and again for its end.
    pub async fn send_line(&mut self, line: &[u8]) -> Result<(), ClientError> {
        let mut framed = Vec::with_capacity(line.len() + 1);
        framed.extend_from_slice(line);
        framed.push(b'\n');
        self.writer.write_all(&framed).await?;
        Ok(())
    }

    /// The next message: a notification held back by `call`, else one line read and parsed
    /// as JSON.
    pub async fn read_json(&mut self) -> Result<Value, ClientError> {
        match self.held.pop_front() {
            Some(held) => Ok(held),
            None => self.read_line_json().await,
        }
    }

    async fn read_line_json(&mut self) -> Result<Value, ClientError> {
        let mut line = String::new();
        if self.reader.read_line(&mut line).await? == 0 {
            return Err(ClientError::Closed);
        }
        serde_json::from_str(&line).map_err(|_| ClientError::Protocol(line.trim_end().to_owned()))
    }
}
