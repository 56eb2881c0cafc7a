//! The detectors against real output lines of common tools.

use super::*;
use crate::condition::{Comparison, NumberTest};

#[test]
fn error_lines_are_error_words_as_words_not_counted_as_none() {
    let errors = [
        "error: could not compile `lookout` (lib) due to 1 previous error",
        "ERROR: Job failed: exit code 1",
        "Traceback (most recent call last):",
        "thread 'main' panicked at src/main.rs:2:5:",
        "FAILED tests/test_api.py::test_login - AssertionError",
        "Tests: 3 failed, 97 passed, 100 total",
        "npm ERR! code ELIFECYCLE",
        "fatal: not a git repository (or any of the parent directories): .git",
        "Segmentation fault (core dumped) -- segfault",
        "[2026-11-23 10:00:01] [ERROR] connection refused",
        "java.lang.NullPointerException: Cannot invoke",
        "Exception in thread \"main\"",
        "make: *** [Makefile:12: build] Error 2",
        "The build failed.",
        "test result: FAILED. 3 passed; 1 failed; 0 ignored",
    ];
    for line in errors {
        assert!(is_error_line(line), "an error line: {line}");
    }
    let fine = [
        "Tests: 0 failed, 12 passed, 12 total",
        "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured",
        "Compiled with 0 errors and 2 warnings",
        "no errors found",
        "errors: 0",
        "failures=0",
        "Compiling errors.rs (lib)",
        "cargo build --features fail-fast",
        "   Compiling thiserror v2.0.12",
        "ErrorBoundary rendered",
        "progress 20%",
        "without errors",
        "",
    ];
    for line in fine {
        assert!(!is_error_line(line), "not an error line: {line}");
    }
    assert_eq!(
        error_line("step 1\n  step 2 error: disk full\nstep 3 error again"),
        Some("step 2 error: disk full")
    );
}

#[test]
fn summary_lines_of_common_tools() {
    let summaries = [
        (
            "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured",
            false,
        ),
        (
            "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.02s",
            false,
        ),
        ("BUILD SUCCESSFUL in 3s", false),
        ("BUILD FAILED in 7s", true),
        (
            "==================== 23 passed in 1.27s ====================",
            false,
        ),
        (
            "=============== 1 failed, 22 passed in 1.30s ===============",
            true,
        ),
        ("Ran 14 tests in 0.003s", false),
        ("Tests:       2 failed, 40 passed, 42 total", true),
        ("Done in 2.45s.", false),
        ("Process finished with exit code 0", false),
        ("Process finished with exit code 1", true),
        ("[Process exited 0]", false),
        ("ok  \tgithub.com/x/y\t0.012s", false),
        ("FAIL", true),
        ("PASS", false),
        ("npm ERR! Test failed.  See above for more details.", true),
        ("make: *** [all] Error 2", true),
        ("Compiled successfully in 1234ms", false),
        ("the script exited with code 3", true),
        ("done", false),
    ];
    for (line, failed) in summaries {
        assert!(
            is_summary_line(line) || is_failure_report(line, ""),
            "a summary line: {line}"
        );
        let text = format!("noise\n{line}\n");
        let reported = end_reported(&text).expect(line);
        assert_eq!(
            (reported.line, reported.failed),
            (line.trim(), failed),
            "{line}"
        );
    }
    for line in [
        "Compiling serde v1.0.219",
        "Downloading crates ...",
        "progress 50%",
        "step 3 of 5",
        "Running tests/it/main.rs",
        "ok, starting the server",
        "",
    ] {
        assert!(!is_summary_line(line), "not a summary line: {line}");
    }
}

#[test]
fn the_prompt_is_recognised_and_percentages_are_not() {
    for text in [
        "make\nok\nuser@host:~/src$ ",
        "done\n$",
        "root@box:/# ",
        "zsh ❯ ",
        "host% ",
        ">>> ",
        "PS C:\\> ",
    ] {
        assert!(prompt_line(text).is_some(), "a prompt: {text:?}");
    }
    for text in [
        "progress 100%",
        "a -> b",
        "building...",
        "x => y",
        "# a comment line",
        "",
    ] {
        assert!(prompt_line(text).is_none(), "no prompt: {text:?}");
    }
}

fn number(label: Option<&str>, unit: &str, comparison: Comparison, value: f64) -> NumberTest {
    NumberTest {
        label: label.map(str::to_owned),
        unit: Some(unit.to_owned()),
        comparison,
        value,
    }
}

#[test]
fn the_latest_number_in_its_unit_and_on_its_labelled_lines() {
    let progress = number(Some("progress"), "%", Comparison::AtLeast, 100.0);
    let log = "Downloading 100%\nprogress 20%\nprogress 45 %\n";
    assert_eq!(latest_number(log, &progress), Some((45.0, "progress 45 %")));
    let bar = number(Some("progress"), "%", Comparison::AtLeast, 100.0);
    assert_eq!(
        latest_number("[#####-----] 50%\n[##########] 100%\n", &bar),
        Some((100.0, "[##########] 100%")),
        "with no line naming the label, any line counts"
    );
    let passed = number(None, "passed", Comparison::AtLeast, 3.0);
    assert_eq!(
        latest_number("2 passed\nTests: 1 failed, 3 passed\n", &passed),
        Some((3.0, "Tests: 1 failed, 3 passed"))
    );
    assert_eq!(
        latest_number("passed: 7, failed: 0", &passed).map(|(v, _)| v),
        Some(7.0)
    );
    let tests = number(None, "tests", Comparison::AtLeast, 10.0);
    assert_eq!(
        latest_number("12 tests passed", &tests).map(|(v, _)| v),
        Some(12.0)
    );
    assert_eq!(latest_number("nothing here", &passed), None);
    assert!(Comparison::AtLeast.holds(100.0, 100.0));
    assert!(!Comparison::Above.holds(100.0, 100.0));
    assert!(Comparison::Below.holds(9.0, 10.0));
}
