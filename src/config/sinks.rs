//! Turning `[[wake.sinks]]` into the tree's sink specs: names, tokens read from the
//! environment (only `src/` reads it), the OpenClaw gateway found as its CLI finds it, and
//! the default when nothing is configured: the gateway's own sink when there is a gateway,
//! else the `openclaw` CLI when it is on PATH, else live subscribers only.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actors::openclaw::client::{GatewayClient, GatewaySpec};
use actors::openclaw::exec::{ExecLedger, ExecSessions};
use actors::wake::gateway::GatewaySink;
use actors::wake::sinks::{Secret, SinkSpec};
use anyhow::bail;

use crate::config::openclaw;
use crate::config::{OPENCLAW_CLI_TIMEOUT_S, SinkConfig, WakeConfig};

/// The gateway sink's handshake and acknowledgement timeout when none is configured.
const GATEWAY_TIMEOUT: Duration = Duration::from_secs(30);

/// The sinks to build, and one line saying what they are for the start-up log.
#[derive(Debug)]
pub struct ResolvedSinks {
    pub specs: Vec<SinkSpec>,
    pub summary: String,
    /// The gateway sinks among them, to connect at start-up so the log says whether the
    /// gateway takes wakes (and what to run when it does not).
    pub gateways: Vec<Arc<GatewaySink>>,
    /// Where `pty:` waits on the agent's own exec sessions read them: the task ledger of the
    /// first gateway sink's gateway, else of the gateway found on this machine, else where
    /// lookout looked (nowhere when only in-process sinks are attached).
    pub exec_sessions: ExecSessions,
}

/// The sinks alone, before the exec sessions are resolved.
struct Sinks {
    specs: Vec<SinkSpec>,
    summary: String,
    gateways: Vec<Arc<GatewaySink>>,
}

/// Resolves the configured sinks. `env` reads an environment variable; `which` finds a
/// program on PATH. With no sink configured (and `others_attached` false): an OpenClaw
/// gateway found on this machine, else `openclaw` on PATH, is the sink.
pub fn resolve(
    config: &WakeConfig,
    others_attached: bool,
    env: impl Fn(&str) -> Option<String>,
    which: impl Fn(&str) -> Option<PathBuf>,
) -> anyhow::Result<ResolvedSinks> {
    let Sinks {
        specs,
        summary,
        gateways,
    } = resolve_sinks(config, others_attached, &env, which)?;
    // In-process sinks stand for the runtime (tests, the harness): the machine's own
    // OpenClaw is left alone there too.
    let attached_only = others_attached && config.sinks.is_empty();
    let exec_sessions = match gateways.first() {
        Some(sink) => ExecSessions::Gateway(ExecLedger::new(sink.client().clone())),
        None if attached_only => ExecSessions::not_looked_for(),
        None => match openclaw::find(&env) {
            Ok(Some(gateway)) => ExecSessions::Gateway(ExecLedger::new(gateway_client(
                gateway.url,
                gateway.token,
                GATEWAY_TIMEOUT,
            ))),
            Ok(None) => ExecSessions::NoGateway {
                looked: openclaw::where_looked(&env),
            },
            Err(unusable) => ExecSessions::NoGateway {
                looked: format!("in its config, which is not usable: {unusable}"),
            },
        },
    };
    Ok(ResolvedSinks {
        specs,
        summary,
        gateways,
        exec_sessions,
    })
}

fn resolve_sinks(
    config: &WakeConfig,
    others_attached: bool,
    env: &impl Fn(&str) -> Option<String>,
    which: impl Fn(&str) -> Option<PathBuf>,
) -> anyhow::Result<Sinks> {
    if config.sinks.is_empty() && others_attached {
        return Ok(Sinks {
            specs: Vec::new(),
            summary: "wake sinks: attached in-process".into(),
            gateways: Vec::new(),
        });
    }
    if config.sinks.is_empty() {
        let found = openclaw::find(env);
        if let Ok(Some(gateway)) = &found {
            let sink = gateway_sink(
                "openclaw".into(),
                gateway.url.clone(),
                gateway.token.clone(),
                GATEWAY_TIMEOUT,
            );
            return Ok(Sinks {
                summary: format!(
                    "wake sinks: openclaw (the OpenClaw gateway at {}, from {}; no [[wake.sinks]] configured)",
                    gateway.url, gateway.source
                ),
                specs: vec![SinkSpec::Custom(Arc::new(sink.clone()))],
                gateways: vec![sink],
            });
        }
        let unreadable = match &found {
            Err(error) => format!(" (the OpenClaw config was not usable: {error})"),
            _ => String::new(),
        };
        return Ok(match which("openclaw") {
            Some(program) => Sinks {
                summary: format!(
                    "wake sinks: openclaw-cli ({} found on PATH; no gateway config found{unreadable}; \
                     no [[wake.sinks]] configured)",
                    program.display()
                ),
                specs: vec![SinkSpec::OpenClawCli {
                    name: "openclaw-cli".into(),
                    program: program.display().to_string(),
                    timeout: Duration::from_secs(OPENCLAW_CLI_TIMEOUT_S),
                }],
                gateways: Vec::new(),
            },
            None => Sinks {
                summary: format!(
                    "wake sinks: none configured and no OpenClaw found{unreadable}; wake events go \
                     to live listeners only (lookout events --follow, lookout wait)"
                ),
                specs: Vec::new(),
                gateways: Vec::new(),
            },
        });
    }
    let mut gateways = Vec::new();
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
            SinkConfig::Openclaw(gateway) => match &gateway.program {
                // A config from before the gateway sink: it meant the CLI.
                Some(program) => SinkSpec::OpenClawCli {
                    name: name.clone(),
                    program: program.clone(),
                    timeout: Duration::from_secs(gateway.timeout_s.max(OPENCLAW_CLI_TIMEOUT_S)),
                },
                None => {
                    let found = openclaw::find(env).ok().flatten();
                    let token = match &gateway.token_env {
                        Some(variable) => Some(token_from(&env, "openclaw", &name, variable)?),
                        None => found.as_ref().and_then(|found| found.token.clone()),
                    };
                    let Some(url) = gateway.url.clone().or_else(|| found.map(|found| found.url)) else {
                        bail!(
                            "openclaw sink '{name}': no OpenClaw gateway found (no config at {} and no \
                             $OPENCLAW_GATEWAY_URL); set url = \"ws://HOST:18789\" in the sink, or use \
                             kind = \"openclaw-cli\"",
                            openclaw::config_path(&env)
                                .map(|path| path.display().to_string())
                                .unwrap_or_else(|| "~/.openclaw/openclaw.json".into())
                        );
                    };
                    let sink = gateway_sink(name.clone(), url, token, Duration::from_secs(gateway.timeout_s));
                    gateways.push(sink.clone());
                    SinkSpec::Custom(Arc::new(sink))
                }
            },
            SinkConfig::OpenclawCli(cli) => SinkSpec::OpenClawCli {
                name: name.clone(),
                program: cli.program.clone(),
                timeout: Duration::from_secs(cli.timeout_s),
            },
            SinkConfig::Webhook(webhook) => {
                let bearer_token = match &webhook.token_env {
                    None => None,
                    Some(variable) => Some(Secret::new(token_from(&env, "webhook", &name, variable)?)),
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
    Ok(Sinks {
        summary: format!("wake sinks: {}", names.join(", ")),
        specs,
        gateways,
    })
}

/// The token in `variable`, a sink's `token_env`; a variable that is unset or empty stops
/// the start with a message naming it.
fn token_from(
    env: &impl Fn(&str) -> Option<String>,
    kind: &str,
    name: &str,
    variable: &str,
) -> anyhow::Result<String> {
    match env(variable).filter(|value| !value.is_empty()) {
        Some(token) => Ok(token),
        None => bail!(
            "{kind} sink '{name}': the environment variable {variable} (its token_env) is not set; \
             export it before starting lookout, or set it in the service unit (Environment= or \
             EnvironmentFile=)"
        ),
    }
}

fn gateway_sink(
    name: String,
    url: String,
    token: Option<String>,
    timeout: Duration,
) -> Arc<GatewaySink> {
    GatewaySink::new(name, gateway_client(url, token, timeout))
}

fn gateway_client(url: String, token: Option<String>, timeout: Duration) -> Arc<GatewayClient> {
    GatewayClient::new(GatewaySpec {
        url,
        token: token.map(Secret::new),
        timeout,
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
            matches!(&found.specs[..], [SinkSpec::OpenClawCli { program, timeout, .. }] if program == "/opt/bin/openclaw" && timeout.as_secs() == OPENCLAW_CLI_TIMEOUT_S)
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
    fn a_gateway_found_is_the_default_and_an_old_openclaw_entry_still_means_the_cli() {
        let env = |name: &str| match name {
            "OPENCLAW_GATEWAY_URL" => Some("ws://127.0.0.1:18789".to_owned()),
            "OPENCLAW_GATEWAY_TOKEN" => Some("gw".to_owned()),
            _ => None,
        };
        let found = resolve(&config(""), false, env, |_| {
            Some(PathBuf::from("/opt/bin/openclaw"))
        })
        .unwrap();
        assert!(matches!(&found.specs[..], [SinkSpec::Custom(_)]));
        assert_eq!(found.gateways.len(), 1);
        assert!(
            found
                .summary
                .starts_with("wake sinks: openclaw (the OpenClaw gateway at ws://127.0.0.1:18789"),
            "{}",
            found.summary
        );
        let old = "[[wake.sinks]]\nkind = \"openclaw\"\nprogram = \"clawdbot\"\ntimeout_s = 10\n";
        let resolved = resolve(&config(old), false, env, |_| None).unwrap();
        assert!(
            matches!(&resolved.specs[..], [SinkSpec::OpenClawCli { program, timeout, .. }]
                if program == "clawdbot" && timeout.as_secs() == OPENCLAW_CLI_TIMEOUT_S),
            "{resolved:?}"
        );
        let nowhere = "[[wake.sinks]]\nkind = \"openclaw\"\n";
        let error = resolve(&config(nowhere), false, |_| None, |_| None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("no OpenClaw gateway found"), "{error}");
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
