//! Turning `[[wake.sinks]]` into the tree's sink specs: names, bearer tokens read from the
//! environment (only `src/` reads it), and the OpenClaw default when nothing is configured.

use std::path::PathBuf;
use std::time::Duration;

use actors::wake::sinks::{Secret, SinkSpec};
use anyhow::bail;

use crate::config::{SinkConfig, WakeConfig};

/// The sinks to build, and one line saying what they are for the start-up log.
#[derive(Debug)]
pub struct ResolvedSinks {
    pub specs: Vec<SinkSpec>,
    pub summary: String,
}

/// Resolves the configured sinks. `env` reads an environment variable; `which` finds a
/// program on PATH. With no sink configured (and `others_attached` false) and `openclaw` on
/// PATH, that is the sink.
pub fn resolve(
    config: &WakeConfig,
    others_attached: bool,
    env: impl Fn(&str) -> Option<String>,
    which: impl Fn(&str) -> Option<PathBuf>,
) -> anyhow::Result<ResolvedSinks> {
    if config.sinks.is_empty() && others_attached {
        return Ok(ResolvedSinks {
            specs: Vec::new(),
            summary: "wake sinks: attached in-process".into(),
        });
    }
    if config.sinks.is_empty() {
        return Ok(match which("openclaw") {
            Some(program) => ResolvedSinks {
                summary: format!(
                    "wake sinks: openclaw ({} found on PATH; no [[wake.sinks]] configured)",
                    program.display()
                ),
                specs: vec![SinkSpec::OpenClaw {
                    name: "openclaw".into(),
                    program: program.display().to_string(),
                    timeout: Duration::from_secs(10),
                }],
            },
            None => ResolvedSinks {
                summary: "wake sinks: none configured and no openclaw on PATH; wake events go to \
                          events.subscribe listeners only"
                    .into(),
                specs: Vec::new(),
            },
        });
    }
    let mut specs = Vec::with_capacity(config.sinks.len());
    let mut names = Vec::with_capacity(config.sinks.len());
    for (index, sink) in config.sinks.iter().enumerate() {
        let name = match sink.name() {
            Some(name) => name.to_owned(),
            None => {
                let earlier = config.sinks[..index]
                    .iter()
                    .filter(|s| s.kind() == sink.kind())
                    .count();
                if earlier == 0 {
                    sink.kind().to_owned()
                } else {
                    format!("{}-{}", sink.kind(), earlier + 1)
                }
            }
        };
        specs.push(match sink {
            SinkConfig::Command(command) => SinkSpec::Command {
                name: name.clone(),
                program: command.program.clone(),
                args: command.args.clone(),
                timeout: Duration::from_secs(command.timeout_s),
            },
            SinkConfig::Openclaw(openclaw) => SinkSpec::OpenClaw {
                name: name.clone(),
                program: openclaw.program.clone(),
                timeout: Duration::from_secs(openclaw.timeout_s),
            },
            SinkConfig::Webhook(webhook) => {
                let bearer_token = match &webhook.token_env {
                    None => None,
                    Some(variable) => match env(variable).filter(|value| !value.is_empty()) {
                        Some(token) => Some(Secret::new(token)),
                        None => bail!(
                            "webhook sink '{name}': the environment variable {variable} (its token_env) \
                             is not set; export it before starting lookout, or set it in the service \
                             unit (Environment= or EnvironmentFile=)"
                        ),
                    },
                };
                SinkSpec::Webhook {
                    name: name.clone(),
                    url: webhook.url.clone(),
                    bearer_token,
                    headers: webhook.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                    timeout: Duration::from_secs(webhook.timeout_s),
                    send_session_key: webhook.send_session_key,
                }
            }
        });
        names.push(name);
    }
    Ok(ResolvedSinks {
        summary: format!("wake sinks: {}", names.join(", ")),
        specs,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Config;

    fn config(text: &str) -> WakeConfig {
        Config::parse(text, Path::new("test.toml")).unwrap().wake
    }

    #[test]
    fn openclaw_on_path_is_the_default_and_says_so() {
        let found = resolve(
            &config(""),
            false,
            |_| None,
            |_| Some(PathBuf::from("/opt/bin/openclaw")),
        )
        .unwrap();
        assert!(
            matches!(&found.specs[..], [SinkSpec::OpenClaw { program, .. }] if program == "/opt/bin/openclaw")
        );
        assert!(found.summary.contains("found on PATH"), "{}", found.summary);
        let none = resolve(&config(""), false, |_| None, |_| None).unwrap();
        let attached = resolve(
            &config(""),
            true,
            |_| None,
            |_| Some(PathBuf::from("/opt/bin/openclaw")),
        )
        .unwrap();
        assert!(
            attached.specs.is_empty(),
            "sinks attached in-process replace the default"
        );
        assert!(none.specs.is_empty() && none.summary.contains("listeners only"));
    }

    #[test]
    fn configured_sinks_win_and_get_unique_names() {
        let text = "[[wake.sinks]]\nkind = \"command\"\nprogram = \"a\"\n[[wake.sinks]]\nkind = \"command\"\nprogram = \"b\"\n\
                    [[wake.sinks]]\nkind = \"webhook\"\nname = \"gateway\"\nurl = \"http://127.0.0.1:1/hooks/wake\"\ntoken_env = \"HOOK_TOKEN\"\n";
        let env = |name: &str| (name == "HOOK_TOKEN").then(|| "s3cret".to_owned());
        let resolved = resolve(&config(text), false, env, |_| {
            Some(PathBuf::from("/usr/bin/openclaw"))
        })
        .unwrap();
        assert_eq!(resolved.summary, "wake sinks: command, command-2, gateway");
        let SinkSpec::Webhook { bearer_token, .. } = &resolved.specs[2] else {
            panic!("a webhook")
        };
        assert_eq!(bearer_token.as_ref().map(Secret::expose), Some("s3cret"));
        assert!(
            !format!("{resolved:?}").contains("s3cret"),
            "the token never prints"
        );
    }

    #[test]
    fn a_missing_token_variable_is_a_clear_start_up_error() {
        let text = "[[wake.sinks]]\nkind = \"webhook\"\nurl = \"http://127.0.0.1:1/\"\ntoken_env = \"NOT_SET_ANYWHERE\"\n";
        let error = resolve(&config(text), false, |_| None, |_| None)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("NOT_SET_ANYWHERE") && error.contains("is not set"),
            "{error}"
        );
    }
}
