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

    /// A reader that hands out its bytes in chunks of the given sizes, the way a socket may.
    struct Chunked {
        data: Vec<u8>,
        sizes: Vec<usize>,
        position: usize,
        reads: usize,
    }

    impl AsyncRead for Chunked {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            let size = self.sizes[self.reads % self.sizes.len()];
            let end = (self.position + size)
                .min(self.data.len())
                .min(self.position + buf.remaining());
            buf.put_slice(&self.data[self.position..end]);
            self.position = end;
            self.reads += 1;
            std::task::Poll::Ready(Ok(()))
        }
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        const LIMIT: usize = 64;

        /// A line without its newline, never ending in `\r` (that one is stripped).
        fn line() -> impl Strategy<Value = Vec<u8>> {
            prop_oneof![
                prop::collection::vec(
                    any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
                    0..LIMIT + 1
                ),
                prop::collection::vec(Just(b'x'), LIMIT + 1..4 * LIMIT),
            ]
            .prop_filter("no trailing carriage return", |line| {
                line.last() != Some(&b'\r')
            })
        }

        fn expected_frame(line: &[u8]) -> Frame {
            if line.len() > LIMIT {
                Frame::TooLong { bytes: line.len() }
            } else {
                Frame::Line(line.to_vec())
            }
        }

        proptest! {
            #[test]
            fn any_chunking_yields_each_line_or_one_too_long_then_eof(
                lines in prop::collection::vec(line(), 0..8),
                unterminated in prop::option::of(line().prop_filter("not empty", |l| !l.is_empty())),
                sizes in prop::collection::vec(1usize..300, 1..6),
            ) {
                let mut data = Vec::new();
                let mut expected = Vec::new();
                for line in &lines {
                    data.extend_from_slice(line);
                    data.push(b'\n');
                    expected.push(expected_frame(line));
                }
                if let Some(line) = &unterminated {
                    data.extend_from_slice(line);
                    expected.push(expected_frame(line));
                }
                expected.push(Frame::Eof);
                let reader = Chunked { data, sizes, position: 0, reads: 0 };
                let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
                let frames = runtime.block_on(async {
                    let mut lines = LineReader::new(reader, LIMIT);
                    let mut frames = Vec::new();
                    loop {
                        let frame = lines.next_frame().await.unwrap();
                        let done = frame == Frame::Eof;
                        frames.push(frame);
                        if done {
                            return frames;
                        }
                    }
                });
                prop_assert_eq!(frames, expected);
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
