//! `file:` targets: the last 64 KiB of a file, read by path on every capture, so truncation
//! and rotation (a new file under the same name) are followed; unchanged size and mtime reuse
//! the last read. A file that does not exist yet is an observation, not a failure.

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;

use crate::waits::capture::{CaptureError, Source};
use crate::waits::content::{Content, TextOrigin};

/// How much of a file's end is watched.
pub const FILE_TAIL_BYTES: u64 = 64 * 1024;

/// The tail of a file.
#[derive(Debug)]
pub struct FileTail {
    path: PathBuf,
    /// The stamp of the last read and what it gave.
    last: Option<(Stamp, Content)>,
}

/// What tells two versions of a file apart without reading it: (device, inode, size, mtime ns).
type Stamp = (u64, u64, u64, i64);

impl FileTail {
    pub fn new(path: PathBuf) -> Self {
        Self { path, last: None }
    }
}

impl Source for FileTail {
    fn describe(&self) -> String {
        format!("file {}", self.path.display())
    }

    /// A `stat` on the runtime thread decides; only a changed file is read, on the blocking
    /// pool. (An idle wait's poll then costs one `stat`, no thread hand-off and no copy: the
    /// lion's share of 500 idle waits' CPU went to the hand-off before.)
    fn capture(&mut self) -> BoxFuture<'_, Result<Content, CaptureError>> {
        Box::pin(async move {
            let Some(metadata) = stat(&self.path)? else {
                self.last = None;
                return Ok(Content::Absent {
                    description: format!("{} does not exist (yet)", self.path.display()),
                });
            };
            let stamp = stamp_of(&metadata);
            if let Some((last_stamp, content)) = &self.last
                && *last_stamp == stamp
            {
                return Ok(content.clone());
            }
            let path = self.path.clone();
            let length = metadata.len();
            let (start, text) = tokio::task::spawn_blocking(move || read_tail(&path, length))
                .await
                .map_err(|error| {
                    CaptureError::retryable(format!("reading the file failed: {error}"))
                })??;
            let content = Content::Text {
                text: Arc::from(text),
                exit: None,
                origin: TextOrigin::File {
                    device: metadata.dev(),
                    inode: metadata.ino(),
                    start,
                    end: length,
                },
            };
            self.last = Some((stamp, content.clone()));
            Ok(content)
        })
    }
}

/// The file's metadata, `None` when it does not exist.
fn stat(path: &std::path::Path) -> Result<Option<std::fs::Metadata>, CaptureError> {
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
    if metadata.is_dir() {
        return Err(CaptureError::permanent(format!(
            "{} is a folder; watch a file in it (file:/path/to/build.log)",
            path.display()
        )));
    }
    Ok(Some(metadata))
}

fn stamp_of(metadata: &std::fs::Metadata) -> Stamp {
    (
        metadata.dev(),
        metadata.ino(),
        metadata.len(),
        metadata.mtime_nsec() + metadata.mtime() * 1_000_000_000,
    )
}

/// The last [`FILE_TAIL_BYTES`] of a file `length` bytes long, from the start of a line, and
/// the offset it starts at.
fn read_tail(path: &std::path::Path, length: u64) -> Result<(u64, String), CaptureError> {
    let cannot_read = |error: std::io::Error| {
        CaptureError::retryable(format!("cannot read {}: {error}", path.display()))
    };
    let mut file = std::fs::File::open(path).map_err(|error| {
        CaptureError::retryable(format!("cannot open {}: {error}", path.display()))
    })?;
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
        let mut source = FileTail::new(path.clone());
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
        let Content::Text { text, .. } = capture(&mut FileTail::new(path)).await else {
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
