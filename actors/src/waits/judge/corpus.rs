//! The corpus of conditions (`corpus/wake_when.txt`): each case is read and decided the way
//! a live wait decides it — the reading once, then [`decide`] on every settled observation
//! (each line of output, the process's exit) and at quiet polls — with no model configured.
//! A false or stale "resolved", a missed wake or a wake at the wrong step fails the test;
//! the honest "changed" wakes are counted and must stay rare.

use std::time::Duration;

use crate::condition::{Judges, Reach, Reading};
use crate::sight::content::ProcessExit;
use crate::sight::gate::Readiness;
use crate::waits::judge::decide::{Decision, Observed, decide};

const CORPUS: &str = include_str!("corpus/wake_when.txt");

/// At most this share of the cases may wake as changed (nobody could judge them).
const MAX_CHANGED_SHARE: f64 = 0.15;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File,
    Tmux,
    Pty,
    Shell,
}

impl Kind {
    fn parse(text: &str) -> Kind {
        match text {
            "file" => Kind::File,
            "tmux" => Kind::Tmux,
            "pty" => Kind::Pty,
            "shell" => Kind::Shell,
            other => panic!("unknown kind {other:?}"),
        }
    }

    /// What judges a target of this kind has with no model configured, as the daemon's
    /// sources give them.
    fn judges(self) -> Judges {
        Judges {
            text: true,
            exit_known: self == Kind::Pty,
            has_prompt: self != Kind::File,
            model: Reach::None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Step {
    Line(String),
    Exit(Option<i32>),
    Quiet(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wake {
    Resolved,
    Changed,
    Ended,
}

#[derive(Debug)]
struct Case {
    line: usize,
    kind: Kind,
    condition: String,
    before: Vec<String>,
    steps: Vec<Step>,
    /// The wake and the step (1-based) it comes at; `None`: no wake.
    expected: Option<(Wake, usize)>,
}

fn parse_corpus() -> Vec<Case> {
    CORPUS
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(index, line)| {
            let columns: Vec<&str> = line.split(" | ").map(str::trim).collect();
            let [kind, condition, steps, expected] = columns[..] else {
                panic!("line {}: four columns wanted: {line}", index + 1);
            };
            let mut before = Vec::new();
            let mut parsed = Vec::new();
            for step in steps.split(" / ").map(str::trim) {
                if let Some(old) = step.strip_prefix('^') {
                    before.push(old.to_owned());
                } else if let Some(code) = step
                    .strip_prefix("<exit ")
                    .and_then(|rest| rest.strip_suffix('>'))
                {
                    parsed.push(Step::Exit(Some(code.parse().expect("an exit code"))));
                } else if step == "<signal>" {
                    parsed.push(Step::Exit(None));
                } else if let Some(seconds) = step
                    .strip_prefix("<quiet ")
                    .and_then(|rest| rest.strip_suffix('>'))
                {
                    parsed.push(Step::Quiet(seconds.parse().expect("seconds")));
                } else {
                    // "a\nb": lines written together, seen by one capture.
                    parsed.push(Step::Line(step.replace("\\n", "\n")));
                }
            }
            let expected = (expected != "none").then(|| {
                let (wake, at) = expected
                    .split_once('@')
                    .unwrap_or_else(|| panic!("line {}: expected wake@step", index + 1));
                let wake = match wake {
                    "resolved" => Wake::Resolved,
                    "changed" => Wake::Changed,
                    "ended" => Wake::Ended,
                    other => panic!("line {}: unknown wake {other:?}", index + 1),
                };
                (wake, at.parse().expect("a step number"))
            });
            Case {
                line: index + 1,
                kind: Kind::parse(kind),
                condition: condition.to_owned(),
                before,
                steps: parsed,
                expected,
            }
        })
        .collect()
}

/// Runs a case as a wait would: the first wake and the step it came at, with its text.
fn run(case: &Case) -> Option<(Wake, usize, String)> {
    let reading = Reading::parse(&case.condition);
    let judges = case.kind.judges();
    let mut text: String = case.before.iter().map(|line| format!("{line}\n")).collect();
    let mut fresh = String::new();
    let mut exit: Option<ProcessExit> = None;
    let mut quiet_for = Duration::ZERO;
    for (index, step) in case.steps.iter().enumerate() {
        let at_a_quiet_poll = match step {
            Step::Line(line) => {
                text.push_str(line);
                text.push('\n');
                fresh.push_str(line);
                fresh.push('\n');
                quiet_for = Duration::ZERO;
                false
            }
            Step::Exit(code) => {
                exit = Some(ProcessExit { code: *code });
                quiet_for = Duration::ZERO;
                false
            }
            Step::Quiet(seconds) => {
                quiet_for += Duration::from_secs(*seconds);
                true
            }
        };
        let observed = Observed {
            text: &text,
            fresh: &fresh,
            exit,
            quiet_for,
            changed: !fresh.trim().is_empty(),
            description: None,
            pixels: false,
        };
        let decision = decide(&reading, judges, &observed, Readiness::Settled);
        // At a poll with no news only a met condition acts (`watching::check_quiet`).
        let wake = match decision {
            Decision::Met(observation) => Some((Wake::Resolved, observation)),
            _ if at_a_quiet_poll => None,
            Decision::Changed { observation, .. } => Some((Wake::Changed, observation)),
            Decision::Ended { observation, why } => {
                Some((Wake::Ended, format!("{why} ({observation})")))
            }
            Decision::AskModel => panic!("no model is configured, yet the reading asked one"),
            Decision::NotMet(_) => None,
        };
        if let Some((wake, text)) = wake {
            return Some((wake, index + 1, text));
        }
    }
    None
}

fn sketch(wake: Option<(Wake, usize)>) -> String {
    match wake {
        None => "none".to_owned(),
        Some((Wake::Resolved, at)) => format!("resolved@{at}"),
        Some((Wake::Changed, at)) => format!("changed@{at}"),
        Some((Wake::Ended, at)) => format!("ended@{at}"),
    }
}

#[test]
fn every_case_of_the_corpus_wakes_as_it_should() {
    let cases = parse_corpus();
    assert!(cases.len() >= 300, "{} cases", cases.len());
    let mut wrong = Vec::new();
    let mut false_resolved = 0;
    let (mut resolved, mut changed, mut ended) = (0usize, 0u32, 0usize);
    for case in &cases {
        let got = run(case);
        match got {
            Some((Wake::Resolved, ..)) => resolved += 1,
            Some((Wake::Changed, ..)) => changed += 1,
            Some((Wake::Ended, ..)) => ended += 1,
            None => {}
        }
        let got_sketch = sketch(got.as_ref().map(|(wake, at, _)| (*wake, *at)));
        let expected_sketch = sketch(case.expected);
        if got_sketch != expected_sketch {
            if matches!(got, Some((Wake::Resolved, ..))) {
                false_resolved += 1;
            }
            let said = got.map(|(_, _, text)| text).unwrap_or_default();
            wrong.push(format!(
                "line {}: {:?} on {:?}\n    expected {expected_sketch}, got {got_sketch}: {said}",
                case.line, case.condition, case.kind
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases wrong ({false_resolved} resolved when they should not have):\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
    let share = f64::from(changed) / cases.len() as f64;
    // `cargo test -p lookout-actors corpus -- --nocapture` prints the tally the README quotes.
    eprintln!(
        "corpus: {} cases: {resolved} resolved, {ended} ended (can no longer hold), {changed} \
         changed ({:.1} %, only a model could judge), {} no wake; 0 false resolved, 0 missed",
        cases.len(),
        share * 100.0,
        cases.len() - resolved - ended - changed as usize,
    );
    assert!(
        share <= MAX_CHANGED_SHARE,
        "{changed} of {} cases woke as changed ({:.0} %)",
        cases.len(),
        share * 100.0
    );
}

#[test]
fn the_corpus_covers_five_languages_and_every_target_kind() {
    let cases = parse_corpus();
    let has = |pattern: fn(&str) -> bool| cases.iter().any(|case| pattern(&case.condition));
    assert!(has(|c| c.contains("wenn")), "German");
    assert!(has(|c| c.contains("quand")), "French");
    assert!(has(|c| c.contains("cuando")), "Spanish");
    assert!(has(|c| c.contains("たら")), "Japanese");
    assert!(has(|c| c.contains("时")), "Chinese");
    for kind in [Kind::File, Kind::Tmux, Kind::Pty, Kind::Shell] {
        assert!(cases.iter().any(|case| case.kind == kind), "{kind:?}");
    }
}
