//! What is new in a text target since its watch began. Text targets match only the output
//! that arrives after a wait starts, like `tail -f`, unless the agent asks for what is
//! already there (`match_existing`): an old `BUILD SUCCESSFUL` in a log is not news.
//!
//! A file is followed by byte offsets (the same file grown past its old length has new bytes
//! after it; a shorter or different file is all new). A screen is followed by its lines: the
//! baseline's last lines are found again in the capture, and what comes after them is new
//! (a line rewritten in place, like a progress bar, counts as new; a cleared screen is all
//! new). In a terminal session lookout runs, the echo of what `term_send` typed is input,
//! not output, and is dropped.

use storage::TextBaseline;

use crate::sight::content::{Content, TextOrigin};

/// Baseline lines used to find the baseline again.
const ANCHOR_LINES: usize = 10;

/// Where a capture stands, as a baseline for what comes after it. `None` when there is no
/// text yet (a file not created yet): then everything that comes is new.
pub fn baseline_of(content: &Content) -> Option<TextBaseline> {
    let Content::Text { text, origin, .. } = content else {
        return None;
    };
    match origin {
        TextOrigin::File {
            device, inode, end, ..
        } => Some(TextBaseline::File {
            device: *device,
            inode: *inode,
            length: *end,
        }),
        TextOrigin::Screen | TextOrigin::Terminal { .. } => {
            let lines = line_keys(text);
            let keep = lines.len().saturating_sub(TextBaseline::LINES);
            Some(TextBaseline::Lines(lines[keep..].to_vec()))
        }
    }
}

/// The text of `content` that is new since `baseline` (all of it without one), without the
/// echo of typed input.
pub fn new_text(content: &Content, baseline: Option<&TextBaseline>) -> String {
    let Content::Text { text, origin, .. } = content else {
        return String::new();
    };
    let fresh = match (origin, baseline) {
        (_, None) => text.to_string(),
        (
            TextOrigin::File {
                device,
                inode,
                start,
                end,
            },
            Some(TextBaseline::File {
                device: old_device,
                inode: old_inode,
                length,
            }),
        ) => {
            let same_file = (device, inode) == (old_device, old_inode) && end >= length;
            if same_file {
                let skip = length.saturating_sub(*start) as usize;
                text.get(skip..)
                    .or_else(|| char_boundary_after(text, skip))
                    .unwrap_or("")
                    .to_owned()
            } else {
                text.to_string()
            }
        }
        (TextOrigin::Screen | TextOrigin::Terminal { .. }, Some(TextBaseline::Lines(old))) => {
            let lines: Vec<&str> = text
                .lines()
                .map(str::trim_end)
                .filter(|line| !line.is_empty())
                .collect();
            let keys: Vec<String> = lines.iter().map(|line| line_key(line)).collect();
            let from = first_new_line(old, &keys);
            lines[from..].join("\n")
        }
        // A baseline of another kind (the target's text changed kind): all of it is new.
        _ => text.to_string(),
    };
    match origin {
        TextOrigin::Terminal { typed } if !typed.is_empty() => without_echo(&fresh, typed),
        _ => fresh,
    }
}

/// `text[at..]` from the next character boundary at or after `at`.
fn char_boundary_after(text: &str, at: usize) -> Option<&str> {
    (at..=text.len())
        .find(|index| text.is_char_boundary(*index))
        .map(|index| &text[index..])
}

/// A line as baselines keep it: trailing space trimmed, at most
/// [`TextBaseline::LINE_CHARS`] characters.
fn line_key(line: &str) -> String {
    line.trim_end()
        .chars()
        .take(TextBaseline::LINE_CHARS)
        .collect()
}

fn line_keys(text: &str) -> Vec<String> {
    text.lines()
        .map(line_key)
        .filter(|line| !line.is_empty())
        .collect()
}

/// The index of the first line of `current` that is not in the baseline. The baseline's
/// lines before its last are looked for as a block (its last line may have been rewritten
/// in place); when they are gone (scrolled away, cleared), its last line alone; when that is
/// gone too, everything is new.
fn first_new_line(baseline: &[String], current: &[String]) -> usize {
    let Some((last, before)) = baseline.split_last() else {
        return 0;
    };
    let anchor = &before[before.len().saturating_sub(ANCHOR_LINES)..];
    if !anchor.is_empty()
        && let Some(at) = current
            .windows(anchor.len())
            .position(|window| window == anchor)
    {
        let end = at + anchor.len();
        return if current.get(end) == Some(last) {
            end + 1
        } else {
            end
        };
    }
    // The first line that is the baseline's last, or that grew from it in place (a command
    // typed after a prompt): what follows it, or it and what follows, is new.
    match current
        .iter()
        .position(|line| line.starts_with(last.as_str()))
    {
        Some(at) if current[at] == *last => at + 1,
        Some(at) => at,
        None => 0,
    }
}

/// `text` without the echo of the typed lines: each typed line takes away the first line
/// that is it, or ends with it after a prompt ("$ make").
fn without_echo(text: &str, typed: &[String]) -> String {
    let mut lines: Vec<Option<&str>> = text.lines().map(Some).collect();
    for input in typed {
        let echo = lines.iter_mut().find(|line| {
            line.is_some_and(|line| {
                let line = line.trim_end();
                line == input
                    || line.strip_suffix(input.as_str()).is_some_and(|prompt| {
                        prompt.ends_with(|c: char| c.is_whitespace() || "$#>%❯:".contains(c))
                    })
            })
        });
        if let Some(echo) = echo {
            *echo = None;
        }
    }
    lines.into_iter().flatten().collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests;
