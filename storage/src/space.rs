//! Room on the disk: how much a write needs, and how much the volume has.
//!
//! A write is refused before it starts when the volume holding the database has less than
//! [`SPACE_FOR_WRITES`] free, so the disk never fails a commit half way (which would leave
//! an acknowledged journal record for a write its caller was told failed) and reads go on.
//! Below [`SPACE_FOR_BATCHING`] every write is its own durable redb commit: redb reuses the
//! pages a commit frees only after a durable one, so commits batched between checkpoints
//! (about ten new pages each) could outgrow a nearly full disk; one at a time, a write needs
//! a few dozen pages at most.
//!
//! Another program can still fill the disk to its last byte, and a clean shutdown, redb's
//! repair after a crash and a journal's replay all write. So lookout keeps a reserve
//! ([`reserve_path`]): released when the disk is full at a shutdown or an open, made again
//! once there is room. A store opened on a disk still too full (no reserve left) is
//! read-only until space is freed.

use std::io;
use std::path::Path;

/// The free space below which writes are refused: the pages of one durable commit (a few
/// dozen), a journal that grows by one step, and room to spare.
pub const SPACE_FOR_WRITES: u64 = 1024 * 1024;

/// The free space below which each write is made durable on its own instead of batched
/// until a checkpoint.
pub(crate) const SPACE_FOR_BATCHING: u64 = 16 * 1024 * 1024;

/// Free bytes (for this unprivileged user) on the volume holding `path`; `None` when the
/// volume cannot be asked.
pub(crate) fn free_bytes(path: &Path) -> Option<u64> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty())?;
    let stats = rustix::fs::statvfs(folder).ok()?;
    Some(stats.f_bavail.saturating_mul(stats.f_frsize))
}

/// Whether a volume with `free` bytes (`None`: it cannot be asked) is too full to write.
pub(crate) fn too_full(free: Option<u64>) -> bool {
    free.is_some_and(|free| free < SPACE_FOR_WRITES)
}

/// Whether commits may be batched until a checkpoint on a volume with `free` bytes.
pub(crate) fn room_to_batch(free: Option<u64>) -> bool {
    free.is_none_or(|free| free >= SPACE_FOR_BATCHING)
}

/// Whether `error` says the volume is full (or the user's quota is).
pub(crate) fn is_full(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
    )
}

/// What the reserve holds: enough for a clean shutdown's last commit, redb's repair of a file
/// that was not shut down cleanly, and the replay of a journal's records one durable commit
/// at a time.
pub const RESERVE_BYTES: u64 = 2 * 1024 * 1024;

/// The reserve beside the database at `db_path`: `lookout.reserve` for `lookout.redb`.
///
/// A file of [`RESERVE_BYTES`] whose blocks are allocated while the disk has room, so that
/// when another program fills the disk to its last byte, lookout can still shut down cleanly
/// and start again: it releases the reserve first, and makes it again once there is room.
pub(crate) fn reserve_path(db_path: &Path) -> std::path::PathBuf {
    db_path.with_extension("reserve")
}

/// Makes the reserve whole when it is not and the disk has room for it and for writes
/// beyond it (`free` bytes now); returns whether it is whole.
pub(crate) fn keep_reserve(db_path: &Path, free: Option<u64>) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let path = reserve_path(db_path);
    if std::fs::symlink_metadata(&path)
        .is_ok_and(|meta| meta.is_file() && meta.len() == RESERVE_BYTES)
    {
        return true;
    }
    if free.is_none_or(|free| free < RESERVE_BYTES + SPACE_FOR_WRITES) {
        return false;
    }
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(&path)
        .and_then(|file| {
            match rustix::fs::fallocate(
                &file,
                rustix::fs::FallocateFlags::empty(),
                0,
                RESERVE_BYTES,
            ) {
                // A filesystem without fallocate gets its blocks by writing them: a file of
                // the right length alone would be sparse, and hold nothing back.
                Err(rustix::io::Errno::OPNOTSUPP) => {
                    use std::io::Write;
                    let zeros = vec![0; RESERVE_BYTES as usize];
                    (&file).write_all(&zeros)?;
                    file.sync_data()
                }
                outcome => outcome.map_err(io::Error::from),
            }
        });
    match made {
        Ok(()) => true,
        Err(_) => {
            // Half a reserve is no reserve: give the space back.
            let _ = std::fs::remove_file(&path);
            false
        }
    }
}

/// Gives the reserve's space back to the disk; returns whether there was one.
pub(crate) fn release_reserve(db_path: &Path) -> bool {
    std::fs::remove_file(reserve_path(db_path)).is_ok()
}
