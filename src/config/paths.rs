//! Where things live on disk: the data file, the socket, the config file, the user units.
//!
//! Follows the XDG base directories, with the fallbacks the design fixes. The only module
//! that asks for `HOME` and the `XDG_*` variables (through `environment`).

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use crate::config::Config;

pub const DATA_FILE_NAME: &str = "lookout.redb";
pub const SOCKET_FILE_NAME: &str = "lookout.sock";

/// A folder the environment names, if it names one by an absolute path: as the XDG base
/// directory specification says, a relative one (`XDG_RUNTIME_DIR=run`, which would put the
/// socket wherever the daemon happens to start) is ignored, as if unset.
fn env_path(name: &str) -> Option<PathBuf> {
    absolute(crate::config::environment::var_os(name).map(PathBuf::from))
}

fn absolute(path: Option<PathBuf>) -> Option<PathBuf> {
    path.filter(|path| path.is_absolute())
}

/// The home folder (`HOME`, when absolute).
pub fn home() -> Option<PathBuf> {
    env_path("HOME")
}

/// Where Claude Code keeps its sessions: `$CLAUDE_CONFIG_DIR/projects`, else
/// `~/.claude/projects`.
pub fn claude_projects_folder() -> Option<PathBuf> {
    match env_path("CLAUDE_CONFIG_DIR") {
        Some(folder) => Some(folder.join("projects")),
        None => Some(home()?.join(".claude/projects")),
    }
}

/// The effective uid of this process (the owner of `/proc/self`), without `unsafe`.
pub fn current_uid() -> u32 {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(u32::MAX)
}

/// `<data_dir>/lookout.redb`.
pub fn data_file(config: &Config) -> PathBuf {
    data_folder(config).join(DATA_FILE_NAME)
}

/// The data folder: `data_dir`, else `$XDG_DATA_HOME/lookout`.
pub fn data_folder(config: &Config) -> PathBuf {
    config.data_dir.clone().unwrap_or_else(|| {
        env_path("XDG_DATA_HOME")
            .or_else(|| home().map(|h| h.join(".local/share")))
            .unwrap_or_else(|| PathBuf::from("."))
            .join("lookout")
    })
}

/// The socket: `socket_path`, else `$XDG_RUNTIME_DIR/lookout/lookout.sock`, else
/// `lookout-$UID/lookout.sock` in the temp folder (`$TMPDIR`, else `/tmp`). The daemon and
/// its clients check that folder is this user's own (`server::bind`, `client`).
pub fn socket_path(config: &Config) -> PathBuf {
    config
        .socket_path
        .clone()
        .unwrap_or_else(default_socket_path)
}

pub fn default_socket_path() -> PathBuf {
    match env_path("XDG_RUNTIME_DIR") {
        Some(runtime) => runtime.join("lookout").join(SOCKET_FILE_NAME),
        None => env_path("TMPDIR")
            .filter(|folder| folder.is_absolute())
            .unwrap_or_else(|| PathBuf::from("/tmp"))
            .join(format!("lookout-{}", current_uid()))
            .join(SOCKET_FILE_NAME),
    }
}

/// `$XDG_RUNTIME_DIR`, else `/run/user/$UID` (where a Wayland compositor's socket lives).
pub fn runtime_dir() -> PathBuf {
    env_path("XDG_RUNTIME_DIR")
        .unwrap_or_else(|| PathBuf::from(format!("/run/user/{}", current_uid())))
}

fn config_home() -> Option<PathBuf> {
    env_path("XDG_CONFIG_HOME").or_else(|| home().map(|h| h.join(".config")))
}

/// `$XDG_CONFIG_HOME/lookout/config.toml` (or under `~/.config`).
pub fn default_config_file() -> Option<PathBuf> {
    config_home().map(|folder| folder.join("lookout").join("config.toml"))
}

/// Where systemd looks for the user's own units: `$XDG_CONFIG_HOME/systemd/user` (or under
/// `~/.config`).
pub fn systemd_user_unit_dir() -> Option<PathBuf> {
    config_home().map(|folder| folder.join("systemd").join("user"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_folders_from_the_environment_are_ignored() {
        assert_eq!(absolute(Some("run/user".into())), None);
        assert_eq!(absolute(Some("".into())), None);
        assert_eq!(
            absolute(Some("/run/user/1000".into())),
            Some(PathBuf::from("/run/user/1000"))
        );
    }
}
