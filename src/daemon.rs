//! Running the daemon: open the store, start the actor tree, bind the socket, serve until
//! a signal or a fatal tree failure, then shut down in order.
//!
//! `Daemon::start` is also how the integration tests, the benchmarks and (later) the
//! harness boot a daemon in-process on a temp folder.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use actors::{Clock, Faults, SystemClock, Tree, TreeArgs};
use anyhow::Context;
use storage::Store;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::config::{Config, ConfigSource};
use crate::methods::{DaemonInfo, Methods};
use crate::paths;
use crate::server::{self, ServerOptions};

/// Exit code when the actor tree gave up (systemd's `Restart=on-failure` restarts us).
pub const EXIT_TREE_FAILED: u8 = 70;
/// How long shutdown waits for in-flight reads to let go of the database.
const STORE_RELEASE_TIMEOUT: Duration = Duration::from_secs(5);

pub struct DaemonOptions {
    pub config: Config,
    pub config_source: ConfigSource,
    pub clock: Arc<dyn Clock>,
    pub faults: Faults,
}

impl DaemonOptions {
    pub fn new(config: Config, config_source: ConfigSource) -> Self {
        Self {
            config,
            config_source,
            clock: Arc::new(SystemClock),
            faults: Faults::default(),
        }
    }
}

pub struct Daemon {
    socket_path: PathBuf,
    data_file: PathBuf,
    tree: Arc<Tree>,
    store: Arc<Store>,
    stop_server: watch::Sender<bool>,
    server: JoinHandle<()>,
}

impl Daemon {
    pub async fn start(options: DaemonOptions) -> anyhow::Result<Daemon> {
        let config = &options.config;
        let data_file = paths::data_file(config);
        let socket_path = paths::socket_path(config);
        let open_path = data_file.clone();
        let store = tokio::task::spawn_blocking(move || Store::open(&open_path))
            .await
            .context("the database open task panicked")??;
        let store = Arc::new(store);

        let mut tree_args = TreeArgs::new(store.clone(), options.clock.clone());
        tree_args.group_commit = config.storage.group_commit;
        tree_args.faults = options.faults;
        let tree = Arc::new(Tree::start(tree_args).await?);

        let listener = match server::bind(&socket_path, config.socket_path.is_none()) {
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
        };
        let methods = Arc::new(Methods::new(tree.clone(), info));
        let (stop_server, stop_signal) = watch::channel(false);
        let server_options = ServerOptions {
            socket_path: socket_path.clone(),
            max_request_bytes: config.max_request_bytes,
            owner_uid: paths::current_uid(),
        };
        let server = tokio::spawn(server::serve(
            listener,
            methods,
            server_options,
            stop_signal,
        ));
        tracing::info!(
            socket = %socket_path.display(),
            data = %data_file.display(),
            config = %options.config_source,
            "lookout {} listening",
            env!("CARGO_PKG_VERSION")
        );
        Ok(Daemon {
            socket_path,
            data_file,
            tree,
            store,
            stop_server,
            server,
        })
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
        let deadline = tokio::time::Instant::now() + STORE_RELEASE_TIMEOUT;
        while Arc::strong_count(&self.store) > 1 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        drop(self.store);
    }
}

/// `lookout serve`: runs until SIGTERM or SIGINT (exit 0) or until the tree gives up
/// (exit [`EXIT_TREE_FAILED`]).
pub async fn run(options: DaemonOptions) -> anyhow::Result<ExitCode> {
    let mut terminate = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
    let daemon = Daemon::start(options).await?;
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
    daemon.shutdown().await;
    tracing::info!("stopped");
    Ok(exit)
}
