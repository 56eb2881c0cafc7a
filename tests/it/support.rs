//! Test fixtures: a daemon in-process or as the real binary, on a temp folder, and a client.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actors::{Clock, ManualClock, SystemClock};
use lookout::client::Client;
use lookout::config::{Config, ConfigSource};
use lookout::daemon::{Daemon, DaemonOptions};
use lookout::jsonrpc::RpcError;
use serde_json::Value;
use storage::Timestamp;

pub const START: &str = "2026-02-13T17:00:00Z";
pub const BINARY: &str = env!("CARGO_BIN_EXE_lookout");

/// A config on a temp folder: the data file and the socket inside it.
pub fn config_in(dir: &Path) -> Config {
    Config {
        data_dir: Some(dir.join("data")),
        socket_path: Some(dir.join("lookout.sock")),
        log_level: "warn".into(),
        ..Config::default()
    }
}

/// A daemon running in this process.
pub struct TestDaemon {
    pub dir: tempfile::TempDir,
    pub clock: Option<Arc<ManualClock>>,
    daemon: Option<Daemon>,
}

impl TestDaemon {
    /// On the system clock.
    pub async fn start() -> Self {
        Self::start_with(|_| {}, None).await
    }

    /// On a ManualClock set to [`START`].
    pub async fn start_manual() -> Self {
        let clock = ManualClock::new(Timestamp::parse_rfc3339(START).unwrap());
        Self::start_with(|_| {}, Some(clock)).await
    }

    pub async fn start_with(
        adjust: impl FnOnce(&mut Config),
        clock: Option<Arc<ManualClock>>,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config_in(dir.path());
        adjust(&mut config);
        let mut options = DaemonOptions::new(config, ConfigSource::Defaults);
        options.clock = match &clock {
            Some(manual) => manual.clone() as Arc<dyn Clock>,
            None => Arc::new(SystemClock),
        };
        let daemon = Daemon::start(options).await.unwrap();
        TestDaemon {
            dir,
            clock,
            daemon: Some(daemon),
        }
    }

    pub fn socket(&self) -> PathBuf {
        self.daemon.as_ref().unwrap().socket_path().to_owned()
    }

    pub fn manual_clock(&self) -> &ManualClock {
        self.clock.as_deref().expect("started with a ManualClock")
    }

    pub async fn client(&self) -> Client {
        Client::connect(&self.socket()).await.unwrap()
    }

    /// Calls `method` on a fresh connection and expects success.
    pub async fn ok(&self, method: &str, params: Value) -> Value {
        ok(&mut self.client().await, method, params).await
    }

    /// Calls `method` on a fresh connection and expects an error.
    pub async fn err(&self, method: &str, params: Value) -> RpcError {
        err(&mut self.client().await, method, params).await
    }

    pub async fn stop(mut self) -> tempfile::TempDir {
        self.daemon.take().unwrap().shutdown().await;
        self.dir
    }
}

pub async fn ok(client: &mut Client, method: &str, params: Value) -> Value {
    match client.call(method, params.clone()).await.unwrap() {
        Ok(result) => result,
        Err(error) => panic!("{method} {params} failed: {error:?}"),
    }
}

pub async fn err(client: &mut Client, method: &str, params: Value) -> RpcError {
    match client.call(method, params.clone()).await.unwrap() {
        Ok(result) => panic!("{method} {params} should fail but returned {result}"),
        Err(error) => error,
    }
}

/// The deploy task of protocol.md.
pub fn deploy_task() -> Value {
    serde_json::json!({
        "name": "Deploy coursefolio to production",
        "plan": ["Build Docker image", "Push to registry", "SSH into server", "Pull and run", "Verify"],
        "metadata": {"repo": "coursefolio", "branch": "main"}
    })
}

/// The real `lookout serve` binary on a temp folder.
pub struct DaemonProcess {
    pub child: Child,
    pub socket: PathBuf,
}

impl DaemonProcess {
    /// Starts `lookout serve --config <dir>/config.toml` and waits until it answers.
    pub fn start(dir: &Path) -> DaemonProcess {
        let config_file = write_config(dir, "");
        let child = Command::new(BINARY)
            .args(["serve", "--config"])
            .arg(&config_file)
            .env("LOOKOUT_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let socket = dir.join("lookout.sock");
        let mut process = DaemonProcess { child, socket };
        process.wait_until_serving();
        process
    }

    fn wait_until_serving(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if std::os::unix::net::UnixStream::connect(&self.socket).is_ok() {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the daemon exited early with {status}: {}",
                    stderr_of(&mut self.child)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "the daemon did not start listening on {}",
            self.socket.display()
        );
    }

    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        signal(self.child.id(), "TERM");
        wait_with_timeout(&mut self.child, Duration::from_secs(20))
    }
}

impl Drop for DaemonProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes `<dir>/config.toml` pointing data and socket into `dir`, plus `extra` lines.
pub fn write_config(dir: &Path, extra: &str) -> PathBuf {
    let file = dir.join("config.toml");
    let text = format!(
        "data_dir = {:?}\nsocket_path = {:?}\nlog_level = \"warn\"\n{extra}",
        dir.join("data"),
        dir.join("lookout.sock")
    );
    std::fs::write(&file, text).unwrap();
    file
}

pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

pub fn wait_with_timeout(child: &mut Child, timeout: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "the process did not exit within {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn stderr_of(child: &mut Child) -> String {
    use std::io::Read;
    let mut text = String::new();
    if let Some(stderr) = child.stderr.as_mut() {
        let _ = stderr.read_to_string(&mut text);
    }
    text
}

/// Runs the CLI with `args` and returns (exit code, stdout, stderr).
pub fn cli(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(BINARY)
        .args(args)
        .env("LOOKOUT_LOG", "error")
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Every message content of a task's thread, paging back as far as it goes.
pub async fn all_message_contents(client: &mut Client, task_id: &str) -> Vec<String> {
    let mut contents = Vec::new();
    let mut before: Option<u64> = None;
    loop {
        let mut params = serde_json::json!({"task_id": task_id, "limit": 1000});
        if let Some(seq) = before {
            params["before"] = seq.into();
        }
        let page = ok(client, "task_thread", params).await;
        let messages = page["messages"].as_array().unwrap();
        let mut texts: Vec<String> = messages
            .iter()
            .map(|m| m["content"].as_str().unwrap().to_owned())
            .collect();
        texts.append(&mut contents);
        contents = texts;
        match messages.first().and_then(|m| m["seq"].as_u64()) {
            Some(first) if first > 1 => before = Some(first),
            _ => return contents,
        }
    }
}
