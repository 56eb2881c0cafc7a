//! `OcrJudge`: tesseract reads the frame; the phrases quoted in the condition are looked
//! for in what it read, fuzzily. Local, no key, no model.
//!
//! `wake_when: 'the dialog says "Download complete"'` is met once tesseract reads
//! "Download complete" (or "Download compIete": OCR slips are tolerated up to about one
//! character in six). Several phrases: any of them, or all when they are joined by "and".
//! Text targets skip tesseract and match the text itself. tesseract runs through the
//! `Spawner`, like every program lookout starts.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::BoxFuture;
use crate::process::{RunRequest, Spawner};
use crate::vision::backend::{Answer, AttemptError, Backend, Cost, Material, Question};
use crate::vision::image::encode_grey;
use crate::waits::content::Content;
use crate::waits::judge::{Reach, Usage};

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

    /// The argv after the program: the PNG on stdin, the text on stdout, sparse-text page
    /// segmentation (a screen is not a page of prose).
    fn args() -> Vec<String> {
        ["stdin", "stdout", "--psm", "11"]
            .map(String::from)
            .to_vec()
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
                    let request = RunRequest {
                        program: program.clone(),
                        args: OcrJudge::args(),
                        stdin: image.bytes.clone(),
                        timeout,
                        max_stdout_bytes: MAX_OCR_TEXT_BYTES,
                    };
                    let outcome = spawner.run(request).await.map_err(|error| {
                        let fix = if error.kind() == std::io::ErrorKind::NotFound {
                            "; install it (apt-get install tesseract-ocr) or choose another [vision] backend"
                        } else {
                            ""
                        };
                        AttemptError::permanent(format!("cannot run {program}: {error}{fix}"), false)
                    })?;
                    if !outcome.succeeded() {
                        return Err(AttemptError::permanent(
                            format!("{program} failed: {}", outcome.failure(timeout)),
                            true,
                        ));
                    }
                    Arc::from(String::from_utf8_lossy(&outcome.stdout))
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

/// The phrases a condition quotes, and whether all or any must be there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wanted {
    pub phrases: Vec<String>,
    pub all: bool,
}

impl Wanted {
    /// `None` when the condition quotes nothing.
    pub fn from_condition(condition: &str) -> Option<Wanted> {
        let quoted = quoted_phrases(condition);
        if quoted.is_empty() {
            return None;
        }
        let all = quoted.len() > 1
            && quoted.windows(2).all(|pair| {
                let between = &condition[pair[0].1..pair[1].0];
                let words: Vec<String> = between
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(str::to_lowercase)
                    .collect();
                words == ["and"]
            });
        Some(Wanted {
            phrases: quoted.into_iter().map(|(_, _, phrase)| phrase).collect(),
            all,
        })
    }

    /// Whether the text has the phrases, and an observation saying what was read.
    pub fn look_in(&self, text: &str, target: &str) -> (bool, String) {
        let haystack = normalize(text);
        let found: Vec<(String, Option<String>)> = self
            .phrases
            .iter()
            .map(|phrase| (phrase.clone(), fuzzy_find(&normalize(phrase), &haystack)))
            .collect();
        let seen: Vec<String> = found
            .iter()
            .filter_map(|(phrase, read)| {
                read.as_ref().map(|read| {
                    if *read == normalize(phrase) {
                        format!("\"{phrase}\"")
                    } else {
                        format!("\"{phrase}\" (read as \"{read}\")")
                    }
                })
            })
            .collect();
        let missing: Vec<String> = found
            .iter()
            .filter(|(_, read)| read.is_none())
            .map(|(phrase, _)| format!("\"{phrase}\""))
            .collect();
        let met = if self.all {
            missing.is_empty()
        } else {
            !seen.is_empty()
        };
        let observation = if met {
            format!("read {} on {target}", seen.join(" and "))
        } else if !seen.is_empty() {
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
        (met, observation)
    }
}

/// The quoted phrases of a condition with their byte spans: `"…"`, `“…”`, `‘…’`, `«…»`,
/// `` `…` ``, and `'…'` when the quotes stand outside words (so "don't" quotes nothing).
pub fn quoted_phrases(condition: &str) -> Vec<(usize, usize, String)> {
    const PAIRS: [(char, char); 6] = [
        ('"', '"'),
        ('“', '”'),
        ('‘', '’'),
        ('«', '»'),
        ('`', '`'),
        ('\'', '\''),
    ];
    let chars: Vec<(usize, char)> = condition.char_indices().collect();
    let mut phrases = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let Some(&(_, close)) = PAIRS.iter().find(|(open, _)| *open == c) else {
            i += 1;
            continue;
        };
        let apostrophe_like = c == '\'' || c == '‘';
        if apostrophe_like && i > 0 && chars[i - 1].1.is_alphanumeric() {
            i += 1;
            continue;
        }
        let closing = (i + 1..chars.len()).find(|&k| {
            chars[k].1 == close
                && (!apostrophe_like
                    || chars
                        .get(k + 1)
                        .is_none_or(|(_, next)| !next.is_alphanumeric()))
        });
        match closing {
            Some(k) => {
                let end = chars[k].0 + close.len_utf8();
                let phrase = condition[start + c.len_utf8()..chars[k].0].trim();
                if !phrase.is_empty() {
                    phrases.push((start, end, phrase.to_owned()));
                }
                i = k + 1;
            }
            None => i += 1,
        }
    }
    phrases
}

/// Lowercase words of letters and digits separated by single spaces.
fn normalize(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Errors tolerated in a phrase of `len` characters: none up to 3, then about one in six.
fn allowed_errors(len: usize) -> usize {
    if len <= 3 { 0 } else { (len + 2) / 6 }
}

/// The part of `haystack` closest to `needle` (both normalized), if it is within the
/// allowed edit distance: approximate substring matching (Sellers' algorithm).
fn fuzzy_find(needle: &str, haystack: &str) -> Option<String> {
    let pattern: Vec<char> = needle.chars().collect();
    let text: Vec<char> = haystack.chars().collect();
    if pattern.is_empty() {
        return None;
    }
    // Row i holds, for each end position j in the text, the best distance of pattern[..i]
    // ending there, and where that alignment starts.
    let mut previous: Vec<(usize, usize)> = (0..=text.len()).map(|j| (0, j)).collect();
    let mut current = previous.clone();
    for (i, &p) in pattern.iter().enumerate() {
        current[0] = (i + 1, 0);
        for j in 1..=text.len() {
            let substitute = (
                previous[j - 1].0 + usize::from(text[j - 1] != p),
                previous[j - 1].1,
            );
            let skip_pattern = (previous[j].0 + 1, previous[j].1);
            let skip_text = (current[j - 1].0 + 1, current[j - 1].1);
            current[j] = [substitute, skip_pattern, skip_text]
                .into_iter()
                .min_by_key(|(distance, _)| *distance)
                .unwrap_or(substitute);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    let (end, &(distance, start)) = previous
        .iter()
        .enumerate()
        .min_by_key(|(_, (distance, _))| *distance)?;
    (distance <= allowed_errors(pattern.len())).then(|| {
        text[start..end]
            .iter()
            .collect::<String>()
            .trim()
            .to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_of_every_kind_are_phrases_and_apostrophes_are_not() {
        let phrases = |text: &str| -> Vec<String> {
            quoted_phrases(text)
                .into_iter()
                .map(|(_, _, p)| p)
                .collect()
        };
        assert_eq!(
            phrases(r#"the dialog says "Download complete" or “Error”"#),
            ["Download complete", "Error"]
        );
        assert_eq!(
            phrases("it's done when 'BUILD PASSED' shows"),
            ["BUILD PASSED"]
        );
        assert_eq!(
            phrases("don't stop until the user's job ends"),
            Vec::<String>::new()
        );
        assert_eq!(phrases("`make` prints «OK»"), ["make", "OK"]);
        assert_eq!(phrases("an unclosed \"quote"), Vec::<String>::new());
        assert_eq!(phrases("empty \"\" quotes"), Vec::<String>::new());
    }

    #[test]
    fn phrases_joined_by_and_must_all_be_there_otherwise_any() {
        let all = Wanted::from_condition(r#""Saved" and "Closed""#).unwrap();
        assert!(all.all);
        let any = Wanted::from_condition(r#""Saved" or "Closed""#).unwrap();
        assert!(!any.all);
        assert_eq!(Wanted::from_condition("the build passes"), None);
        let (met, observation) = all.look_in("File Saved.", "window:Editor");
        assert!(!met);
        assert_eq!(
            observation,
            r#"read "Saved" on window:Editor but not "Closed""#
        );
        let (met, _) = any.look_in("File Saved.", "window:Editor");
        assert!(met);
    }

    #[test]
    fn ocr_slips_are_tolerated_and_different_words_are_not() {
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
        // Short phrases must match exactly.
        let short = Wanted::from_condition(r#""OK""#).unwrap();
        assert!(!short.look_in("OX", "screen").0);
        assert!(short.look_in("Press ok to go on", "screen").0);
    }

    #[test]
    fn fuzzy_find_reports_the_closest_span() {
        assert_eq!(
            fuzzy_find("passed", "build passed ok"),
            Some("passed".into())
        );
        assert_eq!(
            fuzzy_find("build passed", "bui1d passed"),
            Some("bui1d passed".into())
        );
        assert_eq!(fuzzy_find("build passed", "build failed"), None);
        assert_eq!(allowed_errors(3), 0);
        assert_eq!(allowed_errors(4), 1);
        assert_eq!(allowed_errors(17), 3);
    }
}
