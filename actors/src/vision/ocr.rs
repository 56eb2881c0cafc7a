//! `OcrJudge`: tesseract reads the frame; the phrases quoted in the condition are looked
//! for in what it read, fuzzily. Local, no key, no model.
//!
//! `wake_when: 'the dialog says "Download complete"'` is met once tesseract reads
//! "Download complete" (or "Download compIete": letter slips are tolerated up to about one
//! letter in six; digits, signs and punctuation must be read exactly, see [`matching`]).
//! The condition is read like any other (`condition`): its alternatives made of
//! quoted phrases are judged.
//! Text targets skip tesseract and match the text itself. tesseract runs through the
//! `Spawner`, like every program lookout starts.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::BoxFuture;
use crate::condition::{Reach, judge::Usage};
use crate::condition::{Reading, Test};
use crate::process::{RunRequest, Spawner};
use crate::sight::content::Content;
use crate::vision::backend::{Answer, AttemptError, Backend, Cost, Material, Question};
use crate::vision::image::encode_grey;

mod matching;

/// The most text kept from one tesseract run.
const MAX_OCR_TEXT_BYTES: usize = 1024 * 1024;
/// How much of the text read an observation quotes when nothing matched.
const QUOTED_TEXT_CHARS: usize = 160;

/// What to tell an agent whose condition has nothing to look for.
pub const QUOTE_HINT: &str = "the ocr backend looks for quoted text: put the words to wait for in quotes, \
e.g. wake_when: 'the dialog says \"Download complete\"'";

#[derive(Debug)]
pub struct OcrJudge {
    program: String,
    spawner: Arc<dyn Spawner>,
    timeout: Duration,
}

impl OcrJudge {
    pub fn new(program: String, spawner: Arc<dyn Spawner>, timeout: Duration) -> Self {
        Self {
            program,
            spawner,
            timeout,
        }
    }

    /// The argv after the program: the PNG on stdin, the text on stdout, one column of
    /// lines of varying sizes (`--psm 4`: on real terminal windows it keeps each line whole,
    /// where sparse-text mode cut "Tests: 3 failed" into pieces read out of order).
    fn args() -> Vec<String> {
        ["stdin", "stdout", "--psm", "4"].map(String::from).to_vec()
    }
}

impl Backend for OcrJudge {
    fn reach(&self) -> Reach {
        Reach::Phrases
    }

    fn describe(&self) -> String {
        format!(
            "ocr ({} on the frame, quoted phrases matched fuzzily)",
            self.program
        )
    }

    fn cost(&self, content: &Content) -> Cost {
        match content {
            Content::Frame(_) => Cost::Local,
            Content::Text { .. } | Content::Absent { .. } => Cost::Free,
        }
    }

    fn prepare(&self, content: &Content) -> Result<Material, String> {
        Ok(match content {
            Content::Frame(frame) => Material::Image(encode_grey(frame)?),
            Content::Text { text, exit, .. } => Material::Text {
                text: text.clone(),
                exit: *exit,
            },
            Content::Absent { description } => Material::Absent {
                description: description.clone(),
            },
        })
    }

    fn ask(&self, question: Question) -> BoxFuture<Result<Answer, AttemptError>> {
        let spawner = self.spawner.clone();
        let program = self.program.clone();
        let timeout = self.timeout;
        Box::pin(async move {
            let wanted = Wanted::from_condition(&question.condition)
                .ok_or_else(|| AttemptError::permanent(QUOTE_HINT, false))?;
            let text = match &*question.material {
                Material::Text { text, .. } => text.clone(),
                Material::Absent { description } => {
                    return Ok(Answer {
                        met: false,
                        observation: format!(
                            "{} cannot be seen ({description}), so no text could be read",
                            question.target
                        ),
                        usage: Usage::default(),
                    });
                }
                Material::Image(image) => {
                    let read = read_text(
                        &*spawner,
                        &program,
                        image.bytes.clone(),
                        &OcrJudge::args(),
                        timeout,
                    )
                    .await
                    .map_err(|failure| AttemptError::permanent(failure.message, failure.retry))?;
                    Arc::from(read)
                }
            };
            let (met, observation) = wanted.look_in(&text, &question.target);
            Ok(Answer {
                met,
                observation,
                usage: Usage::default(),
            })
        })
    }
}

/// Why tesseract read nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OcrFailure {
    /// What failed and how to fix it.
    pub message: String,
    /// Running it again may work (it failed or timed out; it was not missing).
    pub retry: bool,
}

/// The text tesseract reads in a PNG (`args` after the program: `stdin stdout --psm N`).
/// One thread: `OMP_THREAD_LIMIT=1`, since a second OpenMP thread makes it 3–5× slower on
/// the crops lookout reads (docs/contract.md §9).
pub async fn read_text(
    spawner: &dyn Spawner,
    program: &str,
    png: Vec<u8>,
    args: &[String],
    timeout: Duration,
) -> Result<String, OcrFailure> {
    let request = RunRequest {
        program: program.to_owned(),
        args: args.to_vec(),
        stdin: png,
        timeout,
        max_stdout_bytes: MAX_OCR_TEXT_BYTES,
        env: vec![("OMP_THREAD_LIMIT".into(), "1".into())],
    };
    let outcome = spawner.run(request).await.map_err(|error| {
        let fix = if error.kind() == std::io::ErrorKind::NotFound {
            "; install it (apt-get install tesseract-ocr)"
        } else {
            ""
        };
        OcrFailure {
            message: format!("cannot run {program}: {error}{fix}"),
            retry: false,
        }
    })?;
    if !outcome.succeeded() {
        return Err(OcrFailure {
            message: format!("{program} failed: {}", outcome.failure(timeout)),
            retry: true,
        });
    }
    Ok(String::from_utf8_lossy(&outcome.stdout).into_owned())
}

/// What the OCR backend can judge of a condition: its alternatives made only of quoted
/// phrases (a clause it cannot read, like "the page looks right", leaves its alternative to
/// a model). Each alternative holds when all its phrases are read (and its negated ones are
/// not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wanted {
    /// Alternatives of (phrase, negated).
    pub groups: Vec<Vec<(String, bool)>>,
}

impl Wanted {
    /// `None` when no alternative is made only of phrases.
    pub fn from_condition(condition: &str) -> Option<Wanted> {
        let reading = Reading::parse(condition);
        let groups: Vec<Vec<(String, bool)>> = reading
            .groups
            .iter()
            .filter_map(|group| {
                let mut phrases = Vec::new();
                for clause in group {
                    let Test::Phrases(quoted) = &clause.test else {
                        return None;
                    };
                    phrases.extend(quoted.iter().map(|p| (p.clone(), clause.negated)));
                }
                Some(phrases)
            })
            .collect();
        (!groups.is_empty()).then_some(Wanted { groups })
    }

    fn phrases(&self) -> impl Iterator<Item = &String> {
        self.groups
            .iter()
            .flatten()
            .filter(|(_, negated)| !negated)
            .map(|(phrase, _)| phrase)
    }

    /// Whether the text has the phrases, and an observation saying what was read.
    pub fn look_in(&self, text: &str, target: &str) -> (bool, String) {
        let haystack = matching::normalize(text);
        let read = |phrase: &str| matching::find(&matching::normalize(phrase), &haystack);
        let shown = |phrase: &str, found: &str| {
            if found == matching::normalize(phrase) {
                format!("\"{phrase}\"")
            } else {
                format!("\"{phrase}\" (read as \"{found}\")")
            }
        };
        for group in &self.groups {
            let mut seen = Vec::new();
            let holds = group.iter().all(|(phrase, negated)| match read(phrase) {
                Some(found) if !negated => {
                    seen.push(shown(phrase, &found));
                    true
                }
                Some(_) => false,
                None => *negated,
            });
            if holds && !seen.is_empty() {
                return (true, format!("read {} on {target}", seen.join(" and ")));
            }
        }
        let seen: Vec<String> = self
            .phrases()
            .filter_map(|phrase| read(phrase).map(|found| shown(phrase, &found)))
            .collect();
        let missing: Vec<String> = self
            .phrases()
            .filter(|phrase| read(phrase).is_none())
            .map(|phrase| format!("\"{phrase}\""))
            .collect();
        let observation = if !seen.is_empty() {
            format!(
                "read {} on {target} but not {}",
                seen.join(" and "),
                missing.join(" or ")
            )
        } else {
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if flat.is_empty() {
                format!(
                    "no text read on {target} (looking for {})",
                    missing.join(" or ")
                )
            } else {
                let mut start: String = flat.chars().take(QUOTED_TEXT_CHARS).collect();
                if start.len() < flat.len() {
                    start.push('…');
                }
                format!(
                    "no {} on {target}; the text read starts \"{start}\"",
                    missing.join(" or ")
                )
            }
        };
        (false, observation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternatives_of_phrases_and_all_of_one_alternative() {
        let all = Wanted::from_condition(r#""Saved" and "Closed""#).unwrap();
        let any = Wanted::from_condition(r#""Saved" or "Closed""#).unwrap();
        assert_eq!(Wanted::from_condition("the build passes"), None);
        let (met, observation) = all.look_in("File Saved.", "window:Editor");
        assert!(!met);
        assert_eq!(
            observation,
            r#"read "Saved" on window:Editor but not "Closed""#
        );
        assert!(any.look_in("File Saved.", "window:Editor").0);
        // An alternative the OCR cannot read is left out; the others still count.
        let mixed = Wanted::from_condition("'Finished' appears or the page looks right").unwrap();
        assert_eq!(mixed.groups, [[("Finished".to_owned(), false)]]);
        let guarded = Wanted::from_condition("'DONE' unless 'ERROR'").unwrap();
        assert!(guarded.look_in("DONE", "screen").0);
        assert!(!guarded.look_in("ERROR ... DONE", "screen").0);
    }

    #[test]
    fn observations_say_what_was_read() {
        let wanted = Wanted::from_condition(r#"the dialog says "Download complete""#).unwrap();
        let (met, observation) = wanted.look_in("Firefox\nDownload compIete  100%", "screen");
        assert!(met, "{observation}");
        assert_eq!(
            observation,
            r#"read "Download complete" (read as "download compiete") on screen"#
        );
        let (met, observation) = wanted.look_in("Downloading 45% complete", "screen");
        assert!(!met, "{observation}");
        assert!(
            observation.starts_with(
                r#"no "Download complete" on screen; the text read starts "Downloading 45%"#
            ),
            "{observation}"
        );
        let (met, observation) = wanted.look_in("  \n", "screen");
        assert!(!met);
        assert!(observation.starts_with("no text read on screen"));
        // The issue's case: a digit is never forgiven.
        let zero = Wanted::from_condition("'Tests: 0 failed'").unwrap();
        assert!(!zero.look_in("Tests: 3 failed, 97 passed", "window:ci").0);
    }
}
