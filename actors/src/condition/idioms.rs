//! What frames a condition rather than being one: idioms removed before the clauses are
//! cut ("whichever comes first", "then wake me"), idioms that say the outcome does not matter
//! ("whether it worked or not", "pass or fail"), "3 or more" read as "at least 3", and the
//! lead-in ("wake me when", "wait until", "wenn", "quand").

use super::lexicon::{Roles, roles};
use super::words::Token;

// ---- idioms: framing, "either way", "3 or more" ----

/// Phrases that frame a condition without adding to it; removed before the clauses are cut.
const FRAMING_IDIOMS: &[&[&str]] = &[
    &["whichever", "one", "comes", "first"],
    &["whichever", "comes", "first"],
    &["whichever", "happens", "first"],
    &["whichever", "occurs", "first"],
    &["whichever", "is", "first"],
    &["whichever", "first"],
    &["whatever", "comes", "first"],
    &["whatever", "happens", "first"],
    &["je", "nachdem", "was", "zuerst", "kommt"],
    &["was", "zuerst", "kommt"],
    &["selon", "ce", "qui", "arrive", "en", "premier"],
    &["ce", "qui", "arrive", "en", "premier"],
    &["lo", "que", "ocurra", "primero"],
    &["lo", "que", "pase", "primero"],
    &["lo", "que", "suceda", "primero"],
    &["o", "que", "acontecer", "primeiro"],
    &["o", "que", "vier", "primeiro"],
];

/// Phrases that say the outcome does not matter: the work ending either way is the
/// condition ("whether it worked or not", "pass or fail").
const EITHER_WAY_IDIOMS: &[&[&str]] = &[
    &["either", "way"],
    &["in", "either", "case"],
    &["in", "any", "case"],
    &["no", "matter", "what"],
    &["no", "matter", "the", "result"],
    &["no", "matter", "the", "outcome"],
    &["no", "matter", "how", "it", "ends"],
    &["regardless", "of", "the", "result"],
    &["regardless", "of", "the", "outcome"],
    &["regardless", "of", "the", "exit", "code"],
    &["regardless", "of", "the", "exit", "status"],
    &["regardless", "of", "the", "status"],
    &["regardless", "of", "result"],
    &["regardless", "of", "outcome"],
    &["good", "or", "bad"],
    &["with", "or", "without", "errors"],
    &["egal", "wie"],
    &["egal", "mit", "welchem", "ergebnis"],
    &["peu", "importe", "le", "résultat"],
    &["quel", "que", "soit", "le", "résultat"],
    &["sin", "importar", "el", "resultado"],
    &["independientemente", "del", "resultado"],
    &["independentemente", "do", "resultado"],
    &["成否", "にかかわらず"],
    &["无论", "成功", "与否"],
    &["不管", "成功", "还是", "失败"],
    &["成功", "与否"],
];

pub(super) const OR_WORDS: &[&str] = &[
    "or",
    "oder",
    "ou",
    "o",
    "u",
    "或",
    "或者",
    "还是",
    "または",
    "か",
];

/// Words after "or" that turn "X or Y" into "whatever the outcome" ("success or not").
fn says_otherwise(word: &str) -> bool {
    matches!(
        word,
        "not" | "no" | "nicht" | "non" | "não" | "pas" | "nein" | "ない"
    ) || roles(word).has(Roles::FAILURE)
}

/// Removes framing idioms and "either way" idioms, and reads "3 or more" as "at least 3";
/// returns the tokens left and whether the condition said the outcome does not matter.
pub(super) fn strip_idioms(tokens: Vec<Token<'_>>) -> (Vec<Token<'_>>, bool) {
    let mut tokens = tokens;
    let mut either_way = false;
    let mut index = 0;
    while index < tokens.len() {
        let words_from =
            |at: usize| -> Vec<&str> { tokens[at..].iter().map_while(Token::word).collect() };
        let ahead = words_from(index);
        let starts =
            |pattern: &[&str]| ahead.len() >= pattern.len() && ahead[..pattern.len()] == *pattern;
        if let Some(pattern) = FRAMING_IDIOMS.iter().find(|pattern| starts(pattern)) {
            tokens.drain(index..index + pattern.len());
            continue;
        }
        if let Some(pattern) = EITHER_WAY_IDIOMS.iter().find(|pattern| starts(pattern)) {
            tokens.drain(index..index + pattern.len());
            either_way = true;
            continue;
        }
        if let Some(width) = whether_or_not(&ahead) {
            tokens.drain(index..index + width);
            either_way = true;
            continue;
        }
        // "pass or fail", "success or not", "failure or success".
        if ahead.len() >= 3 && OR_WORDS.contains(&ahead[1]) {
            let first = roles(ahead[0]);
            let well_or_not = first.has(Roles::SUCCESS) && says_otherwise(ahead[2]);
            let badly_or_well = first.has(Roles::FAILURE) && roles(ahead[2]).has(Roles::SUCCESS);
            if well_or_not || badly_or_well {
                tokens.drain(index..index + 3);
                either_way = true;
                continue;
            }
        }
        // "3 or more" → "at least 3"; "3 errors or more" likewise.
        if let Some((number_at, width, comparison)) = or_more(&tokens, index) {
            let span = tokens[index].span();
            tokens.drain(index + width - 2..index + width);
            let [first, second] = comparison;
            tokens.insert(number_at, Token::Word(second.to_owned(), span));
            tokens.insert(number_at, Token::Word(first.to_owned(), span));
            index += width;
            continue;
        }
        index += 1;
    }
    // Parentheses an idiom left empty.
    let mut index = 0;
    while index + 1 < tokens.len() {
        if matches!(tokens[index], Token::Mark('(' | '[', _))
            && matches!(tokens[index + 1], Token::Mark(')' | ']', _))
        {
            tokens.drain(index..index + 2);
        } else {
            index += 1;
        }
    }
    (tokens, either_way)
}

/// "whether it worked or not", "whether or not it passed", "ob es klappt oder nicht": how
/// many words the idiom takes at the start of `words`.
fn whether_or_not(words: &[&str]) -> Option<usize> {
    if !matches!(words.first(), Some(&("whether" | "ob"))) {
        return None;
    }
    if words.get(1).is_some_and(|word| OR_WORDS.contains(word))
        && words.get(2).is_some_and(|word| says_otherwise(word))
    {
        // "whether or not it worked": the words that say what worked go too.
        let mut width = 3;
        while words.get(width).is_some_and(|word| {
            roles(word)
                .has(Roles::STOP | Roles::SUBJECT | Roles::SUCCESS | Roles::FINISH | Roles::FAILURE)
        }) {
            width += 1;
        }
        return Some(width);
    }
    let or_at = words
        .iter()
        .take(8)
        .position(|word| OR_WORDS.contains(word))?;
    let after = words.get(or_at + 1)?;
    (says_otherwise(after) || roles(after).has(Roles::SUCCESS)).then_some(or_at + 2)
}

/// "3 or more" / "3 errors or more" at `index` (the number): where the comparison words go
/// (before the number), how many tokens the idiom spans, and the comparison's two words.
fn or_more(tokens: &[Token<'_>], index: usize) -> Option<(usize, usize, [&'static str; 2])> {
    let number = tokens[index].word()?;
    number.parse::<f64>().ok()?;
    let word = |at: usize| tokens.get(at).and_then(Token::word);
    let or_at = if word(index + 1).is_some_and(|w| OR_WORDS.contains(&w)) {
        index + 1
    } else if word(index + 2).is_some_and(|w| OR_WORDS.contains(&w)) {
        index + 2
    } else {
        return None;
    };
    let comparison = match word(or_at + 1)? {
        "more" | "above" | "greater" | "higher" | "over" | "mehr" | "plus" | "más" | "mais" => {
            ["at", "least"]
        }
        "fewer" | "less" | "below" | "under" | "weniger" | "moins" | "menos" => ["at", "most"],
        _ => return None,
    };
    Some((index, or_at + 2 - index, comparison))
}

// ---- the lead-in: "wake me when", "wait until", "let me know once" ----

const LEAD_IN: &[&[&str]] = &[
    &["wake", "me", "up"],
    &["wake", "me"],
    &["wake", "up"],
    &["wake"],
    &["wait", "until"],
    &["wait", "till"],
    &["wait", "for"],
    &["watch", "for"],
    &["look", "out", "for"],
    &["look", "for"],
    &["check", "for"],
    &["check", "if"],
    &["check", "whether"],
    &["see", "if"],
    &["see", "whether"],
    &["monitor", "for"],
    &["keep", "watching", "until"],
    &["notify", "me"],
    &["tell", "me"],
    &["alert", "me"],
    &["ping", "me"],
    &["let", "me", "know"],
    &["please"],
    &["as", "soon", "as"],
    &["when"],
    &["whenever"],
    &["once"],
    &["if"],
    &["until"],
    &["till"],
    &["after"],
    &["either"],
    &["both"],
    &["weck", "mich"],
    &["wecke", "mich"],
    &["sag", "mir", "bescheid"],
    &["gib", "mir", "bescheid"],
    &["benachrichtige", "mich"],
    &["wenn"],
    &["sobald"],
    &["falls"],
    &["bis"],
    &["quand"],
    &["lorsque"],
    &["dès", "que"],
    &["dès", "qu'"],
    &["jusqu'", "à", "ce", "que"],
    &["si"],
    &["cuando"],
    &["en", "cuanto"],
    &["hasta", "que"],
    &["quando"],
    &["assim", "que"],
    &["appena"],
    &["se"],
];

pub(super) fn strip_lead_in<'t, 'a>(mut tokens: &'t [Token<'a>]) -> &'t [Token<'a>] {
    'again: loop {
        // Commas between framing and the condition ("weck mich, wenn …").
        if tokens.len() > 1 && matches!(tokens[0], Token::Mark(',' | ';', _)) {
            tokens = &tokens[1..];
            continue 'again;
        }
        for pattern in LEAD_IN {
            if tokens.len() > pattern.len()
                && pattern
                    .iter()
                    .zip(tokens)
                    .all(|(word, token)| token.is(word))
            {
                tokens = &tokens[pattern.len()..];
                continue 'again;
            }
        }
        return tokens;
    }
}
