//! The daemon's configuration: TOML, every key optional, defaults embedded.
//!
//! `config.example.toml` lists every key at its default; a test keeps the two equal.
//! Unknown keys are an error naming the key and the file, so a typo never silently falls
//! back to a default.

pub mod carry;
mod display;
pub mod environment;
pub mod openclaw;
pub mod paths;
pub mod sinks;
mod validate;
pub mod vision;

pub use display::{
    Capture, PORTAL_TOKEN_FILE, Session, WaylandConfig, WaylandEnvironment, X11Config,
};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

/// The example config shipped in the repository, which documents every key.
pub const EXAMPLE: &str = include_str!("../../config.example.toml");

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Folder holding `lookout.redb` and its write journal. Default: `$XDG_DATA_HOME/lookout`.
    pub data_dir: Option<PathBuf>,
    /// The JSON-RPC socket. Default: `$XDG_RUNTIME_DIR/lookout/lookout.sock`, else
    /// `/tmp/lookout-$UID/lookout.sock`.
    pub socket_path: Option<PathBuf>,
    /// Longest request line accepted; a longer one gets an error and the connection stays.
    pub max_request_bytes: usize,
    /// `error`, `warn`, `info`, `debug` or `trace`; `LOOKOUT_LOG` overrides it.
    pub log_level: LogLevel,
    pub connections: ConnectionsConfig,
    pub storage: StorageConfig,
    pub stuck: StuckConfig,
    pub wake: WakeConfig,
    pub wait: WaitConfig,
    pub vision: VisionConfig,
    pub x11: X11Config,
    pub wayland: WaylandConfig,
    pub recall: RecallConfig,
}

/// `[recall]`: `memory_recall`'s screen history (tasks, waits and terminal sessions are
/// always searchable) and how long recorded history is kept.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecallConfig {
    /// `"off"` (the default), `"tasks"` (record the focused window only while a task is
    /// active, stamped with it) or `"always"`.
    pub mode: actors::recall::recorder::RecordMode,
    /// How often the focused window is captured, in milliseconds.
    pub interval_ms: u64,
    /// A window's segment closes after this many seconds with nothing new in it.
    pub idle_gap_s: u64,
    /// Windows never recorded, by application (WM_CLASS) or title, case-insensitive
    /// substrings; password managers and private browsing are always excluded.
    pub exclude: Vec<String>,
    /// The most disk keyframes may use, in MiB; the oldest go first.
    pub keyframe_budget_mib: u64,
    /// Screen segments and terminal sessions older than this many days are removed
    /// (0 keeps them).
    pub retention_days: u64,
    /// The OCR program that reads the screen.
    pub ocr_program: String,
    /// Where a screen segment's steps come from: `"screen"` (what changed on it, the default)
    /// or `"model"` (the `[vision]` model describes each closed segment).
    pub procedures: Procedures,
    /// The agent's own sessions searched too: `"claude-code"` (Claude Code's transcripts),
    /// `"openclaw"` (the OpenClaw gateway's sessions).
    pub sources: Vec<String>,
    /// Claude Code's projects folder (empty: `$CLAUDE_CONFIG_DIR/projects`, else
    /// `~/.claude/projects`).
    pub claude_projects: String,
}

impl Default for RecallConfig {
    /// The recorder's own defaults (`RecorderSettings::off`), in the config's units.
    fn default() -> Self {
        let recorder = actors::recall::recorder::RecorderSettings::off(
            std::sync::Arc::new(actors::process::ProcessSpawner),
            std::path::PathBuf::new(),
        );
        Self {
            mode: recorder.mode,
            interval_ms: recorder.interval.as_millis() as u64,
            idle_gap_s: recorder.idle_gap.as_secs(),
            exclude: recorder.exclude,
            keyframe_budget_mib: recorder.keyframe_budget_bytes >> 20,
            retention_days: actors::tree::DEFAULT_RECALL_RETENTION.as_secs() / 86_400,
            ocr_program: recorder.ocr_program,
            procedures: Procedures::Screen,
            sources: Vec::new(),
            claude_projects: String::new(),
        }
    }
}

/// `[recall] procedures`: who writes a screen segment's steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Procedures {
    /// lookout, from what changed on screen.
    #[default]
    Screen,
    /// The `[vision]` model, from the keyframes and the text kept.
    Model,
}

impl RecallConfig {
    /// The recall sources besides lookout's own records.
    pub const SOURCES: [&str; 2] = ["claude-code", "openclaw"];

    /// Whether `source` (one of [`Self::SOURCES`]) is searched.
    pub fn reads(&self, source: &str) -> bool {
        self.sources.iter().any(|named| named == source)
    }

    /// Claude Code's projects folder, when its transcripts are a source.
    pub fn transcripts_folder(&self) -> Option<std::path::PathBuf> {
        if !self.reads("claude-code") {
            return None;
        }
        if self.claude_projects.is_empty() {
            return paths::claude_projects_folder();
        }
        Some(match self.claude_projects.strip_prefix("~/") {
            Some(rest) => paths::home()?.join(rest),
            None => std::path::PathBuf::from(&self.claude_projects),
        })
    }

    /// How long recorded history is kept (`None`: forever).
    pub fn retention(&self) -> Option<std::time::Duration> {
        (self.retention_days > 0)
            .then(|| std::time::Duration::from_secs(self.retention_days * 86_400))
    }
}

/// `[wait]`: smart waits.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WaitConfig {
    /// Capture or judge failures in a row that end a wait in `error` (and wake the agent).
    pub max_consecutive_failures: u32,
    /// Waits watching at once, at most (50–120 KiB each); one more, or a revived one, is
    /// refused, saying so.
    pub max_live_waits: usize,
    // -- the pixel gate of window: and screen targets --
    /// Seconds after which a window or screen is judged again although nothing on it changed.
    pub floor_s: u64,
    /// Seconds a watched window may stay closed (unless a model finds the condition met by
    /// its absence) before its wait ends in `error`; 0 ends it at the first capture that
    /// finds the window closed.
    pub window_gone_grace_s: u64,
    /// Milliseconds after a window or screen is first seen changing before it is captured
    /// again to see the change settle (then after twice as long, up to three times in the
    /// first half of a poll); 0 waits for the next poll instead.
    pub settle_probe_ms: u64,
    /// Look at a file or a terminal session as soon as it says it changed (inotify, the
    /// session's output), not only at each poll; false polls only.
    pub follow_changes: bool,
}

impl Default for WaitConfig {
    /// The tree's own defaults (`actors::tree`), in the config's units.
    fn default() -> Self {
        Self {
            max_consecutive_failures: actors::tree::DEFAULT_MAX_CONSECUTIVE_FAILURES,
            max_live_waits: actors::tree::DEFAULT_MAX_LIVE_WAITS,
            floor_s: actors::tree::DEFAULT_PIXEL_FLOOR.as_secs(),
            window_gone_grace_s: actors::tree::DEFAULT_WINDOW_GONE_GRACE.as_secs(),
            settle_probe_ms: actors::tree::DEFAULT_SETTLE_PROBE.as_millis() as u64,
            follow_changes: true,
        }
    }
}

/// `[connections]`: what the socket server grants each client.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConnectionsConfig {
    /// Connections served at once; one more is told so and closed.
    pub max_connections: usize,
    /// Seconds a connection may stay without a request (and no event subscription).
    pub idle_timeout_s: u64,
    /// Seconds a request line may take to arrive whole, and a reply to be read.
    pub line_timeout_s: u64,
}

impl Default for ConnectionsConfig {
    fn default() -> Self {
        Self {
            max_connections: 512,
            idle_timeout_s: 300,
            line_timeout_s: 30,
        }
    }
}

/// The largest `max_request_bytes` accepted: the server's memory budget must hold a line.
pub const MAX_REQUEST_BYTES_LIMIT: usize = 16 * 1024 * 1024;
/// The most connections `[connections] max_connections` may allow.
const MAX_CONNECTIONS_LIMIT: usize = 65_536;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StorageConfig {
    /// Commit writes that queue up together in one transaction. Off only to measure it.
    pub group_commit: bool,
    /// The most memory (MiB) the database's page cache may hold.
    pub cache_mib: u64,
    /// Seconds a task nobody asks about stays loaded in memory (it is read again on the
    /// next call about it).
    pub task_unload_after_s: u64,
}

impl StorageConfig {
    /// How long a task nobody asks about stays loaded.
    pub fn task_unload_after(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.task_unload_after_s)
    }
}

/// The largest `[storage] cache_mib` accepted (16 GiB): beyond it a typo is likelier than
/// a wish.
const MAX_CACHE_MIB: u64 = 16 * 1024;

/// Seed 004 §5: when an active task with no live wait counts as stuck.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StuckConfig {
    pub enabled: bool,
    /// Idle seconds before a task is stuck (a task's metadata `stuck_threshold_s` overrides).
    pub threshold_s: u64,
    pub scan_interval_s: u64,
    /// Seconds between two alerts for the same task.
    pub cooldown_s: u64,
    /// The resume packet's wake text never exceeds this many bytes.
    pub max_packet_bytes: usize,
}

/// Durable wake delivery.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WakeConfig {
    /// Attempts per event and sink before it is recorded as dead.
    pub max_attempts: u32,
    /// A wake the agent did not act on (no call about its wait or task) within this many
    /// seconds is delivered once more, as a reminder; 0 turns reminders off.
    pub remind_after_s: u64,
    pub sinks: Vec<SinkConfig>,
}

/// How much the daemon logs (`log_level` in the config; `LOOKOUT_LOG` overrides it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Error,
    #[serde(alias = "warning")]
    Warn,
    #[default]
    Info,
    Debug,
    Trace,
    Off,
}

impl WaitConfig {
    /// The pixel gate's floor interval.
    pub fn floor(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.floor_s)
    }

    /// How long a watched window may stay closed.
    pub fn window_gone_grace(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.window_gone_grace_s)
    }

    /// How soon a window seen changing is captured again (zero: at the next poll).
    pub fn settle_probe(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.settle_probe_ms)
    }
}

/// One `[[wake.sinks]]` entry.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SinkConfig {
    Command(CommandSinkConfig),
    /// The OpenClaw gateway's own WebSocket RPC.
    Openclaw(OpenClawSinkConfig),
    /// `openclaw system event …` per wake.
    OpenclawCli(OpenClawCliSinkConfig),
    Webhook(WebhookSinkConfig),
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSinkConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub program: String,
    /// Each may be, or contain, `{text}`, `{event_id}`, `{kind}`, `{task_id}`, `{wait_id}`,
    /// `{session_key}`. Never run through a shell.
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default = "default_sink_timeout_s")]
    pub timeout_s: u64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenClawSinkConfig {
    #[serde(default)]
    pub name: Option<String>,
    /// `ws://127.0.0.1:18789`. Default: found as the `openclaw` CLI finds it
    /// ($OPENCLAW_GATEWAY_URL, else the port in the OpenClaw config, on loopback).
    #[serde(default)]
    pub url: Option<String>,
    /// The environment variable holding the gateway token. Default: $OPENCLAW_GATEWAY_TOKEN,
    /// else `gateway.auth.token` from the OpenClaw config.
    #[serde(default)]
    pub token_env: Option<String>,
    /// Before lookout 0.2 `kind = "openclaw"` ran the CLI: a `program` still means that.
    #[serde(default)]
    pub program: Option<String>,
    /// Seconds for the handshake and for each acknowledgement.
    #[serde(default = "default_gateway_timeout_s")]
    pub timeout_s: u64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenClawCliSinkConfig {
    #[serde(default)]
    pub name: Option<String>,
    /// `openclaw` (older installs: `clawdbot`).
    #[serde(default = "default_openclaw_program")]
    pub program: String,
    /// The CLI takes about 3 s on a quiet machine and over 40 s on a loaded one.
    #[serde(default = "default_openclaw_cli_timeout_s")]
    pub timeout_s: u64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookSinkConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub url: String,
    /// The environment variable holding the bearer token (never the token itself).
    #[serde(default)]
    pub token_env: Option<String>,
    #[serde(default)]
    pub headers: std::collections::BTreeMap<String, String>,
    /// Send `sessionKey` in the body (an OpenClaw gateway refuses it unless its
    /// `hooks.allowRequestSessionKey` is on).
    #[serde(default)]
    pub send_session_key: bool,
    #[serde(default = "default_sink_timeout_s")]
    pub timeout_s: u64,
}

/// `[vision]`: which model judges what a wait sees, and the limits around it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VisionConfig {
    pub backend: VisionBackend,
    /// The API root. Default: `https://api.openai.com/v1` (openai), `https://api.anthropic.com`
    /// (anthropic).
    pub base_url: Option<String>,
    /// Required for openai and anthropic.
    pub model: Option<String>,
    /// The environment variable holding the API key (never the key itself). Default:
    /// `OPENAI_API_KEY` for OpenAI's own URL, `ANTHROPIC_API_KEY` for anthropic, none for
    /// another openai base_url (local servers); `""` sends no key.
    pub api_key_env: Option<String>,
    /// Model calls running at once, across all waits.
    pub max_concurrency: usize,
    /// The least seconds between two model calls for one wait.
    pub min_interval_s: u64,
    /// Seconds before one model request (or tesseract run) gives up.
    pub timeout_s: u64,
    /// Further attempts after a 429, a 5xx, a timeout or a refused connection.
    pub retries: u32,
    /// The long side, in pixels, of the frame sent to the model.
    pub max_image_px: u32,
    pub image_format: VisionImageFormat,
    /// 1–100, for `image_format = "jpeg"`.
    pub jpeg_quality: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VisionBackend {
    #[default]
    None,
    Openai,
    Anthropic,
    Ocr,
}

impl VisionBackend {
    pub fn as_str(self) -> &'static str {
        match self {
            VisionBackend::None => "none",
            VisionBackend::Openai => "openai",
            VisionBackend::Anthropic => "anthropic",
            VisionBackend::Ocr => "ocr",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VisionImageFormat {
    #[default]
    Png,
    Jpeg,
}

impl Default for VisionConfig {
    /// The Vision actor's own defaults (`VisionSettings`, `ImageSettings`).
    fn default() -> Self {
        let settings = actors::vision::VisionSettings::default();
        let image = actors::vision::image::ImageSettings::default();
        Self {
            backend: VisionBackend::None,
            base_url: None,
            model: None,
            api_key_env: None,
            max_concurrency: settings.max_concurrency,
            min_interval_s: settings.min_interval.as_secs(),
            timeout_s: settings.timeout.as_secs(),
            retries: settings.retries,
            max_image_px: image.max_px,
            image_format: VisionImageFormat::Png,
            jpeg_quality: 80,
        }
    }
}

fn default_sink_timeout_s() -> u64 {
    10
}

fn default_gateway_timeout_s() -> u64 {
    30
}

/// What the `openclaw` CLI needs under load (44 s was measured at a load of 15).
pub const OPENCLAW_CLI_TIMEOUT_S: u64 = 90;

fn default_openclaw_cli_timeout_s() -> u64 {
    OPENCLAW_CLI_TIMEOUT_S
}

fn default_openclaw_program() -> String {
    "openclaw".to_owned()
}

impl SinkConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            SinkConfig::Command(_) => "command",
            SinkConfig::Openclaw(_) => "openclaw",
            SinkConfig::OpenclawCli(_) => "openclaw-cli",
            SinkConfig::Webhook(_) => "webhook",
        }
    }

    pub fn name(&self) -> Option<&str> {
        match self {
            SinkConfig::Command(sink) => sink.name.as_deref(),
            SinkConfig::Openclaw(sink) => sink.name.as_deref(),
            SinkConfig::OpenclawCli(sink) => sink.name.as_deref(),
            SinkConfig::Webhook(sink) => sink.name.as_deref(),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            data_dir: None,
            socket_path: None,
            max_request_bytes: 1024 * 1024,
            log_level: LogLevel::Info,
            connections: ConnectionsConfig::default(),
            storage: StorageConfig::default(),
            stuck: StuckConfig::default(),
            wake: WakeConfig::default(),
            wait: WaitConfig::default(),
            vision: VisionConfig::default(),
            x11: X11Config::default(),
            wayland: WaylandConfig::default(),
            recall: RecallConfig::default(),
        }
    }
}

impl Default for StorageConfig {
    fn default() -> Self {
        Self {
            group_commit: true,
            cache_mib: (storage::DEFAULT_CACHE_BYTES / (1024 * 1024)) as u64,
            task_unload_after_s: actors::tree::DEFAULT_TASK_UNLOAD_AFTER.as_secs(),
        }
    }
}

impl Default for StuckConfig {
    fn default() -> Self {
        let policy = actors::tasks::stuck::StuckPolicy::default();
        Self {
            enabled: policy.enabled,
            threshold_s: policy.threshold.as_secs(),
            scan_interval_s: policy.scan_interval.as_secs(),
            cooldown_s: policy.cooldown.as_secs(),
            max_packet_bytes: policy.max_packet_bytes,
        }
    }
}

impl Default for WakeConfig {
    fn default() -> Self {
        Self {
            max_attempts: actors::wake::WakeSettings::default().max_attempts,
            remind_after_s: actors::wake::WakeSettings::default()
                .remind_after
                .map_or(0, |after| after.as_secs()),
            sinks: Vec::new(),
        }
    }
}

/// The resume packet must fit one command-line argument (see the command sinks).
const MAX_PACKET_BYTES_LIMIT: usize = 100 * 1024;

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
        let named = explicit
            .map(Path::to_path_buf)
            .or_else(|| crate::config::environment::var_os("LOOKOUT_CONFIG").map(PathBuf::from));
        if let Some(path) = named {
            return Ok((Self::load(&path)?, ConfigSource::File(path)));
        }
        match crate::config::paths::default_config_file() {
            Some(path) if path.exists() => Ok((Self::load(&path)?, ConfigSource::File(path))),
            _ => Ok((Config::default(), ConfigSource::Defaults)),
        }
    }
}

#[cfg(test)]
mod tests;
