//! Letters with a diacritic read as the letter without it ("Blüthner" as "bluthner",
//! "café" as "cafe"), as the index's tokenizer reads them (`unicode61 remove_diacritics
//! 2`): a question written either way finds a record written either way, and what a
//! document holds is counted as the index found it. Pure data and a lookup.

/// Lowercase letters with a diacritic and the letter without it: Latin-1 and Latin
/// Extended-A, the letters the tokenizer folds (not "ø", "ł" or "æ", which it keeps).
const FOLDED: &[(char, char)] = &[
    ('à', 'a'),
    ('á', 'a'),
    ('â', 'a'),
    ('ã', 'a'),
    ('ä', 'a'),
    ('å', 'a'),
    ('ā', 'a'),
    ('ă', 'a'),
    ('ą', 'a'),
    ('ç', 'c'),
    ('ć', 'c'),
    ('ĉ', 'c'),
    ('ċ', 'c'),
    ('č', 'c'),
    ('ď', 'd'),
    ('è', 'e'),
    ('é', 'e'),
    ('ê', 'e'),
    ('ë', 'e'),
    ('ē', 'e'),
    ('ĕ', 'e'),
    ('ė', 'e'),
    ('ę', 'e'),
    ('ě', 'e'),
    ('ĝ', 'g'),
    ('ğ', 'g'),
    ('ġ', 'g'),
    ('ģ', 'g'),
    ('ĥ', 'h'),
    ('ì', 'i'),
    ('í', 'i'),
    ('î', 'i'),
    ('ï', 'i'),
    ('ĩ', 'i'),
    ('ī', 'i'),
    ('ĭ', 'i'),
    ('į', 'i'),
    ('ĵ', 'j'),
    ('ķ', 'k'),
    ('ĺ', 'l'),
    ('ļ', 'l'),
    ('ľ', 'l'),
    ('ñ', 'n'),
    ('ń', 'n'),
    ('ņ', 'n'),
    ('ň', 'n'),
    ('ò', 'o'),
    ('ó', 'o'),
    ('ô', 'o'),
    ('õ', 'o'),
    ('ö', 'o'),
    ('ō', 'o'),
    ('ŏ', 'o'),
    ('ő', 'o'),
    ('ŕ', 'r'),
    ('ŗ', 'r'),
    ('ř', 'r'),
    ('ś', 's'),
    ('ŝ', 's'),
    ('ş', 's'),
    ('š', 's'),
    ('ţ', 't'),
    ('ť', 't'),
    ('ù', 'u'),
    ('ú', 'u'),
    ('û', 'u'),
    ('ü', 'u'),
    ('ũ', 'u'),
    ('ū', 'u'),
    ('ŭ', 'u'),
    ('ů', 'u'),
    ('ű', 'u'),
    ('ų', 'u'),
    ('ŵ', 'w'),
    ('ý', 'y'),
    ('ÿ', 'y'),
    ('ŷ', 'y'),
    ('ź', 'z'),
    ('ż', 'z'),
    ('ž', 'z'),
];

/// The letter without its diacritic; any other character as it is.
pub(crate) fn without_diacritic(c: char) -> char {
    if c.is_ascii() {
        return c;
    }
    FOLDED
        .iter()
        .find(|(with, _)| *with == c)
        .map_or(c, |(_, without)| *without)
}

/// A lowercase word with its letters' diacritics dropped: borrowed when it has none.
pub(crate) fn folded(word: &str) -> std::borrow::Cow<'_, str> {
    if word.chars().all(|c| without_diacritic(c) == c) {
        std::borrow::Cow::Borrowed(word)
    } else {
        std::borrow::Cow::Owned(word.chars().map(without_diacritic).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diacritic_is_dropped_as_the_tokenizer_drops_it() {
        assert_eq!(folded("blüthner"), "bluthner");
        assert_eq!(folded("café"), "cafe");
        assert_eq!(
            folded("łódź"),
            "łodz",
            "ł is a letter of its own to the tokenizer"
        );
        assert!(matches!(folded("deploy"), std::borrow::Cow::Borrowed(_)));
    }
}
