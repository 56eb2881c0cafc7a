//! Decisions on observations: local judges resolve, the model is asked only for its part,
//! and what nobody can judge wakes as changed, never as resolved.

use super::*;
use crate::condition::Reach;

const FILE: Judges = Judges {
    text: true,
    exit_known: false,
    has_prompt: false,
    model: Reach::None,
};
const TERMINAL: Judges = Judges {
    text: true,
    exit_known: true,
    has_prompt: true,
    model: Reach::None,
};
const WINDOW: Judges = Judges {
    text: false,
    exit_known: false,
    has_prompt: false,
    model: Reach::None,
};

fn with_model(judges: Judges) -> Judges {
    Judges {
        model: Reach::Full,
        ..judges
    }
}

fn seen<'a>(text: &'a str, fresh: &'a str) -> Observed<'a> {
    Observed {
        text,
        fresh,
        exit: None,
        quiet_for: Duration::ZERO,
        changed: !fresh.trim().is_empty(),
        description: None,
        pixels: false,
    }
}

fn decide_on(condition: &str, judges: Judges, observed: Observed<'_>) -> Decision {
    decide(
        &Reading::parse(condition),
        judges,
        &observed,
        Readiness::Settled,
    )
}

#[test]
fn phrases_count_only_in_new_output() {
    let condition = "wait until it prints 'BUILD SUCCESSFUL'";
    let old = "BUILD SUCCESSFUL in 3s\n";
    assert_eq!(
        decide_on(condition, FILE, seen(old, "")),
        Decision::NotMet("BUILD SUCCESSFUL in 3s".into())
    );
    let text = "BUILD SUCCESSFUL in 3s\n> Task :compile\nBUILD SUCCESSFUL in 9s\n";
    assert_eq!(
        decide_on(
            condition,
            FILE,
            seen(text, "> Task :compile\nBUILD SUCCESSFUL in 9s\n")
        ),
        Decision::Met("BUILD SUCCESSFUL in 9s".into())
    );
}

#[test]
fn the_schema_example_needs_no_model_and_never_wakes_on_progress() {
    let condition = "wake me when 'ALL DONE' is printed or an error appears";
    assert!(matches!(
        decide_on(condition, FILE, seen("progress 20%", "progress 20%")),
        Decision::NotMet(_)
    ));
    assert_eq!(
        decide_on(
            condition,
            FILE,
            seen("x\nerror: disk full", "error: disk full")
        ),
        Decision::Met("error: disk full".into())
    );
    assert_eq!(
        decide_on(condition, FILE, seen("ALL DONE", "ALL DONE")),
        Decision::Met("ALL DONE".into())
    );
    assert!(
        matches!(
            decide_on(condition, FILE, seen("Tests: 0 failed", "Tests: 0 failed")),
            Decision::NotMet(_)
        ),
        "0 failed is no error"
    );
}

#[test]
fn what_nobody_can_judge_wakes_as_changed_once_settled() {
    let condition = "when the page looks right";
    let observed = seen("a\nb", "b");
    assert_eq!(
        decide_on(condition, FILE, observed),
        Decision::Changed {
            observation: "new output: b".into(),
            unjudged: vec!["the page looks right".into()],
        }
    );
    assert!(matches!(
        decide(
            &Reading::parse(condition),
            FILE,
            &observed,
            Readiness::Changing
        ),
        Decision::NotMet(_)
    ));
    assert!(
        matches!(
            decide_on(condition, FILE, seen("a", "")),
            Decision::NotMet(_)
        ),
        "nothing new: nothing to wake for"
    );
    // The local part decides first: the phrase met resolves; the open part alone changes.
    let mixed = "when 'DONE' appears or the dashboard looks healthy";
    assert_eq!(
        decide_on(mixed, FILE, seen("DONE", "DONE")),
        Decision::Met("DONE".into())
    );
    assert!(matches!(
        decide_on(mixed, FILE, seen("step 2", "step 2")),
        Decision::Changed { .. }
    ));
    // All of: the phrase must hold before the open part can matter.
    let both = "when 'ready' appears and the dashboard is healthy";
    assert!(matches!(
        decide_on(both, FILE, seen("step 2", "step 2")),
        Decision::NotMet(_)
    ));
    assert!(matches!(
        decide_on(both, FILE, seen("ready", "ready")),
        Decision::Changed { unjudged, .. } if unjudged == ["the dashboard is healthy"]
    ));
}

#[test]
fn a_model_is_asked_only_for_what_it_alone_can_judge() {
    let mixed = "when 'DONE' appears or the dashboard looks healthy";
    assert_eq!(
        decide_on(mixed, with_model(FILE), seen("DONE", "DONE")),
        Decision::Met("DONE".into()),
        "no model call when a phrase decides"
    );
    assert_eq!(
        decide_on(mixed, with_model(FILE), seen("step 2", "step 2")),
        Decision::AskModel
    );
    assert!(
        matches!(
            decide_on(mixed, with_model(FILE), seen("step 2", "")),
            Decision::NotMet(_)
        ),
        "old output alone is not worth a model call"
    );
    let exited = Observed {
        exit: Some(ProcessExit { code: Some(0) }),
        ..seen("step 2", "")
    };
    assert_eq!(
        decide_on(mixed, with_model(FILE), exited),
        Decision::AskModel,
        "an exit with no new output is"
    );
    let phrase_only = "when 'DONE' appears";
    assert!(matches!(
        decide_on(phrase_only, with_model(FILE), seen("step 2", "step 2")),
        Decision::NotMet(_)
    ));
}

#[test]
fn exits_errors_and_prompts_on_a_terminal() {
    let exited = |code| Observed {
        exit: Some(ProcessExit { code: Some(code) }),
        ..seen("ok\n$", "ok\n$")
    };
    assert_eq!(
        decide_on("when the command finishes", TERMINAL, exited(0)),
        Decision::Met("the process exited with status 0; last line: $".into())
    );
    assert!(matches!(
        decide_on("when the build succeeds", TERMINAL, exited(2)),
        Decision::Ended { why, .. }
            if why == "the process exited with status 2, so 'the build succeeds' can no longer happen"
    ));
    assert!(matches!(
        decide_on("when the build fails", TERMINAL, exited(2)),
        Decision::Met(text) if text.contains("status 2")
    ));
    assert!(matches!(
        decide_on("when the prompt returns", TERMINAL, seen("make\nok\nuser@h:~$ ", "ok\nuser@h:~$ ")),
        Decision::Met(text) if text.starts_with("the prompt is back")
    ));
}

#[test]
fn summary_lines_quiet_numbers_and_negations() {
    assert_eq!(
        decide_on(
            "when the tests finish",
            FILE,
            seen("x", "test result: ok. 12 passed; 0 failed")
        ),
        Decision::Met("test result: ok. 12 passed; 0 failed".into())
    );
    let quiet = Observed {
        quiet_for: Duration::from_secs(31),
        ..seen("last line", "")
    };
    assert!(matches!(
        decide_on("when the output stops changing", FILE, quiet),
        Decision::Met(text) if text.starts_with("no change for 31s")
    ));
    assert!(matches!(
        decide_on("when progress reaches 100%", FILE, seen("", "progress 45%")),
        Decision::NotMet(_)
    ));
    assert_eq!(
        decide_on(
            "when progress reaches 100%",
            FILE,
            seen("", "progress 45%\nprogress 100%")
        ),
        Decision::Met("progress 100%".into())
    );
    let guarded = "when 'DONE' appears unless 'ERROR' appears";
    assert!(matches!(
        decide_on(guarded, FILE, seen("", "ERROR x\nDONE")),
        Decision::NotMet(_)
    ));
    assert_eq!(
        decide_on(guarded, FILE, seen("", "DONE")),
        Decision::Met("DONE; not seen: 'ERROR' appears".into())
    );
}

#[test]
fn pixels_wake_as_changed_without_a_model_and_ask_one_with_it() {
    let frame = Observed {
        description: Some("the window changed"),
        changed: true,
        pixels: true,
        ..seen("", "")
    };
    assert_eq!(
        decide_on("the download completes", WINDOW, frame),
        Decision::Changed {
            observation: "the window changed".into(),
            unjudged: vec!["the download completes".into()],
        }
    );
    assert_eq!(
        decide_on("the download completes", with_model(WINDOW), frame),
        Decision::AskModel
    );
    let first = Observed {
        changed: false,
        ..frame
    };
    assert!(matches!(
        decide_on("the download completes", WINDOW, first),
        Decision::NotMet(_)
    ));
}

#[test]
fn a_phrase_with_a_number_does_not_match_a_longer_number() {
    let zero = "when 'Tests: 0 failed' shows";
    assert!(matches!(
        decide_on(zero, FILE, seen("", "Tests: 10 failed, 3 passed")),
        Decision::NotMet(_)
    ));
    assert!(matches!(
        decide_on("when '0 failed' shows", FILE, seen("", "10 failed")),
        Decision::NotMet(_)
    ));
    assert_eq!(
        decide_on(
            "when '0 failed' shows",
            FILE,
            seen("", "x\n3 passed, 0 failed")
        ),
        Decision::Met("3 passed, 0 failed".into())
    );
    assert!(contains_phrase("progress 100%", "100%"));
    assert!(!contains_phrase("progress 1100%", "100%"));
    assert!(contains_phrase("all done.", "all done"));
}

#[test]
fn an_exited_process_is_named_in_what_the_wait_last_saw() {
    let exited = Observed {
        exit: Some(ProcessExit { code: Some(0) }),
        ..seen("building\ndone", "building\ndone")
    };
    // Quiet can still come after the exit: the wait goes on, and its last observation (what
    // a timeout's text quotes) names the exit.
    assert_eq!(
        decide_on(
            "when 'A' appears or the output is quiet for 10s",
            TERMINAL,
            exited
        ),
        Decision::NotMet("the process exited with status 0; last line: done".into())
    );
    assert_eq!(
        decide_on("if it fails", TERMINAL, exited),
        Decision::Ended {
            observation: "last lines: building / done".into(),
            why: "the process exited with status 0, so 'it fails' can no longer happen".into(),
        }
    );
}
