//! Storage faults for the fault-injection harness: a redb `StorageBackend` over the real
//! file that fails reads or commits when asked, and can cut the file back to what was last
//! synced (a crash image), the way redb's own crash tests wrap its backend.
//!
//! [`StorageFaults`] is the controller a harness keeps; [`FaultyFile`] is the backend a
//! [`Store`](crate::Store) opened with [`Store::open_with`](crate::Store::open_with)
//! runs on, for the database file and for its write journal alike. Every write records the
//! bytes it overwrites until the next successful sync of that file, so a crash image is those
//! records undone in reverse: exactly the synced state of each file remains.

use std::fs::OpenOptions;
use std::io;
use std::ops::Bound;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use redb::backends::FileBackend;
use redb::{BackendError, StorageBackend};

/// The controller of a faulty store: shared by the harness and the backend it wraps.
#[derive(Clone, Debug, Default)]
pub struct StorageFaults {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Syncs to fail (each commit syncs, so each failed sync is a failed commit).
    failing_syncs: AtomicU32,
    failing_reads: AtomicU32,
    /// While set, every sync waits (a disk that stopped answering).
    stalled: AtomicBool,
    /// Syncs still let through before `stalled` is set by itself; 0 for no countdown.
    syncs_before_stall: AtomicU32,
    /// Syncs started so far (each durable commit syncs).
    syncs: AtomicU64,
    /// Faults that fired so far.
    fired: AtomicU64,
    undo: Mutex<UndoLog>,
}

/// What the open backends changed since each one's last successful sync.
#[derive(Debug, Default)]
struct UndoLog {
    /// Bumped by a crash: a backend of an older generation refuses every operation.
    generation: u64,
    /// Crashed and not restarted: nothing may open the files (the dead process's store
    /// must not reopen them).
    down: bool,
    /// The files backends were opened on; an undo step names its file by index here.
    files: Vec<PathBuf>,
    undo: Vec<(usize, Undo)>,
}

#[derive(Debug)]
enum Undo {
    /// Put these bytes back at this offset.
    Restore { offset: u64, bytes: Vec<u8> },
    /// Set the file back to this length.
    Length(u64),
}

impl StorageFaults {
    /// The next `n` commits fail with an I/O error (the sync that makes them durable fails).
    pub fn fail_next_commits(&self, n: u32) {
        self.inner.failing_syncs.store(n, Ordering::SeqCst);
    }

    /// The next `n` reads from the file fail with an I/O error.
    pub fn fail_next_reads(&self, n: u32) {
        self.inner.failing_reads.store(n, Ordering::SeqCst);
    }

    /// While `stalled`, every commit hangs in its sync, as on a disk that stopped answering;
    /// a hung commit carries on once this is set back to `false`.
    pub fn stall_commits(&self, stalled: bool) {
        if !stalled {
            self.inner.syncs_before_stall.store(0, Ordering::SeqCst);
        }
        self.inner.stalled.store(stalled, Ordering::SeqCst);
    }

    /// The next `n` syncs go through, then every commit hangs as with `stall_commits(true)`:
    /// a disk that stops answering once the daemon has opened the file (count the syncs a
    /// start takes with [`StorageFaults::syncs`]).
    pub fn stall_commits_after(&self, n: u32) {
        self.inner.syncs_before_stall.store(n + 1, Ordering::SeqCst);
    }

    /// How many syncs (journal records, checkpoints and redb's own header writes) started so far.
    pub fn syncs(&self) -> u64 {
        self.inner.syncs.load(Ordering::SeqCst)
    }

    /// No more injected failures (the disk "works again").
    pub fn clear(&self) {
        self.fail_next_commits(0);
        self.fail_next_reads(0);
        self.stall_commits(false);
    }

    /// How many injected failures fired.
    pub fn fired(&self) -> u64 {
        self.inner.fired.load(Ordering::SeqCst)
    }

    /// Simulates power loss: the open backend fails from now on, and the file is cut back to
    /// what its last successful sync made durable. Reopen the store afterwards.
    pub fn crash_image(&self) -> io::Result<()> {
        let mut log = self.undo_log();
        log.generation += 1;
        log.down = true;
        let undo = std::mem::take(&mut log.undo);
        let files = log
            .files
            .iter()
            .map(|path| OpenOptions::new().write(true).open(path))
            .collect::<io::Result<Vec<_>>>()?;
        for (index, step) in undo.into_iter().rev() {
            let file = &files[index];
            match step {
                Undo::Restore { offset, bytes } => file.write_all_at(&bytes, offset)?,
                Undo::Length(length) => file.set_len(length)?,
            }
        }
        files.iter().try_for_each(std::fs::File::sync_all)
    }

    /// After [`StorageFaults::crash_image`]: the "machine is back", stores may open the file.
    pub fn restart(&self) {
        self.undo_log().down = false;
    }

    fn undo_log(&self) -> MutexGuard<'_, UndoLog> {
        crate::locks::lock(&self.inner.undo)
    }

    /// Takes one from `counter` if it is above zero; `true` when a fault fires.
    fn take(&self, counter: &AtomicU32) -> bool {
        let fire = counter
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .is_ok();
        if fire {
            self.inner.fired.fetch_add(1, Ordering::SeqCst);
        }
        fire
    }
}

/// The backend: redb's own file backend, with the faults and the undo log around it.
#[derive(Debug)]
pub(crate) struct FaultyFile {
    file: FileBackend,
    faults: StorageFaults,
    generation: u64,
    /// This file's index in the undo log's `files`.
    index: usize,
}

impl FaultyFile {
    pub(crate) fn open(path: &Path, faults: StorageFaults) -> io::Result<FaultyFile> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let file = FileBackend::new(file).map_err(io::Error::other)?;
        let (generation, index) = {
            let mut log = faults.undo_log();
            if log.down {
                return Err(io::Error::other(
                    "the harness crashed this database; StorageFaults::restart lets it open again",
                ));
            }
            let index = match log.files.iter().position(|known| known == path) {
                Some(index) => index,
                None => {
                    log.files.push(path.to_owned());
                    log.files.len() - 1
                }
            };
            log.undo.retain(|(file, _)| *file != index);
            (log.generation, index)
        };
        Ok(FaultyFile {
            file,
            faults,
            generation,
            index,
        })
    }

    /// The undo log, if this backend has not been cut off by a crash.
    fn live_log(&self) -> io::Result<MutexGuard<'_, UndoLog>> {
        let log = self.faults.undo_log();
        if log.generation == self.generation {
            Ok(log)
        } else {
            Err(io::Error::other("the harness crashed this database"))
        }
    }

    fn injected(what: &str) -> io::Error {
        io::Error::other(format!("injected {what} failure"))
    }
}

impl StorageBackend for FaultyFile {
    fn len(&self) -> Result<u64, io::Error> {
        drop(self.live_log()?);
        self.file.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), io::Error> {
        drop(self.live_log()?);
        if self.faults.take(&self.faults.inner.failing_reads) {
            return Err(Self::injected("read"));
        }
        self.file.read(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        let mut log = self.live_log()?;
        let old = self.file.len()?;
        if len < old {
            let mut bytes = vec![0; usize::try_from(old - len).map_err(io::Error::other)?];
            self.file.read(len, &mut bytes)?;
            log.undo
                .push((self.index, Undo::Restore { offset: len, bytes }));
        }
        log.undo.push((self.index, Undo::Length(old)));
        self.file.set_len(len)
    }

    fn sync_data(&self) -> Result<(), io::Error> {
        let inner = &self.faults.inner;
        inner.syncs.fetch_add(1, Ordering::SeqCst);
        let counted =
            inner
                .syncs_before_stall
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                    left.checked_sub(1)
                });
        if counted == Ok(1) {
            inner.stalled.store(true, Ordering::SeqCst);
        }
        while inner.stalled.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let mut log = self.live_log()?;
        if self.faults.take(&self.faults.inner.failing_syncs) {
            return Err(Self::injected("sync"));
        }
        self.file.sync_data()?;
        log.undo.retain(|(file, _)| *file != self.index);
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        let mut log = self.live_log()?;
        let length = self.file.len()?;
        let end = offset + data.len() as u64;
        if offset < length {
            let overlap = end.min(length) - offset;
            let mut bytes = vec![0; usize::try_from(overlap).map_err(io::Error::other)?];
            self.file.read(offset, &mut bytes)?;
            log.undo.push((self.index, Undo::Restore { offset, bytes }));
        }
        if end > length {
            log.undo.push((self.index, Undo::Length(length)));
        }
        self.file.write(offset, data)
    }

    fn close(&self) -> Result<(), io::Error> {
        self.file.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.file.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.file.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.file.query_lock_range(start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(path: &Path) -> Vec<u8> {
        std::fs::read(path).unwrap()
    }

    #[test]
    fn a_crash_image_undoes_every_change_since_the_last_sync() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, b"0123456789").unwrap();
        let faults = StorageFaults::default();
        let file = FaultyFile::open(&path, faults.clone()).unwrap();
        file.write(2, b"ab").unwrap();
        file.sync_data().unwrap();
        let synced = contents(&path);
        assert_eq!(synced, b"01ab456789");
        file.write(8, b"XYZW").unwrap(); // overlaps the end and extends the file
        file.set_len(5).unwrap(); // then shrinks it
        file.write(0, b"!").unwrap();
        assert_eq!(contents(&path), b"!1ab4");
        faults.crash_image().unwrap();
        assert_eq!(contents(&path), synced);
        assert!(
            file.write(0, b"?").is_err(),
            "the crashed backend is cut off"
        );
        assert_eq!(contents(&path), synced);
    }

    #[test]
    fn injected_failures_fire_as_often_as_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, b"0123").unwrap();
        let faults = StorageFaults::default();
        let file = FaultyFile::open(&path, faults.clone()).unwrap();
        faults.fail_next_reads(2);
        faults.fail_next_commits(1);
        let mut out = [0; 2];
        assert!(file.read(0, &mut out).is_err());
        assert!(file.read(0, &mut out).is_err());
        file.read(0, &mut out).unwrap();
        assert_eq!(&out, b"01");
        assert!(file.sync_data().is_err());
        file.sync_data().unwrap();
        assert_eq!(faults.fired(), 3);
    }
}
