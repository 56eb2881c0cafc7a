//! Newline-delimited framing with a size limit.
//!
//! A line longer than the limit is reported once as `TooLong` and skipped up to its newline
//! without ever being held in memory whole, so one oversize request cannot exhaust memory
//! and the connection stays usable for the next line. With a pool (the server's memory
//! budget), what a connection buffers beyond its free share is taken from the pool first, so
//! many half-sent lines together cannot hold more than the pool.

use tokio::io::{AsyncRead, AsyncReadExt};

use super::budget::{Budget, FREE_LINE_BYTES, Held};

const READ_CHUNK: usize = 16 * 1024;
/// The least a reader waits for when the pool is empty.
const MIN_POOL_GRANT: usize = 1024;

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
    /// Where buffer space beyond `FREE_LINE_BYTES` comes from, and what was taken from it.
    pool: Option<Budget>,
    held: Held,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R, limit: usize) -> Self {
        Self {
            reader,
            limit,
            buffer: Vec::new(),
            skipping: None,
            eof: false,
            pool: None,
            held: Held::nothing(),
        }
    }

    /// A reader whose buffer beyond its free share is taken from `pool`, waiting for it.
    pub fn with_pool(reader: R, limit: usize, pool: Budget) -> Self {
        Self {
            pool: Some(pool),
            ..Self::new(reader, limit)
        }
    }

    /// True while part of a line (or of an oversize line being skipped) has arrived.
    pub fn has_partial(&self) -> bool {
        !self.buffer.is_empty() || self.skipping.is_some()
    }

    /// Waits until some bytes (or the end) arrive when nothing is buffered.
    pub async fn fill(&mut self) -> std::io::Result<()> {
        if self.buffer.is_empty() && !self.eof {
            self.read_chunk().await?;
        }
        Ok(())
    }

    /// Reads what arrives, at most a chunk, and only as much as the free share and the
    /// pool's bytes cover (waiting for the pool when it has nothing to give).
    async fn read_chunk(&mut self) -> std::io::Result<()> {
        let mut room = READ_CHUNK;
        if let Some(pool) = &self.pool {
            let allowed = FREE_LINE_BYTES + self.held.bytes();
            let wanted = self.buffer.len() + READ_CHUNK;
            if wanted > allowed {
                let more = pool.take_up_to(wanted - allowed, MIN_POOL_GRANT).await;
                self.held.merge(more);
            }
            room = (FREE_LINE_BYTES + self.held.bytes())
                .saturating_sub(self.buffer.len())
                .min(READ_CHUNK);
        }
        self.buffer.reserve_exact(room);
        let mut limited = (&mut self.reader).take(room as u64);
        if limited.read_buf(&mut self.buffer).await? == 0 {
            self.eof = true;
        }
        Ok(())
    }

    /// After a line left the buffer: give back the space (and the pool's bytes) it needed.
    fn release(&mut self) {
        if self.buffer.len() <= FREE_LINE_BYTES && self.buffer.capacity() > FREE_LINE_BYTES {
            self.buffer.shrink_to(READ_CHUNK);
            self.held = Held::nothing();
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
            self.read_chunk().await?;
        }
    }

    fn frame_from_buffer(&mut self) -> Option<Frame> {
        let frame = self.take_frame();
        self.release();
        frame
    }

    fn take_frame(&mut self) -> Option<Frame> {
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

    #[tokio::test]
    async fn half_sent_lines_together_hold_no_more_than_the_pool() {
        use tokio::io::AsyncWriteExt;
        let pool = Budget::new(64 * 1024);
        let (mut first_client, first_server) = tokio::io::duplex(1024 * 1024);
        let (mut second_client, second_server) = tokio::io::duplex(1024 * 1024);
        let mut first = LineReader::with_pool(first_server, 1024 * 1024, pool.clone());
        let mut second = LineReader::with_pool(second_server, 1024 * 1024, pool.clone());
        first_client.write_all(&[b'a'; 60 * 1024]).await.unwrap();
        second_client.write_all(&[b'b'; 60 * 1024]).await.unwrap();
        let pause = std::time::Duration::from_millis(50);
        assert!(
            tokio::time::timeout(pause, first.next_frame())
                .await
                .is_err()
        );
        assert!(first.has_partial());
        assert!(pool.available() < 16 * 1024, "{}", pool.available());
        // The second line gets its free share and then waits for the pool.
        assert!(
            tokio::time::timeout(pause, second.next_frame())
                .await
                .is_err()
        );
        assert!(
            second.buffer.len() <= 2 * FREE_LINE_BYTES,
            "{}",
            second.buffer.len()
        );
        // The first line ends: its bytes go back, and the second can be read whole.
        first_client.write_all(b"\n").await.unwrap();
        let Frame::Line(line) = first.next_frame().await.unwrap() else {
            panic!("the first line");
        };
        assert_eq!(line.len(), 60 * 1024);
        assert_eq!(pool.available() + second.held.bytes(), 64 * 1024);
        second_client.write_all(b"\n").await.unwrap();
        let Frame::Line(line) = second.next_frame().await.unwrap() else {
            panic!("the second line");
        };
        assert_eq!(line.len(), 60 * 1024);
    }

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
