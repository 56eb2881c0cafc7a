//! A segment of screen history: one window while it had the user's attention, with the text
//! read off it, the steps that happened in it and its keyframes; indexed as one recall
//! document. Pure: the recorder feeds it what it read and when.
//!
//! Steps are built without a model, in time order: the window opening, its title changing,
//! commands seen at a shell prompt, new text that settled (the first new lines of each
//! change), and the notes the agent posted to the stamped task meanwhile. Text already seen
//! in the segment is not news (a repainted window adds nothing).

use std::collections::HashSet;

use recall::{Document, Frame, Source, Step};

use crate::words::shorten;

/// How a step that is the agent's note begins.
pub const NOTE: &str = "Note: ";
/// Steps kept per segment (the first, then the newest).
const MAX_STEPS: usize = 60;
/// A step's text at most.
const STEP_CHARS: usize = 120;
/// New lines quoted in one "new text" step.
const LINES_PER_STEP: usize = 2;
/// Lines of text kept per segment (the body indexed).
const MAX_LINES: usize = 4_000;
/// A line shorter than this (after trimming) is noise: a stray glyph, a cursor.
const MIN_LINE_CHARS: usize = 3;

/// Who the recording is for: the active task and its current step when it started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub task_id: String,
    pub step: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Segment {
    /// `scr-<start ms>-<window>`: unique, and sorts oldest first.
    pub id: String,
    pub window: u32,
    pub app: String,
    pub title: String,
    titles: Vec<String>,
    pub stamp: Option<Stamp>,
    pub start_ms: u64,
    /// The last time something new was seen in it.
    pub last_news_ms: u64,
    pub end_ms: u64,
    lines: Vec<String>,
    seen: HashSet<String>,
    steps: Vec<Step>,
    pub frames: Vec<Frame>,
    /// A secret was read in it: no picture of it may be kept.
    pub secret_seen: bool,
    /// When the index last got it, and whether it changed since.
    pub put_at_ms: Option<u64>,
    pub dirty: bool,
}

impl Segment {
    pub fn open(window: u32, app: &str, title: &str, stamp: Option<Stamp>, at_ms: u64) -> Segment {
        let mut segment = Segment {
            id: format!("scr-{at_ms:013}-{window:x}"),
            window,
            app: app.to_owned(),
            title: title.to_owned(),
            titles: vec![title.to_owned()],
            stamp,
            start_ms: at_ms,
            last_news_ms: at_ms,
            end_ms: at_ms,
            lines: Vec::new(),
            seen: HashSet::new(),
            steps: Vec::new(),
            frames: Vec::new(),
            secret_seen: false,
            put_at_ms: None,
            dirty: true,
        };
        segment.step(at_ms, &format!("Opened {} — {title}", app_name(app)));
        segment
    }

    /// The document's key in the index.
    pub fn key(&self) -> String {
        format!("screen:{}", self.id)
    }

    /// The window's title now; a new one is a step.
    pub fn retitle(&mut self, title: &str, at_ms: u64) -> bool {
        if title == self.title {
            return false;
        }
        self.title = title.to_owned();
        if !self.titles.iter().any(|seen| seen == title) {
            self.titles.push(title.to_owned());
        }
        self.touch(at_ms);
        self.step(at_ms, &format!("Title: {title}"));
        true
    }

    /// Text read off the window at `at_ms` (already redacted): its lines not seen before in
    /// this segment are kept, and make steps. Returns how many lines were new.
    pub fn read(&mut self, text: &str, at_ms: u64) -> usize {
        let mut novel = Vec::new();
        for line in text.lines() {
            let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
            if line.chars().filter(|c| c.is_alphanumeric()).count() < MIN_LINE_CHARS {
                continue;
            }
            if self.seen.insert(line.to_lowercase()) {
                novel.push(line);
            }
        }
        if novel.is_empty() {
            self.end_ms = self.end_ms.max(at_ms);
            return 0;
        }
        self.touch(at_ms);
        let mut quoted = Vec::new();
        for line in &novel {
            match command_at_prompt(line) {
                Some(command) => self.step(at_ms, &format!("Ran: {command}")),
                None => quoted.push(line.as_str()),
            }
        }
        if !quoted.is_empty() {
            let shown: Vec<&str> = quoted.iter().take(LINES_PER_STEP).copied().collect();
            let more = quoted.len().saturating_sub(LINES_PER_STEP);
            let mut text = format!("Showed: {}", shown.join(" / "));
            if more > 0 {
                text.push_str(&format!(" (+{more} lines)"));
            }
            self.step(at_ms, &text);
        }
        let room = MAX_LINES.saturating_sub(self.lines.len());
        let count = novel.len();
        self.lines.extend(novel.into_iter().take(room));
        count
    }

    /// The window was captured at `at_ms` (with or without news): the segment lasts so far.
    pub fn seen(&mut self, at_ms: u64) {
        self.end_ms = self.end_ms.max(at_ms);
    }

    /// A note the agent posted to the stamped task while this segment was open.
    pub fn note(&mut self, text: &str, at_ms: u64) {
        self.step(at_ms, &format!("{NOTE}{}", text.replace('\n', " ")));
    }

    pub fn has_step_at(&self, at_ms: u64) -> bool {
        self.steps.iter().any(|step| step.at_ms == at_ms)
    }

    fn touch(&mut self, at_ms: u64) {
        self.last_news_ms = self.last_news_ms.max(at_ms);
        self.end_ms = self.end_ms.max(at_ms);
    }

    fn step(&mut self, at_ms: u64, text: &str) {
        self.steps.push(Step {
            at_ms,
            text: shorten(text, STEP_CHARS),
        });
        self.steps.sort_by_key(|step| step.at_ms);
        if self.steps.len() > MAX_STEPS {
            // Keep the opening step; drop the oldest after it.
            self.steps.remove(1);
        }
    }

    /// What the index holds of it.
    pub fn document(&self) -> Document {
        let mut body = self.titles.join("\n");
        body.push('\n');
        body.push_str(&self.lines.join("\n"));
        let seconds = (self.end_ms - self.start_ms) / 1000;
        let first = self.steps.get(1).or(self.steps.first());
        let last = self.steps.last();
        let mut summary = format!(
            "{} — {}: {} over {seconds} s",
            app_name(&self.app),
            self.title,
            crate::words::count(self.steps.len() as u64, "step", None)
        );
        if let (Some(first), Some(last)) = (first, last) {
            summary.push_str(&format!(
                "; first \"{}\", last \"{}\"",
                shorten(&first.text, 60),
                shorten(&last.text, 60)
            ));
        }
        Document {
            key: self.key(),
            source: Source::Screen,
            task_id: self.stamp.as_ref().map(|stamp| stamp.task_id.clone()),
            title: format!("{} — {}", app_name(&self.app), self.titles.join(" · ")),
            body,
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            steps: self.steps.clone(),
            summary,
            app: Some(self.app.clone()),
            step: self.stamp.as_ref().and_then(|stamp| stamp.step),
            frames: if self.secret_seen {
                Vec::new()
            } else {
                self.frames.clone()
            },
        }
    }
}

fn app_name(app: &str) -> &str {
    if app.is_empty() { "a window" } else { app }
}

/// The command of a line that shows a shell prompt ("user@host:~/src$ make test",
/// "$ cargo build", "# apt-get update"), or `None`.
pub fn command_at_prompt(line: &str) -> Option<&str> {
    for marker in ["$ ", "# ", "% ", "❯ ", "> "] {
        if let Some(at) = line.find(marker) {
            let prompt = &line[..at];
            // A prompt is short and looks like one: empty, or user@host:path, or a path.
            let looks_like_prompt = prompt.len() <= 60
                && (prompt.is_empty()
                    || prompt.contains('@')
                    || prompt.ends_with('~')
                    || prompt.contains('/'))
                && !prompt.contains("  ");
            let command = line[at + marker.len()..].trim();
            if looks_like_prompt && command.chars().any(char::is_alphanumeric) {
                return Some(command);
            }
        }
    }
    None
}
