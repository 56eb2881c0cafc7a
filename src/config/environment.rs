//! The one reader of the process environment.
//!
//! Every variable lookout reads goes through here (clippy's `disallowed-methods` refuses
//! `std::env::var*` anywhere else), so what the daemon depends on is listed in one file:
//! `HOME`, `XDG_*` and `TMPDIR` (paths), `CLAUDE_CONFIG_DIR` (Claude Code's sessions, a recall
//! source), `LOOKOUT_CONFIG`, `LOOKOUT_LOG`, `DISPLAY`, `PATH`, systemd's
//! `NOTIFY_SOCKET`/`WATCHDOG_*`, and the variables a config names for secrets.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable as text; `None` when unset or not UTF-8.
pub fn var(name: &str) -> Option<String> {
    #[allow(clippy::disallowed_methods)] // the sanctioned reader
    std::env::var(name).ok()
}

/// The variable as text, `None` when unset, empty or not UTF-8.
pub fn non_empty(name: &str) -> Option<String> {
    var(name).filter(|value| !value.is_empty())
}

/// The variable as the OS gave it; `None` when unset or empty.
pub fn var_os(name: &str) -> Option<OsString> {
    #[allow(clippy::disallowed_methods)] // the sanctioned reader
    std::env::var_os(name).filter(|value| !value.is_empty())
}

/// Whether the variable is set at all, even to an invalid or empty value.
pub fn is_set(name: &str) -> bool {
    #[allow(clippy::disallowed_methods)] // the sanctioned reader
    std::env::var_os(name).is_some()
}

/// The first executable file named `program` in the directories of `PATH`.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|folder| folder.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
