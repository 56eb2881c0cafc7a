//! Logging to stderr (journald picks it up under systemd). stdout stays free for command
//! output and the MCP stdio transport.

use tracing::level_filters::LevelFilter;

use crate::config::LogLevel;

/// The tracing filter of a configured level.
fn filter(level: LogLevel) -> LevelFilter {
    match level {
        LogLevel::Error => LevelFilter::ERROR,
        LogLevel::Warn => LevelFilter::WARN,
        LogLevel::Info => LevelFilter::INFO,
        LogLevel::Debug => LevelFilter::DEBUG,
        LogLevel::Trace => LevelFilter::TRACE,
        LogLevel::Off => LevelFilter::OFF,
    }
}

/// A level named in `LOOKOUT_LOG` (any case, "warning" for warn).
fn parse_level(text: &str) -> Option<LevelFilter> {
    let word = serde_json::Value::String(text.trim().to_ascii_lowercase());
    serde_json::from_value::<LogLevel>(word).ok().map(filter)
}

/// Installs the stderr logger at `configured`, unless `LOOKOUT_LOG` names a level, in colour
/// when `colour` (the CLI decides: `--color`, `NO_COLOR`, whether stderr is a terminal).
/// Safe to call more than once (later calls are ignored).
pub fn init(configured: LogLevel, colour: bool) {
    let level = crate::config::environment::var("LOOKOUT_LOG")
        .and_then(|value| parse_level(&value))
        .unwrap_or(filter(configured));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_target(false)
        .with_ansi(colour)
        .try_init();
}
