//! The one place a configuration becomes what the daemon runs with.
//!
//! [`tree_args`] turns a [`Config`] (with its sinks and vision resolved against the
//! environment) into the actor tree's arguments, and [`server_limits`] into the socket
//! server's; `Daemon::start` calls both and adds only what is not configuration (the store,
//! the clock, a harness's stand-ins). A test walks every key of `config.example.toml`,
//! changes it, and fails if neither result changes: a key that is read but not carried
//! over would otherwise ship its default silently.

use std::sync::Arc;
use std::time::Duration;

use actors::recall::recorder::RecorderSettings;
use actors::recall::recorder::desk::DeskSettings;
use actors::tasks::stuck::StuckPolicy;
use actors::{Clock, TreeArgs};
use storage::Store;

use super::sinks::ResolvedSinks;
use super::vision::ResolvedVision;
use super::{Config, StuckConfig, paths};

/// The tree's arguments for `config`, around the store and clock the daemon opened.
pub fn tree_args(
    config: &Config,
    store: Arc<Store>,
    clock: Arc<dyn Clock>,
    sinks: ResolvedSinks,
    vision: ResolvedVision,
) -> TreeArgs {
    let mut args = TreeArgs::new(store, clock);
    args.group_commit = config.storage.group_commit;
    args.tasks.unload_after = config.storage.task_unload_after();
    args.tasks.stuck = stuck_policy(&config.stuck);
    args.wake.max_delivery_attempts = config.wake.max_attempts;
    args.wake.remind_after =
        (config.wake.remind_after_s > 0).then(|| Duration::from_secs(config.wake.remind_after_s));
    args.wake.sinks = sinks.specs;
    args.waits.max_consecutive_failures = config.wait.max_consecutive_failures;
    args.waits.max_live = config.wait.max_live_waits;
    args.waits.x11_display = config.x11.resolved_display();
    args.waits.wayland = config.wayland.resolved(&paths::data_folder(config));
    args.waits.pixel_floor = config.wait.floor();
    args.waits.window_gone_grace = config.wait.window_gone_grace();
    args.waits.settle_probe = config.wait.settle_probe();
    args.waits.follow_changes = config.wait.follow_changes;
    args.waits.tmux_pipes =
        (paths::socket_path(config).parent()).map(|folder| folder.join("tmux-pipes"));
    // The gateway whose exec sessions `pty:` waits read is the one whose sessions recall
    // reads: the first gateway sink's, else the one found on this machine.
    args.recall.openclaw = sinks
        .exec_sessions
        .ledger()
        .filter(|_| config.recall.reads("openclaw"))
        .map(|ledger| ledger.client().clone());
    args.waits.openclaw = sinks.exec_sessions;
    args.vision = vision.spec;
    args.recall.retention = config.recall.retention();
    args.recall.transcripts = config.recall.transcripts_folder();
    args.recall.procedures = config.recall.procedures == super::Procedures::Model;
    args.recall.recorder = RecorderSettings {
        mode: config.recall.mode,
        // The desktop the waits read: a Wayland session when one is resolved, else X11.
        desk: match &args.waits.wayland {
            Some(display) => DeskSettings::Wayland(display.clone()),
            None => DeskSettings::X11(args.waits.x11_display.clone()),
        },
        interval: Duration::from_millis(config.recall.interval_ms),
        idle_gap: Duration::from_secs(config.recall.idle_gap_s),
        exclude: config.recall.exclude.clone(),
        ocr_program: config.recall.ocr_program.clone(),
        keyframe_budget_bytes: config.recall.keyframe_budget_mib.saturating_mul(1 << 20),
        ..args.recall.recorder
    };
    args
}

/// The stuck-task policy of `[stuck]` (also shown by `daemon.status`).
pub fn stuck_policy(config: &StuckConfig) -> StuckPolicy {
    StuckPolicy {
        enabled: config.enabled,
        threshold: Duration::from_secs(config.threshold_s),
        scan_interval: Duration::from_secs(config.scan_interval_s),
        cooldown: Duration::from_secs(config.cooldown_s),
        max_packet_bytes: config.max_packet_bytes,
    }
}

/// What the socket server takes from the configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    pub max_request_bytes: usize,
    /// Asked for; the daemon serves fewer when the open-file limit is lower.
    pub max_connections: usize,
    pub idle_timeout: Duration,
    pub line_timeout: Duration,
}

pub fn server_limits(config: &Config) -> ServerLimits {
    ServerLimits {
        max_request_bytes: config.max_request_bytes,
        max_connections: config.connections.max_connections,
        idle_timeout: Duration::from_secs(config.connections.idle_timeout_s),
        line_timeout: Duration::from_secs(config.connections.line_timeout_s),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    use actors::{ManualClock, TreeArgs};
    use storage::{Store, Timestamp};

    use super::*;
    use crate::config::{EXAMPLE, sinks, vision};

    /// Keys read before the tree and the server exist, each with who reads it.
    const READ_ELSEWHERE: [(&str, &str); 3] = [
        (
            "socket_path",
            "paths::socket_path, where the socket is bound",
        ),
        ("storage.cache_mib", "Daemon::start, as the store's cache"),
        ("log_level", "logging::init, before anything runs"),
    ];

    /// The example with its commented-out keys set (those of the `[[wake.sinks]]` examples
    /// aside), a model backend and JPEG frames, so every key has something to change.
    fn every_key_set() -> String {
        let mut text = String::new();
        let mut in_array_example = false;
        for line in EXAMPLE.lines() {
            if line.starts_with('[') {
                in_array_example = false;
            } else if line.starts_with("# [[") {
                in_array_example = true;
            }
            let commented_key = line
                .strip_prefix("# ")
                .filter(|rest| !in_array_example && is_assignment(rest));
            let line = match commented_key {
                Some(rest) => rest.split("  #").next().unwrap().trim_end().to_owned(),
                None => line.to_owned(),
            };
            let line = line
                .replace("backend = \"none\"", "backend = \"openai\"")
                .replace("image_format = \"png\"", "image_format = \"jpeg\"");
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    fn is_assignment(line: &str) -> bool {
        line.split_once(" = ").is_some_and(|(key, _)| {
            !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        })
    }

    /// The words a choice may be, by key.
    const CHOICES: [(&str, &[&str]); 7] = [
        ("wayland.session", &["auto", "wayland", "x11"]),
        ("wayland.capture", &["auto", "screencopy", "portal"]),
        ("recall.mode", &["off", "tasks", "always"]),
        ("recall.procedures", &["screen", "model"]),
        ("vision.backend", &["openai", "anthropic", "ocr", "none"]),
        ("vision.image_format", &["jpeg", "png"]),
        ("log_level", &["info", "debug"]),
    ];

    /// Other values the key at `path` could take, most likely valid first.
    fn alternatives(path: &str, value: &str) -> Vec<String> {
        if let Some((_, words)) = CHOICES.iter().find(|(key, _)| *key == path) {
            return words
                .iter()
                .map(|word| format!("\"{word}\""))
                .filter(|word| word != value)
                .collect();
        }
        match value {
            "true" => vec!["false".into()],
            "false" => vec!["true".into()],
            "[]" => vec!["[\"changed\"]".into()],
            list if list.starts_with('[') => vec!["[]".into()],
            _ => match value.parse::<u64>() {
                Ok(n) => [n + 1, n * 2, n.saturating_sub(1), 1]
                    .into_iter()
                    .filter(|m| *m != n)
                    .map(|m| m.to_string())
                    .collect(),
                Err(_) => vec![format!("{}x\"", value.trim_end_matches('"'))],
            },
        }
    }

    /// Everything the daemon runs with, in words.
    fn carried(config: &Config, store: &Arc<Store>) -> String {
        let key = |name: &str| Some(format!("secret-in-{name}"));
        let found = |program: &str| Some(PathBuf::from("/usr/bin").join(program));
        let sinks = sinks::resolve(&config.wake, true, key, found).unwrap();
        let vision = vision::resolve(&config.vision, key, found).unwrap();
        let clock = ManualClock::new(Timestamp::from_secs(100));
        let args: TreeArgs = tree_args(config, store.clone(), clock, sinks, vision);
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            args.group_commit,
            args.tasks,
            args.waits,
            args.wake,
            args.vision,
            args.terminal_limits,
            args.recall,
            server_limits(config)
        )
    }

    #[test]
    fn every_configuration_key_reaches_what_the_daemon_runs_with() {
        let folder = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&folder.path().join("walk.redb")).unwrap());
        let text = every_key_set();
        let origin = Path::new("walk.toml");
        let base = carried(&Config::parse(&text, origin).unwrap(), &store);
        let mut section = String::new();
        let mut not_carried = BTreeSet::new();
        let mut walked = 0;
        for (index, line) in text.lines().enumerate() {
            if let Some(name) = line.strip_prefix('[') {
                section = name.trim_end_matches(']').to_owned();
                continue;
            }
            let Some((key, value)) = line.split_once(" = ").filter(|_| is_assignment(line)) else {
                continue;
            };
            let path = if section.is_empty() {
                key.to_owned()
            } else {
                format!("{section}.{key}")
            };
            walked += 1;
            let mut valid = false;
            let mut changed = false;
            for other in alternatives(&path, value) {
                let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
                lines[index] = format!("{key} = {other}");
                let Ok(config) = Config::parse(&lines.join("\n"), origin) else {
                    continue;
                };
                valid = true;
                if carried(&config, &store) != base {
                    changed = true;
                    break;
                }
            }
            assert!(valid, "{path}: give the walk a valid other value for it");
            if !changed {
                not_carried.insert(path);
            }
        }
        assert!(walked > 40, "the walk found only {walked} keys");
        let elsewhere: BTreeSet<String> = READ_ELSEWHERE
            .iter()
            .map(|(key, _)| key.to_string())
            .collect();
        assert_eq!(
            not_carried, elsewhere,
            "keys on the left change nothing the daemon runs with: carry them over in \
             config::carry (or name who reads them in READ_ELSEWHERE)"
        );
    }
}
