//! What a wait watches: the target grammar of docs/contract.md §7.
//!
//! `window:<title substring | 0xID>`, `screen`, `pty:<session id>`, `tmux:<pane>`,
//! `file:<absolute path>`. Parsed once at the edge; everything past it holds a `Target`.

use std::fmt;
use std::path::PathBuf;

use crate::error::CallError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// An X11 window chosen by title substring (case-insensitive) or by id.
    Window(WindowSelector),
    /// The whole X11 screen (the root window).
    Screen,
    /// A terminal session the daemon owns (`term_start`).
    Pty(String),
    /// A tmux pane, as `tmux capture-pane -t` takes it (`session:window.pane`, `%3`, …).
    Tmux(String),
    /// The tail of a file, usually a log.
    File(PathBuf),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WindowSelector {
    Title(String),
    Id(u32),
}

/// Every kind of target, with how it is written: the one list texts about targets are made
/// from or tied to (the hint below, and by a test the tool descriptions). [`Target::kind`]
/// names each variant's kind exhaustively, and a test checks it against this list.
pub const KINDS: [(&str, &str); 5] = [
    ("window", "window:<title or 0xID>"),
    ("screen", "screen"),
    ("pty", "pty:<session id from term_start>"),
    ("tmux", "tmux:<pane, e.g. main:0.1>"),
    ("file", "file:<absolute path>"),
];

/// "targets are window:<…>, screen, …, or file:<…>", from [`KINDS`].
fn grammar_hint() -> String {
    let written: Vec<&str> = KINDS.iter().map(|(_, written)| *written).collect();
    let (last, others) = written.split_last().expect("KINDS is not empty");
    format!("targets are {}, or {last}", others.join(", "))
}

impl Target {
    pub fn parse(text: &str) -> Result<Target, CallError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("screen") {
            return Ok(Target::Screen);
        }
        let Some((kind, rest)) = text.split_once(':') else {
            return Err(CallError::invalid(
                format!("target '{text}' has no kind"),
                grammar_hint(),
            ));
        };
        let rest = rest.trim();
        let nonempty = |what: &str| -> Result<String, CallError> {
            if rest.is_empty() {
                Err(CallError::invalid(
                    format!("target '{text}' names no {what}"),
                    grammar_hint(),
                ))
            } else {
                Ok(rest.to_owned())
            }
        };
        match kind.trim().to_ascii_lowercase().as_str() {
            "window" => {
                let hex = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X"));
                match hex {
                    Some(digits) => u32::from_str_radix(digits, 16)
                        .map(|id| Target::Window(WindowSelector::Id(id)))
                        .map_err(|_| {
                            CallError::invalid(
                                format!("window id '{rest}' is not a hexadecimal X11 window id"),
                                "give the id as xdotool or xwininfo print it, e.g. window:0x4200003, or a title substring",
                            )
                        }),
                    None => Ok(Target::Window(WindowSelector::Title(nonempty("window title")?))),
                }
            }
            "pty" => Ok(Target::Pty(nonempty("terminal session id")?)),
            "tmux" => Ok(Target::Tmux(nonempty("tmux pane")?)),
            "file" => {
                let path = PathBuf::from(nonempty("file path")?);
                if !path.is_absolute() {
                    return Err(CallError::invalid(
                        format!("file target '{rest}' is not an absolute path"),
                        "use a full path, e.g. file:/var/log/build.log",
                    ));
                }
                Ok(Target::File(path))
            }
            other => Err(CallError::invalid(
                format!("unknown target kind '{other}'"),
                grammar_hint(),
            )),
        }
    }

    /// The kind of target, as [`KINDS`] names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Window(_) => "window",
            Target::Screen => "screen",
            Target::Pty(_) => "pty",
            Target::Tmux(_) => "tmux",
            Target::File(_) => "file",
        }
    }

    /// Whether the content is pixels (judged by a vision model) rather than text.
    pub fn is_pixels(&self) -> bool {
        matches!(self, Target::Window(_) | Target::Screen)
    }

    /// Whether this is the output file of a command a Claude Code agent backgrounded
    /// (`…/claude-<uid>/<project>/tasks/<task id>.output`, named in the Bash tool's reply):
    /// new when the command starts, written from its first byte, with no exit status in it.
    pub fn is_background_output(&self) -> bool {
        let Target::File(path) = self else {
            return false;
        };
        let in_tasks = path
            .parent()
            .and_then(|folder| folder.file_name())
            .is_some_and(|name| name == "tasks");
        let claude_folder = path.ancestors().skip(2).any(|folder| {
            folder
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name == "claude" || name.starts_with("claude-"))
        });
        path.extension().is_some_and(|ext| ext == "output") && in_tasks && claude_folder
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Window(WindowSelector::Title(title)) => write!(f, "window:{title}"),
            Target::Window(WindowSelector::Id(id)) => write!(f, "window:0x{id:x}"),
            Target::Screen => f.write_str("screen"),
            Target::Pty(session) => write!(f, "pty:{session}"),
            Target::Tmux(pane) => write!(f, "tmux:{pane}"),
            Target::File(path) => write!(f, "file:{}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_parses_and_prints_back() {
        let table = [
            ("screen", Target::Screen),
            ("SCREEN", Target::Screen),
            (
                "window:Firefox",
                Target::Window(WindowSelector::Title("Firefox".into())),
            ),
            (
                "window:VS Code",
                Target::Window(WindowSelector::Title("VS Code".into())),
            ),
            (
                "window:0x4200003",
                Target::Window(WindowSelector::Id(0x4200003)),
            ),
            ("pty:crisp-ridge", Target::Pty("crisp-ridge".into())),
            ("tmux:main:0.1", Target::Tmux("main:0.1".into())),
            (
                "file:/var/log/build.log",
                Target::File("/var/log/build.log".into()),
            ),
        ];
        for (text, expected) in table {
            let target = Target::parse(text).unwrap();
            assert_eq!(target, expected, "{text}");
            assert_eq!(
                Target::parse(&target.to_string()).unwrap(),
                expected,
                "{text} round trip"
            );
        }
        assert!(Target::parse("window:0x4200003").unwrap().is_pixels());
        assert!(!Target::parse("tmux:main").unwrap().is_pixels());
    }

    #[test]
    fn every_kind_is_listed_once_and_its_example_parses_to_it() {
        let examples = [
            "window:Firefox",
            "screen",
            "pty:crisp-ridge",
            "tmux:main:0.1",
            "file:/var/log/build.log",
        ];
        let kinds: Vec<&str> = examples
            .iter()
            .map(|text| Target::parse(text).unwrap().kind())
            .collect();
        let listed: Vec<&str> = KINDS.iter().map(|(kind, _)| *kind).collect();
        assert_eq!(
            kinds, listed,
            "KINDS lists every kind of Target once, in order"
        );
        for (kind, written) in KINDS {
            assert!(written.starts_with(kind), "{written}");
            assert!(grammar_hint().contains(written));
        }
    }

    #[test]
    fn claude_code_background_output_files_are_told_apart() {
        for (path, expected) in [
            ("/tmp/claude-1000/-home-ann-shop/tasks/b7x2k9.output", true),
            ("/tmp/claude/-work-app/tasks/bash_3.output", true),
            ("/tmp/claude-1000/-home-ann-shop/tasks/b7x2k9.log", false),
            ("/tmp/claude-1000/-home-ann-shop/b7x2k9.output", false),
            ("/home/ann/tasks/build.output", false),
        ] {
            let target = Target::File(path.into());
            assert_eq!(target.is_background_output(), expected, "{path}");
        }
        assert!(!Target::Pty("crisp-ridge".into()).is_background_output());
    }

    #[test]
    fn bad_targets_say_how_to_write_one() {
        for (text, words) in [
            ("Firefox", "has no kind"),
            ("window:", "names no window title"),
            ("window:0xZZ", "not a hexadecimal"),
            ("file:build.log", "not an absolute path"),
            ("ssh:host", "unknown target kind 'ssh'"),
        ] {
            let error = Target::parse(text).unwrap_err();
            assert!(error.message.contains(words), "{text}: {}", error.message);
            assert!(!error.hint.is_empty());
        }
    }
}
