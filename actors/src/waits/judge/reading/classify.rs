//! What a clause asks for: its test (phrases, the process finishing, an error, the prompt,
//! quiet, a number) read from its words, and whether it negates itself.

use std::time::Duration;

use super::words::Token;
use super::{Comparison, DEFAULT_QUIET, NumberTest, Test};

const NEGATIONS: &[&str] = &[
    "not", "no", "never", "without", "none", "doesn't", "don't", "isn't", "aren't", "hasn't",
    "haven't", "won't", "didn't", "wasn't", "cannot", "can't",
];

const ERROR_WORDS: &[&str] = &[
    "error",
    "errors",
    "errored",
    "fail",
    "fails",
    "failed",
    "failing",
    "failure",
    "failures",
    "exception",
    "exceptions",
    "traceback",
    "panic",
    "panics",
    "panicked",
    "fatal",
    "crash",
    "crashes",
    "crashed",
    "segfault",
    "segfaults",
    "abort",
    "aborts",
    "aborted",
    "broke",
    "breaks",
];

const FINISH_WORDS: &[&str] = &[
    "finish",
    "finishes",
    "finished",
    "finishing",
    "complete",
    "completes",
    "completed",
    "completion",
    "exit",
    "exits",
    "exited",
    "end",
    "ends",
    "ended",
    "done",
    "terminate",
    "terminates",
    "terminated",
    "stop",
    "stops",
    "stopped",
    "quit",
    "quits",
    "dies",
    "died",
    "over",
    "succeed",
    "succeeds",
    "succeeded",
    "success",
    "successful",
    "successfully",
    "return",
    "returns",
    "returned",
];

const SUCCESS_WORDS: &[&str] = &[
    "succeed",
    "succeeds",
    "succeeded",
    "success",
    "successful",
    "successfully",
    "passes",
    "pass",
    "passed",
    "cleanly",
];

const QUIET_VERBS: &[&str] = &[
    "stops", "stop", "stopped", "stays", "stay", "remains", "remain", "goes", "go", "is", "are",
    "has", "have", "been", "becomes",
];

const QUIET_NOUNS: &[&str] = &[
    "output", "change", "changes", "changing", "activity", "update", "updates", "updating", "line",
    "lines", "text", "progress", "printing", "moving", "writing", "logging", "log", "movement",
];

const QUIET_STATES: &[&str] = &[
    "quiet",
    "idle",
    "silent",
    "still",
    "static",
    "unchanged",
    "stable",
    "settles",
    "settled",
];

/// The test a clause's words ask for, and whether the clause negates itself ("'ERROR' does
/// not appear").
pub(super) fn classify(words: &[&str], tokens: &[Token<'_>], phrases: Vec<String>) -> (Test, bool) {
    let has = |list: &[&str]| words.iter().any(|word| list.contains(word));
    let negated = has(NEGATIONS);
    if !phrases.is_empty() {
        return (Test::Phrases(phrases), negated);
    }
    if let Some(duration) = quiet(words) {
        return (Test::Quiet(duration), false);
    }
    if words.contains(&"prompt")
        || (words.contains(&"shell")
            && has(&["ready", "idle", "back", "returns", "returned", "free"]))
    {
        return (Test::Prompt, negated);
    }
    if let Some(number) = number_test(words, tokens) {
        return (Test::Number(number), negated);
    }
    if has(ERROR_WORDS) {
        // "no errors" / "0 failures" say the opposite of an error appearing.
        let counted_none = words.windows(2).any(|pair| {
            matches!(pair[0], "no" | "0" | "zero" | "without") && ERROR_WORDS.contains(&pair[1])
        });
        if counted_none && has(FINISH_WORDS) {
            // "finishes with 0 errors": a clean finish.
            return (Test::Finish { success: true }, false);
        }
        return (Test::Error, negated || counted_none);
    }
    if has(FINISH_WORDS) {
        return (
            Test::Finish {
                success: has(SUCCESS_WORDS),
            },
            negated,
        );
    }
    (Test::Model, false)
}

/// "stops changing for 30s", "no new output for 2 minutes", "quiet for 10 seconds", "the
/// log is idle": a quiet clause and how long.
fn quiet(words: &[&str]) -> Option<Duration> {
    let stops_changing = words.windows(2).any(|pair| {
        QUIET_VERBS.contains(&pair[0])
            && matches!(
                pair[1],
                "changing"
                    | "updating"
                    | "printing"
                    | "moving"
                    | "writing"
                    | "logging"
                    | "scrolling"
            )
    });
    let nothing_new = words.windows(2).any(|pair| {
        matches!(pair[0], "no" | "without" | "nothing")
            && (QUIET_NOUNS.contains(&pair[1]) || pair[1] == "new")
    });
    let still = words.iter().any(|word| QUIET_STATES.contains(word));
    if !(stops_changing || nothing_new || still) {
        return None;
    }
    Some(duration_in(words).unwrap_or(DEFAULT_QUIET))
}

/// "30s", "30 seconds", "2 min", "1.5 minutes", "an hour".
fn duration_in(words: &[&str]) -> Option<Duration> {
    for (index, word) in words.iter().enumerate() {
        let (number, unit) = split_number(word);
        let (value, unit) = match (number, unit) {
            (Some(value), unit) if !unit.is_empty() => (value, unit.to_owned()),
            (Some(value), _) => (value, (*words.get(index + 1)?).to_owned()),
            (None, _) if matches!(*word, "a" | "an" | "one") => {
                (1.0, (*words.get(index + 1)?).to_owned())
            }
            _ => continue,
        };
        let seconds = match unit.as_str() {
            "s" | "sec" | "secs" | "second" | "seconds" => value,
            "m" | "min" | "mins" | "minute" | "minutes" => value * 60.0,
            "h" | "hr" | "hrs" | "hour" | "hours" => value * 3600.0,
            "ms" => value / 1000.0,
            _ => continue,
        };
        if seconds > 0.0 && seconds.is_finite() {
            return Some(Duration::from_secs_f64(seconds.min(86_400.0)));
        }
    }
    None
}

/// "100%" → (100, "%"), "30s" → (30, "s"), "3" → (3, ""), "tests" → (None, "tests").
fn split_number(word: &str) -> (Option<f64>, &str) {
    let digits = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(word.len());
    if digits == 0 {
        return (None, word);
    }
    let number = word[..digits].replace(',', "").parse::<f64>().ok();
    (number, &word[digits..])
}

/// Words before a number that say how it compares, longest first.
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
    (&["goes", "above"], Comparison::Above),
    (&["goes", "over"], Comparison::Above),
    (&["gets", "to"], Comparison::AtLeast),
    (&["get", "to"], Comparison::AtLeast),
    (&["is", "at"], Comparison::AtLeast),
    (&["exactly"], Comparison::Equal),
    (&["equals"], Comparison::Equal),
    (&["reaches"], Comparison::AtLeast),
    (&["reach"], Comparison::AtLeast),
    (&["reached"], Comparison::AtLeast),
    (&["hits"], Comparison::AtLeast),
    (&["hit"], Comparison::AtLeast),
    (&["exceeds"], Comparison::Above),
    (&["exceed"], Comparison::Above),
    (&["above"], Comparison::Above),
    (&["over"], Comparison::Above),
    (&["below"], Comparison::Below),
    (&["under"], Comparison::Below),
    (&["is"], Comparison::AtLeast),
    (&["at"], Comparison::AtLeast),
    (&["to"], Comparison::AtLeast),
];

/// Words that name a number without narrowing which lines carry it.
const GENERIC_LABELS: &[&str] = &[
    "it", "the", "a", "an", "this", "that", "value", "number", "count", "counter", "bar",
];

/// "progress reaches 100%", "at least 3 passed", "coverage ≥ 80%", "memory below 500 mb".
fn number_test(words: &[&str], tokens: &[Token<'_>]) -> Option<NumberTest> {
    // Marks (≥, >, <, =) count as comparison words.
    let marks: Vec<Option<Comparison>> = tokens
        .iter()
        .map(|token| match token {
            Token::Mark('≥', _) => Some(Comparison::AtLeast),
            Token::Mark('≤', _) => Some(Comparison::AtMost),
            Token::Mark('>', _) => Some(Comparison::Above),
            Token::Mark('<', _) => Some(Comparison::Below),
            Token::Mark('=', _) => Some(Comparison::Equal),
            _ => None,
        })
        .collect();
    let mark_before_number = tokens.iter().enumerate().find_map(|(index, token)| {
        let word = token.word()?;
        split_number(word).0?;
        let previous = index.checked_sub(1)?;
        let mut comparison = marks[previous]?;
        // ">=" and "<=" arrive as two marks.
        if comparison == Comparison::Equal
            && let Some(Some(before)) = previous.checked_sub(1).map(|at| marks[at])
        {
            comparison = match before {
                Comparison::Above => Comparison::AtLeast,
                Comparison::Below => Comparison::AtMost,
                other => other,
            };
        }
        Some((word.to_owned(), comparison))
    });
    let (number_index, comparison) = match mark_before_number {
        Some((number_word, comparison)) => (
            words.iter().position(|word| *word == number_word)?,
            comparison,
        ),
        None => {
            let index = words
                .iter()
                .position(|word| split_number(word).0.is_some())?;
            let comparison = COMPARISONS.iter().find_map(|(pattern, comparison)| {
                let start = index.checked_sub(pattern.len())?;
                (words[start..index] == **pattern).then_some(*comparison)
            })?;
            (index, comparison)
        }
    };
    let (value, glued_unit) = split_number(words[number_index]);
    let value = value?;
    let unit = if glued_unit == "%" || words.get(number_index + 1) == Some(&"percent") {
        Some("%".to_owned())
    } else if !glued_unit.is_empty() {
        Some(glued_unit.to_owned())
    } else {
        words
            .get(number_index + 1)
            .filter(|word| word.chars().all(char::is_alphabetic))
            .filter(|word| !matches!(**word, "and" | "or" | "then" | "but" | "is" | "are"))
            .map(|word| (*word).to_owned())
    };
    // A number alone with neither unit nor % ("when it is 5") is too vague for a detector.
    unit.as_ref()?;
    let label = words[..number_index]
        .iter()
        .rev()
        .find(|word| {
            word.chars().all(char::is_alphabetic)
                && !GENERIC_LABELS.contains(word)
                && !COMPARISONS
                    .iter()
                    .any(|(pattern, _)| pattern.contains(word))
                && !matches!(
                    **word,
                    "no" | "when"
                        | "until"
                        | "once"
                        | "if"
                        | "has"
                        | "have"
                        | "had"
                        | "shows"
                        | "show"
                        | "contains"
                        | "contain"
                        | "says"
                        | "say"
                        | "reads"
                        | "prints"
                        | "gets"
                        | "get"
                        | "goes"
                        | "becomes"
                        | "there"
                        | "are"
                        | "were"
                )
        })
        .map(|word| (*word).to_owned());
    Some(NumberTest {
        label,
        unit,
        comparison,
        value,
    })
}
