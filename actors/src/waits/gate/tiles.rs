//! A frame cut into 32x32 tiles, each with an xxh3 hash of its pixels.
//!
//! The pixel gate compares frames tile by tile instead of through a thumbnail or one
//! whole-frame hash, because those miss one new line of text (design.md, "Smart wait"). The
//! hashes also make a compact key for a frame (the vision cache). Pure computation: no
//! threads, no time.

use xxhash_rust::xxh3::xxh3_64;

use crate::waits::content::Frame;

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

/// A buffer one tile's bytes fit in, for [`hash_tile`].
fn tile_buffer() -> Vec<u8> {
    Vec::with_capacity(TILE_SIZE as usize * TILE_SIZE as usize * BYTES_PER_PIXEL)
}

/// The hash of tile `index` of `frame`: xxh3 of its BGRA bytes, row after row. Gathering the
/// rows into one buffer and hashing that runs as fast as memcpy and lets xxh3 use its
/// long-input path (measured against chaining per-row hashes).
fn hash_tile(frame: &Frame, grid: &TileGrid, index: usize, gathered: &mut Vec<u8>) -> u64 {
    let stride = frame.width as usize * BYTES_PER_PIXEL;
    let rect = grid.rect(index);
    let start = rect.x as usize * BYTES_PER_PIXEL;
    let end = start + rect.width as usize * BYTES_PER_PIXEL;
    gathered.clear();
    for y in rect.y..rect.y + rect.height {
        let row = &frame.pixels[y as usize * stride..][..stride];
        gathered.extend_from_slice(&row[start..end]);
    }
    xxh3_64(gathered)
}

/// Like [`hash_tiles`], for a frame of the same size as `previous`, whose tile hashes are
/// `previous_hashes`: a tile whose bytes are all those of `previous` keeps its hash, and only
/// the others are hashed. Exact (equal bytes, equal hash), and on an unchanged frame a
/// comparison of whole rows at memory speed instead of hashing every byte.
pub fn hash_tiles_since(
    previous: &Frame,
    previous_hashes: &[u64],
    frame: &Frame,
    hashes: &mut Vec<u64>,
) {
    let grid = TileGrid::of(frame);
    if TileGrid::of(previous) != grid || previous_hashes.len() != grid.len() {
        return hash_tiles(frame, hashes);
    }
    let stride = frame.width as usize * BYTES_PER_PIXEL;
    let tile_row_bytes = TILE_SIZE as usize * BYTES_PER_PIXEL;
    let columns = grid.columns as usize;
    let mut differs = vec![false; grid.len()];
    for y in 0..frame.height as usize {
        let row = &frame.pixels[y * stride..][..stride];
        let before = &previous.pixels[y * stride..][..stride];
        if row == before {
            continue;
        }
        let first = y / TILE_SIZE as usize * columns;
        for (column, flag) in differs[first..first + columns].iter_mut().enumerate() {
            let start = column * tile_row_bytes;
            let end = (start + tile_row_bytes).min(stride);
            *flag = *flag || row[start..end] != before[start..end];
        }
    }
    hashes.clear();
    hashes.reserve(grid.len());
    let mut gathered = tile_buffer();
    for (index, &changed) in differs.iter().enumerate() {
        hashes.push(if changed {
            hash_tile(frame, &grid, index, &mut gathered)
        } else {
            previous_hashes[index]
        });
    }
}

/// Counts the pixels of one tile whose colour differs between `a` and `b` (same size) by more
/// than `delta` in some channel, stopping early once the count reaches `enough`. Alpha is
/// ignored.
pub fn count_changed_pixels(
    a: &Frame,
    b: &Frame,
    rect: TileRect,
    delta: u8,
    enough: usize,
) -> usize {
    debug_assert_eq!((a.width, a.height), (b.width, b.height));
    let stride = a.width as usize * BYTES_PER_PIXEL;
    let start = rect.x as usize * BYTES_PER_PIXEL;
    let end = start + rect.width as usize * BYTES_PER_PIXEL;
    let mut changed = 0;
    for y in rect.y..rect.y + rect.height {
        let offset = y as usize * stride;
        let row_a = &a.pixels[offset + start..offset + end];
        let row_b = &b.pixels[offset + start..offset + end];
        if row_a == row_b {
            continue;
        }
        for (pixel_a, pixel_b) in row_a
            .chunks_exact(BYTES_PER_PIXEL)
            .zip(row_b.chunks_exact(BYTES_PER_PIXEL))
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
        let mut before_hashes = Vec::new();
        hash_tiles(&before, &mut before_hashes);
        // One byte in the last, narrow tile; one in the middle of the first row of tiles.
        for at in [
            ((39 * width + 69) * 4) as usize,
            ((5 * width + 40) * 4 + 2) as usize,
        ] {
            pixels[at] ^= 0x55;
        }
        let after = Frame::new(width, height, pixels);
        let (mut reused, mut fresh) = (Vec::new(), Vec::new());
        hash_tiles_since(&before, &before_hashes, &after, &mut reused);
        hash_tiles(&after, &mut fresh);
        assert_eq!(reused, fresh);
        let changed: Vec<usize> = (0..fresh.len())
            .filter(|&i| fresh[i] != before_hashes[i])
            .collect();
        assert_eq!(changed, [1, 5], "the two tiles touched, no more");
        hash_tiles_since(&after, &fresh, &after, &mut reused);
        assert_eq!(reused, fresh, "an unchanged frame keeps every hash");
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
        assert_eq!(
            count_changed_pixels(&before, &after, grid.rect(6), 24, 100),
            1
        );
        assert_eq!(
            count_changed_pixels(&before, &after, grid.rect(5), 24, 100),
            0
        );
    }

    #[test]
    fn small_colour_noise_is_below_the_delta_and_counting_stops_early() {
        let before = Frame::new(32, 32, solid(32, 32, [100, 100, 100, 255]));
        let dithered = Frame::new(32, 32, solid(32, 32, [104, 96, 108, 255]));
        let rect = TileGrid::of(&before).rect(0);
        assert_eq!(count_changed_pixels(&before, &dithered, rect, 24, 2000), 0);
        let changed = Frame::new(32, 32, solid(32, 32, [100, 200, 100, 255]));
        assert_eq!(
            count_changed_pixels(&before, &changed, rect, 24, 2000),
            1024
        );
        assert_eq!(count_changed_pixels(&before, &changed, rect, 24, 10), 10);
    }
}
