//! The ScreenCast portal's handshake over D-Bus (`org.freedesktop.portal.ScreenCast`, spec
//! version 4): create a session, select a monitor (asking to persist the choice, with the
//! restore token kept from last time), start it — the one step where the desktop may show
//! its dialog — and open the PipeWire remote the stream is read from.
//!
//! Each of those calls answers through a `Request` object's `Response` signal; the signal is
//! subscribed to before the call, at the path the portal will use (derived from our unique
//! bus name and a token we choose), so it cannot be missed. The session lives as long as the
//! D-Bus connection: [`PortalSession`] keeps it.

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::StreamExt;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};
use zbus::{Connection, MatchRule, MessageStream};

use crate::sight::capture::CaptureError;

const PORTAL: &str = "org.freedesktop.portal.Desktop";
const PORTAL_PATH: &str = "/org/freedesktop/portal/desktop";
const SCREEN_CAST: &str = "org.freedesktop.portal.ScreenCast";
const REQUEST: &str = "org.freedesktop.portal.Request";
const SESSION: &str = "org.freedesktop.portal.Session";

/// `types`: a monitor (not a window, not a virtual screen).
const MONITOR: u32 = 1;
/// `cursor_mode`: the pointer drawn into the frames, as on screen.
const CURSOR_EMBEDDED: u32 = 2;
/// `persist_mode`: the choice holds until the user revokes it.
const PERSIST_UNTIL_REVOKED: u32 = 2;

/// How long the desktop's dialog may wait for the user before the wait is told so.
pub const CONSENT_PATIENCE: Duration = Duration::from_secs(600);
/// How long the portal may take over a call that shows no dialog.
const CALL_PATIENCE: Duration = Duration::from_secs(20);

/// A started ScreenCast session: its stream's PipeWire node and remote.
pub struct PortalSession {
    /// Keeps the session: the portal closes it when this connection goes.
    _connection: Connection,
    /// The session's `Closed` signal: the desktop ended it (the user stopped sharing).
    closed: MessageStream,
    /// The PipeWire node of the monitor's stream.
    pub node: u32,
    /// The stream's size as the portal reports it, when it does.
    pub size: Option<(u32, u32)>,
}

impl PortalSession {
    /// Whether the desktop has closed the session since (the user stopped sharing, the
    /// portal went away); never waits.
    pub fn was_closed(&mut self) -> bool {
        use futures::FutureExt;
        match self.closed.next().now_or_never() {
            Some(Some(_)) | Some(None) => true,
            None => false,
        }
    }
}

/// Whether a ScreenCast portal answers on the bus at `address`, and its version.
pub async fn probe(address: &str) -> Result<u32, CaptureError> {
    let connection = connect(address).await?;
    let reply = call(
        &connection,
        "org.freedesktop.DBus.Properties",
        "Get",
        &(SCREEN_CAST, "version"),
    )
    .await
    .ok_or_else(|| unanswered(address))?
    .map_err(|error| no_portal(address, &error))?;
    let version: OwnedValue = reply
        .body()
        .deserialize()
        .map_err(|error| no_portal(address, &error))?;
    u32::try_from(version).map_err(|error| no_portal(address, &error))
}

/// Opens a session on the monitor the user picks (or picked before: `token_file` holds the
/// restore token), and a PipeWire remote for its stream: a connection to PipeWire that sees
/// the stream's node and nothing else. Waits up to [`CONSENT_PATIENCE`] for the user to
/// answer the desktop's dialog.
pub async fn open(
    address: &str,
    token_file: &Path,
) -> Result<(PortalSession, OwnedFd), CaptureError> {
    let connection = connect(address).await?;
    let mut portal = Portal::new(&connection)?;
    let session_token = portal.token();
    let created = portal
        .request("CreateSession", CALL_PATIENCE, |handle| {
            (options([
                ("handle_token", handle),
                ("session_handle_token", Value::from(session_token.clone())),
            ]),)
        })
        .await?;
    let session: String = created
        .get("session_handle")
        .and_then(|value| String::try_from(value.clone()).ok())
        .ok_or_else(|| refused("CreateSession answered without a session handle"))?;
    let session = OwnedObjectPath::try_from(session.clone()).map_err(|_| {
        refused(&format!(
            "CreateSession gave a bad session handle {session}"
        ))
    })?;

    let restore = read_token(token_file);
    portal
        .request("SelectSources", CALL_PATIENCE, |handle| {
            let mut chosen = options([
                ("handle_token", handle),
                ("types", MONITOR.into()),
                ("multiple", false.into()),
                ("cursor_mode", CURSOR_EMBEDDED.into()),
                ("persist_mode", PERSIST_UNTIL_REVOKED.into()),
            ]);
            if let Some(token) = &restore {
                chosen.insert("restore_token", Value::from(token.clone()));
            }
            (session.clone(), chosen)
        })
        .await?;
    let started = portal
        .request("Start", CONSENT_PATIENCE, |handle| {
            (session.clone(), "", options([("handle_token", handle)]))
        })
        .await?;
    if let Some(token) = started
        .get("restore_token")
        .and_then(|value| String::try_from(value.clone()).ok())
    {
        write_token(token_file, &token);
    }
    let streams: Vec<(u32, HashMap<String, OwnedValue>)> = started
        .get("streams")
        .and_then(|value| value.try_clone().ok())
        .and_then(|value| value.try_into().ok())
        .ok_or_else(|| refused("Start answered without a stream"))?;
    let (node, properties) = streams
        .into_iter()
        .next()
        .ok_or_else(|| refused("Start answered with no stream: nothing was shared"))?;
    let size = properties
        .get("size")
        .and_then(|value| <(i32, i32)>::try_from(value.clone()).ok())
        .filter(|(width, height)| *width > 0 && *height > 0)
        .map(|(width, height)| (width as u32, height as u32));

    let closed = signals(&connection, SESSION, "Closed", session.as_str())
        .await
        .map_err(|error| failed("Start", &error))?;
    let reply = call(
        &connection,
        SCREEN_CAST,
        "OpenPipeWireRemote",
        &(session.clone(), HashMap::<&str, Value>::new()),
    )
    .await
    .ok_or_else(|| unanswered(address))?
    .map_err(|error| failed("OpenPipeWireRemote", &error))?;
    let remote: zbus::zvariant::OwnedFd = reply
        .body()
        .deserialize()
        .map_err(|error| failed("OpenPipeWireRemote", &error))?;
    let session = PortalSession {
        _connection: connection,
        closed,
        node,
        size,
    };
    Ok((session, remote.into()))
}

/// The calls of one handshake, each answered by its own `Request`.
struct Portal<'c> {
    connection: &'c Connection,
    /// Our unique bus name as the portal puts it in request paths (`1_42` for `:1.42`).
    sender: String,
}

impl<'c> Portal<'c> {
    fn new(connection: &'c Connection) -> Result<Portal<'c>, CaptureError> {
        let unique = connection
            .unique_name()
            .ok_or_else(|| refused("the session bus gave lookout no name"))?;
        Ok(Portal {
            connection,
            sender: unique.as_str().trim_start_matches(':').replace('.', "_"),
        })
    }

    /// A token unique in this daemon, for a request's or the session's path.
    fn token(&self) -> String {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        format!("lookout{}", NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// Calls `method` with the arguments `body` builds around a fresh `handle_token`, and
    /// waits up to `patience` for its `Response`: its results when the user (or the
    /// desktop) agreed, an error saying which step was refused otherwise.
    async fn request<B>(
        &mut self,
        method: &str,
        patience: Duration,
        body: impl FnOnce(Value<'static>) -> B,
    ) -> Result<HashMap<String, OwnedValue>, CaptureError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        let token = self.token();
        let path = format!("{PORTAL_PATH}/request/{}/{token}", self.sender);
        let mut responses = signals(self.connection, REQUEST, "Response", &path)
            .await
            .map_err(|error| failed(method, &error))?;
        let arguments = body(Value::from(token));
        call(self.connection, SCREEN_CAST, method, &arguments)
            .await
            .ok_or_else(|| refused(&format!("the portal did not answer {method}")))?
            .map_err(|error| failed(method, &error))?;
        let response = tokio::time::timeout(patience, responses.next())
            .await
            .map_err(|_| {
                CaptureError::permanent(format!(
                    "nobody answered the desktop's screen-sharing dialog within {} minutes; \
                     start the wait again and allow sharing the screen",
                    patience.as_secs() / 60
                ))
            })?
            .ok_or_else(|| refused(&format!("the session bus closed during {method}")))?
            .map_err(|error| failed(method, &error))?;
        let (code, results): (u32, HashMap<String, OwnedValue>) = response
            .body()
            .deserialize()
            .map_err(|error| failed(method, &error))?;
        match code {
            0 => Ok(results),
            1 => Err(CaptureError::permanent(
                "the screen-sharing dialog was cancelled, so lookout may not read the screen; \
                 start the wait again and choose Share (or watch a terminal or a file instead)",
            )),
            _ => Err(CaptureError::permanent(format!(
                "the ScreenCast portal refused {method} (response {code}); the desktop's \
                 portal backend may not support screen casting"
            ))),
        }
    }
}

/// Calls `method` of the portal's `interface`; `None` when it did not answer within
/// [`CALL_PATIENCE`].
async fn call<B>(
    connection: &Connection,
    interface: &str,
    method: &str,
    body: &B,
) -> Option<zbus::Result<zbus::Message>>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    let called = connection.call_method(Some(PORTAL), PORTAL_PATH, Some(interface), method, body);
    tokio::time::timeout(CALL_PATIENCE, called).await.ok()
}

/// The signals `member` of `interface` sent from the object at `path`, subscribed now (so
/// one sent after this returns is not missed).
async fn signals(
    connection: &Connection,
    interface: &str,
    member: &str,
    path: &str,
) -> zbus::Result<MessageStream> {
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface(interface)?
        .member(member)?
        .path(path)?
        .build();
    MessageStream::for_match_rule(rule, connection, Some(4)).await
}

/// `a{sv}` options from pairs.
fn options<const N: usize>(
    pairs: [(&'static str, Value<'static>); N],
) -> HashMap<&'static str, Value<'static>> {
    pairs.into_iter().collect()
}

async fn connect(address: &str) -> Result<Connection, CaptureError> {
    let built = zbus::connection::Builder::address(address)
        .map_err(|error| no_bus(address, &error))?
        .build();
    tokio::time::timeout(CALL_PATIENCE, built)
        .await
        .map_err(|_| unanswered(address))?
        .map_err(|error| no_bus(address, &error))
}

/// The token saved by the last session, if any.
fn read_token(path: &Path) -> Option<String> {
    let token = std::fs::read_to_string(path).ok()?;
    let token = token.trim();
    (!token.is_empty()).then(|| token.to_owned())
}

/// Keeps the portal's new token (each is good for one session), readable by the user only;
/// written whole or not at all. A failure only costs the user one more dialog next time.
fn write_token(path: &Path, token: &str) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let staged = path.with_extension("new");
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&staged)
        .and_then(|mut file| {
            file.write_all(token.as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&staged, path));
    if let Err(error) = written {
        tracing::warn!(
            path = %path.display(),
            %error,
            "could not keep the screen-sharing restore token; the desktop will ask again next time"
        );
    }
}

fn no_bus(address: &str, error: &zbus::Error) -> CaptureError {
    CaptureError::retryable(format!(
        "cannot reach the session bus at {address} for the ScreenCast portal: {error}; set \
         [wayland] session_bus to the desktop session's D-Bus address"
    ))
}

fn unanswered(address: &str) -> CaptureError {
    CaptureError::retryable(format!(
        "the session bus at {address} did not answer within {}s",
        CALL_PATIENCE.as_secs()
    ))
}

fn no_portal(address: &str, error: &dyn std::fmt::Display) -> CaptureError {
    CaptureError::permanent(format!(
        "no ScreenCast portal answers on the session bus at {address} ({error}): install \
         xdg-desktop-portal and the desktop's backend (xdg-desktop-portal-gnome, -kde or -wlr)"
    ))
}

fn failed(method: &str, error: &dyn std::fmt::Display) -> CaptureError {
    CaptureError::retryable(format!("the ScreenCast portal's {method} failed: {error}"))
}

fn refused(message: &str) -> CaptureError {
    CaptureError::permanent(format!("the ScreenCast portal: {message}"))
}
