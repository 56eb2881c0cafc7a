//! The daemon's configuration: TOML, every key optional, defaults embedded.
//!
//! `config.example.toml` lists every key at its default; a test keeps the two equal.
//! Unknown keys are an error naming the key and the file, so a typo never silently falls
//! back to a default.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

/// The example config shipped in the repository, which documents every key.
pub const EXAMPLE: &str = include_str!("../config.example.toml");

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Folder holding `lookout.redb`. Default: `$XDG_DATA_HOME/lookout`.
    pub data_dir: Option<PathBuf>,
    /// The JSON-RPC socket. Default: `$XDG_RUNTIME_DIR/lookout/lookout.sock`, else
    /// `/tmp/lookout-$UID/lookout.sock`.
    pub socket_path: Option<PathBuf>,
    /// Longest request line accepted; a longer one gets an error and the connection stays.
    pub max_request_bytes: usize,
    /// `error`, `warn`, `info`, `debug` or `trace`; `LOOKOUT_LOG` overrides it.
    pub log_level: String,
    pub storage: StorageConfig,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StorageConfig {
    /// Commit writes that queue up together in one transaction. Off only to measure it.
    pub group_commit: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            data_dir: None,
            socket_path: None,
            max_request_bytes: 1024 * 1024,
            log_level: "info".to_owned(),
            storage: StorageConfig::default(),
        }
    }
}

impl Default for StorageConfig {
    fn default() -> Self {
        Self { group_commit: true }
    }
}

/// Where a config came from, for the start-up log line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigSource {
    File(PathBuf),
    Defaults,
}

impl std::fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigSource::File(path) => write!(f, "{}", path.display()),
            ConfigSource::Defaults => f.write_str("embedded defaults (no config file)"),
        }
    }
}

impl Config {
    pub fn parse(text: &str, origin: &Path) -> anyhow::Result<Config> {
        let config: Config = toml::from_str(text).map_err(|error| {
            anyhow::anyhow!("{}: {}", origin.display(), error.to_string().trim_end())
        })?;
        config
            .validate()
            .with_context(|| format!("{}", origin.display()))?;
        Ok(config)
    }

    pub fn load(path: &Path) -> anyhow::Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the config file {}", path.display()))?;
        Self::parse(&text, path)
    }

    /// The config named by `--config`, else by `LOOKOUT_CONFIG`, else the default file when
    /// it exists, else the embedded defaults.
    pub fn discover(explicit: Option<&Path>) -> anyhow::Result<(Config, ConfigSource)> {
        let named = explicit.map(Path::to_path_buf).or_else(|| {
            std::env::var_os("LOOKOUT_CONFIG")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        });
        if let Some(path) = named {
            return Ok((Self::load(&path)?, ConfigSource::File(path)));
        }
        match crate::paths::default_config_file() {
            Some(path) if path.exists() => Ok((Self::load(&path)?, ConfigSource::File(path))),
            _ => Ok((Config::default(), ConfigSource::Defaults)),
        }
    }

    fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.max_request_bytes >= 1024,
            "max_request_bytes = {} is too small; use at least 1024",
            self.max_request_bytes
        );
        anyhow::ensure!(
            crate::logging::parse_level(&self.log_level).is_some(),
            "log_level = {:?} is not one of error, warn, info, debug, trace",
            self.log_level
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_config_is_the_defaults() {
        let example = Config::parse(EXAMPLE, Path::new("config.example.toml")).unwrap();
        assert_eq!(example, Config::default());
    }

    #[test]
    fn unknown_keys_name_the_key_and_the_file() {
        let error =
            Config::parse("max_request_byte = 5\n", Path::new("/etc/lookout.toml")).unwrap_err();
        let text = format!("{error:#}");
        assert!(text.contains("/etc/lookout.toml"), "{text}");
        assert!(text.contains("max_request_byte"), "{text}");
        let nested =
            Config::parse("[storage]\ngroup_comit = false\n", Path::new("c.toml")).unwrap_err();
        assert!(format!("{nested:#}").contains("group_comit"));
    }

    #[test]
    fn values_are_checked() {
        assert!(Config::parse("max_request_bytes = 10\n", Path::new("c.toml")).is_err());
        assert!(Config::parse("log_level = \"loud\"\n", Path::new("c.toml")).is_err());
        let custom = Config::parse("data_dir = \"/srv/lookout\"\n", Path::new("c.toml")).unwrap();
        assert_eq!(custom.data_dir, Some(PathBuf::from("/srv/lookout")));
    }
}
