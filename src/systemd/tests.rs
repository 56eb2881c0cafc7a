//! Unit tests of the systemd pieces against real datagram sockets and real files.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::Notifier;
use super::unit::{self, Written};
use super::watchdog::{interval_from, pet_while_alive};

fn receive(socket: &UnixDatagram, within: Duration) -> Option<String> {
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

#[test]
fn notifications_reach_a_path_socket() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notify");
    let manager = UnixDatagram::bind(&path).unwrap();
    let notifier = Notifier::connect(path.as_os_str()).unwrap();
    notifier.notify("READY=1\nSTATUS=serving").unwrap();
    assert_eq!(
        receive(&manager, Duration::from_secs(5)).as_deref(),
        Some("READY=1\nSTATUS=serving")
    );
}

#[test]
fn notifications_reach_an_abstract_socket() {
    let name = format!("lookout-test-notify-{}", std::process::id());
    let manager =
        UnixDatagram::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap()).unwrap();
    let notifier = Notifier::connect(format!("@{name}").as_ref()).unwrap();
    notifier.notify("STOPPING=1").unwrap();
    assert_eq!(
        receive(&manager, Duration::from_secs(5)).as_deref(),
        Some("STOPPING=1")
    );
}

#[test]
fn a_missing_notify_socket_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let notifier = Notifier::connect(dir.path().join("nobody").as_os_str()).unwrap();
    assert!(notifier.notify("READY=1").is_err());
}

#[test]
fn the_watchdog_interval_is_half_of_watchdog_usec_for_this_process() {
    let half = Some(Duration::from_millis(15_000));
    assert_eq!(interval_from(Some("30000000"), None, 42), half);
    assert_eq!(interval_from(Some("30000000"), Some("42"), 42), half);
    assert_eq!(interval_from(Some("30000000"), Some(""), 42), half);
    assert_eq!(
        interval_from(Some("30000000"), Some("43"), 42),
        None,
        "another process's watchdog"
    );
    assert_eq!(interval_from(Some("0"), None, 42), None);
    assert_eq!(interval_from(Some("soon"), None, 42), None);
    assert_eq!(interval_from(None, Some("42"), 42), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watchdog_is_petted_only_while_the_ping_answers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notify");
    let manager = UnixDatagram::bind(&path).unwrap();
    let notifier = Notifier::connect(path.as_os_str()).unwrap();
    let wedged = Arc::new(AtomicBool::new(false));
    let interval = Duration::from_millis(20);
    let ping_state = wedged.clone();
    let watchdog = tokio::spawn(pet_while_alive(notifier, interval, move || {
        let wedged = ping_state.load(Ordering::SeqCst);
        async move {
            if wedged {
                // A wedged tree: the ping never comes back.
                std::future::pending::<()>().await;
            }
            Ok(())
        }
    }));

    let manager = tokio::task::spawn_blocking(move || {
        for _ in 0..3 {
            assert_eq!(
                receive(&manager, Duration::from_secs(5)).as_deref(),
                Some("WATCHDOG=1")
            );
        }
        manager
    })
    .await
    .unwrap();
    wedged.store(true, Ordering::SeqCst);
    let manager = tokio::task::spawn_blocking(move || {
        // At most one ping was already under way when the tree wedged.
        while receive(&manager, interval * 4).is_some() {}
        // Then nothing for many intervals: a silence that systemd turns into a restart.
        assert_eq!(receive(&manager, interval * 15), None);
        manager
    })
    .await
    .unwrap();
    wedged.store(false, Ordering::SeqCst);
    tokio::task::spawn_blocking(move || {
        // The ping that hung is abandoned after one interval; the next one answers.
        assert_eq!(
            receive(&manager, Duration::from_secs(5)).as_deref(),
            Some("WATCHDOG=1")
        );
    })
    .await
    .unwrap();
    watchdog.abort();
}

#[test]
fn the_service_unit_runs_this_binary_with_the_contract_settings() {
    let text = unit::service_unit(Path::new("/opt/lookout/bin/lookout"), None);
    for line in [
        "Type=notify",
        "NotifyAccess=main",
        "ExecStart=/opt/lookout/bin/lookout serve",
        "Restart=on-failure",
        "WatchdogSec=30",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    assert_eq!(text.matches("ExecStart=").count(), 1);
    assert!(unit::SOCKET_UNIT.contains("ListenStream=%t/lookout/lookout.sock"));
}

#[test]
fn unusual_binary_paths_are_quoted_for_systemd_and_read_back() {
    for path in [
        "/opt/lookout/bin/lookout",
        "/home/a b/.cargo/bin/lookout",
        "/srv/100%/lookout",
        "/srv/$HOME/\"odd\"/lookout",
    ] {
        let text = unit::service_unit(Path::new(path), None);
        assert_eq!(
            unit::exec_start_program(&text).as_deref(),
            Some(path),
            "{text}"
        );
    }
    let spaced = unit::service_unit(Path::new("/home/a b/lookout"), None);
    assert!(
        spaced.contains("ExecStart=\"/home/a b/lookout\" serve"),
        "{spaced}"
    );
    let percent = unit::service_unit(Path::new("/srv/100%/lookout"), None);
    assert!(
        percent.contains("ExecStart=/srv/100%%/lookout serve"),
        "{percent}"
    );
}

#[test]
fn the_service_reads_the_config_it_was_installed_with() {
    let text = unit::service_unit(
        Path::new("/usr/bin/lookout"),
        Some(Path::new("/home/a b/.config/lookout/work.toml")),
    );
    assert!(
        text.lines().any(|line| line
            == "ExecStart=/usr/bin/lookout serve --config \"/home/a b/.config/lookout/work.toml\""),
        "{text}"
    );
    assert_eq!(
        unit::exec_start_program(&text).as_deref(),
        Some("/usr/bin/lookout")
    );
}

#[test]
fn install_writes_updates_and_uninstall_removes_the_units() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("systemd/user");
    let first = unit::install(&folder, Path::new("/usr/bin/lookout"), None, false).unwrap();
    assert_eq!(first, [Written::Created(folder.join("lookout.service"))]);
    let again = unit::install(&folder, Path::new("/usr/bin/lookout"), None, true).unwrap();
    assert_eq!(
        again,
        [
            Written::Unchanged(folder.join("lookout.service")),
            Written::Created(folder.join("lookout.socket")),
        ]
    );
    let moved = unit::install(&folder, Path::new("/opt/lookout"), None, false).unwrap();
    assert_eq!(moved, [Written::Updated(folder.join("lookout.service"))]);
    assert_eq!(unit::installed(&folder).len(), 2);
    // What `systemctl --user enable` leaves behind goes too.
    let wants = folder.join("default.target.wants");
    std::fs::create_dir(&wants).unwrap();
    std::os::unix::fs::symlink(
        folder.join("lookout.service"),
        wants.join("lookout.service"),
    )
    .unwrap();
    let removed = unit::uninstall(&folder).unwrap();
    assert_eq!(
        removed,
        [
            folder.join("lookout.service"),
            folder.join("lookout.socket")
        ]
    );
    assert!(!wants.join("lookout.service").is_symlink());
    assert!(unit::uninstall(&folder).unwrap().is_empty());
}
