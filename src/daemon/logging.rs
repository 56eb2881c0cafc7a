//! Logging to stderr (journald picks it up under systemd). stdout stays free for command
//! output and the MCP stdio transport.

use tracing::level_filters::LevelFilter;

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

impl LogLevel {
    fn filter(self) -> LevelFilter {
        match self {
            LogLevel::Error => LevelFilter::ERROR,
            LogLevel::Warn => LevelFilter::WARN,
            LogLevel::Info => LevelFilter::INFO,
            LogLevel::Debug => LevelFilter::DEBUG,
            LogLevel::Trace => LevelFilter::TRACE,
            LogLevel::Off => LevelFilter::OFF,
        }
    }
}

/// A level named in `LOOKOUT_LOG` (any case, "warning" for warn).
fn parse_level(text: &str) -> Option<LevelFilter> {
    let word = serde_json::Value::String(text.trim().to_ascii_lowercase());
    serde_json::from_value::<LogLevel>(word)
        .ok()
        .map(LogLevel::filter)
}

/// Installs the stderr logger at `configured`, unless `LOOKOUT_LOG` names a level, in colour
/// when `colour` (the CLI decides: `--color`, `NO_COLOR`, whether stderr is a terminal).
/// Safe to call more than once (later calls are ignored).
pub fn init(configured: LogLevel, colour: bool) {
    let level = crate::config::environment::var("LOOKOUT_LOG")
        .and_then(|value| parse_level(&value))
        .unwrap_or(configured.filter());
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_target(false)
        .with_ansi(colour)
        .try_init();
}
