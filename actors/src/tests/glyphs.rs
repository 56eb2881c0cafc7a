//! A tiny 5x7 bitmap font, enough to draw words into synthetic frames for the OCR tests.

use crate::sight::content::Frame;

/// Rows of a glyph, `#` for ink.
fn glyph(c: char) -> [&'static str; 7] {
    match c {
        'A' => [
            ".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#",
        ],
        'B' => [
            "####.", "#...#", "#...#", "####.", "#...#", "#...#", "####.",
        ],
        'D' => [
            "####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####.",
        ],
        'E' => [
            "#####", "#....", "#....", "####.", "#....", "#....", "#####",
        ],
        'F' => [
            "#####", "#....", "#....", "####.", "#....", "#....", "#....",
        ],
        'I' => [
            ".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.",
        ],
        'L' => [
            "#....", "#....", "#....", "#....", "#....", "#....", "#####",
        ],
        'P' => [
            "####.", "#...#", "#...#", "####.", "#....", "#....", "#....",
        ],
        'S' => [
            ".####", "#....", "#....", ".###.", "....#", "....#", "####.",
        ],
        'U' => [
            "#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.",
        ],
        ' ' => ["....."; 7],
        other => panic!("the test font has no glyph for {other:?}"),
    }
}

/// A white BGRA frame with `text` in black, each font pixel `scale` pixels wide.
pub fn render(text: &str, scale: u32) -> Frame {
    let margin = 4 * scale;
    let advance = 6 * scale;
    let width = 2 * margin + advance * text.chars().count() as u32;
    let height = 2 * margin + 7 * scale;
    let mut pixels = vec![255u8; (width * height * 4) as usize];
    for (index, c) in text.chars().enumerate() {
        for (row, bits) in glyph(c).iter().enumerate() {
            for (column, bit) in bits.chars().enumerate() {
                if bit != '#' {
                    continue;
                }
                let x0 = margin + index as u32 * advance + column as u32 * scale;
                let y0 = margin + row as u32 * scale;
                for y in y0..y0 + scale {
                    for x in x0..x0 + scale {
                        let at = ((y * width + x) * 4) as usize;
                        pixels[at..at + 3].copy_from_slice(&[0, 0, 0]);
                    }
                }
            }
        }
    }
    Frame::new(width, height, pixels)
}
