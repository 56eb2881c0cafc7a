//! A frame kept compactly: each 32x32 tile compressed on its own with LZ4, so that a tile
//! which differs can be read back without the rest of the frame.
//!
//! What the pixel gate remembers of the frame its judge saw (to count the pixels that
//! really changed in a tile whose hash differs). A window or a desktop is mostly flat
//! colour and repeated glyphs, so a tile shrinks to a few dozen bytes when plain and to a
//! fraction of its 4 KiB when it holds text; a wait then keeps a tenth or less of a full
//! frame between captures (BENCHMARKS.md). Pure computation.

use crate::sight::content::Frame;
use crate::sight::gate::tiles::{self, TileGrid};

/// A frame's tiles, each compressed on its own. See the module documentation.
pub struct CompactFrame {
    grid: TileGrid,
    /// The compressed tiles, one after the other.
    data: Vec<u8>,
    /// Where each tile's compressed bytes end in `data`.
    ends: Vec<u32>,
}

impl std::fmt::Debug for CompactFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CompactFrame({}x{}, {} bytes)",
            self.grid.width,
            self.grid.height,
            self.data.len()
        )
    }
}

impl CompactFrame {
    /// `frame`, compressed tile by tile.
    pub fn of(frame: &Frame) -> CompactFrame {
        let grid = TileGrid::of(frame);
        let mut gathered = tiles::tile_buffer();
        let mut compressed = vec![0; lz4_flex::block::get_maximum_output_size(gathered.capacity())];
        let mut data = Vec::new();
        let mut ends = Vec::with_capacity(grid.len());
        for index in 0..grid.len() {
            tiles::gather_tile(frame, grid.rect(index), &mut gathered);
            let size = lz4_flex::block::compress_into(&gathered, &mut compressed)
                .expect("the output buffer holds the largest compressed tile");
            data.extend_from_slice(&compressed[..size]);
            ends.push(u32::try_from(data.len()).expect("a compact frame is under 4 GiB"));
        }
        data.shrink_to_fit();
        CompactFrame { grid, data, ends }
    }

    /// How the frame is cut into tiles.
    pub fn grid(&self) -> TileGrid {
        self.grid
    }

    /// The bytes of tile `index`, as [`tiles::gather_tile`] lays them out, into `out`.
    pub fn tile(&self, index: usize, out: &mut Vec<u8>) {
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before]) as usize;
        let end = self.ends[index] as usize;
        let rect = self.grid.rect(index);
        out.clear();
        out.resize(rect.width as usize * rect.height as usize * 4, 0);
        let written = lz4_flex::block::decompress_into(&self.data[start..end], out)
            .expect("a tile compressed by CompactFrame::of decompresses");
        debug_assert_eq!(written, out.len());
    }

    /// The heap bytes this frame holds.
    pub fn heap_bytes(&self) -> usize {
        self.data.capacity() + self.ends.capacity() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tile_reads_back_as_it_was_and_a_plain_window_shrinks_to_a_fraction() {
        // 100x70: partial tiles at the right and bottom edges; a plain background with a
        // few "glyphs" of noise.
        let (width, height) = (100u32, 70u32);
        let mut pixels = [40u8, 44, 48, 255].repeat(width as usize * height as usize);
        for (i, byte) in pixels.iter_mut().enumerate().skip(4 * 1000).take(4 * 300) {
            *byte = (i * 37 % 251) as u8;
        }
        let frame = Frame::new(width, height, pixels);
        let compact = CompactFrame::of(&frame);
        let (mut read, mut expected) = (Vec::new(), Vec::new());
        for index in 0..compact.grid().len() {
            compact.tile(index, &mut read);
            tiles::gather_tile(&frame, compact.grid().rect(index), &mut expected);
            assert_eq!(read, expected, "tile {index}");
        }
        assert!(
            compact.heap_bytes() * 4 < frame.pixels.len(),
            "{compact:?} for a {}-byte frame",
            frame.pixels.len()
        );
    }

    #[test]
    fn clones_of_a_frame_share_one_compact_form() {
        let frame = Frame::new(64, 64, vec![7u8; 64 * 64 * 4]);
        let clone = frame.clone();
        assert!(std::sync::Arc::ptr_eq(&frame.compact(), &clone.compact()));
        let same_pixels = Frame::new(64, 64, vec![7u8; 64 * 64 * 4]);
        assert_eq!(frame, same_pixels);
        assert_ne!(frame.id(), same_pixels.id());
    }
}
