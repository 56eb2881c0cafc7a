//! A line's reply, built within the memory budget: each answer's bytes are taken from the
//! pool as it joins the reply (beyond the small share a connection has of its own), never
//! waited for, so no reply exceeds the budget even for a moment.
//!
//! A batch runs its entries in order. Entries that are not requests are answered one by
//! one up to `INVALID_ENTRIES_SHOWN`, the rest with one shared error; once the batch's
//! replies reach `MAX_BATCH_REPLY_BYTES`, or the pool has no bytes for the next answer, the
//! entries left are not run and one shared error says which. An answer the pool cannot take
//! is replaced by a short error with its id saying the call ran and to read its result back.

use serde_json::Value;
use serde_json::value::RawValue;

use super::Session;
use super::budget::{Budget, Held, MAX_BATCH_REPLY_BYTES, MAX_REPLY_BYTES, SMALL_REPLY_BYTES};
use crate::jsonrpc::{self, Incoming, Request, RpcError, codes};
use crate::tools::methods::{Methods, Output};
use crate::tools::params::EventsSubscribeParams;
use crate::tools::spine::Method;

/// Entries of a batch that are not requests answered one by one; the rest share one error.
pub(super) const INVALID_ENTRIES_SHOWN: usize = 8;

/// A reply line and the pool bytes it holds until written.
pub(super) struct Reply {
    pub line: String,
    pub held: Held,
}

impl Reply {
    /// A reply small enough to need nothing from the pool.
    pub fn small(line: String) -> Self {
        Self {
            line,
            held: Held::nothing(),
        }
    }
}

/// One call's answer, before it joins a reply.
struct Answer {
    id: Value,
    method: String,
    text: String,
}

/// Handles one line: a request, a notification or a batch. `None` when nothing is owed.
pub(super) async fn handle_line(
    methods: &Methods,
    session: &mut Session,
    line: &[u8],
    pool: &Budget,
) -> Option<Reply> {
    match jsonrpc::parse_line(line) {
        Err(error_response) => Some(Reply::small(to_line(&error_response))),
        Ok(Incoming::Single(Err(error_response))) => Some(Reply::small(to_line(&error_response))),
        Ok(Incoming::Single(Ok(request))) => {
            let answer = handle_request(methods, session, request).await?;
            let mut reply = ReplyText::new(pool, String::new());
            reply.push_answer(&answer);
            Some(reply.finish(""))
        }
        Ok(Incoming::Batch(entries)) => handle_batch(methods, session, entries, pool).await,
    }
}

async fn handle_batch(
    methods: &Methods,
    session: &mut Session,
    entries: Vec<&RawValue>,
    pool: &Budget,
) -> Option<Reply> {
    let count = entries.len();
    let mut reply = ReplyText::new(pool, "[".to_owned());
    let mut invalid_shown = 0;
    let mut invalid_unshown = 0;
    let mut not_run: Option<(usize, &str)> = None;
    for (index, entry) in entries.into_iter().enumerate() {
        if reply.bytes() > MAX_BATCH_REPLY_BYTES {
            not_run = Some((index, "its replies reached the batch's budget"));
            break;
        }
        // Past its small share a batch's replies come from the pool: when another client's
        // replies hold most of it, what is left is not run rather than built and refused.
        if reply.pool_refused || (reply.bytes() > SMALL_REPLY_BYTES && pool.is_low()) {
            not_run = Some((index, "the daemon's memory for replies ran short"));
            break;
        }
        if index > 0 {
            // A long batch takes turns with every other connection's calls.
            tokio::task::yield_now().await;
        }
        match jsonrpc::check_entry(entry) {
            Err(error_response) if invalid_shown < INVALID_ENTRIES_SHOWN => {
                invalid_shown += 1;
                reply.push_unbudgeted(&error_response.to_string());
            }
            Err(_) => invalid_unshown += 1,
            Ok(request) => {
                if let Some(answer) = handle_request(methods, session, request).await {
                    reply.push_answer(&answer);
                }
            }
        }
    }
    if invalid_unshown > 0 {
        let error = RpcError::new(
            codes::INVALID_REQUEST,
            format!(
                "and {invalid_unshown} more entries of this batch of {count} are not requests \
                 (the first {INVALID_ENTRIES_SHOWN} were answered one by one)"
            ),
            "each batch entry must be one JSON-RPC 2.0 request object, e.g. \
             {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"task_list\",\"params\":{}}",
        );
        reply.push_unbudgeted(&jsonrpc::error_response(&Value::Null, &error).to_string());
    }
    if let Some((first, why)) = not_run {
        let error = RpcError::new(
            codes::TOO_LARGE,
            format!(
                "entries {first} to {} of this batch of {count} (counting from 0) were not \
                 run: {why}",
                count - 1
            ),
            "send the requests that were not run again, in smaller batches or one by one; \
             nothing in them was done",
        );
        reply.push_unbudgeted(&jsonrpc::error_response(&Value::Null, &error).to_string());
    }
    (reply.answers > 0).then(|| reply.finish("]"))
}

/// Runs one request; its answer, or `None` for a notification.
async fn handle_request(
    methods: &Methods,
    session: &mut Session,
    request: Request,
) -> Option<Answer> {
    // The one method that belongs to the connection rather than to the tree.
    let outcome = if request.method == Method::EventsSubscribe.name() {
        match crate::tools::params::decode::<EventsSubscribeParams>(
            Method::EventsSubscribe,
            request.params,
        )
        .and_then(EventsSubscribeParams::validate)
        {
            Ok(missed) => session.subscribe(methods, missed).await.map(Output::Value),
            Err(error) => Err(error),
        }
    } else {
        methods.call(&request.method, request.params).await
    };
    let id = request.id?;
    let text = match outcome {
        Ok(result) => jsonrpc::success_response(&id, &result),
        Err(error) => jsonrpc::error_response(&id, &error).to_string(),
    };
    Some(Answer {
        id,
        method: request.method,
        text,
    })
}

/// A reply being built: its text and the pool bytes it holds for what passes the small
/// share.
struct ReplyText<'pool> {
    pool: &'pool Budget,
    text: String,
    held: Held,
    answers: usize,
    /// The pool could not take an answer: the batch runs nothing more.
    pool_refused: bool,
}

impl<'pool> ReplyText<'pool> {
    fn new(pool: &'pool Budget, text: String) -> Self {
        Self {
            pool,
            text,
            held: Held::nothing(),
            answers: 0,
            pool_refused: false,
        }
    }

    fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Adds an answer whose bytes the pool takes (beyond the small share); one too large
    /// for a reply, or that the pool cannot take now, becomes a short error with its id.
    fn push_answer(&mut self, answer: &Answer) {
        if answer.text.len() > MAX_REPLY_BYTES {
            let error = RpcError::new(
                codes::TOO_LARGE,
                format!(
                    "the reply to {} would be {} bytes, over the budget of {MAX_REPLY_BYTES} \
                     bytes for one reply",
                    answer.method,
                    answer.text.len()
                ),
                "ask for less at once: a smaller limit or max_bytes, and page back (before, \
                 cursor)",
            );
            let text = jsonrpc::error_response(&answer.id, &error).to_string();
            self.push_unbudgeted(&text);
            return;
        }
        let needed = (self.text.len() + answer.text.len() + 1)
            .saturating_sub(SMALL_REPLY_BYTES + self.held.bytes());
        match self.pool.try_take(needed) {
            Some(more) => {
                self.held.merge(more);
                self.push_unbudgeted(&answer.text);
            }
            None => {
                self.pool_refused = true;
                let error = RpcError::new(
                    codes::UNAVAILABLE,
                    format!(
                        "{} ran, but its reply of {} bytes did not fit the memory the daemon \
                         has for replies right now (other clients hold it)",
                        answer.method,
                        answer.text.len()
                    ),
                    "read the result back in a moment (task_get, task_list, wait_status); a \
                     write was made once and must not be repeated blindly",
                );
                let text = jsonrpc::error_response(&answer.id, &error).to_string();
                self.push_unbudgeted(&text);
            }
        }
    }

    /// Adds a short text (an error) without asking the pool.
    fn push_unbudgeted(&mut self, text: &str) {
        if self.answers > 0 {
            self.text.push(',');
        }
        self.text.push_str(text);
        self.answers += 1;
    }

    fn finish(mut self, close: &str) -> Reply {
        self.text.push_str(close);
        self.text.push('\n');
        Reply {
            line: self.text,
            held: self.held,
        }
    }
}

pub(super) fn to_line(value: &Value) -> String {
    let mut line = value.to_string();
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answer(bytes: usize) -> Answer {
        let id = json!(7);
        Answer {
            text: jsonrpc::success_response(&id, &"x".repeat(bytes)),
            id,
            method: "task_get".to_owned(),
        }
    }

    #[test]
    fn an_answer_over_the_reply_budget_becomes_an_error_saying_to_ask_for_less() {
        let pool = Budget::new(64 * 1024 * 1024);
        let mut reply = ReplyText::new(&pool, String::new());
        reply.push_answer(&answer(MAX_REPLY_BYTES));
        let reply = reply.finish("");
        let refused: Value = serde_json::from_str(&reply.line).unwrap();
        assert_eq!(refused["id"], 7);
        assert_eq!(refused["error"]["code"], codes::TOO_LARGE);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("task_get")
        );
        assert!(
            refused["error"]["data"]["hint"]
                .as_str()
                .unwrap()
                .contains("max_bytes")
        );
        assert_eq!(reply.held.bytes(), 0);
    }

    #[test]
    fn a_large_answer_holds_its_bytes_beyond_the_small_share_and_gives_them_back() {
        let pool = Budget::new(1024 * 1024);
        let mut reply = ReplyText::new(&pool, String::new());
        reply.push_answer(&answer(300 * 1024));
        let reply = reply.finish("");
        assert_eq!(reply.held.bytes(), reply.line.len() - SMALL_REPLY_BYTES);
        assert_eq!(pool.available(), 1024 * 1024 - reply.held.bytes());
        drop(reply);
        assert_eq!(pool.available(), 1024 * 1024);
    }

    #[test]
    fn an_answer_the_pool_cannot_take_becomes_a_short_error_that_says_the_call_ran() {
        let pool = Budget::new(100 * 1024);
        let mut reply = ReplyText::new(&pool, String::new());
        reply.push_answer(&answer(300 * 1024));
        assert!(reply.pool_refused);
        let reply = reply.finish("");
        assert!(reply.line.len() < 1024, "{}", reply.line);
        let refused: Value = serde_json::from_str(&reply.line).unwrap();
        assert_eq!(refused["id"], 7);
        assert_eq!(refused["error"]["code"], codes::UNAVAILABLE);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("task_get ran")
        );
        assert_eq!(pool.available(), 100 * 1024, "nothing was taken");
    }
}
