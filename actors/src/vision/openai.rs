//! `OpenAiJudge`: an OpenAI-compatible chat-completions endpoint (OpenAI, OpenRouter, vLLM,
//! Ollama, llama.cpp, LM Studio).
//!
//! POST `{base_url}/chat/completions` with a system message and a user message holding the
//! question and, for frames, the image as a `data:` URL; `Authorization: Bearer` only when a
//! key is configured (local servers need none). No `max_tokens` or `temperature`: reasoning
//! models refuse them, and the answer asked for is one short object anyway.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::clock::BoxFuture;
use crate::condition::judge::Usage;
use crate::error::CallError;
use crate::http;
use crate::sight::content::Content;
use crate::vision::backend::{Answer, ApiKey, AttemptError, Backend, Cost, Material, Question};
use crate::vision::image::{ImageSettings, encode_frame};
use crate::vision::prompt::{SYSTEM_PROMPT, parse_verdict, user_text};
use crate::vision::remote::Endpoint;

#[derive(Debug)]
pub struct OpenAiJudge {
    client: reqwest::Client,
    endpoint: Endpoint,
    model: String,
    image: ImageSettings,
}

impl OpenAiJudge {
    pub fn new(
        base_url: &str,
        model: String,
        api_key: Option<ApiKey>,
        image: ImageSettings,
        timeout: Duration,
    ) -> Result<Self, CallError> {
        let endpoint =
            Endpoint::new(base_url, "/chat/completions", api_key, timeout).map_err(|message| {
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
        let text = user_text(question);
        let content = match &*question.material {
            Material::Image(image) => json!([
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": format!(
                    "data:{};base64,{}",
                    image.media_type,
                    base64::engine::general_purpose::STANDARD.encode(&image.bytes)
                )}},
            ]),
            Material::Text { .. } | Material::Absent { .. } => json!(text),
        };
        json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": content},
            ],
        })
    }
}

impl Backend for OpenAiJudge {
    fn describe(&self) -> String {
        format!("openai {} at {}", self.model, self.endpoint.base_url)
    }

    fn cost(&self, _content: &Content) -> Cost {
        Cost::Remote
    }

    fn prepare(&self, content: &Content) -> Result<Material, String> {
        prepare_for_model(content, self.image)
    }

    fn ask(&self, question: Question) -> BoxFuture<Result<Answer, AttemptError>> {
        let body = self.body(&question);
        let mut request = self.client.post(self.endpoint.url.clone());
        if let Some(key) = &self.endpoint.key {
            request = request.bearer_auth(key.secret.expose());
        }
        let endpoint = self.endpoint.clone();
        Box::pin(async move {
            let reply = endpoint.post(request, &body).await?;
            let said = message_text(&reply).ok_or_else(|| {
                let refusal = reply
                    .pointer("/choices/0/message/refusal")
                    .and_then(Value::as_str)
                    .map(|r| format!(" (the model refused: {r})"))
                    .unwrap_or_default();
                AttemptError::permanent(
                    format!(
                        "{} answered without a message in choices[0].message.content{refusal}",
                        endpoint.base_url
                    ),
                    true,
                )
            })?;
            let (met, observation) = parse_verdict(&said)
                .map_err(|error| AttemptError::permanent(endpoint.scrub(&error), true))?;
            let count = |pointer: &str| reply.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
            Ok(Answer {
                met,
                observation,
                usage: Usage {
                    input_tokens: count("/usage/prompt_tokens"),
                    output_tokens: count("/usage/completion_tokens"),
                },
            })
        })
    }
}

/// `choices[0].message.content`: a string, or (some servers) an array of text parts.
fn message_text(reply: &Value) -> Option<String> {
    match reply.pointer("/choices/0/message/content")? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let text: Vec<&str> = parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            (!text.is_empty()).then(|| text.join("\n"))
        }
        _ => None,
    }
}

/// What a model backend sends: frames shrunk and encoded, text and absence as they are.
pub fn prepare_for_model(content: &Content, image: ImageSettings) -> Result<Material, String> {
    Ok(match content {
        Content::Frame(frame) => Material::Image(encode_frame(frame, image)?),
        Content::Text { text, exit, .. } => Material::Text {
            text: text.clone(),
            exit: *exit,
        },
        Content::Absent { description } => Material::Absent {
            description: description.clone(),
        },
    })
}
