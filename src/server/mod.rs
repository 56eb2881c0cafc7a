//! The Unix-socket JSON-RPC server.
//!
//! Binds the socket (0600, in a 0700 folder), refuses peers of another uid, reads one
//! request line at a time per connection (so a client's requests are answered in order;
//! concurrency comes from many connections), and on shutdown stops accepting, lets every
//! connection finish the request in hand, then removes the socket.
//!
//! Nothing a client does can take more than its share: connections are capped (one over the
//! cap is told so and closed), a connection with no request and no subscription is closed
//! after the idle timeout, a request line must arrive whole and a reply must be taken within
//! the line timeout, and the bytes held for requests and replies come out of the memory
//! budget of `budget.rs`, so a client that sends faster than it reads is simply no longer read.

mod bind;
mod budget;
mod framing;
mod replies;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actors::wake::event::{WakeEvent, event_id};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::{JoinHandle, JoinSet};

pub use bind::{SocketFolder, bind};
pub use budget::{
    MAX_BATCH_REPLY_BYTES, MAX_REPLY_BYTES, POOL_BYTES, SMALL_REPLY_BYTES, STALL_UNDER_PRESSURE,
};
pub use framing::{Frame, LineReader};

use crate::jsonrpc::{self, RpcError, codes};
use crate::tools::limits::MAX_MISSED_EVENTS;
use crate::tools::methods::Methods;
use crate::tools::params::Missed;
use budget::{Budget, FREE_LINE_BYTES, Held};
use replies::{Reply, to_line};

/// How long shutdown waits for connections to finish the request in hand.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// Lines queued per connection before the reader waits for the writer (bytes are bounded
/// by the budget; this bounds the count of small ones, such as event notifications).
const OUTBOX_DEPTH: usize = 64;
/// After an accept error is logged, further ones are only counted for this long.
const ACCEPT_LOG_QUIET: Duration = Duration::from_secs(10);

pub struct ServerOptions {
    pub socket_path: PathBuf,
    pub max_request_bytes: usize,
    pub owner_uid: u32,
    /// False when systemd owns the socket (socket activation): it must outlive us.
    pub remove_socket_on_exit: bool,
    /// Connections served at once; one more is told so and closed.
    pub max_connections: usize,
    /// A connection with no request and no subscription for this long is closed.
    pub idle_timeout: Duration,
    /// A request line must arrive whole, and a reply be taken, within this.
    pub line_timeout: Duration,
}

/// What every connection shares: the dispatch, the options and the memory budget.
struct Shared {
    methods: Arc<Methods>,
    options: ServerOptions,
    pool: Budget,
}

/// Accepts connections until `shutdown` turns true, then drains them and removes the socket
/// (unless systemd owns it).
pub async fn serve(
    listener: UnixListener,
    methods: Arc<Methods>,
    options: ServerOptions,
    mut shutdown: watch::Receiver<bool>,
) {
    let shared = Arc::new(Shared {
        methods,
        options,
        pool: Budget::new(POOL_BYTES),
    });
    let mut connections = JoinSet::new();
    let mut accept_errors = AcceptErrors::new(ACCEPT_LOG_QUIET);
    let for_connections = shutdown.clone();
    loop {
        tokio::select! {
            () = stopped(&mut shutdown) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) if connections.len() >= shared.options.max_connections => {
                    refuse_over_cap(&stream, shared.options.max_connections);
                }
                Ok((stream, _)) => {
                    connections.spawn(connection(stream, shared.clone(), for_connections.clone()));
                }
                Err(error) => {
                    let _logged = accept_errors.record(&error);
                    // Out of descriptors: give the connections a moment to close some.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    if shared.options.remove_socket_on_exit {
        let _ = std::fs::remove_file(&shared.options.socket_path);
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

/// Logs the first accept error, then only counts the next ones for a quiet period.
struct AcceptErrors {
    quiet_for: Duration,
    quiet: Option<JoinHandle<()>>,
    suppressed: u64,
}

impl AcceptErrors {
    fn new(quiet_for: Duration) -> Self {
        Self {
            quiet_for,
            quiet: None,
            suppressed: 0,
        }
    }

    /// Logs `error` unless one was logged within the quiet period; true when it logged.
    fn record(&mut self, error: &std::io::Error) -> bool {
        if self
            .quiet
            .as_ref()
            .is_some_and(|quiet| !quiet.is_finished())
        {
            self.suppressed += 1;
            return false;
        }
        tracing::warn!(
            %error,
            since_last_logged = self.suppressed,
            "accepting a connection failed (out of file descriptors? see max_connections in \
             [connections] and the open-file limit); similar errors are counted, not logged, \
             for {}s",
            self.quiet_for.as_secs()
        );
        self.suppressed = 0;
        self.quiet = Some(tokio::spawn(tokio::time::sleep(self.quiet_for)));
        true
    }
}

/// Tells a client over the connection cap why it is closed (without waiting for it).
fn refuse_over_cap(stream: &UnixStream, cap: usize) {
    tracing::debug!(cap, "refused a connection over the cap");
    let error = RpcError::new(
        codes::UNAVAILABLE,
        format!("too many connections: this daemon serves at most {cap} at once"),
        "close connections you no longer use and retry, or raise max_connections in the \
         [connections] section of the config",
    );
    let _ = stream.try_write(to_line(&jsonrpc::error_response(&Value::Null, &error)).as_bytes());
}

/// A line for the writer, with the pool bytes it holds until written and, for a reply,
/// the connection's turn (the next request is read once it is given back).
struct Outgoing {
    line: String,
    pool: Held,
    _turn: Held,
}

impl Outgoing {
    fn unbudgeted(line: String) -> Self {
        Self {
            line,
            pool: Held::nothing(),
            _turn: Held::nothing(),
        }
    }
}

/// Why a connection stopped reading.
enum Stall {
    Idle,
    PartialLine,
}

async fn read_frame<R: tokio::io::AsyncRead + Unpin>(
    lines: &mut LineReader<R>,
    idle_timeout: Option<Duration>,
    line_timeout: Duration,
) -> Result<std::io::Result<Frame>, Stall> {
    if !lines.has_partial() {
        let first_bytes = match idle_timeout {
            Some(idle) => tokio::time::timeout(idle, lines.fill())
                .await
                .map_err(|_| Stall::Idle)?,
            None => lines.fill().await,
        };
        if let Err(error) = first_bytes {
            return Ok(Err(error));
        }
    }
    tokio::time::timeout(line_timeout, lines.next_frame())
        .await
        .map_err(|_| Stall::PartialLine)
}

async fn connection(stream: UnixStream, shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    let options = &shared.options;
    let peer_uid = stream.peer_cred().map(|cred| cred.uid()).ok();
    if peer_uid != Some(options.owner_uid) {
        refuse_foreign_peer(stream, peer_uid, options.owner_uid).await;
        return;
    }
    let (read_half, write_half) = stream.into_split();
    let (outbox, outbox_receiver) = mpsc::channel::<Outgoing>(OUTBOX_DEPTH);
    let writer = tokio::spawn(write_lines(
        write_half,
        outbox_receiver,
        options.line_timeout,
        shared.pool.clone(),
    ));
    let mut lines =
        LineReader::with_pool(read_half, options.max_request_bytes, shared.pool.clone());
    // One reply queued at a time: the next request is read once the last reply went to the
    // socket, so a client that does not read is no longer read.
    let turns = Budget::new(1);
    let mut session = Session::new(outbox.clone());
    loop {
        let turn = turns.take(1).await;
        let idle_timeout = (!session.subscribed()).then_some(options.idle_timeout);
        let frame = tokio::select! {
            biased;
            () = stopped(&mut shutdown) => break,
            frame = read_frame(&mut lines, idle_timeout, options.line_timeout) => frame,
        };
        let reply = match frame {
            Ok(Ok(Frame::Line(line))) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Ok(Ok(Frame::Line(line))) => {
                // A line beyond the connection's free share is the pool's while it is answered.
                let _in_hand = shared
                    .pool
                    .take(line.len().saturating_sub(FREE_LINE_BYTES))
                    .await;
                replies::handle_line(&shared.methods, &mut session, &line, &shared.pool).await
            }
            Ok(Ok(Frame::TooLong { bytes })) => {
                Some(Reply::small(too_long(bytes, options.max_request_bytes)))
            }
            Ok(Ok(Frame::Eof) | Err(_)) | Err(Stall::Idle) => break,
            Err(Stall::PartialLine) => {
                let _ = outbox
                    .send(Outgoing::unbudgeted(partial_line(options.line_timeout)))
                    .await;
                break;
            }
        };
        if let Some(reply) = reply {
            let outgoing = Outgoing {
                line: reply.line,
                pool: reply.held,
                _turn: turn,
            };
            if outbox.send(outgoing).await.is_err() {
                break;
            }
        }
    }
    drop(session);
    drop(outbox);
    let _ = writer.await;
}

/// What a connection carries between its requests: its outbox and its event subscription.
pub struct Session {
    outbox: mpsc::Sender<Outgoing>,
    subscription: Option<tokio::task::JoinHandle<()>>,
}

impl Session {
    fn new(outbox: mpsc::Sender<Outgoing>) -> Self {
        Self {
            outbox,
            subscription: None,
        }
    }

    fn subscribed(&self) -> bool {
        self.subscription.is_some()
    }

    /// `events.subscribe`: from now on every new wake event is pushed to this connection as
    /// an `event` notification. With `after` (the seq of the last event the caller saw) or
    /// `since` (a time), the stored events it missed come back in the answer's `missed`,
    /// oldest first, and the stream starts after the last of them, so nothing is heard twice
    /// or lost in between.
    /// Subscribing twice keeps the first stream (its `missed` may repeat what it pushed).
    /// `last_event_id` is the newest event stored when the stream started.
    async fn subscribe(
        &mut self,
        methods: &Methods,
        missed_from: Missed,
    ) -> Result<Value, RpcError> {
        // Listen first, then read what was stored: an event committed in between is in both,
        // and the stream skips it.
        let events = self
            .subscription
            .is_none()
            .then(|| methods.tree().subscribe());
        let tree = methods.tree();
        let (missed, left_out) = match missed_from {
            Missed::Nothing => (Vec::new(), false),
            Missed::After(after) => {
                let mut found = tree
                    .events_after(after, MAX_MISSED_EVENTS + 1)
                    .await
                    .map_err(RpcError::from)?;
                let left_out = found.len() > MAX_MISSED_EVENTS;
                found.truncate(MAX_MISSED_EVENTS);
                (found, left_out)
            }
            Missed::Since(since) => {
                // The newest first: what a subscriber that started a moment ago missed.
                let mut found = tree
                    .recent_events(MAX_MISSED_EVENTS + 1)
                    .await
                    .map_err(RpcError::from)?;
                found.retain(|event| event.created_at >= since);
                let left_out = found.len() > MAX_MISSED_EVENTS;
                if left_out {
                    found.remove(0);
                }
                (found, left_out)
            }
        };
        let heard_up_to = match (missed.last(), missed_from) {
            (Some(last), _) => last.seq,
            (None, Missed::After(after)) => after,
            (None, _) => 0,
        };
        if let Some(mut events) = events {
            let outbox = self.outbox.clone();
            self.subscription = Some(tokio::spawn(async move {
                loop {
                    let notification = match events.recv().await {
                        Ok(event) if event.seq <= heard_up_to => continue,
                        Ok(event) => jsonrpc::notification("event", event.to_json()),
                        Err(broadcast::error::RecvError::Lagged(missed)) => jsonrpc::notification(
                            "events.lagged",
                            json!({
                                "missed": missed,
                                "message": format!("This connection fell behind and missed {missed} events; subscribe again with after: the id of the last event you saw to read them."),
                            }),
                        ),
                        Err(broadcast::error::RecvError::Closed) => return,
                    };
                    if outbox
                        .send(Outgoing::unbudgeted(to_line(&notification)))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            }));
        }
        let stream = "Wake events arrive on this connection as JSON-RPC notifications \
                      {\"method\":\"event\",\"params\":{id, kind, text, task_id, wait_id, session_key, created_at}} \
                      until it closes.";
        // Where the stream starts: what a subscriber that loses the connection names as
        // `after` when it subscribes again.
        let newest = tree.recent_events(1).await.map_err(RpcError::from)?;
        let last_event_id = newest
            .last()
            .map(|event| event.seq)
            .max(Some(heard_up_to).filter(|seq| *seq > 0))
            .map(event_id);
        let mut answer = json!({"subscribed": true, "last_event_id": last_event_id});
        let message = match missed_from {
            Missed::Nothing => format!("Subscribed. {stream}"),
            Missed::After(_) | Missed::Since(_) => {
                let last = missed.last().map(|event| event_id(event.seq));
                answer["missed"] = missed
                    .iter()
                    .map(|event| WakeEvent::from_record(event).to_json())
                    .collect();
                answer["missed_left_out"] = json!(left_out);
                match (missed.len(), left_out, missed_from) {
                    (0, _, _) => format!("Subscribed; no event was missed. {stream}"),
                    (count, false, _) => format!(
                        "Subscribed; {count} missed events in missed, oldest first. {stream}"
                    ),
                    // Left out after `after`: the newer ones, which the stream will not carry.
                    (count, true, Missed::After(_)) => format!(
                        "Subscribed; the first {count} missed events in missed, oldest first; \
                         more followed: read them with after: \"{}\" on another connection. {stream}",
                        last.unwrap_or_default()
                    ),
                    // Left out since `since`: the older ones, before the newest kept.
                    (count, true, _) => format!(
                        "Subscribed; the newest {count} events since then in missed, oldest \
                         first; older ones were left out. {stream}"
                    ),
                }
            }
        };
        answer["message"] = json!(message);
        Ok(answer)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(subscription) = self.subscription.take() {
            subscription.abort();
        }
    }
}

/// How often a writer waiting on its client looks at the clock and the pool.
const STALL_TICK: Duration = Duration::from_millis(100);

/// Writes the outbox to the client. A client that takes no bytes for `line_timeout` is cut
/// off, and one whose reply holds pool bytes after [`STALL_UNDER_PRESSURE`] while the pool
/// is low (dropping what was queued for it gives its bytes back to the budget).
async fn write_lines(
    mut writer: tokio::net::unix::OwnedWriteHalf,
    mut lines: mpsc::Receiver<Outgoing>,
    line_timeout: Duration,
    pool: Budget,
) {
    while let Some(outgoing) = lines.recv().await {
        let bytes = outgoing.line.as_bytes();
        let mut written = 0;
        let mut stalled = Duration::ZERO;
        while written < bytes.len() {
            match tokio::time::timeout(STALL_TICK, writer.write(&bytes[written..])).await {
                Ok(Ok(0) | Err(_)) => return,
                Ok(Ok(n)) => {
                    written += n;
                    stalled = Duration::ZERO;
                }
                Err(_) => {
                    stalled += STALL_TICK;
                    let holds_the_pool = outgoing.pool.bytes() > 0
                        && stalled >= STALL_UNDER_PRESSURE
                        && pool.is_low();
                    if holds_the_pool || stalled >= line_timeout {
                        tracing::debug!(
                            stalled_ms = stalled.as_millis(),
                            holds_the_pool,
                            "a client takes no reply bytes; closing it"
                        );
                        return;
                    }
                }
            }
        }
    }
    let _ = writer.shutdown().await;
}

/// How often a refused user is named in the log: once, then a count at the end of each
/// minute it kept trying (a user who hammers the socket does not fill the log).
const REFUSAL_LOG_PERIOD: Duration = Duration::from_secs(60);

/// The users refused in the current minute, and how many refusals were not logged.
fn refusals() -> &'static std::sync::Mutex<HashMap<Option<u32>, u64>> {
    static REFUSALS: std::sync::OnceLock<std::sync::Mutex<HashMap<Option<u32>, u64>>> =
        std::sync::OnceLock::new();
    REFUSALS.get_or_init(Default::default)
}

/// Logs a refusal of `peer_uid`: the first in a minute at once, the rest as a count when
/// the minute is over.
fn log_refusal(peer_uid: Option<u32>, who: &str) {
    let mut refused = actors::locks::lock(refusals());
    if let Some(unlogged) = refused.get_mut(&peer_uid) {
        *unlogged += 1;
        return;
    }
    refused.insert(peer_uid, 0);
    tracing::warn!(peer = %who, "refused a connection from another user");
    let who = who.to_owned();
    tokio::spawn(async move {
        tokio::time::sleep(REFUSAL_LOG_PERIOD).await;
        let unlogged = actors::locks::lock(refusals())
            .remove(&peer_uid)
            .unwrap_or(0);
        if unlogged > 0 {
            tracing::warn!(
                peer = %who,
                unlogged,
                "refused more connections from another user in the last minute"
            );
        }
    });
}

async fn refuse_foreign_peer(mut stream: UnixStream, peer_uid: Option<u32>, owner_uid: u32) {
    let who = peer_uid.map_or("an unknown user".to_owned(), |uid| format!("uid {uid}"));
    log_refusal(peer_uid, &who);
    let error = RpcError::new(
        codes::INVALID_REQUEST,
        format!("connection refused: this daemon serves uid {owner_uid}, not {who}"),
        "run your own lookout daemon as your user (`lookout serve`)",
    );
    let mut line = jsonrpc::error_response(&Value::Null, &error).to_string();
    line.push('\n');
    let _ = stream.write_all(line.as_bytes()).await;
    let _ = stream.shutdown().await;
    // Closing with the client's request unread would reset the connection and could lose
    // the answer before it is read: take what it sends for a moment, then close.
    let mut discard = [0u8; 4096];
    let _ = tokio::time::timeout(FOREIGN_PEER_LINGER, async {
        let mut taken = 0;
        while taken < 64 * 1024 {
            match stream.read(&mut discard).await {
                Ok(0) | Err(_) => break,
                Ok(n) => taken += n,
            }
        }
    })
    .await;
}

/// How long a refused foreign client's request is read (and dropped) before closing.
const FOREIGN_PEER_LINGER: Duration = Duration::from_millis(250);

fn partial_line(line_timeout: Duration) -> String {
    let error = RpcError::new(
        codes::INVALID_REQUEST,
        format!(
            "the request line did not end within {}s; the connection is closed",
            line_timeout.as_secs()
        ),
        "send each request as one line ending in a newline (\\n), all at once",
    );
    to_line(&jsonrpc::error_response(&Value::Null, &error))
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

/// Resolves once shutdown is requested (or the daemon that could request it is gone).
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accept_errors_are_logged_once_per_quiet_period() {
        let quiet_for = Duration::from_millis(100);
        let mut errors = AcceptErrors::new(quiet_for);
        let out_of_files = std::io::Error::from_raw_os_error(24);
        assert!(errors.record(&out_of_files));
        assert!(!errors.record(&out_of_files));
        assert!(!errors.record(&out_of_files));
        assert_eq!(errors.suppressed, 2);
        tokio::time::sleep(quiet_for * 3).await;
        assert!(errors.record(&out_of_files));
        assert_eq!(errors.suppressed, 0);
    }
}
