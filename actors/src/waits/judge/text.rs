//! Judging text targets (terminals, tmux panes, log files), cheapest test first:
//!
//! 1. a phrase quoted in the condition ('Download complete', "BUILD SUCCESSFUL") present in
//!    the text, case-insensitively → met, the matching line is the observation;
//! 2. a condition about the command finishing / exiting, and the watched process has exited
//!    → met, with the exit status;
//! 3. otherwise a model, when one is configured (on settled text only);
//! 4. with no model: a condition made only of quoted phrases or an exit clause keeps watching
//!    until they hold; any other condition wakes on the first settled change, and the
//!    observation says no model is configured to judge it.

use std::sync::Arc;

use crate::waits::content::Content;
use crate::waits::gate::Readiness;
use crate::waits::judge::{Judge, JudgeFailure, JudgeRequest, Verdict};

/// Longest observation taken from a line of text.
const OBSERVATION_CHARS: usize = 240;

/// Words that say "when the process ends".
const EXIT_WORDS: &[&str] = &[
    "finish",
    "finishes",
    "finished",
    "exit",
    "exits",
    "exited",
    "complete",
    "completes",
    "completed",
    "completion",
    "end",
    "ends",
    "ended",
    "done",
    "terminate",
    "terminates",
    "terminated",
    "stop",
    "stops",
    "stopped",
    "quit",
    "quits",
    "return",
    "returns",
    "returned",
    "dies",
    "died",
];

/// Words that add nothing a phrase or an exit clause does not already say.
const FILLER_WORDS: &[&str] = &[
    "wake",
    "me",
    "up",
    "when",
    "once",
    "if",
    "after",
    "as",
    "soon",
    "the",
    "a",
    "an",
    "is",
    "are",
    "gets",
    "get",
    "got",
    "printed",
    "prints",
    "print",
    "shows",
    "shown",
    "show",
    "appears",
    "appear",
    "appeared",
    "displayed",
    "display",
    "output",
    "outputs",
    "line",
    "text",
    "says",
    "say",
    "in",
    "on",
    "of",
    "or",
    "and",
    "either",
    "command",
    "process",
    "program",
    "job",
    "script",
    "it",
    "its",
    "until",
    "there",
    "message",
    "terminal",
    "pane",
    "written",
    "writes",
    "with",
    "status",
    "code",
    "any",
    "has",
    "have",
    "been",
    "this",
    "that",
    "run",
    "running",
    "has",
    "is",
    "be",
    "will",
    "to",
    "for",
    "by",
    "see",
    "i",
    "let",
    "know",
    "tell",
    "notify",
    "please",
    "then",
    "also",
];

/// How a text target's condition is judged.
#[derive(Clone, Debug)]
pub struct TextJudge {
    model: Option<Arc<dyn Judge>>,
}

/// The condition, taken apart once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// Phrases quoted in it, lowercase.
    pub phrases: Vec<String>,
    /// It asks about the process ending.
    pub exit_clause: bool,
    /// Nothing but phrases and an exit clause: judged without a model.
    pub literal_only: bool,
}

impl Condition {
    pub fn parse(condition: &str) -> Condition {
        let (phrases, rest) = quoted_phrases(condition);
        let words: Vec<String> = rest
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let exit_clause = words.iter().any(|w| EXIT_WORDS.contains(&w.as_str()));
        let literal_only = (!phrases.is_empty() || exit_clause)
            && words
                .iter()
                .all(|w| EXIT_WORDS.contains(&w.as_str()) || FILLER_WORDS.contains(&w.as_str()));
        Condition {
            phrases,
            exit_clause,
            literal_only,
        }
    }
}

/// The phrases in '…', "…", “…” or ‘…’ (at least two characters), and the text without them.
pub fn quoted_phrases(condition: &str) -> (Vec<String>, String) {
    const PAIRS: [(char, char); 4] = [('\'', '\''), ('"', '"'), ('“', '”'), ('‘', '’')];
    let mut phrases = Vec::new();
    let mut rest = String::new();
    let mut chars = condition.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        // An apostrophe inside a word ("don't") does not open a quote.
        let after_letter = condition[..start]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        let closing = PAIRS
            .iter()
            .find(|(open, _)| *open == c && !(c == '\'' && after_letter))
            .map(|(_, close)| *close);
        if let Some(close) = closing
            && let Some(end) = condition[start + c.len_utf8()..].find(close)
        {
            let inner = &condition[start + c.len_utf8()..start + c.len_utf8() + end];
            if inner.trim().chars().count() >= 2 {
                phrases.push(inner.trim().to_lowercase());
                let resume = start + c.len_utf8() + end + close.len_utf8();
                while chars.peek().is_some_and(|(index, _)| *index < resume) {
                    chars.next();
                }
                rest.push(' ');
                continue;
            }
        }
        rest.push(c);
    }
    (phrases, rest)
}

/// The first line of `text` containing `phrase` (lowercase), trimmed and shortened.
fn line_with(text: &str, phrase: &str) -> Option<String> {
    text.lines()
        .find(|line| line.to_lowercase().contains(phrase))
        .map(|line| shorten(line.trim()))
}

fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(shorten)
        .unwrap_or_else(|| "(no output yet)".to_owned())
}

fn shorten(line: &str) -> String {
    crate::words::shorten(line, OBSERVATION_CHARS)
}

/// What the text pipeline decided, before any model call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Met(String),
    NotMet(String),
    /// Ask the model (configured, settled text).
    AskModel,
}

impl TextJudge {
    pub fn new(model: Option<Arc<dyn Judge>>) -> Self {
        Self { model }
    }

    pub fn has_model(&self) -> bool {
        self.model.is_some()
    }

    /// Steps 1, 2 and 4: everything but the model call. `baseline` is the first judgment of
    /// the watch (no change to wake on yet); `exit_known` says the target can report an exit
    /// (terminal sessions).
    pub fn decide(
        &self,
        condition: &Condition,
        content: &Content,
        readiness: Readiness,
        baseline: bool,
        exit_known: bool,
    ) -> Decision {
        let (text, exit) = match content {
            Content::Text { text, exit } => (&**text, *exit),
            Content::Absent { description } => return Decision::NotMet(description.clone()),
            Content::Frame(_) => return Decision::NotMet("a frame of pixels, not text".to_owned()),
        };
        let lower = text.to_lowercase();
        if let Some(phrase) = condition
            .phrases
            .iter()
            .find(|phrase| lower.contains(phrase.as_str()))
        {
            return Decision::Met(line_with(text, phrase).unwrap_or_else(|| phrase.clone()));
        }
        if condition.exit_clause
            && let Some(exit) = exit
        {
            return Decision::Met(format!("{exit}; last line: {}", last_line(text)));
        }
        let literal_only = condition.literal_only
            && (!condition.exit_clause || exit_known || !condition.phrases.is_empty());
        if literal_only {
            return Decision::NotMet(last_line(text));
        }
        match (self.has_model(), readiness) {
            (true, Readiness::Settled) => Decision::AskModel,
            (true, Readiness::Changing) => Decision::NotMet(last_line(text)),
            (false, Readiness::Settled) if !baseline => Decision::Met(format!(
                "{} (no model is configured to judge this condition, so lookout woke you at the first change; \
                 configure [vision] to have a model judge it)",
                last_line(text)
            )),
            (false, _) => Decision::NotMet(last_line(text)),
        }
    }

    /// Step 3: the model's verdict on `request`.
    pub async fn ask_model(&self, request: JudgeRequest) -> Result<Verdict, JudgeFailure> {
        match &self.model {
            Some(model) => model.judge(request).await,
            None => Err(JudgeFailure {
                message: "no model is configured".to_owned(),
                model_call: false,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::waits::content::ProcessExit;

    #[test]
    fn quoted_phrases_in_any_quote_style() {
        let (phrases, rest) =
            quoted_phrases("wake me when 'ALL DONE' is printed or “Build failed” or \"x\"");
        assert_eq!(phrases, ["all done", "build failed"]);
        assert!(
            rest.contains("wake me when") && rest.contains("\"x\""),
            "{rest}"
        );
        let (phrases, _) =
            quoted_phrases("when the build doesn't fail and 'Deployed to prod' shows");
        assert_eq!(
            phrases,
            ["deployed to prod"],
            "an apostrophe in a word opens nothing"
        );
    }

    #[test]
    fn conditions_are_classified() {
        let table = [
            ("wake me when 'ALL DONE' is printed", true, false, true),
            ("when the command finishes", false, true, true),
            (
                "when \"BUILD SUCCESSFUL\" appears or the process exits",
                true,
                true,
                true,
            ),
            ("when the tests look green", false, false, false),
            (
                "when 'ready' appears and the dashboard is healthy",
                true,
                false,
                false,
            ),
        ];
        for (text, has_phrases, exit_clause, literal_only) in table {
            let condition = Condition::parse(text);
            assert_eq!(
                (
                    !condition.phrases.is_empty(),
                    condition.exit_clause,
                    condition.literal_only
                ),
                (has_phrases, exit_clause, literal_only),
                "{text}"
            );
        }
    }

    fn text(lines: &str, exit: Option<i32>) -> Content {
        Content::Text {
            text: lines.into(),
            exit: exit.map(|code| ProcessExit { code: Some(code) }),
        }
    }

    #[test]
    fn phrases_then_exit_then_no_model_rules() {
        let judge = TextJudge::new(None);
        let phrase = Condition::parse("wake me when 'ALL DONE' is printed");
        assert_eq!(
            judge.decide(
                &phrase,
                &text("step 3\n  all done in 4s  \n$", None),
                Readiness::Changing,
                false,
                true
            ),
            Decision::Met("all done in 4s".into())
        );
        assert_eq!(
            judge.decide(
                &phrase,
                &text("step 2\n", None),
                Readiness::Settled,
                false,
                true
            ),
            Decision::NotMet("step 2".into())
        );

        let exit = Condition::parse("when the command finishes");
        assert_eq!(
            judge.decide(
                &exit,
                &text("ok\n", Some(0)),
                Readiness::Settled,
                false,
                true
            ),
            Decision::Met("the process exited with status 0; last line: ok".into())
        );
        assert_eq!(
            judge.decide(&exit, &text("ok\n", None), Readiness::Settled, false, true),
            Decision::NotMet("ok".into())
        );
        // Without exit information (a log file), an exit clause needs a model: first change wakes.
        assert!(
            matches!(judge.decide(&exit, &text("ok\n", None), Readiness::Settled, false, false), Decision::Met(note) if note.contains("no model is configured"))
        );

        let vague = Condition::parse("when the tests look green");
        assert!(
            matches!(
                judge.decide(&vague, &text("a\n", None), Readiness::Settled, true, true),
                Decision::NotMet(_)
            ),
            "the baseline is no change"
        );
        assert!(
            matches!(
                judge.decide(
                    &vague,
                    &text("a\nb\n", None),
                    Readiness::Changing,
                    false,
                    true
                ),
                Decision::NotMet(_)
            ),
            "not settled yet"
        );
        assert!(matches!(
            judge.decide(
                &vague,
                &text("a\nb\n", None),
                Readiness::Settled,
                false,
                true
            ),
            Decision::Met(_)
        ));
    }

    #[test]
    fn with_a_model_settled_text_goes_to_it() {
        #[derive(Debug)]
        struct Never;
        impl Judge for Never {
            fn describe(&self) -> String {
                "never".into()
            }
            fn judge(
                &self,
                _: JudgeRequest,
            ) -> futures::future::BoxFuture<'static, Result<Verdict, JudgeFailure>> {
                Box::pin(async { unreachable!("not called by decide") })
            }
        }
        let judge = TextJudge::new(Some(Arc::new(Never)));
        let vague = Condition::parse("when the tests look green");
        assert_eq!(
            judge.decide(&vague, &text("a\n", None), Readiness::Settled, true, true),
            Decision::AskModel
        );
        assert!(matches!(
            judge.decide(&vague, &text("a\n", None), Readiness::Changing, false, true),
            Decision::NotMet(_)
        ));
        let phrase = Condition::parse("when 'PASSED' shows");
        assert!(
            matches!(
                judge.decide(
                    &phrase,
                    &text("PASSED\n", None),
                    Readiness::Changing,
                    false,
                    true
                ),
                Decision::Met(_)
            ),
            "phrases first"
        );
    }
}
