//! What the HTTP backends share: sending one request, and turning every way it can fail
//! into an [`AttemptError`] that says how to fix it and whether to retry.
//!
//! Keys travel only in headers and are scrubbed from anything a provider echoes back, so
//! they never reach a log, an error or a status.

use std::time::Duration;

use serde_json::Value;

use crate::vision::backend::{ApiKey, AttemptError, RetryHint};

/// The longest provider error text quoted in a message.
const QUOTED_ERROR_CHARS: usize = 300;

/// Where requests go, for error messages.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The configured `base_url` as the user wrote it (trailing `/` removed).
    pub base_url: String,
    /// The full URL posted to.
    pub url: reqwest::Url,
    pub key: Option<ApiKey>,
    pub timeout: Duration,
}

impl Endpoint {
    pub fn new(
        base_url: &str,
        path: &str,
        key: Option<ApiKey>,
        timeout: Duration,
    ) -> Result<Endpoint, String> {
        let base_url = base_url.trim().trim_end_matches('/').to_owned();
        let url = reqwest::Url::parse(&format!("{base_url}{path}"))
            .map_err(|error| format!("[vision] base_url = {base_url:?} is not a URL: {error}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "[vision] base_url = {base_url:?} must start with http:// or https://"
            ));
        }
        Ok(Endpoint {
            base_url,
            url,
            key,
            timeout,
        })
    }

    /// Posts `body`; the JSON of a 2xx answer, or the failure.
    pub async fn post(
        &self,
        request: reqwest::RequestBuilder,
        body: &Value,
    ) -> Result<Value, AttemptError> {
        let response = request
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|error| self.transport_failure(&error))?;
        let status = response.status();
        let headers = response.headers().clone();
        let text = response
            .text()
            .await
            .map_err(|error| self.transport_failure(&error))?;
        if status.is_success() {
            return serde_json::from_str(&text).map_err(|_| {
                AttemptError::permanent(
                    format!(
                        "{} answered HTTP {} with something that is not JSON: {}; check [vision] base_url",
                        self.base_url,
                        status.as_u16(),
                        self.scrub(&quote(&text))
                    ),
                    true,
                )
            });
        }
        Err(self.status_failure(status.as_u16(), &headers, &text))
    }

    fn transport_failure(&self, error: &reqwest::Error) -> AttemptError {
        if error.is_timeout() {
            AttemptError::transient(
                format!(
                    "no answer from {} within {}s; raise [vision] timeout_s for a slow model",
                    self.base_url,
                    self.timeout.as_secs_f32()
                ),
                true,
            )
        } else if error.is_connect() {
            AttemptError::transient(
                format!(
                    "cannot connect to {}: {}; is the model server running and [vision] base_url right?",
                    self.base_url,
                    innermost(error)
                ),
                false,
            )
        } else {
            AttemptError::transient(
                format!(
                    "the request to {} failed: {}",
                    self.base_url,
                    innermost(error)
                ),
                true,
            )
        }
    }

    fn status_failure(
        &self,
        status: u16,
        headers: &reqwest::header::HeaderMap,
        body: &str,
    ) -> AttemptError {
        let said = self.scrub(&provider_message(body));
        let prefix = format!("HTTP {status} from {}", self.base_url);
        match status {
            401 | 403 => {
                let fix = match &self.key {
                    Some(key) => format!("check the key in ${}", key.variable),
                    None => "the server wants a key: set [vision] api_key_env to the environment \
                             variable that holds it"
                        .to_owned(),
                };
                AttemptError::permanent(format!("{prefix}: {fix} ({said})"), true)
            }
            404 => AttemptError::permanent(
                format!(
                    "{prefix}: check [vision] base_url (lookout posts to {}) and that [vision] model exists there ({said})",
                    self.url
                ),
                true,
            ),
            429 => AttemptError {
                message: format!(
                    "{prefix}: rate limited; lower [vision] max_concurrency or raise min_interval_s ({said})"
                ),
                retry: Some(RetryHint {
                    after: retry_after(headers),
                    rate_limited: true,
                }),
                reached_model: true,
            },
            408 | 409 | 500..=599 => AttemptError {
                message: format!("{prefix}: {said}"),
                retry: Some(RetryHint {
                    after: retry_after(headers),
                    rate_limited: false,
                }),
                reached_model: true,
            },
            400 | 413 | 422 => AttemptError::permanent(
                format!(
                    "{prefix}: the request was refused ({said}); check that [vision] model accepts images, \
                     or lower max_image_px"
                ),
                true,
            ),
            _ => AttemptError::permanent(format!("{prefix}: {said}"), true),
        }
    }

    /// `text` with the key, if it appears, replaced by `***`.
    pub fn scrub(&self, text: &str) -> String {
        match &self.key {
            Some(key) if !key.secret.expose().is_empty() => {
                text.replace(key.secret.expose(), "***")
            }
            _ => text.to_owned(),
        }
    }
}

/// `Retry-After` in seconds (or `retry-after-ms`); HTTP dates are left to the backoff.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return (ms.is_finite() && ms >= 0.0).then(|| Duration::from_secs_f64(ms / 1000.0));
    }
    let seconds = header("retry-after")?.parse::<f64>().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The provider's own words: `error.message` (OpenAI, Anthropic), `error` (Ollama), else
/// the start of the body.
fn provider_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|value| {
        value
            .pointer("/error/message")
            .or_else(|| value.get("error"))
            .or_else(|| value.get("message"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    match message {
        Some(message) => quote(&message),
        None if body.trim().is_empty() => "empty body".to_owned(),
        None => quote(body),
    }
}

fn quote(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut quoted: String = flat.chars().take(QUOTED_ERROR_CHARS).collect();
    if quoted.len() < flat.len() {
        quoted.push('…');
    }
    quoted
}

/// The most specific cause of a reqwest error ("connection refused", not "error sending
/// request for url …").
fn innermost(error: &reqwest::Error) -> String {
    let mut source: &dyn std::error::Error = error;
    while let Some(next) = source.source() {
        source = next;
    }
    source.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wake::sinks::Secret;

    fn endpoint(key: Option<&str>) -> Endpoint {
        Endpoint::new(
            "https://api.example.com/v1/",
            "/chat/completions",
            key.map(|secret| ApiKey {
                variable: "OPENAI_API_KEY".into(),
                secret: Secret::new(secret),
            }),
            Duration::from_secs(30),
        )
        .unwrap()
    }

    #[test]
    fn urls_join_without_doubled_slashes_and_bad_ones_are_refused() {
        assert_eq!(
            endpoint(None).url.as_str(),
            "https://api.example.com/v1/chat/completions"
        );
        assert!(Endpoint::new("localhost:8080", "/x", None, Duration::ZERO).is_err());
        assert!(Endpoint::new("ftp://host", "/x", None, Duration::ZERO).is_err());
    }

    #[test]
    fn auth_failures_name_the_variable_and_never_the_key() {
        let body = r#"{"error": {"message": "Incorrect API key provided: sk-secret-123"}}"#;
        let error = endpoint(Some("sk-secret-123")).status_failure(401, &Default::default(), body);
        assert_eq!(
            error.message,
            "HTTP 401 from https://api.example.com/v1: check the key in $OPENAI_API_KEY \
             (Incorrect API key provided: ***)"
        );
        assert!(error.retry.is_none());
        let keyless = endpoint(None).status_failure(401, &Default::default(), "");
        assert!(
            keyless.message.contains("set [vision] api_key_env"),
            "{}",
            keyless.message
        );
    }

    #[test]
    fn rate_limits_and_server_errors_are_retried_with_their_retry_after() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("retry-after", "7".parse().unwrap());
        let limited = endpoint(None).status_failure(429, &headers, r#"{"error": "slow down"}"#);
        assert_eq!(
            limited.retry,
            Some(RetryHint {
                after: Some(Duration::from_secs(7)),
                rate_limited: true
            })
        );
        assert!(limited.message.contains("slow down"));
        let overloaded = endpoint(None).status_failure(529, &Default::default(), "");
        assert_eq!(
            overloaded.retry,
            Some(RetryHint {
                after: None,
                rate_limited: false
            })
        );
        let bad = endpoint(None).status_failure(400, &Default::default(), "nope");
        assert!(bad.retry.is_none() && bad.message.contains("accepts images"));
        headers.insert("retry-after-ms", "1500".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
        let mut dated = reqwest::header::HeaderMap::new();
        dated.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&dated), None);
    }
}
