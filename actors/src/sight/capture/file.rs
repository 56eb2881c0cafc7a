//! `file:` targets: the last 64 KiB of a file, read by path on every capture, so truncation
//! and rotation (a new file under the same name) are followed; unchanged size and mtime reuse
//! the last read. A file that does not exist yet is an observation, not a failure; one that
//! was read and is gone is described as deleted.
//!
//! Only regular files are watched: a FIFO, a terminal or a device is refused, and the file is
//! opened non-blocking and checked again once open, so a path swapped for a FIFO cannot hang
//! a thread. Every `stat`, open and read runs on the targets lane, never on the runtime or
//! beside the database's threads; a wait has at most one of them out at a time, so a file on
//! a hung mount holds one thread and fails the wait's captures until it answers.

use std::fs::Metadata;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::task::JoinHandle;

use crate::lanes::Lane;
use crate::sight::capture::{CaptureError, Source};
use crate::sight::content::{Content, FILE_DELETED, TextOrigin};

/// How much of a file's end is watched.
pub const FILE_TAIL_BYTES: u64 = 64 * 1024;

/// The tail of a file.
#[derive(Debug)]
pub struct FileTail {
    path: PathBuf,
    lane: Lane,
    /// The stamp of the last read and what it gave.
    last: Option<(Stamp, Content)>,
    /// A look at the file that has not come back yet (a hung mount): the next capture waits
    /// for it instead of sending another.
    out: Option<JoinHandle<Look>>,
    /// The file was read once: missing now, it was deleted.
    seen: bool,
}

/// What tells two versions of a file apart without reading it: (device, inode, size, mtime ns).
type Stamp = (u64, u64, u64, i64);

/// What one trip to the targets lane found.
type Look = Result<Seen, CaptureError>;

#[derive(Debug)]
enum Seen {
    Missing,
    Unchanged,
    Read {
        stamp: Stamp,
        start: u64,
        text: String,
    },
}

impl FileTail {
    pub fn new(path: PathBuf, lane: Lane) -> Self {
        Self {
            path,
            lane,
            last: None,
            out: None,
            seen: false,
        }
    }

    /// Sends a look at the file to the lane, unless one is still out.
    fn look(&mut self) -> &mut JoinHandle<Look> {
        self.out.get_or_insert_with(|| {
            let path = self.path.clone();
            let known = self.last.as_ref().map(|(stamp, _)| *stamp);
            let lane = self.lane.clone();
            tokio::spawn(async move {
                lane.run(move || look_at(&path, known))
                    .await
                    .unwrap_or_else(|error| {
                        Err(CaptureError::retryable(format!(
                            "reading the file failed: {error}"
                        )))
                    })
            })
        })
    }
}

impl Source for FileTail {
    fn describe(&self) -> String {
        format!("file {}", self.path.display())
    }

    /// Told by inotify: a line is read as it is written, not at the next poll.
    fn changes(&mut self) -> Option<tokio::sync::watch::Receiver<u64>> {
        super::inotify::file_changes(&self.path)
    }

    /// One `stat` on the lane decides; only a changed file is read. If the last look has
    /// not come back, this capture waits for that one (the Watcher's capture timeout bounds
    /// the wait), so a hung file never holds more than one thread per wait.
    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        Box::pin(async move {
            let seen = self.look().await;
            self.out = None;
            let seen = seen.map_err(|error| {
                CaptureError::retryable(format!("reading the file failed: {error}"))
            })??;
            match seen {
                Seen::Missing => {
                    self.last = None;
                    let description = if self.seen {
                        format!("{} {FILE_DELETED}", self.path.display())
                    } else {
                        format!("{} does not exist (yet)", self.path.display())
                    };
                    Ok(Content::Absent { description })
                }
                Seen::Unchanged => match &self.last {
                    Some((_, content)) => Ok(content.clone()),
                    None => Err(CaptureError::retryable(
                        "the file changed while it was read",
                    )),
                },
                Seen::Read { stamp, start, text } => {
                    self.seen = true;
                    let content = Content::Text {
                        text: Arc::from(text),
                        exit: None,
                        origin: TextOrigin::File {
                            device: stamp.0,
                            inode: stamp.1,
                            start,
                            end: stamp.2,
                        },
                    };
                    self.last = Some((stamp, content.clone()));
                    Ok(content)
                }
            }
        })
    }
}

impl Drop for FileTail {
    fn drop(&mut self) {
        // A look still out finishes on the lane by itself; nobody needs its answer.
        if let Some(out) = self.out.take() {
            out.abort();
        }
    }
}

/// One look at the file (blocking): `stat`, and if it differs from `known`, the tail.
fn look_at(path: &Path, known: Option<Stamp>) -> Look {
    let Some(metadata) = stat(path)? else {
        return Ok(Seen::Missing);
    };
    let stamp = stamp_of(&metadata);
    if known == Some(stamp) {
        return Ok(Seen::Unchanged);
    }
    let (start, text) = read_tail(path, metadata.len())?;
    Ok(Seen::Read { stamp, start, text })
}

/// Why a path that exists cannot be watched as a file, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAFile {
    pub problem: String,
    pub fix: String,
}

impl NotAFile {
    fn into_capture_error(self) -> CaptureError {
        CaptureError::permanent(format!("{}; {}", self.problem, self.fix))
    }
}

/// Why a path that exists cannot be watched as a file; `None` for a regular file. A FIFO, a
/// terminal or a device would block every read or never end.
pub fn not_a_regular_file(path: &Path, metadata: &Metadata) -> Option<NotAFile> {
    let kind = metadata.file_type();
    let what = if kind.is_file() {
        return None;
    } else if kind.is_dir() {
        return Some(NotAFile {
            problem: format!("{} is a folder", path.display()),
            fix: "watch a file in it (file:/path/to/build.log)".to_owned(),
        });
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_char_device() {
        "a character device (a terminal?)"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Some(NotAFile {
        problem: format!(
            "{} is {what}, and file: watches regular files only (reading a pipe or a device can block forever)",
            path.display()
        ),
        fix: "have the program write to a file (command 2>&1 | tee build.log) and watch that, or run it with term_start and watch pty:<session_id>".to_owned(),
    })
}

/// The file's metadata, `None` when it does not exist.
fn stat(path: &Path) -> Result<Option<Metadata>, CaptureError> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(CaptureError::retryable(format!(
                "cannot read {}: {error}",
                path.display()
            )));
        }
    };
    if let Some(refusal) = not_a_regular_file(path, &metadata) {
        return Err(refusal.into_capture_error());
    }
    Ok(Some(metadata))
}

fn stamp_of(metadata: &Metadata) -> Stamp {
    (
        metadata.dev(),
        metadata.ino(),
        metadata.len(),
        metadata.mtime_nsec() + metadata.mtime() * 1_000_000_000,
    )
}

/// The last [`FILE_TAIL_BYTES`] of a file `length` bytes long, from the start of a line, and
/// the offset it starts at. Opened non-blocking, and refused if what was opened is not a
/// regular file (the path was swapped since the `stat`).
fn read_tail(path: &Path, length: u64) -> Result<(u64, String), CaptureError> {
    let cannot_read = |error: std::io::Error| {
        CaptureError::retryable(format!("cannot read {}: {error}", path.display()))
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(|error| {
            CaptureError::retryable(format!("cannot open {}: {error}", path.display()))
        })?;
    let opened = file.metadata().map_err(cannot_read)?;
    if let Some(refusal) = not_a_regular_file(path, &opened) {
        return Err(refusal.into_capture_error());
    }
    let start = length.saturating_sub(FILE_TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).map_err(cannot_read)?;
    let mut bytes = Vec::with_capacity((length - start) as usize);
    file.take(FILE_TAIL_BYTES)
        .read_to_end(&mut bytes)
        .map_err(cannot_read)?;
    let mut skipped = 0;
    if start > 0 {
        // Started mid-file: drop the partial first line.
        if let Some(newline) = bytes.iter().position(|b| *b == b'\n') {
            skipped = newline + 1;
        }
    }
    let text = String::from_utf8_lossy(&bytes[skipped..]).into_owned();
    Ok((start + skipped as u64, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn capture(source: &mut FileTail) -> Content {
        source.capture().await.unwrap()
    }

    /// The text of a capture, for comparing.
    fn text_of(content: &Content) -> Content {
        match content {
            Content::Text { text, .. } => Content::text(text.clone()),
            other => other.clone(),
        }
    }

    #[tokio::test]
    async fn a_file_tail_follows_appends_truncation_and_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("build.log");
        let mut source = FileTail::new(path.clone(), Lane::fixed("test", 1));
        assert!(
            matches!(capture(&mut source).await, Content::Absent { description } if description.contains("does not exist"))
        );

        std::fs::write(&path, "step 1\n").unwrap();
        assert_eq!(
            text_of(&capture(&mut source).await),
            Content::text("step 1\n")
        );
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut file, b"step 2\n").unwrap();
        assert_eq!(
            text_of(&capture(&mut source).await),
            Content::text("step 1\nstep 2\n")
        );

        // Truncated, then rotated: always what the path holds now.
        std::fs::write(&path, "fresh\n").unwrap();
        assert_eq!(
            text_of(&capture(&mut source).await),
            Content::text("fresh\n")
        );
        std::fs::rename(&path, dir.path().join("build.log.1")).unwrap();
        std::fs::write(&path, "rotated\n").unwrap();
        assert_eq!(
            text_of(&capture(&mut source).await),
            Content::text("rotated\n")
        );
    }

    #[tokio::test]
    async fn only_the_last_64_kib_is_read_from_a_line_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.log");
        let lines: String = (0..20_000).map(|n| format!("line {n}\n")).collect();
        std::fs::write(&path, &lines).unwrap();
        let Content::Text { text, .. } =
            capture(&mut FileTail::new(path, Lane::fixed("test", 1))).await
        else {
            panic!("text")
        };
        assert!(text.len() <= FILE_TAIL_BYTES as usize);
        assert!(
            text.starts_with("line "),
            "a whole first line: {:?}",
            &text[..20]
        );
        assert!(text.ends_with("line 19999\n"));
    }
}
