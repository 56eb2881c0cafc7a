//! Params of memory: memory_recall and the recorder's recall.pause and recall.forget.

use std::time::Duration;

use actors::CallError;
use actors::recall::RecallRequest;
use recall::Source;
use serde::Deserialize;

use super::{required_text, task_id};
use crate::tools::limits::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryRecallParams {
    query: String,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    recency_bias: Option<f64>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    source: Option<String>,
}

impl MemoryRecallParams {
    pub fn validate(self) -> Result<RecallRequest, CallError> {
        let query = required_text(
            "query",
            &self.query,
            MAX_QUERY_CHARS,
            "say what to look for in a few keywords, e.g. \"deploy coursefolio\"",
        )?;
        let limit = match self.limit {
            None => DEFAULT_RECALL_LIMIT,
            Some(n) if (1..=MAX_RECALL_LIMIT).contains(&n) => n as usize,
            Some(n) => {
                return Err(CallError::invalid(
                    format!("limit {n} is out of range"),
                    format!("limit must be between 1 and {MAX_RECALL_LIMIT}"),
                ));
            }
        };
        let recency_bias = match self.recency_bias {
            None => DEFAULT_RECENCY_BIAS,
            Some(bias) if (0.0..=1.0).contains(&bias) => bias,
            Some(bias) => {
                return Err(CallError::invalid(
                    format!("recency_bias {bias} is out of range"),
                    format!(
                        "recency_bias goes from 0 (best match first, however old) to 1 (newest first); default {DEFAULT_RECENCY_BIAS}"
                    ),
                ));
            }
        };
        let source = match self.source.as_deref().map(str::trim) {
            None => None,
            Some(text) => Some(Source::parse(text).ok_or_else(|| {
                CallError::invalid(
                    format!("invalid source '{text}'"),
                    "source must be one of task, wait, terminal, screen, transcript; leave it out to search everything",
                )
            })?),
        };
        Ok(RecallRequest {
            query,
            limit,
            recency_bias,
            task_id: self
                .task_id
                .as_deref()
                .map(task_id)
                .transpose()?
                .map(|id| id.as_str().to_owned()),
            source,
        })
    }
}

/// `recall.pause`: stop screen recording for a while, or until `recall.resume`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallPauseParams {
    #[serde(default, rename = "for")]
    duration: Option<String>,
}

impl RecallPauseParams {
    pub fn validate(self) -> Result<Option<Duration>, CallError> {
        let Some(text) = self.duration else {
            return Ok(None);
        };
        match parse_duration(&text) {
            Some(duration) if !duration.is_zero() && duration <= MAX_PAUSE => Ok(Some(duration)),
            _ => Err(CallError::invalid(
                format!("for: '{text}' is not a duration from 1s to 30d"),
                "give a number with a unit, e.g. for: \"30m\", \"2h\", \"1d\"; leave it out to pause until recall.resume",
            )),
        }
    }
}

/// `recall.forget`: what to remove from the screen and terminal history.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallForgetParams {
    #[serde(default)]
    since: Option<String>,
    #[serde(default)]
    app: Option<String>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    all: Option<bool>,
}

impl RecallForgetParams {
    /// The filter, with `since` (an RFC 3339 time, or a duration meaning that long ago)
    /// resolved against `now`.
    pub fn validate(self, now: storage::Timestamp) -> Result<recall::Forget, CallError> {
        let since_ms = match self.since.as_deref().map(str::trim) {
            None => None,
            Some(text) => Some(
                storage::Timestamp::parse_rfc3339(text)
                    .map(|at| at.as_millis())
                    .or_else(|| {
                        parse_duration(text)
                            .map(|ago| now.as_millis().saturating_sub(ago.as_millis() as u64))
                    })
                    .ok_or_else(|| {
                        CallError::invalid(
                            format!("since: '{text}' is neither a time nor a duration"),
                            "give how far back to forget, e.g. since: \"2h\" or \"7d\", or a time like \"2026-11-24T09:00:00Z\"",
                        )
                    })?,
            ),
        };
        let app = self
            .app
            .map(|app| app.trim().to_owned())
            .filter(|app| !app.is_empty());
        let task_id = self.task_id.as_deref().map(task_id).transpose()?;
        let everything = self.all == Some(true);
        if since_ms.is_none() && app.is_none() && task_id.is_none() && !everything {
            return Err(CallError::invalid(
                "recall.forget needs something to forget",
                "name it with since (\"2h\"), app (\"firefox\") or task_id, or pass all: true to forget every screen segment and terminal session",
            ));
        }
        Ok(recall::Forget {
            since_ms,
            before_ms: None,
            app,
            task_id: task_id.map(|id| id.as_str().to_owned()),
        })
    }
}

/// "90s", "30m", "2h", "7d" or a number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "" | "s" => 1,
        "m" | "min" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return None,
    };
    number.checked_mul(seconds).map(Duration::from_secs)
}
