//! What a local file, a clock jump or a greedy client must not do to the daemon: each test
//! here is one way to wedge, hijack or exhaust it, tried against the real binary.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use lookout::client::Client;
use serde_json::json;

use crate::support::{DaemonProcess, err, ok, wait_until};

const PATIENCE: Duration = Duration::from_secs(20);

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A `file:` target that is a FIFO is refused with what to do instead; one that turns into a
/// FIFO after the wait started ends the wait in `error` instead of hanging a thread on the
/// open; and the daemon still stops promptly on SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_is_refused_and_never_hangs_the_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();

    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let refused = err(
        &mut client,
        "smart_wait",
        json!({"target": format!("file:{}", fifo.display()), "wake_when": "'DONE'"}),
    )
    .await;
    assert!(refused.message.contains("named pipe"), "{refused:?}");
    assert!(refused.hint.contains("tee"), "{refused:?}");

    // Not there yet, so accepted; then a FIFO appears under that name.
    let later = dir.path().join("later.log");
    let wait_id = watch_for_done(&mut client, &later, 600).await;
    mkfifo(&later);
    let mut ended = json!(null);
    wait_until("the wait on the FIFO ends in error", PATIENCE, async || {
        ended = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
        ended["status"] == "error"
    })
    .await;
    let said = ended.to_string();
    assert!(said.contains("named pipe"), "{said}");
    // The database still answers (its threads are not the ones a target holds).
    ok(&mut client, "daemon.status", json!({})).await;
    drop(client);
    let status = daemon.terminate();
    assert!(status.success(), "{status}");
}

/// The uid another local user runs as in these tests.
const OTHER_UID: u32 = 65534;

fn chown(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(uid)).unwrap();
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The user's own lookout, run with no runtime folder so the socket falls back to
/// `lookout-$UID` in the shared temp folder `tmp`.
fn lookout_without_runtime_dir(home: &Path, tmp: &Path) -> Command {
    let mut command = Command::new(crate::support::BINARY);
    command
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("LOOKOUT_CONFIG")
        .env("HOME", home)
        .env("TMPDIR", tmp)
        .env("LOOKOUT_LOG", "error")
        .env("OPENCLAW_STATE_DIR", home.join("no-openclaw"));
    command
}

/// With no `XDG_RUNTIME_DIR`, another user who creates `lookout-$UID` in the shared temp
/// folder first and listens in it can neither keep the daemon from refusing loudly nor get a
/// word out of the user's clients: the daemon refuses the folder it does not own, and the
/// CLI and the hook check who listens before they send anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs root and setpriv (it acts as a second user)"
)]
async fn another_user_cannot_stand_in_for_the_daemon() {
    let own_uid = lookout::config::paths::current_uid();
    assert_eq!(
        own_uid, 0,
        "this test acts as a second user through setpriv, which needs root (CI runs as root)"
    );
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    chmod(&tmp, 0o1777);

    // The other user: its own copy of the binary, a home, and the squatted folder.
    let binary = dir.path().join("lookout-copy");
    std::fs::copy(crate::support::BINARY, &binary).unwrap();
    chmod(&binary, 0o755);
    let attacker_home = dir.path().join("attacker");
    std::fs::create_dir(&attacker_home).unwrap();
    chown(&attacker_home, OTHER_UID);
    let squat = tmp.join(format!("lookout-{own_uid}"));
    std::fs::create_dir(&squat).unwrap();
    chmod(&squat, 0o700);
    chown(&squat, OTHER_UID);
    let attacker_config = attacker_home.join("config.toml");
    std::fs::write(
        &attacker_config,
        format!(
            "data_dir = {:?}\nsocket_path = {:?}\n",
            attacker_home.join("data"),
            squat.join("lookout.sock")
        ),
    )
    .unwrap();
    chown(&attacker_config, OTHER_UID);
    let mut attacker = Command::new("setpriv")
        .args([
            "--reuid",
            &OTHER_UID.to_string(),
            "--regid",
            &OTHER_UID.to_string(),
            "--clear-groups",
            "--",
        ])
        .arg(&binary)
        .args(["serve", "--config"])
        .arg(&attacker_config)
        .env("HOME", &attacker_home)
        .env("OPENCLAW_STATE_DIR", attacker_home.join("no-openclaw"))
        .env_remove("XDG_RUNTIME_DIR")
        .env("LOOKOUT_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let squatted_socket = squat.join("lookout.sock");
    wait_until("the other user's daemon listens", PATIENCE, async || {
        std::os::unix::net::UnixStream::connect(&squatted_socket).is_ok()
    })
    .await;
    chmod(&squat, 0o777);
    // Something the other user would like to read: it must never arrive.
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();

    // The user's daemon refuses the folder, saying whose it is.
    let started = lookout_without_runtime_dir(&home, &tmp)
        .arg("serve")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&started.stderr);
    assert!(!started.status.success(), "{said}");
    assert!(
        said.contains(&format!("belongs to uid {OTHER_UID}")),
        "{said}"
    );

    // The CLI refuses to send anything to the squatter.
    let listed = lookout_without_runtime_dir(&home, &tmp)
        .args([
            "task",
            "register",
            "secret: the deploy key is in ~/keys",
            "--step",
            "deploy",
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&listed.stderr);
    assert!(!listed.status.success(), "{said}");
    assert!(said.contains("refusing to talk to"), "{said}");
    assert!(said.contains(&format!("uid {OTHER_UID}")), "{said}");

    // The hook tells Claude Code why task memory is unavailable, not what the squatter says.
    let hooked = lookout_without_runtime_dir(&home, &tmp)
        .args(["hook", "session-start"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let told = String::from_utf8_lossy(&hooked.stdout);
    assert!(told.contains("refusing to talk to"), "{told}");
    assert!(told.contains("nothing was sent"), "{told}");

    // Nothing reached the squatter's daemon: asked as its own user, it has no task.
    let asked = Command::new("setpriv")
        .args([
            "--reuid",
            &OTHER_UID.to_string(),
            "--regid",
            &OTHER_UID.to_string(),
            "--clear-groups",
            "--",
        ])
        .arg(&binary)
        .args(["--json", "--socket"])
        .arg(&squatted_socket)
        .args(["task", "list", "--status", "all"])
        .env("HOME", &attacker_home)
        .env("LOOKOUT_LOG", "error")
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&asked.stdout);
    assert!(asked.status.success(), "{listed}");
    assert!(listed.contains("\"tasks\""), "{listed}");
    assert!(!listed.contains("secret"), "{listed}");
    let _ = attacker.kill();
    let _ = attacker.wait();
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Runs its arguments under umask 022, the usual one that made the data world-readable.
const UNDER_UMASK_022: [&str; 3] = ["sh", "-c", "umask 022; exec \"$0\" \"$@\""];

/// Under umask 022 the data folder is made 0700 and the database 0600, so another user
/// cannot read a note out of the file; a folder and file loosened later are tightened at the
/// next start, and the log says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs root and setpriv (it acts as a second user)"
)]
async fn the_data_is_private_to_its_user() {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let data = dir.path().join("data");
    let file = data.join("lookout.redb");
    let daemon = DaemonProcess::start_wrapped(dir.path(), "", &UNDER_UMASK_022);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    ok(&mut client, "task_register", crate::support::deploy_task()).await;
    assert_eq!(mode_of(&data), 0o700);
    assert_eq!(mode_of(&file), 0o600);
    let peek = Command::new("setpriv")
        .args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            "--",
        ])
        .arg("cat")
        .arg(&file)
        .output()
        .unwrap();
    assert!(!peek.status.success(), "another user read the database");
    drop(client);
    let log = daemon.log_text();
    assert!(
        !log.contains("made the data private"),
        "a file just made is no news: {log}"
    );
    assert!(daemon.terminate().success());

    chmod(&data, 0o755);
    chmod(&file, 0o644);
    let daemon = DaemonProcess::start_wrapped(dir.path(), "", &UNDER_UMASK_022);
    assert_eq!(mode_of(&data), 0o700);
    assert_eq!(mode_of(&file), 0o600);
    let log = daemon.log_text();
    assert!(log.contains("made the data private"), "{log}");
    assert!(log.contains("it is now 600"), "{log}");
}

/// An empty database file (a disk that filled up, a copy cut short) is refused like any
/// damaged file, with how to recover, and left as it was.
#[test]
fn an_empty_database_file_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let file = data.join("lookout.redb");
    std::fs::write(&file, b"").unwrap();
    let mut daemon = DaemonProcess::spawn(dir.path(), "", &[]);
    let status = crate::support::wait_with_timeout(&mut daemon.child, PATIENCE);
    assert!(!status.success());
    let log = daemon.log_text();
    assert!(log.contains("is empty (0 bytes)"), "{log}");
    assert!(log.contains(".empty"), "{log}");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 0);
}

/// `lookout doctor` refuses to touch the file while the daemon has it, then checks it and
/// copies every record out once the daemon is stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_doctor_checks_the_file_and_copies_it_out() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let task_id = ok(&mut client, "task_register", crate::support::deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok(
        &mut client,
        "task_update",
        json!({"task_id": task_id, "message": "pushed the image"}),
    )
    .await;
    let config = dir.path().join("config.toml");
    let config = config.to_str().unwrap();
    let (code, _, said) = crate::support::cli(&["doctor", "--config", config]);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("stop it first"), "{said}");
    drop(client);
    assert!(daemon.terminate().success());

    let (code, out, said) = crate::support::cli(&["--json", "doctor", "--config", config]);
    assert_eq!(code, 0, "{said}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["healthy"], true, "{report}");
    assert_eq!(report["integrity"], "sound", "{report}");
    assert_eq!(report["copied"]["tasks"], 1, "{report}");
    let rescue = std::fs::read_to_string(report["rescue_file"].as_str().unwrap()).unwrap();
    assert!(rescue.contains("pushed the image"), "{rescue}");
    assert!(rescue.contains(&task_id), "{rescue}");
}

/// libfaketime's preload library for threaded programs, installed by `.ci/run`.
fn libfaketime() -> std::path::PathBuf {
    std::fs::read_dir("/usr/lib")
        .unwrap()
        .flatten()
        .map(|entry| entry.path().join("faketime/libfaketimeMT.so.1"))
        .chain([std::path::PathBuf::from(
            "/usr/lib/faketime/libfaketimeMT.so.1",
        )])
        .find(|candidate| candidate.exists())
        .expect("libfaketime is not installed: apt-get install faketime")
}

/// The real binary under libfaketime, its wall clock set forward a day and then back an hour
/// while it runs: a one-hour wait neither times out nor freezes (it resolves when its line
/// comes), a task registered seconds before is not called stuck, and the log tells of the
/// jump.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs libfaketime"
)]
async fn a_wall_clock_that_jumps_moves_no_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let fake_time = dir.path().join("fake-time");
    std::fs::write(&fake_time, "+0\n").unwrap();
    let library = libfaketime();
    let daemon = DaemonProcess::start_with(
        dir.path(),
        "[stuck]\nthreshold_s = 600\nscan_interval_s = 1\n",
        &[
            ("LD_PRELOAD", library.to_str().unwrap()),
            ("FAKETIME_TIMESTAMP_FILE", fake_time.to_str().unwrap()),
            ("FAKETIME_NO_CACHE", "1"),
            ("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
        ],
    );
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    ok(&mut client, "task_register", crate::support::deploy_task()).await;
    let log = dir.path().join("build.log");
    std::fs::write(&log, "starting\n").unwrap();
    let wait_id = watch_for_done(&mut client, &log, 3600).await;

    std::fs::write(&fake_time, "+1d\n").unwrap();
    wait_until("the jump is noticed", PATIENCE, async || {
        daemon.log_text().contains("the system clock was set")
    })
    .await;
    let scans_after_jump = ok(&mut client, "daemon.status", json!({})).await["stuck"]["scans"]
        .as_u64()
        .unwrap();
    wait_until("two more stuck scans", PATIENCE, async || {
        let status = ok(&mut client, "daemon.status", json!({})).await;
        status["stuck"]["scans"].as_u64().unwrap() >= scans_after_jump + 2
    })
    .await;
    let status = ok(&mut client, "daemon.status", json!({})).await;
    assert_eq!(status["stuck"]["alerts"], 0, "{status}");
    let watching = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
    assert_eq!(watching["status"], "watching", "{watching}");

    std::fs::write(&fake_time, "-1h\n").unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    crate::support::append(&log, "DONE");
    let mut ended = json!(null);
    wait_until("the wait resolves", PATIENCE, async || {
        ended = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
        ended["status"] != "watching"
    })
    .await;
    assert_eq!(ended["status"], "resolved", "{ended}");
}

/// A wall clock corrected while the daemon was down moves no deadline: within one boot, a
/// restarted daemon counts the time a wait had left on the machine's steady clock. The
/// real binary under libfaketime, killed, started two days ahead, killed, started a day
/// behind: the one-hour wait is still watching with under an hour left, and resolves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs libfaketime"
)]
async fn a_wall_clock_corrected_while_the_daemon_was_down_moves_no_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let fake_time = dir.path().join("fake-time");
    std::fs::write(&fake_time, "+0\n").unwrap();
    let library = libfaketime();
    let env = [
        ("LD_PRELOAD", library.to_str().unwrap()),
        ("FAKETIME_TIMESTAMP_FILE", fake_time.to_str().unwrap()),
        ("FAKETIME_NO_CACHE", "1"),
        ("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
    ];
    let daemon = DaemonProcess::start_with(dir.path(), "", &env);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let log = dir.path().join("build.log");
    std::fs::write(&log, "starting\n").unwrap();
    let wait_id = watch_for_done(&mut client, &log, 3600).await;
    drop(client);
    daemon.kill();
    for shift in ["+2d", "-1d"] {
        std::fs::write(&fake_time, format!("{shift}\n")).unwrap();
        let daemon = DaemonProcess::start_with(dir.path(), "", &env);
        let mut client = Client::connect(&daemon.socket).await.unwrap();
        let status = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
        assert_eq!(status["status"], "watching", "{shift}: {status}");
        let left = status["remaining_s"].as_u64().unwrap();
        assert!(
            (3000..=3600).contains(&left),
            "{shift}: {left}s left: {status}"
        );
        drop(client);
        daemon.kill();
    }
    std::fs::write(&fake_time, "+0\n").unwrap();
    let daemon = DaemonProcess::start_with(dir.path(), "", &env);
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    crate::support::append(&log, "DONE");
    let mut ended = json!(null);
    wait_until("the wait resolves", PATIENCE, async || {
        ended = ok(&mut client, "wait_status", json!({"wait_id": wait_id})).await;
        ended["status"] != "watching"
    })
    .await;
    assert_eq!(ended["status"], "resolved", "{ended}");
}

/// A wait for `'DONE'` in the file at `path`, looked at every 0.2 s; its id.
async fn watch_for_done(client: &mut Client, path: &Path, timeout_s: u64) -> String {
    ok(
        client,
        "smart_wait",
        json!({"target": format!("file:{}", path.display()), "wake_when": "'DONE'",
               "poll_interval": 0.2, "timeout": timeout_s}),
    )
    .await["wait_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A write journal zeroed after a crash is damage the daemon will not start on: it says so
/// and how to recover, and changes no file; `lookout doctor` reports it (exit 1), sets the
/// journal aside, and the daemon starts again, handing out no id twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_journal_stops_the_start_until_the_doctor_salvages_it() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let task_id = ok(&mut client, "task_register", crate::support::deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    drop(client);
    daemon.kill();
    let journal = dir.path().join("data").join("lookout.journal");
    let zeros = vec![0; std::fs::metadata(&journal).unwrap().len() as usize];
    std::fs::write(&journal, &zeros).unwrap();

    let mut refused = DaemonProcess::spawn(dir.path(), "", &[]);
    let status = crate::support::wait_with_timeout(&mut refused.child, PATIENCE);
    assert!(!status.success());
    let log = refused.log_text();
    assert!(
        log.contains("write journal") && log.contains("is zeroed"),
        "{log}"
    );
    assert!(log.contains("lookout doctor"), "{log}");
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        zeros,
        "the journal is kept as it was"
    );

    let config = dir.path().join("config.toml");
    let config = config.to_str().unwrap();
    let (code, out, said) = crate::support::cli(&["doctor", "--config", config]);
    assert_eq!(code, 1, "{out}{said}");
    assert!(
        out.contains("The write journal was damaged: it is zeroed"),
        "{out}"
    );
    assert!(out.contains("set aside as"), "{out}");
    assert!(
        dir.path()
            .join("data")
            .join("lookout.journal.damaged")
            .exists()
    );

    // The task was acknowledged only through the journal (the file had not caught up when
    // the daemon was killed): it is lost, as the doctor said, and its id is not given out
    // again.
    let daemon = DaemonProcess::start(dir.path());
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let again = ok(&mut client, "task_register", crate::support::deploy_task()).await;
    assert_ne!(again["task_id"], task_id.as_str(), "{again}");
    drop(client);
    assert!(daemon.terminate().success());
    // A second doctor run keeps the first rescue copy and writes a new one.
    let (code, out, said) = crate::support::cli(&["--json", "doctor", "--config", config]);
    assert_eq!(code, 0, "{out}{said}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        report["rescue_file"]
            .as_str()
            .unwrap()
            .ends_with(".rescue-2.jsonl"),
        "{report}"
    );
}
