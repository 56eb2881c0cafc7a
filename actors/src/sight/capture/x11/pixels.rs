//! Turning an X11 ZPixmap image into BGRA bytes, whatever the server's depth, masks and
//! byte order.
//!
//! The common case (32 bits per pixel, least significant byte first, 8-bit channels at
//! 0xff0000 / 0xff00 / 0xff) is already BGRA except for the padding byte and is fixed in
//! place; everything else (16-bit 565, 15-bit, 30-bit, packed 24-bit, big-endian servers)
//! goes through a general per-pixel path. Pure: no X connection.

use std::sync::Arc;

use x11rb::protocol::xproto::{ImageOrder, VisualClass, Visualtype};

use crate::sight::content::Frame;

/// How the server lays out one image: from the pixmap format of the drawable's depth, the
/// server's byte order and the visual's channel masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelLayout {
    pub bits_per_pixel: u8,
    /// Each row is padded to a multiple of this many bits.
    pub scanline_pad: u8,
    pub most_significant_byte_first: bool,
    pub red_mask: u32,
    pub green_mask: u32,
    pub blue_mask: u32,
}

impl PixelLayout {
    /// The layout of a drawable with this visual, or why it cannot be captured.
    pub fn for_visual(
        visual: &Visualtype,
        bits_per_pixel: u8,
        scanline_pad: u8,
        byte_order: ImageOrder,
    ) -> Result<PixelLayout, String> {
        if !matches!(
            visual.class,
            VisualClass::TRUE_COLOR | VisualClass::DIRECT_COLOR
        ) {
            return Err(format!(
                "the window's visual is {:?} (a colour-mapped visual), which lookout cannot \
                 read as colours; run the X server at depth 16 or 24 (TrueColor)",
                visual.class
            ));
        }
        if !matches!(bits_per_pixel, 8 | 16 | 24 | 32) || !matches!(scanline_pad, 8 | 16 | 32) {
            return Err(format!(
                "the X server stores pixels in {bits_per_pixel} bits with rows padded to \
                 {scanline_pad} bits, a format lookout does not read"
            ));
        }
        Ok(PixelLayout {
            bits_per_pixel,
            scanline_pad,
            most_significant_byte_first: byte_order == ImageOrder::MSB_FIRST,
            red_mask: visual.red_mask,
            green_mask: visual.green_mask,
            blue_mask: visual.blue_mask,
        })
    }

    /// Bytes per row of an image `width` pixels wide.
    pub fn stride(&self, width: u32) -> usize {
        let bits = width as usize * self.bits_per_pixel as usize;
        let pad = self.scanline_pad as usize;
        bits.div_ceil(pad) * pad / 8
    }

    /// Bytes of a whole image.
    pub fn image_bytes(&self, width: u32, height: u32) -> usize {
        self.stride(width) * height as usize
    }

    /// Whether the image is already packed BGRX (only the padding byte needs to become an
    /// opaque alpha): 32 bits per pixel, least significant byte first, 8-bit channels, no
    /// row padding.
    pub fn is_packed_bgrx(&self, width: u32) -> bool {
        self.bits_per_pixel == 32
            && !self.most_significant_byte_first
            && (self.red_mask, self.green_mask, self.blue_mask) == (0xff_0000, 0xff00, 0xff)
            && self.stride(width) == width as usize * 4
    }

    /// Converts an image as the server sent it into a BGRA frame with opaque alpha (one copy
    /// of the pixels).
    pub fn to_frame(&self, data: &[u8], width: u32, height: u32) -> Result<Frame, String> {
        let needed = self.image_bytes(width, height);
        if data.len() < needed {
            return Err(format!(
                "the X server sent {} bytes for a {width}x{height} image that needs {needed}",
                data.len()
            ));
        }
        if self.is_packed_bgrx(width) {
            let mut pixels: Arc<[u8]> = Arc::from(&data[..needed]);
            make_opaque(Arc::get_mut(&mut pixels).expect("a fresh Arc is unique"));
            return Ok(Frame::new(width, height, pixels));
        }
        let mut pixels = zeroed_pixels(width as usize * height as usize * 4);
        let out = Arc::get_mut(&mut pixels).expect("a fresh Arc is unique");
        let stride = self.stride(width);
        let bytes_per_pixel = self.bits_per_pixel as usize / 8;
        let channels = [self.blue_mask, self.green_mask, self.red_mask].map(Channel::new);
        let rows = data.chunks_exact(stride).take(height as usize);
        for (row, out_row) in rows.zip(out.chunks_exact_mut(width as usize * 4)) {
            let pixels_in = row.chunks_exact(bytes_per_pixel).take(width as usize);
            for (raw, bgra) in pixels_in.zip(out_row.chunks_exact_mut(4)) {
                let value = if self.most_significant_byte_first {
                    raw.iter().fold(0u32, |v, &b| (v << 8) | u32::from(b))
                } else {
                    raw.iter().rev().fold(0u32, |v, &b| (v << 8) | u32::from(b))
                };
                for (byte, channel) in bgra.iter_mut().zip(&channels) {
                    *byte = channel.extract(value);
                }
                bgra[3] = 0xff;
            }
        }
        Ok(Frame::new(width, height, pixels))
    }
}

/// Pixels for a frame of `len` bytes, allocated once, to be written in place.
pub fn zeroed_pixels(len: usize) -> Arc<[u8]> {
    std::iter::repeat_n(0u8, len).collect()
}

/// Turns packed BGRX into BGRA by setting every fourth byte.
pub fn make_opaque(bgrx: &mut [u8]) {
    for pixel in bgrx.chunks_exact_mut(4) {
        pixel[3] = 0xff;
    }
}

/// One colour channel of a pixel value: where it sits and how to widen it to 8 bits.
#[derive(Clone, Copy)]
struct Channel {
    shift: u32,
    bits: u32,
    mask: u32,
}

impl Channel {
    fn new(mask: u32) -> Channel {
        Channel {
            shift: mask.trailing_zeros().min(31),
            bits: mask.count_ones(),
            mask,
        }
    }

    fn extract(&self, value: u32) -> u8 {
        if self.bits == 0 {
            return 0;
        }
        let raw = (value & self.mask) >> self.shift;
        if self.bits >= 8 {
            (raw >> (self.bits - 8)) as u8
        } else {
            // Scale so that the largest value is 255 (5-bit 31 → 255, not 248).
            (raw * 255 / ((1 << self.bits) - 1)) as u8
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(bits_per_pixel: u8, msb: bool, masks: (u32, u32, u32)) -> PixelLayout {
        PixelLayout {
            bits_per_pixel,
            scanline_pad: 32,
            most_significant_byte_first: msb,
            red_mask: masks.0,
            green_mask: masks.1,
            blue_mask: masks.2,
        }
    }

    const RGB888: (u32, u32, u32) = (0xff_0000, 0xff00, 0xff);

    fn bgra(layout: &PixelLayout, data: &[u8], width: u32, height: u32) -> Vec<u8> {
        layout
            .to_frame(data, width, height)
            .unwrap()
            .pixels
            .to_vec()
    }

    #[test]
    fn the_common_layout_only_gets_opaque_alpha() {
        let layout = layout(32, false, RGB888);
        let data = [1, 2, 3, 0, 4, 5, 6, 0];
        assert_eq!(bgra(&layout, &data, 2, 1), [1, 2, 3, 255, 4, 5, 6, 255]);
    }

    #[test]
    fn a_big_endian_server_is_swapped() {
        let layout = layout(32, true, RGB888);
        // 0x00RRGGBB most significant byte first: red 10, green 20, blue 30.
        let data = [0, 10, 20, 30];
        assert_eq!(bgra(&layout, &data, 1, 1), [30, 20, 10, 255]);
    }

    #[test]
    fn sixteen_bit_565_is_widened_to_full_range_and_row_padding_is_skipped() {
        let layout = layout(16, false, (0xf800, 0x07e0, 0x001f));
        // 3 pixels of 2 bytes = 6 bytes, padded to 8 per row; two rows.
        let red = 0xf800u16.to_le_bytes();
        let green = 0x07e0u16.to_le_bytes();
        let blue = 0x001fu16.to_le_bytes();
        let mut data = Vec::new();
        for _ in 0..2 {
            data.extend(red);
            data.extend(green);
            data.extend(blue);
            data.extend([0xee, 0xee]);
        }
        assert_eq!(layout.stride(3), 8);
        let row = [0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255];
        assert_eq!(bgra(&layout, &data, 3, 2), [row, row].concat());
    }

    #[test]
    fn packed_24_bit_and_30_bit_deep_colour_are_read() {
        let packed = layout(24, false, RGB888);
        assert_eq!(bgra(&packed, &[7, 8, 9, 0], 1, 1), [7, 8, 9, 255]);
        let deep = layout(32, false, (0x3ff0_0000, 0x000f_fc00, 0x0000_03ff));
        let white_red: u32 = 0x3ff0_0000;
        assert_eq!(
            bgra(&deep, &white_red.to_le_bytes(), 1, 1),
            [0, 0, 255, 255]
        );
    }

    #[test]
    fn a_short_image_is_an_error_and_colour_maps_are_refused() {
        assert!(layout(32, false, RGB888).to_frame(&[0; 7], 2, 1).is_err());
        let visual = Visualtype {
            visual_id: 0x21,
            class: VisualClass::PSEUDO_COLOR,
            bits_per_rgb_value: 8,
            colormap_entries: 256,
            red_mask: 0,
            green_mask: 0,
            blue_mask: 0,
        };
        let error = PixelLayout::for_visual(&visual, 8, 32, ImageOrder::LSB_FIRST).unwrap_err();
        assert!(error.contains("TrueColor"), "{error}");
    }
}
