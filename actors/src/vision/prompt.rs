//! What the models are asked, and how their answers are read.
//!
//! The prompt asks for exactly `{"met": true|false, "observation": "…"}`. The parser takes
//! that object wherever it sits in the answer (in a code fence, after some prose) and
//! nothing else: no object, two objects that disagree, or `met` that is not a boolean is a
//! judge failure, never a silent "not met". Pure functions, no I/O.

use std::time::Duration;

use serde_json::Value;

use crate::vision::backend::{Material, Question};

/// Text targets: at most this many characters of the end of the text go to the model.
pub const MAX_TEXT_CHARS: usize = 12_000;
/// The longest answer read; anything longer is not an answer to this prompt.
const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// How much of a bad answer an error message quotes.
const QUOTED_ANSWER_CHARS: usize = 200;

/// The system prompt: the role and the answer format.
pub const SYSTEM_PROMPT: &str = "You watch a screen or a terminal for an AI agent that is waiting for something to \
happen. You are shown what the watched target looks like now and the condition the agent is waiting for. \
Decide whether the condition holds now, judging only from what is shown. \
Reply with one JSON object and nothing else: {\"met\": true or false, \"observation\": \"one short sentence \
on what you see that decides it, e.g. the progress bar is at 85%\"}.";

/// The user turn's text for a question (the image, if any, goes beside it).
pub fn user_text(question: &Question) -> String {
    let elapsed = human_duration(question.elapsed);
    let condition = question.condition.trim();
    let looking = match &*question.material {
        Material::Image(image) => format!(
            "The attached image is the current content of {} ({}x{} pixels as sent).",
            question.target, image.width, image.height
        ),
        Material::Text { text, exit } => {
            let shown = tail_chars(text, MAX_TEXT_CHARS);
            let cut = if shown.len() < text.len() {
                " (its last part)"
            } else {
                ""
            };
            let ended = match exit {
                Some(exit) => format!("\n{exit}."),
                None => "\nThe process is still running.".to_owned(),
            };
            format!(
                "The output of {} since the agent started waiting{cut} is between the markers:\n<<<TEXT\n{shown}\nTEXT>>>{ended}",
                question.target
            )
        }
        Material::Absent { description } => format!(
            "{} cannot be seen right now: {description}.",
            question.target
        ),
    };
    format!(
        "{looking}\nThe agent has been waiting for {elapsed}. It wants to be woken when: {condition}\n\
         Does that hold now? Answer with only the JSON object {{\"met\": …, \"observation\": \"…\"}}."
    )
}

/// "45 s", "12 min 5 s", "2 h 3 min".
pub fn human_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min {} s", seconds / 60, seconds % 60),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}

fn tail_chars(text: &str, max: usize) -> &str {
    match text.char_indices().rev().nth(max.saturating_sub(1)) {
        Some((start, _)) if max > 0 => &text[start..],
        _ => text,
    }
}

/// The verdict in a model's answer: `(met, observation)`, or why there is none.
pub fn parse_verdict(answer: &str) -> Result<(bool, String), String> {
    if answer.len() > MAX_ANSWER_BYTES {
        return Err(format!(
            "the model's answer is {} bytes long; lookout asked for a short {{\"met\", \"observation\"}} object",
            answer.len()
        ));
    }
    let mut verdicts = objects_with(answer, &["met", "observation"])
        .iter()
        .map(|object| read_verdict(object, answer))
        .collect::<Result<Vec<_>, _>>()?;
    verdicts.dedup();
    match verdicts.len() {
        1 => Ok(verdicts.remove(0)),
        0 => Err(format!(
            "the model's answer has no {{\"met\": …, \"observation\": …}} object: {}",
            quote(answer)
        )),
        _ => Err(format!(
            "the model's answer has {} different verdicts: {}",
            verdicts.len(),
            quote(answer)
        )),
    }
}

/// The JSON objects in a model's answer that hold any of `keys`, wherever they sit (in a
/// code fence, after some prose, inside a wrapper object), in order.
pub fn objects_with(answer: &str, keys: &[&str]) -> Vec<serde_json::Map<String, Value>> {
    let mut objects = Vec::new();
    let mut offset = 0;
    while let Some(found) = answer[offset..].find('{') {
        let start = offset + found;
        let mut stream = serde_json::Deserializer::from_str(&answer[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(object))) if keys.iter().any(|key| object.contains_key(*key)) => {
                offset = start + stream.byte_offset();
                objects.push(object);
            }
            // Not one (prose in braces, a wrapper object): look inside it too.
            _ => offset = start + 1,
        }
    }
    objects
}

fn read_verdict(
    object: &serde_json::Map<String, Value>,
    answer: &str,
) -> Result<(bool, String), String> {
    let met = match object.get("met") {
        Some(Value::Bool(met)) => *met,
        Some(other) => {
            return Err(format!(
                "the model's answer has \"met\": {other}, not true or false: {}",
                quote(answer)
            ));
        }
        None => {
            return Err(format!(
                "the model's answer has no \"met\" key: {}",
                quote(answer)
            ));
        }
    };
    let observation = match object.get("observation") {
        Some(Value::String(text)) => text.trim().to_owned(),
        Some(other) => {
            return Err(format!(
                "the model's answer has \"observation\": {other}, not a string: {}",
                quote(answer)
            ));
        }
        None => {
            return Err(format!(
                "the model's answer has no \"observation\" key: {}",
                quote(answer)
            ));
        }
    };
    Ok((met, observation))
}

/// The start of a bad answer, on one line, for an error message.
pub fn quote(answer: &str) -> String {
    let flat: String = answer.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.is_empty() {
        return "(empty)".to_owned();
    }
    let mut quoted: String = flat.chars().take(QUOTED_ANSWER_CHARS).collect();
    if quoted.len() < flat.len() {
        quoted.push('…');
    }
    format!("\"{quoted}\"")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::sight::content::ProcessExit;
    use crate::vision::backend::EncodedImage;

    #[test]
    fn a_bare_object_is_read() {
        assert_eq!(
            parse_verdict(r#"{"met": true, "observation": "the download finished"}"#),
            Ok((true, "the download finished".into()))
        );
    }

    #[test]
    fn fences_and_prose_around_the_object_are_tolerated() {
        let fenced = "```json\n{\"met\": false, \"observation\": \"progress bar at 40%\"}\n```";
        assert_eq!(
            parse_verdict(fenced),
            Ok((false, "progress bar at 40%".into()))
        );
        let prose = "Looking at the screenshot, the dialog is gone.\n\nAnswer: {\"observation\": \"no dialog {yet}\", \"met\": false} Hope that helps!";
        assert_eq!(parse_verdict(prose), Ok((false, "no dialog {yet}".into())));
        let braces_in_prose = "I see {a spinner}. {\"met\": true, \"observation\": \"done\"}";
        assert_eq!(parse_verdict(braces_in_prose), Ok((true, "done".into())));
        let wrapped = r#"{"result": {"met": true, "observation": "ok"}}"#;
        assert_eq!(parse_verdict(wrapped), Ok((true, "ok".into())));
        let repeated =
            r#"{"met": true, "observation": "ok"} so: {"met": true, "observation": "ok"}"#;
        assert_eq!(parse_verdict(repeated), Ok((true, "ok".into())));
        let extra = r#"{"met": true, "observation": "ok", "confidence": 0.9}"#;
        assert_eq!(parse_verdict(extra), Ok((true, "ok".into())));
    }

    #[test]
    fn missing_keys_are_failures_that_say_which() {
        let error = parse_verdict(r#"{"observation": "a dialog"}"#).unwrap_err();
        assert!(error.contains("no \"met\" key"), "{error}");
        let error = parse_verdict(r#"{"met": true}"#).unwrap_err();
        assert!(error.contains("no \"observation\" key"), "{error}");
    }

    #[test]
    fn wrong_types_are_failures_never_a_silent_not_met() {
        for (answer, words) in [
            (
                r#"{"met": "false", "observation": "x"}"#,
                "\"met\": \"false\", not true or false",
            ),
            (r#"{"met": 0, "observation": "x"}"#, "\"met\": 0"),
            (r#"{"met": null, "observation": "x"}"#, "\"met\": null"),
            (r#"{"met": true, "observation": 3}"#, "not a string"),
        ] {
            let error = parse_verdict(answer).unwrap_err();
            assert!(error.contains(words), "{answer}: {error}");
        }
    }

    #[test]
    fn garbage_and_disagreement_are_failures() {
        for answer in [
            "",
            "yes",
            "The download has finished.",
            "{met: true, observation: 'done'}",
            "{\"met\": true, \"observation\": \"cut off",
            "[true, \"done\"]",
        ] {
            let error = parse_verdict(answer).unwrap_err();
            assert!(error.contains("no {\"met\""), "{answer:?}: {error}");
        }
        let two =
            r#"{"met": true, "observation": "a"} or maybe {"met": false, "observation": "b"}"#;
        assert!(
            parse_verdict(two)
                .unwrap_err()
                .contains("2 different verdicts")
        );
        let long = "x".repeat(MAX_ANSWER_BYTES + 1);
        assert!(parse_verdict(&long).unwrap_err().contains("bytes long"));
        let quoted = parse_verdict(&"blah ".repeat(100)).unwrap_err();
        assert!(quoted.ends_with("…\""), "{quoted}");
    }

    fn question(material: Material) -> Question {
        Question {
            condition: "the download finishes or an error dialog appears".into(),
            target: "window:Firefox".into(),
            elapsed: Duration::from_secs(125),
            material: Arc::new(material),
        }
    }

    #[test]
    fn the_prompt_carries_the_condition_the_elapsed_time_and_the_format() {
        let text = user_text(&question(Material::Image(EncodedImage {
            bytes: Vec::new(),
            media_type: "image/png",
            width: 1280,
            height: 720,
        })));
        assert!(text.contains("the download finishes or an error dialog appears"));
        assert!(text.contains("2 min 5 s"));
        assert!(text.contains("window:Firefox (1280x720 pixels as sent)"));
        assert!(text.contains("{\"met\": …, \"observation\": \"…\"}"));
        assert!(SYSTEM_PROMPT.contains("{\"met\": true or false, \"observation\""));
    }

    #[test]
    fn text_prompts_show_the_end_of_the_text_and_the_exit() {
        let long = format!("{}\nBUILD PASSED", "line\n".repeat(5000));
        let text = user_text(&question(Material::Text {
            text: long.into(),
            exit: Some(ProcessExit { code: Some(0) }),
        }));
        assert!(text.contains("(its last part)"));
        assert!(text.contains("BUILD PASSED\nTEXT>>>"));
        assert!(text.contains("the process exited with status 0"));
        assert!(text.len() < MAX_TEXT_CHARS + 1000);
        let absent = user_text(&question(Material::Absent {
            description: "the window was closed".into(),
        }));
        assert!(absent.contains("cannot be seen right now: the window was closed"));
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(Duration::from_secs(45)), "45 s");
        assert_eq!(human_duration(Duration::from_secs(725)), "12 min 5 s");
        assert_eq!(human_duration(Duration::from_secs(7380)), "2 h 3 min");
        assert_eq!(tail_chars("héllo", 3), "llo");
        assert_eq!(tail_chars("hi", 3), "hi");
    }
}
