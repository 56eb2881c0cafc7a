//! Synthetic screens for the pixel gate's tests and benchmark: a canvas with filled
//! rectangles and text in a fake 8x16 font whose glyphs ink about a third of their cell, as
//! real text does. Test support only (`actors::testkit`, feature `testkit`, for the gate
//! benchmark).

#![allow(dead_code)] // the tests and the benchmark each use a part

use super::Frame;

pub const BACKGROUND: [u8; 4] = [30, 30, 30, 255];
pub const FOREGROUND: [u8; 4] = [220, 220, 220, 255];

/// A BGRA picture drawn with a few primitives.
#[derive(Clone)]
pub struct Canvas {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Canvas {
    pub fn new(width: u32, height: u32) -> Canvas {
        Canvas {
            width,
            height,
            pixels: BACKGROUND.repeat(width as usize * height as usize),
        }
    }

    pub fn fill(&mut self, x: u32, y: u32, width: u32, height: u32, colour: [u8; 4]) {
        for row in y..(y + height).min(self.height) {
            for column in x..(x + width).min(self.width) {
                let at = (row * self.width + column) as usize * 4;
                self.pixels[at..at + 4].copy_from_slice(&colour);
            }
        }
    }

    /// Text in an 8x16 cell font whose glyphs are a fixed pseudo-random pattern per
    /// character, about a third of the cell inked, like real text.
    pub fn text(&mut self, x: u32, y: u32, text: &str) {
        for (position, character) in text.chars().enumerate() {
            if character == ' ' {
                continue;
            }
            let cell_x = x + position as u32 * 8;
            for gy in 1..15 {
                for gx in 1..7 {
                    let mut bits = (character as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                        ^ u64::from(gy * 8 + gx).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
                    bits ^= bits >> 29;
                    bits = bits.wrapping_mul(0x1656_67B1_9E37_79F9);
                    if (bits >> 32).is_multiple_of(3) {
                        self.fill(cell_x + gx, y + gy, 1, 1, FOREGROUND);
                    }
                }
            }
        }
    }

    pub fn frame(&self) -> Frame {
        Frame::new(self.width, self.height, self.pixels.clone())
    }
}
