//! Keyframes of screen segments: JPEG files (quality 70, at most 1280 pixels wide) in a
//! folder per segment under the data folder's `recall-frames/`, private to the user (0700
//! folders, 0600 files), within a byte budget: past it, the oldest segments' pictures go
//! first (folder names sort by start time). Blocking file work: callers run it on a
//! blocking thread.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::sight::content::Frame;
use crate::vision::image::{ImageFormat, ImageSettings, encode_frame};

/// JPEG quality of a keyframe: text stays legible at about 50–130 KB per 1280-wide frame.
const QUALITY: u8 = 70;
/// A keyframe's long side at most.
const MAX_PX: u32 = 1280;

#[derive(Debug)]
pub struct Keyframes {
    dir: PathBuf,
    budget_bytes: u64,
    used_bytes: u64,
}

impl Keyframes {
    /// The keyframes under `dir` (created 0700 when missing), what they use already counted.
    pub fn open(dir: &Path, budget_bytes: u64) -> std::io::Result<Keyframes> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let used_bytes = segment_folders(dir)?
            .iter()
            .map(|folder| folder_bytes(folder))
            .sum();
        Ok(Keyframes {
            dir: dir.to_owned(),
            budget_bytes,
            used_bytes,
        })
    }

    pub fn used_bytes(&self) -> u64 {
        self.used_bytes
    }

    /// Writes `frame` as the keyframe of segment `segment_id` at `offset_ms`, then keeps the
    /// folder within its budget. Returns what the index lists.
    pub fn write(
        &mut self,
        segment_id: &str,
        offset_ms: u64,
        frame: &Frame,
    ) -> Result<recall::Frame, String> {
        let image = encode_frame(
            frame,
            ImageSettings {
                max_px: MAX_PX,
                format: ImageFormat::Jpeg { quality: QUALITY },
            },
        )?;
        let folder = self.dir.join(segment_id);
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&folder)
            .map_err(|error| format!("cannot create {}: {error}", folder.display()))?;
        let path = folder.join(format!("{offset_ms:09}.jpg"));
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&path)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        file.write_all(&image.bytes)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        let bytes = image.bytes.len() as u64;
        self.used_bytes += bytes;
        self.keep_within_budget(segment_id);
        Ok(recall::Frame {
            offset_ms,
            path: path.to_string_lossy().into_owned(),
            bytes,
        })
    }

    /// Deletes the pictures of segment `segment_id` (a secret was read in it, or it was
    /// forgotten).
    pub fn remove_segment(&mut self, segment_id: &str) {
        let folder = self.dir.join(segment_id);
        let bytes = folder_bytes(&folder);
        if fs::remove_dir_all(&folder).is_ok() {
            self.used_bytes = self.used_bytes.saturating_sub(bytes);
        }
    }

    /// Deletes the oldest segments' pictures until the folder fits the budget, never those
    /// of `current`.
    fn keep_within_budget(&mut self, current: &str) {
        if self.used_bytes <= self.budget_bytes {
            return;
        }
        let Ok(folders) = segment_folders(&self.dir) else {
            return;
        };
        for folder in folders {
            if self.used_bytes <= self.budget_bytes {
                break;
            }
            if folder.file_name().is_some_and(|name| name == current) {
                continue;
            }
            let bytes = folder_bytes(&folder);
            if fs::remove_dir_all(&folder).is_ok() {
                self.used_bytes = self.used_bytes.saturating_sub(bytes);
            }
        }
    }
}

/// The segment folders, oldest first.
fn segment_folders(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut folders: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| entry.path())
        .collect();
    folders.sort();
    Ok(folders)
}

fn folder_bytes(folder: &Path) -> u64 {
    fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.metadata().ok())
                .map(|metadata| metadata.len())
                .sum()
        })
        .unwrap_or(0)
}
