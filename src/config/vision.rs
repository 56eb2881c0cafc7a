//! Turning `[vision]` into the tree's vision spec: per-backend defaults, the API key read
//! from the environment variable the config names (only `src/` reads the environment; a
//! missing variable stops the start), and tesseract found on PATH for the ocr backend.

use std::path::PathBuf;
use std::time::Duration;

use actors::vision::backend::{ApiKey, BackendSpec};
use actors::vision::image::{ImageFormat, ImageSettings};
use actors::vision::{VisionSettings, VisionSpec};
use actors::wake::sinks::Secret;
use anyhow::bail;

use crate::config::{VisionBackend, VisionConfig, VisionImageFormat};

pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// The vision spec, and one line saying what it is for the start-up log (never a key).
#[derive(Debug)]
pub struct ResolvedVision {
    pub spec: VisionSpec,
    pub summary: String,
}

/// Resolves `[vision]`. `env` reads an environment variable; `which` finds a program on PATH.
pub fn resolve(
    config: &VisionConfig,
    env: impl Fn(&str) -> Option<String>,
    which: impl Fn(&str) -> Option<PathBuf>,
) -> anyhow::Result<ResolvedVision> {
    let settings = VisionSettings {
        max_concurrency: config.max_concurrency,
        min_interval: Duration::from_secs(config.min_interval_s),
        retries: config.retries,
        timeout: Duration::from_secs(config.timeout_s),
    };
    let image = ImageSettings {
        max_px: config.max_image_px,
        format: match config.image_format {
            VisionImageFormat::Png => ImageFormat::Png,
            VisionImageFormat::Jpeg => ImageFormat::Jpeg {
                quality: config.jpeg_quality,
            },
        },
    };
    let backend_name = config.backend.as_str();
    let model_only = |key: &str, set: bool| -> anyhow::Result<()> {
        if set {
            bail!(
                "[vision] {key} is set but backend = \"{backend_name}\" does not use it; \
                 set backend = \"openai\" or \"anthropic\", or remove {key}"
            );
        }
        Ok(())
    };
    let limits = format!(
        "at most {} calls at once, {} s apart per wait",
        settings.max_concurrency,
        settings.min_interval.as_secs()
    );
    let (backend, summary) = match config.backend {
        VisionBackend::None | VisionBackend::Ocr => {
            model_only("base_url", config.base_url.is_some())?;
            model_only("model", config.model.is_some())?;
            model_only("api_key_env", config.api_key_env.is_some())?;
            if config.backend == VisionBackend::None {
                (
                    BackendSpec::None,
                    "vision: none (no model configured: quoted phrases, exits, errors, numbers and \
                     quiet output are still judged locally; a condition only a model can judge wakes \
                     as `changed` at the first settled change; see [vision] in the README)"
                        .to_owned(),
                )
            } else {
                let Some(program) = which("tesseract") else {
                    bail!(
                        "[vision] backend = \"ocr\" needs the tesseract program on PATH; install it \
                         (apt-get install tesseract-ocr) or choose another backend"
                    );
                };
                let program = program.display().to_string();
                let summary = format!("vision: ocr with {program}, {limits}");
                (BackendSpec::Ocr { program }, summary)
            }
        }
        VisionBackend::Openai | VisionBackend::Anthropic => {
            let Some(model) = config.model.clone().filter(|m| !m.trim().is_empty()) else {
                bail!(
                    "[vision] backend = \"{backend_name}\" needs model = \"…\": a model that accepts \
                     images, e.g. \"gpt-4o-mini\", \"claude-haiku-4-5\", or the name your local server serves"
                );
            };
            let anthropic = config.backend == VisionBackend::Anthropic;
            let base_url = config.base_url.clone().unwrap_or_else(|| {
                if anthropic {
                    ANTHROPIC_BASE_URL
                } else {
                    OPENAI_BASE_URL
                }
                .to_owned()
            });
            let default_variable = match (anthropic, config.base_url.is_none()) {
                (true, _) => Some("ANTHROPIC_API_KEY"),
                (false, true) => Some("OPENAI_API_KEY"),
                (false, false) => None,
            };
            let variable = match &config.api_key_env {
                Some(named) if named.is_empty() => None,
                Some(named) => Some(named.clone()),
                None => default_variable.map(str::to_owned),
            };
            let api_key = match variable {
                None => None,
                Some(variable) => match env(&variable).filter(|value| !value.trim().is_empty()) {
                    Some(value) => Some(ApiKey {
                        variable,
                        secret: Secret::new(value.trim()),
                    }),
                    None => bail!(
                        "[vision] backend = \"{backend_name}\" reads its API key from the environment \
                         variable {variable}, which is not set; export it before starting lookout (or \
                         set it in the service unit with Environment= or EnvironmentFile=), or name \
                         another variable with [vision] api_key_env"
                    ),
                },
            };
            let key_words = match &api_key {
                Some(key) => format!("key from ${}", key.variable),
                None => "no key".to_owned(),
            };
            let summary =
                format!("vision: {backend_name} {model} at {base_url} ({key_words}), {limits}");
            let backend = if anthropic {
                let Some(api_key) = api_key else {
                    bail!(
                        "[vision] backend = \"anthropic\" needs a key: set api_key_env to the \
                         variable that holds it (default ANTHROPIC_API_KEY)"
                    );
                };
                BackendSpec::Anthropic {
                    base_url,
                    model,
                    api_key,
                }
            } else {
                BackendSpec::OpenAi {
                    base_url,
                    model,
                    api_key,
                }
            };
            (backend, summary)
        }
    };
    Ok(ResolvedVision {
        spec: VisionSpec {
            backend,
            settings,
            image,
        },
        summary,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Config;

    fn config(text: &str) -> VisionConfig {
        Config::parse(text, Path::new("test.toml")).unwrap().vision
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn no_program(_: &str) -> Option<PathBuf> {
        None
    }

    #[test]
    fn nothing_configured_is_the_none_backend_and_says_so() {
        let resolved = resolve(&config(""), no_env, no_program).unwrap();
        assert!(matches!(resolved.spec.backend, BackendSpec::None));
        assert!(resolved.summary.contains("no model configured"));
        assert_eq!(resolved.spec.settings, VisionSettings::default());
        assert_eq!(resolved.spec.image, ImageSettings::default());
    }

    #[test]
    fn openai_reads_the_key_from_the_named_variable_and_never_shows_it() {
        let text = "[vision]\nbackend = \"openai\"\nmodel = \"gpt-4o-mini\"\n";
        let resolved = resolve(
            &config(text),
            |name| (name == "OPENAI_API_KEY").then(|| "sk-live-123\n".to_owned()),
            no_program,
        )
        .unwrap();
        let BackendSpec::OpenAi {
            base_url, api_key, ..
        } = &resolved.spec.backend
        else {
            panic!("{:?}", resolved.spec.backend)
        };
        assert_eq!(base_url, OPENAI_BASE_URL);
        let key = api_key.as_ref().unwrap();
        assert_eq!(
            (key.variable.as_str(), key.secret.expose()),
            ("OPENAI_API_KEY", "sk-live-123")
        );
        assert_eq!(
            resolved.summary,
            "vision: openai gpt-4o-mini at https://api.openai.com/v1 (key from $OPENAI_API_KEY), \
             at most 2 calls at once, 5 s apart per wait"
        );
        assert!(!format!("{resolved:?}").contains("sk-live-123"));
    }

    #[test]
    fn a_missing_key_variable_is_a_start_up_error_naming_it() {
        let text = "[vision]\nbackend = \"openai\"\nmodel = \"gpt-4o-mini\"\n";
        let error = resolve(&config(text), no_env, no_program).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("environment variable OPENAI_API_KEY, which is not set"),
            "{error}"
        );
        let custom =
            "[vision]\nbackend = \"anthropic\"\nmodel = \"claude\"\napi_key_env = \"MY_KEY\"\n";
        let error = resolve(&config(custom), no_env, no_program).unwrap_err();
        assert!(error.to_string().contains("variable MY_KEY"), "{error}");
    }

    #[test]
    fn local_servers_need_no_key_and_anthropic_has_its_defaults() {
        let local = "[vision]\nbackend = \"openai\"\nmodel = \"llava\"\nbase_url = \"http://127.0.0.1:11434/v1\"\n";
        let resolved = resolve(&config(local), no_env, no_program).unwrap();
        assert!(matches!(
            resolved.spec.backend,
            BackendSpec::OpenAi { api_key: None, .. }
        ));
        assert!(resolved.summary.contains("(no key)"));
        let anthropic = "[vision]\nbackend = \"anthropic\"\nmodel = \"claude-haiku-4-5\"\nimage_format = \"jpeg\"\njpeg_quality = 70\n";
        let resolved = resolve(
            &config(anthropic),
            |name| (name == "ANTHROPIC_API_KEY").then(|| "k".to_owned()),
            no_program,
        )
        .unwrap();
        assert!(
            matches!(&resolved.spec.backend, BackendSpec::Anthropic { base_url, .. } if base_url == ANTHROPIC_BASE_URL)
        );
        assert_eq!(
            resolved.spec.image.format,
            ImageFormat::Jpeg { quality: 70 }
        );
    }

    #[test]
    fn misconfigurations_say_what_to_set() {
        let no_model = "[vision]\nbackend = \"openai\"\n";
        let error = resolve(&config(no_model), no_env, no_program).unwrap_err();
        assert!(error.to_string().contains("needs model = "), "{error}");
        let stray = "[vision]\nmodel = \"gpt-4o\"\n";
        let error = resolve(&config(stray), no_env, no_program).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("backend = \"none\" does not use it"),
            "{error}"
        );
        let ocr = "[vision]\nbackend = \"ocr\"\n";
        let error = resolve(&config(ocr), no_env, no_program).unwrap_err();
        assert!(
            error.to_string().contains("apt-get install tesseract-ocr"),
            "{error}"
        );
        let found = resolve(&config(ocr), no_env, |_| {
            Some(PathBuf::from("/usr/bin/tesseract"))
        })
        .unwrap();
        assert!(
            matches!(&found.spec.backend, BackendSpec::Ocr { program } if program == "/usr/bin/tesseract")
        );
    }
}
