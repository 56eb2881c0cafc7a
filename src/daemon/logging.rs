//! Logging to stderr (journald picks it up under systemd). stdout stays free for command
//! output and the MCP stdio transport.

use tracing::level_filters::LevelFilter;

pub fn parse_level(text: &str) -> Option<LevelFilter> {
    match text.trim().to_ascii_lowercase().as_str() {
        "error" => Some(LevelFilter::ERROR),
        "warn" | "warning" => Some(LevelFilter::WARN),
        "info" => Some(LevelFilter::INFO),
        "debug" => Some(LevelFilter::DEBUG),
        "trace" => Some(LevelFilter::TRACE),
        "off" => Some(LevelFilter::OFF),
        _ => None,
    }
}

/// Installs the stderr logger at `configured`, unless `LOOKOUT_LOG` names a level, in colour
/// when `colour` (the CLI decides: `--color`, `NO_COLOR`, whether stderr is a terminal).
/// Safe to call more than once (later calls are ignored).
pub fn init(configured: &str, colour: bool) {
    let level = crate::config::environment::var("LOOKOUT_LOG")
        .and_then(|value| parse_level(&value))
        .or_else(|| parse_level(configured))
        .unwrap_or(LevelFilter::INFO);
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_target(false)
        .with_ansi(colour)
        .try_init();
}
