//! The recorder's pure parts: the privacy rules and the segments.

use super::privacy::{Exclusions, REDACTED, redact};
use super::segment::{Segment, Stamp, command_at_prompt};

#[test]
fn api_keys_and_tokens_are_redacted_by_their_shape() {
    let cases = [
        "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234",
        "token ghp_0123456789abcdefghijABCDEFGHIJ0123 pushed",
        "aws AKIAIOSFODNN7EXAMPLE configured",
        "slack xoxb-123456789012-abcdefghij",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "key Zx81kP0qLm4Tn7Rv2Wb9Yc3Hd6Jf5Gs1Aa",
    ];
    for case in cases {
        let (redacted, count) = redact(case);
        assert!(count >= 1, "{case} → {redacted}");
        assert!(redacted.contains(REDACTED), "{redacted}");
    }
    let (redacted, _) = redact(cases[0]);
    assert_eq!(redacted, "export OPENAI_API_KEY=[redacted]");
}

#[test]
fn a_key_that_ocr_cut_into_pieces_is_redacted_whole() {
    // What tesseract read of "export OPENAI_API_KEY=sk-proj-Zq4abcdefghijklmnopqrstuvwx1234".
    let read = "narwhal setup: export OPENAI API _KEY=sk-proj -Zq4abcdefghij klmnopqrstuvwx1234";
    let (redacted, count) = redact(read);
    assert_eq!(
        redacted,
        "narwhal setup: export OPENAI API _KEY=[redacted] [redacted] [redacted]"
    );
    assert_eq!(count, 3);
    let (redacted, _) = redact("token sk-proj -Zq4abcdefghij klmn1234 done\nnext line");
    assert_eq!(
        redacted,
        "token [redacted] [redacted] [redacted] done\nnext line"
    );
    // A prefix alone, followed by words, is not a key.
    assert_eq!(redact("we use sk-learn for this").1, 0);
}

#[test]
fn labelled_values_and_card_numbers_are_redacted() {
    assert_eq!(redact("password: hunter2 ok").0, "password: [redacted] ok");
    assert_eq!(redact("db_password=swordfish").0, "db_password=[redacted]");
    assert_eq!(
        redact("card 4111 1111 1111 1111 exp 12/29").0,
        "card [redacted] exp 12/29"
    );
    assert_eq!(redact("pay 4111-1111-1111-1111.").0, "pay [redacted].");
    // Not a card: the Luhn check fails.
    assert_eq!(redact("id 4111 1111 1111 1112").1, 0);
}

#[test]
fn ordinary_text_is_left_alone() {
    for text in [
        "cargo test --workspace: 139 passed; 0 failed",
        "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
        "Deploy coursefolio v1.2.3 to production at 14:02:11",
        "call 0800 123 456 or see https://example.com/a/b?c=d",
        "the secret of the token game",
    ] {
        assert_eq!(redact(text), (text.to_owned(), 0), "{text}");
    }
}

#[test]
fn exclusions_match_application_or_title_in_any_case() {
    let exclusions = Exclusions::new(&["Signal".into()]);
    assert_eq!(
        exclusions.excluding("KeePassXC", "Passwords"),
        Some("keepass")
    );
    assert_eq!(
        exclusions.excluding("firefox", "New Tab — Mozilla Firefox Private Browsing"),
        Some("private browsing")
    );
    assert_eq!(exclusions.excluding("signal", "Chats"), Some("signal"));
    assert_eq!(exclusions.excluding("XTerm", "make test"), None);
}

#[test]
fn a_segment_keeps_new_lines_once_and_makes_steps_of_them() {
    let stamp = Stamp {
        task_id: "t-deploy".into(),
        step: Some(2),
    };
    let mut segment = Segment::open(0x42, "XTerm", "deploy", Some(stamp), 1_000);
    assert_eq!(
        segment.read("user@host:~/src$ make deploy\nDeploying coursefolio", 3_000),
        2
    );
    assert_eq!(
        segment.read("Deploying coursefolio\n  ", 5_000),
        0,
        "seen before"
    );
    assert!(segment.retitle("deploy: done", 7_000));
    segment.note("Step 2 done — pushed v1.2.3", 8_000);
    let document = segment.document();
    let steps: Vec<&str> = document.steps.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        steps,
        [
            "Opened XTerm — deploy",
            "Ran: make deploy",
            "Showed: Deploying coursefolio",
            "Title: deploy: done",
            "Note: Step 2 done — pushed v1.2.3"
        ]
    );
    assert_eq!(document.task_id.as_deref(), Some("t-deploy"));
    assert_eq!(document.step, Some(2));
    assert_eq!(document.app.as_deref(), Some("XTerm"));
    assert!(document.title.contains("deploy") && document.title.contains("deploy: done"));
    assert!(document.body.contains("Deploying coursefolio"));
    assert_eq!((document.start_ms, document.end_ms), (1_000, 7_000));
    assert!(
        document
            .summary
            .starts_with("XTerm — deploy: done: 5 steps over 6 s"),
        "{}",
        document.summary
    );
}

#[test]
fn a_segment_where_a_secret_was_read_lists_no_keyframes() {
    let mut segment = Segment::open(1, "XTerm", "shell", None, 0);
    segment.frames.push(recall::Frame {
        offset_ms: 0,
        path: "/tmp/x.jpg".into(),
        bytes: 10,
    });
    assert_eq!(segment.document().frames.len(), 1);
    segment.secret_seen = true;
    assert!(segment.document().frames.is_empty());
}

#[test]
fn prompts_are_told_from_other_lines() {
    assert_eq!(
        command_at_prompt("user@host:~/src$ cargo test"),
        Some("cargo test")
    );
    assert_eq!(command_at_prompt("$ ls -la"), Some("ls -la"));
    assert_eq!(
        command_at_prompt("root@box:/# apt-get update"),
        Some("apt-get update")
    );
    assert_eq!(command_at_prompt("Total: $ 42.00"), None);
    assert_eq!(command_at_prompt("error: expected `;` # see docs"), None);
    assert_eq!(command_at_prompt("user@host:~$ "), None);
}

#[test]
fn keyframes_stay_within_their_budget_oldest_segment_first_and_private() {
    use std::os::unix::fs::PermissionsExt;

    use super::keyframes::Keyframes;
    use crate::sight::content::Frame;

    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("recall-frames");
    // A noisy frame, so the JPEG has some size.
    let pixels: Vec<u8> = (0..320 * 200 * 4)
        .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let frame = Frame::new(320, 200, pixels);
    let mut keyframes = Keyframes::open(&frames, u64::MAX).unwrap();
    let one = keyframes.write("scr-0000000001000-1", 0, &frame).unwrap();
    assert!(one.bytes > 1_000, "{} bytes", one.bytes);
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(std::path::Path::new(&one.path)), 0o600);
    assert_eq!(mode(&frames), 0o700);
    assert_eq!(mode(&frames.join("scr-0000000001000-1")), 0o700);

    // Reopened with room for about two pictures: the third evicts the oldest segment's.
    drop(keyframes);
    let mut keyframes = Keyframes::open(&frames, one.bytes * 5 / 2).unwrap();
    assert_eq!(
        keyframes.used_bytes(),
        one.bytes,
        "what is there is counted"
    );
    keyframes.write("scr-0000000002000-2", 0, &frame).unwrap();
    keyframes.write("scr-0000000003000-3", 0, &frame).unwrap();
    assert!(
        !frames.join("scr-0000000001000-1").exists(),
        "the oldest went"
    );
    assert!(frames.join("scr-0000000002000-2").exists());
    assert!(frames.join("scr-0000000003000-3").exists());
    assert!(keyframes.used_bytes() <= one.bytes * 5 / 2);

    // A segment where a secret was read loses its pictures.
    keyframes.remove_segment("scr-0000000003000-3");
    assert!(!frames.join("scr-0000000003000-3").exists());
}
