//! The words of a condition: quoted phrases masked out of the way (every quote style, not
//! an apostrophe inside a word), tokens (runs of Japanese or Chinese cut into words, French
//! elisions split), idioms that are framing rather than conditions ("whichever comes
//! first", "pass or fail"), the lead-in ("wake me when"), and the connectives that split it
//! into clauses ("or", "and", "unless", lists with commas), in the languages the lexicon
//! knows.

use super::Clause;
use super::classify::classify;
use super::idioms::strip_lead_in;
use super::lexicon::{Roles, is_unspaced, roles, segment_unspaced};

/// Opens and closes a quoted phrase's place in the masked text (private-use characters, so
/// no condition can contain them).
const PHRASE_OPEN: char = '\u{E000}';
const PHRASE_CLOSE: char = '\u{E001}';

/// The condition with each quoted phrase replaced by a placeholder, and the phrases.
pub(super) struct Masked {
    pub(super) text: String,
    /// (the phrase, how it was written with its quotes)
    phrases: Vec<(String, String)>,
}

/// The quote pairs agents use: ASCII single and double, curly (English), low-high (German,
/// Czech), backticks, guillemets both ways, angle quotes, and the CJK corner and
/// double-angle brackets.
const QUOTE_PAIRS: [(char, char); 13] = [
    ('\'', '\''),
    ('"', '"'),
    ('“', '”'),
    ('‘', '’'),
    ('„', '“'),
    ('‚', '‘'),
    ('`', '`'),
    ('«', '»'),
    ('»', '«'),
    ('‹', '›'),
    ('「', '」'),
    ('『', '』'),
    ('《', '》'),
];

impl Masked {
    pub(super) fn new(condition: &str) -> Masked {
        let mut text = String::with_capacity(condition.len());
        let mut phrases = Vec::new();
        let chars: Vec<(usize, char)> = condition.char_indices().collect();
        let mut index = 0;
        while index < chars.len() {
            let (start, c) = chars[index];
            if let Some(close) = opening_quote(condition, start, c)
                && let Some(end) = closing_quote(condition, start + c.len_utf8(), c, close)
            {
                let inner = condition[start + c.len_utf8()..end].trim();
                let after = end + close.len_utf8();
                if !inner.is_empty() {
                    text.push(' ');
                    text.push(PHRASE_OPEN);
                    text.push_str(&phrases.len().to_string());
                    text.push(PHRASE_CLOSE);
                    text.push(' ');
                    phrases.push((inner.to_owned(), condition[start..after].to_owned()));
                    while index < chars.len() && chars[index].0 < after {
                        index += 1;
                    }
                    continue;
                }
            }
            text.push(c);
            index += 1;
        }
        Masked { text, phrases }
    }

    /// The masked span as the agent wrote it, quotes and all.
    fn original(&self, span: &str) -> String {
        let mut out = String::new();
        let mut rest = span;
        while let Some(open) = rest.find(PHRASE_OPEN) {
            out.push_str(&rest[..open]);
            let after = &rest[open + PHRASE_OPEN.len_utf8()..];
            let close = after.find(PHRASE_CLOSE).unwrap_or(after.len());
            if let Some((_, written)) = after[..close]
                .parse::<usize>()
                .ok()
                .and_then(|n| self.phrases.get(n))
            {
                out.push_str(written);
            }
            rest = after.get(close + PHRASE_CLOSE.len_utf8()..).unwrap_or("");
        }
        out.push_str(rest);
        let collapsed: Vec<&str> = out.split_whitespace().collect();
        collapsed.join(" ")
    }
}

/// The closing quote if `c` at `at` opens a phrase: an apostrophe inside a word ("don't",
/// "it's") opens nothing.
fn opening_quote(text: &str, at: usize, c: char) -> Option<char> {
    let (_, close) = QUOTE_PAIRS.iter().find(|(open, _)| *open == c)?;
    if c == '\'' || c == '‘' {
        let before = text[..at].chars().next_back();
        if before.is_some_and(is_spaced_word_char) {
            return None;
        }
    }
    Some(*close)
}

/// A letter or digit of a script written with spaces: an apostrophe between two of them is
/// inside a word ("don't"); next to Japanese or Chinese, which has no spaces, it is a quote.
fn is_spaced_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_unspaced(c)
}

/// Where the phrase opened with `open` closes: the next `close` that is not an apostrophe
/// inside a word ("'don't stop'" closes after "stop").
fn closing_quote(text: &str, from: usize, open: char, close: char) -> Option<usize> {
    let mut search = from;
    while let Some(found) = text[search..].find(close) {
        let at = search + found;
        if close == '\'' || (open == '‘' && close == '’') {
            let before = text[..at].chars().next_back();
            let after = text[at + close.len_utf8()..].chars().next();
            let inside_word =
                before.is_some_and(is_spaced_word_char) && after.is_some_and(is_spaced_word_char);
            if inside_word {
                search = at + close.len_utf8();
                continue;
            }
        }
        return Some(at);
    }
    None
}

// ---- tokens ----

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Token<'a> {
    /// A lowercase word (letters, digits, and `'`, `.`, `%`, `-`, `_` inside it), with its
    /// place in the masked text.
    Word(String, &'a str),
    /// A quoted phrase's placeholder: its index.
    Phrase(usize, &'a str),
    /// `,` `;` `(` `)` `[` `]` `>` `<` `=` `≥` `≤` `%`.
    Mark(char, &'a str),
}

impl<'a> Token<'a> {
    pub(super) fn span(&self) -> &'a str {
        match self {
            Token::Word(_, span) | Token::Phrase(_, span) | Token::Mark(_, span) => span,
        }
    }

    pub(super) fn word(&self) -> Option<&str> {
        match self {
            Token::Word(word, _) => Some(word),
            _ => None,
        }
    }

    pub(super) fn is(&self, word: &str) -> bool {
        self.word() == Some(word)
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

pub(super) fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut index = 0;
    while index < chars.len() {
        let (start, c) = chars[index];
        if c == PHRASE_OPEN {
            let mut end = index + 1;
            while end < chars.len() && chars[end].1 != PHRASE_CLOSE {
                end += 1;
            }
            let stop = chars.get(end + 1).map_or(text.len(), |(at, _)| *at);
            let number = text
                [start + c.len_utf8()..chars.get(end).map_or(text.len(), |(at, _)| *at)]
                .parse()
                .unwrap_or(usize::MAX);
            tokens.push(Token::Phrase(number, &text[start..stop]));
            index = end + 1;
        } else if is_word_char(c) {
            let mut end = index + 1;
            while end < chars.len() {
                let here = chars[end].1;
                let joins = matches!(here, '\'' | '’' | '.' | '-' | ',' | ':')
                    && chars
                        .get(end + 1)
                        .is_some_and(|(_, next)| is_word_char(*next))
                    && (here != ','
                        || (chars[end - 1].1.is_ascii_digit()
                            && chars[end + 1].1.is_ascii_digit()));
                if is_word_char(here) || joins {
                    end += 1;
                } else {
                    break;
                }
            }
            // A percent sign sticks to its number ("100%").
            if chars.get(end).is_some_and(|(_, here)| *here == '%') {
                end += 1;
            }
            let stop = chars.get(end).map_or(text.len(), |(at, _)| *at);
            push_words(&mut tokens, &text[start..stop]);
            index = end;
        } else {
            let mark = match c {
                '，' | '、' => ',',
                '；' => ';',
                '（' => '(',
                '）' => ')',
                '＞' => '>',
                '＜' => '<',
                '＝' => '=',
                '！' => '!',
                other => other,
            };
            if matches!(
                mark,
                ',' | ';' | '(' | ')' | '[' | ']' | '>' | '<' | '=' | '≥' | '≤' | '%' | '!' | '≠'
            ) {
                tokens.push(Token::Mark(mark, &text[start..start + c.len_utf8()]));
            }
            index += 1;
        }
    }
    tokens
}

/// Elisions that begin a French or Italian word ("l'erreur", "qu'il"): a word of their own.
const ELISIONS: &[&str] = &[
    "jusqu'", "qu'", "l'", "d'", "s'", "n'", "j'", "m'", "c'", "t'", "un'",
];

/// Pushes the words of `span`: a run of Japanese or Chinese cut into the words the lexicon
/// knows, an elision split off, anything else one word.
fn push_words<'a>(tokens: &mut Vec<Token<'a>>, span: &'a str) {
    if span.chars().any(is_unspaced) {
        let mut rest = span;
        while let Some(first) = rest.chars().next() {
            let unspaced = is_unspaced(first);
            let end = rest
                .char_indices()
                .find(|(_, c)| is_unspaced(*c) != unspaced)
                .map_or(rest.len(), |(at, _)| at);
            let (run, after) = rest.split_at(end);
            if unspaced {
                for word in segment_unspaced(run) {
                    tokens.push(Token::Word(word.to_owned(), word));
                }
            } else {
                push_words(tokens, run);
            }
            rest = after;
        }
        return;
    }
    let word = span.to_lowercase().replace('’', "'");
    for elision in ELISIONS {
        if word.len() > elision.len()
            && word.starts_with(elision)
            && word[elision.len()..].starts_with(char::is_alphabetic)
        {
            // The span may spell the apostrophe ’ (three bytes): split it by characters.
            let split = span
                .char_indices()
                .nth(elision.chars().count())
                .map_or(span.len(), |(at, _)| at);
            tokens.push(Token::Word((*elision).to_owned(), &span[..split]));
            push_words(tokens, &span[split..]);
            return;
        }
    }
    tokens.push(Token::Word(word, span));
}

// ---- clauses ----

/// How a clause joins the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Joint {
    /// The first clause, or one after "or": a new alternative.
    Or,
    And,
    /// "but": must hold too, and, at the end of a condition, holds for every alternative
    /// ("'ERROR' or 'FATAL', but ignore 'retrying'").
    But,
    /// "unless", "but not", "and not", "without", "except": must not hold (at the end of a
    /// condition, for every alternative).
    AndNot,
    /// A comma or semicolon: the joint of the list it belongs to.
    List,
}

/// Splits at the connectives outside parentheses: ("or" | "and" | "unless" | …, tokens).
/// A comma or semicolon takes the joint of the connective that ends its list ("'A', 'B' or
/// 'C'"); with none after it, the one before; in a condition with no connective at all it
/// is part of a clause.
pub(super) fn split_clauses<'t, 'a>(tokens: &'t [Token<'a>]) -> Vec<(Joint, &'t [Token<'a>])> {
    let mut cuts: Vec<(usize, usize, Joint)> = Vec::new();
    let mut depth = 0i32;
    for (index, token) in tokens.iter().enumerate() {
        let next = tokens.get(index + 1);
        let found: Option<(Joint, usize)> = match token {
            Token::Mark('(' | '[', _) => {
                depth += 1;
                None
            }
            Token::Mark(')' | ']', _) => {
                depth -= 1;
                None
            }
            _ if depth > 0 => None,
            Token::Mark(',' | ';', _) => match next.and_then(Token::word) {
                // ", or" / ", and" are the word's joint, not a list's.
                Some(word) if joint_word(word).is_some() && word != "then" => None,
                _ => Some((Joint::List, 1)),
            },
            Token::Word(word, _) => {
                let next_word = next.and_then(Token::word).unwrap_or("");
                let beside_phrase = matches!(next, Some(Token::Phrase(..)))
                    || index
                        .checked_sub(1)
                        .is_some_and(|at| matches!(tokens[at], Token::Phrase(..)));
                match (word.as_str(), next_word) {
                    ("or", "else") => Some((Joint::Or, 2)),
                    // Spanish "o" and "u" are "or"; Portuguese "o" is "the": only between
                    // quoted phrases is it read as "or".
                    ("o" | "u", _) if !beside_phrase => None,
                    ("and" | "but" | "aber" | "mais" | "pero" | "mas", "not" | "nicht" | "pas") => {
                        Some((Joint::AndNot, 2))
                    }
                    ("except" | "außer", "if" | "when" | "wenn" | "falls") => {
                        Some((Joint::AndNot, 2))
                    }
                    ("then", _) if index == 0 => None,
                    (word, _) => joint_word(word).map(|joint| (joint, 1)),
                }
            }
            _ => None,
        };
        if let Some((joint, width)) = found {
            // A cut inside an earlier two-word cut ("and not") was already taken.
            if cuts.last().is_none_or(|(at, taken, _)| index >= at + taken) {
                cuts.push((index, width, joint));
            }
        }
    }
    if cuts.iter().all(|(_, _, joint)| *joint == Joint::List) {
        cuts.clear();
    }
    for index in 0..cuts.len() {
        if cuts[index].2 != Joint::List {
            continue;
        }
        let after = cuts[index + 1..]
            .iter()
            .map(|(_, _, joint)| *joint)
            .find(|joint| *joint != Joint::List);
        let before = cuts[..index]
            .iter()
            .map(|(_, _, joint)| *joint)
            .rfind(|joint| *joint != Joint::List);
        cuts[index].2 = match after.or(before).unwrap_or(Joint::Or) {
            Joint::AndNot | Joint::But => Joint::And,
            joint => joint,
        };
    }
    let mut parts = Vec::new();
    let (mut joint, mut start) = (Joint::Or, 0);
    for (index, width, next_joint) in cuts {
        parts.push((joint, &tokens[start..index]));
        joint = next_joint;
        start = index + width;
    }
    parts.push((joint, &tokens[start..]));
    parts
        .into_iter()
        .map(|(joint, part)| (joint, strip_lead_in(part)))
        .filter(|(_, part)| !part.is_empty())
        .collect()
}

/// The joint a connective word makes.
fn joint_word(word: &str) -> Option<Joint> {
    Some(match word {
        "or" | "otherwise" | "oder" | "ou" | "o" | "u" | "或" | "或者" | "または" | "もしくは"
        | "あるいは" => Joint::Or,
        "and" | "then" | "und" | "et" | "y" | "e" | "并且" | "而且" | "かつ" => Joint::And,
        "but" | "aber" | "mais" | "pero" | "mas" | "ma" => Joint::But,
        "unless" | "without" | "except" | "außer" | "ohne" | "sauf" | "sans" | "salvo" | "sin"
        | "sem" | "senza" => Joint::AndNot,
        _ => return None,
    })
}

/// Words at the start of a clause that say nothing about it.
const CLAUSE_FILLER: &[&str] = &[
    "when", "if", "once", "until", "that", "there", "either", "both", "also", "then",
];

/// Reads one clause: its text as the agent wrote it and its test. A clause of framing
/// alone ("then wake me", "let me know") is no clause.
pub(super) fn read_clause(
    masked: &Masked,
    tokens: &[Token<'_>],
    negated_by_joint: bool,
    either_way: bool,
) -> Option<Clause> {
    let mut tokens = tokens;
    while tokens
        .first()
        .and_then(Token::word)
        .is_some_and(|word| CLAUSE_FILLER.contains(&word))
    {
        tokens = &tokens[1..];
    }
    let only_framing = tokens.iter().all(|token| match token {
        Token::Word(word, _) => roles(word).has(Roles::STOP | Roles::FRAMING),
        Token::Phrase(..) => false,
        Token::Mark(..) => true,
    });
    if only_framing {
        return None;
    }
    let first = tokens.first()?;
    let last = tokens.last()?;
    let span = span_between(&masked.text, first.span(), last.span());
    let text = masked.original(span);
    if text.is_empty() {
        return None;
    }
    let words: Vec<&str> = tokens.iter().filter_map(Token::word).collect();
    let phrases: Vec<(usize, String)> = tokens
        .iter()
        .enumerate()
        .filter_map(|(at, token)| match token {
            Token::Phrase(number, _) => masked
                .phrases
                .get(*number)
                .map(|(phrase, _)| (at, phrase.clone())),
            _ => None,
        })
        .collect();
    let (test, negated_here) = classify(&words, tokens, phrases, either_way);
    Some(Clause {
        text,
        negated: negated_by_joint ^ negated_here,
        test,
    })
}

/// The stretch of `text` from the start of `first` to the end of `last` (both are slices of
/// it).
fn span_between<'a>(text: &'a str, first: &str, last: &str) -> &'a str {
    let base = text.as_ptr() as usize;
    let start = (first.as_ptr() as usize)
        .saturating_sub(base)
        .min(text.len());
    let end = (last.as_ptr() as usize + last.len())
        .saturating_sub(base)
        .clamp(start, text.len());
    &text[start..end]
}
