//! The checks a loaded configuration must pass, each failure naming the key, the value and
//! what it may be.

use super::{
    Config, MAX_CACHE_MIB, MAX_CONNECTIONS_LIMIT, MAX_PACKET_BYTES_LIMIT, MAX_REQUEST_BYTES_LIMIT,
    Procedures, RecallConfig, SinkConfig, VisionBackend,
};

impl Config {
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        let recall = &self.recall;
        for source in &recall.sources {
            anyhow::ensure!(
                RecallConfig::SOURCES.contains(&source.as_str()),
                "[recall] sources: \"{source}\" is not a source lookout reads; the sources are {:?}",
                RecallConfig::SOURCES
            );
        }
        anyhow::ensure!(
            recall.procedures == Procedures::Screen
                || matches!(
                    self.vision.backend,
                    VisionBackend::Openai | VisionBackend::Anthropic
                ),
            "[recall] procedures = \"model\" needs a model to describe what was recorded: set [vision] \
             backend = \"openai\" or \"anthropic\" (tesseract reads text, it cannot describe), or \
             procedures = \"screen\""
        );
        anyhow::ensure!(
            (250..=60_000).contains(&recall.interval_ms),
            "[recall] interval_ms = {} must be between 250 and 60000",
            recall.interval_ms
        );
        anyhow::ensure!(
            recall.idle_gap_s >= 1,
            "[recall] idle_gap_s must be at least 1 (second)"
        );
        anyhow::ensure!(
            (1024..=MAX_REQUEST_BYTES_LIMIT).contains(&self.max_request_bytes),
            "max_request_bytes = {} must be between 1024 and {MAX_REQUEST_BYTES_LIMIT}",
            self.max_request_bytes
        );
        let connections = &self.connections;
        anyhow::ensure!(
            (1..=MAX_CONNECTIONS_LIMIT).contains(&connections.max_connections),
            "[connections] max_connections = {} must be between 1 and {MAX_CONNECTIONS_LIMIT}",
            connections.max_connections
        );
        anyhow::ensure!(
            connections.idle_timeout_s >= 1 && connections.line_timeout_s >= 1,
            "[connections] idle_timeout_s and line_timeout_s must be at least 1 second"
        );
        anyhow::ensure!(
            (1..=MAX_CACHE_MIB).contains(&self.storage.cache_mib),
            "[storage] cache_mib = {} must be between 1 and {MAX_CACHE_MIB}",
            self.storage.cache_mib
        );
        anyhow::ensure!(
            self.storage.task_unload_after_s >= 1,
            "[storage] task_unload_after_s must be at least 1 second"
        );
        let stuck = &self.stuck;
        for (key, value) in [
            ("threshold_s", stuck.threshold_s),
            ("scan_interval_s", stuck.scan_interval_s),
            ("cooldown_s", stuck.cooldown_s),
        ] {
            anyhow::ensure!(
                value >= 1,
                "[stuck] {key} = {value} is too small; use at least 1 (second)"
            );
        }
        anyhow::ensure!(
            (1024..=MAX_PACKET_BYTES_LIMIT).contains(&stuck.max_packet_bytes),
            "[stuck] max_packet_bytes = {} must be between 1024 and {MAX_PACKET_BYTES_LIMIT}",
            stuck.max_packet_bytes
        );
        anyhow::ensure!(
            self.wake.max_attempts >= 1,
            "[wake] max_attempts must be at least 1"
        );
        anyhow::ensure!(
            self.wait.max_consecutive_failures >= 1,
            "[wait] max_consecutive_failures must be at least 1"
        );
        anyhow::ensure!(
            self.wait.max_live_waits >= 1,
            "[wait] max_live_waits must be at least 1"
        );
        let vision = &self.vision;
        anyhow::ensure!(
            (1..=64).contains(&vision.max_concurrency),
            "[vision] max_concurrency = {} must be between 1 and 64",
            vision.max_concurrency
        );
        anyhow::ensure!(
            vision.timeout_s >= 1,
            "[vision] timeout_s = 0 is too small; use at least 1 (second)"
        );
        anyhow::ensure!(
            vision.retries <= 10,
            "[vision] retries = {} is too many; use at most 10",
            vision.retries
        );
        anyhow::ensure!(
            (64..=8192).contains(&vision.max_image_px),
            "[vision] max_image_px = {} must be between 64 and 8192",
            vision.max_image_px
        );
        anyhow::ensure!(
            (1..=100).contains(&vision.jpeg_quality),
            "[vision] jpeg_quality = {} must be between 1 and 100",
            vision.jpeg_quality
        );
        anyhow::ensure!(
            self.wait.floor_s >= 1,
            "[wait] floor_s = 0 would judge a still window on every capture; use at least 1 (second)"
        );
        for (index, sink) in self.wake.sinks.iter().enumerate() {
            let timeout_s = match sink {
                SinkConfig::Command(sink) => sink.timeout_s,
                SinkConfig::Openclaw(sink) => sink.timeout_s,
                SinkConfig::OpenclawCli(sink) => sink.timeout_s,
                SinkConfig::Webhook(sink) => sink.timeout_s,
            };
            anyhow::ensure!(
                timeout_s >= 1,
                "[[wake.sinks]] entry {} ({}) has timeout_s = 0; use at least 1",
                index + 1,
                sink.kind()
            );
        }
        Ok(())
    }
}
