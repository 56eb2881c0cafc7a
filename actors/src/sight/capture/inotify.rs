//! Being told when a watched file changes: an inotify watch on the file's folder (so a file
//! that is created, replaced by a rename, truncated or deleted is seen as well as one that
//! grows), read through tokio's `AsyncFd` on the runtime's own reactor, with no thread of its
//! own. Events for other files in the folder are ignored; the folder's own (deleted, moved,
//! the watch dropped) count as changes. The watch goes when the last receiver does.

use std::ffi::OsString;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::inotify::{self, CreateFlags, WatchFlags};
use rustix::io::Errno;
use tokio::io::unix::AsyncFd;
use tokio::sync::watch;

use crate::sight::capture::tell_changed;

/// What happens to a file that a wait on it should look at again.
fn watched_events() -> WatchFlags {
    WatchFlags::MODIFY
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::ATTRIB
        | WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
}

/// A count that moves on at each change to `path`; `None` when it cannot be watched (its
/// folder is missing, or the inotify limits are reached): the file is polled only.
pub fn file_changes(path: &Path) -> Option<watch::Receiver<u64>> {
    let folder = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())?;
    let name = path.file_name()?.to_owned();
    let events = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok()?;
    inotify::add_watch(&events, folder, watched_events()).ok()?;
    // The safe constructor is deprecated for a descriptor that could be closed behind the
    // reactor's back; this one is owned by the AsyncFd alone, from here to its drop.
    #[allow(deprecated)]
    let events = AsyncFd::new(events).ok()?;
    let (changed, receiver) = watch::channel(0u64);
    tokio::spawn(async move {
        let mut buffer = [MaybeUninit::<u8>::uninit(); 4096];
        loop {
            let ready = tokio::select! {
                () = changed.closed() => return,
                ready = events.readable() => ready,
            };
            let Ok(mut guard) = ready else { return };
            match read_all(events.get_ref(), &mut buffer, &name) {
                Ok(ours) => {
                    guard.clear_ready();
                    if ours {
                        tell_changed(&changed);
                    }
                }
                Err(_) => return,
            }
        }
    });
    Some(receiver)
}

/// Reads every event waiting; whether one was about the file `name` or the folder itself.
fn read_all(
    events: &rustix::fd::OwnedFd,
    buffer: &mut [MaybeUninit<u8>],
    name: &OsString,
) -> Result<bool, Errno> {
    let mut reader = inotify::Reader::new(events, buffer);
    let mut ours = false;
    loop {
        match reader.next() {
            Ok(event) => {
                ours |= event
                    .file_name()
                    .is_none_or(|file| file.to_bytes() == name.as_bytes());
            }
            Err(Errno::AGAIN) => return Ok(ours),
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    async fn moves(changes: &mut watch::Receiver<u64>) -> bool {
        tokio::time::timeout(Duration::from_secs(10), changes.changed())
            .await
            .is_ok_and(|changed| changed.is_ok())
    }

    #[tokio::test]
    async fn growing_replacing_and_deleting_the_file_are_told_and_its_neighbours_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("build.log");
        std::fs::write(&log, "starting\n").unwrap();
        let mut changes = file_changes(&log).unwrap();

        std::fs::write(dir.path().join("other.log"), "noise\n").unwrap();
        let quiet = tokio::time::timeout(Duration::from_millis(300), changes.changed()).await;
        assert!(quiet.is_err(), "a neighbour's write is not the file's");

        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        writeln!(file, "BUILD OK").unwrap();
        assert!(moves(&mut changes).await, "an appended line");

        let fresh = dir.path().join("build.log.new");
        std::fs::write(&fresh, "rotated\n").unwrap();
        changes.borrow_and_update();
        std::fs::rename(&fresh, &log).unwrap();
        assert!(moves(&mut changes).await, "a file renamed over it");

        changes.borrow_and_update();
        std::fs::remove_file(&log).unwrap();
        assert!(moves(&mut changes).await, "its deletion");
    }

    #[tokio::test]
    async fn a_file_in_a_missing_folder_is_polled_only() {
        assert!(file_changes(Path::new("/nonexistent-folder/x.log")).is_none());
    }
}
