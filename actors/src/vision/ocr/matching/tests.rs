//! The matcher against what tesseract 5 really read off xterm windows under Xvfb (recorded
//! with `--psm 4`, DejaVu Sans Mono and Liberation Mono, dark on light and light on dark;
//! the live version of this check is `tests/it/ocr.rs`).

use super::*;

/// (what tesseract read, the phrase, found)
const READ: &[(&str, &str, bool)] = &[
    // A slashed or dotted zero is read as @, © or ®; another digit never stands for it.
    (
        "Tests: @ failed, 12 passed, 12 total",
        "Tests: 0 failed",
        true,
    ),
    (
        "Tests: © failed, 12 passed, 12 total",
        "Tests: 0 failed",
        true,
    ),
    ("12 passed; ® failed; ® ignored", "0 failed", true),
    (
        "Tests: 3 failed, 97 passed, 100 total",
        "Tests: 0 failed",
        false,
    ),
    (
        "Tests: 3 failed, 97 passed, 100 total",
        "Tests: 3 failed",
        true,
    ),
    ("Tests: 3 failed, 97 passed, 100 total", "97 passed", true),
    ("Tests: 3 failed, 97 passed, 100 total", "7 passed", false),
    ("Tests: 3 failed, 97 passed, 100 total", "98 passed", false),
    // Percentages and numbers inside longer numbers.
    ("Download complete: 100% (1.2 GB)", "100%", true),
    ("Download complete: 100% (1.2 GB)", "10%", false),
    (
        "Download complete: 100% (1.2 GB)",
        "Download complete",
        true,
    ),
    ("progress 45% [=====> ]", "progress 45%", true),
    ("progress 45% [=====> ]", "progress 46%", false),
    ("Saved 8 files, @ errors, 11 warnings", "0 errors", true),
    ("Saved 8 files, @ errors, 11 warnings", "1 warnings", false),
    (
        "Saved 8 files, @ errors, 11 warnings",
        "saved 8 files",
        true,
    ),
    // A digit read as another digit is a miss, never a false match.
    ("pleaded 1/16 chunks, ETA 0:01:05", "1/10 chunks", false),
    ("build 5566 at 07:08:03", "at 07:08:09", false),
    ("build 5566 at 07:08:03", "at 07:08:03", true),
    // Signs and punctuation are exact too.
    ("ERROR: exit code 1 at Line 87", "exit code 1", true),
    ("ERROR: exit code 1 at Line 87", "exit code 0", false),
    ("ERROR: exit code 1 at Line 87", "ERROR:", true),
    ("v1.2.3 deployed to prod-02", "v1.2.3", true),
    ("v1.2.3 deployed to prod-02", "v1.2.4", false),
    ("v1.2.3 deployed to prod-02", "prod-02", true),
    ("v1.2.3 deployed to prod-02", "prod-03", false),
    // Letters may be misread or dropped, about one in six.
    ("Build #481 Finished in 5m 38s", "Build #481 finished", true),
    ("Build #481 Finished in 5m 38s", "finished in 5m 38s", true),
    // Sparse-text mode's cut lines carry too many slips: a miss, not a guess.
    ("Build #481 inished | in 5m 38s", "finished in", false),
    ("ass 11 Fail 00 skip 88", "pass 11", true),
    ("Download compIete 100%", "Download complete", true),
    ("Downloading 45% complete", "Download complete", false),
    (
        "tptoaded 1/10 chunks, ETA 0:01:05",
        "Uploaded 1/10 chunks",
        true,
    ),
    (
        "tptoaded 1/10 chunks, ETA 0:01:05",
        "Uploaded 1/11 chunks",
        false,
    ),
    ("OX", "OK", false),
    ("Press ok to go on", "OK", true),
];

#[test]
fn digits_signs_and_punctuation_are_exact_letters_are_forgiven() {
    let wrong: Vec<String> = READ
        .iter()
        .filter(|(read, phrase, found)| {
            find(&normalize(phrase), &normalize(read)).is_some() != *found
        })
        .map(|(read, phrase, found)| format!("{phrase:?} in {read:?}: expected found={found}"))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_span_read_is_reported() {
    assert_eq!(
        find(
            &normalize("Tests: 0 failed"),
            &normalize("x Tests: @ failed, 12")
        ),
        Some("tests: @ failed".into())
    );
    assert_eq!(
        find("download complete", "download compiete 100%"),
        Some("download compiete".into())
    );
    assert_eq!(normalize("  A\t\n b—c “q” "), "a b-c \"q\"");
    assert_eq!(allowed_errors(3), 0);
    assert_eq!(allowed_errors(4), 1);
    assert_eq!(allowed_errors(16), 3);
}
