//! Binding the socket so that no other local user can stand in for the daemon: the folder is
//! checked before anything is put in it, a socket already there is looked at before it is
//! replaced, and the socket is made 0600.
//!
//! The default folder (`$XDG_RUNTIME_DIR/lookout`, or `lookout-$UID` under the temp folder
//! when there is no runtime folder) is created 0700, and accepted only as a real directory
//! (not a symlink) owned by this uid with mode 0700: in a shared `/tmp` another user could
//! create it first and listen in it. A folder the config names is the user's choice, but it
//! must not be open to others either: owned by this uid or root, and writable by nobody else
//! unless it is sticky (as `/tmp` is).

use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;

use anyhow::{Context, bail};
use tokio::net::UnixListener;

/// Whose folder the socket goes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocketFolder {
    /// lookout's own default folder: created 0700, accepted only as ours and 0700.
    Default,
    /// The folder of a configured `socket_path`.
    Configured,
}

/// Binds `path`, replacing a stale socket of ours left by a killed daemon but never a live
/// one, and never anything another user owns.
pub fn bind(path: &Path, folder_kind: SocketFolder, uid: u32) -> anyhow::Result<UnixListener> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match folder_kind {
        SocketFolder::Default => own_private_folder(folder, uid)?,
        SocketFolder::Configured => configured_folder(folder, uid)?,
    }
    if let Ok(existing) = std::fs::symlink_metadata(path) {
        if !existing.file_type().is_socket() {
            bail!(
                "{} exists and is not a socket; remove it or set socket_path to another path",
                path.display()
            );
        }
        if existing.uid() != uid {
            bail!(
                "{} belongs to uid {}, not to this user (uid {uid}); another user may be \
                 standing in for lookout. Remove it if it is stale, or set socket_path to a \
                 folder only you can write",
                path.display(),
                existing.uid()
            );
        }
        match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => bail!(
                "another lookout daemon is already listening on {}; stop it first (`lookout status` \
                 shows it), or set socket_path to another path",
                path.display()
            ),
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionRefused => {
                std::fs::remove_file(path).with_context(|| {
                    format!("cannot remove the stale socket {}", path.display())
                })?;
                tracing::info!(socket = %path.display(), "replaced a stale socket left by a daemon that did not shut down");
            }
            Err(error) => bail!(
                "cannot check the existing socket {}: {error}",
                path.display()
            ),
        }
    }
    let listener = UnixListener::bind(path).with_context(|| {
        format!(
            "cannot listen on {} (a socket path must be shorter than 108 bytes)",
            path.display()
        )
    })?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot make the socket {} private (0600)", path.display()))?;
    Ok(listener)
}

/// Creates `folder` 0700, or accepts it only as a real directory of ours with mode 0700.
fn own_private_folder(folder: &Path, uid: u32) -> anyhow::Result<()> {
    match std::fs::DirBuilder::new().mode(0o700).create(folder) {
        Ok(()) => {
            // The umask may have taken bits away, never added them; say 0700 exactly.
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))
                .with_context(|| format!("cannot make {} private (0700)", folder.display()))?;
        }
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(folder.parent().unwrap_or(Path::new("/"))).with_context(
                || {
                    format!(
                        "cannot create the parent of the socket folder {}",
                        folder.display()
                    )
                },
            )?;
            return own_private_folder(folder, uid);
        }
        Err(error) => {
            return Err(error)
                .with_context(|| format!("cannot create the socket folder {}", folder.display()));
        }
    }
    let found = std::fs::symlink_metadata(folder)
        .with_context(|| format!("cannot look at the socket folder {}", folder.display()))?;
    let fix = format!(
        "remove it (rm -r {}) if nothing of yours is in it, or set socket_path in the config (or \
         XDG_RUNTIME_DIR) to a folder only you can write",
        folder.display()
    );
    if found.file_type().is_symlink() {
        bail!(
            "the socket folder {} is a symbolic link, which lookout does not follow (another user \
             could point it anywhere); {fix}",
            folder.display()
        );
    }
    if !found.is_dir() {
        bail!(
            "the socket folder {} is not a folder; {fix}",
            folder.display()
        );
    }
    if found.uid() != uid {
        bail!(
            "the socket folder {} belongs to uid {}, not to this user (uid {uid}): another user \
             may have created it to stand in for lookout; {fix}",
            folder.display(),
            found.uid()
        );
    }
    let mode = found.mode() & 0o7777;
    if mode != 0o700 {
        bail!(
            "the socket folder {} has mode {mode:o}, and lookout uses it only when it is 0700 (what \
             it was open to may have been changed by others); run `chmod 700 {}` if it is yours \
             and nothing foreign is in it, or {fix}",
            folder.display(),
            folder.display()
        );
    }
    Ok(())
}

/// A configured folder: created 0700 if missing; else owned by this uid or root, and not
/// writable by anyone else unless sticky.
fn configured_folder(folder: &Path, uid: u32) -> anyhow::Result<()> {
    if !folder.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(folder)
            .with_context(|| format!("cannot create the socket folder {}", folder.display()))?;
        return Ok(());
    }
    let found = std::fs::metadata(folder)
        .with_context(|| format!("cannot look at the socket folder {}", folder.display()))?;
    let open_to_others = found.mode() & 0o022 != 0 && found.mode() & 0o1000 == 0;
    if (found.uid() != uid && found.uid() != 0) || open_to_others {
        bail!(
            "the socket folder {} (socket_path) belongs to uid {} with mode {:o}: another user \
             could replace the socket in it; use a folder owned by you that only you can write",
            folder.display(),
            found.uid(),
            found.mode() & 0o7777
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uid() -> u32 {
        crate::config::paths::current_uid()
    }

    #[tokio::test]
    async fn the_default_folder_is_made_0700_and_refused_when_loose_or_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("lookout-x");
        let socket = folder.join("lookout.sock");
        drop(bind(&socket, SocketFolder::Default, uid()).unwrap());
        let mode = std::fs::metadata(&folder).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o700);

        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = bind(&socket, SocketFolder::Default, uid()).unwrap_err();
        assert!(format!("{error:#}").contains("mode 777"), "{error:#}");

        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let link = dir.path().join("lookout-link");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let error = bind(&link.join("lookout.sock"), SocketFolder::Default, uid()).unwrap_err();
        assert!(format!("{error:#}").contains("symbolic link"), "{error:#}");
    }

    #[tokio::test]
    async fn a_folder_of_another_uid_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("lookout-y");
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&folder)
            .unwrap();
        let someone_else = uid().wrapping_add(1);
        let error = bind(
            &folder.join("lookout.sock"),
            SocketFolder::Default,
            someone_else,
        )
        .unwrap_err();
        assert!(format!("{error:#}").contains("belongs to uid"), "{error:#}");
        let error = bind(
            &folder.join("lookout.sock"),
            SocketFolder::Configured,
            someone_else,
        );
        // Root's folders are fine for a configured path; anyone else's are not.
        assert_eq!(error.is_ok(), uid() == 0);
    }
}
