//! The documents' console blocks, replayed: each `$ command` of a ```console block in the
//! README and in `docs/clients.md` runs through a shell against a real daemon, with `lookout`
//! the binary under test, and must print what the block says it prints — ids and times
//! masked, and `…` standing for whatever the block leaves out. A quick start that no longer
//! pastes, or a sample that drifted from what the binary prints, fails here.

use std::path::Path;
use std::process::Command;

use crate::support::{BINARY, DaemonProcess};

/// The documents whose console blocks are replayed. A block is replayed whole, in one shell,
/// so a variable set by one command (`task=$(… --print-id)`) reaches the next.
const DOCUMENTS: [&str; 2] = ["README.md", "docs/clients.md"];

#[test]
fn the_console_blocks_of_the_documents_print_what_they_say() {
    let mut replayed = 0;
    let mut wrong = Vec::new();
    for document in DOCUMENTS {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(document)).unwrap();
        for (number, block) in console_blocks(&text).into_iter().enumerate() {
            let steps = steps_of(&block);
            assert!(
                !steps.is_empty(),
                "{document}: console block {number} has no `$ ` command"
            );
            let outputs = replay(&steps);
            for ((command, expected), actual) in steps.iter().zip(&outputs) {
                replayed += 1;
                if !matches_sample(&mask(expected), &mask(actual)) {
                    wrong.push(format!(
                        "{document}, block {number}: $ {command}\n--- the document says:\n{expected}\n--- the binary prints:\n{actual}"
                    ));
                }
            }
        }
    }
    assert!(
        replayed >= 5,
        "only {replayed} commands replayed: are the blocks still there?"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// The text of each ```console block.
fn console_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```console") => current = Some(Vec::new()),
            (Some(lines), "```") => {
                blocks.push(lines.join("\n"));
                current = None;
            }
            (Some(lines), _) => lines.push(line),
            (None, _) => {}
        }
    }
    blocks
}

/// A block's commands (the text after `$ `, a trailing `# comment` kept for the shell) with
/// the output the block shows under each, trailing blank lines dropped.
fn steps_of(block: &str) -> Vec<(String, String)> {
    let mut steps: Vec<(String, Vec<&str>)> = Vec::new();
    for line in block.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push((command.to_owned(), Vec::new()));
        } else if let Some((_, output)) = steps.last_mut() {
            output.push(line);
        }
    }
    steps
        .into_iter()
        .map(|(command, output)| (command, output.join("\n").trim_end().to_owned()))
        .collect()
}

/// Runs a block's commands in one shell in a folder of their own, with `lookout` on `PATH`
/// being the binary under test and a daemon of its own behind `LOOKOUT_SOCKET`, and returns
/// what each printed (stdout and stderr, as a terminal shows them).
fn replay(steps: &[(String, String)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(BINARY, bin.join("lookout")).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    const MARK: &str = "<<<lookout-console-step>>>";
    let script: String = steps
        .iter()
        .map(|(command, _)| format!("printf '%s\\n' '{MARK}'\n{command}\n"))
        .collect();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{script}"))
        .current_dir(&work)
        .env_clear()
        .env("PATH", path)
        .env("HOME", dir.path())
        .env("LOOKOUT_SOCKET", &daemon.socket)
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    let outputs: Vec<String> = printed
        .split(&format!("{MARK}\n"))
        .skip(1)
        .map(|output| output.trim_end().to_owned())
        .collect();
    assert_eq!(
        outputs.len(),
        steps.len(),
        "the block stopped early:\n{printed}"
    );
    outputs
}

/// Ids (`t-sbeuf8`, `w-4hx8za`, `s-tmj9iz`, `e-000123`) and UTC times as placeholders, so a
/// sample matches any run.
fn mask(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut masked = String::new();
    let mut index = 0;
    while index < chars.len() {
        let boundary = index == 0 || !chars[index - 1].is_ascii_alphanumeric();
        if boundary && let Some(length) = id_at(&chars[index..]) {
            masked.push_str("<id>");
            index += length;
        } else if boundary && let Some(length) = time_at(&chars[index..]) {
            masked.push_str("<time>");
            index += length;
        } else {
            masked.push(chars[index]);
            index += 1;
        }
    }
    masked
}

/// The length of the id starting `text`: a kind letter, `-` and six base-36 characters (an
/// event's digits may be more), ending at a word edge.
fn id_at(text: &[char]) -> Option<usize> {
    let [kind, '-', ..] = text else { return None };
    if !matches!(kind, 't' | 'w' | 's' | 'e') {
        return None;
    }
    let body = text[2..]
        .iter()
        .take_while(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
        .count();
    let at_edge = text
        .get(2 + body)
        .is_none_or(|c| !c.is_ascii_alphanumeric());
    (body == 6 && at_edge).then_some(2 + body)
}

/// The length of the UTC time starting `text`: `2026-11-22T02:38:35Z`, fractions allowed.
fn time_at(text: &[char]) -> Option<usize> {
    const SHAPE: &str = "dddd-dd-ddTdd:dd:dd";
    if text.len() < SHAPE.len() + 1 {
        return None;
    }
    let shaped = SHAPE.chars().zip(text).all(|(shape, c)| match shape {
        'd' => c.is_ascii_digit(),
        literal => literal == *c,
    });
    if !shaped {
        return None;
    }
    let mut length = SHAPE.len();
    if text[length] == '.' {
        length += 1 + text[length + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
    }
    (text.get(length) == Some(&'Z')).then_some(length + 1)
}

/// Whether `actual` is what `sample` shows, each `…` of the sample standing for any text.
fn matches_sample(sample: &str, actual: &str) -> bool {
    let pieces: Vec<&str> = sample.split('…').collect();
    let [first, middle @ .., last] = &pieces[..] else {
        return sample == actual;
    };
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    for piece in middle {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[test]
fn the_sample_reader_masks_ids_and_times_and_reads_elisions() {
    assert_eq!(
        mask("Deploy (t-sbeuf8, active) at 2026-11-22T02:38:35.120Z [lookout e-000123] t-sbeuf8x"),
        "Deploy (<id>, active) at <time> [lookout <id>] t-sbeuf8x"
    );
    assert!(matches_sample(
        "{\n  \"a\": 1,\n  …\n  \"z\": 2\n}",
        "{\n  \"a\": 1,\n  \"b\": [\n  ],\n  \"z\": 2\n}"
    ));
    assert!(!matches_sample("a … c", "a b d"));
    assert!(matches_sample("exact", "exact"));
    assert!(!matches_sample("exact", "exactly"));
    let steps = steps_of("$ one\nout 1\n\n$ two # says nothing\n");
    assert_eq!(
        steps,
        [
            ("one".to_owned(), "out 1".to_owned()),
            ("two # says nothing".to_owned(), String::new())
        ]
    );
}
