//! Named keys for `term_send`: what an agent calls a key ("Enter", "Ctrl-C", "Up") and the
//! bytes an xterm sends for it.
//!
//! Pure: no sessions, no I/O. Names are read forgivingly (any case; `Ctrl-C`, `Ctrl+C`,
//! `C-c` and `^C` are one key; `PageUp`, `Page Up` and `PgUp` too).

use std::fmt;

use crate::error::CallError;

/// Every name `term_send` accepts, for error hints and the tool description.
pub const KEY_NAMES: &str = "Enter, Tab, BackTab, Escape, Backspace, Delete, Insert, Space, Up, Down, \
     Left, Right, Home, End, PageUp, PageDown, F1-F12, and Ctrl-<letter> (Ctrl-C, Ctrl-D, Ctrl-Z, \
     Ctrl-L, …; also Ctrl-@, Ctrl-[, Ctrl-\\, Ctrl-], Ctrl-^, Ctrl-_)";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Enter,
    Tab,
    /// Shift-Tab.
    BackTab,
    Escape,
    Backspace,
    Delete,
    Insert,
    Space,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    /// F1 to F12.
    Function(u8),
    /// A control character, by its byte (Ctrl-C is 0x03).
    Control(u8),
}

impl Key {
    pub fn parse(name: &str) -> Result<Key, CallError> {
        let lower = name.trim().to_ascii_lowercase();
        let control = ["ctrl-", "ctrl+", "control-", "control+", "c-", "^"]
            .iter()
            .find_map(|prefix| lower.strip_prefix(prefix))
            .filter(|rest| rest.chars().count() == 1)
            .and_then(|rest| rest.chars().next())
            .and_then(control_byte);
        if let Some(byte) = control {
            return Ok(Key::Control(byte));
        }
        let compact: String = lower
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_' | '+'))
            .collect();
        let key = match compact.as_str() {
            "enter" | "return" | "cr" => Key::Enter,
            "tab" => Key::Tab,
            "backtab" | "shifttab" => Key::BackTab,
            "escape" | "esc" => Key::Escape,
            "backspace" | "bs" => Key::Backspace,
            "delete" | "del" => Key::Delete,
            "insert" | "ins" => Key::Insert,
            "space" => Key::Space,
            "up" | "arrowup" => Key::Up,
            "down" | "arrowdown" => Key::Down,
            "left" | "arrowleft" => Key::Left,
            "right" | "arrowright" => Key::Right,
            "home" => Key::Home,
            "end" => Key::End,
            "pageup" | "pgup" => Key::PageUp,
            "pagedown" | "pgdown" | "pgdn" => Key::PageDown,
            other => match other.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                Some(n @ 1..=12) => Key::Function(n),
                _ => {
                    return Err(CallError::invalid(
                        format!("unknown key '{}'", name.trim()),
                        format!(
                            "keys are {KEY_NAMES}; send other characters with text, e.g. text: \"y\", keys: [\"Enter\"]"
                        ),
                    ));
                }
            },
        };
        Ok(key)
    }

    /// What an xterm sends for the key. `application_cursor` is the terminal's cursor-key
    /// mode (full-screen programs such as vim and less switch it on): arrows, Home and End
    /// then send `ESC O x` instead of `ESC [ x`.
    pub fn bytes(self, application_cursor: bool) -> Vec<u8> {
        let cursor = |letter: u8| {
            if application_cursor {
                vec![0x1b, b'O', letter]
            } else {
                vec![0x1b, b'[', letter]
            }
        };
        match self {
            Key::Enter => b"\r".to_vec(),
            Key::Tab => b"\t".to_vec(),
            Key::BackTab => b"\x1b[Z".to_vec(),
            Key::Escape => b"\x1b".to_vec(),
            Key::Backspace => b"\x7f".to_vec(),
            Key::Delete => b"\x1b[3~".to_vec(),
            Key::Insert => b"\x1b[2~".to_vec(),
            Key::Space => b" ".to_vec(),
            Key::Up => cursor(b'A'),
            Key::Down => cursor(b'B'),
            Key::Right => cursor(b'C'),
            Key::Left => cursor(b'D'),
            Key::Home => cursor(b'H'),
            Key::End => cursor(b'F'),
            Key::PageUp => b"\x1b[5~".to_vec(),
            Key::PageDown => b"\x1b[6~".to_vec(),
            Key::Function(n) => match n {
                1 => b"\x1bOP".to_vec(),
                2 => b"\x1bOQ".to_vec(),
                3 => b"\x1bOR".to_vec(),
                4 => b"\x1bOS".to_vec(),
                _ => {
                    let code = [15, 17, 18, 19, 20, 21, 23, 24][usize::from(n.clamp(5, 12) - 5)];
                    format!("\x1b[{code}~").into_bytes()
                }
            },
            Key::Control(byte) => vec![byte],
        }
    }
}

/// The byte Ctrl plus `c` sends, for letters and the six punctuation keys that have one.
fn control_byte(c: char) -> Option<u8> {
    match c {
        'a'..='z' => Some(c as u8 - b'a' + 1),
        '@' | ' ' | '2' => Some(0),
        '[' => Some(0x1b),
        '\\' => Some(0x1c),
        ']' => Some(0x1d),
        '^' | '6' => Some(0x1e),
        '_' | '-' => Some(0x1f),
        '?' => Some(0x7f),
        _ => None,
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Function(n) => write!(f, "F{n}"),
            Key::Control(byte @ 1..=26) => write!(f, "Ctrl-{}", char::from(b'A' + byte - 1)),
            Key::Control(byte) => write!(f, "Ctrl-0x{byte:02x}"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(name: &str) -> Vec<u8> {
        Key::parse(name).unwrap().bytes(false)
    }

    #[test]
    fn named_keys_send_what_an_xterm_sends() {
        let table: [(&str, &[u8]); 16] = [
            ("Enter", b"\r"),
            ("Tab", b"\t"),
            ("Escape", b"\x1b"),
            ("Backspace", b"\x7f"),
            ("Up", b"\x1b[A"),
            ("Down", b"\x1b[B"),
            ("Right", b"\x1b[C"),
            ("Left", b"\x1b[D"),
            ("Home", b"\x1b[H"),
            ("End", b"\x1b[F"),
            ("PageUp", b"\x1b[5~"),
            ("PageDown", b"\x1b[6~"),
            ("Delete", b"\x1b[3~"),
            ("F1", b"\x1bOP"),
            ("F5", b"\x1b[15~"),
            ("F12", b"\x1b[24~"),
        ];
        for (name, expected) in table {
            assert_eq!(bytes(name), expected, "{name}");
        }
    }

    #[test]
    fn control_keys_in_every_spelling() {
        for name in ["Ctrl-C", "ctrl+c", "C-c", "^C", "CONTROL-C", " Ctrl-c "] {
            assert_eq!(bytes(name), [0x03], "{name}");
        }
        assert_eq!(bytes("Ctrl-D"), [0x04]);
        assert_eq!(bytes("Ctrl-Z"), [0x1a]);
        assert_eq!(bytes("Ctrl-A"), [0x01]);
        assert_eq!(bytes("Ctrl-["), [0x1b]);
        assert_eq!(bytes("Ctrl-\\"), [0x1c]);
        assert_eq!(bytes("Ctrl-@"), [0x00]);
        assert_eq!(Key::parse("Ctrl-C").unwrap().to_string(), "Ctrl-C");
    }

    #[test]
    fn aliases_and_spacing_are_forgiven() {
        assert_eq!(Key::parse("Page Up").unwrap(), Key::PageUp);
        assert_eq!(Key::parse("pgdn").unwrap(), Key::PageDown);
        assert_eq!(Key::parse("RETURN").unwrap(), Key::Enter);
        assert_eq!(Key::parse("esc").unwrap(), Key::Escape);
        assert_eq!(Key::parse("shift-tab").unwrap(), Key::BackTab);
    }

    #[test]
    fn cursor_keys_follow_the_application_mode() {
        assert_eq!(Key::Up.bytes(true), b"\x1bOA");
        assert_eq!(Key::End.bytes(true), b"\x1bOF");
        assert_eq!(Key::PageUp.bytes(true), b"\x1b[5~", "not a cursor key");
    }

    #[test]
    fn an_unknown_key_lists_the_valid_names() {
        for name in ["Enterr", "F13", "Ctrl-1", "Hyper-X", ""] {
            let error = Key::parse(name).unwrap_err();
            assert!(error.message.starts_with("unknown key"), "{name}");
            assert!(error.hint.contains("Enter, Tab"), "{}", error.hint);
            assert!(error.hint.contains("Ctrl-<letter>"), "{}", error.hint);
        }
    }
}
