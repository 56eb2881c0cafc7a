//! What the screen recorder must not keep, decided before anything is stored. Pure.
//!
//! - [`Exclusions`]: windows never recorded, by application (`WM_CLASS`) or title: password
//!   managers and private browsing windows by default, plus the user's own list
//!   (`[recall] exclude`). Matching is a case-insensitive substring, so "keepass" covers
//!   "KeePassXC".
//! - [`redact`]: secrets in text read off the screen, replaced by `[redacted]`: API keys and
//!   tokens by their shapes (`sk-…`, `ghp_…`, `AKIA…`, `xoxb-…`, JWTs, long random strings),
//!   the value after a `password`/`secret`/`token` label, and card numbers that pass the Luhn
//!   check. What it finds also tells the recorder to keep no picture of that window.

/// What a redacted secret becomes.
pub const REDACTED: &str = "[redacted]";

/// Never recorded, whatever the user's list says: password managers and keyrings (matched
/// against the application and the title) and private browsing (the title words browsers
/// use, in a few languages).
pub const DEFAULT_EXCLUSIONS: &[&str] = &[
    "keepass",
    "1password",
    "bitwarden",
    "lastpass",
    "dashlane",
    "enpass",
    "proton pass",
    "seahorse",
    "kwalletmanager",
    "gnome-keyring",
    "pinentry",
    "private browsing",
    "incognito",
    "inprivate",
    "navigation privée",
    "privater modus",
    "privates fenster",
    "navegación privada",
    "navigazione anonima",
    "navegação privada",
];

/// The windows the recorder leaves alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exclusions {
    /// Lowercase substrings.
    patterns: Vec<String>,
}

impl Exclusions {
    /// The defaults plus `extra` (the user's `[recall] exclude`).
    pub fn new(extra: &[String]) -> Exclusions {
        let patterns = DEFAULT_EXCLUSIONS
            .iter()
            .map(|pattern| pattern.to_string())
            .chain(extra.iter().map(|pattern| pattern.trim().to_lowercase()))
            .filter(|pattern| !pattern.is_empty())
            .collect();
        Exclusions { patterns }
    }

    /// The pattern that excludes a window of this application and title, if any.
    pub fn excluding(&self, class: &str, title: &str) -> Option<&str> {
        let class = class.to_lowercase();
        let title = title.to_lowercase();
        self.patterns
            .iter()
            .find(|pattern| class.contains(pattern.as_str()) || title.contains(pattern.as_str()))
            .map(String::as_str)
    }
}

/// `text` with every secret replaced by [`REDACTED`], and how many were.
pub fn redact(text: &str) -> (String, usize) {
    let (text, cards) = redact_cards(text);
    let mut count = cards;
    let mut out = String::with_capacity(text.len());
    let mut after_label = false;
    // A secret was just redacted: the fragments that follow on its line are its rest (OCR
    // cuts a key into pieces: "sk-proj -Zq4abc klmn1234").
    let mut continuing = false;
    let hide = |out: &mut String, lead: &str, kept: &str, trail: &str, count: &mut usize| {
        out.push_str(lead);
        out.push_str(kept);
        out.push_str(REDACTED);
        out.push_str(trail);
        *count += 1;
    };
    let pieces = split_keeping_spaces(&text);
    for (index, piece) in pieces.iter().copied().enumerate() {
        if piece.trim().is_empty() {
            if piece.contains('\n') {
                continuing = false;
                after_label = false;
            }
            out.push_str(piece);
            continue;
        }
        let (lead, core, trail) = trim_punctuation(piece);
        if core.is_empty() {
            out.push_str(piece);
            after_label = false;
            continuing = false;
            continue;
        }
        // "password: hunter2" (a label, then the value as the next word)
        if after_label && core != REDACTED {
            hide(&mut out, lead, "", trail, &mut count);
            after_label = false;
            continuing = true;
            continue;
        }
        after_label = false;
        if continuing && is_fragment(core) {
            hide(&mut out, lead, "", trail, &mut count);
            continue;
        }
        continuing = false;
        if let Some((label, value)) = core.split_once(['=', ':'])
            && is_secret_label(label)
        {
            if value.is_empty() {
                after_label = true;
                out.push_str(piece);
            } else {
                hide(&mut out, lead, &core[..label.len() + 1], trail, &mut count);
                continuing = true;
            }
            continue;
        }
        if is_secret_label(core) && trail.starts_with(':') {
            after_label = true;
            out.push_str(piece);
            continue;
        }
        // A key prefix cut short by OCR ("sk-proj -Zq4abc…") is one when a fragment follows
        // on the same line.
        let cut_key = || {
            has_key_prefix(core)
                && pieces
                    .get(index + 1)
                    .is_some_and(|space| !space.contains('\n'))
                && pieces
                    .get(index + 2)
                    .is_some_and(|next| is_fragment(trim_punctuation(next).1))
        };
        if looks_like_secret(core) || cut_key() {
            hide(&mut out, lead, "", trail, &mut count);
            continuing = true;
        } else {
            out.push_str(piece);
        }
    }
    (out, count)
}

/// A piece of a key cut by OCR: key characters only, with a digit, a dash or underscore, or
/// mixed case.
fn is_fragment(word: &str) -> bool {
    word.len() >= 4
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_+/=.".contains(c))
        && (word
            .chars()
            .any(|c| c.is_ascii_digit() || c == '-' || c == '_')
            || (word.chars().any(|c| c.is_ascii_uppercase())
                && word.chars().any(|c| c.is_ascii_lowercase())))
}

/// Words and the runs of whitespace between them, in order.
fn split_keeping_spaces(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (index, character) in text.char_indices() {
        let space = character.is_whitespace();
        if in_space != Some(space) {
            if index > start {
                pieces.push(&text[start..index]);
            }
            start = index;
            in_space = Some(space);
        }
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// A word without the quotes and brackets around it: (before, word, after).
fn trim_punctuation(word: &str) -> (&str, &str, &str) {
    let edge = |c: char| "\"'`()[]{}<>,;".contains(c);
    let core_start = word.len() - word.trim_start_matches(edge).len();
    let trimmed = &word[core_start..];
    let mut core = trimmed.trim_end_matches(|c: char| edge(c) || c == '.' || c == ':');
    // Keep a label's colon out of the core ("password:"), a value's inside ("key:abc").
    if core.is_empty() {
        core = trimmed;
    }
    let core_end = core_start + core.len();
    (
        &word[..core_start],
        &word[core_start..core_end],
        &word[core_end..],
    )
}

fn is_secret_label(label: &str) -> bool {
    let label = label.to_lowercase();
    let label = label.trim_start_matches(['-', '$', '_']);
    [
        "key",
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "secret",
        "token",
        "api_key",
        "apikey",
        "api-key",
        "access_key",
        "private_key",
        "client_secret",
    ]
    .iter()
    .any(|word| label == *word || label.ends_with(&format!("_{word}")))
}

/// The start of a key of a known kind, however short ("sk-proj").
fn has_key_prefix(word: &str) -> bool {
    KEY_PREFIXES
        .iter()
        .any(|(prefix, _)| word.len() > prefix.len() && word.starts_with(prefix))
}

/// Key prefixes and how many characters follow them at least in a whole key.
const KEY_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 16),
    ("sk_live_", 16),
    ("sk_test_", 16),
    ("rk_live_", 16),
    ("ghp_", 20),
    ("gho_", 20),
    ("ghu_", 20),
    ("ghs_", 20),
    ("ghr_", 20),
    ("github_pat_", 20),
    ("glpat-", 16),
    ("xoxb-", 10),
    ("xoxp-", 10),
    ("xoxa-", 10),
    ("xoxs-", 10),
    ("AIza", 30),
    ("hf_", 24),
    ("npm_", 24),
];

/// An API key, token or other credential, by its shape.
fn looks_like_secret(word: &str) -> bool {
    let token_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    for (prefix, rest) in KEY_PREFIXES {
        if let Some(tail) = word.strip_prefix(prefix)
            && tail.len() >= *rest
            && tail.chars().all(token_char)
        {
            return true;
        }
    }
    for prefix in ["AKIA", "ASIA"] {
        if let Some(tail) = word.strip_prefix(prefix)
            && tail.len() == 16
            && tail
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        {
            return true;
        }
    }
    if is_jwt(word) {
        return true;
    }
    // A long random string: 32+ characters of a key alphabet mixing upper and lower case
    // and digits (a git hash is lowercase hex, a path has slashes between words).
    word.len() >= 32
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_+/=".contains(c))
        && word.chars().any(|c| c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_lowercase())
        && word.chars().filter(|c| c.is_ascii_digit()).count() >= 3
        && !word.contains("//")
}

fn is_jwt(word: &str) -> bool {
    let parts: Vec<&str> = word.split('.').collect();
    parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts[..2].iter().all(|part| part.len() >= 10)
        && parts.iter().all(|part| {
            part.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
}

/// Card numbers (13–19 digits, single spaces or dashes between groups allowed) that pass
/// the Luhn check, replaced.
fn redact_cards(text: &str) -> (String, usize) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut copied = 0;
    let mut index = 0;
    while index < chars.len() {
        let (start, character) = chars[index];
        let starts_number = character.is_ascii_digit()
            && (index == 0 || !chars[index - 1].1.is_ascii_alphanumeric());
        if !starts_number {
            index += 1;
            continue;
        }
        // The run of digits with single separators between them.
        let mut digits = Vec::new();
        let mut end = index;
        let mut cursor = index;
        while cursor < chars.len() {
            let c = chars[cursor].1;
            if c.is_ascii_digit() {
                digits.push(c as u8 - b'0');
                end = cursor + 1;
                cursor += 1;
            } else if (c == ' ' || c == '-')
                && chars
                    .get(cursor + 1)
                    .is_some_and(|(_, n)| n.is_ascii_digit())
            {
                cursor += 1;
            } else {
                break;
            }
        }
        let followed_by_word = chars.get(end).is_some_and(|(_, c)| c.is_ascii_alphabetic());
        if (13..=19).contains(&digits.len()) && !followed_by_word && luhn(&digits) {
            let byte_end = chars.get(end).map_or(text.len(), |(at, _)| *at);
            out.push_str(&text[copied..start]);
            out.push_str(REDACTED);
            copied = byte_end;
            count += 1;
        }
        index = end.max(index + 1);
    }
    out.push_str(&text[copied..]);
    (out, count)
}

fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(position, &digit)| {
            let digit = u32::from(digit);
            if position % 2 == 1 {
                let doubled = digit * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                digit
            }
        })
        .sum();
    sum.is_multiple_of(10)
}
