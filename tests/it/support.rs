//! Test fixtures: a daemon in-process or as the real binary, on a temp folder, and a client.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actors::wake::sinks::RecordingSink;
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
        log_level: lookout::config::LogLevel::Warn,
        ..Config::default()
    }
}

/// A daemon running in this process, its wake events going to a recording sink (so no
/// `openclaw` on the machine's PATH is ever woken by a test).
pub struct TestDaemon {
    pub dir: tempfile::TempDir,
    pub clock: Option<Arc<ManualClock>>,
    pub sink: Arc<RecordingSink>,
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
            None => Arc::new(SystemClock::new()),
        };
        let sink = RecordingSink::new("recorder");
        options.extra_sinks.push(sink.clone());
        let daemon = Daemon::start(options).await.unwrap();
        TestDaemon {
            dir,
            clock,
            sink,
            daemon: Some(daemon),
        }
    }

    pub fn socket(&self) -> PathBuf {
        self.daemon.as_ref().unwrap().socket_path().to_owned()
    }

    /// The daemon's actor tree, for what no socket method reaches yet.
    pub fn tree(&self) -> &Arc<actors::Tree> {
        self.daemon.as_ref().unwrap().tree()
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

    /// Registers `task` (task_register's params) and returns its id.
    pub async fn register(&self, task: Value) -> String {
        self.ok("task_register", task).await["task_id"]
            .as_str()
            .expect("task_register returns a task_id")
            .to_owned()
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
    /// Where its stderr goes (appended across restarts on the same folder).
    pub log: PathBuf,
}

impl DaemonProcess {
    /// Starts `lookout serve --config <dir>/config.toml` and waits until it answers.
    pub fn start(dir: &Path) -> DaemonProcess {
        Self::start_with(dir, "", &[])
    }

    /// The same with `extra` config lines and extra environment variables.
    pub fn start_with(dir: &Path, extra: &str, env: &[(&str, &str)]) -> DaemonProcess {
        let mut process = Self::spawn(dir, extra, env);
        process.wait_until_serving();
        process
    }

    /// Starts it under `wrapper` (a program that runs its arguments, such as `prlimit …`)
    /// and waits until it answers.
    pub fn start_wrapped(dir: &Path, extra: &str, wrapper: &[&str]) -> DaemonProcess {
        let mut process = Self::spawn_wrapped(dir, extra, &[], wrapper);
        process.wait_until_serving();
        process
    }

    /// Starts it without waiting (for start-up failures).
    pub fn spawn(dir: &Path, extra: &str, env: &[(&str, &str)]) -> DaemonProcess {
        Self::spawn_wrapped(dir, extra, env, &[])
    }

    fn spawn_wrapped(
        dir: &Path,
        extra: &str,
        env: &[(&str, &str)],
        wrapper: &[&str],
    ) -> DaemonProcess {
        let config_file = write_config(dir, extra);
        let log = dir.join("daemon.log");
        let log_file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        let mut command = match wrapper.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(BINARY);
                command
            }
            None => Command::new(BINARY),
        };
        let child = command
            .args(["serve", "--config"])
            .arg(&config_file)
            .env("LOOKOUT_LOG", "warn")
            // Not the machine's own OpenClaw, if it has one: a test names its gateway.
            .env("OPENCLAW_STATE_DIR", dir.join("no-openclaw"))
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .unwrap();
        DaemonProcess {
            child,
            socket: dir.join("lookout.sock"),
            log,
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn wait_until_serving(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if std::os::unix::net::UnixStream::connect(&self.socket).is_ok() {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the daemon exited early with {status}: {}", self.log_text());
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
        terminate(self.child.id());
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

/// Sends SIGTERM to `pid` (no `kill` program needed: procps is not on every machine).
pub fn terminate(pid: u32) {
    let pid = rustix::process::Pid::from_raw(pid as i32).expect("a child's pid is positive");
    rustix::process::kill_process(pid, rustix::process::Signal::TERM)
        .unwrap_or_else(|error| panic!("cannot send SIGTERM to {pid:?}: {error}"));
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

/// The lines a child writes to `stdout`, read on a thread of their own as they come.
pub fn lines_of(stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    lines
}

/// `npm install --prefix <prefix> <package>` from the npm registry, with `env` set (a PATH,
/// npm settings); panics saying how to get npm, or what npm said.
pub fn npm_install(prefix: &Path, package: &str, env: &[(&str, &std::ffi::OsStr)]) {
    std::fs::create_dir_all(prefix).unwrap();
    let npm = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(prefix)
        .arg(package)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|error| {
            panic!("cannot run npm ({error}); install it: apt-get install npm")
        });
    assert!(
        npm.status.success(),
        "npm could not install {package}: {}",
        String::from_utf8_lossy(&npm.stderr)
    );
}

/// `memory_recall` over the agent's own past sessions alone (`source: "transcript"`).
pub async fn recall_transcripts(client: &mut Client, query: &str) -> Value {
    ok(
        client,
        "memory_recall",
        serde_json::json!({"query": query, "source": "transcript"}),
    )
    .await
}

/// Makes `folder` with `make`, which fills the folder it is given: built aside and moved into
/// place, so a run that stops half-way leaves nothing used, and another test process that
/// made it first wins.
pub fn build_aside(folder: &Path, make: impl FnOnce(&Path)) {
    let building = folder.with_extension(format!("building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    make(&building);
    if std::fs::rename(&building, folder).is_err() {
        let _ = std::fs::remove_dir_all(&building);
    }
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

/// Runs the CLI with `args` and `input` piped to its stdin.
pub fn cli_with_stdin(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(BINARY)
        .args(args)
        .env("LOOKOUT_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
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

/// Writes an executable script into `dir` and returns its path.
pub fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Starts a wait through `client` (`smart_wait` with `params`) and returns its id.
pub async fn start_wait(client: &mut Client, params: Value) -> String {
    ok(client, "smart_wait", params).await["wait_id"]
        .as_str()
        .expect("smart_wait answers a wait_id")
        .to_owned()
}

/// One of `wait_status`'s counters for the wait (`captures`, `skipped_by_gate`, …).
pub async fn wait_counter(client: &mut Client, wait_id: &str, counter: &str) -> u64 {
    let status = ok(
        client,
        "wait_status",
        serde_json::json!({"wait_id": wait_id}),
    )
    .await;
    status["counters"][counter].as_u64().unwrap_or(0)
}

/// Polls until the wait's `counter` reaches `at_least` (`what` names it if it never does).
pub async fn until_wait_counter(
    client: &mut Client,
    wait_id: &str,
    counter: &str,
    at_least: u64,
    what: &str,
    timeout: Duration,
) {
    wait_until(what, timeout, async || {
        wait_counter(client, wait_id, counter).await >= at_least
    })
    .await;
}

/// Polls `check` every 20 ms until it holds or `timeout` passes.
pub async fn wait_until<F: AsyncFnMut() -> bool>(what: &str, timeout: Duration, mut check: F) {
    let deadline = Instant::now() + timeout;
    while !check().await {
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for: {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One HTTP request as the stub received it.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// A loopback HTTP/1.1 server that records every request and answers with a set status.
pub struct HttpStub {
    pub url: String,
    requests: Arc<std::sync::Mutex<Vec<RecordedRequest>>>,
}

impl HttpStub {
    pub async fn start(status: u16) -> HttpStub {
        Self::start_answering(status, false).await
    }

    /// The same, but a refusal quotes the request's `Authorization` header back, the way
    /// some servers name the key they refused: whatever lookout keeps of it must not leak.
    pub async fn start_echoing_credentials(status: u16) -> HttpStub {
        Self::start_answering(status, true).await
    }

    async fn start_answering(status: u16, echo_credentials: bool) -> HttpStub {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests: Arc<std::sync::Mutex<Vec<RecordedRequest>>> = Arc::default();
        let status = Arc::new(std::sync::atomic::AtomicU16::new(status));
        let (recorded, answer) = (requests.clone(), status);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (recorded, answer) = (recorded.clone(), answer.clone());
                tokio::spawn(async move {
                    if let Some(request) = read_request(stream, &answer, echo_credentials).await {
                        recorded.lock().unwrap().push(request);
                    }
                });
            }
        });
        HttpStub { url, requests }
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().unwrap().clone()
    }
}

async fn read_request(
    mut stream: tokio::net::TcpStream,
    answer: &std::sync::atomic::AtomicU16,
    echo_credentials: bool,
) -> Option<RecordedRequest> {
    use tokio::io::AsyncWriteExt;
    let actors::testkit::http::HttpRequest {
        method,
        path,
        headers,
        body,
    } = actors::testkit::http::read_request(&mut stream).await?;
    let status = answer.load(std::sync::atomic::Ordering::SeqCst);
    let credentials = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("authorization"))
        .map(|(_, value)| value.as_str());
    let reply_body = match (status < 300, credentials) {
        (true, _) => "{\"ok\":true}".to_owned(),
        (false, Some(credentials)) if echo_credentials => {
            serde_json::json!({"error": {"message": format!("invalid credentials: {credentials}")}})
                .to_string()
        }
        (false, _) => "{\"error\":\"sessionKey is not allowed\"}".to_owned(),
    };
    let response = format!(
        "HTTP/1.1 {status} Status\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply_body}",
        reply_body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    Some(RecordedRequest {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// Appends `line` and a newline to the file, creating it when missing.
pub fn append(path: &Path, line: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    writeln!(file, "{line}").unwrap();
}

/// A tmux server of the test's own (its socket in a temp TMUX_TMPDIR, shared with the daemon).
pub struct Tmux {
    dir: tempfile::TempDir,
}

impl Tmux {
    pub fn start(session: &str, command: &str) -> Tmux {
        let tmux = Tmux {
            dir: tempfile::tempdir().unwrap(),
        };
        tmux.new_session(session, command);
        tmux
    }

    /// Another session on this server.
    pub fn new_session(&self, session: &str, command: &str) {
        self.run(&[
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "120",
            "-y",
            "30",
            command,
        ]);
    }

    /// Runs `tmux <args>` on this server; the test fails unless it succeeds.
    pub fn run(&self, args: &[&str]) {
        let output = self.command().args(args).output().unwrap();
        assert!(
            output.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// What `tmux <args>` on this server prints.
    pub fn output(&self, args: &[&str]) -> String {
        let output = self.command().args(args).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command
            .env("TMUX_TMPDIR", self.dir.path())
            .env_remove("TMUX");
        command
    }

    pub fn tmpdir(&self) -> String {
        self.dir.path().display().to_string()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").status();
    }
}
