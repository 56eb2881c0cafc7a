//! What a clause asks for. Each local test is tried in turn, and a test claims the clause
//! only when it accounts for every word of it: a word with no role the test reads (stop
//! words and framing aside) means the clause says something the test does not understand,
//! and it goes to the model. Words a test reads change its verdict: a code or "non-zero" on
//! an exit, a comparison and a noun on a count, "for N seconds" on quiet.

use std::time::Duration;

use super::lexicon::{Roles, roles};
use super::numbers::{
    count_clause, duration_in, exit_code_clause, number_clause, seconds_in, split_number,
};
use super::words::Token;
use super::{DEFAULT_QUIET, LineKind, Outcome, Test};

/// The words of one clause and their roles.
pub(super) struct Words<'w> {
    pub(super) words: &'w [&'w str],
    pub(super) roles: Vec<Roles>,
}

/// What no test needs to account for: stop words and "wake me", "let me know".
pub(super) const IGNORED: Roles = Roles::STOP.union(Roles::FRAMING).union(Roles::AGAIN);

impl<'w> Words<'w> {
    fn new(words: &'w [&'w str]) -> Self {
        let roles = words.iter().map(|word| roles(word)).collect();
        Words { words, roles }
    }

    pub(super) fn any(&self, role: Roles) -> bool {
        self.roles.iter().any(|found| found.has(role))
    }

    pub(super) fn has_word(&self, list: &[&str]) -> bool {
        self.words.iter().any(|word| list.contains(word))
    }

    /// Whether every word is a number this test reads (`numbers`), one of `extra`, or has
    /// a role in `allowed` (or one no test needs).
    pub(super) fn accounted_for(
        &self,
        allowed: Roles,
        extra: &[&str],
        numbers: NumbersAllowed,
    ) -> bool {
        self.words
            .iter()
            .zip(&self.roles)
            .enumerate()
            .all(|(at, (word, found))| {
                found.has(allowed | IGNORED)
                    || extra.contains(word)
                    || match split_number(word) {
                        (Some(_), unit) => numbers.allows(unit) || self.names_a_target(at),
                        (None, _) => false,
                    }
            })
    }

    /// Whether the number at `at` says which target ("pane 2", "window 3", "session 1").
    fn names_a_target(&self, at: usize) -> bool {
        at.checked_sub(1)
            .is_some_and(|before| self.roles[before].has(Roles::TARGET))
    }
}

/// Which numbers a test reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum NumbersAllowed {
    None,
    /// Durations only: a number glued to a time unit, or one followed by a unit word.
    Durations,
    Any,
}

impl NumbersAllowed {
    fn allows(self, glued_unit: &str) -> bool {
        match self {
            NumbersAllowed::None => false,
            NumbersAllowed::Durations => glued_unit.is_empty() || seconds_in(glued_unit).is_some(),
            NumbersAllowed::Any => true,
        }
    }
}

/// The test a clause's words ask for, and whether the clause negates itself ("'ERROR' does
/// not appear"). `either_way`: the condition said the outcome does not matter.
pub(super) fn classify(
    words: &[&str],
    tokens: &[Token<'_>],
    phrases: Vec<(usize, String)>,
    either_way: bool,
) -> (Test, bool) {
    let clause = Words::new(words);
    let negated = clause.any(Roles::NEGATION);
    let phrases = without_subjects(tokens, phrases);
    if !phrases.is_empty() {
        return phrase_clause(&clause, phrases);
    }
    if let Some(duration) = quiet_clause(&clause) {
        return (Test::Quiet(duration), false);
    }
    if prompt_clause(&clause) {
        return (Test::Prompt, negated);
    }
    if let Some(outcome) = exit_code_clause(&clause, tokens) {
        return (Test::Ends(outcome), false);
    }
    if let Some(count) = count_clause(&clause, tokens) {
        return (Test::Count(count), negated);
    }
    if let Some(number) = number_clause(&clause, tokens) {
        return (Test::Number(number), negated);
    }
    if let Some((outcome, negated)) = ends_clause(&clause, either_way) {
        return (Test::Ends(outcome), negated);
    }
    if let Some(kind) = line_clause(&clause) {
        return (Test::Line(kind), negated);
    }
    if either_way && clause.accounted_for(Roles::SUBJECT | Roles::TARGET, &[], NumbersAllowed::None)
    {
        // "the tests, pass or fail": what remains names the work.
        return (Test::Ends(Outcome::Any), false);
    }
    (Test::Model, false)
}

/// Verbs whose object is what appears: in "`./deploy.sh` prints 'OK'" the phrase before
/// the verb names the program, the one after it the output.
const PRINTING: &[&str] = &[
    "prints", "print", "logs", "outputs", "shows", "says", "writes", "emits", "displays",
    "reports", "returns", "gibt", "zeigt", "affiche", "imprime", "muestra", "escribe",
];

/// The quoted phrases (with their token positions) that are output to look for, not the
/// name of the program: "when `npm test` finishes" quotes a command and asks for its end;
/// "when `./deploy.sh` prints 'OK'" quotes a program, then the output.
fn without_subjects(tokens: &[Token<'_>], phrases: Vec<(usize, String)>) -> Vec<String> {
    let first_word_at = |wanted: &dyn Fn(&str) -> bool| {
        tokens
            .iter()
            .position(|token| token.word().is_some_and(wanted))
    };
    let appears = first_word_at(&|word| roles(word).has(Roles::APPEAR | Roles::FRAME | Roles::UI));
    let ends = first_word_at(&|word| {
        roles(word).has(Roles::FINISH | Roles::SUCCESS | Roles::FAILURE | Roles::ERROR)
    });
    // "finishes with 'BUILD SUCCESSFUL'" quotes its evidence after the verb.
    let named_before = |at: usize| phrases.iter().all(|(position, _)| *position < at);
    if let Some(ends) = ends
        && appears.is_none()
        && named_before(ends)
    {
        return Vec::new();
    }
    if let Some(verb) = first_word_at(&|word| PRINTING.contains(&word))
        && phrases.iter().any(|(position, _)| *position > verb)
    {
        return phrases
            .into_iter()
            .filter(|(position, _)| *position > verb)
            .map(|(_, phrase)| phrase)
            .collect();
    }
    phrases.into_iter().map(|(_, phrase)| phrase).collect()
}

/// Quoted phrases, with words that say they appear ("is printed", "in the log", "the line
/// … shows up"). A word that changes what the phrase means ("disappears", "twice", "the
/// title is …") leaves the clause to the model.
fn phrase_clause(clause: &Words<'_>, phrases: Vec<String>) -> (Test, bool) {
    // "'X' stops appearing", "is no longer printed": the phrase going away is no phrase
    // match.
    if clause.has_word(STOPS) || clause.has_word(&["anymore", "longer"]) {
        return (Test::Model, false);
    }
    let negated = clause.any(Roles::NEGATION);
    let framing = Roles::TARGET | Roles::SUBJECT | Roles::APPEAR | Roles::FRAME | Roles::UI;
    // "finishes with 'BUILD SUCCESSFUL'", "fails with 'OOM'": the phrase is the evidence
    // the agent named. With a negation, such words would say what is not wanted.
    let allowed = if negated {
        framing | Roles::NEGATION
    } else {
        framing | Roles::FINISH | Roles::SUCCESS | Roles::FAILURE | Roles::ERROR | Roles::WARNING
    };
    if clause.accounted_for(allowed, &[], NumbersAllowed::None) {
        (Test::Phrases(phrases), negated)
    } else {
        (Test::Model, false)
    }
}

/// Verbs and words that frame a quiet condition without being one.
const QUIET_FRAMING: &[&str] = &[
    "stays",
    "stay",
    "stayed",
    "remains",
    "remain",
    "remained",
    "goes",
    "gone",
    "went",
    "becomes",
    "become",
    "falls",
    "keeps",
    "longer",
    "ceases",
    "stops",
    "stop",
    "stopped",
    "stopping",
    "producing",
    "lang",
    "pendant",
    "durant",
    "durante",
    "per",
    "seit",
    "間",
    "以上",
    "for",
    "least",
    "more",
    "than",
    "over",
    "new",
    "reste",
    "resta",
    "permanece",
    "fica",
    "bleibt",
    "aufhört",
    "hört",
    "auf",
    "deja",
    "para",
    "arrête",
    "s'arrête",
];

/// Words after which an activity word says it stopped ("stops growing").
const STOPS: &[&str] = &[
    "stops",
    "stop",
    "stopped",
    "stopping",
    "ceases",
    "longer",
    "hört",
    "aufhört",
    "arrête",
    "deja",
    "para",
    "止ま",
    "止まっ",
    "停止",
];

/// "stops changing for 30s", "no new output for 2 minutes", "quiet for 10 seconds", "the
/// log stops growing": a quiet clause and how long.
fn quiet_clause(clause: &Words<'_>) -> Option<Duration> {
    let near = |at: usize, role: Roles| {
        clause.roles[at + 1..(at + 4).min(clause.roles.len())]
            .iter()
            .any(|found| found.has(role))
    };
    let stopped_activity = (0..clause.words.len())
        .any(|at| STOPS.contains(&clause.words[at]) && near(at, Roles::ACTIVITY));
    let nothing_new = (0..clause.words.len()).any(|at| {
        clause.roles[at].has(Roles::NEGATION) && near(at, Roles::ACTIVITY | Roles::APPEAR)
    });
    if !(clause.any(Roles::QUIET) || stopped_activity || nothing_new) {
        return None;
    }
    let allowed = Roles::TARGET
        | Roles::SUBJECT
        | Roles::QUIET
        | Roles::ACTIVITY
        | Roles::NEGATION
        | Roles::TIME_UNIT
        | Roles::APPEAR;
    if !clause.accounted_for(allowed, QUIET_FRAMING, NumbersAllowed::Durations) {
        return None;
    }
    Some(duration_in(clause.words).unwrap_or(DEFAULT_QUIET))
}

/// "when the prompt returns", "when the shell is ready again".
fn prompt_clause(clause: &Words<'_>) -> bool {
    let prompt = clause.has_word(&[
        "prompt",
        "eingabeaufforderung",
        "invite",
        "プロンプト",
        "提示符",
    ]) || (clause.has_word(&["shell"])
        && clause.has_word(&[
            "ready",
            "back",
            "idle",
            "free",
            "available",
            "waiting",
            "returns",
            "returned",
        ]));
    prompt
        && clause.accounted_for(
            Roles::TARGET | Roles::PROMPT | Roles::APPEAR | Roles::SUBJECT | Roles::NEGATION,
            &["de", "commande"],
            NumbersAllowed::None,
        )
}

/// How the work ends: "finishes", "succeeds", "fails", "crashes", "is done", "exits
/// cleanly", "is no longer running", "finishes with 0 errors". The outcome, and whether
/// the clause asks for its opposite ("doesn't fail").
fn ends_clause(clause: &Words<'_>, either_way: bool) -> Option<(Outcome, bool)> {
    let errors_out = clause
        .words
        .windows(2)
        .any(|pair| roles(pair[0]).has(Roles::ERROR) && matches!(pair[1], "out"))
        || clause.words.windows(2).any(|pair| {
            matches!(pair[0], "with" | "in" | "mit" | "avec" | "con" | "com")
                && roles(pair[1]).has(Roles::ERROR)
        })
        || clause.words.windows(3).any(|pair| {
            matches!(pair[0], "with" | "in" | "mit" | "avec" | "con" | "com")
                && matches!(pair[1], "an" | "a" | "errors" | "einem" | "une" | "un")
                && roles(pair[2]).has(Roles::ERROR)
        });
    // "with 0 errors", "with no failures": a clean end.
    let none_counted = clause.words.windows(2).any(|pair| {
        matches!(
            pair[0],
            "0" | "no" | "zero" | "keine" | "keinen" | "aucune" | "sin" | "sem"
        ) && (roles(pair[1]).has(Roles::ERROR) || matches!(pair[1], "failures" | "failure"))
    });
    let running_no_more = clause.any(Roles::RUNNING) && clause.any(Roles::NEGATION);
    let triggered = clause.any(Roles::FINISH | Roles::SUCCESS | Roles::FAILURE)
        || errors_out
        || running_no_more;
    if !triggered {
        return None;
    }
    let mut allowed = Roles::TARGET
        | Roles::SUBJECT
        | Roles::FINISH
        | Roles::SUCCESS
        | Roles::FAILURE
        | Roles::EXIT
        | Roles::NEGATION
        | Roles::RUNNING
        | Roles::APPEAR;
    if errors_out || none_counted {
        allowed = allowed | Roles::ERROR;
    }
    let numbers = if none_counted {
        NumbersAllowed::Any
    } else {
        NumbersAllowed::None
    };
    let extra = &[
        "normally",
        "correctly",
        "anymore",
        "longer",
        "properly",
        "cleanly",
    ];
    if !clause.accounted_for(allowed, extra, numbers) {
        return None;
    }
    if none_counted {
        return Some((Outcome::Success, false));
    }
    let negated = clause.any(Roles::NEGATION);
    if running_no_more {
        return Some((Outcome::Any, false));
    }
    let well = clause.any(Roles::SUCCESS);
    let badly = clause.any(Roles::FAILURE) || errors_out;
    Some(match (either_way, well, badly) {
        (true, _, _) | (false, true, true) => (Outcome::Any, false),
        (false, true, false) => (Outcome::Success, negated),
        (false, false, true) => (Outcome::Failure, negated),
        (false, false, false) => (Outcome::Any, negated),
    })
}

/// "an error appears", "any exception", "a traceback is printed", "a warning shows up".
fn line_clause(clause: &Words<'_>) -> Option<LineKind> {
    let error = clause.any(Roles::ERROR);
    let warning = clause.any(Roles::WARNING);
    if !(error || warning) {
        return None;
    }
    let allowed = Roles::TARGET
        | Roles::SUBJECT
        | Roles::APPEAR
        | Roles::FRAME
        | Roles::UI
        | Roles::ERROR
        | Roles::WARNING
        | Roles::NEGATION;
    if !clause.accounted_for(allowed, &["another", "new"], NumbersAllowed::None) {
        return None;
    }
    Some(if error {
        LineKind::Error
    } else {
        LineKind::Warning
    })
}
