//! systemd integration against the real binary: the notify protocol over a real datagram
//! socket, the watchdog, socket activation, and `lookout service install | uninstall |
//! status` on a temp config home, with the units checked by `systemd-analyze verify`.

use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{BINARY, TestDaemon, stderr_of, terminate, wait_with_timeout, write_config};

/// The next notification, or `None` after `within`.
fn next_notification(socket: &UnixDatagram, within: Duration) -> Option<String> {
    socket.set_read_timeout(Some(within)).unwrap();
    let mut buffer = [0u8; 4096];
    match socket.recv(&mut buffer) {
        Ok(length) => Some(String::from_utf8_lossy(&buffer[..length]).into_owned()),
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            None
        }
        Err(error) => panic!("recv failed: {error}"),
    }
}

/// Reads notifications until one has `assignment` on a line of its own.
fn wait_for_assignment(socket: &UnixDatagram, assignment: &str, seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Some(message) = next_notification(socket, Duration::from_millis(200)) {
            let found = message.lines().any(|line| line == assignment);
            seen.push(message);
            if found {
                return;
            }
        }
    }
    panic!("no {assignment} within 20s; got {seen:?}");
}

/// `lookout` with a temp config home (and nothing of the caller's systemd), plus `args`.
fn lookout_in(config_home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BINARY);
    command
        .args(args)
        .env("XDG_CONFIG_HOME", config_home)
        .env("LOOKOUT_LOG", "error");
    command
}

fn output_of(command: &mut Command) -> (i32, String, String) {
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|folder| folder.join(name))
        .find(|candidate| candidate.is_file())
}

#[test]
fn the_real_binary_says_ready_pets_the_watchdog_and_says_stopping() {
    let dir = tempfile::tempdir().unwrap();
    let notify_path = dir.path().join("notify.sock");
    let manager = UnixDatagram::bind(&notify_path).unwrap();
    let config = write_config(dir.path(), "");
    let socket = dir.path().join("lookout.sock");
    let mut child = Command::new(BINARY)
        .args(["serve", "--config"])
        .arg(&config)
        .env("NOTIFY_SOCKET", &notify_path)
        .env("WATCHDOG_USEC", "200000")
        .env("LOOKOUT_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    let ready = next_notification(&manager, Duration::from_secs(20))
        .unwrap_or_else(|| panic!("no READY=1: {}", stderr_of(&mut child)));
    assert!(ready.lines().any(|line| line == "READY=1"), "{ready:?}");
    assert!(
        ready.contains(&format!("STATUS=serving on {}", socket.display())),
        "{ready:?}"
    );
    // READY=1 comes only once the socket listens.
    std::os::unix::net::UnixStream::connect(&socket).expect("the socket listens at READY=1");
    // A program started in a terminal session does not learn how to speak to systemd as
    // the service.
    let socket_arg = socket.to_str().unwrap();
    let (code, started, said) = output_of(&mut lookout_in(
        dir.path(),
        &[
            "--json",
            "--socket",
            socket_arg,
            "call",
            "term_start",
            r#"{"command": ["env"]}"#,
        ],
    ));
    assert_eq!(code, 0, "{said}");
    let started: serde_json::Value = serde_json::from_str(&started).unwrap();
    let read = serde_json::json!({"session_id": started["session_id"]}).to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    let environment = loop {
        let (_, output, _) = output_of(&mut lookout_in(
            dir.path(),
            &["--json", "--socket", socket_arg, "call", "term_read", &read],
        ));
        if output.contains("TERM=") || Instant::now() > deadline {
            break output;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(environment.contains("TERM="), "{environment}");
    assert!(!environment.contains("NOTIFY_SOCKET"), "{environment}");
    assert!(!environment.contains("WATCHDOG_USEC"), "{environment}");

    let mut seen = vec![ready];
    // Pets sent while the session above was read wait in the socket: they are let go, so
    // the three counted were all sent after `started`.
    let started = Instant::now();
    while let Some(queued) = next_notification(&manager, Duration::from_millis(1)) {
        seen.push(queued);
    }
    for _ in 0..3 {
        wait_for_assignment(&manager, "WATCHDOG=1", &mut seen);
    }
    let elapsed = started.elapsed();
    // Pets at half of 200 ms, never closer (missed ticks are delayed, not burst): three
    // sent after `started` take at least two intervals, however slow the machine.
    assert!(
        elapsed >= Duration::from_millis(200) && elapsed < Duration::from_secs(5),
        "three pets took {elapsed:?}"
    );

    terminate(child.id());
    wait_for_assignment(&manager, "STOPPING=1", &mut seen);
    let status = wait_with_timeout(&mut child, Duration::from_secs(20));
    assert!(status.success(), "{status}");
    assert!(
        seen.iter().all(|m| !m.contains("READY=1") || m == &seen[0]),
        "READY=1 is sent once: {seen:?}"
    );
}

#[test]
fn without_notify_socket_the_daemon_runs_as_in_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "");
    // WATCHDOG_USEC without NOTIFY_SOCKET: nothing to pet, nothing to fail.
    let mut child = Command::new(BINARY)
        .args(["serve", "--config"])
        .arg(&config)
        .env_remove("NOTIFY_SOCKET")
        .env("WATCHDOG_USEC", "200000")
        .env("LOOKOUT_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let socket = dir.path().join("lookout.sock");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(
            Instant::now() < deadline,
            "no socket: {}",
            stderr_of(&mut child)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    terminate(child.id());
    assert!(wait_with_timeout(&mut child, Duration::from_secs(20)).success());
    let stderr = stderr_of(&mut child);
    assert!(!stderr.contains("WARN"), "{stderr}");
}

#[test]
fn service_install_writes_a_unit_that_runs_this_binary() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, err) =
        output_of(lookout_in(home.path(), &["service", "install"]).env("PATH", ""));
    assert_eq!(code, 0, "{err}");
    let unit_file = home.path().join("systemd/user/lookout.service");
    let unit = std::fs::read_to_string(&unit_file).unwrap();
    let binary = Path::new(BINARY).canonicalize().unwrap();
    assert!(
        unit.lines()
            .any(|line| line == format!("ExecStart={} serve", binary.display())),
        "{unit}"
    );
    for line in [
        "Type=notify",
        "NotifyAccess=main",
        "Restart=on-failure",
        "WatchdogSec=30",
        "Environment=MALLOC_ARENA_MAX=2",
    ] {
        assert!(unit.lines().any(|l| l == line), "{line} missing:\n{unit}");
    }
    assert!(
        out.contains(&format!("Wrote {}", unit_file.display())),
        "{out}"
    );
    assert!(out.contains("systemctl --user daemon-reload"), "{out}");
    assert!(
        out.contains("systemctl --user enable --now lookout.service"),
        "{out}"
    );
    assert!(
        out.contains("systemctl --user import-environment DISPLAY XAUTHORITY"),
        "{out}"
    );
    assert!(out.contains("journalctl --user -u lookout"), "{out}");
    assert!(!home.path().join("systemd/user/lookout.socket").exists());

    let (code, out, _) =
        output_of(lookout_in(home.path(), &["service", "install"]).env("PATH", ""));
    assert_eq!(code, 0);
    assert!(out.contains("Unchanged:"), "{out}");

    let (code, out, err) =
        output_of(lookout_in(home.path(), &["service", "uninstall"]).env("PATH", ""));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("Removed {}", unit_file.display())),
        "{out}"
    );
    assert!(!unit_file.exists());
}

#[test]
fn service_install_now_runs_systemctl_when_it_is_there() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = home.path().join("systemctl.log");
    let fake = bin.join("systemctl");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\necho \"$*\" >> '{}'\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let (code, out, err) = output_of(
        lookout_in(
            home.path(),
            &["service", "install", "--now", "--socket-activation"],
        )
        .env("PATH", &bin),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(home.path().join("systemd/user/lookout.socket").exists());
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        calls,
        "--user daemon-reload\n--user enable --now lookout.socket\n"
    );

    std::fs::remove_file(&log).unwrap();
    let (code, _, err) =
        output_of(lookout_in(home.path(), &["service", "uninstall", "--now"]).env("PATH", &bin));
    assert_eq!(code, 0, "{err}");
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        calls,
        "--user disable --now lookout.service lookout.socket\n--user daemon-reload\n"
    );

    // Without systemctl, --now says what to run instead and fails.
    let (code, out, _) = output_of(
        lookout_in(home.path(), &["service", "install", "--now"])
            .env("PATH", home.path().join("empty")),
    );
    assert_eq!(code, 1);
    assert!(out.contains("systemctl is not on PATH"), "{out}");
    assert!(
        out.contains("systemctl --user enable --now lookout.service"),
        "{out}"
    );
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs systemd-analyze"
)]
fn the_installed_units_pass_systemd_analyze_verify() {
    // .ci/run installs it; a machine without it fails here rather than passing unchecked.
    let analyze = find_program("systemd-analyze")
        .expect("systemd-analyze is not installed: apt-get install systemd");
    let home = tempfile::tempdir().unwrap();
    let (code, _, err) = output_of(
        lookout_in(home.path(), &["service", "install", "--socket-activation"]).env("PATH", ""),
    );
    assert_eq!(code, 0, "{err}");
    let runtime = home.path().join("runtime");
    std::fs::create_dir(&runtime).unwrap();
    std::fs::set_permissions(
        &runtime,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let units = home.path().join("systemd/user");
    let (code, out, err) = output_of(
        Command::new(analyze)
            .args(["--user", "verify"])
            .arg(units.join("lookout.service"))
            .arg(units.join("lookout.socket"))
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("XDG_CONFIG_HOME", home.path()),
    );
    // Unknown keys and bad values are only warnings, so any output is a failure too.
    assert_eq!(
        (code, out.trim(), err.trim()),
        (0, "", ""),
        "systemd-analyze verify complained"
    );
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs systemd-socket-activate"
)]
fn socket_activation_serves_on_the_socket_systemd_passed() {
    // .ci/run installs it; a machine without it fails here rather than passing unchecked.
    let activate = find_program("systemd-socket-activate")
        .expect("systemd-socket-activate is not installed: apt-get install systemd");
    let dir = tempfile::tempdir().unwrap();
    // The config names another socket: the passed one must win.
    let config = write_config(dir.path(), "");
    let passed = dir.path().join("activated.sock");
    let mut activator = Command::new(activate)
        .arg("--listen")
        .arg(&passed)
        .arg(BINARY)
        .args(["serve", "--config"])
        .arg(&config)
        .env("LOOKOUT_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !passed.exists() {
        assert!(
            Instant::now() < deadline,
            "the activator did not listen: {}",
            stderr_of(&mut activator)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The first connection starts the daemon, which answers on the passed socket.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let status = runtime.block_on(async {
        let mut client = lookout::client::Client::connect(&passed).await.unwrap();
        client
            .call("daemon.status", json!({}))
            .await
            .unwrap()
            .unwrap()
    });
    assert_eq!(status["socket"], json!(passed), "{status}");
    assert!(
        !dir.path().join("lookout.sock").exists(),
        "the configured socket is not bound when one was passed"
    );
    // The activator execs the daemon in its own process.
    terminate(activator.id());
    let exit = wait_with_timeout(&mut activator, Duration::from_secs(20));
    assert!(exit.success(), "{exit}: {}", stderr_of(&mut activator));
    assert!(
        passed.exists(),
        "the socket belongs to systemd and outlives the daemon"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_status_reports_the_unit_systemd_and_the_daemon() {
    let daemon = TestDaemon::start().await;
    let home = tempfile::tempdir().unwrap();
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let (code, out, _) = output_of(
        lookout_in(home.path(), &["--socket", socket, "service", "status"]).env("PATH", ""),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("unit:    not installed"), "{out}");
    assert!(out.contains("systemctl is not on PATH"), "{out}");
    assert!(out.contains(&format!("serving on {socket}")), "{out}");

    output_of(lookout_in(home.path(), &["service", "install"]).env("PATH", ""));
    let (_, out, _) = output_of(
        lookout_in(home.path(), &["--socket", socket, "service", "status"]).env("PATH", ""),
    );
    assert!(out.contains(": this binary)"), "{out}");

    // The same facts as one JSON object.
    let (code, out, err) = output_of(
        lookout_in(
            home.path(),
            &["--socket", socket, "--json", "service", "status"],
        )
        .env("PATH", ""),
    );
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["unit"]["this_binary"], true, "{report}");
    assert_eq!(report["socket_unit"], serde_json::Value::Null);
    assert_eq!(
        report["systemd"],
        serde_json::Value::Null,
        "no systemctl on PATH"
    );
    assert_eq!(report["daemon"]["socket"], socket, "{report}");

    drop(daemon.stop().await);
    let (code, out, _) = output_of(
        lookout_in(home.path(), &["--socket", socket, "service", "status"]).env("PATH", ""),
    );
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("lookout serve"), "{out}");
}

/// `--config` given to `service install` goes into the unit, as an absolute path, so the
/// service reads what the user installed it with.
#[test]
fn service_install_keeps_the_config_it_was_given() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("work config.toml");
    std::fs::write(&config, "log_level = \"info\"\n").unwrap();
    let (code, out, err) = output_of(
        lookout_in(
            home.path(),
            &["--config", config.to_str().unwrap(), "service", "install"],
        )
        .env("PATH", ""),
    );
    assert_eq!(code, 0, "{err}");
    let unit = std::fs::read_to_string(home.path().join("systemd/user/lookout.service")).unwrap();
    let binary = Path::new(BINARY).canonicalize().unwrap();
    let expected = format!(
        "ExecStart={} serve --config \"{}\"",
        binary.display(),
        config.canonicalize().unwrap().display()
    );
    assert!(unit.lines().any(|line| line == expected), "{unit}");
    assert!(out.contains("serve --config"), "{out}");
}
