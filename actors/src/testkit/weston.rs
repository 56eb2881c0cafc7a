//! A private headless Weston for the tests of a Wayland compositor without `wlr-screencopy`
//! (as GNOME's and KDE's are): weston's headless backend on a runtime folder of its own, run
//! as `nobody` when the tests run as root, like the test kit's sway. Needs `weston`
//! (`.ci/run` installs it); a missing one fails the test loudly.

use std::path::PathBuf;
use std::process::{Child, Stdio};

use super::sway::{as_sway_user, hand_to_sway_user, wait_for};

const SOCKET_NAME: &str = "wayland-weston";

/// A running headless Weston; killed when dropped.
pub struct HeadlessWeston {
    _runtime: tempfile::TempDir,
    child: Child,
    socket: PathBuf,
}

impl HeadlessWeston {
    /// Weston with one `width`x`height` output.
    pub fn start(width: u32, height: u32) -> HeadlessWeston {
        let runtime = tempfile::Builder::new()
            .prefix("lookout-weston-")
            .tempdir()
            .expect("a temp folder for weston");
        hand_to_sway_user(runtime.path());
        let mut command = as_sway_user("weston");
        command
            .arg("--backend=headless-backend.so")
            .arg(format!("--socket={SOCKET_NAME}"))
            .arg(format!("--width={width}"))
            .arg(format!("--height={height}"))
            .env("XDG_RUNTIME_DIR", runtime.path())
            .env("HOME", runtime.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = command
            .spawn()
            .expect("cannot start weston: apt-get install weston (and util-linux for setpriv)");
        let socket = runtime.path().join(SOCKET_NAME);
        wait_for(&mut child, "weston to listen", || {
            std::os::unix::net::UnixStream::connect(&socket).is_ok()
        });
        HeadlessWeston {
            _runtime: runtime,
            child,
            socket,
        }
    }

    /// The compositor's socket.
    pub fn socket(&self) -> &PathBuf {
        &self.socket
    }
}

impl Drop for HeadlessWeston {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
