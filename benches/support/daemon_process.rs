//! The real `lookout serve` binary as a bench's child process on a temp folder, so that its
//! CPU time and resident memory are its own.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_lookout");

/// Starts the daemon with its data and socket (`lookout.sock`) in `dir`, warnings only,
/// `extra_config` appended to its config file; returns once the socket accepts connections.
#[allow(dead_code)] // a bench that sets the daemon's environment calls start_daemon_with
pub fn start_daemon(dir: &Path, extra_config: &str, stderr: Stdio) -> Child {
    start_daemon_with(dir, extra_config, stderr, &[])
}

/// The same with `env` set for the daemon (a private tmux server's `TMUX_TMPDIR`).
pub fn start_daemon_with(
    dir: &Path,
    extra_config: &str,
    stderr: Stdio,
    env: &[(&str, &Path)],
) -> Child {
    let config = dir.join("config.toml");
    let text = format!(
        "data_dir = {:?}\nsocket_path = {:?}\nlog_level = \"warn\"\n{extra_config}",
        dir.join("data"),
        dir.join("lookout.sock")
    );
    std::fs::write(&config, text).unwrap();
    let child = Command::new(BINARY)
        .args(["serve", "--config"])
        .arg(&config)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::os::unix::net::UnixStream::connect(dir.join("lookout.sock")).is_err() {
        assert!(Instant::now() < deadline, "the daemon did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}
