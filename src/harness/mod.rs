//! `lookout::harness` (cargo feature `harness`): the whole daemon in-process on a temp data
//! folder, with time, sources, the model, the wake sink and faults in the test's hands.
//!
//! A [`Harness`] boots the real actor tree and socket on a [`ManualClock`], scripted wait
//! sources, a [`ScriptedModel`] asked through the Vision actor, and a [`RecordingSink`];
//! [`Harness::call`] reaches the same method dispatch the socket does and remembers every
//! acknowledged write. Faults: actor panics ([`Faults`]), storage I/O failures and crash
//! images ([`StorageFaults`]), model replies ([`Reply`]), a sink that fails or hangs. After a
//! scenario, [`Harness::check_invariants`] says whether anything was lost or left
//! inconsistent; [`soak`] runs random operations and faults from a seed.

pub mod invariants;
pub mod model;
pub mod soak;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actors::sight::content::Content;
use actors::waits::scripted::{ScriptedSources, ScriptedTarget};
use actors::wake::sinks::RecordingSink;
use actors::{Faults, ManualClock, RestartPolicy, Tree};
use anyhow::Context;
use serde_json::Value;
use storage::{StorageFaults, Store, Timestamp};

use crate::config::{Config, ConfigSource};
use crate::daemon::{Daemon, DaemonOptions};
use crate::jsonrpc::RpcError;
use crate::tools::spine::Method;

pub use invariants::Violations;
pub use model::{Reply, ScriptedModel};

/// Where the harness clock starts.
pub const START: &str = "2026-02-13T17:00:00Z";
/// The recording sink's name (deliveries are stored under it).
pub const SINK: &str = "harness";

/// The daemon in-process, and everything a fault-injection test controls.
pub struct Harness {
    dir: tempfile::TempDir,
    config: Config,
    clock: Arc<ManualClock>,
    faults: Faults,
    storage: StorageFaults,
    sources: Arc<ScriptedSources>,
    model: Arc<ScriptedModel>,
    sink: Arc<RecordingSink>,
    daemon: Option<Daemon>,
    ledger: Mutex<Ledger>,
    boots: u32,
}

/// Every write the harness saw acknowledged: what the invariants expect to find.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub tasks: BTreeSet<String>,
    /// (task id, message) of every acknowledged `task_update` message.
    pub notes: Vec<(String, String)>,
    /// Waits created, and whether the last acknowledged call on each was a cancel.
    pub waits: BTreeMap<String, bool>,
}

impl Harness {
    /// The daemon with the default config, stuck alerts and all.
    pub async fn start() -> anyhow::Result<Harness> {
        Self::start_with(|_| {}).await
    }

    /// The daemon with the default config as `adjust` leaves it (data folder and socket
    /// are the harness's).
    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> anyhow::Result<Harness> {
        let dir = tempfile::tempdir().context("cannot make the harness's temp folder")?;
        let mut config = Config::default();
        adjust(&mut config);
        config.data_dir = Some(dir.path().join("data"));
        config.socket_path = Some(dir.path().join("lookout.sock"));
        let start = Timestamp::parse_rfc3339(START).expect("START is RFC 3339");
        let mut harness = Harness {
            dir,
            config,
            clock: ManualClock::new(start),
            faults: Faults::default(),
            storage: StorageFaults::default(),
            sources: Arc::default(),
            model: Arc::default(),
            sink: RecordingSink::new(SINK),
            daemon: None,
            ledger: Mutex::default(),
            boots: 0,
        };
        harness.boot().await?;
        Ok(harness)
    }

    async fn boot(&mut self) -> anyhow::Result<()> {
        let mut options = DaemonOptions::new(self.config.clone(), ConfigSource::Defaults);
        options.clock = self.clock.clone();
        options.faults = self.faults.clone();
        options.extra_sinks = vec![self.sink.clone()];
        options.vision_backend = Some(self.model.clone());
        options.sources = Some(self.sources.clone());
        options.storage_faults = Some(self.storage.clone());
        options.restart_policy = Some(RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(20),
            // Scenarios inject many panics in quick succession; a crash loop is its own test.
            max_restarts: 20,
            ..RestartPolicy::default()
        });
        self.daemon = Some(Daemon::start(options).await?);
        self.boots += 1;
        Ok(())
    }

    fn daemon(&self) -> &Daemon {
        self.daemon
            .as_ref()
            .expect("the harness's daemon is running")
    }

    /// One call, exactly as the socket dispatches it. Acknowledged writes are remembered
    /// for [`Harness::check_invariants`].
    pub async fn call(&self, method: Method, params: Value) -> Result<Value, RpcError> {
        match self.daemon().methods().answer(method, params.clone()).await {
            Ok(result) => {
                let result = result.into_value();
                self.acknowledge(method, &params, &result);
                Ok(result)
            }
            Err(error) => {
                self.unsure(method, &params);
                Err(error)
            }
        }
    }

    fn acknowledge(&self, method: Method, params: &Value, result: &Value) {
        let text =
            |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let mut ledger = actors::locks::lock(&self.ledger);
        match method {
            Method::TaskRegister => ledger.tasks.extend(text(result, "task_id")),
            Method::TaskUpdate => {
                if let (Some(task), Some(note)) = (text(params, "task_id"), text(params, "message"))
                {
                    ledger.notes.push((task, note));
                }
            }
            Method::SmartWait | Method::WaitUpdate => {
                if let Some(id) = text(result, "wait_id") {
                    ledger.waits.insert(id, false);
                }
            }
            Method::WaitCancel => {
                // Cancelling a wait that had already ended leaves it as it was.
                if let Some(id) = text(result, "wait_id") {
                    ledger.waits.insert(id, result["status"] == "cancelled");
                }
            }
            _ => {}
        }
    }

    /// A wait call that failed may still have taken effect (an I/O error in its commit):
    /// expect nothing of the wait's state.
    fn unsure(&self, method: Method, params: &Value) {
        if let (Method::WaitUpdate | Method::WaitCancel, Some(id)) =
            (method, params.get("wait_id").and_then(Value::as_str))
        {
            let mut ledger = actors::locks::lock(&self.ledger);
            if let Some(cancelled) = ledger.waits.get_mut(id) {
                *cancelled = false;
            }
        }
    }

    /// What the harness saw acknowledged so far.
    pub fn ledger(&self) -> Ledger {
        actors::locks::lock(&self.ledger).clone()
    }

    /// Moves the clock and waits for everything that fell due (timers, deliveries).
    pub async fn advance(&self, by: Duration) -> anyhow::Result<()> {
        self.clock.advance(by);
        self.settle().await
    }

    /// Waits until no timer is due and no delivery is in flight.
    /// An actor that is being restarted (an injected panic) is waited for, up to 30 s.
    pub async fn settle(&self) -> anyhow::Result<()> {
        // Retries for at least 30 s (counted in pauses: the harness reads no clock).
        const PAUSE: Duration = Duration::from_millis(10);
        const RETRIES: u32 = 3000;
        let mut retries = 0;
        loop {
            match self.tree().settle().await {
                Ok(()) => return Ok(()),
                Err(error) if retries >= RETRIES => return Err(error.into()),
                Err(_) => {
                    retries += 1;
                    tokio::time::sleep(PAUSE).await;
                }
            }
        }
    }

    /// A wait target (`tmux:build`, `file:/x`, `pty:s-1` …) whose content the test sets.
    pub fn target(&self, target: &str, initial: &str) -> ScriptedTarget {
        self.sources.target(target, Content::text(initial))
    }

    pub fn clock(&self) -> &Arc<ManualClock> {
        &self.clock
    }

    /// Actor panics: `faults().panic_on_nth(ActorKind::Wait, 2)`.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// Storage I/O failures and crash images.
    pub fn storage_faults(&self) -> &StorageFaults {
        &self.storage
    }

    pub fn model(&self) -> &ScriptedModel {
        &self.model
    }

    /// The wake sink: what was delivered, and `fail_next`/`hang`/`refuse`.
    pub fn sink(&self) -> &RecordingSink {
        &self.sink
    }

    pub fn tree(&self) -> &Arc<Tree> {
        self.daemon().tree()
    }

    pub fn store(&self) -> &Arc<Store> {
        self.daemon().store()
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The daemon's socket, for tests that talk JSON-RPC to it.
    pub fn socket_path(&self) -> &Path {
        self.daemon().socket_path()
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// How many times the daemon was started (1 + restarts and crashes).
    pub fn boots(&self) -> u32 {
        self.boots
    }

    /// A clean restart: shut down in order, start again on the same data.
    pub async fn restart(&mut self) -> anyhow::Result<()> {
        self.stop().await;
        self.boot().await
    }

    /// Shuts the daemon down in order (to change the world before `start_again`).
    pub async fn stop(&mut self) {
        if let Some(daemon) = self.daemon.take() {
            daemon.shutdown().await;
        }
    }

    /// Starts the daemon again on the same data after `stop`.
    pub async fn start_again(&mut self) -> anyhow::Result<()> {
        self.boot().await
    }

    /// Power loss: the file is cut back to its last sync (all the daemon acknowledged) and
    /// the old daemon can write nothing more; then a new daemon starts on the crash image.
    pub async fn crash(&mut self) -> anyhow::Result<()> {
        self.storage
            .crash_image()
            .context("cannot cut the database back to a crash image")?;
        if let Some(daemon) = self.daemon.take() {
            daemon.shutdown().await;
        }
        self.storage.restart();
        self.boot().await
    }

    /// Checks every invariant (see [`invariants`]); the error lists each one broken.
    pub async fn check_invariants(&self) -> Result<invariants::Report, Violations> {
        invariants::check(self).await
    }

    pub async fn shutdown(mut self) {
        if let Some(daemon) = self.daemon.take() {
            daemon.shutdown().await;
        }
    }
}
