//! Deciding a reading on what a watch saw, before any model call: each clause by its judge
//! ([`Reading::judged_by`]), the clauses of an alternative together, the alternatives
//! together. A condition met by local judges resolves; one whose open part only a model can
//! judge asks it (on settled content); one whose open part nobody can judge wakes the agent
//! as *changed* at the first settled change — never as resolved.

use std::time::Duration;

use crate::waits::content::ProcessExit;
use crate::waits::gate::Readiness;
use crate::waits::judge::detectors::{error_line, latest_number, prompt_line, summary_line};
use crate::waits::judge::reading::{Clause, JudgedBy, Judges, Reading, Test};

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
}

/// One clause on one observation.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ClauseState {
    Met(String),
    NotMet,
    Model,
    Nobody,
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
    for group in &reading.groups {
        let states: Vec<ClauseState> = group
            .iter()
            .map(|clause| clause_state(clause, judges, observed))
            .collect();
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
    let settled = readiness == Readiness::Settled;
    // Text the agent has not seen arrive (nothing new, no exit) is not worth a model call.
    let news = observed.pixels || observed.changed || observed.exit.is_some();
    if wants_model && settled && news {
        return Decision::AskModel;
    }
    if !unjudged.is_empty() && settled && observed.changed {
        return Decision::Changed {
            observation: what_changed(observed),
            unjudged,
        };
    }
    Decision::NotMet(now_showing(observed))
}

fn clause_state(clause: &Clause, judges: Judges, observed: &Observed<'_>) -> ClauseState {
    let by = clause.test.judged_by(judges);
    match by {
        JudgedBy::Model => return ClauseState::Model,
        JudgedBy::Nobody => return ClauseState::Nobody,
        JudgedBy::Phrase | JudgedBy::Detector(_) => {}
    }
    let found = local_test(&clause.test, judges, observed);
    match (found, clause.negated) {
        (Some(observation), false) => ClauseState::Met(observation),
        (None, false) => ClauseState::NotMet,
        (Some(_), true) => ClauseState::NotMet,
        (None, true) => ClauseState::Met(format!("not seen: {}", clause.text)),
    }
}

/// Runs a local test; the observation that met it.
fn local_test(test: &Test, judges: Judges, observed: &Observed<'_>) -> Option<String> {
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
        }
        Test::Finish { success } if judges.exit_known => {
            let exit = observed.exit?;
            (!success || exit.code == Some(0))
                .then(|| format!("{exit}; last line: {}", last_line(observed.text)))
        }
        Test::Finish { success } => {
            if judges.has_prompt
                && let Some(prompt) = prompt_line(fresh)
            {
                return Some(format!("the prompt is back: {}", shorten(prompt)));
            }
            let (line, failed) = summary_line(fresh)?;
            (!success || !failed).then(|| shorten(line))
        }
        Test::Error => {
            if let Some(line) = error_line(fresh) {
                return Some(shorten(line));
            }
            let exit = observed.exit.filter(|exit| exit.code != Some(0))?;
            Some(format!("{exit}; last line: {}", last_line(observed.text)))
        }
        Test::Prompt => {
            prompt_line(fresh).map(|line| format!("the prompt is back: {}", shorten(line)))
        }
        Test::Quiet(duration) => (observed.quiet_for >= *duration).then(|| {
            format!(
                "no change for {}s; it shows: {}",
                observed.quiet_for.as_secs(),
                now_showing(observed)
            )
        }),
        Test::Number(number) => {
            let (value, line) = latest_number(fresh, number)?;
            number
                .comparison
                .holds(value, number.value)
                .then(|| shorten(line))
        }
        Test::Model => None,
    }
}

/// Whether `text` contains `phrase` (both lowercase), where a phrase that begins or ends
/// with a digit does not continue a longer number ('0 failed' is not in "10 failed").
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    let starts_with_digit = phrase.starts_with(|c: char| c.is_ascii_digit());
    let ends_with_digit = phrase.ends_with(|c: char| c.is_ascii_digit());
    text.match_indices(phrase).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        let continues_before = starts_with_digit && before.is_some_and(|c| c.is_ascii_digit());
        let continues_after = ends_with_digit && after.is_some_and(|c| c.is_ascii_digit());
        !(continues_before || continues_after)
    })
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

/// What the target shows now: its newest line, or its description.
fn now_showing(observed: &Observed<'_>) -> String {
    match observed.description {
        Some(description) if observed.text.is_empty() => description.to_owned(),
        _ if observed.text.is_empty() => String::new(),
        _ => last_line(observed.text),
    }
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
        return observed
            .description
            .unwrap_or("the target changed")
            .to_owned();
    }
    let shown = &lines[lines.len().saturating_sub(CHANGED_LINES)..];
    let text = crate::words::shorten(&shown.join(" / "), OBSERVATION_CHARS);
    format!("new output: {text}")
}

#[cfg(test)]
mod tests;
