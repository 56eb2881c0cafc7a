//! The Unix-socket JSON-RPC server.
//!
//! Binds the socket (0600, in a 0700 folder), refuses peers of another uid, reads one
//! request line at a time per connection (so a client's requests are answered in order;
//! concurrency comes from many connections), and on shutdown stops accepting, lets every
//! connection finish the request in hand, then removes the socket.

mod bind;
mod framing;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinSet;

pub use bind::{SocketFolder, bind};
pub use framing::{Frame, LineReader};

use crate::jsonrpc::{self, Incoming, Request, RpcError, codes};
use crate::methods::{Methods, SUBSCRIBE_METHOD};

/// How long shutdown waits for connections to finish the request in hand.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// Responses queued per connection before the reader waits for the writer.
const OUTBOX_DEPTH: usize = 64;

pub struct ServerOptions {
    pub socket_path: PathBuf,
    pub max_request_bytes: usize,
    pub owner_uid: u32,
    /// False when systemd owns the socket (socket activation): it must outlive us.
    pub remove_socket_on_exit: bool,
}

/// Accepts connections until `shutdown` turns true, then drains them and removes the socket
/// (unless systemd owns it).
pub async fn serve(
    listener: UnixListener,
    methods: Arc<Methods>,
    options: ServerOptions,
    mut shutdown: watch::Receiver<bool>,
) {
    let options = Arc::new(options);
    let mut connections = JoinSet::new();
    let for_connections = shutdown.clone();
    loop {
        tokio::select! {
            () = stopped(&mut shutdown) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(connection(stream, methods.clone(), options.clone(), for_connections.clone()));
                }
                Err(error) => {
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    if options.remove_socket_on_exit {
        let _ = std::fs::remove_file(&options.socket_path);
    }
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            left = connections.len(),
            "connections did not finish in time; closing them"
        );
        connections.shutdown().await;
    }
}

async fn connection(
    stream: UnixStream,
    methods: Arc<Methods>,
    options: Arc<ServerOptions>,
    mut shutdown: watch::Receiver<bool>,
) {
    let peer_uid = stream.peer_cred().map(|cred| cred.uid()).ok();
    if peer_uid != Some(options.owner_uid) {
        refuse_foreign_peer(stream, peer_uid, options.owner_uid).await;
        return;
    }
    let (read_half, write_half) = stream.into_split();
    let (outbox, outbox_receiver) = mpsc::channel::<String>(OUTBOX_DEPTH);
    let writer = tokio::spawn(write_lines(write_half, outbox_receiver));
    let mut lines = LineReader::new(read_half, options.max_request_bytes);
    let mut session = Session::new(outbox.clone());
    loop {
        let frame = tokio::select! {
            biased;
            () = stopped(&mut shutdown) => break,
            frame = lines.next_frame() => frame,
        };
        let reply = match frame {
            Ok(Frame::Line(line)) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Ok(Frame::Line(line)) => handle_line(&methods, &mut session, &line).await,
            Ok(Frame::TooLong { bytes }) => Some(too_long(bytes, options.max_request_bytes)),
            Ok(Frame::Eof) | Err(_) => break,
        };
        if let Some(reply) = reply
            && outbox.send(reply).await.is_err()
        {
            break;
        }
    }
    drop(session);
    drop(outbox);
    let _ = writer.await;
}

/// What a connection carries between its requests: its outbox and its event subscription.
pub struct Session {
    outbox: mpsc::Sender<String>,
    subscription: Option<tokio::task::JoinHandle<()>>,
}

impl Session {
    pub fn new(outbox: mpsc::Sender<String>) -> Self {
        Self {
            outbox,
            subscription: None,
        }
    }

    /// `events.subscribe`: from now on every new wake event is pushed to this connection as
    /// an `event` notification. Subscribing twice changes nothing.
    fn subscribe(&mut self, methods: &Methods) -> Value {
        if self.subscription.is_none() {
            let mut events = methods.tree().subscribe();
            let outbox = self.outbox.clone();
            self.subscription = Some(tokio::spawn(async move {
                loop {
                    let notification = match events.recv().await {
                        Ok(event) => jsonrpc::notification("event", event.to_json()),
                        Err(broadcast::error::RecvError::Lagged(missed)) => jsonrpc::notification(
                            "events.lagged",
                            json!({
                                "missed": missed,
                                "message": format!("This connection fell behind and missed {missed} events; read them with lookout status or the task threads."),
                            }),
                        ),
                        Err(broadcast::error::RecvError::Closed) => return,
                    };
                    if outbox.send(to_line(&notification)).await.is_err() {
                        return;
                    }
                }
            }));
        }
        json!({
            "subscribed": true,
            "message": "Subscribed. Wake events arrive on this connection as JSON-RPC notifications \
                        {\"method\":\"event\",\"params\":{id, kind, text, task_id, wait_id, session_key, created_at}} \
                        until it closes.",
        })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(subscription) = self.subscription.take() {
            subscription.abort();
        }
    }
}

async fn write_lines(
    mut writer: tokio::net::unix::OwnedWriteHalf,
    mut lines: mpsc::Receiver<String>,
) {
    while let Some(line) = lines.recv().await {
        if writer.write_all(line.as_bytes()).await.is_err() {
            return;
        }
    }
    let _ = writer.shutdown().await;
}

async fn refuse_foreign_peer(mut stream: UnixStream, peer_uid: Option<u32>, owner_uid: u32) {
    let who = peer_uid.map_or("an unknown user".to_owned(), |uid| format!("uid {uid}"));
    tracing::warn!(peer = %who, "refused a connection from another user");
    let error = RpcError::new(
        codes::INVALID_REQUEST,
        format!("connection refused: this daemon serves uid {owner_uid}, not {who}"),
        "run your own lookout daemon as your user (`lookout serve`)",
    );
    let mut line = jsonrpc::error_response(&Value::Null, &error).to_string();
    line.push('\n');
    let _ = stream.write_all(line.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn too_long(bytes: usize, limit: usize) -> String {
    let error = RpcError::new(
        codes::TOO_LARGE,
        format!("request line of {bytes} bytes is over the limit of {limit} bytes"),
        "send smaller requests (put large content in a file and pass its path), or raise \
         max_request_bytes in the config",
    );
    to_line(&jsonrpc::error_response(&Value::Null, &error))
}

/// Handles one line: a request, a notification or a batch. `None` when nothing is owed.
pub async fn handle_line(methods: &Methods, session: &mut Session, line: &[u8]) -> Option<String> {
    match jsonrpc::parse_line(line) {
        Err(error_response) => Some(to_line(&error_response)),
        Ok(Incoming::Single(entry)) => handle_entry(methods, session, entry)
            .await
            .map(|r| to_line(&r)),
        Ok(Incoming::Batch(entries)) => {
            let mut responses = Vec::new();
            for entry in entries {
                responses.extend(handle_entry(methods, session, entry).await);
            }
            (!responses.is_empty()).then(|| to_line(&Value::Array(responses)))
        }
    }
}

async fn handle_entry(
    methods: &Methods,
    session: &mut Session,
    entry: Result<Request, Value>,
) -> Option<Value> {
    let request = match entry {
        Ok(request) => request,
        Err(error_response) => return Some(error_response),
    };
    // The one method that belongs to the connection rather than to the tree.
    let outcome = if request.method == SUBSCRIBE_METHOD {
        crate::methods::no_params(SUBSCRIBE_METHOD, &request.params)
            .map(|()| session.subscribe(methods))
    } else {
        methods.call(&request.method, request.params).await
    };
    let id = request.id?;
    Some(match outcome {
        Ok(result) => jsonrpc::success_response(&id, result),
        Err(error) => jsonrpc::error_response(&id, &error),
    })
}

/// Resolves once shutdown is requested (or the daemon that could request it is gone).
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

fn to_line(value: &Value) -> String {
    let mut line = value.to_string();
    line.push('\n');
    line
}
