//! What the words of a condition mean to the reader: each known word has one or more
//! [`Roles`] (a filler, a word naming the watched output or the work, a verb of appearing,
//! of finishing, of failing…). A local judge claims a clause only when every word of it has
//! a role that judge accounts for; a word with no role sends the clause to the model.
//!
//! English first, and the common words of German, French, Spanish, Portuguese, Italian,
//! Japanese and Chinese: agents write conditions in the user's language. The words are
//! data, in `lexicon.txt`, one section per role, read once. Japanese and Chinese are written
//! without spaces, so their runs are cut into the words listed there ([`segment_unspaced`]);
//! a character no entry covers stays a word of its own, with no role.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// A set of roles (bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Roles(u32);

impl Roles {
    pub(super) const NONE: Roles = Roles(0);
    /// Says nothing about the condition: articles, auxiliaries, pronouns, prepositions.
    pub(super) const STOP: Roles = Roles(1);
    /// Names what is watched: the output, the log, the terminal.
    pub(super) const TARGET: Roles = Roles(1 << 1);
    /// Names the work whose output is watched: the build, the command, the tests.
    pub(super) const SUBJECT: Roles = Roles(1 << 2);
    /// A verb of appearing: appears, is printed, shows up, is logged.
    pub(super) const APPEAR: Roles = Roles(1 << 3);
    /// Frames a quoted phrase: a line, a message, containing, says.
    pub(super) const FRAME: Roles = Roles(1 << 4);
    /// The work ends: finishes, exits, completes, is done.
    pub(super) const FINISH: Roles = Roles(1 << 5);
    /// It ends well: succeeds, passes, successfully.
    pub(super) const SUCCESS: Roles = Roles(1 << 6);
    /// It ends badly: fails, crashes, aborts, panics.
    pub(super) const FAILURE: Roles = Roles(1 << 7);
    /// An error as a thing that appears: error, exception, traceback.
    pub(super) const ERROR: Roles = Roles(1 << 8);
    /// A warning as a thing that appears.
    pub(super) const WARNING: Roles = Roles(1 << 9);
    /// not, no, never, without.
    pub(super) const NEGATION: Roles = Roles(1 << 10);
    /// The exit status: exit, code, status, returns.
    pub(super) const EXIT: Roles = Roles(1 << 11);
    /// A state of no change: quiet, idle, silent.
    pub(super) const QUIET: Roles = Roles(1 << 12);
    /// What keeps changing while work goes on: changing, growing, printing, output.
    pub(super) const ACTIVITY: Roles = Roles(1 << 13);
    /// The shell prompt.
    pub(super) const PROMPT: Roles = Roles(1 << 14);
    /// Counts: count, number, total.
    pub(super) const COUNT: Roles = Roles(1 << 15);
    /// A unit of time.
    pub(super) const TIME_UNIT: Roles = Roles(1 << 16);
    /// Asks to be told: wake, notify, ping, let know.
    pub(super) const FRAMING: Roles = Roles(1 << 17);
    /// A thing on screen a text target shows as a line: dialog, notification, banner.
    pub(super) const UI: Roles = Roles(1 << 18);
    /// Running, alive: "no longer running" ends the work.
    pub(super) const RUNNING: Roles = Roles(1 << 19);
    /// Words of a comparison: above, below, least, more, than.
    pub(super) const COMPARE: Roles = Roles(1 << 20);
    /// Appearing a second time or in a sequence ("again", "afterwards") — harmless for a
    /// text target, which counts only new output.
    pub(super) const AGAIN: Roles = Roles(1 << 21);

    pub(super) const fn union(self, other: Roles) -> Roles {
        Roles(self.0 | other.0)
    }

    pub(super) fn has(self, any_of: Roles) -> bool {
        self.0 & any_of.0 != 0
    }
}

impl std::ops::BitOr for Roles {
    type Output = Roles;
    fn bitor(self, other: Roles) -> Roles {
        self.union(other)
    }
}

/// The lexicon, one section per role.
const LEXICON: &str = include_str!("lexicon.txt");

/// The sections of `lexicon.txt` and their roles; `subject-modifiers` read as subjects.
const SECTIONS: &[(&str, Roles)] = &[
    ("stop", Roles::STOP),
    ("target", Roles::TARGET),
    ("subject", Roles::SUBJECT),
    ("subject-modifiers", Roles::SUBJECT),
    ("appear", Roles::APPEAR),
    ("frame", Roles::FRAME),
    ("finish", Roles::FINISH),
    ("success", Roles::SUCCESS),
    ("failure", Roles::FAILURE),
    ("error", Roles::ERROR),
    ("warning", Roles::WARNING),
    ("negation", Roles::NEGATION),
    ("exit", Roles::EXIT),
    ("quiet", Roles::QUIET),
    ("activity", Roles::ACTIVITY),
    ("prompt", Roles::PROMPT),
    ("count", Roles::COUNT),
    ("time-unit", Roles::TIME_UNIT),
    ("framing", Roles::FRAMING),
    ("ui", Roles::UI),
    ("running", Roles::RUNNING),
    ("compare", Roles::COMPARE),
    ("again", Roles::AGAIN),
];

/// Subject words that name no particular work.
const NOT_WORK: &[&str] = &["it", "work", "thing", "step", "check", "whole", "task"];

/// The lexicon, read: each word's roles, the work nouns, and the words written without
/// spaces, longest first (for [`segment_unspaced`]).
struct Lexicon {
    roles: HashMap<&'static str, Roles>,
    work_nouns: HashSet<&'static str>,
    unspaced: Vec<&'static str>,
}

fn lexicon() -> &'static Lexicon {
    static LOADED: OnceLock<Lexicon> = OnceLock::new();
    LOADED.get_or_init(|| {
        let mut roles: HashMap<&'static str, Roles> = HashMap::new();
        let mut work_nouns = HashSet::new();
        let mut section: Option<(&str, Roles)> = None;
        for line in LEXICON.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = Some(
                    *SECTIONS
                        .iter()
                        .find(|(known, _)| *known == name)
                        .unwrap_or_else(|| panic!("lexicon.txt: unknown section [{name}]")),
                );
                continue;
            }
            let (name, role) = section.expect("lexicon.txt: words before the first section");
            for word in line.split_whitespace() {
                let found = roles.entry(word).or_default();
                *found = *found | role;
                if name == "subject" && !NOT_WORK.contains(&word) {
                    work_nouns.insert(word);
                }
            }
        }
        let mut unspaced: Vec<&'static str> = roles
            .keys()
            .copied()
            .filter(|word| word.chars().any(is_unspaced))
            .collect();
        unspaced.sort_by_key(|word| (std::cmp::Reverse(word.len()), *word));
        Lexicon {
            roles,
            work_nouns,
            unspaced,
        }
    })
}

/// The roles of a word (lowercase).
pub(super) fn roles(word: &str) -> Roles {
    match lexicon().roles.get(word) {
        Some(found) => *found,
        None if names_a_file(word) => Roles::TARGET,
        None => Roles::NONE,
    }
}

/// Whether a word of an output line names a piece of work ("build", "deployment",
/// "backup"): a line that begins with one and says it ended reports the end.
pub(crate) fn names_work(word: &str) -> bool {
    lexicon().work_nouns.contains(word)
}

/// "build.log", "/var/log/app.log", "out.txt": a file named in the condition is what is
/// watched.
fn names_a_file(word: &str) -> bool {
    let extension = word.rsplit_once('.').map(|(_, ext)| ext);
    word.contains('/')
        || matches!(
            extension,
            Some("log" | "txt" | "out" | "err" | "json" | "jsonl" | "csv")
        )
}

/// Whether `c` belongs to a script written without spaces between words (Han, kana,
/// Hangul, Thai and its neighbours): a phrase matches inside such text, and a run of it is
/// cut into the words the lexicon knows.
pub(crate) fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'   // hiragana, katakana
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}' // half-width katakana
        | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
        | '\u{0E00}'..='\u{0EFF}' // Thai, Lao
        | '\u{1000}'..='\u{109F}' // Myanmar
        | '\u{1780}'..='\u{17FF}' // Khmer
        | '\u{20000}'..='\u{2FFFF}')
}

/// Cuts a run of unspaced text into the longest words the lexicon knows, left to right; a
/// character no word starts with is a word of its own.
pub(super) fn segment_unspaced(run: &str) -> Vec<&str> {
    let words = &lexicon().unspaced;
    let mut out = Vec::new();
    let mut rest = run;
    while let Some(first) = rest.chars().next() {
        let length = words
            .iter()
            .find(|word| rest.starts_with(**word))
            .map_or(first.len_utf8(), |word| word.len());
        out.push(&rest[..length]);
        rest = &rest[length..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn japanese_and_chinese_runs_are_cut_into_known_words() {
        assert_eq!(
            segment_unspaced("ビルドが終わったら"),
            ["ビルド", "が", "終わっ", "たら"]
        );
        assert_eq!(
            segment_unspaced("エラーが出たら"),
            ["エラー", "が", "出", "たら"]
        );
        assert_eq!(segment_unspaced("构建完成后"), ["构建", "完成", "后"]);
        assert_eq!(segment_unspaced("猫"), ["猫"]);
    }

    #[test]
    fn words_have_their_roles() {
        assert!(roles("appears").has(Roles::APPEAR));
        assert!(roles("fails").has(Roles::FAILURE));
        assert!(roles("build.log").has(Roles::TARGET));
        assert_eq!(roles("disappears"), Roles::NONE);
    }
}
