//! A loopback model server for the vision tests: speaks the OpenAI chat-completions or the
//! Anthropic Messages wire format, decodes the image it receives and answers from its
//! pixels ("met" once the frame is mostly green), or from the text for text questions.
//!
//! It checks the key header, counts requests, can hold them (to see the concurrency bound)
//! and can be scripted to fail first (429 with `Retry-After`, 500, a hang, a prose answer),
//! or told how to answer every request ([`ModelServer::answer_with`]). The actors' vision
//! tests and, through the feature `testkit`, the daemon's integration tests use it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::http::{HttpRequest, read_request};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
}

/// A scripted answer, served before the pixel-based ones.
#[derive(Clone, Debug)]
pub enum Scripted {
    Status {
        code: u16,
        retry_after: Option<u64>,
    },
    /// Never answer (the client's timeout fires).
    Hang,
    /// Answer 200 with this text as the model's message.
    Say(String),
}

/// What the server saw of one request.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// The decoded image: media type, size, mean colour (r, g, b).
    pub image: Option<(String, u32, u32, [u8; 3])>,
    /// The tokens reported, when the server answered with a verdict.
    pub usage: Option<(u64, u64)>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Tokens the server reports: the input grows with the image, so sums are checkable.
pub fn reported_usage(image: Option<&(String, u32, u32, [u8; 3])>) -> (u64, u64) {
    let pixels = image.map_or(0, |(_, w, h, _)| u64::from(*w) * u64::from(*h));
    (100 + pixels / 1000, 20)
}

/// A caller's rule for the model's answer, given the request body.
type Rule = Arc<dyn Fn(&Value) -> String + Send + Sync>;

struct ServerState {
    wire: Wire,
    rule: Mutex<Option<Rule>>,
    key: Option<String>,
    script: Mutex<VecDeque<Scripted>>,
    seen: Mutex<Vec<Seen>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    open: watch::Sender<bool>,
}

pub struct ModelServer {
    /// What `[vision] base_url` is set to.
    pub base_url: String,
    state: Arc<ServerState>,
}

impl ModelServer {
    /// A server that accepts `key` (or anything, when `None`).
    pub async fn start(wire: Wire, key: Option<&str>) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let base_url = match wire {
            Wire::OpenAi => format!("http://{address}/v1"),
            Wire::Anthropic => format!("http://{address}"),
        };
        let (open, _) = watch::channel(true);
        let state = Arc::new(ServerState {
            wire,
            rule: Mutex::default(),
            key: key.map(str::to_owned),
            script: Mutex::default(),
            seen: Mutex::default(),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            open,
        });
        let serving = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, serving.clone()));
            }
        });
        ModelServer { base_url, state }
    }

    /// Answers every request that nothing scripted answers with what `rule` says of its
    /// body (the model's text), instead of judging the image or the text itself.
    pub fn answer_with(&self, rule: impl Fn(&Value) -> String + Send + Sync + 'static) {
        *crate::locks::lock(&self.state.rule) = Some(Arc::new(rule));
    }

    pub fn script(&self, answers: impl IntoIterator<Item = Scripted>) {
        crate::locks::lock(&self.state.script).extend(answers);
    }

    /// Every request received so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        crate::locks::lock(&self.state.seen).clone()
    }

    /// Each request's body as JSON text, in arrival order.
    pub fn bodies(&self) -> Vec<String> {
        self.seen()
            .iter()
            .map(|seen| seen.body.to_string())
            .collect()
    }

    pub fn requests(&self) -> usize {
        crate::locks::lock(&self.state.seen).len()
    }

    pub fn in_flight(&self) -> usize {
        self.state.in_flight.load(Ordering::SeqCst)
    }

    pub fn max_in_flight(&self) -> usize {
        self.state.max_in_flight.load(Ordering::SeqCst)
    }

    /// Requests wait unanswered until [`Self::release`].
    pub fn hold(&self) {
        self.state.open.send_replace(false);
    }

    pub fn release(&self) {
        self.state.open.send_replace(true);
    }

    /// The tokens the server reported in its answers with a verdict.
    pub fn reported_tokens(&self) -> (u64, u64) {
        self.seen()
            .iter()
            .filter_map(|seen| seen.usage)
            .fold((0, 0), |(i, o), (di, d_o)| (i + di, o + d_o))
    }
}

async fn serve(mut stream: TcpStream, state: Arc<ServerState>) {
    let Some(HttpRequest {
        path,
        headers,
        body,
        ..
    }) = read_request(&mut stream).await
    else {
        return;
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let header = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.clone())
    };
    let (given_key, expected_path) = match state.wire {
        Wire::OpenAi => (
            header("authorization").and_then(|v| v.strip_prefix("Bearer ").map(str::to_owned)),
            "/v1/chat/completions",
        ),
        Wire::Anthropic => (header("x-api-key"), "/v1/messages"),
    };
    let image = decode_image(state.wire, &body);
    let text = question_text(state.wire, &body);
    let scripted = crate::locks::lock(&state.script).pop_front();
    let (status, extra_headers, reply, usage) = if path != expected_path {
        (
            404,
            String::new(),
            json!({"error": {"message": "no such route"}}),
            None,
        )
    } else if state.key.is_some() && given_key != state.key {
        let shown = given_key.unwrap_or_default();
        let message = format!("Incorrect API key provided: {shown}");
        (
            401,
            String::new(),
            json!({"error": {"type": "authentication_error", "message": message}}),
            None,
        )
    } else if state.wire == Wire::Anthropic && header("anthropic-version").is_none() {
        (
            400,
            String::new(),
            json!({"error": {"message": "anthropic-version header is required"}}),
            None,
        )
    } else {
        match scripted {
            Some(Scripted::Status { code, retry_after }) => (
                code,
                retry_after
                    .map(|s| format!("Retry-After: {s}\r\n"))
                    .unwrap_or_default(),
                json!({"error": {"message": format!("scripted {code}")}}),
                None,
            ),
            Some(Scripted::Hang) => {
                crate::locks::lock(&state.seen).push(Seen {
                    path,
                    headers,
                    body,
                    image,
                    usage: None,
                });
                tokio::time::sleep(Duration::from_secs(120)).await;
                return;
            }
            Some(Scripted::Say(said)) => (
                200,
                String::new(),
                wrap(state.wire, &said, (1, 1)),
                Some((1, 1)),
            ),
            None => {
                let rule = crate::locks::lock(&state.rule).clone();
                let said = match rule {
                    Some(rule) => rule(&body),
                    None => judge(image.as_ref(), &text).to_string(),
                };
                let usage = reported_usage(image.as_ref());
                (
                    200,
                    String::new(),
                    wrap(state.wire, &said, usage),
                    Some(usage),
                )
            }
        }
    };
    crate::locks::lock(&state.seen).push(Seen {
        path,
        headers,
        body,
        image,
        usage,
    });
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let mut open = state.open.subscribe();
    let _ = open.wait_for(|open| *open).await;
    let reply = reply.to_string();
    let response = format!(
        "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\n{extra_headers}Content-Length: {}\r\nConnection: close\r\n\r\n{reply}",
        reply.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
}

/// The model's decision: green frames and text saying BUILD PASSED meet the condition.
fn judge(image: Option<&(String, u32, u32, [u8; 3])>, text: &str) -> Value {
    match image {
        Some((_, width, height, [r, g, b])) => {
            let green = *g > 150 && *r < 100 && *b < 100;
            let colour = if green {
                "green"
            } else if *r > 150 && *g < 100 {
                "red"
            } else {
                "another colour"
            };
            json!({"met": green, "observation": format!("the {width}x{height} window is {colour}")})
        }
        None if text.contains("BUILD PASSED") => {
            json!({"met": true, "observation": "the log says BUILD PASSED"})
        }
        None => json!({"met": false, "observation": "no BUILD PASSED in the text yet"}),
    }
}

/// The provider's answer shape around the model's text.
fn wrap(wire: Wire, said: &str, (input, output): (u64, u64)) -> Value {
    match wire {
        Wire::OpenAi => json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": said}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output},
        }),
        Wire::Anthropic => json!({
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": said}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": input, "output_tokens": output},
        }),
    }
}

/// The user turn's text.
fn question_text(wire: Wire, body: &Value) -> String {
    let user = match wire {
        Wire::OpenAi => body.pointer("/messages/1/content"),
        Wire::Anthropic => body.pointer("/messages/0/content"),
    };
    match user {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Finds the image in the request, decodes it and averages its pixels.
fn decode_image(wire: Wire, body: &Value) -> Option<(String, u32, u32, [u8; 3])> {
    let (media_type, data) = match wire {
        Wire::OpenAi => {
            let parts = body.pointer("/messages/1/content")?.as_array()?;
            let url = parts
                .iter()
                .find_map(|part| part.pointer("/image_url/url").and_then(Value::as_str))?;
            let (head, data) = url.strip_prefix("data:")?.split_once(";base64,")?;
            (head.to_owned(), data.to_owned())
        }
        Wire::Anthropic => {
            let parts = body.pointer("/messages/0/content")?.as_array()?;
            let source = parts
                .iter()
                .find(|part| part.get("type").and_then(Value::as_str) == Some("image"))?
                .get("source")?;
            assert_eq!(source.get("type").and_then(Value::as_str), Some("base64"));
            (
                source.get("media_type")?.as_str()?.to_owned(),
                source.get("data")?.as_str()?.to_owned(),
            )
        }
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    let (width, height, rgb) = match media_type.as_str() {
        "image/png" => {
            let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
                .read_info()
                .ok()?;
            let mut pixels = vec![0; reader.output_buffer_size()?];
            let info = reader.next_frame(&mut pixels).ok()?;
            assert_eq!(info.color_type, png::ColorType::Rgb);
            pixels.truncate(info.buffer_size());
            (info.width, info.height, pixels)
        }
        "image/jpeg" => {
            let mut decoder = zune_jpeg::JpegDecoder::new(std::io::Cursor::new(bytes));
            let pixels = decoder.decode().ok()?;
            let (width, height) = decoder.dimensions()?;
            (width as u32, height as u32, pixels)
        }
        other => panic!("unexpected image type {other}"),
    };
    let count = (rgb.len() / 3).max(1) as u64;
    let mut sums = [0u64; 3];
    for pixel in rgb.chunks_exact(3) {
        for (sum, value) in sums.iter_mut().zip(pixel) {
            *sum += u64::from(*value);
        }
    }
    let mean = sums.map(|sum| (sum / count) as u8);
    Some((media_type, width, height, mean))
}
