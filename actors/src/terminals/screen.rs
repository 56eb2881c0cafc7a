//! A session's output as a screen: the vt100 emulator plus a bounded scrollback of the lines
//! that scrolled off the top.
//!
//! Pure: bytes in, text out; no processes, no locks. The emulator keeps no scrollback of its
//! own (its cells cost 32 bytes each); a row that leaves the screen comes out of vt100's
//! `on_scroll` callback and is kept here as plain text, wrapped rows joined into one line.
//! Rows scrolled by a full-screen program on the alternate screen are not output history
//! and are not kept.

use std::collections::VecDeque;
use std::num::NonZeroU16;

use vt100::capture::{BasicFormattedCaptureState, RowContents, basic_formatted_to_plain};

use crate::terminals::types::TermSize;

/// Scrollback lines a session keeps.
pub const SCROLLBACK_LINES: usize = 1000;
/// Scrollback bytes a session keeps (the oldest lines go first past it).
pub const SCROLLBACK_BYTES: usize = 256 * 1024;
/// A line longer than this (a program printing without newlines) is split.
pub const MAX_LINE_BYTES: usize = 4096;

pub struct Screen {
    parser: vt100::Parser<Scrollback>,
    output_bytes: u64,
}

impl Screen {
    pub fn new(size: TermSize) -> Screen {
        let rows = NonZeroU16::new(size.rows).unwrap_or(NonZeroU16::MIN);
        let cols = NonZeroU16::new(size.cols).unwrap_or(NonZeroU16::MIN);
        Screen {
            parser: vt100::Parser::new_with_callbacks(rows, cols, 0, Scrollback::default()),
            output_bytes: 0,
        }
    }

    /// Feeds what the program wrote.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.output_bytes += bytes.len() as u64;
        self.parser.process(bytes);
    }

    /// The visible screen: one line per row (a wrapped row joined to the next), trailing
    /// spaces and trailing blank rows removed.
    pub fn screen_text(&self) -> String {
        let contents = self.parser.screen().contents();
        let mut lines: Vec<&str> = contents.lines().map(str::trim_end).collect();
        while lines.last().is_some_and(|line| line.is_empty()) {
            lines.pop();
        }
        lines.join("\n")
    }

    /// The newest `count` scrollback lines, oldest first.
    pub fn scrollback_tail(&self, count: usize) -> Vec<String> {
        self.parser.callbacks().tail(count)
    }

    /// Scrollback lines kept now.
    pub fn scrollback_len(&self) -> usize {
        self.parser.callbacks().len()
    }

    /// Whether the program switched the cursor keys to application mode.
    pub fn application_cursor(&self) -> bool {
        self.parser.screen().application_cursor()
    }

    pub fn output_bytes(&self) -> u64 {
        self.output_bytes
    }
}

/// Lines that scrolled off the screen, bounded in count and bytes.
#[derive(Default)]
struct Scrollback {
    lines: VecDeque<String>,
    bytes: usize,
    /// The newest line, still open: the row it came from wrapped, so the next row that
    /// scrolls off continues it.
    open: Option<String>,
    capture: BasicFormattedCaptureState,
}

impl Scrollback {
    fn len(&self) -> usize {
        self.lines.len() + usize::from(self.open.is_some())
    }

    fn tail(&self, count: usize) -> Vec<String> {
        let open = self.open.as_ref().map(|line| line.trim_end().to_owned());
        let closed = count.saturating_sub(usize::from(open.is_some()));
        let skip = self.lines.len().saturating_sub(closed);
        let mut tail: Vec<String> = self.lines.iter().skip(skip).cloned().collect();
        tail.extend(open);
        tail
    }

    fn close_open_line(&mut self) {
        if let Some(line) = self.open.take() {
            self.push(line);
        }
    }

    fn push(&mut self, mut line: String) {
        line.truncate(line.trim_end().len());
        self.bytes += line.len();
        self.lines.push_back(line);
        while self.lines.len() > SCROLLBACK_LINES - 1 || self.bytes > SCROLLBACK_BYTES {
            match self.lines.pop_front() {
                Some(dropped) => self.bytes -= dropped.len(),
                None => break,
            }
        }
    }

    /// Appends text to the open line, splitting it when it grows past [`MAX_LINE_BYTES`].
    fn append(&mut self, text: &str) {
        let mut rest = text;
        loop {
            let open = self.open.get_or_insert_with(String::new);
            let room = MAX_LINE_BYTES.saturating_sub(open.len());
            if rest.len() <= room {
                open.push_str(rest);
                return;
            }
            let mut cut = room;
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            open.push_str(&rest[..cut]);
            rest = &rest[cut..];
            self.close_open_line();
        }
    }
}

impl vt100::Callbacks for Scrollback {
    fn on_scroll(&mut self, contents: RowContents<'_>, alternate_screen: bool) {
        if alternate_screen {
            return;
        }
        let mut formatted = String::new();
        // Writing to a String cannot fail.
        let _ = contents.write_formatted_basic(&mut formatted, &mut self.capture);
        let plain: String = basic_formatted_to_plain(&formatted).collect();
        // The capture writes a newline before a row when the row before it did not wrap: that
        // newline closes the open line.
        let mut pieces = plain.split('\n');
        if let Some(first) = pieces.next() {
            self.append(first);
        }
        for piece in pieces {
            self.close_open_line();
            self.append(piece);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(cols: u16, rows: u16) -> Screen {
        Screen::new(TermSize { cols, rows })
    }

    #[test]
    fn carriage_return_progress_reads_as_its_final_state() {
        let mut term = screen(80, 10);
        term.feed(b"downloading\r\n");
        for pct in [10, 45, 80, 100] {
            let bar = "#".repeat(pct / 10);
            term.feed(format!("\r[{bar:<10}] {pct:>3}%").as_bytes());
        }
        term.feed(b"\r\ndone\r\n");
        assert_eq!(term.screen_text(), "downloading\n[##########] 100%\ndone");
        assert!(!term.screen_text().contains("45%"));
    }

    #[test]
    fn cursor_movement_and_erasing_render_like_a_terminal() {
        let mut term = screen(40, 5);
        // Clear, home, write two lines, go back up and overwrite the first.
        term.feed(b"\x1b[2J\x1b[Hfirst line\r\nsecond line\x1b[1;1H\x1b[2Kredrawn");
        assert_eq!(term.screen_text(), "redrawn\nsecond line");
        // Colours are not text.
        term.feed(b"\x1b[3;1H\x1b[31mred\x1b[0m plain");
        assert_eq!(term.screen_text(), "redrawn\nsecond line\nred plain");
    }

    #[test]
    fn lines_that_scroll_off_go_to_the_scrollback_in_order() {
        let mut term = screen(40, 5);
        for n in 1..=12 {
            term.feed(format!("line {n}\r\n").as_bytes());
        }
        // Five rows: lines 9-12 and the empty row the cursor sits on.
        assert_eq!(term.screen_text(), "line 9\nline 10\nline 11\nline 12");
        assert_eq!(term.scrollback_len(), 8);
        assert_eq!(term.scrollback_tail(3), ["line 6", "line 7", "line 8"]);
        assert_eq!(term.scrollback_tail(100).first().unwrap(), "line 1");
    }

    #[test]
    fn a_wrapped_line_comes_back_whole() {
        let mut term = screen(20, 5);
        let long = "x".repeat(30);
        term.feed(format!("{long}\r\n").as_bytes());
        for n in 1..=6 {
            term.feed(format!("line {n}\r\n").as_bytes());
        }
        assert_eq!(term.scrollback_tail(10)[0], long);
        // On screen a wrapped row is joined too.
        let mut fresh = screen(20, 5);
        fresh.feed(long.as_bytes());
        assert_eq!(fresh.screen_text(), long);
    }

    #[test]
    fn the_scrollback_is_bounded_in_lines_and_bytes() {
        let mut term = screen(80, 10);
        for n in 0..SCROLLBACK_LINES + 500 {
            term.feed(format!("{n}\r\n").as_bytes());
        }
        assert_eq!(term.scrollback_len(), SCROLLBACK_LINES);
        let tail = term.scrollback_tail(SCROLLBACK_LINES);
        assert_eq!(tail.last().unwrap(), &(SCROLLBACK_LINES + 490).to_string());

        let mut wide = screen(300, 10);
        let row = "y".repeat(299);
        for _ in 0..2000 {
            wide.feed(format!("{row}\r\n").as_bytes());
        }
        let kept = wide.parser.callbacks();
        assert!(kept.bytes <= SCROLLBACK_BYTES, "{}", kept.bytes);
        assert!(kept.len() >= SCROLLBACK_BYTES / 300 - 1, "{}", kept.len());
    }

    #[test]
    fn output_without_newlines_is_split_into_bounded_lines() {
        let mut term = screen(100, 5);
        term.feed("z".repeat(MAX_LINE_BYTES * 3).as_bytes());
        term.feed(b"\r\n\r\n\r\n\r\n\r\n\r\n");
        let tail = term.scrollback_tail(10);
        assert!(tail.iter().all(|line| line.len() <= MAX_LINE_BYTES));
        let total: usize = tail.iter().map(String::len).sum();
        assert_eq!(total, MAX_LINE_BYTES * 3);
    }

    #[test]
    fn full_screen_programs_leave_no_scrollback_behind() {
        let mut term = screen(40, 5);
        term.feed(b"before\r\n");
        // Switch to the alternate screen, scroll a lot there, and stay.
        term.feed(b"\x1b[?1049h\x1b[H");
        for n in 0..20 {
            term.feed(format!("pager row {n}\r\n").as_bytes());
        }
        term.feed(b"\x1b[1;1H-- status --");
        assert!(term.screen_text().starts_with("-- status --"));
        assert_eq!(term.scrollback_len(), 0);
        // Leaving it restores the screen as it was.
        term.feed(b"\x1b[?1049l");
        assert_eq!(term.screen_text(), "before");
    }

    #[test]
    fn cursor_key_mode_is_tracked() {
        let mut term = screen(40, 5);
        assert!(!term.application_cursor());
        term.feed(b"\x1b[?1h");
        assert!(term.application_cursor());
        assert_eq!(term.output_bytes(), 5);
    }
}
