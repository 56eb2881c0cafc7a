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
//!
//! [`judge`] is the seam every judge of a condition implements (the wait's text pipeline,
//! the vision backends, the scripted stand-in).

use std::fmt;
use std::time::Duration;

mod classify;
mod idioms;
pub mod judge;
mod lexicon;
mod numbers;
mod words;

use idioms::{strip_idioms, strip_lead_in};
pub(crate) use lexicon::{is_unspaced, names_work};
use words::{Joint, Masked, read_clause, split_clauses, tokenize};

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
    /// Every phrase appears (case-insensitive, at word edges) in the output that arrived
    /// after the wait started. Phrases keep the case the agent wrote.
    Phrases(Vec<String>),
    /// The work ends this way: the watched process exits, or, where no process is watched,
    /// a line reports the end (a summary, a failure report) or the prompt comes back.
    Ends(Outcome),
    /// A line of this kind appears (as words: not "0 errors"); on a watched process, an
    /// error is also a non-zero exit or a death by signal.
    Line(LineKind),
    /// The shell prompt is back (the last line ends in `$`, `#`, `%`, `>` or `❯`).
    Prompt,
    /// The output has not changed for this long.
    Quiet(Duration),
    /// A number in the output compares to a value ("progress reaches 100%").
    Number(NumberTest),
    /// Lines of a kind, counted since the wait began, or the count the output prints,
    /// compare to a value ("more than 3 errors").
    Count(CountTest),
    /// Only a model can tell.
    Model,
}

/// How the work must end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Either way ("finishes", "exits", "whether it worked or not").
    Any,
    /// Status 0 ("succeeds", "passes", "exits cleanly").
    Success,
    /// A non-zero status or a death by signal ("fails", "crashes", "exits non-zero").
    Failure,
    /// Exactly this status ("exits with code 2").
    Code(i32),
    /// Any status but this one, or a signal ("the exit code isn't 1").
    NotCode(i32),
}

impl Outcome {
    /// The outcome a clause that says the opposite asks for ("doesn't fail" → succeeds).
    pub fn opposite(self) -> Option<Outcome> {
        match self {
            Outcome::Any => None,
            Outcome::Success => Some(Outcome::Failure),
            Outcome::Failure => Some(Outcome::Success),
            Outcome::Code(0) => Some(Outcome::Failure),
            Outcome::Code(code) => Some(Outcome::NotCode(code)),
            Outcome::NotCode(0) => Some(Outcome::Success),
            Outcome::NotCode(code) => Some(Outcome::Code(code)),
        }
    }

    /// Whether a process that ended with `code` (`None`: a signal) ended this way.
    pub fn holds_for(self, code: Option<i32>) -> bool {
        match self {
            Outcome::Any => true,
            Outcome::Success => code == Some(0),
            Outcome::Failure => code != Some(0),
            Outcome::Code(wanted) => code == Some(wanted),
            Outcome::NotCode(unwanted) => code != Some(unwanted),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Any => f.write_str("either way"),
            Outcome::Success => f.write_str("status 0"),
            Outcome::Failure => f.write_str("non-zero status or a signal"),
            Outcome::Code(code) => write!(f, "status {code}"),
            Outcome::NotCode(code) => write!(f, "status other than {code}"),
        }
    }
}

/// Which lines a [`Test::Line`] or a [`Test::Count`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    Error,
    Warning,
}

impl LineKind {
    fn plural(self) -> &'static str {
        match self {
            LineKind::Error => "error lines",
            LineKind::Warning => "warning lines",
        }
    }
}

/// "more than 3 errors have been logged", "when the error count is above 3".
#[derive(Clone, Debug, PartialEq)]
pub struct CountTest {
    pub kind: LineKind,
    pub comparison: Comparison,
    pub value: f64,
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
        let (tokens, either_way) = strip_idioms(tokens);
        let tokens = strip_lead_in(&tokens);
        let mut groups: Vec<Vec<Clause>> = Vec::new();
        let mut current: Vec<Clause> = Vec::new();
        let mut last_joint = Joint::Or;
        for (joint, part) in split_clauses(tokens) {
            let Some(clause) = read_clause(&masked, part, joint == Joint::AndNot, either_way)
            else {
                continue;
            };
            if joint == Joint::Or && !current.is_empty() {
                groups.push(std::mem::take(&mut current));
            }
            current.push(clause);
            last_joint = joint;
        }
        if !current.is_empty() {
            groups.push(current);
        }
        // A guard at the end ("… unless 'ERROR' appears", "…, but ignore 'retrying'") is
        // meant for every alternative, not only the last one.
        if matches!(last_joint, Joint::AndNot | Joint::But)
            && groups.len() > 1
            && let Some(guard) = groups.last().and_then(|group| group.last()).cloned()
        {
            let last = groups.len() - 1;
            for group in &mut groups[..last] {
                group.push(guard.clone());
            }
        }
        if groups.is_empty() {
            // "whether it worked or not", alone: the work ends, either way.
            let test = if either_way {
                Test::Ends(Outcome::Any)
            } else {
                Test::Model
            };
            groups.push(vec![Clause {
                text: condition.trim().to_owned(),
                negated: false,
                test,
            }]);
        }
        for group in &mut groups {
            if group.iter().all(|clause| clause.negated) {
                for clause in group.iter_mut() {
                    clause.negated = false;
                    clause.test = match clause.test {
                        // "when it doesn't fail": it ends well; "the exit code isn't 2".
                        Test::Ends(outcome) => outcome.opposite().map_or(Test::Model, Test::Ends),
                        // "when there are no errors" holds at any quiet moment: only a model
                        // can make sense of a negation alone.
                        _ => Test::Model,
                    };
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

    /// The longest time some clause waits for the output to go quiet.
    pub fn quiet_clause(&self) -> Option<Duration> {
        self.clauses()
            .filter_map(|clause| match clause.test {
                Test::Quiet(duration) => Some(duration),
                _ => None,
            })
            .max()
    }

    /// The shortest quiet clause that alone could hold the condition (its group has no
    /// other local test): a wait whose timeout is shorter can never see it hold.
    pub fn quiet_needed(&self) -> Option<Duration> {
        self.groups
            .iter()
            .map(|group| {
                group
                    .iter()
                    .filter_map(|clause| match clause.test {
                        Test::Quiet(duration) if !clause.negated => Some(duration),
                        _ => None,
                    })
                    .max()
            })
            .collect::<Option<Vec<Duration>>>()
            .and_then(|needed| needed.into_iter().min())
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
        let detector = |name: String| JudgedBy::Detector(name);
        match self {
            Test::Phrases(_) => JudgedBy::Phrase,
            Test::Ends(outcome) if judges.exit_known => match outcome {
                Outcome::Any => detector("exit status, either way".into()),
                Outcome::Failure => detector(
                    "exit status: non-zero or a signal, or a line reporting failure".into(),
                ),
                outcome => detector(format!("exit status: {outcome}")),
            },
            Test::Ends(_) if full_model => JudgedBy::Model,
            Test::Ends(outcome) => {
                let lines = match outcome {
                    Outcome::Any => {
                        "a line that says the work ended (test result, BUILD …, \
                                     Finished, Done in …, exit code …)"
                    }
                    Outcome::Failure | Outcome::NotCode(0) => {
                        "a line that reports the work failed (FAILED, BUILD FAILED, exit \
                         code ≠ 0, panicked at, npm ERR!, a traceback …)"
                    }
                    Outcome::Success | Outcome::Code(0) => {
                        "a line that reports the work succeeded (BUILD SUCCESSFUL, test \
                         result: ok, Finished, exit code 0 …)"
                    }
                    Outcome::Code(_) | Outcome::NotCode(_) => "a line that names the exit code",
                };
                if judges.has_prompt && *outcome == Outcome::Any {
                    detector(format!("{lines}, or the prompt returning"))
                } else if judges.has_prompt {
                    detector(format!(
                        "{lines}; the prompt returning without one wakes you as changed"
                    ))
                } else {
                    detector(lines.to_owned())
                }
            }
            Test::Line(kind) if judges.exit_known && *kind == LineKind::Error => {
                detector("error lines, or a non-zero exit".into())
            }
            Test::Line(kind) => detector(kind.plural().to_owned()),
            Test::Prompt if judges.has_prompt => detector("the prompt".into()),
            Test::Prompt => model(),
            Test::Quiet(duration) => detector(format!("no change for {}", seconds(*duration))),
            Test::Number(number) => detector(format!("number {number}")),
            Test::Count(count) => detector(format!(
                "{} since the wait began, or the count printed, {} {}",
                count.kind.plural(),
                count.comparison.symbol(),
                trim_number(count.value)
            )),
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
