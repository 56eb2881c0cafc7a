//! Newline-delimited framing with a size limit.
//!
//! A line longer than the limit is reported once as `TooLong` and skipped up to its newline
//! without ever being held in memory whole, so one oversize request cannot exhaust memory
//! and the connection stays usable for the next line.

use tokio::io::{AsyncRead, AsyncReadExt};

const READ_CHUNK: usize = 16 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// One line, without its newline (a trailing `\r` is removed too).
    Line(Vec<u8>),
    /// A line over the limit was skipped; `bytes` counts what was read of it.
    TooLong { bytes: usize },
    /// The peer closed the connection (a final unterminated line is returned first).
    Eof,
}

pub struct LineReader<R> {
    reader: R,
    limit: usize,
    buffer: Vec<u8>,
    /// Set while skipping the rest of an oversize line: bytes skipped so far.
    skipping: Option<usize>,
    eof: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R, limit: usize) -> Self {
        Self {
            reader,
            limit,
            buffer: Vec::new(),
            skipping: None,
            eof: false,
        }
    }

    /// The next frame. Cancel-safe: bytes already read stay buffered for the next call.
    pub async fn next_frame(&mut self) -> std::io::Result<Frame> {
        loop {
            if let Some(frame) = self.frame_from_buffer() {
                return Ok(frame);
            }
            if self.eof {
                return Ok(self.finish());
            }
            self.buffer.reserve(READ_CHUNK);
            if self.reader.read_buf(&mut self.buffer).await? == 0 {
                self.eof = true;
            }
        }
    }

    fn frame_from_buffer(&mut self) -> Option<Frame> {
        let newline = self.buffer.iter().position(|&b| b == b'\n');
        if let Some(skipped) = self.skipping {
            return match newline {
                Some(end) => {
                    self.buffer.drain(..=end);
                    self.skipping = None;
                    Some(Frame::TooLong {
                        bytes: skipped + end,
                    })
                }
                None => {
                    self.skipping = Some(skipped + self.buffer.len());
                    self.buffer.clear();
                    None
                }
            };
        }
        match newline {
            Some(end) if end > self.limit => {
                self.buffer.drain(..=end);
                Some(Frame::TooLong { bytes: end })
            }
            Some(end) => {
                let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Some(Frame::Line(line))
            }
            None if self.buffer.len() > self.limit => {
                self.skipping = Some(self.buffer.len());
                self.buffer.clear();
                None
            }
            None => None,
        }
    }

    fn finish(&mut self) -> Frame {
        if let Some(skipped) = self.skipping.take() {
            return Frame::TooLong { bytes: skipped };
        }
        if self.buffer.is_empty() {
            Frame::Eof
        } else {
            Frame::Line(std::mem::take(&mut self.buffer))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], limit: usize) -> Vec<Frame> {
        let mut reader = LineReader::new(input, limit);
        let mut frames = Vec::new();
        loop {
            let frame = reader.next_frame().await.unwrap();
            let done = frame == Frame::Eof;
            frames.push(frame);
            if done {
                return frames;
            }
        }
    }

    #[tokio::test]
    async fn splits_lines_and_strips_crlf() {
        assert_eq!(
            frames(b"a\r\nbc\n\nlast", 10).await,
            [
                Frame::Line(b"a".to_vec()),
                Frame::Line(b"bc".to_vec()),
                Frame::Line(vec![]),
                Frame::Line(b"last".to_vec()),
                Frame::Eof
            ]
        );
    }

    #[tokio::test]
    async fn an_oversize_line_is_skipped_and_the_next_one_read() {
        let mut input = vec![b'x'; 100_000];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(
            frames(&input, 1000).await,
            [
                Frame::TooLong { bytes: 100_000 },
                Frame::Line(b"ok".to_vec()),
                Frame::Eof
            ]
        );
        assert_eq!(
            frames(b"12345\n", 5).await,
            [Frame::Line(b"12345".to_vec()), Frame::Eof]
        );
        assert_eq!(
            frames(b"123456\n", 5).await,
            [Frame::TooLong { bytes: 6 }, Frame::Eof]
        );
    }
}
