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
use crate::vision::backend::{
    Answer, ApiKey, AttemptError, Backend, Completion, Cost, Material, Prompt, Question,
};
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

    /// The request body for a prompt: its text alone, or the text and its images as parts.
    pub fn body(&self, prompt: &Prompt) -> Value {
        let content = if prompt.images.is_empty() {
            json!(prompt.text)
        } else {
            let mut parts = vec![json!({"type": "text", "text": prompt.text})];
            parts.extend(prompt.images.iter().map(|image| {
                json!({"type": "image_url", "image_url": {"url": format!(
                    "data:{};base64,{}",
                    image.media_type,
                    base64::engine::general_purpose::STANDARD.encode(&image.bytes)
                )}})
            }));
            Value::Array(parts)
        };
        json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": content},
            ],
        })
    }

    /// One request: what the model said, and the tokens it reports.
    fn send(&self, prompt: &Prompt) -> BoxFuture<Result<Completion, AttemptError>> {
        let body = self.body(prompt);
        let mut request = self.client.post(self.endpoint.url.clone());
        if let Some(key) = &self.endpoint.key {
            request = request.bearer_auth(key.secret.expose());
        }
        let endpoint = self.endpoint.clone();
        Box::pin(async move {
            let reply = endpoint.post(request, &body).await?;
            let text = message_text(&reply).ok_or_else(|| {
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
            let count = |pointer: &str| reply.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
            Ok(Completion {
                text,
                usage: Usage {
                    input_tokens: count("/usage/prompt_tokens"),
                    output_tokens: count("/usage/completion_tokens"),
                },
            })
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
        ask_verdict(&question, &self.endpoint, |prompt| self.send(prompt))
    }

    fn complete(&self, prompt: Prompt) -> Option<BoxFuture<Result<Completion, AttemptError>>> {
        Some(self.send(&prompt))
    }
}

/// Room for the short verdict asked for.
const VERDICT_TOKENS: u32 = 400;

/// A wait's question asked through `send` (one request of a model backend), and the verdict
/// read off what the model said (a failure quotes it, without the key).
pub fn ask_verdict(
    question: &Question,
    endpoint: &Endpoint,
    send: impl FnOnce(&Prompt) -> BoxFuture<Result<Completion, AttemptError>>,
) -> BoxFuture<Result<Answer, AttemptError>> {
    let sent = send(&verdict_prompt(question));
    let endpoint = endpoint.clone();
    Box::pin(async move {
        let said = sent.await?;
        let (met, observation) = parse_verdict(&said.text)
            .map_err(|error| AttemptError::permanent(endpoint.scrub(&error), true))?;
        Ok(Answer {
            met,
            observation,
            usage: said.usage,
        })
    })
}

/// The verdict asked for a wait's question: the judge's role, the question, its frame.
fn verdict_prompt(question: &Question) -> Prompt {
    Prompt {
        system: SYSTEM_PROMPT.to_owned(),
        text: user_text(question),
        images: match &*question.material {
            Material::Image(image) => vec![image.clone()],
            Material::Text { .. } | Material::Absent { .. } => Vec::new(),
        },
        answer_tokens: VERDICT_TOKENS,
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
