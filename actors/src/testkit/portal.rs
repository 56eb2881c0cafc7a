//! A private desktop session with a ScreenCast portal, for the portal tests: its own D-Bus
//! session bus, PipeWire and WirePlumber, the real `xdg-desktop-portal` frontend, and a
//! screen — an Xvfb display streamed into PipeWire by GStreamer (`ximagesrc` into
//! `pipewiresink`) — so what the tests paint on the Xvfb is what the portal's stream shows.
//!
//! The one stand-in is the portal's backend (`org.freedesktop.impl.portal.ScreenCast`, the
//! part GNOME and KDE each implement and which shows the dialog): served here over D-Bus by
//! the test itself, it shares that stream, "asks the user" (counts a prompt) when the
//! frontend passes it no restore data, and can be told to answer as a user who cancels.
//! Everything between lookout and it — the frontend's requests and signals, its restore
//! tokens in the permission store, the PipeWire remote passed as a file descriptor, the
//! stream itself — is the real thing.
//!
//! xdg-desktop-portal-wlr cannot stand in for the backend here: it refuses to cast from
//! wlroots' pixman renderer, the only one without a GPU. Needs `dbus-daemon`, `pipewire`,
//! `wireplumber`, `pw-dump`, `xdg-desktop-portal` and GStreamer's `ximagesrc` and PipeWire
//! elements (`.ci/run` installs them); a missing one fails the test loudly.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

use crate::sight::capture::portal::session;

const BACKEND: &str = "org.freedesktop.impl.portal.desktop.lookouttest";
const DESKTOP: &str = "lookouttest";
const FRONTEND: &str = "/usr/libexec/xdg-desktop-portal";
const STREAM_NODE: &str = "lookout-test-screen";
const PATIENCE: Duration = Duration::from_secs(30);
const STEP: Duration = Duration::from_millis(100);

/// What the stand-in backend was asked.
#[derive(Debug, Default)]
pub struct Asked {
    /// Sessions that had to ask the user (no restore data).
    pub prompts: AtomicUsize,
    /// Sessions restored from a token without asking.
    pub restored: AtomicUsize,
    /// Streams started.
    pub started: AtomicUsize,
    /// Answer `Start` as a user who cancelled the dialog.
    pub cancel: AtomicBool,
    /// The sessions sharing the screen now.
    pub sessions: std::sync::Mutex<Vec<OwnedObjectPath>>,
}

/// A running private desktop with a ScreenCast portal; stopped when dropped.
pub struct PortalDesktop {
    runtime: tempfile::TempDir,
    bus: String,
    children: Vec<Child>,
    backend_connection: Option<zbus::Connection>,
    asked: Arc<Asked>,
}

impl PortalDesktop {
    /// Starts the session and streams the Xvfb `x_display` (`:5`) of `width`x`height`.
    pub async fn start(x_display: &str, width: u32, height: u32) -> PortalDesktop {
        let runtime = tempfile::Builder::new()
            .prefix("lookout-portal-")
            .tempdir()
            .expect("a temp folder for the desktop session");
        std::fs::set_permissions(
            runtime.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        let socket = runtime.path().join("bus");
        let bus = format!("unix:path={}", socket.display());
        let mut desktop = PortalDesktop {
            bus: bus.clone(),
            children: Vec::new(),
            backend_connection: None,
            asked: Arc::new(Asked::default()),
            runtime,
        };
        desktop.spawn(
            "dbus-daemon",
            &[
                "--session",
                &format!("--address={bus}"),
                "--nofork",
                "--nopidfile",
            ],
        );
        desktop.wait_for("the session bus", || socket.exists());
        desktop.spawn("pipewire", &[]);
        let pipewire = desktop.runtime.path().join("pipewire-0");
        desktop.wait_for("PipeWire", || pipewire.exists());
        desktop.spawn("wireplumber", &[]);
        desktop.spawn(
            "gst-launch-1.0",
            &[
                "ximagesrc",
                &format!("display-name={x_display}"),
                "use-damage=false",
                "show-pointer=false",
                "!",
                "videoconvert",
                "!",
                &format!("video/x-raw,format=BGRx,width={width},height={height}"),
                "!",
                "videorate",
                "!",
                "video/x-raw,framerate=10/1",
                "!",
                "queue",
                "!",
                "pipewiresink",
                "mode=provide",
                &format!("stream-properties=p,media.class=Video/Source,node.name={STREAM_NODE}"),
            ],
        );
        let mut node = None;
        let dump_env = desktop.environment();
        desktop.wait_for("the screen's PipeWire node", || {
            node = stream_node(&dump_env);
            node.is_some()
        });
        let node = node.expect("found above");

        let backend = StandIn {
            node,
            size: (width as i32, height as i32),
            asked: desktop.asked.clone(),
        };
        let backend = zbus::connection::Builder::address(bus.as_str())
            .expect("the bus address")
            .name(BACKEND)
            .expect("the backend's name")
            .serve_at("/org/freedesktop/portal/desktop", backend)
            .expect("the backend's object")
            .build()
            .await
            .expect("the stand-in backend joins the bus");
        desktop.backend_connection = Some(backend);

        let portals = desktop.runtime.path().join("portals");
        std::fs::create_dir_all(&portals).unwrap();
        std::fs::write(
            portals.join(format!("{DESKTOP}.portal")),
            format!(
                "[portal]\nDBusName={BACKEND}\nInterfaces=org.freedesktop.impl.portal.ScreenCast;\nUseIn={DESKTOP}\n"
            ),
        )
        .unwrap();
        desktop.spawn(FRONTEND, &["--replace"]);
        let mut waited = Duration::ZERO;
        while session::probe(&bus).await.is_err() {
            desktop.check_alive("the portal frontend to answer");
            assert!(
                waited < PATIENCE,
                "timed out waiting for xdg-desktop-portal to answer"
            );
            tokio::time::sleep(STEP).await;
            waited += STEP;
        }
        desktop
    }

    /// Closes the sessions sharing the screen, as a desktop does when the user stops sharing
    /// (the backend's `Session.Closed`; the frontend then closes the session and its PipeWire
    /// remote).
    pub async fn stop_sharing(&self) {
        let backend = self
            .backend_connection
            .as_ref()
            .expect("the backend is on the bus");
        let sessions = std::mem::take(&mut *crate::locks::lock(&self.asked.sessions));
        for session in sessions {
            backend
                .emit_signal(
                    None::<&str>,
                    session.as_str(),
                    "org.freedesktop.impl.portal.Session",
                    "Closed",
                    &(),
                )
                .await
                .expect("the backend closes a session");
        }
    }

    /// The session bus's address, for `[wayland] session_bus`.
    pub fn bus(&self) -> &str {
        &self.bus
    }

    /// What the stand-in backend was asked.
    pub fn asked(&self) -> &Asked {
        &self.asked
    }

    /// The variables every program of the session runs with: its own runtime, home and
    /// data folders (the permission store keeps restore tokens under the latter), its bus.
    fn environment(&self) -> Vec<(String, String)> {
        let root = self.runtime.path();
        let folder = |name: &str| root.join(name).display().to_string();
        vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("XDG_RUNTIME_DIR".into(), root.display().to_string()),
            ("HOME".into(), folder("home")),
            ("XDG_DATA_HOME".into(), folder("data")),
            ("XDG_CONFIG_HOME".into(), folder("config")),
            ("XDG_STATE_HOME".into(), folder("state")),
            ("DBUS_SESSION_BUS_ADDRESS".into(), self.bus.clone()),
            ("XDG_CURRENT_DESKTOP".into(), DESKTOP.into()),
            ("XDG_DESKTOP_PORTAL_DIR".into(), folder("portals")),
        ]
    }

    fn spawn(&mut self, program: &str, args: &[&str]) {
        #[allow(clippy::disallowed_methods)] // test fixture: the desktop session under test
        let child = Command::new(program)
            .args(args)
            .env_clear()
            .envs(self.environment())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "cannot start {program} ({error}): apt-get install dbus pipewire wireplumber \
                     pipewire-bin xdg-desktop-portal gstreamer1.0-tools gstreamer1.0-pipewire \
                     gstreamer1.0-plugins-good"
                )
            });
        self.children.push(child);
    }

    fn check_alive(&mut self, waiting_for: &str) {
        for child in &mut self.children {
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "a program of the test desktop exited ({status}) while waiting for {waiting_for}"
                );
            }
        }
    }

    fn wait_for(&mut self, what: &str, mut done: impl FnMut() -> bool) {
        let mut waited = Duration::ZERO;
        while !done() {
            self.check_alive(what);
            assert!(waited < PATIENCE, "timed out waiting for {what}");
            std::thread::sleep(STEP);
            waited += STEP;
        }
    }

    /// The session's runtime folder.
    pub fn runtime(&self) -> &Path {
        self.runtime.path()
    }
}

impl Drop for PortalDesktop {
    fn drop(&mut self) {
        for child in self.children.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The id of the screen's node in PipeWire's object list, once it is there.
fn stream_node(environment: &[(String, String)]) -> Option<u32> {
    #[allow(clippy::disallowed_methods)] // test fixture: reads the session's PipeWire graph
    let dump = Command::new("pw-dump")
        .env_clear()
        .envs(environment.iter().cloned())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let objects: serde_json::Value = serde_json::from_slice(&dump.stdout).ok()?;
    objects.as_array()?.iter().find_map(|object| {
        let name = object.pointer("/info/props/node.name")?.as_str()?;
        (name == STREAM_NODE)
            .then(|| object["id"].as_u64())?
            .map(|id| id as u32)
    })
}

/// The stand-in backend: shares the one stream, asks only without restore data.
struct StandIn {
    node: u32,
    size: (i32, i32),
    asked: Arc<Asked>,
}

type Results = HashMap<String, OwnedValue>;

fn owned(value: &Value<'_>) -> OwnedValue {
    value
        .try_to_owned()
        .expect("a value without file descriptors")
}

#[zbus::interface(name = "org.freedesktop.impl.portal.ScreenCast")]
impl StandIn {
    async fn create_session(
        &self,
        _handle: OwnedObjectPath,
        _session_handle: OwnedObjectPath,
        _app_id: String,
        _options: HashMap<String, OwnedValue>,
    ) -> (u32, Results) {
        (0, Results::new())
    }

    async fn select_sources(
        &self,
        _handle: OwnedObjectPath,
        _session_handle: OwnedObjectPath,
        _app_id: String,
        options: HashMap<String, OwnedValue>,
    ) -> (u32, Results) {
        let counter = if options.contains_key("restore_data") {
            &self.asked.restored
        } else {
            &self.asked.prompts
        };
        counter.fetch_add(1, Ordering::SeqCst);
        (0, Results::new())
    }

    async fn start(
        &self,
        _handle: OwnedObjectPath,
        session_handle: OwnedObjectPath,
        _app_id: String,
        _parent_window: String,
        _options: HashMap<String, OwnedValue>,
    ) -> (u32, Results) {
        if self.asked.cancel.load(Ordering::SeqCst) {
            return (1, Results::new());
        }
        self.asked.started.fetch_add(1, Ordering::SeqCst);
        crate::locks::lock(&self.asked.sessions).push(session_handle);
        let properties: HashMap<&str, Value> = [
            ("size", Value::from(self.size)),
            ("source_type", Value::from(1u32)),
        ]
        .into_iter()
        .collect();
        let streams = vec![(self.node, properties)];
        let mut results = Results::new();
        results.insert("streams".into(), owned(&Value::from(streams)));
        results.insert("persist_mode".into(), owned(&Value::from(2u32)));
        results.insert(
            "restore_data".into(),
            owned(&Value::from((
                DESKTOP,
                1u32,
                Value::from("the test screen"),
            ))),
        );
        (0, results)
    }

    #[zbus(property)]
    fn available_source_types(&self) -> u32 {
        1
    }

    #[zbus(property)]
    fn available_cursor_modes(&self) -> u32 {
        7
    }

    #[zbus(property, name = "version")]
    fn version(&self) -> u32 {
        4
    }
}
