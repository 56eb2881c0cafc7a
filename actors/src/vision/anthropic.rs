//! `AnthropicJudge`: the Anthropic Messages API.
//!
//! POST `{base_url}/v1/messages` with `x-api-key`, `anthropic-version` and a user turn
//! holding base64 image blocks (a frame) and the question.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::clock::BoxFuture;
use crate::condition::judge::Usage;
use crate::error::CallError;
use crate::http;
use crate::sight::content::Content;
use crate::vision::backend::{
    Answer, ApiKey, AttemptError, Backend, Completion, Cost, Material, Prompt, Question,
};
use crate::vision::image::ImageSettings;
use crate::vision::openai::{ask_verdict, prepare_for_model};
use crate::vision::remote::Endpoint;

/// The API version lookout speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

#[derive(Debug)]
pub struct AnthropicJudge {
    client: reqwest::Client,
    endpoint: Endpoint,
    model: String,
    image: ImageSettings,
}

impl AnthropicJudge {
    pub fn new(
        base_url: &str,
        model: String,
        api_key: ApiKey,
        image: ImageSettings,
        timeout: Duration,
    ) -> Result<Self, CallError> {
        let endpoint =
            Endpoint::new(base_url, "/v1/messages", Some(api_key), timeout).map_err(|message| {
                CallError::invalid(message, "fix [vision] base_url in the config")
            })?;
        Ok(Self {
            client: http::client(timeout)?,
            endpoint,
            model,
            image,
        })
    }

    /// The request body for a prompt: its images first, then its text.
    pub fn body(&self, prompt: &Prompt) -> Value {
        let mut content: Vec<Value> = (prompt.images.iter())
            .map(|image| {
                json!({
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": image.media_type,
                        "data": base64::engine::general_purpose::STANDARD.encode(&image.bytes),
                    },
                })
            })
            .collect();
        content.push(json!({"type": "text", "text": prompt.text}));
        json!({
            "model": self.model,
            "max_tokens": prompt.answer_tokens,
            "system": prompt.system,
            "messages": [{"role": "user", "content": content}],
        })
    }

    /// One request: what the model said, and the tokens it reports.
    fn send(&self, prompt: &Prompt) -> BoxFuture<Result<Completion, AttemptError>> {
        let body = self.body(prompt);
        let mut request = self
            .client
            .post(self.endpoint.url.clone())
            .header("anthropic-version", ANTHROPIC_VERSION);
        if let Some(key) = &self.endpoint.key {
            request = request.header("x-api-key", key.secret.expose());
        }
        let endpoint = self.endpoint.clone();
        Box::pin(async move {
            let reply = endpoint.post(request, &body).await?;
            let blocks = reply.get("content").and_then(Value::as_array);
            let said: Vec<&str> = blocks
                .into_iter()
                .flatten()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            if said.is_empty() {
                let stop = reply
                    .get("stop_reason")
                    .and_then(Value::as_str)
                    .unwrap_or("none");
                return Err(AttemptError::permanent(
                    format!(
                        "{} answered without a text block (stop_reason: {stop})",
                        endpoint.base_url
                    ),
                    true,
                ));
            }
            let count = |key: &str| {
                reply
                    .pointer(&format!("/usage/{key}"))
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
            };
            Ok(Completion {
                text: said.join("\n"),
                usage: Usage {
                    // Cached prompt tokens are input too; Anthropic reports them apart.
                    input_tokens: count("input_tokens")
                        + count("cache_creation_input_tokens")
                        + count("cache_read_input_tokens"),
                    output_tokens: count("output_tokens"),
                },
            })
        })
    }
}

impl Backend for AnthropicJudge {
    fn describe(&self) -> String {
        format!("anthropic {} at {}", self.model, self.endpoint.base_url)
    }

    fn cost(&self, _content: &Content) -> Cost {
        Cost::Remote
    }

    fn prepare(&self, content: &Content) -> Result<Material, String> {
        prepare_for_model(content, self.image)
    }

    fn ask(&self, question: Question) -> BoxFuture<Result<Answer, AttemptError>> {
        ask_verdict(&question, &self.endpoint, |prompt| self.send(prompt))
    }

    fn complete(&self, prompt: Prompt) -> Option<BoxFuture<Result<Completion, AttemptError>>> {
        Some(self.send(&prompt))
    }
}
