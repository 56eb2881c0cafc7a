//! How good the answers are: a history (documents with their age) and questions with the
//! document that answers each (none: nothing does), read from the JSON of
//! `benches/recall-quality/`, and the score of a list of answers — top-1, top-3 (weak
//! results not counted), the share first and shown at all (weak ones counted) and the
//! no-answer rate.
//! The quality benchmark prints it; a test holds the floor.

use serde_json::Value;

use crate::{Document, RecallStore, Search, Source};

const DAY_MS: u64 = 24 * 3600 * 1000;
/// When the questions are asked.
pub const NOW_MS: u64 = 1_790_000_000_000;
/// `memory_recall`'s defaults.
const LIMIT: usize = 3;
const RECENCY_BIAS: f64 = 0.5;

/// A history and its questions.
pub struct History {
    pub documents: Vec<Document>,
    /// Each question, and the key of the document that answers it.
    pub questions: Vec<(String, Option<String>)>,
}

impl History {
    /// Reads the JSON of a history file; panics on a malformed one (it is committed).
    pub fn parse(text: &str) -> History {
        let history: Value = serde_json::from_str(text).expect("a history is JSON");
        let documents = history["documents"].as_array().expect("documents");
        let day = |doc: &Value| doc["age_days"].as_u64().expect("age_days");
        // A history writes a wait or a command on the day of the task it served: one on
        // the day of exactly one task was recorded under it, as the daemon records a wait
        // or a terminal session started with a `task_id`.
        let task_of_day = |age_days: u64| {
            let mut tasks = (documents.iter())
                .filter(|doc| doc["source"] == "task" && day(doc) == age_days)
                .map(|doc| doc["key"].as_str().expect("key"));
            match (tasks.next(), tasks.next()) {
                (Some(task), None) => task.strip_prefix("task:").map(str::to_owned),
                _ => None,
            }
        };
        let documents = documents
            .iter()
            .map(|doc| {
                let text = |field: &str| doc[field].as_str().expect(field).to_owned();
                let end_ms = NOW_MS - day(doc) * DAY_MS;
                let key = text("key");
                let source = Source::parse(&text("source")).expect("a source");
                let task_id = match source {
                    Source::Task => key.strip_prefix("task:").map(str::to_owned),
                    Source::Wait | Source::Terminal => task_of_day(day(doc)),
                    Source::Screen | Source::Transcript => None,
                };
                Document {
                    source,
                    task_id,
                    title: text("title"),
                    body: text("body"),
                    start_ms: end_ms - 600_000,
                    end_ms,
                    steps: Vec::new(),
                    summary: String::new(),
                    app: None,
                    step: None,
                    frames: Vec::new(),
                    key,
                }
            })
            .collect();
        let questions = history["questions"]
            .as_array()
            .expect("questions")
            .iter()
            .map(|q| {
                (
                    q["q"].as_str().expect("q").to_owned(),
                    q["answer"].as_str().map(str::to_owned),
                )
            })
            .collect();
        History {
            documents,
            questions,
        }
    }
}

/// Answers counted.
#[derive(Debug, Default)]
pub struct Score {
    pub answerable: usize,
    pub top1: usize,
    pub top3: usize,
    /// The answer first, weak or not: what the agent reads first, told or not that it is
    /// unsure.
    pub first_shown: usize,
    /// The answer among the results shown, weak ones counted: what the agent gets to read,
    /// told or not that it is unsure.
    pub shown: usize,
    pub unanswerable: usize,
    /// Questions nothing answers that got no result, or only weak ones.
    pub said_nothing: usize,
    /// What went wrong, question by question.
    pub misses: Vec<String>,
}

impl Score {
    /// Counts one answer: the keys found, best first, each with whether it is weak.
    pub fn add(&mut self, question: &str, answer: Option<&str>, found: &[(String, bool)]) {
        let strong: Vec<&str> = found
            .iter()
            .filter(|(_, weak)| !weak)
            .map(|(key, _)| key.as_str())
            .collect();
        match answer {
            Some(answer) => {
                self.answerable += 1;
                if strong.first() == Some(&answer) {
                    self.top1 += 1;
                } else {
                    self.misses
                        .push(format!("{question:?}: wanted {answer}, got {strong:?}"));
                }
                if strong.contains(&answer) {
                    self.top3 += 1;
                }
                if found.first().is_some_and(|(key, _)| key == answer) {
                    self.first_shown += 1;
                }
                if found.iter().any(|(key, _)| key == answer) {
                    self.shown += 1;
                }
            }
            None => {
                self.unanswerable += 1;
                if strong.is_empty() {
                    self.said_nothing += 1;
                } else {
                    self.misses
                        .push(format!("{question:?}: wanted nothing, got {strong:?}"));
                }
            }
        }
    }

    pub fn top1_share(&self) -> f64 {
        self.share(self.top1)
    }

    pub fn top3_share(&self) -> f64 {
        self.share(self.top3)
    }

    /// `count` as a share of the questions with an answer.
    fn share(&self, count: usize) -> f64 {
        count as f64 / self.answerable.max(1) as f64
    }

    /// Adds the counts of `other` (another history's): misses are not kept.
    pub fn merge(&mut self, other: &Score) {
        self.answerable += other.answerable;
        self.top1 += other.top1;
        self.top3 += other.top3;
        self.first_shown += other.first_shown;
        self.shown += other.shown;
        self.unanswerable += other.unanswerable;
        self.said_nothing += other.said_nothing;
    }

    /// "top-1  96.4% (54/56)  top-3 …  first shown …  shown …  no-answer 8/8".
    pub fn line(&self) -> String {
        let share = |count: usize| 100.0 * self.share(count);
        format!(
            "top-1 {:>5.1}% ({}/{})  top-3 {:>5.1}% ({}/{})  first shown {:>5.1}% ({}/{})  shown {:>5.1}% ({}/{})  no-answer {}/{}",
            share(self.top1),
            self.top1,
            self.answerable,
            share(self.top3),
            self.top3,
            self.answerable,
            share(self.first_shown),
            self.first_shown,
            self.answerable,
            share(self.shown),
            self.shown,
            self.answerable,
            self.said_nothing,
            self.unanswerable
        )
    }
}

/// Asks every question of the history of `store` (which holds its documents) as
/// `memory_recall` does by default.
pub fn score(store: &RecallStore, history: &History) -> Score {
    let mut score = Score::default();
    for (question, answer) in &history.questions {
        let found = store
            .search(&Search {
                words: question.clone(),
                limit: LIMIT,
                recency_bias: RECENCY_BIAS,
                task_id: None,
                source: None,
                now_ms: NOW_MS,
            })
            .expect("searched");
        let keys: Vec<(String, bool)> = found
            .results
            .iter()
            .map(|r| (r.document.key.clone(), r.weak))
            .collect();
        score.add(question, answer.as_deref(), &keys);
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_results_count_as_shown_only_and_a_weak_list_says_nothing() {
        let weak = |key: &str| (key.to_owned(), true);
        let strong = |key: &str| (key.to_owned(), false);
        let mut score = Score::default();
        score.add("first", Some("a"), &[strong("a"), strong("b")]);
        score.add("second", Some("a"), &[strong("b"), strong("a")]);
        score.add("unsure", Some("a"), &[weak("a")]);
        score.add("missed", Some("a"), &[strong("b")]);
        score.add("nothing", None, &[weak("b")]);
        score.add("wrongly sure", None, &[strong("b")]);
        assert_eq!(
            (score.top1, score.top3, score.shown, score.answerable),
            (1, 2, 3, 4)
        );
        assert_eq!(score.first_shown, 2, "first, and first but weak");
        assert_eq!((score.said_nothing, score.unanswerable), (1, 2));
        let mut pooled = Score::default();
        pooled.merge(&score);
        pooled.merge(&score);
        assert_eq!(
            (
                pooled.shown,
                pooled.first_shown,
                pooled.answerable,
                pooled.said_nothing
            ),
            (6, 4, 8, 2)
        );
        assert!(
            score.line().contains("shown  75.0% (3/4)"),
            "{}",
            score.line()
        );
    }
}
