//! Reading `wake_when` once, into a structure the agent is shown.
//!
//! Agents write conditions in endless ways: `wait until it prints 'DONE'`, `when "A" and
//! "B" are printed`, `either 'tests passed' or an error appears`, `the build finishes
//! without errors`, `progress reaches 100%`. A condition is read into alternatives
//! ([`Reading::groups`], any of which holds the condition) of clauses that must all hold;
//! each clause carries the [`Test`] that decides it: phrases quoted in it (every quote
//! style), a local detector (the process exits, an error appears, the prompt returns, the
//! output goes quiet, a number reaches a value), or the model. Whether the model is there is
//! not this module's business: [`Reading::judged_by`] names who decides each clause for a
//! given target and model, and says "nobody" when no one can.
//!
//! The reading is conservative where it matters: a clause counts as a phrase only for text
//! the agent quoted, words like "error" count only as words, and anything the detectors do
//! not know goes to the model (or, without one, is reported as not judged).

use std::fmt;
use std::time::Duration;

mod classify;
mod words;

use words::{Joint, Masked, read_clause, split_clauses, strip_lead_in, tokenize};

/// How long "the output stops changing" waits when the condition gives no duration.
pub const DEFAULT_QUIET: Duration = Duration::from_secs(30);

/// A condition, read.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The condition holds when every clause of any one group holds.
    pub groups: Vec<Vec<Clause>>,
}

/// One clause of a condition and what decides it.
#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    /// The clause as the agent wrote it, trimmed of connectives ("'ALL DONE' is printed").
    pub text: String,
    /// "unless …", "but not …", "without …": holds when its test does not.
    pub negated: bool,
    pub test: Test,
}

/// What decides a clause.
#[derive(Clone, Debug, PartialEq)]
pub enum Test {
    /// Every phrase appears (case-insensitive) in the output that arrived after the wait
    /// started. Phrases keep the case the agent wrote; matching lowercases both sides.
    Phrases(Vec<String>),
    /// The watched process ends; `success` asks for status 0 ("succeeds").
    Finish { success: bool },
    /// A line reporting an error or a failure appears (as words: not "0 errors").
    Error,
    /// The shell prompt is back (the last line ends in `$`, `#`, `%`, `>` or `❯`).
    Prompt,
    /// The output has not changed for this long.
    Quiet(Duration),
    /// A number in the output compares to a value ("progress reaches 100%").
    Number(NumberTest),
    /// Only a model can tell.
    Model,
}

/// "progress reaches 100%", "at least 3 passed", "coverage above 80%".
#[derive(Clone, Debug, PartialEq)]
pub struct NumberTest {
    /// A word naming the number ("progress", "coverage"); preferred on the lines it is on.
    pub label: Option<String>,
    /// What follows the number in the output: `%`, or a word ("passed").
    pub unit: Option<String>,
    pub comparison: Comparison,
    pub value: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    AtLeast,
    Above,
    AtMost,
    Below,
    Equal,
}

impl Comparison {
    pub fn holds(self, found: f64, wanted: f64) -> bool {
        match self {
            Comparison::AtLeast => found >= wanted,
            Comparison::Above => found > wanted,
            Comparison::AtMost => found <= wanted,
            Comparison::Below => found < wanted,
            Comparison::Equal => (found - wanted).abs() < 1e-9,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Comparison::AtLeast => "≥",
            Comparison::Above => ">",
            Comparison::AtMost => "≤",
            Comparison::Below => "<",
            Comparison::Equal => "=",
        }
    }
}

/// Who decides a clause, for a given target and configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JudgedBy {
    /// The quoted phrases, matched in the new output.
    Phrase,
    /// A local detector, named ("exit status", "error lines", "a summary line", …).
    Detector(String),
    /// The configured model.
    Model,
    /// No one: it needs a model and none is configured.
    Nobody,
}

impl fmt::Display for JudgedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgedBy::Phrase => f.write_str("phrase match"),
            JudgedBy::Detector(name) => f.write_str(name),
            JudgedBy::Model => f.write_str("model"),
            JudgedBy::Nobody => f.write_str("nobody: no model configured"),
        }
    }
}

/// What the judges of a target can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judges {
    /// The content is text (terminal, tmux, file), not pixels.
    pub text: bool,
    /// The source reports the watched process's exit (terminal sessions).
    pub exit_known: bool,
    /// The source shows a shell prompt (terminals, tmux panes; not log files).
    pub has_prompt: bool,
    /// What the configured model can judge for this kind of content.
    pub model: Reach,
}

/// What a configured judge can read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reach {
    /// No model is configured.
    #[default]
    None,
    /// Quoted phrases only, read off the frame (the OCR backend).
    Phrases,
    /// Anything a vision or language model reads.
    Full,
}

impl Reading {
    /// Reads a condition. Never fails: what it cannot read goes to the model.
    pub fn parse(condition: &str) -> Reading {
        let masked = Masked::new(condition);
        let tokens = tokenize(&masked.text);
        let tokens = strip_lead_in(&tokens);
        let mut groups: Vec<Vec<Clause>> = Vec::new();
        let mut current: Vec<Clause> = Vec::new();
        for (joint, part) in split_clauses(tokens) {
            let Some(clause) = read_clause(&masked, part, joint == Joint::AndNot) else {
                continue;
            };
            if joint == Joint::Or && !current.is_empty() {
                groups.push(std::mem::take(&mut current));
            }
            current.push(clause);
        }
        if !current.is_empty() {
            groups.push(current);
        }
        if groups.is_empty() {
            groups.push(vec![Clause {
                text: condition.trim().to_owned(),
                negated: false,
                test: Test::Model,
            }]);
        }
        // A group of negations alone ("when there are no errors") holds at any quiet moment:
        // only a model can make sense of it.
        for group in &mut groups {
            if group.iter().all(|clause| clause.negated) {
                for clause in group.iter_mut() {
                    clause.negated = false;
                    clause.test = Test::Model;
                }
            }
        }
        Reading { groups }
    }

    pub fn clauses(&self) -> impl Iterator<Item = &Clause> {
        self.groups.iter().flatten()
    }

    /// Every phrase quoted anywhere in the condition.
    pub fn phrases(&self) -> Vec<&str> {
        self.clauses()
            .filter_map(|clause| match &clause.test {
                Test::Phrases(phrases) => Some(phrases.iter().map(String::as_str)),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// Whether some clause is decided by the output going quiet.
    pub fn quiet_clause(&self) -> Option<Duration> {
        self.clauses().find_map(|clause| match clause.test {
            Test::Quiet(duration) => Some(duration),
            _ => None,
        })
    }

    /// Who decides each clause on a target whose judges are `judges`.
    pub fn judged_by(&self, judges: Judges) -> Vec<(&Clause, JudgedBy)> {
        self.clauses()
            .map(|clause| (clause, clause.test.judged_by(judges)))
            .collect()
    }
}

impl Test {
    pub fn judged_by(&self, judges: Judges) -> JudgedBy {
        let full_model = judges.model == Reach::Full;
        let model = || {
            if full_model {
                JudgedBy::Model
            } else {
                JudgedBy::Nobody
            }
        };
        if !judges.text {
            // Pixels: only a vision model (or OCR, for phrases) reads them; quiet is the
            // gate's business.
            return match self {
                Test::Quiet(duration) => {
                    JudgedBy::Detector(format!("no change for {}", seconds(*duration)))
                }
                Test::Phrases(_) if judges.model == Reach::Phrases => JudgedBy::Model,
                _ => model(),
            };
        }
        match self {
            Test::Phrases(_) => JudgedBy::Phrase,
            Test::Finish { .. } if judges.exit_known => JudgedBy::Detector("exit status".into()),
            Test::Finish { .. } if full_model => JudgedBy::Model,
            Test::Finish { .. } if judges.has_prompt => {
                JudgedBy::Detector("the prompt returning or a summary line".into())
            }
            Test::Finish { .. } => JudgedBy::Detector(
                "a summary line (test result, BUILD …, Finished, Done in …, exit code …)".into(),
            ),
            Test::Error => JudgedBy::Detector("error lines".into()),
            Test::Prompt if judges.has_prompt => JudgedBy::Detector("the prompt".into()),
            Test::Prompt => model(),
            Test::Quiet(duration) => {
                JudgedBy::Detector(format!("no change for {}", seconds(*duration)))
            }
            Test::Number(number) => JudgedBy::Detector(format!("number {number}")),
            Test::Model => model(),
        }
    }
}

impl fmt::Display for NumberTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(label) = &self.label {
            write!(f, "{label} ")?;
        }
        write!(
            f,
            "{} {}",
            self.comparison.symbol(),
            trim_number(self.value)
        )?;
        match self.unit.as_deref() {
            Some("%") => f.write_str("%"),
            Some(unit) => write!(f, " {unit}"),
            None => Ok(()),
        }
    }
}

fn trim_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

fn seconds(duration: Duration) -> String {
    format!("{}s", duration.as_secs())
}

#[cfg(test)]
mod tests;
