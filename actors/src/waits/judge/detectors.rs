//! The local detectors of text conditions: an error or warning line, a line that reports
//! the work failed, a summary line that says a command finished (and how), an exit code
//! named in a line, the shell prompt back on the last line, a number that reached a value,
//! lines counted. Each reads the output that arrived after the wait started and returns the
//! line that decided it. Pure text logic, kept small and exact: what these do not know goes
//! to the model.

use crate::condition::{LineKind, NumberTest, names_work};

/// Words that make a line an error line (lowercase, whole words).
const ERROR_WORDS: &[&str] = &[
    "error",
    "errors",
    "fail",
    "fails",
    "failed",
    "failing",
    "failure",
    "failures",
    "exception",
    "traceback",
    "panic",
    "panicked",
    "fatal",
    "crash",
    "crashed",
    "segfault",
    "abort",
    "aborted",
];

/// Words before an error word that count it as none ("0 errors", "no failures").
const NONE_BEFORE: &[&str] = &["0", "no", "zero", "without", "non", "ignoring"];

/// The words of a line, lowercase: letters, digits and `_`, with `.`, `-` and `'` kept inside
/// a word ("errors.rs", "fail-fast", "don't" stay one word).
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = line.chars().collect();
    for (index, c) in chars.iter().enumerate() {
        let inside = matches!(c, '.' | '-' | '\'')
            && !current.is_empty()
            && chars
                .get(index + 1)
                .is_some_and(|next| next.is_alphanumeric());
        if c.is_alphanumeric() || *c == '_' || inside {
            current.extend(c.to_lowercase());
        } else {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            // ":" and "=" matter to "errors: 0"; keep them as words of their own.
            if matches!(c, ':' | '=') {
                words.push(c.to_string());
            }
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Whether a line reports an error or a failure: an error word as a word, not counted as
/// none ("0 errors", "no failures", "failed: 0", "errors=0").
pub fn is_error_line(line: &str) -> bool {
    // npm's and yarn's marker, and exception types (`AssertionError`, `java.lang.
    // NullPointerException`).
    if line.contains("ERR!") || names_an_exception_type(line) {
        return true;
    }
    let words = words(line);
    words.iter().enumerate().any(|(index, word)| {
        if !ERROR_WORDS.contains(&word.as_str()) {
            return false;
        }
        let before = index
            .checked_sub(1)
            .map(|at| words[at].as_str())
            .unwrap_or("");
        let counted_none_before = NONE_BEFORE.contains(&before);
        let counted_none_after = matches!(
            (
                words.get(index + 1).map(String::as_str),
                words.get(index + 2).map(String::as_str)
            ),
            (Some(":" | "="), Some("0" | "none")) | (Some("0"), _)
        );
        // "error rate: 0.1%", "error handling", "log level: error" name errors without
        // reporting one.
        let names_a_measure = words
            .get(index + 1)
            .is_some_and(|next| NOT_AN_ERROR_AFTER.contains(&next.as_str()))
            || words[..index]
                .iter()
                .rev()
                .find(|word| !matches!(word.as_str(), ":" | "="))
                .is_some_and(|before| NOT_AN_ERROR_BEFORE.contains(&before.as_str()));
        !(counted_none_before || counted_none_after || names_a_measure)
    })
}

/// Words after an error word that make it a name, not a report.
const NOT_AN_ERROR_AFTER: &[&str] = &[
    "rate",
    "rates",
    "count",
    "counts",
    "budget",
    "handler",
    "handlers",
    "handling",
    "level",
    "page",
    "pages",
    "threshold",
    "limit",
    "reporting",
    "reporter",
    "tracking",
    "boundary",
    "bars",
    "log",
    "logs",
    "logging",
    "_log",
    "codes",
    "types",
    "messages",
    "checking",
];

/// Words before an error word that make it a setting: "log level: error", "on_error=abort".
const NOT_AN_ERROR_BEFORE: &[&str] = &[
    "level",
    "loglevel",
    "log_level",
    "severity",
    "verbosity",
    "on_error",
    "if",
    "on",
];

/// Whether a line reports a warning (as a word: not "0 warnings").
pub fn is_warning_line(line: &str) -> bool {
    let words = words(line);
    words.iter().enumerate().any(|(index, word)| {
        matches!(word.as_str(), "warning" | "warnings" | "warn")
            && !index
                .checked_sub(1)
                .is_some_and(|at| NONE_BEFORE.contains(&words[at].as_str()))
            && !matches!(
                (
                    words.get(index + 1).map(String::as_str),
                    words.get(index + 2).map(String::as_str)
                ),
                (Some(":" | "="), Some("0" | "none")) | (Some("0"), _)
            )
    })
}

/// Whether a line is of `kind`.
pub fn is_line_of(kind: LineKind, line: &str) -> bool {
    match kind {
        LineKind::Error => is_error_line(line),
        LineKind::Warning => is_warning_line(line),
    }
}

/// The first line of `kind` in `text`.
pub fn line_of(kind: LineKind, text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .find(|line| is_line_of(kind, line))
}

/// How many lines of `kind` `text` has, and the latest count it prints ("errors: 4",
/// "4 errors", "error count: 4"), whichever is larger, with the line that decided.
pub fn count_of(kind: LineKind, text: &str) -> (f64, Option<&str>) {
    let mut counted = 0.0;
    let mut last_counted = None;
    for line in text.lines().map(str::trim) {
        if is_line_of(kind, line) {
            counted += 1.0;
            last_counted = Some(line);
        }
    }
    let unit = match kind {
        LineKind::Error => "error",
        LineKind::Warning => "warning",
    };
    let test = NumberTest {
        label: None,
        unit: Some(unit.to_owned()),
        comparison: crate::condition::Comparison::AtLeast,
        value: 0.0,
    };
    let printed = text
        .lines()
        .rev()
        .find_map(|line| number_in(line, &test).map(|value| (value, line.trim())));
    match printed {
        Some((value, line)) if value >= counted => (value, Some(line)),
        _ => (counted, last_counted),
    }
}

/// Whether a line says the work will be tried again: it reports no end, whatever else it
/// says ("retrying after error: timeout (attempt 1/5)").
pub fn is_retry_line(line: &str) -> bool {
    let lower = line.to_lowercase();
    [
        "retry",
        "retrying",
        "will retry",
        "retries",
        "trying again",
        "try again",
        "backing off",
        "reconnecting",
        "will be retried",
        "re-trying",
    ]
    .iter()
    .any(|piece| lower.contains(piece))
        || {
            let words = words(line);
            words.windows(2).any(|pair| {
                pair[0] == "attempt" && pair[1].chars().next().is_some_and(|c| c.is_ascii_digit())
            })
        }
}

/// Whether a line reports that the work ended in failure: `FAILED`, `BUILD FAILED`, `Job
/// failed`, `npm ERR!`, `make: *** … Error 2`, `panicked at`, `Error: … exited with`, a
/// traceback's last line (`before` is the text above the line), `Segmentation fault`, an
/// exit code other than 0. Never a line that says it will retry, and not any line with the
/// word "error" in it.
pub fn is_failure_report(line: &str, before: &str) -> bool {
    let trimmed = line.trim();
    if trimmed.is_empty() || is_retry_line(trimmed) {
        return false;
    }
    if exit_code_in(trimmed).is_some_and(|code| code != 0) {
        return true;
    }
    let lower = trimmed.to_lowercase();
    let markers = [
        "npm err!",
        "panicked at",
        "fatal error:",
        "segmentation fault",
        "core dumped",
        "error: could not compile",
        "error: aborting",
        "error: command failed",
        "error: process didn't exit successfully",
        "exception in thread",
        "command failed with exit code",
        "returned non-zero exit status",
        "exited with non-zero",
        "build failure",
    ];
    if markers.iter().any(|marker| lower.contains(marker)) {
        return true;
    }
    let starts = [
        "panic: ",
        "fatal: ",
        "make: ***",
        "error: ",
        "aborted",
        "killed",
    ];
    if starts.iter().any(|start| lower.starts_with(start))
        && (lower.starts_with("make:")
            || lower.starts_with("panic:")
            || lower.starts_with("fatal:")
            || lower == "killed"
            || lower.starts_with("aborted")
            || (lower.starts_with("error: ") && lower.contains(" exited with")))
    {
        return true;
    }
    if lower.starts_with("make[") && lower.contains("***") {
        return true;
    }
    // A traceback's last line: "ValueError: bad input" at the start of a line, after a
    // "Traceback (most recent call last):".
    if !line.starts_with(char::is_whitespace)
        && before.contains("Traceback (most recent call last)")
        && trimmed
            .split(|c: char| c == ':' || c.is_whitespace())
            .next()
            .is_some_and(|name| name.ends_with("Error") || name.ends_with("Exception"))
    {
        return true;
    }
    // FAILED, FAIL, FAILURE in capitals, as a word ("--- FAIL: TestX", "BUILD FAILED",
    // "FAILED tests/x.py::t", "test result: FAILED"), not counted as none.
    let raw_words: Vec<&str> = trimmed
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let capital_failure = raw_words.iter().enumerate().any(|(at, word)| {
        matches!(*word, "FAILED" | "FAIL" | "FAILURE")
            && !at
                .checked_sub(1)
                .is_some_and(|before| matches!(raw_words[before], "0" | "no" | "No" | "NO"))
            && raw_words.get(at + 1) != Some(&"0")
    });
    if capital_failure {
        return true;
    }
    // "Build failed", "Deployment failed: …", "1 test failed", "the job has failed".
    let words = words(trimmed);
    words.iter().enumerate().any(|(at, word)| {
        if !matches!(word.as_str(), "failed" | "failure" | "aborted" | "crashed") {
            return false;
        }
        let mut subject = at;
        while subject > 0
            && matches!(
                words[subject - 1].as_str(),
                "has" | "was" | "is" | "have" | "were" | "had"
            )
        {
            subject -= 1;
        }
        let Some(noun) = subject.checked_sub(1).map(|at| words[at].as_str()) else {
            return false;
        };
        let counted_none = subject
            .checked_sub(2)
            .is_some_and(|at| NONE_BEFORE.contains(&words[at].as_str()));
        names_work(noun) && !counted_none
    })
}

/// The first line of `text` that reports the work failed.
pub fn failure_report(text: &str) -> Option<&str> {
    let mut offset = 0;
    for line in text.lines() {
        let before = &text[..offset];
        offset += line.len() + 1;
        if is_failure_report(line, before) {
            return Some(line.trim());
        }
    }
    None
}

/// The exit code a line names: "exit code 2", "exited with status 1", "Process finished with
/// exit code 0", "[process exited 3]", "returned non-zero exit status 1", "exitcode=1".
pub fn exit_code_in(line: &str) -> Option<i32> {
    let lower = line.to_lowercase();
    if !(lower.contains("exit") || lower.contains("returncode") || lower.contains("return code")) {
        return None;
    }
    let words = words(line);
    words.iter().enumerate().find_map(|(at, word)| {
        let code = word.parse::<i32>().ok()?;
        let mut back = at;
        while back > 0 && matches!(words[back - 1].as_str(), ":" | "=" | "of") {
            back -= 1;
        }
        let before = back.checked_sub(1).map(|at| words[at].as_str())?;
        matches!(
            before,
            "code" | "status" | "exited" | "exitcode" | "exit_code" | "returncode" | "rc" | "exit"
        )
        .then_some(code)
    })
}

/// How the work ended, as the output reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reported<'t> {
    /// The line that says so.
    pub line: &'t str,
    /// Whether it says the work failed.
    pub failed: bool,
    /// The exit code it names, if any.
    pub code: Option<i32>,
}

/// The end of the work as the output reports it: the first line that reports a failure, or
/// else the last summary line (a test result, `BUILD SUCCESSFUL`, `Finished …`, `Done in
/// …`, an exit code). A line that says it will retry reports no end.
pub fn end_reported(text: &str) -> Option<Reported<'_>> {
    if let Some(line) = failure_report(text) {
        return Some(Reported {
            line,
            failed: true,
            code: exit_code_in(line),
        });
    }
    text.lines()
        .map(str::trim)
        .filter(|line| !is_retry_line(line))
        .rfind(|line| is_summary_line(line) || exit_code_in(line).is_some())
        .map(|line| {
            let code = exit_code_in(line);
            Reported {
                line,
                failed: code.map_or_else(|| is_error_line(line), |code| code != 0),
                code,
            }
        })
}

/// Whether the line names a CamelCase type ending in `Error` or `Exception`.
fn names_an_exception_type(line: &str) -> bool {
    line.split(|c: char| !c.is_alphanumeric()).any(|word| {
        ["Error", "Exception"].iter().any(|suffix| {
            word.len() > suffix.len()
                && word.ends_with(suffix)
                && word[..word.len() - suffix.len()]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_lowercase())
                && word.chars().next().is_some_and(char::is_uppercase)
        })
    })
}

/// The first error line of `text`.
pub fn error_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|line| is_error_line(line))
}

/// Beginnings of lines that say a command or a test run finished.
const SUMMARY_STARTS: &[&str] = &[
    "test result:",
    "finished ",
    "finished.",
    "build successful",
    "build succeeded",
    "build failed",
    "build finished",
    "done in ",
    "done.",
    "all done",
    "process finished with exit code",
    "[process exited",
    "[process completed",
    "npm err!",
    "make: ***",
    "make: nothing to be done",
    "ok  ",
    "ok\t",
    "fail\t",
    "completed successfully",
    "successfully completed",
    "compiled successfully",
    "compiled with",
    "deployment complete",
    "deploy complete",
    "all tests passed",
    "all checks passed",
    "successfully installed",
    "successfully deployed",
    "successfully built",
    "successfully tagged",
    "successfully pushed",
    "apply complete!",
    "training complete",
    "successfully completed",
    "successfully finished",
    "failure:",
];

/// Pieces that make a line a summary wherever they sit.
const SUMMARY_CONTAINS: &[&str] = &[
    " passed in ",
    " failed in ",
    " passed, ",
    "no tests ran",
    "exited with code",
    "exited with status",
    "exit code ",
    "exit status ",
    "finished in ",
    "completed in ",
    "build successful",
    "build failed",
    "completed successfully",
    "finished successfully",
    "compiled successfully",
    "compiled with ",
    "deployed successfully",
    "successfully rolled out",
    "rolled out successfully",
    "returned non-zero exit status",
];

/// Whether a line looks like the summary a command prints when it ends.
pub fn is_summary_line(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    if lower.is_empty() {
        return false;
    }
    // "PASS" / "FAIL" / "done" alone on a line (go test, make scripts).
    if matches!(lower.as_str(), "pass" | "fail" | "ok" | "done" | "finished") {
        return true;
    }
    if lower.starts_with("ran ") && lower.contains(" test") {
        return true;
    }
    // mocha: "12 passing (3s)", "1 failing".
    let counted = lower.trim_start_matches(|c: char| c.is_ascii_digit());
    if counted.len() < lower.len()
        && (counted.starts_with(" passing (") || counted.starts_with(" failing"))
    {
        return true;
    }
    if lower.starts_with("tests:") || lower.starts_with("test suites:") {
        return lower.contains("total") || lower.contains("passed") || lower.contains("failed");
    }
    SUMMARY_STARTS.iter().any(|start| lower.starts_with(start))
        || SUMMARY_CONTAINS.iter().any(|piece| lower.contains(piece))
        || says_the_work_ended(&lower)
}

/// "Deploy finished", "Migration complete", "the backup is done", "Upload succeeded",
/// "✓ Build completed in 3s": a work noun at the start, then a word of ending.
fn says_the_work_ended(lower: &str) -> bool {
    let words = words(lower);
    let mut at = 0;
    while words
        .get(at)
        .is_some_and(|word| matches!(word.as_str(), "the" | "info" | "ok" | "all" | "your" | "my"))
    {
        at += 1;
    }
    let Some(first) = words.get(at) else {
        return false;
    };
    if !names_work(first) {
        return false;
    }
    words[at + 1..].iter().take(3).any(|word| {
        matches!(
            word.as_str(),
            "finished"
                | "complete"
                | "completed"
                | "done"
                | "succeeded"
                | "successful"
                | "passed"
                | "failed"
                | "aborted"
                | "ended"
                | "over"
        )
    })
}

/// Whether the last non-empty line is a shell prompt waiting for input: it ends in `$`, `❯`,
/// `➜`, `»`, or `#`, `%`, `>` where they cannot be a number's or an arrow's ("100%", "->").
pub fn prompt_line(text: &str) -> Option<&str> {
    let line = text.lines().rev().find(|line| !line.trim().is_empty())?;
    let trimmed = line.trim_end();
    let mut chars = trimmed.chars().rev();
    let last = chars.next()?;
    let before = chars.next();
    let is_prompt = match last {
        '$' | '❯' | '➜' | '»' => true,
        '#' => before.is_none_or(|c| matches!(c, ' ' | ']' | ':' | '~' | '/')),
        '%' => before.is_none_or(|c| !c.is_ascii_digit() && c != '.'),
        '>' => before.is_none_or(|c| !matches!(c, '-' | '=' | '<')),
        _ => false,
    };
    is_prompt.then_some(line.trim())
}

/// The latest number in `text` that the test is about, and its line: on the lines naming the
/// test's label if any line does, the number before its unit ("45%", "12 passed"), or after
/// it ("passed: 12").
pub fn latest_number<'t>(text: &'t str, test: &NumberTest) -> Option<(f64, &'t str)> {
    let labelled = |line: &str| {
        test.label
            .as_deref()
            .is_some_and(|label| words(line).iter().any(|word| word.starts_with(label)))
    };
    let any_labelled = text.lines().any(labelled);
    text.lines()
        .rev()
        .filter(|line| !any_labelled || labelled(line))
        .find_map(|line| number_in(line, test).map(|value| (value, line.trim())))
}

/// The last number of the line in the test's unit, or, for a test with a label and no unit
/// ("the temperature is above 80"), the number right after the label ("temperature: 85").
fn number_in(line: &str, test: &NumberTest) -> Option<f64> {
    let Some(unit) = test.unit.as_deref() else {
        let label = test.label.as_deref()?;
        let words = words(line);
        return words.iter().enumerate().rev().find_map(|(at, word)| {
            if !word.starts_with(label) {
                return None;
            }
            words[at + 1..]
                .iter()
                .find(|next| !matches!(next.as_str(), ":" | "=" | "is" | "at" | "now"))
                .and_then(|next| next.replace(',', "").parse::<f64>().ok())
        });
    };
    if unit == "%" {
        let mut found = None;
        let chars: Vec<char> = line.chars().collect();
        for (index, c) in chars.iter().enumerate() {
            if *c != '%' {
                continue;
            }
            // Back over an optional space, then the digits.
            let mut end = index;
            if end > 0 && chars[end - 1] == ' ' {
                end -= 1;
            }
            let mut start = end;
            while start > 0 && (chars[start - 1].is_ascii_digit() || chars[start - 1] == '.') {
                start -= 1;
            }
            let digits: String = chars[start..end].iter().collect();
            if let Ok(value) = digits.trim_matches('.').parse::<f64>() {
                found = Some(value);
            }
        }
        return found;
    }
    let words = words(line);
    let mut found = None;
    for (index, word) in words.iter().enumerate() {
        let Ok(value) = word.replace(',', "").parse::<f64>() else {
            continue;
        };
        let after = words.get(index + 1).map(String::as_str);
        let after_next = words.get(index + 2).map(String::as_str);
        let unit_follows = after.is_some_and(|w| w.starts_with(unit))
            || after_next.is_some_and(|w| w.starts_with(unit));
        let unit_leads = index >= 2
            && matches!(words[index - 1].as_str(), ":" | "=")
            && words[index - 2].starts_with(unit);
        if unit_follows || unit_leads {
            found = Some(value);
        }
    }
    found
}

#[cfg(test)]
mod tests;
