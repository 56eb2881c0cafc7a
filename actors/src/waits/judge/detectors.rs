//! The local detectors of text conditions: an error or failure line, a summary line that says
//! a command finished, the shell prompt back on the last line, a number that reached a
//! value. Each reads the output that arrived after the wait started and returns the line
//! that decided it. Pure text logic, kept small and exact: what these do not know goes to
//! the model.

use crate::waits::judge::reading::NumberTest;

/// Words that make a line an error line (lowercase, whole words).
const ERROR_WORDS: &[&str] = &[
    "error",
    "errors",
    "fail",
    "fails",
    "failed",
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
        !(counted_none_before || counted_none_after)
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
    if lower.starts_with("tests:") || lower.starts_with("test suites:") {
        return lower.contains("total") || lower.contains("passed") || lower.contains("failed");
    }
    SUMMARY_STARTS.iter().any(|start| lower.starts_with(start))
        || SUMMARY_CONTAINS.iter().any(|piece| lower.contains(piece))
}

/// The last summary line of `text`, and whether it reports a failure.
pub fn summary_line(text: &str) -> Option<(&str, bool)> {
    text.lines()
        .map(str::trim)
        .rfind(|line| is_summary_line(line))
        .map(|line| (line, is_error_line(line) || ends_in_failure_code(line)))
}

/// "exit code 2", "exited with status 1": a non-zero status in a summary.
fn ends_in_failure_code(line: &str) -> bool {
    let words = words(line);
    words.windows(2).any(|pair| {
        matches!(pair[0].as_str(), "code" | "status" | "exited")
            && pair[1].parse::<i64>().is_ok_and(|code| code != 0)
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

/// The last number of the line in the test's unit.
fn number_in(line: &str, test: &NumberTest) -> Option<f64> {
    let unit = test.unit.as_deref()?;
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
