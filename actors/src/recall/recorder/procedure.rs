//! A closed screen segment's procedure, from a model (opt-in: `[recall] procedures =
//! "model"` with a `[vision]` model). Only what the index already keeps of the segment is
//! sent — its keyframes (none when a secret was read in it) and the steps and text read off
//! it, all after redaction — and the model answers a one-line summary and the user's actions
//! as steps, each at its second into the segment. The agent's own notes stay steps. Without
//! a model, or when it fails, the segment keeps the steps built from what changed on screen.
//! The model is asked in a task of its own ([`ask`]), which answers the Recorder actor.

use std::sync::Arc;

use ractor::ActorRef;
use recall::{Document, Step};
use serde_json::Value;

use crate::recall::recorder::RecorderMsg;
use crate::recall::recorder::privacy::redact;
use crate::recall::recorder::segment::NOTE;
use crate::vision::backend::{Backend, EncodedImage, Prompt};
use crate::vision::prompt::{objects_with, quote};
use crate::words::shorten;

/// The model's role and the answer asked for.
pub const SYSTEM_PROMPT: &str = "You turn a recording of one application window into the procedure the user \
followed, for an AI agent that will later repeat or explain it. You are given pictures of the window at \
moments of the recording and what was read off it, with the second each thing was seen. \
Reply with one JSON object and nothing else: {\"summary\": \"one line on what the user did and to what end\", \
\"steps\": [{\"at_s\": second into the recording, \"action\": \"what the user did, as an imperative past \
sentence naming what they clicked, typed or opened, e.g. Clicked 'New SSH key'\"}]}. \
Describe only what the pictures and text show; leave out what you cannot see.";

/// Keyframes sent at most (spread over the segment).
const MAX_PICTURES: usize = 4;
/// Characters of the text read off the window sent at most (its start).
const MAX_TEXT_CHARS: usize = 6_000;
/// Steps read from an answer at most.
const MAX_STEPS: usize = 40;
/// A step's text at most.
const STEP_CHARS: usize = 160;
/// Room for the answer.
const ANSWER_TOKENS: u32 = 2_000;

/// What the model made of a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Procedure {
    pub summary: String,
    /// Each action at its offset into the segment, in milliseconds.
    pub steps: Vec<(u64, String)>,
}

/// A closed segment's procedure, and what the model reported it cost.
pub struct Described {
    pub procedure: Procedure,
    pub tokens: u64,
}

/// Asks the model for the procedure of a closed segment's `document`, in a task of its own;
/// the answer comes back as [`RecorderMsg::Described`].
pub fn ask(myself: ActorRef<RecorderMsg>, model: Arc<dyn Backend>, document: Document) {
    tokio::spawn(async move {
        let key = document.key.clone();
        let outcome = async {
            let shown = document.clone();
            let pictures = tokio::task::spawn_blocking(move || pictures(&shown))
                .await
                .unwrap_or_default();
            let asked = model
                .complete(prompt(&document, pictures))
                .ok_or_else(|| format!("{} cannot describe pictures", model.describe()))?;
            let said = asked.await.map_err(|error| error.message)?;
            Ok(Described {
                procedure: read(&said.text)?,
                tokens: said.usage.input_tokens + said.usage.output_tokens,
            })
        }
        .await;
        let _ = myself.cast(RecorderMsg::Described(key, outcome));
    });
}

/// The question about a closed segment's document and the keyframes read for it.
pub fn prompt(document: &Document, pictures: Vec<EncodedImage>) -> Prompt {
    let seen: Vec<String> = (document.steps.iter())
        .map(|step| {
            let second = step.at_ms.saturating_sub(document.start_ms) / 1000;
            format!("[{second} s] {}", step.text)
        })
        .collect();
    let body: String = document.body.chars().take(MAX_TEXT_CHARS).collect();
    let shown = match pictures.len() {
        0 => "No picture of it is kept.".to_owned(),
        n => format!("The {n} attached pictures show it in time order."),
    };
    let text = format!(
        "The window: {} (application {}), recorded for {} s. {shown}\n\
         What changed on it, with the second it was seen:\n{}\n\
         The text read off it (by OCR, secrets removed), between the markers:\n<<<TEXT\n{body}\nTEXT>>>\n\
         Answer with only the JSON object {{\"summary\": \"…\", \"steps\": [{{\"at_s\": …, \"action\": \"…\"}}]}}.",
        document.title,
        document.app.as_deref().unwrap_or("unknown"),
        document.end_ms.saturating_sub(document.start_ms) / 1000,
        seen.join("\n"),
    );
    Prompt {
        system: SYSTEM_PROMPT.to_owned(),
        text,
        images: pictures,
        answer_tokens: ANSWER_TOKENS,
    }
}

/// Up to [`MAX_PICTURES`] of the document's keyframes, spread over it, read from disk (a
/// file gone or unreadable is left out). Blocking.
pub fn pictures(document: &Document) -> Vec<EncodedImage> {
    let frames = &document.frames;
    let count = frames.len().min(MAX_PICTURES);
    (0..count)
        .map(|i| &frames[i * frames.len() / count])
        .filter_map(|frame| std::fs::read(&frame.path).ok())
        .filter_map(|bytes| {
            let (width, height) = jpeg_size(&bytes)?;
            Some(EncodedImage {
                bytes,
                media_type: "image/jpeg",
                width,
                height,
            })
        })
        .collect()
}

/// The procedure in a model's answer, or why there is none.
pub fn read(answer: &str) -> Result<Procedure, String> {
    let objects = objects_with(answer, &["summary", "steps"]);
    let Some(object) = objects.first() else {
        return Err(format!(
            "the model's answer has no {{\"summary\", \"steps\"}} object: {}",
            quote(answer)
        ));
    };
    let summary = match object.get("summary") {
        Some(Value::String(summary)) if !summary.trim().is_empty() => redact(summary.trim()).0,
        _ => {
            return Err(format!(
                "the model's answer has no \"summary\" text: {}",
                quote(answer)
            ));
        }
    };
    let Some(Value::Array(listed)) = object.get("steps") else {
        return Err(format!(
            "the model's answer has no \"steps\" list: {}",
            quote(answer)
        ));
    };
    let steps = (listed.iter())
        .filter_map(|step| {
            let action = step.get("action")?.as_str()?.trim();
            let at_s = step.get("at_s").and_then(Value::as_f64).unwrap_or(0.0);
            (!action.is_empty()).then(|| ((at_s.max(0.0) * 1000.0) as u64, redact(action).0))
        })
        .take(MAX_STEPS)
        .collect();
    Ok(Procedure { summary, steps })
}

/// The document with the model's summary and actions, each at its time within the segment;
/// the agent's notes stay among them.
pub fn apply(document: &mut Document, procedure: Procedure) {
    let (start, end) = (document.start_ms, document.end_ms.max(document.start_ms));
    let mut steps: Vec<Step> = (procedure.steps.into_iter())
        .map(|(offset_ms, action)| Step {
            at_ms: (start + offset_ms).min(end),
            text: shorten(&action, STEP_CHARS),
        })
        .collect();
    steps.extend(
        (document.steps.iter())
            .filter(|step| step.text.starts_with(NOTE))
            .cloned(),
    );
    steps.sort_by_key(|step| step.at_ms);
    if !steps.is_empty() {
        document.steps = steps;
    }
    document.summary = shorten(&procedure.summary, STEP_CHARS * 2);
}

/// A JPEG's width and height, from its start-of-frame marker.
fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    while at + 9 < bytes.len() {
        if bytes[at] != 0xFF {
            return None;
        }
        let marker = bytes[at + 1];
        let length = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
        // SOF0–SOF15, but not DHT (C4), JPG (C8) or DAC (CC).
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let height = u16::from_be_bytes([bytes[at + 5], bytes[at + 6]]);
            let width = u16::from_be_bytes([bytes[at + 7], bytes[at + 8]]);
            return Some((u32::from(width), u32::from(height)));
        }
        at += 2 + length;
    }
    None
}

#[cfg(test)]
mod tests {
    use recall::{Frame, Source};

    use super::*;

    fn segment() -> Document {
        Document {
            key: "screen:scr-1".into(),
            source: Source::Screen,
            task_id: Some("t1".into()),
            title: "firefox — GitHub · SSH keys".into(),
            body: "SSH keys\nNew SSH key\nKey\nAdd SSH key".into(),
            start_ms: 10_000,
            end_ms: 70_000,
            steps: vec![
                Step {
                    at_ms: 10_000,
                    text: "Opened firefox — GitHub".into(),
                },
                Step {
                    at_ms: 30_000,
                    text: "Showed: New SSH key".into(),
                },
                Step {
                    at_ms: 40_000,
                    text: "Note: adding the deploy key".into(),
                },
            ],
            summary: "firefox — GitHub: 3 steps over 60 s".into(),
            app: Some("firefox".into()),
            step: Some(2),
            frames: Vec::new(),
        }
    }

    #[test]
    fn the_prompt_carries_what_was_kept_with_its_seconds_and_the_format() {
        let prompt = prompt(&segment(), Vec::new());
        assert!(
            prompt.text.contains("[20 s] Showed: New SSH key"),
            "{}",
            prompt.text
        );
        assert!(prompt.text.contains("Add SSH key"));
        assert!(prompt.text.contains("No picture of it is kept"));
        assert!(prompt.system.contains("\"steps\""));
    }

    #[test]
    fn an_answer_becomes_the_summary_and_the_steps_and_the_notes_stay() {
        let said = "Here it is:\n```json\n{\"summary\": \"Added a deploy key on GitHub\", \"steps\": [\
            {\"at_s\": 5, \"action\": \"Opened github.com/settings/keys\"},\
            {\"at_s\": 21, \"action\": \"Clicked 'New SSH key'\"},\
            {\"at_s\": 500, \"action\": \"Clicked 'Add SSH key'\"},\
            {\"at_s\": 7}]}\n```";
        let mut document = segment();
        apply(&mut document, read(said).unwrap());
        assert_eq!(document.summary, "Added a deploy key on GitHub");
        let steps: Vec<(u64, &str)> = (document.steps.iter())
            .map(|step| (step.at_ms, step.text.as_str()))
            .collect();
        assert_eq!(
            steps,
            [
                (15_000, "Opened github.com/settings/keys"),
                (31_000, "Clicked 'New SSH key'"),
                (40_000, "Note: adding the deploy key"),
                // Past the segment's end: at its end.
                (70_000, "Clicked 'Add SSH key'"),
            ]
        );
    }

    #[test]
    fn an_answer_without_the_object_is_a_failure_that_quotes_it() {
        let error = read("I could not see anything useful.").unwrap_err();
        assert!(
            error.contains("no {\"summary\", \"steps\"} object"),
            "{error}"
        );
        assert!(error.contains("I could not see"), "{error}");
        assert!(
            read("{\"summary\": \"x\"}")
                .unwrap_err()
                .contains("\"steps\" list")
        );
        assert!(
            read("{\"steps\": []}")
                .unwrap_err()
                .contains("\"summary\" text")
        );
    }

    #[test]
    fn a_secret_the_model_repeats_is_redacted() {
        let said = "{\"summary\": \"Set the token ghp_abcdefghijklmnopqrstuvwxyz0123456789\", \"steps\": []}";
        let procedure = read(said).unwrap();
        assert!(
            !procedure.summary.contains("ghp_abcdef"),
            "{}",
            procedure.summary
        );
    }

    #[test]
    fn keyframes_are_read_spread_over_the_segment_with_their_size() {
        let dir = tempfile::tempdir().unwrap();
        let frame = crate::sight::content::Frame::new(40, 30, vec![90u8; 40 * 30 * 4]);
        let settings = crate::vision::image::ImageSettings {
            max_px: 1280,
            format: crate::vision::image::ImageFormat::Jpeg { quality: 70 },
        };
        let jpeg = crate::vision::image::encode_frame(&frame, settings).unwrap();
        let mut document = segment();
        for i in 0..8u64 {
            let path = dir.path().join(format!("{i}.jpg"));
            std::fs::write(&path, &jpeg.bytes).unwrap();
            document.frames.push(Frame {
                offset_ms: i * 1000,
                path: path.display().to_string(),
                bytes: jpeg.bytes.len() as u64,
            });
        }
        std::fs::remove_file(dir.path().join("2.jpg")).unwrap();
        let read = pictures(&document);
        // 0, 2 (gone), 4 and 6 were chosen.
        assert_eq!(read.len(), 3);
        assert_eq!((read[0].width, read[0].height), (40, 30));
        assert_eq!(read[0].media_type, "image/jpeg");
    }
}
