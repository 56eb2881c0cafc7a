//! `NoModelJudge`: the backend when no model is configured.
//!
//! The wait code asks only on a settled meaningful change, so "met" here means "the target
//! changed": the wait wakes on the first such change and the observation says that no model
//! checked the condition and how to configure one.

use std::sync::Arc;

use crate::clock::BoxFuture;
use crate::condition::judge::Usage;
use crate::sight::content::Content;
use crate::vision::backend::{Answer, AttemptError, Backend, Cost, Material, Question};

/// How to get a real judge, for the observation.
pub const CONFIGURE_HINT: &str = "no vision model is configured, so lookout wakes on the first settled change \
without checking the condition; set [vision] backend = \"openai\", \"anthropic\" or \"ocr\" in the config \
(see the README's Vision section) to have it checked";

#[derive(Debug, Default, Clone, Copy)]
pub struct NoModelJudge;

impl Backend for NoModelJudge {
    fn describe(&self) -> String {
        "none (no model: wakes on the first settled change)".to_owned()
    }

    fn cost(&self, _content: &Content) -> Cost {
        Cost::Free
    }

    fn prepare(&self, content: &Content) -> Result<Material, String> {
        Ok(match content {
            // The pixels are not looked at.
            Content::Frame(_) => Material::Absent {
                description: String::new(),
            },
            Content::Text { exit, .. } => Material::Text {
                text: Arc::from(""),
                exit: *exit,
            },
            Content::Absent { description } => Material::Absent {
                description: description.clone(),
            },
        })
    }

    fn ask(&self, question: Question) -> BoxFuture<Result<Answer, AttemptError>> {
        let what = match &*question.material {
            Material::Absent { description } if !description.is_empty() => {
                format!("{} is gone ({description})", question.target)
            }
            Material::Text {
                exit: Some(exit), ..
            } => format!("{} ended: {exit}", question.target),
            _ => format!("{} changed", question.target),
        };
        let answer = Answer {
            met: true,
            observation: format!("{what}; {CONFIGURE_HINT}"),
            usage: Usage::default(),
        };
        Box::pin(async move { Ok(answer) })
    }
}
