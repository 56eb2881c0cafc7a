//! The numbers of a clause: an exit status ("exits non-zero", "the exit code isn't 0"), a
//! count of lines ("more than 3 errors"), a number the output prints ("progress reaches
//! 100%"), and durations ("for 30 seconds"). Each claims its clause only when it reads
//! every word of it, as [`super::classify`] requires.

use std::time::Duration;

use super::classify::{IGNORED, NumbersAllowed, Words};
use super::lexicon::{Roles, roles};
use super::words::Token;
use super::{Comparison, CountTest, LineKind, NumberTest, Outcome};

/// Words that make a number an exit status.
const EXIT_NOUNS: &[&str] = &[
    "code",
    "codes",
    "status",
    "rc",
    "errorlevel",
    "exitcode",
    "exit-code",
    "exit_code",
    "returncode",
    "rückgabewert",
    "rückgabecode",
    "statuscode",
    "código",
    "終了コード",
    "終了ステータス",
    "戻り値",
    "退出码",
    "退出代码",
    "返回码",
    "返回值",
    "状态码",
];

/// Verbs of exiting that take a status ("exits 1", "returns 0").
const EXIT_VERBS: &[&str] = &[
    "exit", "exits", "exited", "return", "returns", "returned", "終了", "退出", "返回", "endet",
    "beendet", "termine", "termina",
];

/// Words that say "any status but this one".
const OTHER_THAN: &[&str] = &[
    "other",
    "different",
    "anything",
    "else",
    "以外",
    "非",
    "不是",
    "不等于",
    "autre",
    "distinto",
    "diferente",
    "otro",
    "anders",
    "ungleich",
];

/// Words that go with [`OTHER_THAN`] ("other than", "different from", "distinto de").
const OTHER_THAN_FILLER: &[&str] = &["than", "from", "als", "que", "de"];

/// "exits non-zero", "exits with code 0", "the exit code isn't 0", "returns 2",
/// "exit status > 0": the status the clause asks for.
pub(super) fn exit_code_clause(clause: &Words<'_>, tokens: &[Token<'_>]) -> Option<Outcome> {
    if !(clause.has_word(EXIT_NOUNS) || clause.has_word(EXIT_VERBS)) {
        return None;
    }
    let non_zero = clause.has_word(&["non-zero", "nonzero", "ungleich"])
        || clause
            .words
            .windows(2)
            .any(|pair| pair[0] == "non" && pair[1] == "zero");
    let code = clause.words.iter().find_map(|word| match *word {
        "zero" | "null" | "零" | "cero" | "zéro" => Some(0),
        word => word.parse::<i32>().ok(),
    });
    if !non_zero && code.is_none() {
        return None;
    }
    let allowed = Roles::TARGET
        | Roles::SUBJECT
        | Roles::FINISH
        | Roles::EXIT
        | Roles::NEGATION
        | Roles::SUCCESS
        | Roles::FAILURE
        | Roles::COMPARE;
    let extra: Vec<&str> = OTHER_THAN
        .iter()
        .chain(OTHER_THAN_FILLER)
        .copied()
        .collect();
    if !clause.accounted_for(allowed, &extra, NumbersAllowed::Any) {
        return None;
    }
    if non_zero {
        return Some(Outcome::NotCode(0));
    }
    let code = code?;
    let marks: Vec<char> = tokens
        .iter()
        .filter_map(|token| match token {
            Token::Mark(mark, _) => Some(*mark),
            _ => None,
        })
        .collect();
    let not_equal = clause.any(Roles::NEGATION)
        || clause.has_word(OTHER_THAN)
        || marks.contains(&'!')
        || marks.contains(&'≠');
    let above = marks.contains(&'>')
        || clause.has_word(&["above", "greater", "over", "higher", "exceeds", "positive"]);
    if above && !not_equal {
        // "exit status > 0" is a failure; other comparisons of a status mean little.
        return (code == 0).then_some(Outcome::NotCode(0));
    }
    if marks.contains(&'<') || clause.has_word(&["below", "less", "under", "lower"]) {
        return None;
    }
    Some(if not_equal {
        Outcome::NotCode(code)
    } else {
        Outcome::Code(code)
    })
}

/// Nouns of lines that can be counted, and their kind.
fn line_kind(word: &str) -> Option<LineKind> {
    let found = roles(word);
    if found.has(Roles::WARNING) {
        Some(LineKind::Warning)
    } else if found.has(Roles::ERROR) || matches!(word, "failures" | "failure") {
        Some(LineKind::Error)
    } else {
        None
    }
}

/// "more than 3 errors have been logged", "when the error count is above 3", "at least 2
/// warnings": lines of a kind counted since the wait began (or the count the output
/// prints). Only counts that grow make a condition: "fewer than 3 errors" holds at once.
pub(super) fn count_clause(clause: &Words<'_>, tokens: &[Token<'_>]) -> Option<CountTest> {
    let kind = clause.words.iter().find_map(|word| line_kind(word))?;
    let value = clause
        .words
        .iter()
        .find_map(|word| match split_number(word) {
            (Some(value), "") => Some(value),
            _ => None,
        })?;
    let comparison = comparison_in(clause.words, tokens).unwrap_or(Comparison::AtLeast);
    let grows = match comparison {
        Comparison::AtLeast | Comparison::Equal => value > 0.0,
        Comparison::Above => value >= 0.0,
        Comparison::AtMost | Comparison::Below => false,
    };
    if !grows {
        return None;
    }
    let allowed = Roles::TARGET
        | Roles::SUBJECT
        | Roles::APPEAR
        | Roles::COUNT
        | Roles::COMPARE
        | Roles::ERROR
        | Roles::WARNING
        | Roles::FAILURE;
    if !clause.accounted_for(allowed, &["total"], NumbersAllowed::Any) {
        return None;
    }
    if clause.any(Roles::NEGATION) {
        return None;
    }
    Some(CountTest {
        kind,
        comparison,
        value,
    })
}

/// Words before a number that say how it compares, longest first. "is", "at", "to" read
/// as "reaches" for a percentage and as "equals" for anything else.
const COMPARISONS: &[(&[&str], Comparison)] = &[
    (&["at", "least"], Comparison::AtLeast),
    (&["no", "less", "than"], Comparison::AtLeast),
    (&["at", "most"], Comparison::AtMost),
    (&["no", "more", "than"], Comparison::AtMost),
    (&["more", "than"], Comparison::Above),
    (&["greater", "than"], Comparison::Above),
    (&["higher", "than"], Comparison::Above),
    (&["less", "than"], Comparison::Below),
    (&["fewer", "than"], Comparison::Below),
    (&["lower", "than"], Comparison::Below),
    (&["drops", "below"], Comparison::Below),
    (&["falls", "below"], Comparison::Below),
    (&["drops", "under"], Comparison::Below),
    (&["drops", "to"], Comparison::AtMost),
    (&["falls", "to"], Comparison::AtMost),
    (&["goes", "above"], Comparison::Above),
    (&["goes", "over"], Comparison::Above),
    (&["gets", "to"], Comparison::AtLeast),
    (&["get", "to"], Comparison::AtLeast),
    (&["mehr", "als"], Comparison::Above),
    (&["plus", "de"], Comparison::Above),
    (&["au", "moins"], Comparison::AtLeast),
    (&["más", "de"], Comparison::Above),
    (&["mais", "de"], Comparison::Above),
    (&["exactly"], Comparison::Equal),
    (&["equals"], Comparison::Equal),
    (&["reaches"], Comparison::AtLeast),
    (&["reach"], Comparison::AtLeast),
    (&["reached"], Comparison::AtLeast),
    (&["hits"], Comparison::AtLeast),
    (&["hit"], Comparison::AtLeast),
    (&["exceeds"], Comparison::Above),
    (&["exceed"], Comparison::Above),
    (&["exceeded"], Comparison::Above),
    (&["passes"], Comparison::Above),
    (&["crosses"], Comparison::Above),
    (&["above"], Comparison::Above),
    (&["over"], Comparison::Above),
    (&["below"], Comparison::Below),
    (&["under"], Comparison::Below),
    (&["mindestens"], Comparison::AtLeast),
    (&["über"], Comparison::Above),
    (&["unter"], Comparison::Below),
    (&["erreicht"], Comparison::AtLeast),
    (&["atteint"], Comparison::AtLeast),
    (&["dépasse"], Comparison::Above),
    (&["alcanza"], Comparison::AtLeast),
    (&["supera"], Comparison::Above),
    (&["atinge"], Comparison::AtLeast),
    (&["达到"], Comparison::AtLeast),
    (&["超过"], Comparison::Above),
    (&["大于"], Comparison::Above),
    (&["小于"], Comparison::Below),
];

/// Words that read "reaches" for a percentage and "equals" otherwise.
const IS_WORDS: &[&str] = &["is", "at", "to", "becomes", "ist", "est", "es", "é", "是"];

/// The comparison before the clause's first number: marks (`≥`, `>`, `<`, `=`, `>=`),
/// comparison words, or after the number ("3 or more" was rewritten before), or "以上".
fn comparison_in(words: &[&str], tokens: &[Token<'_>]) -> Option<Comparison> {
    let number_token = tokens.iter().position(|token| {
        token
            .word()
            .is_some_and(|word| split_number(word).0.is_some())
    })?;
    let mark = |at: usize| match tokens.get(at) {
        Some(Token::Mark('≥', _)) => Some(Comparison::AtLeast),
        Some(Token::Mark('≤', _)) => Some(Comparison::AtMost),
        Some(Token::Mark('>', _)) => Some(Comparison::Above),
        Some(Token::Mark('<', _)) => Some(Comparison::Below),
        Some(Token::Mark('=', _)) => Some(Comparison::Equal),
        _ => None,
    };
    if let Some(previous) = number_token.checked_sub(1)
        && let Some(mut comparison) = mark(previous)
    {
        // ">=" and "<=" arrive as two marks.
        if comparison == Comparison::Equal
            && let Some(before) = previous.checked_sub(1).and_then(mark)
        {
            comparison = match before {
                Comparison::Above => Comparison::AtLeast,
                Comparison::Below => Comparison::AtMost,
                other => other,
            };
        }
        return Some(comparison);
    }
    let index = words
        .iter()
        .position(|word| split_number(word).0.is_some())?;
    let percent = split_number(words[index]).1 == "%"
        || words.get(index + 1).is_some_and(|w| *w == "percent");
    if let Some(comparison) = COMPARISONS.iter().find_map(|(pattern, comparison)| {
        let start = index.checked_sub(pattern.len())?;
        (words[start..index] == **pattern).then_some(*comparison)
    }) {
        return Some(comparison);
    }
    if index > 0 && IS_WORDS.contains(&words[index - 1]) {
        return Some(if percent {
            Comparison::AtLeast
        } else {
            Comparison::Equal
        });
    }
    // "80%以上", "3件以上", and verbs that come after the number ("100% erreicht").
    words[index + 1..].iter().find_map(|word| match *word {
        "以上" => Some(Comparison::AtLeast),
        "以下" => Some(Comparison::AtMost),
        "未満" => Some(Comparison::Below),
        "超え" => Some(Comparison::Above),
        word => COMPARISONS
            .iter()
            .find(|(pattern, _)| {
                pattern.len() == 1 && pattern[0] == word && !IS_WORDS.contains(&word)
            })
            .map(|(_, comparison)| *comparison),
    })
}

/// Words that name a number without narrowing which lines carry it.
const GENERIC_LABELS: &[&str] = &[
    "value", "number", "count", "counter", "bar", "level", "reading", "figure",
];

/// "progress reaches 100%", "at least 3 passed", "coverage ≥ 80%", "memory below 500 mb",
/// "when the temperature is above 80": a number the output prints, with the word that
/// names it (before) or its unit (after).
pub(super) fn number_clause(clause: &Words<'_>, tokens: &[Token<'_>]) -> Option<NumberTest> {
    let comparison = comparison_in(clause.words, tokens)?;
    let words = clause.words;
    let number_index = words
        .iter()
        .position(|word| split_number(word).0.is_some())?;
    if words[number_index + 1..]
        .iter()
        .any(|word| split_number(word).0.is_some())
    {
        return None;
    }
    let (value, glued_unit) = split_number(words[number_index]);
    let value = value?;
    let mut consumed = vec![false; words.len()];
    consumed[number_index] = true;
    let is_plain_word = |word: &str| {
        word.chars().all(char::is_alphabetic) && !roles(word).has(IGNORED | Roles::COMPARE)
    };
    let unit = if glued_unit == "%" || words.get(number_index + 1) == Some(&"percent") {
        if words.get(number_index + 1) == Some(&"percent") {
            consumed[number_index + 1] = true;
        }
        Some("%".to_owned())
    } else if !glued_unit.is_empty() {
        Some(glued_unit.to_owned())
    } else {
        // The word after the number, or, when an outcome word follows that one ("10 tests
        // passed"), the outcome word: it is what the line must say.
        let after = words.get(number_index + 1).filter(|w| is_plain_word(w));
        let outcome = words
            .get(number_index + 2)
            .filter(|w| roles(w).has(Roles::SUCCESS | Roles::FAILURE));
        match (after, outcome) {
            (Some(_), Some(outcome)) => {
                consumed[number_index + 1] = true;
                consumed[number_index + 2] = true;
                Some((*outcome).to_owned())
            }
            (Some(after), None) => {
                consumed[number_index + 1] = true;
                Some((*after).to_owned())
            }
            _ => None,
        }
    };
    // The label: the nearest word before the comparison that names something, with at
    // most one more naming word before it ("test coverage").
    let mut label = None;
    for at in (0..number_index).rev() {
        let word = words[at];
        if is_plain_word(word) && !GENERIC_LABELS.contains(&word) {
            if label.is_none() {
                label = Some(word.to_owned());
                consumed[at] = true;
            } else {
                consumed[at] = true;
                break;
            }
        } else if label.is_some() {
            break;
        }
    }
    if unit.is_none() && label.is_none() {
        // A number alone ("when it is 5") is too vague for a detector.
        return None;
    }
    let allowed = Roles::TARGET | Roles::SUBJECT | Roles::COMPARE | Roles::ACTIVITY | Roles::COUNT;
    let all_read =
        words
            .iter()
            .zip(&clause.roles)
            .zip(&consumed)
            .all(|((word, found), consumed)| {
                *consumed || found.has(allowed | IGNORED) || GENERIC_LABELS.contains(word)
            });
    all_read.then_some(NumberTest {
        label,
        unit,
        comparison,
        value,
    })
}

/// "30s", "30 seconds", "2 min", "1.5 minutes", "an hour", "30秒".
pub(super) fn duration_in(words: &[&str]) -> Option<Duration> {
    for (index, word) in words.iter().enumerate() {
        let (number, unit) = split_number(word);
        let (value, unit) = match (number, unit) {
            (Some(value), unit) if !unit.is_empty() => (value, unit),
            (Some(value), _) => (value, *words.get(index + 1)?),
            (None, _) if matches!(*word, "a" | "an" | "one" | "eine" | "einer" | "une" | "un") => {
                (1.0, *words.get(index + 1)?)
            }
            _ => continue,
        };
        let Some(unit_seconds) = seconds_in(unit) else {
            continue;
        };
        let seconds = value * unit_seconds;
        if seconds > 0.0 && seconds.is_finite() {
            return Some(Duration::from_secs_f64(seconds.min(86_400.0)));
        }
    }
    None
}

/// How many seconds a unit word is.
pub(super) fn seconds_in(unit: &str) -> Option<f64> {
    Some(match unit {
        "s" | "sec" | "secs" | "second" | "seconds" | "sekunde" | "sekunden" | "seconde"
        | "secondes" | "segundo" | "segundos" | "secondo" | "secondi" | "秒" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" | "minuten" | "minuto" | "minutos"
        | "minuti" | "分" | "分钟" | "分間" => 60.0,
        "h" | "hr" | "hrs" | "hour" | "hours" | "stunde" | "stunden" | "heure" | "heures"
        | "hora" | "horas" | "ora" | "ore" | "時間" | "小时" => 3600.0,
        "ms" => 0.001,
        _ => return None,
    })
}

/// "100%" → (100, "%"), "30s" → (30, "s"), "3" → (3, ""), "tests" → (None, "tests").
pub(super) fn split_number(word: &str) -> (Option<f64>, &str) {
    let digits = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(word.len());
    if digits == 0 {
        return (None, word);
    }
    let number = word[..digits].replace(',', "").parse::<f64>().ok();
    (number, &word[digits..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_many_units() {
        assert_eq!(duration_in(&["30s"]), Some(Duration::from_secs(30)));
        assert_eq!(
            duration_in(&["2", "minutes"]),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            duration_in(&["an", "hour"]),
            Some(Duration::from_secs(3600))
        );
        assert_eq!(duration_in(&["30", "秒"]), Some(Duration::from_secs(30)));
        assert_eq!(
            duration_in(&["30", "sekunden"]),
            Some(Duration::from_secs(30))
        );
        assert_eq!(duration_in(&["3", "errors"]), None);
    }
}
