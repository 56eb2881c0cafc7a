//! Deciding a reading on what a watch saw, before any model call: each clause by its judge
//! ([`Reading::judged_by`]), the clauses of an alternative together, the alternatives
//! together. A condition met by local judges resolves; one whose open part only a model can
//! judge asks it (on settled content); one whose open part nobody can judge wakes the agent
//! as *changed* at the first settled change — never as resolved. When the watched work has
//! ended (its process exited, or its output reported the end) and no alternative can hold
//! any more, the wait ends at once, as changed, saying why.

use std::time::Duration;

use crate::condition::{Clause, JudgedBy, Judges, LineKind, Outcome, Reading, Test, is_unspaced};
use crate::sight::content::ProcessExit;
use crate::sight::gate::Readiness;
use crate::waits::judge::detectors::{
    count_of, end_reported, failure_report, latest_number, line_of, prompt_line,
};

/// Longest observation taken from the output.
const OBSERVATION_CHARS: usize = 240;
/// Lines of new output a "changed" observation shows.
const CHANGED_LINES: usize = 3;

/// What a watch saw, for the reading.
#[derive(Clone, Copy, Debug)]
pub struct Observed<'a> {
    /// The capture's text (empty for pixels and absent targets).
    pub text: &'a str,
    /// The output that arrived after the wait started, without the echo of typed input.
    pub fresh: &'a str,
    pub exit: Option<ProcessExit>,
    /// How long the content has not changed.
    pub quiet_for: Duration,
    /// The content differs from what the watch began with (new output, a new frame).
    pub changed: bool,
    /// Says what the target shows when there is no text: "the window changed", "window
    /// closed", "… does not exist (yet)".
    pub description: Option<&'a str>,
    /// A pixel target: its first frame is worth a model's look (the condition may already
    /// show), where a text target's old output is not.
    pub pixels: bool,
}

/// What the reading decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The condition holds; the observation says what showed it.
    Met(String),
    /// Not yet; the observation says what is there now (empty: nothing worth saying).
    NotMet(String),
    /// Ask the configured model (settled content, and the open part is the model's).
    AskModel,
    /// The target changed and part of the condition can be judged by no one: wake the agent
    /// as changed, not resolved.
    Changed {
        observation: String,
        /// The clauses nobody could judge, as the agent wrote them.
        unjudged: Vec<String>,
    },
    /// The watched work ended and no alternative of the condition can hold any more (or
    /// none can be told from what it left): wake the agent as changed, saying why.
    Ended {
        /// What the target shows last.
        observation: String,
        /// Why the condition cannot hold, in words: "the process exited with status 0, so
        /// 'if it fails' can no longer happen".
        why: String,
    },
}

/// One clause on one observation.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ClauseState {
    Met(String),
    NotMet,
    /// It can no longer hold: the process ended the other way (the reason, e.g. "the
    /// process exited with status 0").
    Dead(String),
    /// The output reports the work ended the other way ("BUILD FAILED"): it did not hold
    /// this time (a log may see the work run again).
    Missed(String),
    /// The work ended, but nothing says whether the clause held (the prompt came back with
    /// no summary).
    Untold(String),
    Model,
    Nobody,
}

impl ClauseState {
    fn is_over(&self) -> bool {
        matches!(
            self,
            ClauseState::Dead(_) | ClauseState::Missed(_) | ClauseState::Untold(_)
        )
    }
}

/// Decides `reading` on `observed` for a target whose judges are `judges`.
pub fn decide(
    reading: &Reading,
    judges: Judges,
    observed: &Observed<'_>,
    readiness: Readiness,
) -> Decision {
    let mut wants_model = false;
    let mut unjudged: Vec<String> = Vec::new();
    let mut over: Vec<String> = Vec::new();
    for group in &reading.groups {
        let settled = readiness == Readiness::Settled;
        let states: Vec<ClauseState> = group
            .iter()
            .map(|clause| clause_state(clause, judges, observed, settled))
            .collect();
        if let Some((clause, state)) = group.iter().zip(&states).find(|(_, s)| s.is_over()) {
            over.push(why_over(clause, state));
            continue;
        }
        if states.contains(&ClauseState::NotMet) {
            continue;
        }
        if states
            .iter()
            .all(|state| matches!(state, ClauseState::Met(_)))
        {
            let observation = states
                .into_iter()
                .filter_map(|state| match state {
                    ClauseState::Met(observation) => Some(observation),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("; ");
            return Decision::Met(observation);
        }
        wants_model |= states.contains(&ClauseState::Model);
        for (clause, state) in group.iter().zip(&states) {
            if *state == ClauseState::Nobody && !unjudged.contains(&clause.text) {
                unjudged.push(clause.text.clone());
            }
        }
    }
    if over.len() == reading.groups.len() {
        return Decision::Ended {
            observation: last_lines(observed),
            why: over.join("; "),
        };
    }
    let settled = readiness == Readiness::Settled;
    // Text the agent has not seen arrive (nothing new, no exit) is not worth a model call.
    let news = observed.pixels || observed.changed || observed.exit.is_some();
    if wants_model && settled && news {
        return Decision::AskModel;
    }
    if !unjudged.is_empty() && settled && (observed.changed || observed.exit.is_some()) {
        return Decision::Changed {
            observation: what_changed(observed),
            unjudged,
        };
    }
    Decision::NotMet(now_showing(observed))
}

/// "the process exited with status 0, so 'if it fails' can no longer happen".
fn why_over(clause: &Clause, state: &ClauseState) -> String {
    let text = crate::words::shorten(&clause.text, 120);
    match state {
        ClauseState::Untold(reason) => {
            format!("{reason}, and nothing in the output says whether '{text}' held")
        }
        ClauseState::Dead(reason) => format!("{reason}, so '{text}' can no longer happen"),
        ClauseState::Missed(reason) => format!("{reason}, so '{text}' did not happen"),
        _ => String::new(),
    }
}

fn clause_state(
    clause: &Clause,
    judges: Judges,
    observed: &Observed<'_>,
    settled: bool,
) -> ClauseState {
    let by = clause.test.judged_by(judges);
    match by {
        JudgedBy::Model => return ClauseState::Model,
        JudgedBy::Nobody => return ClauseState::Nobody,
        JudgedBy::Phrase | JudgedBy::Detector(_) => {}
    }
    let state = match local_test(&clause.test, judges, observed, settled) {
        Local::Found(observation) => ClauseState::Met(observation),
        Local::NotYet => ClauseState::NotMet,
        Local::Dead(reason) => ClauseState::Dead(reason),
        Local::Missed(reason) => ClauseState::Missed(reason),
        Local::Untold(reason) => ClauseState::Untold(reason),
    };
    let state = match (state, clause.negated) {
        (state, false) => state,
        (ClauseState::Met(_), true) => ClauseState::NotMet,
        (ClauseState::NotMet | ClauseState::Dead(_) | ClauseState::Missed(_), true) => {
            ClauseState::Met(format!("not seen: {}", clause.text))
        }
        (state, true) => state,
    };
    // The process is gone: its output can no longer change, so what has not held by now
    // never will (a quiet clause still can: time goes on).
    match (state, observed.exit) {
        (ClauseState::NotMet, Some(exit)) if !matches!(clause.test, Test::Quiet(_)) => {
            ClauseState::Dead(exit.to_string())
        }
        (state, _) => state,
    }
}

/// What a local test found.
enum Local {
    Found(String),
    NotYet,
    /// The process ended the other way.
    Dead(String),
    /// The output reports the work ended the other way.
    Missed(String),
    /// The work ended, how cannot be told.
    Untold(String),
}

impl From<Option<String>> for Local {
    fn from(found: Option<String>) -> Local {
        found.map_or(Local::NotYet, Local::Found)
    }
}

/// Runs a local test; the observation that met it.
fn local_test(test: &Test, judges: Judges, observed: &Observed<'_>, settled: bool) -> Local {
    let fresh = observed.fresh;
    match test {
        Test::Phrases(phrases) => {
            let lower = fresh.to_lowercase();
            let all = phrases
                .iter()
                .all(|phrase| contains_phrase(&lower, &phrase.to_lowercase()));
            all.then(|| {
                let first = phrases[0].to_lowercase();
                line_with(fresh, &first).unwrap_or_else(|| shorten(&phrases[0]))
            })
            .into()
        }
        Test::Ends(outcome) => ends(*outcome, judges, observed, settled),
        Test::Line(kind) => {
            if let Some(line) = line_of(*kind, fresh) {
                return Local::Found(shorten(line));
            }
            let failed_exit = observed
                .exit
                .filter(|exit| *kind == LineKind::Error && exit.code != Some(0));
            failed_exit
                .map(|exit| format!("{exit}; last line: {}", last_line(observed.text)))
                .into()
        }
        Test::Prompt => prompt_back(observed)
            .map(|line| format!("the prompt is back: {}", shorten(line)))
            .into(),
        Test::Quiet(duration) => (observed.quiet_for >= *duration)
            .then(|| {
                format!(
                    "no change for {}s; it shows: {}",
                    observed.quiet_for.as_secs(),
                    now_showing(observed)
                )
            })
            .into(),
        Test::Number(number) => latest_number(fresh, number)
            .and_then(|(value, line)| {
                number
                    .comparison
                    .holds(value, number.value)
                    .then(|| shorten(line))
            })
            .into(),
        Test::Count(count) => {
            let (found, line) = count_of(count.kind, fresh);
            count
                .comparison
                .holds(found, count.value)
                .then(|| {
                    format!(
                        "{} so far; the latest: {}",
                        found,
                        shorten(line.unwrap_or_default())
                    )
                })
                .into()
        }
        Test::Model => Local::NotYet,
    }
}

/// How the work ended, against the outcome asked for: the exit status where the process
/// is the work, else what the output reports (a failure report, a summary line, the
/// prompt back). A summary that reports no failure counts only once the output `settled`:
/// more of it may follow in the same burst ("11 passing", then "1 failing").
fn ends(outcome: Outcome, judges: Judges, observed: &Observed<'_>, settled: bool) -> Local {
    let fresh = observed.fresh;
    if judges.exit_known {
        return match observed.exit {
            Some(exit) if outcome.holds_for(exit.code) => {
                Local::Found(format!("{exit}; last line: {}", last_line(observed.text)))
            }
            Some(exit) => Local::Dead(exit.to_string()),
            // A failure the program reports before it exits (a panic, `npm ERR!`) is one.
            None if matches!(outcome, Outcome::Failure | Outcome::NotCode(0)) => {
                failure_report(fresh).map(shorten).into()
            }
            None => Local::NotYet,
        };
    }
    if let Some(reported) = end_reported(fresh) {
        if !reported.failed && !settled {
            return Local::NotYet;
        }
        let line = shorten(reported.line);
        let verdict = match outcome {
            Outcome::Any => Some(true),
            Outcome::Success => Some(!reported.failed),
            Outcome::Failure => Some(reported.failed),
            Outcome::Code(wanted) => match reported.code {
                Some(code) => Some(code == wanted),
                None if wanted == 0 => Some(!reported.failed),
                // A failure with no code named: which code cannot be told.
                None if reported.failed => None,
                None => Some(false),
            },
            Outcome::NotCode(unwanted) => match reported.code {
                Some(code) => Some(code != unwanted),
                None if unwanted == 0 => Some(reported.failed),
                None if reported.failed => None,
                None => Some(unwanted != 0),
            },
        };
        let ended = format!("the output reports the end: \"{line}\"");
        return match verdict {
            Some(true) => Local::Found(line),
            Some(false) => Local::Missed(ended),
            None => Local::Untold(ended),
        };
    }
    if judges.has_prompt
        && let Some(prompt) = prompt_back(observed)
    {
        let back = format!("the prompt is back: {}", shorten(prompt));
        return if outcome == Outcome::Any {
            Local::Found(back)
        } else {
            Local::Untold(back)
        };
    }
    Local::NotYet
}

/// The prompt on the last line of the new output, when it came back after something: a
/// shell that only just started prints its first prompt after the wait began, and that is
/// no command ending.
fn prompt_back<'a>(observed: &Observed<'a>) -> Option<&'a str> {
    let prompt = prompt_line(observed.fresh)?;
    let lines_on_screen = observed
        .text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .count();
    (lines_on_screen >= 2).then_some(prompt)
}

/// Whether `text` contains `phrase` (both lowercase) at word edges: a phrase that begins
/// or ends with a letter or a digit does not continue a longer word there ('PASS' is not in
/// "passwords", '0 failed' not in "10 failed"). Text without spaces (Chinese, Japanese) has
/// no word edges: there a phrase matches inside a line.
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    let first = phrase.chars().next();
    let last = phrase.chars().next_back();
    text.match_indices(phrase).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        !(continues_word(first, before) || continues_word(last, after))
    })
}

/// Whether `neighbour` continues the word that the phrase's edge character `edge` is part
/// of.
fn continues_word(edge: Option<char>, neighbour: Option<char>) -> bool {
    let is_word = |c: char| (c.is_alphanumeric() || c == '_') && !is_unspaced(c);
    edge.is_some_and(is_word) && neighbour.is_some_and(is_word)
}

/// The first line of `text` containing `phrase` (lowercase), trimmed and shortened.
fn line_with(text: &str, phrase: &str) -> Option<String> {
    text.lines()
        .find(|line| contains_phrase(&line.to_lowercase(), phrase))
        .map(|line| shorten(line.trim()))
}

fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(shorten)
        .unwrap_or_else(|| "(no output yet)".to_owned())
}

fn shorten(line: &str) -> String {
    crate::words::shorten(line, OBSERVATION_CHARS)
}

/// What the target shows now: its newest line, or its description; the process's exit
/// first when it has ended (so a timeout's text names it).
fn now_showing(observed: &Observed<'_>) -> String {
    let showing = match observed.description {
        Some(description) if observed.text.is_empty() => description.to_owned(),
        _ if observed.text.is_empty() => String::new(),
        _ => last_line(observed.text),
    };
    match observed.exit {
        Some(exit) if showing.is_empty() => exit.to_string(),
        Some(exit) => format!("{exit}; last line: {showing}"),
        None => showing,
    }
}

/// The last few lines of the output: what a wake that ends the wait shows (its reason names
/// the exit).
fn last_lines(observed: &Observed<'_>) -> String {
    let lines: Vec<&str> = observed
        .text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let shown = &lines[lines.len().saturating_sub(CHANGED_LINES)..];
    let text = if shown.is_empty() {
        "(no output)".to_owned()
    } else {
        crate::words::shorten(&shown.join(" / "), OBSERVATION_CHARS)
    };
    format!("last lines: {text}")
}

/// The last few lines of new output, or the description of a changed frame.
fn what_changed(observed: &Observed<'_>) -> String {
    let lines: Vec<&str> = observed
        .fresh
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    if lines.is_empty() {
        if let Some(exit) = observed.exit {
            return exit.to_string();
        }
        return observed
            .description
            .unwrap_or("the target changed")
            .to_owned();
    }
    let shown = &lines[lines.len().saturating_sub(CHANGED_LINES)..];
    let text = crate::words::shorten(&shown.join(" / "), OBSERVATION_CHARS);
    match observed.exit {
        Some(exit) => format!("{exit}; new output: {text}"),
        None => format!("new output: {text}"),
    }
}

#[cfg(test)]
mod tests;
