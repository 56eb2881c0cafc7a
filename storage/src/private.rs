//! Keeping the data private: the data folder 0700 and the database 0600, made so when
//! created and tightened when found looser.

use std::path::Path;

use crate::error::StorageError;

/// Creates the data folder 0700 (its missing parents as usual), or tightens it to 0700.
pub(crate) fn private_folder(folder: &Path) -> Result<Option<String>, StorageError> {
    use std::os::unix::fs::DirBuilderExt;
    let failed = |source| StorageError::DataFolder {
        path: folder.to_owned(),
        source,
    };
    if !folder.exists() {
        if let Some(parent) = folder.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(failed)?;
        }
        match std::fs::DirBuilder::new().mode(0o700).create(folder) {
            Ok(()) => return Ok(None),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(failed(error)),
        }
    }
    tighten(folder, 0o700).map_err(failed)
}

/// Takes from `path`'s permission bits what `mode` does not allow, when the path is this
/// user's (another user's folder is theirs to set); never adds a bit (a folder the user made
/// read-only stays so). Says what it changed.
pub(crate) fn tighten(path: &Path, mode: u32) -> std::io::Result<Option<String>> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let meta = std::fs::metadata(path)?;
    let current = meta.mode() & 0o777;
    let own_uid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    if current & !mode == 0 || own_uid != Some(meta.uid()) {
        return Ok(None);
    }
    let tightened = current & mode;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(tightened))?;
    Ok(Some(format!(
        "{} was open to other users ({current:o}); it is now {tightened:o}",
        path.display()
    )))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode_of(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn tightening_takes_bits_away_and_never_adds_one() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("data");
        for (found, left) in [
            (0o755, 0o700),
            (0o555, 0o500),
            (0o700, 0o700),
            (0o500, 0o500),
        ] {
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(found)).unwrap();
            let said = tighten(&folder, 0o700).unwrap();
            assert_eq!(mode_of(&folder), left, "{found:o}");
            assert_eq!(said.is_some(), found != left, "{found:o}: {said:?}");
            std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
    }
}
