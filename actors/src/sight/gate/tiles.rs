//! A frame cut into 32x32 tiles, each with an xxh3 hash of its pixels.
//!
//! The pixel gate compares frames tile by tile instead of through a thumbnail or one
//! whole-frame hash, because those miss one new line of text (docs/contract.md §8). The
//! hashes also make a compact key for a frame (the vision cache). Pure computation: no
//! threads, no time.

use twox_hash::XxHash3_64;

use crate::sight::content::Frame;

/// Tile edge in pixels. The last column and row of tiles may be narrower.
pub const TILE_SIZE: u32 = 32;

const BYTES_PER_PIXEL: usize = 4;

/// The most tiles [`TileGrid::neighbourhood`] yields: a 3x3 block.
pub const NEIGHBOURHOOD_TILES: usize = 9;

/// How a frame of a given size is cut into tiles; tiles are numbered row by row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileGrid {
    pub width: u32,
    pub height: u32,
    pub columns: u32,
    pub rows: u32,
}

/// A tile's place in its frame, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileRect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl TileRect {
    /// The smallest rectangle holding both.
    pub fn union(self, other: TileRect) -> TileRect {
        let x = self.x.min(other.x);
        let y = self.y.min(other.y);
        let right = (self.x + self.width).max(other.x + other.width);
        let bottom = (self.y + self.height).max(other.y + other.height);
        TileRect {
            x,
            y,
            width: right - x,
            height: bottom - y,
        }
    }

    /// Grown by `margin` on every side, within a `width`x`height` frame.
    pub fn padded(self, margin: u32, width: u32, height: u32) -> TileRect {
        let x = self.x.saturating_sub(margin);
        let y = self.y.saturating_sub(margin);
        let right = (self.x + self.width + margin).min(width);
        let bottom = (self.y + self.height + margin).min(height);
        TileRect {
            x,
            y,
            width: right.saturating_sub(x),
            height: bottom.saturating_sub(y),
        }
    }
}

impl TileGrid {
    pub fn new(width: u32, height: u32) -> TileGrid {
        TileGrid {
            width,
            height,
            columns: width.div_ceil(TILE_SIZE),
            rows: height.div_ceil(TILE_SIZE),
        }
    }

    pub fn of(frame: &Frame) -> TileGrid {
        TileGrid::new(frame.width, frame.height)
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        self.columns as usize * self.rows as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn rect(&self, index: usize) -> TileRect {
        let column = index as u32 % self.columns;
        let row = index as u32 / self.columns;
        let x = column * TILE_SIZE;
        let y = row * TILE_SIZE;
        TileRect {
            x,
            y,
            width: TILE_SIZE.min(self.width - x),
            height: TILE_SIZE.min(self.height - y),
        }
    }

    /// The tile itself and the up to eight tiles around it: at most
    /// [`NEIGHBOURHOOD_TILES`], each once.
    pub fn neighbourhood(&self, index: usize) -> impl Iterator<Item = usize> + use<> {
        let columns = self.columns as i64;
        let rows = self.rows as i64;
        let column = index as i64 % columns;
        let row = index as i64 / columns;
        (-1..=1).flat_map(move |dy| {
            (-1..=1).filter_map(move |dx| {
                let (x, y) = (column + dx, row + dy);
                ((0..columns).contains(&x) && (0..rows).contains(&y))
                    .then(|| (y * columns + x) as usize)
            })
        })
    }
}

/// Hashes every tile of `frame` into `hashes` (cleared first; reuse it between frames to
/// avoid an allocation). A tile's hash is xxh3 of its BGRA bytes, row after row.
pub fn hash_tiles(frame: &Frame, hashes: &mut Vec<u64>) {
    let grid = TileGrid::of(frame);
    hashes.clear();
    hashes.reserve(grid.len());
    let mut gathered = tile_buffer();
    for index in 0..grid.len() {
        hashes.push(hash_tile(frame, &grid, index, &mut gathered));
    }
}

/// Hashes every row of `frame` into `rows` (cleared first): xxh3 of the row's BGRA bytes,
/// straight from the frame. What tells [`hash_tiles_since`] which tiles may have changed
/// without keeping the frame before.
pub fn hash_rows(frame: &Frame, rows: &mut Vec<u64>) {
    let stride = frame.width as usize * BYTES_PER_PIXEL;
    rows.clear();
    rows.extend(
        frame
            .pixels
            .chunks_exact(stride.max(1))
            .map(XxHash3_64::oneshot),
    );
}

/// A buffer one tile's bytes fit in, for [`gather_tile`].
pub fn tile_buffer() -> Vec<u8> {
    Vec::with_capacity(TILE_SIZE as usize * TILE_SIZE as usize * BYTES_PER_PIXEL)
}

/// Copies the BGRA bytes of `rect` of `frame` into `gathered` (cleared first), row after
/// row: `rect.width * 4` bytes per row.
pub fn gather_tile(frame: &Frame, rect: TileRect, gathered: &mut Vec<u8>) {
    let stride = frame.width as usize * BYTES_PER_PIXEL;
    let start = rect.x as usize * BYTES_PER_PIXEL;
    let end = start + rect.width as usize * BYTES_PER_PIXEL;
    gathered.clear();
    for y in rect.y..rect.y + rect.height {
        let row = &frame.pixels[y as usize * stride..][..stride];
        gathered.extend_from_slice(&row[start..end]);
    }
}

/// The hash of tile `index` of `frame`: xxh3 of its BGRA bytes, row after row. Gathering the
/// rows into one buffer and hashing that runs as fast as memcpy and lets xxh3 use its
/// long-input path (measured against chaining per-row hashes).
fn hash_tile(frame: &Frame, grid: &TileGrid, index: usize, gathered: &mut Vec<u8>) -> u64 {
    gather_tile(frame, grid.rect(index), gathered);
    XxHash3_64::oneshot(gathered)
}

/// Like [`hash_tiles`], for a frame of the same size as the capture before, whose row and
/// tile hashes are `previous_rows` and `previous_hashes`; also hashes `frame`'s rows into
/// `rows`. A band of tiles none of whose rows changed keeps its tiles' hashes, and only the
/// other bands are hashed again: on an unchanged frame one pass of xxh3 over the rows, at
/// about the speed of memcpy, and no copy of the frame before kept to compare with. As exact
/// as the tile hashes themselves (a row hash, like a tile hash, is a 64-bit xxh3).
pub fn hash_tiles_since(
    previous_rows: &[u64],
    previous_hashes: &[u64],
    frame: &Frame,
    rows: &mut Vec<u64>,
    hashes: &mut Vec<u64>,
) {
    let grid = TileGrid::of(frame);
    hash_rows(frame, rows);
    if previous_rows.len() != rows.len() || previous_hashes.len() != grid.len() {
        return hash_tiles(frame, hashes);
    }
    let columns = grid.columns as usize;
    hashes.clear();
    hashes.reserve(grid.len());
    let mut gathered = tile_buffer();
    let bands = rows
        .chunks(TILE_SIZE as usize)
        .zip(previous_rows.chunks(TILE_SIZE as usize));
    for (band, (now, before)) in bands.enumerate() {
        let first = band * columns;
        if now == before {
            hashes.extend_from_slice(&previous_hashes[first..first + columns]);
        } else {
            for index in first..first + columns {
                hashes.push(hash_tile(frame, &grid, index, &mut gathered));
            }
        }
    }
}

/// Counts the pixels of one tile whose colour differs between `seen` (the tile's bytes as
/// [`gather_tile`] lays them out) and `frame` by more than `delta` in some channel, stopping
/// early once the count reaches `enough`. Alpha is ignored.
pub fn count_changed_pixels(
    seen: &[u8],
    frame: &Frame,
    rect: TileRect,
    delta: u8,
    enough: usize,
) -> usize {
    let stride = frame.width as usize * BYTES_PER_PIXEL;
    let start = rect.x as usize * BYTES_PER_PIXEL;
    let tile_stride = rect.width as usize * BYTES_PER_PIXEL;
    debug_assert_eq!(seen.len(), tile_stride * rect.height as usize);
    let mut changed = 0;
    for (row_seen, y) in seen.chunks_exact(tile_stride).zip(rect.y..) {
        let offset = y as usize * stride + start;
        let row_now = &frame.pixels[offset..offset + tile_stride];
        if row_seen == row_now {
            continue;
        }
        for (pixel_a, pixel_b) in row_seen
            .chunks_exact(BYTES_PER_PIXEL)
            .zip(row_now.chunks_exact(BYTES_PER_PIXEL))
        {
            let differs = pixel_a[..3]
                .iter()
                .zip(&pixel_b[..3])
                .any(|(&x, &y)| x.abs_diff(y) > delta);
            if differs {
                changed += 1;
                if changed >= enough {
                    return changed;
                }
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_reused_from_the_frame_before_are_the_hashes_of_the_frame() {
        // 70x40: partial tiles at the right and bottom edges.
        let (width, height) = (70u32, 40u32);
        let mut pixels: Vec<u8> = (0..width * height * 4)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let before = Frame::new(width, height, pixels.clone());
        let (mut before_rows, mut before_hashes) = (Vec::new(), Vec::new());
        hash_rows(&before, &mut before_rows);
        hash_tiles(&before, &mut before_hashes);
        // One byte in the last, narrow tile; one in the middle of the first row of tiles.
        for at in [
            ((39 * width + 69) * 4) as usize,
            ((5 * width + 40) * 4 + 2) as usize,
        ] {
            pixels[at] ^= 0x55;
        }
        let after = Frame::new(width, height, pixels);
        let (mut rows, mut reused, mut fresh) = (Vec::new(), Vec::new(), Vec::new());
        hash_tiles_since(&before_rows, &before_hashes, &after, &mut rows, &mut reused);
        hash_tiles(&after, &mut fresh);
        assert_eq!(reused, fresh);
        let changed: Vec<usize> = (0..fresh.len())
            .filter(|&i| fresh[i] != before_hashes[i])
            .collect();
        assert_eq!(changed, [1, 5], "the two tiles touched, no more");
        let changed_rows: Vec<usize> = (0..rows.len())
            .filter(|&y| rows[y] != before_rows[y])
            .collect();
        assert_eq!(changed_rows, [5, 39]);
        let after_rows = rows.clone();
        hash_tiles_since(&after_rows, &fresh, &after, &mut rows, &mut reused);
        assert_eq!(reused, fresh, "an unchanged frame keeps every hash");
        // Stale hashes handed in for an unchanged band are kept: only changed bands are
        // hashed again.
        let stale = vec![7u64; fresh.len()];
        hash_tiles_since(&after_rows, &stale, &after, &mut rows, &mut reused);
        assert_eq!(reused, stale);
    }

    fn solid(width: u32, height: u32, bgra: [u8; 4]) -> Vec<u8> {
        bgra.repeat(width as usize * height as usize)
    }

    #[test]
    fn partial_edge_tiles_are_counted_and_sized() {
        let grid = TileGrid::new(70, 33);
        assert_eq!((grid.columns, grid.rows, grid.len()), (3, 2, 6));
        assert_eq!(
            grid.rect(2),
            TileRect {
                x: 64,
                y: 0,
                width: 6,
                height: 32
            }
        );
        assert_eq!(
            grid.rect(5),
            TileRect {
                x: 64,
                y: 32,
                width: 6,
                height: 1
            }
        );
        let mut around_corner: Vec<usize> = grid.neighbourhood(0).collect();
        around_corner.sort_unstable();
        assert_eq!(around_corner, [0, 1, 3, 4]);
        assert_eq!(grid.neighbourhood(4).count(), 6);
        let inner = TileGrid::new(5 * TILE_SIZE, 5 * TILE_SIZE);
        assert_eq!(inner.neighbourhood(12).count(), NEIGHBOURHOOD_TILES);
    }

    #[test]
    fn one_changed_pixel_changes_exactly_its_tile_hash() {
        let before = Frame::new(100, 70, solid(100, 70, [10, 20, 30, 255]));
        let mut pixels = before.pixels.to_vec();
        let (x, y) = (65usize, 40usize);
        pixels[(y * 100 + x) * 4] = 200;
        let after = Frame::new(100, 70, pixels);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        hash_tiles(&before, &mut a);
        hash_tiles(&after, &mut b);
        let grid = TileGrid::of(&before);
        let changed: Vec<usize> = (0..grid.len()).filter(|&i| a[i] != b[i]).collect();
        assert_eq!(changed, [6]); // column 2, row 1 of a 4-column grid
        let mut seen = tile_buffer();
        gather_tile(&before, grid.rect(6), &mut seen);
        assert_eq!(
            count_changed_pixels(&seen, &after, grid.rect(6), 24, 100),
            1
        );
        gather_tile(&before, grid.rect(5), &mut seen);
        assert_eq!(
            count_changed_pixels(&seen, &after, grid.rect(5), 24, 100),
            0
        );
    }

    #[test]
    fn small_colour_noise_is_below_the_delta_and_counting_stops_early() {
        let before = Frame::new(32, 32, solid(32, 32, [100, 100, 100, 255]));
        let dithered = Frame::new(32, 32, solid(32, 32, [104, 96, 108, 255]));
        let rect = TileGrid::of(&before).rect(0);
        let mut seen = tile_buffer();
        gather_tile(&before, rect, &mut seen);
        assert_eq!(count_changed_pixels(&seen, &dithered, rect, 24, 2000), 0);
        let changed = Frame::new(32, 32, solid(32, 32, [100, 200, 100, 255]));
        assert_eq!(count_changed_pixels(&seen, &changed, rect, 24, 2000), 1024);
        assert_eq!(count_changed_pixels(&seen, &changed, rect, 24, 10), 10);
    }
}
