//! A private headless sway for the Wayland tests and benchmarks: wlroots' headless backend
//! and pixman renderer (no GPU, no input devices) on a runtime folder of its own, and foot
//! terminal windows with known titles in it.
//!
//! sway refuses to run as root, so when the tests run as root (CI does) sway and its windows
//! run as `nobody` through `setpriv`; the daemon under test, as root, can still reach the
//! sockets. Needs `sway`, `foot` and `setpriv` (`.ci/run` installs them); a missing one
//! fails the test loudly.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::sight::capture::wayland::{ScreenAccess, WaylandDisplay, sway_window_titles};

/// The unprivileged user sway runs as when the tests run as root.
const NOBODY: u32 = 65534;
const STARTUP_PATIENCE: Duration = Duration::from_secs(20);
const STEP: Duration = Duration::from_millis(50);

/// A running headless sway; killed (with its windows) when dropped.
pub struct HeadlessSway {
    runtime: tempfile::TempDir,
    child: Child,
    display: WaylandDisplay,
    windows: Vec<Child>,
}

impl HeadlessSway {
    /// sway with one 1920x1080 output, no borders, no bar.
    pub fn start() -> HeadlessSway {
        Self::start_with(1920, 1080)
    }

    pub fn start_with(width: u32, height: u32) -> HeadlessSway {
        let runtime = tempfile::Builder::new()
            .prefix("lookout-sway-")
            .tempdir()
            .expect("a temp folder for sway");
        let config = runtime.path().join("config");
        std::fs::write(
            &config,
            format!(
                "output HEADLESS-1 resolution {width}x{height}\ndefault_border none\n\
                 default_floating_border none\nfocus_follows_mouse no\n"
            ),
        )
        .unwrap();
        hand_to_sway_user(runtime.path());
        hand_to_sway_user(&config);
        let mut command = as_sway_user("sway");
        command
            .arg("-c")
            .arg(&config)
            .env("XDG_RUNTIME_DIR", runtime.path())
            .env("HOME", runtime.path())
            .env("WLR_BACKENDS", "headless")
            .env("WLR_RENDERER", "pixman")
            .env("WLR_LIBINPUT_NO_DEVICES", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = command
            .spawn()
            .expect("cannot start sway: apt-get install sway (and util-linux for setpriv)");
        let mut started = HeadlessSway {
            display: WaylandDisplay {
                socket: PathBuf::new(),
                sway: None,
                access: ScreenAccess::Screencopy,
            },
            runtime,
            child,
            windows: Vec::new(),
        };
        let (socket, ipc) = started.wait_for_sockets();
        started.display = WaylandDisplay {
            socket,
            sway: Some(ipc),
            access: ScreenAccess::Screencopy,
        };
        started
    }

    /// The compositor's process (for its CPU time).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The compositor's socket and sway's IPC socket.
    pub fn display(&self) -> &WaylandDisplay {
        &self.display
    }

    /// Opens a foot terminal titled `title` running `sh -c script`, and waits until sway
    /// shows it. Returns the window's index for [`HeadlessSway::close`].
    pub fn open_terminal(&mut self, title: &str, script: &str) -> usize {
        self.open_terminal_with(title, script, &[])
    }

    /// [`HeadlessSway::open_terminal`] with more of foot's options (`--font=monospace:size=16`).
    pub fn open_terminal_with(&mut self, title: &str, script: &str, options: &[&str]) -> usize {
        let mut command = as_sway_user("foot");
        command
            .args(options)
            .args(["--title", title, "sh", "-c", script])
            // A UTF-8 locale, or foot's first line is a warning about it.
            .env("LANG", "C.UTF-8")
            .env("XDG_RUNTIME_DIR", self.runtime.path())
            .env("HOME", self.runtime.path())
            .env("WAYLAND_DISPLAY", &self.display.socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = command
            .spawn()
            .expect("cannot start foot: apt-get install foot");
        self.windows.push(child);
        let ipc = self.ipc();
        wait_for(&mut self.child, "the window to open", || {
            titles_of(&ipc).iter().any(|t| t == title)
        });
        self.windows.len() - 1
    }

    /// Closes the window `open_terminal` opened as `index` (kills its terminal), and waits
    /// until sway no longer shows it.
    pub fn close(&mut self, index: usize, title: &str) {
        let _ = self.windows[index].kill();
        let _ = self.windows[index].wait();
        let ipc = self.ipc();
        wait_for(&mut self.child, "the window to close", || {
            !titles_of(&ipc).iter().any(|t| t == title)
        });
    }

    /// Runs a sway command (`[title="htop"] fullscreen enable`) through `swaymsg`.
    pub fn command(&self, command: &str) {
        #[allow(clippy::disallowed_methods)] // test fixture: commands the compositor under test
        let status = Command::new("swaymsg")
            .arg("-s")
            .arg(self.ipc())
            .arg(command)
            .stdout(Stdio::null())
            .status()
            .expect("cannot run swaymsg: apt-get install sway");
        assert!(status.success(), "swaymsg refused: {command}");
    }

    /// The titles of the windows sway shows.
    pub fn titles(&self) -> Vec<String> {
        titles_of(&self.ipc())
    }

    fn ipc(&self) -> PathBuf {
        self.display.sway.clone().expect("sway's IPC")
    }

    /// A folder sway's user can read, for files a terminal window shows.
    pub fn shared_folder(&self) -> &Path {
        self.runtime.path()
    }

    fn wait_for_sockets(&mut self) -> (PathBuf, PathBuf) {
        let mut found = None;
        let runtime = self.runtime.path().to_owned();
        wait_for(&mut self.child, "sway to listen", || {
            let names: Vec<PathBuf> = std::fs::read_dir(&runtime)
                .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
                .unwrap_or_default();
            let named = |prefix: &str, suffix: &str| {
                names.iter().find(|path| {
                    let name = path.file_name().unwrap().to_string_lossy();
                    name.starts_with(prefix) && name.ends_with(suffix) && !name.ends_with(".lock")
                })
            };
            if let (Some(socket), Some(ipc)) = (named("wayland-", ""), named("sway-ipc.", ".sock"))
                && sway_window_titles(ipc).is_ok()
            {
                found = Some((socket.clone(), ipc.clone()));
            }
            found.is_some()
        });
        found.expect("sway's sockets")
    }
}

/// A terminal script that shows what is appended to `file` ([`append`]), made empty and
/// readable by sway's user (put it in [`HeadlessSway::shared_folder`]).
pub fn follow_script(file: &Path) -> String {
    std::fs::write(file, "").expect("a file for the terminal to show");
    std::fs::set_permissions(file, std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .expect("the file readable by sway's user");
    format!("tail -n +1 -F {}", file.display())
}

/// Appends `text` (escape sequences too) to a file a terminal window shows.
pub fn append(file: &Path, text: &str) {
    let mut opened = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .expect("the file a terminal shows");
    std::io::Write::write_all(&mut opened, text.as_bytes()).expect("appended");
}

/// Waits until `done`, failing the test if the compositor exits or it takes too long.
pub(super) fn wait_for(sway: &mut Child, what: &str, mut done: impl FnMut() -> bool) {
    let mut waited = Duration::ZERO;
    while !done() {
        if let Ok(Some(status)) = sway.try_wait() {
            panic!("the compositor exited ({status}) while waiting for {what}");
        }
        assert!(waited < STARTUP_PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(STEP);
        waited += STEP;
    }
}

fn titles_of(ipc: &Path) -> Vec<String> {
    sway_window_titles(ipc).unwrap_or_default()
}

impl Drop for HeadlessSway {
    fn drop(&mut self) {
        for window in &mut self.windows {
            let _ = window.kill();
            let _ = window.wait();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// `program`, run as `nobody` when the tests run as root (sway will not run as root).
pub(super) fn as_sway_user(program: &str) -> Command {
    #[allow(clippy::disallowed_methods)] // test fixture: the compositor the tests watch
    let mut command = if running_as_root() {
        let mut command = Command::new("setpriv");
        command
            .arg(format!("--reuid={NOBODY}"))
            .arg(format!("--regid={NOBODY}"))
            .arg("--clear-groups")
            .arg(program);
        command
    } else {
        Command::new(program)
    };
    command
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin");
    command
}

/// When the tests run as root, sway's user must own its runtime folder and config.
pub(super) fn hand_to_sway_user(path: &Path) {
    if running_as_root() {
        let uid = rustix::fs::Uid::from_raw(NOBODY);
        let gid = rustix::fs::Gid::from_raw(NOBODY);
        rustix::fs::chown(path, Some(uid), Some(gid)).expect("chown for sway's user");
    }
}
