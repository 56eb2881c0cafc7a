//! `daemon.status`: what the tree reports of itself and the process's own facts, as the
//! one JSON object `lookout status`, `service status --json` and monitoring read.

use actors::TreeStatus;
use serde_json::{Value, json};
use std::path::PathBuf;

use storage::Timestamp;

/// Facts about the running daemon for `daemon.status`.
#[derive(Clone, Debug)]
pub struct DaemonInfo {
    pub version: &'static str,
    pub started_at: Timestamp,
    pub pid: u32,
    pub socket_path: PathBuf,
    pub data_file: PathBuf,
    pub config_source: String,
    pub stuck: actors::tasks::stuck::StuckPolicy,
    /// Where `window:` and `screen` waits read pixels, in words ("X11 display :0").
    pub pixels: String,
}

/// The `daemon.status` result at `now`.
pub fn daemon_status(status: &TreeStatus, info: &DaemonInfo, now: Timestamp) -> Value {
    let uptime_s = now.millis_since(info.started_at) / 1000;
    let tasks: serde_json::Map<String, Value> = status
        .store
        .tasks_by_status
        .iter()
        .map(|(status, count)| (status.as_str().to_owned(), json!(count)))
        .collect();
    let active = status
        .store
        .tasks_by_status
        .first()
        .map(|(_, n)| *n)
        .unwrap_or(0);
    let health = match &status.health {
        actors::Health::Serving => "serving".to_owned(),
        actors::Health::Starting => "starting".to_owned(),
        actors::Health::Failed(reason) => format!("failed: {reason}"),
    };
    json!({
        "version": info.version,
        "pid": info.pid,
        "started_at": info.started_at.to_rfc3339(),
        "uptime_s": uptime_s,
        "socket": info.socket_path,
        "data_file": info.data_file,
        "config": info.config_source,
        "health": health,
        "tasks": tasks,
        "messages": status.store.messages,
        "plan_revisions": status.store.plan_revisions,
        "storage": {
            "file_bytes": status.store.file_bytes,
            "schema_version": status.store.schema_version,
            "group_commit": status.registry.group_commit,
            "commits": status.registry.commits,
            "writes": status.registry.writes,
            "failed_writes": status.registry.failed_writes,
            "largest_group": status.registry.largest_group,
            "damaged_reads": status.registry.damaged_reads,
            "journal_records": status.store.journal_records,
            "replayed_writes": status.store.replayed_writes,
            "free_bytes": status.store.free_bytes,
            "writes_refused_for_space": status.store.writes_refused_for_space,
            "read_only": status.store.read_only,
        },
        "actors": {
            "live_task_actors": status.tasks.live_task_actors,
            "unloaded_task_actors": status.tasks.unloaded_task_actors,
            "task_actor_failures": status.tasks.task_actor_failures,
            "restarts": status.restarts,
        },
        "waits": {
            "live": status.waits.live_waits,
            "total": status.store.waits,
            "wait_actor_failures": status.waits.wait_actor_failures,
            "targets_watched": status.waits.feeds.targets,
            "captures": status.waits.feeds.captures,
            "pixels": info.pixels,
        },
        "stuck": {
            "enabled": info.stuck.enabled,
            "threshold_s": info.stuck.threshold.as_secs(),
            "scan_interval_s": info.stuck.scan_interval.as_secs(),
            "cooldown_s": info.stuck.cooldown.as_secs(),
            "scans": status.tasks.stuck_scans,
            "alerts": status.tasks.stuck_alerts,
            "last_scan": status.tasks.last_scan.as_ref().map(|scan| json!({
                "at": scan.at.to_rfc3339(),
                "candidates": scan.candidates,
                "alerts": scan.alerts.len(),
                "duration_ms": scan.duration_ms,
            })),
        },
        "vision": super::vision_status(&status.vision),
        "recall": super::recorder_status(&status.recorder),
        "wake": {
            "sinks": status.wake.sinks,
            "sink_states": status.wake.sinks.iter().zip(&status.wake.sink_states)
                .filter_map(|(name, state)| state.as_ref().map(|state| (name.clone(), json!(state))))
                .collect::<serde_json::Map<String, serde_json::Value>>(),
            "events": status.store.events,
            "pending": status.store.events_pending,
            "in_flight": status.wake.in_flight,
            "delivered_since_start": status.wake.delivered,
            "failed_attempts_since_start": status.wake.failed_attempts,
            "dead": status.store.dead_deliveries,
            "rejected": status.store.rejected_deliveries,
            // Of this run's wakes: asked about since (taken), not yet, and reminded once.
            "taken": status.wake_attention.taken,
            "not_taken": status.wake_attention.not_taken,
            "reminded": status.wake_attention.reminded,
        },
        "message": format!(
            "lookout {} serving for {uptime_s}s; {active} active tasks; {} wake events pending delivery{}{}.",
            info.version,
            status.store.events_pending,
            if status.store.dead_deliveries > 0 {
                format!(", {} deliveries gave up (see the daemon log)", status.store.dead_deliveries)
            } else {
                String::new()
            },
            match status.wake_attention.not_taken {
                0 => String::new(),
                n => format!(", {} not taken (nobody asked about {} since)", actors::words::count(n, "wake", None), if n == 1 { "it" } else { "them" }),
            }
        ),
    })
}
