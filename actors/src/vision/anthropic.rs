//! `AnthropicJudge`: the Anthropic Messages API.
//!
//! POST `{base_url}/v1/messages` with `x-api-key`, `anthropic-version` and a user turn
//! holding a base64 image block (for frames) and the question.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::clock::BoxFuture;
use crate::condition::judge::Usage;
use crate::error::CallError;
use crate::http;
use crate::sight::content::Content;
use crate::vision::backend::{Answer, ApiKey, AttemptError, Backend, Cost, Material, Question};
use crate::vision::image::ImageSettings;
use crate::vision::openai::prepare_for_model;
use crate::vision::prompt::{SYSTEM_PROMPT, parse_verdict, user_text};
use crate::vision::remote::Endpoint;

/// The API version lookout speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Room for the short answer asked for (the API requires a limit).
const MAX_ANSWER_TOKENS: u32 = 400;

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

    /// The request body for a question.
    pub fn body(&self, question: &Question) -> Value {
        let mut content = Vec::new();
        if let Material::Image(image) = &*question.material {
            content.push(json!({
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": image.media_type,
                    "data": base64::engine::general_purpose::STANDARD.encode(&image.bytes),
                },
            }));
        }
        content.push(json!({"type": "text", "text": user_text(question)}));
        json!({
            "model": self.model,
            "max_tokens": MAX_ANSWER_TOKENS,
            "system": SYSTEM_PROMPT,
            "messages": [{"role": "user", "content": content}],
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
        let body = self.body(&question);
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
            let (met, observation) = parse_verdict(&said.join("\n"))
                .map_err(|error| AttemptError::permanent(endpoint.scrub(&error), true))?;
            let count = |key: &str| {
                reply
                    .pointer(&format!("/usage/{key}"))
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
            };
            Ok(Answer {
                met,
                observation,
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
