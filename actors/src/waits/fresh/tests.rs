//! What counts as new output: files by offset, screens by their lines, echoes dropped.

use std::sync::Arc;

use super::*;

fn file(text: &str, inode: u64, start: u64, end: u64) -> Content {
    Content::Text {
        text: Arc::from(text),
        exit: None,
        origin: TextOrigin::File {
            device: 1,
            inode,
            start,
            end,
        },
    }
}

fn terminal(text: &str, typed: &[&str]) -> Content {
    Content::Text {
        text: Arc::from(text),
        exit: None,
        origin: TextOrigin::Terminal {
            typed: typed.iter().map(|t| (*t).to_owned()).collect(),
        },
    }
}

#[test]
fn a_file_counts_the_bytes_after_its_length_at_the_start() {
    let start = file("BUILD SUCCESSFUL\n", 7, 0, 17);
    let baseline = baseline_of(&start);
    assert_eq!(
        baseline,
        Some(TextBaseline::File {
            device: 1,
            inode: 7,
            length: 17
        })
    );
    assert_eq!(new_text(&start, baseline.as_ref()), "", "nothing new yet");
    let grown = file("BUILD SUCCESSFUL\nprogress 20%\n", 7, 0, 30);
    assert_eq!(new_text(&grown, baseline.as_ref()), "progress 20%\n");
    // The window moved past the old end: all of the window is new.
    let far = file("line 9000\n", 7, 90_000, 90_010);
    assert_eq!(new_text(&far, baseline.as_ref()), "line 9000\n");
    // Truncated, or rotated to a new file: all new.
    let truncated = file("fresh\n", 7, 0, 6);
    assert_eq!(new_text(&truncated, baseline.as_ref()), "fresh\n");
    let rotated = file("BUILD SUCCESSFUL\nnew run\n", 8, 0, 25);
    assert_eq!(
        new_text(&rotated, baseline.as_ref()),
        "BUILD SUCCESSFUL\nnew run\n"
    );
    // With no baseline (match_existing, or a file that did not exist), everything counts.
    assert_eq!(new_text(&grown, None), "BUILD SUCCESSFUL\nprogress 20%\n");
}

#[test]
fn a_screen_counts_the_lines_after_its_baseline() {
    let start = Content::text("$ make\nstep 1\nstep 2\nprogress 20%");
    let baseline = baseline_of(&start);
    assert_eq!(new_text(&start, baseline.as_ref()), "");
    // The progress line rewritten in place, then more lines.
    let later = Content::text("$ make\nstep 1\nstep 2\nprogress 100%\nDONE\n$");
    assert_eq!(
        new_text(&later, baseline.as_ref()),
        "progress 100%\nDONE\n$"
    );
    // Scrolled: the first lines went off the top.
    let scrolled = Content::text("step 2\nprogress 20%\nstep 3\nBUILD OK");
    assert_eq!(new_text(&scrolled, baseline.as_ref()), "step 3\nBUILD OK");
    // Cleared: nothing of the baseline is left, everything is new.
    let cleared = Content::text("fresh screen\nDONE");
    assert_eq!(new_text(&cleared, baseline.as_ref()), "fresh screen\nDONE");
    // A lone prompt baseline: the command typed after it is new.
    let prompt = baseline_of(&Content::text("user@host:~$"));
    let typed = Content::text("user@host:~$ make\nok\nuser@host:~$");
    assert_eq!(
        new_text(&typed, prompt.as_ref()),
        "user@host:~$ make\nok\nuser@host:~$"
    );
}

#[test]
fn the_echo_of_typed_input_is_not_output() {
    let start = terminal("$", &[]);
    let baseline = baseline_of(&start);
    let after = terminal("$ echo DEPLOY OK\nDEPLOY OK\n$", &["echo DEPLOY OK"]);
    assert_eq!(new_text(&after, baseline.as_ref()), "DEPLOY OK\n$");
    // cat echoes the line, then prints it: one goes, one stays.
    let cat = terminal("hello\nhello", &["hello"]);
    assert_eq!(new_text(&cat, None), "hello");
}

#[test]
fn long_lines_and_many_lines_are_bounded_in_the_baseline() {
    let long = "x".repeat(10_000);
    let many: String = (0..500).map(|n| format!("line {n}\n")).collect();
    let Some(TextBaseline::Lines(lines)) = baseline_of(&Content::text(format!("{many}{long}")))
    else {
        panic!("a screen baseline")
    };
    assert_eq!(lines.len(), TextBaseline::LINES);
    assert_eq!(
        lines.last().unwrap().chars().count(),
        TextBaseline::LINE_CHARS
    );
    let later = Content::text(format!("{many}{long}\nDONE"));
    assert_eq!(new_text(&later, Some(&TextBaseline::Lines(lines))), "DONE");
}
