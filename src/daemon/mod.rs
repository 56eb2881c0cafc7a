//! Running the daemon: open the store, start the actor tree, bind the socket, serve until
//! a signal or a fatal tree failure, then shut down in order.
//!
//! `Daemon::start` is also how the integration tests, the benchmarks and the
//! harness boot a daemon in-process on a temp folder. `run` adds what only the real process
//! has: signals, exit codes and the systemd notifications and watchdog.

pub mod logging;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use actors::openclaw::exec::ExecSessions;
use actors::sight::capture::wayland::{ScreenAccess, WaylandDisplay};
use actors::vision::backend::{Backend, BackendSpec};
use actors::waits::sources::SourceFactory;
use actors::wake::sinks::{Sink, SinkSpec};
use actors::{Clock, Faults, RestartPolicy, SystemClock, Tree};
use anyhow::Context;
use storage::{OpenOptions, StorageFaults, Store};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::config::carry;
use crate::config::paths;
use crate::config::{Config, ConfigSource};
use crate::server::{self, ServerOptions};
use crate::systemd::ServiceManager;
use crate::tools::methods::Methods;
use crate::tools::wire::status::DaemonInfo;

/// Exit code when the actor tree gave up (systemd's `Restart=on-failure` restarts us).
pub const EXIT_TREE_FAILED: u8 = 70;
/// How long a shutdown may take in all, whatever a source or a sink is doing (under the
/// unit's `TimeoutStopSec=30`, so the daemon ends itself before systemd kills it).
const SHUTDOWN_LIMIT: Duration = Duration::from_secs(20);
/// How long shutdown waits for in-flight reads to let go of the database.
const STORE_RELEASE_TIMEOUT: Duration = Duration::from_secs(5);

/// Faults the real binary arms in itself, for end-to-end fault tests: a comma-separated list
/// of `<actor>:<N|every>` ([`actors::FaultSpec::parse_list`]), e.g. `registry:every` (a crash
/// loop) or `task:3`. Only a build with the `harness` feature reads it; any other build
/// ignores the variable entirely.
#[cfg(feature = "harness")]
pub const HARNESS_FAULTS_VAR: &str = "LOOKOUT_HARNESS_FAULTS";

/// The faults [`HARNESS_FAULTS_VAR`] asks for; a malformed value is a start-up error.
#[cfg(feature = "harness")]
fn harness_faults_from_env() -> anyhow::Result<Vec<actors::FaultSpec>> {
    match crate::config::environment::var(HARNESS_FAULTS_VAR) {
        Some(text) => actors::FaultSpec::parse_list(&text)
            .map_err(|error| anyhow::anyhow!("{HARNESS_FAULTS_VAR}: {error}")),
        None if crate::config::environment::is_set(HARNESS_FAULTS_VAR) => {
            anyhow::bail!("{HARNESS_FAULTS_VAR} is not valid UTF-8")
        }
        None => Ok(Vec::new()),
    }
}

pub struct DaemonOptions {
    pub config: Config,
    pub config_source: ConfigSource,
    pub clock: Arc<dyn Clock>,
    pub faults: Faults,
    /// A listening socket handed over by systemd socket activation: served instead of
    /// binding `socket_path`, and left in place on shutdown (systemd owns it).
    pub inherited_listener: Option<std::os::unix::net::UnixListener>,
    /// Sinks beyond the configured ones (tests and the harness record with these).
    pub extra_sinks: Vec<Arc<dyn Sink>>,
    /// A vision backend that replaces the configured one (tests and the harness script it).
    pub vision_backend: Option<Arc<dyn Backend>>,
    /// Where waits get their sources (`None`: the real files, terminals and displays; the
    /// harness scripts them).
    pub sources: Option<Arc<dyn SourceFactory>>,
    /// Open the database on the fault-injecting backend these faults control (the harness).
    pub storage_faults: Option<StorageFaults>,
    /// How supervisors restart crashed actors (`None`: the production policies).
    pub restart_policy: Option<RestartPolicy>,
}

impl DaemonOptions {
    pub fn new(config: Config, config_source: ConfigSource) -> Self {
        Self {
            config,
            config_source,
            clock: Arc::new(SystemClock::new()),
            faults: Faults::default(),
            inherited_listener: None,
            extra_sinks: Vec::new(),
            vision_backend: None,
            sources: None,
            storage_faults: None,
            restart_policy: None,
        }
    }
}

pub struct Daemon {
    socket_path: PathBuf,
    data_file: PathBuf,
    tree: Arc<Tree>,
    store: Arc<Store>,
    methods: Arc<Methods>,
    stop_server: watch::Sender<bool>,
    server: JoinHandle<()>,
}

impl Daemon {
    pub async fn start(mut options: DaemonOptions) -> anyhow::Result<Daemon> {
        let inherited_listener = options.inherited_listener.take();
        let config = &options.config;
        let data_file = paths::data_file(config);
        let mut socket_path = paths::socket_path(config);
        let open_path = data_file.clone();
        let open_options = OpenOptions {
            cache_bytes: usize::try_from(config.storage.cache_mib * 1024 * 1024)
                .unwrap_or(usize::MAX),
            faults: options.storage_faults.take(),
        };
        let (store, tightened) =
            tokio::task::spawn_blocking(move || Store::open_private(&open_path, open_options))
                .await
                .context("the database open task panicked")??;
        for change in tightened {
            tracing::warn!("made the data private: {change}");
        }
        let replayed = store.replayed_writes();
        if replayed > 0 {
            tracing::warn!(
                replayed,
                "applied {replayed} acknowledged write(s) from the write journal that the database file did not hold yet (the daemon stopped without catching it up: a crash or a kill)"
            );
        }
        if store.is_read_only() {
            tracing::warn!(
                "the disk holding {} is full: the database is open for reading only (tasks, \
                 waits and status can be read; every write is refused) until space is freed \
                 there, and the first write after that opens it for writing",
                data_file.display()
            );
        }
        let store = Arc::new(store);

        let sinks = crate::config::sinks::resolve(
            &config.wake,
            !options.extra_sinks.is_empty(),
            crate::config::environment::var,
            crate::config::environment::find_on_path,
        )?;
        tracing::info!("{}", sinks.summary);
        for gateway in &sinks.gateways {
            // Says at start-up whether the gateway takes wakes, and what to run when not; a
            // gateway that starts later is connected at the first wake.
            let gateway = gateway.clone();
            tokio::spawn(async move {
                match gateway.client().probe().await {
                    Ok(connected) => tracing::info!("wake sink openclaw: {connected}"),
                    Err(error) => tracing::warn!("wake sink openclaw: {error}"),
                }
            });
        }
        if config.recall.reads("openclaw") {
            match &sinks.exec_sessions {
                ExecSessions::Gateway(ledger) => tracing::info!(
                    "recall reads OpenClaw's sessions from the gateway at {} every {}s",
                    ledger.url(),
                    actors::recall::actor::TRANSCRIPTS_PERIOD.as_secs()
                ),
                ExecSessions::NoGateway { looked } => tracing::warn!(
                    "[recall] sources names \"openclaw\", but no OpenClaw gateway was found \
                     (looked {looked}): its sessions are not searched; configure the gateway \
                     (a [[wake.sinks]] of kind \"openclaw\", or OPENCLAW_GATEWAY_URL) and \
                     restart lookout"
                ),
            }
        }
        let mut vision = crate::config::vision::resolve(
            &config.vision,
            crate::config::environment::var,
            crate::config::environment::find_on_path,
        )?;
        if let Some(backend) = options.vision_backend.take() {
            vision.summary = format!("vision: {} (attached in-process)", backend.describe());
            vision.spec.backend = BackendSpec::Custom(backend);
        }
        tracing::info!("{}", vision.summary);
        let mut tree_args =
            carry::tree_args(config, store.clone(), options.clock.clone(), sinks, vision);
        tree_args.faults = options.faults;
        let pixels = pixel_session(
            tree_args.waits.x11_display.as_deref(),
            tree_args.waits.wayland.as_ref(),
        );
        tracing::info!("window: and screen waits read: {pixels}");
        tree_args.waits.sources = options.sources.take();
        if let Some(policy) = options.restart_policy.take() {
            tree_args.policy = policy.clone();
            tree_args.tasks.policy = policy;
        }
        tree_args
            .wake
            .sinks
            .extend(options.extra_sinks.drain(..).map(SinkSpec::Custom));
        let tree = Arc::new(Tree::start(tree_args).await?);

        let activated = inherited_listener.is_some();
        let bound = match inherited_listener {
            Some(listener) => adopt(listener).map(|(listener, path)| {
                if let Some(path) = path {
                    socket_path = path;
                }
                listener
            }),
            None => {
                let folder = if config.socket_path.is_none() {
                    server::SocketFolder::Default
                } else {
                    server::SocketFolder::Configured
                };
                server::bind(&socket_path, folder, paths::current_uid())
            }
        };
        let listener = match bound {
            Ok(listener) => listener,
            Err(error) => {
                tree.shutdown().await;
                return Err(error);
            }
        };
        let info = DaemonInfo {
            version: env!("CARGO_PKG_VERSION"),
            started_at: options.clock.now(),
            pid: std::process::id(),
            socket_path: socket_path.clone(),
            data_file: data_file.clone(),
            config_source: options.config_source.to_string(),
            stuck: carry::stuck_policy(&config.stuck),
            pixels,
        };
        let methods = Arc::new(Methods::new(tree.clone(), info));
        let (stop_server, stop_signal) = watch::channel(false);
        let limits = carry::server_limits(config);
        let server_options = ServerOptions {
            socket_path: socket_path.clone(),
            max_request_bytes: limits.max_request_bytes,
            owner_uid: paths::current_uid(),
            remove_socket_on_exit: !activated,
            max_connections: connection_cap(limits.max_connections),
            idle_timeout: limits.idle_timeout,
            line_timeout: limits.line_timeout,
        };
        let server = tokio::spawn(server::serve(
            listener,
            methods.clone(),
            server_options,
            stop_signal,
        ));
        tracing::info!(
            socket = %socket_path.display(),
            data = %data_file.display(),
            config = %options.config_source,
            socket_activation = activated,
            "lookout {} listening",
            env!("CARGO_PKG_VERSION")
        );
        Ok(Daemon {
            socket_path,
            data_file,
            tree,
            store,
            methods,
            stop_server,
            server,
        })
    }

    /// The calls the socket serves, to make in-process (the harness).
    pub fn methods(&self) -> &Arc<Methods> {
        &self.methods
    }

    /// The database (the harness checks its invariants).
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    pub fn socket_path(&self) -> &Path {
        &self.socket_path
    }

    pub fn data_file(&self) -> &Path {
        &self.data_file
    }

    pub fn tree(&self) -> &Arc<Tree> {
        &self.tree
    }

    /// Resolves with the reason when the actor tree gives up.
    pub async fn failed(&self) -> String {
        self.tree.failed().await
    }

    /// Stops accepting, lets in-flight requests finish, stops the tree, removes the socket
    /// and closes the database.
    pub async fn shutdown(self) {
        let _ = self.stop_server.send(true);
        let _ = self.server.await;
        self.tree.shutdown().await;
        drop(self.tree);
        drop(self.methods);
        let released = async {
            while Arc::strong_count(&self.store) > 1 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        let _ = tokio::time::timeout(STORE_RELEASE_TIMEOUT, released).await;
        drop(self.store);
    }
}

/// Serves on a listener systemd passed; returns it with the path it listens on.
fn adopt(
    listener: std::os::unix::net::UnixListener,
) -> anyhow::Result<(tokio::net::UnixListener, Option<PathBuf>)> {
    let path = listener
        .local_addr()
        .ok()
        .and_then(|address| address.as_pathname().map(Path::to_path_buf));
    listener
        .set_nonblocking(true)
        .context("cannot make the socket systemd passed non-blocking")?;
    let listener = tokio::net::UnixListener::from_std(listener)
        .context("cannot serve on the socket systemd passed")?;
    Ok((listener, path))
}

/// `lookout serve`: runs until SIGTERM or SIGINT (exit 0) or until the tree gives up
/// (exit [`EXIT_TREE_FAILED`]). Under systemd it says `READY=1` once the socket listens,
/// pets the watchdog after each actor-tree ping, and says `STOPPING=1` when it shuts down.
pub async fn run(
    options: DaemonOptions,
    service_manager: ServiceManager,
) -> anyhow::Result<ExitCode> {
    let mut terminate = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
    #[cfg(feature = "harness")]
    let harness_faults = harness_faults_from_env()?;
    let daemon = Daemon::start(options).await?;
    // Armed once the tree is up, so that a fault on every message is a crash loop of a
    // serving daemon rather than a failed start.
    #[cfg(feature = "harness")]
    for spec in harness_faults {
        tracing::warn!(
            actor = spec.kind.as_str(),
            arming = ?spec.arming,
            "{HARNESS_FAULTS_VAR}: fault armed"
        );
        daemon.tree().faults().arm(spec);
    }
    service_manager.ready(&format!("serving on {}", daemon.socket_path().display()));
    let watchdog = service_manager.spawn_watchdog(daemon.tree().clone());
    let exit = tokio::select! {
        _ = terminate.recv() => {
            tracing::info!("SIGTERM: shutting down");
            ExitCode::SUCCESS
        }
        _ = interrupt.recv() => {
            tracing::info!("SIGINT: shutting down");
            ExitCode::SUCCESS
        }
        reason = daemon.failed() => {
            tracing::error!(%reason, "the actor tree gave up; exiting so the service manager restarts lookout");
            ExitCode::from(EXIT_TREE_FAILED)
        }
    };
    service_manager.stopping("shutting down: draining connections");
    if let Some(watchdog) = watchdog {
        watchdog.abort();
    }
    if tokio::time::timeout(SHUTDOWN_LIMIT, daemon.shutdown())
        .await
        .is_err()
    {
        tracing::error!(limit = ?SHUTDOWN_LIMIT, "shutdown did not finish in time; exiting anyway (the data is safe: every acknowledged change was committed)");
    }
    tracing::info!("stopped");
    Ok(exit)
}

/// Descriptors kept for everything but connections: the database, target files, terminal
/// sessions, sinks' sockets.
const RESERVED_FILES: u64 = 256;

/// Raises the open-file soft limit to the hard one (a user service starts at 1024) and
/// returns how many connections fit in it: `wanted`, or fewer when the limit is lower.
fn connection_cap(wanted: usize) -> usize {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let mut soft = limit.current.unwrap_or(u64::MAX);
    if limit.current != limit.maximum {
        let raised = rustix::process::Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        match setrlimit(Resource::Nofile, raised) {
            Ok(()) => {
                soft = limit.maximum.unwrap_or(u64::MAX);
                tracing::info!(from = ?limit.current, to = ?limit.maximum, "raised the open-file limit");
            }
            Err(error) => tracing::warn!(%error, "could not raise the open-file limit"),
        }
    }
    let fits = usize::try_from(soft.saturating_sub(RESERVED_FILES).max(16)).unwrap_or(usize::MAX);
    if fits < wanted {
        tracing::warn!(
            max_connections = wanted,
            open_file_limit = soft,
            serving = fits,
            "the open-file limit leaves room for fewer connections than max_connections"
        );
    }
    wanted.min(fits)
}

/// Where `window:` and `screen` waits read pixels, in words for the log and `daemon.status`.
fn pixel_session(x11_display: Option<&str>, wayland: Option<&WaylandDisplay>) -> String {
    let windows = |wayland: &WaylandDisplay| match wayland.sway {
        Some(_) => "windows placed by sway's IPC",
        None => "windows only while fullscreen or maximised: no sway IPC to place them",
    };
    match (wayland, x11_display) {
        (Some(wayland), _) => match &wayland.access {
            ScreenAccess::Screencopy => {
                format!(
                    "Wayland {} ({})",
                    wayland.socket.display(),
                    windows(wayland)
                )
            }
            ScreenAccess::Portal(portal) => format!(
                "the screen through the ScreenCast portal on {} (no windows; the desktop asks \
                 once)",
                portal.bus
            ),
            ScreenAccess::Auto(portal) => format!(
                "Wayland {} ({}; the ScreenCast portal on {} if the compositor offers no \
                 screencopy)",
                wayland.socket.display(),
                windows(wayland),
                portal.bus
            ),
        },
        (None, Some(display)) => format!("X11 display {display}"),
        (None, None) => "nothing: no X display or Wayland compositor is configured, so window: \
                         and screen waits are refused"
            .to_owned(),
    }
}
