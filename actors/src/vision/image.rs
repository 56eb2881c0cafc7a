//! Image work for the vision backends: shrinking a frame, encoding it as PNG or JPEG,
//! rendering it grey for OCR, and hashing content for the cache.
//!
//! Everything here is CPU work on whole frames: callers run it on a blocking thread. Frames
//! are BGRA; the fourth byte is ignored (an X11 depth-24 window leaves it undefined, so it is
//! not alpha and must not take part in resizing).

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use twox_hash::XxHash3_128;

use crate::sight::content::{Content, Frame};
use crate::sight::gate::tiles::TileRect;
use crate::vision::backend::EncodedImage;

/// How frames are sent to a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSettings {
    /// The long side of the frame sent, in pixels; larger frames are shrunk to it.
    pub max_px: u32,
    pub format: ImageFormat,
}

impl Default for ImageSettings {
    fn default() -> Self {
        Self {
            max_px: 1280,
            format: ImageFormat::Png,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// Lossless: sharp text, larger uploads.
    Png,
    /// Quality 1–100: smaller uploads, softer text.
    Jpeg { quality: u8 },
}

/// The frame shrunk to `settings.max_px` on its long side (never enlarged) and encoded.
pub fn encode_frame(frame: &Frame, settings: ImageSettings) -> Result<EncodedImage, String> {
    let (width, height) = fit(frame.width, frame.height, settings.max_px);
    let shrunk;
    let bgra: &[u8] = if (width, height) == (frame.width, frame.height) {
        &frame.pixels
    } else {
        shrunk = shrink(frame, width, height)?;
        &shrunk
    };
    match settings.format {
        ImageFormat::Png => {
            let rgb: Vec<u8> = bgra
                .chunks_exact(4)
                .flat_map(|p| [p[2], p[1], p[0]])
                .collect();
            let bytes = encode_png(&rgb, width, height, png::ColorType::Rgb)?;
            Ok(EncodedImage {
                bytes,
                media_type: "image/png",
                width,
                height,
            })
        }
        ImageFormat::Jpeg { quality } => {
            let (w, h) = (
                u16::try_from(width).map_err(|_| "the frame is too wide for JPEG".to_owned())?,
                u16::try_from(height).map_err(|_| "the frame is too tall for JPEG".to_owned())?,
            );
            let mut bytes = Vec::new();
            jpeg_encoder::Encoder::new(&mut bytes, quality.clamp(1, 100))
                .encode(bgra, w, h, jpeg_encoder::ColorType::Bgra)
                .map_err(|error| format!("cannot encode the frame as JPEG: {error}"))?;
            Ok(EncodedImage {
                bytes,
                media_type: "image/jpeg",
                width,
                height,
            })
        }
    }
}

/// The frame at full size in 8-bit grey, PNG-encoded: what tesseract reads best.
pub fn encode_grey(frame: &Frame) -> Result<EncodedImage, String> {
    let grey: Vec<u8> = frame
        .pixels
        .chunks_exact(4)
        .map(|p| {
            ((u32::from(p[2]) * 299 + u32::from(p[1]) * 587 + u32::from(p[0]) * 114) / 1000) as u8
        })
        .collect();
    let bytes = encode_png(&grey, frame.width, frame.height, png::ColorType::Grayscale)?;
    Ok(EncodedImage {
        bytes,
        media_type: "image/png",
        width: frame.width,
        height: frame.height,
    })
}

/// A region no larger than this many pixels is read at twice its size: the small crops of a
/// change and small windows, where UI fonts of 8–10 px lose words at their own size (an
/// xmessage dialog's button label was read only so).
pub const ENLARGE_BELOW_PIXELS: u32 = 300_000;

/// The light margin put around a region for tesseract, in pixels, as its documentation
/// advises: text touching the image's edge (a terminal drawn without padding, a change
/// cropped at a tile's edge) is read worse without one.
pub const OCR_MARGIN_PIXELS: u32 = 10;

/// A region of the frame in 8-bit grey, PNG-encoded, as dark text on a light ground: a
/// mostly dark region (a dark theme, a terminal) is inverted, which tesseract reads faster
/// and better. Shrinking would lose words, so it never shrinks; a small region is enlarged
/// twice (see [`ENLARGE_BELOW_PIXELS`]); a white margin goes around it
/// ([`OCR_MARGIN_PIXELS`]).
pub fn encode_grey_region(frame: &Frame, region: TileRect) -> Result<EncodedImage, String> {
    let right = (region.x + region.width).min(frame.width);
    let bottom = (region.y + region.height).min(frame.height);
    if region.x >= right || region.y >= bottom {
        return Err("the region to read is empty".into());
    }
    let (width, height) = (right - region.x, bottom - region.y);
    let mut grey = Vec::with_capacity(width as usize * height as usize);
    for y in region.y..bottom {
        let row = frame.row(y);
        let start = region.x as usize * 4;
        let end = right as usize * 4;
        grey.extend(row[start..end].chunks_exact(4).map(|p| {
            ((u32::from(p[2]) * 299 + u32::from(p[1]) * 587 + u32::from(p[0]) * 114) / 1000) as u8
        }));
    }
    let mean = grey.iter().map(|&v| u64::from(v)).sum::<u64>() / grey.len() as u64;
    if mean < 128 {
        grey.iter_mut().for_each(|value| *value = 255 - *value);
    }
    let (grey, width, height) = if width * height <= ENLARGE_BELOW_PIXELS {
        (
            enlarge_grey(&grey, width, height, 2)?,
            width * 2,
            height * 2,
        )
    } else {
        (grey, width, height)
    };
    let (grey, width, height) = with_margin(&grey, width, height, OCR_MARGIN_PIXELS);
    let bytes = encode_png(&grey, width, height, png::ColorType::Grayscale)?;
    Ok(EncodedImage {
        bytes,
        media_type: "image/png",
        width,
        height,
    })
}

/// The size that fits `max_px` on the long side, keeping the aspect ratio (at least 1x1).
pub fn fit(width: u32, height: u32, max_px: u32) -> (u32, u32) {
    let long = width.max(height);
    if long <= max_px || max_px == 0 {
        return (width, height);
    }
    let scale = |side: u32| {
        ((u64::from(side) * u64::from(max_px) + u64::from(long) / 2) / u64::from(long)).max(1)
            as u32
    };
    (scale(width), scale(height))
}

fn shrink(frame: &Frame, width: u32, height: u32) -> Result<Vec<u8>, String> {
    let source = ImageRef::new(frame.width, frame.height, &frame.pixels, PixelType::U8x4)
        .map_err(|error| format!("cannot read the frame for resizing: {error}"))?;
    let mut target = Image::new(width, height, PixelType::U8x4);
    // Lanczos keeps small text legible; the fourth byte is not alpha (see the module doc).
    let options = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3))
        .use_alpha(false);
    Resizer::new()
        .resize(&source, &mut target, &options)
        .map_err(|error| format!("cannot shrink the frame: {error}"))?;
    Ok(target.into_vec())
}

/// An 8-bit grey image inside a white margin `margin` pixels wide, and its new size.
fn with_margin(grey: &[u8], width: u32, height: u32, margin: u32) -> (Vec<u8>, u32, u32) {
    let (outer_width, outer_height) = (width + 2 * margin, height + 2 * margin);
    let mut out = vec![u8::MAX; outer_width as usize * outer_height as usize];
    for (y, row) in grey.chunks_exact(width as usize).enumerate() {
        let at = (y + margin as usize) * outer_width as usize + margin as usize;
        out[at..at + width as usize].copy_from_slice(row);
    }
    (out, outer_width, outer_height)
}

/// An 8-bit grey image `times` as wide and tall (Lanczos, which keeps glyph edges sharp).
fn enlarge_grey(grey: &[u8], width: u32, height: u32, times: u32) -> Result<Vec<u8>, String> {
    let source = ImageRef::new(width, height, grey, PixelType::U8)
        .map_err(|error| format!("cannot read the region for enlarging: {error}"))?;
    let mut target = Image::new(width * times, height * times, PixelType::U8);
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3));
    Resizer::new()
        .resize(&source, &mut target, &options)
        .map_err(|error| format!("cannot enlarge the region: {error}"))?;
    Ok(target.into_vec())
}

fn encode_png(
    data: &[u8],
    width: u32,
    height: u32,
    color: png::ColorType,
) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let failed = |error: png::EncodingError| format!("cannot encode the frame as PNG: {error}");
    let mut writer = encoder.write_header().map_err(failed)?;
    writer.write_image_data(data).map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(bytes)
}

/// A 128-bit fingerprint of the content, the cache's key with the condition. Frames are
/// hashed whole with xxh3 (about 0.3 ms for 1080p): an identical frame, not a similar one.
pub fn content_key(content: &Content) -> u128 {
    let mut hasher = XxHash3_128::new();
    match content {
        Content::Frame(frame) => {
            hasher.write(b"frame");
            hasher.write(&frame.width.to_le_bytes());
            hasher.write(&frame.height.to_le_bytes());
            hasher.write(&frame.pixels);
        }
        Content::Text { text, exit, .. } => {
            hasher.write(b"text");
            match exit {
                None => hasher.write(b"running"),
                Some(exit) => hasher.write(format!("exit {:?}", exit.code).as_bytes()),
            }
            hasher.write(text.as_bytes());
        }
        Content::Absent { description } => {
            hasher.write(b"absent");
            hasher.write(description.as_bytes());
        }
    }
    hasher.finish_128()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of one colour (B, G, R) with a garbage fourth byte, as X11 may leave it.
    fn solid(width: u32, height: u32, bgr: [u8; 3]) -> Frame {
        let pixels: Vec<u8> = (0..width * height)
            .flat_map(|_| [bgr[0], bgr[1], bgr[2], 0])
            .collect();
        Frame::new(width, height, pixels)
    }

    #[test]
    fn the_long_side_is_fitted_and_small_frames_are_kept() {
        assert_eq!(fit(1920, 1080, 1280), (1280, 720));
        assert_eq!(fit(1080, 1920, 1280), (720, 1280));
        assert_eq!(fit(800, 600, 1280), (800, 600));
        assert_eq!(fit(5000, 2, 100), (100, 1));
    }

    #[test]
    fn a_shrunk_png_keeps_its_colours_even_with_a_zero_fourth_byte() {
        let frame = solid(300, 200, [0, 200, 0]);
        let image = encode_frame(
            &frame,
            ImageSettings {
                max_px: 150,
                format: ImageFormat::Png,
            },
        )
        .unwrap();
        assert_eq!(
            (image.width, image.height, image.media_type),
            (150, 100, "image/png")
        );
        let decoder = png::Decoder::new(std::io::Cursor::new(image.bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut rgb = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut rgb).unwrap();
        assert_eq!((info.width, info.height), (150, 100));
        assert_eq!(&rgb[..3], &[0, 200, 0]);
    }

    #[test]
    fn jpeg_is_smaller_than_png_for_a_noisy_frame_and_decodes() {
        let pixels: Vec<u8> = (0..400u32 * 300)
            .flat_map(|i| {
                let v = (i.wrapping_mul(2_654_435_761) >> 24) as u8;
                [v, v / 2, 255 - v, 0]
            })
            .collect();
        let frame = Frame::new(400, 300, pixels);
        let settings = |format| ImageSettings {
            max_px: 1280,
            format,
        };
        let png = encode_frame(&frame, settings(ImageFormat::Png)).unwrap();
        let jpeg = encode_frame(&frame, settings(ImageFormat::Jpeg { quality: 60 })).unwrap();
        assert_eq!(jpeg.media_type, "image/jpeg");
        assert!(jpeg.bytes.len() < png.bytes.len());
        let mut decoder = zune_jpeg::JpegDecoder::new(std::io::Cursor::new(&jpeg.bytes));
        decoder.decode_headers().unwrap();
        assert_eq!(decoder.dimensions(), Some((400, 300)));
    }

    #[test]
    fn a_region_for_ocr_is_dark_on_light_enlarged_and_inside_a_white_margin() {
        // A dark terminal region: inverted to light, enlarged twice, a margin around it.
        let frame = solid(100, 50, [20, 20, 20]);
        let region = TileRect {
            x: 10,
            y: 10,
            width: 40,
            height: 20,
        };
        let image = encode_grey_region(&frame, region).unwrap();
        let margin = OCR_MARGIN_PIXELS;
        assert_eq!(
            (image.width, image.height),
            (80 + 2 * margin, 40 + 2 * margin)
        );
        let decoder = png::Decoder::new(std::io::Cursor::new(image.bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut grey = vec![0; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut grey).unwrap();
        let at = |x: u32, y: u32| grey[(y * image.width + x) as usize];
        assert_eq!(at(0, 0), 255, "the margin is white");
        assert_eq!(at(margin - 1, margin + 5), 255);
        assert_eq!(at(margin + 5, margin + 5), 255 - 20, "the region, inverted");
        assert_eq!(at(image.width - 1, image.height - 1), 255);
    }

    #[test]
    fn content_keys_tell_frames_texts_and_exits_apart() {
        let a = Content::Frame(solid(4, 4, [1, 2, 3]));
        let b = Content::Frame(solid(4, 4, [1, 2, 4]));
        assert_eq!(content_key(&a), content_key(&a.clone()));
        assert_ne!(content_key(&a), content_key(&b));
        let running = Content::text("done");
        let ended = Content::Text {
            text: "done".into(),
            origin: Default::default(),
            exit: Some(crate::sight::content::ProcessExit { code: Some(0) }),
        };
        assert_ne!(content_key(&running), content_key(&ended));
    }
}
