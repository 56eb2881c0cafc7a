//! Finding the user's OpenClaw gateway the way the `openclaw` CLI does: the config file
//! (`$OPENCLAW_CONFIG_PATH`, else `openclaw.json` in `$OPENCLAW_STATE_DIR`, else in
//! `~/.openclaw`, `$OPENCLAW_HOME` standing in for the home folder; JSON5), its
//! `gateway.port` (`$OPENCLAW_GATEWAY_PORT` wins) on loopback, or `gateway.remote.url` in remote
//! mode; the token from `$OPENCLAW_GATEWAY_TOKEN`, else `gateway.auth.token` (or
//! `gateway.remote.token`), whose `${VAR}` form names a variable. `$OPENCLAW_GATEWAY_URL`
//! overrides the address.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The gateway's port when nothing says otherwise.
pub const DEFAULT_PORT: u64 = 18789;

/// A gateway found on this machine.
#[derive(Clone, PartialEq, Eq)]
pub struct Gateway {
    pub url: String,
    pub token: Option<String>,
    /// Where the address came from, for the start-up log.
    pub source: String,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("source", &self.source)
            .finish()
    }
}

/// OpenClaw's state folder, as the `openclaw` CLI finds it: `$OPENCLAW_STATE_DIR`, else
/// `.openclaw` in `$OPENCLAW_HOME`, else in `$HOME`.
pub fn state_folder(env: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(state) = env("OPENCLAW_STATE_DIR") {
        return Some(PathBuf::from(state));
    }
    let home = env("OPENCLAW_HOME").or_else(|| env("HOME"))?;
    Some(Path::new(&home).join(".openclaw"))
}

/// The config file the `openclaw` CLI would read.
pub fn config_path(env: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(path) = env("OPENCLAW_CONFIG_PATH") {
        return Some(PathBuf::from(path));
    }
    let folder = state_folder(env)?;
    if env("OPENCLAW_STATE_DIR").is_some() {
        return Some(folder.join("openclaw.json"));
    }
    let current = folder.join("openclaw.json");
    let legacy = folder.join("clawdbot.json");
    Some(if !current.exists() && legacy.exists() {
        legacy
    } else {
        current
    })
}

/// Where [`find`] looked when it found no gateway, for an agent that names an OpenClaw exec
/// session: the config file it read for, and the variables that would have pointed elsewhere.
pub fn where_looked(env: &impl Fn(&str) -> Option<String>) -> String {
    let file = match config_path(env) {
        Some(path) => format!("for {} (not there)", path.display()),
        None => "for no config file ($HOME is not set)".to_owned(),
    };
    let unset: Vec<&str> = [
        "OPENCLAW_GATEWAY_URL",
        "OPENCLAW_CONFIG_PATH",
        "OPENCLAW_STATE_DIR",
        "OPENCLAW_HOME",
    ]
    .into_iter()
    .filter(|variable| env(variable).is_none())
    .collect();
    match unset.as_slice() {
        [] => file,
        unset => format!("{file}; ${} not set", unset.join(", $")),
    }
}

/// The gateway, when there is one to wake: `Ok(None)` when OpenClaw is not set up here;
/// an error when its config cannot be read (it says which file and why).
pub fn find(env: impl Fn(&str) -> Option<String>) -> Result<Option<Gateway>, String> {
    let url_override = env("OPENCLAW_GATEWAY_URL");
    let token_override = env("OPENCLAW_GATEWAY_TOKEN");
    let path = config_path(&env);
    let config = match &path {
        Some(path) if path.exists() => {
            let text = std::fs::read_to_string(path)
                .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
            Some(
                json5::from_str::<Value>(&text)
                    .map_err(|error| format!("{} is not valid JSON5: {error}", path.display()))?,
            )
        }
        _ => None,
    };
    let Some(config) = config else {
        return Ok(url_override.map(|url| Gateway {
            url,
            token: token_override,
            source: "$OPENCLAW_GATEWAY_URL".to_owned(),
        }));
    };
    let path = path.unwrap_or_default();
    let gateway = &config["gateway"];
    let remote = gateway["mode"] == "remote";
    let configured_token = if remote {
        &gateway["remote"]["token"]
    } else {
        &gateway["auth"]["token"]
    };
    let token = token_override.or_else(|| {
        configured_token
            .as_str()
            .and_then(|token| substitute(token, &env))
    });
    if let Some(url) = url_override {
        return Ok(Some(Gateway {
            url,
            token,
            source: "$OPENCLAW_GATEWAY_URL".to_owned(),
        }));
    }
    if remote && let Some(url) = gateway["remote"]["url"].as_str() {
        return Ok(Some(Gateway {
            url: url.to_owned(),
            token,
            source: format!("gateway.remote.url in {}", path.display()),
        }));
    }
    let port = env("OPENCLAW_GATEWAY_PORT")
        .and_then(|port| port.rsplit(':').next()?.trim().parse::<u64>().ok())
        .or_else(|| gateway["port"].as_u64())
        .unwrap_or(DEFAULT_PORT);
    Ok(Some(Gateway {
        url: format!("ws://127.0.0.1:{port}"),
        token,
        source: path.display().to_string(),
    }))
}

/// A config value: `${NAME}` is the variable NAME (none when unset), anything else itself.
fn substitute(value: &str, env: &impl Fn(&str) -> Option<String>) -> Option<String> {
    match value
        .trim()
        .strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
    {
        Some(name) => env(name.trim()),
        None => Some(value.to_owned()).filter(|value| !value.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn the_config_under_home_gives_port_and_token() {
        let home = tempfile::tempdir().unwrap();
        let folder = home.path().join(".openclaw");
        std::fs::create_dir_all(&folder).unwrap();
        // The config the OpenClaw docs show: JSON5 with comments and unquoted keys.
        std::fs::write(
            folder.join("openclaw.json"),
            "{\n  // local gateway\n  gateway: { mode: 'local', port: 18801, auth: { mode: 'token', token: 'abc123' } },\n}\n",
        )
        .unwrap();
        let home_path = home.path().to_str().unwrap();
        let found = find(env_of(&[("HOME", home_path)])).unwrap().unwrap();
        assert_eq!(found.url, "ws://127.0.0.1:18801");
        assert_eq!(found.token.as_deref(), Some("abc123"));
        assert!(!format!("{found:?}").contains("abc123"));
        // The variables win, as they do for the CLI.
        let overridden = find(env_of(&[
            ("HOME", home_path),
            ("OPENCLAW_GATEWAY_PORT", "19000"),
            ("OPENCLAW_GATEWAY_TOKEN", "from-env"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(overridden.url, "ws://127.0.0.1:19000");
        assert_eq!(overridden.token.as_deref(), Some("from-env"));
        let url = find(env_of(&[
            ("HOME", home_path),
            ("OPENCLAW_GATEWAY_URL", "ws://10.0.0.2:18789"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(url.url, "ws://10.0.0.2:18789");
        assert_eq!(url.token.as_deref(), Some("abc123"));
    }

    #[test]
    fn remote_mode_state_dir_and_variable_tokens() {
        let state = tempfile::tempdir().unwrap();
        std::fs::write(
            state.path().join("openclaw.json"),
            r#"{gateway: {mode: "remote", remote: {url: "ws://gw.tail:18789", token: "${GW_SECRET}"}}}"#,
        )
        .unwrap();
        let found = find(env_of(&[
            ("OPENCLAW_STATE_DIR", state.path().to_str().unwrap()),
            ("GW_SECRET", "s3"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(found.url, "ws://gw.tail:18789");
        assert_eq!(found.token.as_deref(), Some("s3"));
    }

    #[test]
    fn where_looked_names_the_file_and_the_variables_left_unset() {
        let home = tempfile::tempdir().unwrap();
        let looked = where_looked(&env_of(&[("HOME", home.path().to_str().unwrap())]));
        let expected_file = home.path().join(".openclaw/openclaw.json");
        assert_eq!(
            looked,
            format!(
                "for {} (not there); $OPENCLAW_GATEWAY_URL, $OPENCLAW_CONFIG_PATH, \
                 $OPENCLAW_STATE_DIR, $OPENCLAW_HOME not set",
                expected_file.display()
            )
        );
        let pointed = where_looked(&env_of(&[("OPENCLAW_STATE_DIR", "/srv/claw")]));
        assert!(
            pointed.starts_with("for /srv/claw/openclaw.json (not there); $OPENCLAW_GATEWAY_URL, "),
            "{pointed}"
        );
        assert!(!pointed.contains("$OPENCLAW_STATE_DIR"), "{pointed}");
        assert_eq!(
            where_looked(&env_of(&[])),
            "for no config file ($HOME is not set); $OPENCLAW_GATEWAY_URL, \
             $OPENCLAW_CONFIG_PATH, $OPENCLAW_STATE_DIR, $OPENCLAW_HOME not set"
        );
    }

    #[test]
    fn no_openclaw_means_no_gateway_and_a_broken_config_says_where() {
        let home = tempfile::tempdir().unwrap();
        let home_path = home.path().to_str().unwrap();
        assert_eq!(find(env_of(&[("HOME", home_path)])).unwrap(), None);
        std::fs::create_dir_all(home.path().join(".openclaw")).unwrap();
        std::fs::write(home.path().join(".openclaw/openclaw.json"), "{gateway: ").unwrap();
        let error = find(env_of(&[("HOME", home_path)])).unwrap_err();
        assert!(
            error.contains("openclaw.json is not valid JSON5"),
            "{error}"
        );
        // No config, but the variable names a gateway.
        let bare = find(env_of(&[("OPENCLAW_GATEWAY_URL", "ws://127.0.0.1:1")]))
            .unwrap()
            .unwrap();
        assert_eq!(bare.url, "ws://127.0.0.1:1");
    }
}
