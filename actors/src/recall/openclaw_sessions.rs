//! OpenClaw's sessions as recall documents (opt-in, `[recall] sources = ["openclaw"]`).
//!
//! The gateway keeps every session's transcript (in its own SQLite store since 2026.9, as
//! JSONL files before) and serves both through its RPC, whatever the storage: `sessions.list`
//! names the sessions with when each last changed (`updatedAt`), `chat.history` gives what
//! one said (the user's requests, the assistant's text and tool calls, the tools' results).
//! A session becomes one document the way a Claude Code session does ([`SessionLog`]):
//! keyed by its session id (a reset starts another), its agent as the project
//! (`openclaw:main`, what `recall forget --app` names), tied to the lookout task it
//! registered, redacted before it is kept.
//!
//! [`OpenClawSessions::look`] runs on a timer's task, not in the Recall actor: the gateway's
//! answers are awaited there, so a slow gateway never holds up a search. The actor only says
//! which sessions it lacks (their marks) and keeps what the reader built.

use std::sync::Arc;

use ractor::ActorRef;
use recall::Document;
use serde_json::{Value, json};
use storage::Timestamp;

use crate::error::from_call;
use crate::openclaw::client::{GatewayClient, GatewayError};
use crate::recall::RecallMsg;
use crate::recall::transcripts::{Said, SessionLog, text_of};

/// Sessions asked for per `sessions.list` page.
const LIST_PAGE: u64 = 200;
/// Messages asked for per session (the gateway's most; the newest are kept).
const HISTORY_LIMIT: u64 = 1_000;
/// Sessions read per batch handed to the index.
const PUT_BATCH: usize = 20;
/// How long the Recall actor may take to say which sessions it lacks.
const ACTOR_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// A row of `sessions.list`: what the reader needs of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    /// `agent:main:main`
    pub key: String,
    pub session_id: String,
    /// `main`
    pub agent: String,
    pub updated_ms: u64,
}

impl SessionRow {
    /// The row, when it names a session with a transcript (a key, a session id, a time).
    pub fn from_list(row: &Value) -> Option<SessionRow> {
        let key = row["key"].as_str()?.to_owned();
        let session_id = row["sessionId"].as_str()?.to_owned();
        let agent = row["agentId"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| {
                key.strip_prefix("agent:")?
                    .split(':')
                    .next()
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "main".to_owned());
        Some(SessionRow {
            key,
            session_id,
            agent,
            updated_ms: row["updatedAt"].as_u64()?,
        })
    }

    /// The document's key (and its mark's name) in the index.
    pub fn document_key(&self) -> String {
        format!("transcript:openclaw:{}", self.session_id)
    }
}

/// The document of the session `row` whose `chat.history` answer is `history`; `None` when
/// it holds no request.
pub fn session_document(row: &SessionRow, history: &Value) -> Option<Document> {
    let mut log = SessionLog::default();
    for message in history["messages"].as_array().into_iter().flatten() {
        let Some(at_ms) = timestamp_ms(&message["timestamp"]) else {
            continue;
        };
        for said in said_in(message) {
            log.add(at_ms, &said);
        }
    }
    log.into_document(
        row.document_key(),
        &format!("OpenClaw session {} (agent {})", row.key, row.agent),
        format!("openclaw:{}", row.agent),
    )
}

/// Milliseconds since the epoch, as a number or an RFC 3339 text.
fn timestamp_ms(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value
            .as_str()
            .and_then(Timestamp::parse_rfc3339)
            .map(Timestamp::as_millis)
    })
}

/// What one message of `chat.history` says.
fn said_in(message: &Value) -> Vec<Said> {
    let content = &message["content"];
    let mut said = Vec::new();
    match message["role"].as_str().unwrap_or_default() {
        "user" => said.push(Said::from_user(text_of(content))),
        "toolResult" | "tool" => said.push(Said::Result {
            text: text_of(content),
            error: message["isError"].as_bool().unwrap_or(false),
        }),
        "assistant" => {
            if let Some(text) = content.as_str() {
                said.push(Said::Answer(text.trim().to_owned()));
            }
            for block in content.as_array().into_iter().flatten() {
                match block["type"].as_str().unwrap_or_default() {
                    "text" => said.push(Said::Answer(text_of(&block["text"]))),
                    "toolCall" | "tool_use" => {
                        let arguments = match &block["arguments"] {
                            Value::Null => &block["input"],
                            arguments => arguments,
                        };
                        said.push(Said::tool_call(block, arguments));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    said.retain(|s| !s.is_empty());
    said
}

/// Reads the sessions of one gateway as they change; one look at a time.
pub struct OpenClawSessions {
    client: Arc<GatewayClient>,
    looking: tokio::sync::Mutex<Looked>,
}

/// What the looks so far learned.
#[derive(Default)]
struct Looked {
    /// The newest `updatedAt` of a look that finished: a later look reads pages of the list
    /// only while they hold a session changed since.
    newest_ms: u64,
    /// Why the last look failed, told once until it changes.
    failing: Option<String>,
}

impl OpenClawSessions {
    pub fn new(client: Arc<GatewayClient>) -> Arc<Self> {
        Arc::new(Self {
            client,
            looking: tokio::sync::Mutex::new(Looked::default()),
        })
    }

    /// Indexes the sessions that changed since the last look; skipped while a look runs.
    pub async fn look(&self, recall: &ActorRef<RecallMsg>) {
        let Ok(mut looked) = self.looking.try_lock() else {
            return;
        };
        match self.read(recall, looked.newest_ms).await {
            Ok((read, newest_ms)) => {
                if looked.failing.take().is_some() {
                    tracing::info!(
                        "recall reads OpenClaw's sessions again from {}",
                        self.client.url()
                    );
                }
                if read > 0 {
                    tracing::debug!("recall indexed {read} OpenClaw sessions");
                }
                looked.newest_ms = looked.newest_ms.max(newest_ms);
            }
            Err(error) => {
                if looked.failing.as_deref() != Some(error.as_str()) {
                    tracing::warn!(
                        "recall cannot read OpenClaw's sessions: {error}; it tries again every {}s",
                        crate::recall::actor::TRANSCRIPTS_PERIOD.as_secs()
                    );
                    looked.failing = Some(error);
                }
            }
        }
    }

    /// Lists the sessions changed since `since_ms`, reads those the index lacks, and hands
    /// them to it; returns how many were read and the newest change seen.
    async fn read(
        &self,
        recall: &ActorRef<RecallMsg>,
        since_ms: u64,
    ) -> Result<(usize, u64), String> {
        let rows = self.changed_since(since_ms).await.map_err(|e| e.message)?;
        let newest_ms = rows.iter().map(|row| row.updated_ms).max().unwrap_or(0);
        let marks = rows
            .iter()
            .map(|row| (row.document_key(), row.updated_ms))
            .collect();
        let asked = recall
            .call(|reply| RecallMsg::Unread(marks, reply), Some(ACTOR_TIMEOUT))
            .await;
        let unread =
            from_call("recall actor", ACTOR_TIMEOUT, asked).map_err(|error| error.message)?;
        let mut read = 0;
        let to_read: Vec<&SessionRow> = rows
            .iter()
            .filter(|row| unread.contains(&row.document_key()))
            .collect();
        for batch in to_read.chunks(PUT_BATCH) {
            let mut documents = Vec::with_capacity(batch.len());
            let mut marks = Vec::with_capacity(batch.len());
            for row in batch {
                let history = self
                    .client
                    .request(
                        "chat.history",
                        json!({"sessionKey": row.key, "limit": HISTORY_LIMIT}),
                    )
                    .await
                    .map_err(|e| e.message)?;
                // The key's transcript may have been reset since it was listed: the next
                // look reads the new one.
                if history["sessionId"]
                    .as_str()
                    .is_some_and(|id| id != row.session_id)
                {
                    continue;
                }
                documents.extend(session_document(row, &history));
                marks.push((row.document_key(), row.updated_ms));
            }
            read += marks.len();
            recall
                .cast(RecallMsg::PutSessions(documents, marks))
                .map_err(|_| "the recall index stopped".to_owned())?;
        }
        Ok((read, newest_ms))
    }

    /// The rows of `sessions.list` changed after `since_ms`, page by page, while a page
    /// holds one.
    async fn changed_since(&self, since_ms: u64) -> Result<Vec<SessionRow>, GatewayError> {
        let mut rows = Vec::new();
        let mut offset = 0;
        loop {
            let page = self
                .client
                .request(
                    "sessions.list",
                    json!({"limit": LIST_PAGE, "offset": offset}),
                )
                .await?;
            let listed: Vec<SessionRow> = page["sessions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(SessionRow::from_list)
                .collect();
            let any_changed = listed.iter().any(|row| row.updated_ms > since_ms);
            rows.extend(listed.into_iter().filter(|row| row.updated_ms > since_ms));
            let next = page["nextOffset"].as_u64();
            match next {
                Some(next) if any_changed && next > offset && page["hasMore"] != false => {
                    offset = next;
                }
                _ => return Ok(rows),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row and a history as OpenClaw 2026.9.6 answers them (trimmed of fields lookout does
    /// not read), after one turn against a loopback model: a request, an `exec` call, its
    /// result and the answer.
    fn row() -> Value {
        json!({"key": "agent:main:ops", "kind": "direct", "agentId": "main", "isMain": false,
               "updatedAt": 1_795_995_456_503_u64,
               "sessionId": "73d7f0f4-5675-4d36-9c30-52b73515589b"})
    }

    fn history() -> Value {
        json!({"sessionKey": "agent:main:ops",
               "sessionId": "73d7f0f4-5675-4d36-9c30-52b73515589b", "totalMessages": 5,
               "messages": [
            {"role": "user", "content": "run the disk check on web-3 then rotate the nginx logs",
             "timestamp": 1_795_995_382_947_u64, "idempotencyKey": "k2:user"},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "call_1", "name": "exec",
              "arguments": {"command": "OPENAI_API_KEY=sk-proj-Zq4abcdefghijklmnopqrstuvwx1234 df -h /var"}}],
             "stopReason": "toolUse", "timestamp": 1_795_995_383_303_u64},
            {"role": "toolResult", "toolCallId": "call_1", "toolName": "exec",
             "content": [{"type": "text", "text": "/dev/vda 252G 34G 58G 37% /"}],
             "isError": false, "timestamp": 1_795_995_383_727_u64},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "call_2", "name": "lookout__task_register",
              "arguments": {"name": "Rotate nginx logs", "plan": ["Check disk", "Rotate"]}}],
             "timestamp": 1_795_995_383_800_u64},
            {"role": "toolResult", "toolCallId": "call_2", "toolName": "lookout__task_register",
             "content": [{"type": "text", "text": "{\"task_id\": \"t-4k2m9p\", \"message\": \"registered\"}"}],
             "isError": false, "timestamp": 1_795_995_383_900_u64},
            {"role": "toolResult", "toolCallId": "call_3", "toolName": "exec",
             "content": [{"type": "text", "text": "logrotate: error: bad config"}],
             "isError": true, "timestamp": 1_795_995_384_000_u64},
            {"role": "assistant", "content": [{"type": "text", "text": "Disk usage is fine; the logs are rotated."}],
             "stopReason": "stop", "timestamp": 1_795_995_384_743_u64}
        ]})
    }

    #[test]
    fn a_listed_session_becomes_one_redacted_document_tied_to_its_task() {
        let row = SessionRow::from_list(&row()).unwrap();
        assert_eq!(row.agent, "main");
        let document = session_document(&row, &history()).unwrap();
        assert_eq!(
            document.key,
            "transcript:openclaw:73d7f0f4-5675-4d36-9c30-52b73515589b"
        );
        assert_eq!(
            document.title,
            "run the disk check on web-3 then rotate the nginx logs"
        );
        assert_eq!(document.app.as_deref(), Some("openclaw:main"));
        assert_eq!(document.task_id.as_deref(), Some("t-4k2m9p"));
        let steps: Vec<&str> = document.steps.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            steps[0],
            "Asked: run the disk check on web-3 then rotate the nginx logs"
        );
        assert!(
            steps.iter().any(|s| s.starts_with("Ran: OPENAI_API_KEY=")),
            "{steps:?}"
        );
        assert!(
            steps.contains(&"Failed: logrotate: error: bad config"),
            "{steps:?}"
        );
        assert!(
            steps.contains(&"Answered: Disk usage is fine; the logs are rotated."),
            "{steps:?}"
        );
        assert!(document.body.contains("/dev/vda 252G"), "{}", document.body);
        assert!(!document.body.contains("sk-proj-Zq4"), "{}", document.body);
        assert!(
            document
                .summary
                .starts_with("OpenClaw session agent:main:ops (agent main): 1 request, 1 command"),
            "{}",
            document.summary
        );
        assert_eq!(document.end_ms - document.start_ms, 1_796);
    }

    #[test]
    fn a_row_without_an_agent_takes_it_from_its_key_and_one_without_a_session_is_skipped() {
        let row = SessionRow::from_list(
            &json!({"key": "agent:ops:cron:nightly", "sessionId": "s-1", "updatedAt": 5}),
        )
        .unwrap();
        assert_eq!(row.agent, "ops");
        assert!(SessionRow::from_list(&json!({"key": "global", "updatedAt": 5})).is_none());
    }

    #[test]
    fn a_session_without_a_request_is_not_a_document() {
        let row = SessionRow::from_list(&row()).unwrap();
        let only_answers = json!({"messages": [
            {"role": "assistant", "content": [{"type": "text", "text": "HEARTBEAT_OK"}],
             "timestamp": 1_795_995_384_743_u64}]});
        assert!(session_document(&row, &only_answers).is_none());
    }
}
