//! The vocabulary progress reports are read with: completion words and marks, what blocks
//! a statement (negations, intents, hedges), numbers and ordinals in words. All lowercase;
//! apostrophes are ASCII after `normalize`.

/// Words that report a step finished. "complete" right before a step reference is an order
/// ("complete step 2"), not a report; see `Statement::read`.
#[rustfmt::skip]
pub(super) const COMPLETION_WORDS: &[&str] = &[
    "done", "complete", "completed", "finished", "passed", "succeeded", "accomplished",
];

/// Words that negate, postpone, hedge or condition a statement, or say it went wrong.
/// Bare "finish" is absent on purpose: it is never a report, and it needs no blocking either.
#[rustfmt::skip]
pub(super) const BLOCKERS: &[&str] = &[
    // negation
    "not", "never", "none", "nothing", "nor", "neither", "cannot", "dont", "doesnt", "didnt",
    "isnt", "arent", "wasnt", "werent", "havent", "hasnt", "hadnt", "wont", "cant", "couldnt",
    "shouldnt", "wouldnt", "aint",
    // intent, plans and the future
    "will", "shall", "should", "would", "could", "might", "must", "expect", "expected",
    "expecting", "need", "needs", "gonna", "wanna", "plan", "plans", "planning", "intend",
    "intends", "let's", "lets", "mark", "next", "later", "tomorrow", "soon", "eventually", "todo",
    "to-do", "pending", "upcoming", "wip", "in-progress",
    // work begun rather than finished
    "start", "starts", "starting", "started", "begin", "begins", "beginning", "began", "begun",
    "resume", "resumes", "resuming", "continue", "continues", "continuing", "working",
    // hedges
    "almost", "nearly", "partially", "partly", "mostly", "half", "halfway", "except",
    "excluding", "maybe", "perhaps", "probably", "hopefully", "supposedly",
    // attempts
    "try", "tries", "trying", "tried", "attempt", "attempts", "attempting",
    // not done after all
    "undone", "incomplete", "unfinished", "uncompleted", "failed", "fail", "fails", "failing",
    "broken", "blocked", "stuck", "skipped", "reverted", "redo", "retry", "retrying", "rerun",
    // conditions
    "if", "once", "when", "whenever", "until", "unless", "whether",
];

/// Verbs that, after "to", make an infinitive of intent: "need to finish", "trying to complete".
#[rustfmt::skip]
pub(super) const INTENT_VERBS: &[&str] = &[
    "finish", "complete", "do", "mark", "start", "begin", "try", "attempt", "get", "wrap", "work",
    "run", "continue", "resume", "tackle", "implement", "fix", "redo", "be",
];

/// Words before "to" that mark intent whatever verb follows: "about to", "going to".
pub(super) const INTENT_BEFORE_TO: &[&str] =
    &["about", "going", "have", "has", "ready", "want", "wants"];

/// Nouns after which "no" is good news, not a negation: "step 2 done, no errors".
#[rustfmt::skip]
pub(super) const HARMLESS_AFTER_NO: &[&str] = &[
    "errors", "error", "issues", "issue", "problems", "problem", "warnings", "warning",
    "failures", "conflicts", "regressions", "blockers", "changes",
];

/// Words that qualify the statement before them when they open a statement of their own:
/// "Step 2 done, except the docs", "Step 2 done, not tested".
#[rustfmt::skip]
pub(super) const HEDGES: &[&str] = &[
    "not", "except", "excluding", "apart", "almost", "nearly", "partially", "partly", "mostly",
    "only",
];

/// Words that may sit in a pure verdict ("— now fully done", "is marked as done") without
/// making it say anything else.
#[rustfmt::skip]
pub(super) const VERDICT_FILLERS: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "now", "all", "as", "also", "too", "already",
    "fully", "completely", "totally", "finally", "successfully", "yes", "ok", "okay", "just",
    "it", "that", "this", "marked", "yet", "really", "with", "the",
];

/// Words that may follow a number continuing a list or closing a range. Anything else (a noun,
/// mostly) means the number was not a step: "finished step 3, 4 more to go".
#[rustfmt::skip]
pub(super) const LIST_FOLLOWERS: &[&str] = &[
    "and", "to", "through", "thru", "is", "are", "was", "were", "have", "has", "had", "both",
    "all", "now", "also", "too", "as",
];

/// Words that always part statements, whose halves never lend each other a verdict:
/// "Step 2 done but step 3 failed".
pub(super) const CONTRAST_WORDS: &[&str] = &["but", "however", "although", "though", "whereas"];

/// Words that may part statements: "Step 3 done and starting step 4".
pub(super) const BREAK_WORDS: &[&str] = &["and", "then", "so"];

/// Auxiliaries that open a question even without a question mark: "is step 2 done".
pub(super) const QUESTION_OPENERS: &[&str] = &["is", "are", "was", "were", "has", "did", "does"];

#[rustfmt::skip]
pub(super) const NUMBER_WORDS: [&str; 20] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty",
];

/// Ordinals that name a step when "step" follows: "the second step is done".
#[rustfmt::skip]
pub(super) const ORDINAL_WORDS: [&str; 20] = [
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth",
];

pub(super) const CHECK_MARKS: &[char] = &['✓', '✔', '☑', '✅', '🗸'];

/// Marks that say a step is not done: crosses, and the hourglass or roadworks of work under way.
pub(super) const NOT_DONE_MARKS: &[char] = &['✗', '✘', '❌', '✕', '✖', '☒', '⏳', '⌛', '🚧'];

pub(super) fn is_completion_word(word: &str) -> bool {
    COMPLETION_WORDS.contains(&word)
}

pub(super) fn number_word(word: &str) -> Option<u32> {
    (1..)
        .zip(NUMBER_WORDS)
        .find_map(|(number, name)| (name == word).then_some(number))
}

/// "second" or "2nd" as a number.
pub(super) fn ordinal(word: &str) -> Option<u32> {
    let by_name = (1..)
        .zip(ORDINAL_WORDS)
        .find_map(|(number, name)| (name == word).then_some(number));
    let by_suffix = || {
        let digits = ["st", "nd", "rd", "th"]
            .iter()
            .find_map(|suffix| word.strip_suffix(suffix))?;
        digits.parse().ok()
    };
    by_name.or_else(by_suffix)
}

/// Whether `word` (followed by `next`) negates, postpones, hedges or conditions its statement.
pub(super) fn is_blocker(word: &str, next: Option<&str>) -> bool {
    BLOCKERS.contains(&word)
        || word.ends_with("n't")
        || word.ends_with("'ll")
        || (word == "no" && !next.is_some_and(|next| HARMLESS_AFTER_NO.contains(&next)))
        || (INTENT_BEFORE_TO.contains(&word) && next == Some("to"))
        || (word == "to" && next.is_some_and(|next| INTENT_VERBS.contains(&next)))
}
