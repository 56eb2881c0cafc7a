//! The words agents and users write about computers that mean the same thing. A question's
//! word is searched for as itself first; its synonyms count a little less
//! ([`SYNONYM_WEIGHT`]), so a document holding the word itself ranks above one holding only
//! a synonym.
//!
//! Phrases and the word each is also written as are in [`crate::phrases`]; the general words
//! that stand for a kind of thing, and its members, in [`crate::kinds`]; the words of
//! particular trades (a shop's tills, a school's pupils) in [`crate::trades`].
//!
//! To add a word: put it in the group it belongs to, or add a group. Each word is written
//! lowercase as the index spells it (letters and digits only: "k8s", not "k-8-s"); a group's
//! words are all equivalent; a phrase is its words so written, one space apart. Pure data and
//! a few lookups.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::symptoms::SYMPTOM_GROUPS;
use crate::trades::TRADE_GROUPS;

/// How much a synonym counts beside the word itself.
pub const SYNONYM_WEIGHT: f64 = 0.8;

/// Words that mean the same, each group on its own.
pub(crate) const GROUPS: &[&[&str]] = &[
    &["ssl", "tls", "https"],
    &["web", "online"],
    &["avg", "average"],
    &[
        "cert",
        "certs",
        "certificate",
        "certificates",
        "letsencrypt",
        "certbot",
        "x509",
    ],
    &["db", "database", "databases"],
    &["postgres", "postgresql", "pg", "psql"],
    &["mysql", "mariadb"],
    &["mongo", "mongodb"],
    &["java", "jvm", "openjdk", "jdk", "jre"],
    &["k8s", "kubernetes", "kube", "kubectl"],
    &["upgrade", "migrate", "migration", "bump", "update"],
    &[
        "deploy",
        "deployment",
        "ship",
        "release",
        "rollout",
        "publish",
    ],
    &["repo", "repository", "repositories"],
    &[
        "config",
        "configure",
        "configuration",
        "setting",
        "settings",
        "setup",
    ],
    &["auth", "authentication", "login", "signin"],
    &["creds", "credentials", "password", "passwords"],
    &["token", "tokens", "apikey", "jwt", "jwts"],
    &["env", "environment", "dotenv"],
    &["prod", "production"],
    &["staging", "stage", "stg"],
    &["dev", "development"],
    &["js", "javascript", "node", "nodejs", "npm"],
    &["ts", "typescript"],
    &["py", "python", "pip"],
    &["rs", "rust", "cargo"],
    &["backup", "backups", "snapshot", "dump"],
    &["restore", "recover", "recovery", "retrieve", "retrieval"],
    &[
        "replace",
        "replaced",
        "replacement",
        "recreate",
        "recreated",
        "swapped",
        "switch",
        "switched",
    ],
    // Keeping a service or a cache warm is the other side of a cold start.
    &["warm", "warmed", "warming", "warmup", "cold"],
    // "Why did we drop the plan?" asks about work that was cancelled.
    &[
        "cancel",
        "cancels",
        "cancelled",
        "canceled",
        "abandon",
        "abandoned",
        "drop",
    ],
    &["delete", "remove", "rm", "drop", "purge"],
    &["install", "installed", "installation", "fitted"],
    &[
        "error", "errors", "errno", "failure", "failed", "fail", "failing", "crash", "broken",
    ],
    &["fix", "fixed", "repair", "patch"],
    &[
        "test",
        "tests",
        "testing",
        "spec",
        "specs",
        "verify",
        "verified",
        "verification",
    ],
    &[
        "ci", "pipeline", "workflow", "actions", "gha", "runner", "runners",
    ],
    &["docker", "container", "containers", "podman"],
    &["dns", "nameserver", "nameservers"],
    &["domain", "domains", "hostname"],
    &["ssh", "sshd"],
    &["key", "keys", "keypair"],
    &["vm", "instance", "droplet", "ec2", "vps"],
    &["server", "servers", "host", "hosts", "box"],
    &["log", "logs", "logging", "journal"],
    &["cron", "crontab", "schedule", "scheduled", "timer"],
    &["email", "mail", "smtp"],
    &["colormap", "colormaps", "colourmap", "colourmaps", "cmap"],
    &["pr", "pullrequest"],
    &["branch", "branches"],
    &["renew", "renewal", "renewed", "rotate", "rotation"],
    &[
        "disk",
        "disks",
        "storage",
        "volume",
        "volumes",
        "filesystem",
        "filesystems",
        "drive",
        "drives",
        "space",
        "ssd",
        "ssds",
        "nvme",
        "hdd",
        "hdds",
    ],
    &["memory", "ram", "oom", "rss", "mem"],
    &["ddos", "dos", "synflood", "flood", "floods"],
    &["canary", "canaries", "phased", "gradual"],
    &["synthetic", "fake"],
    &["loom", "virtualthreads"],
    &["org", "orgs", "organisation", "organization"],
    &[
        "temperature",
        "temperatures",
        "temp",
        "temps",
        "heat",
        "hot",
        "overheat",
        "overheating",
        "overheated",
        "thermal",
    ],
    &[
        "persistence",
        "persistent",
        "persist",
        "durable",
        "durability",
    ],
    &["aof", "appendonly"],
    &["leak", "leaks", "leaking", "leaked", "leakage"],
    &["finish", "finished", "complete", "completed"],
    &["timesync", "ntp", "ntpd", "chrony", "chronyd", "timesyncd"],
    &["faster", "speed", "speedup", "quicker", "slow", "slower"],
    &["nginx", "webserver"],
    &["firewall", "ufw", "iptables", "nftables"],
    &["vpn", "wireguard", "wg", "openvpn"],
    &["wifi", "wlan", "wireless"],
    &["lag", "lags", "lagging", "lagged", "behind"],
    &["brotli", "br"],
    &[
        "compress",
        "compressed",
        "compression",
        "gzip",
        "gzipped",
        "zstd",
    ],
    &["zfs", "zpool"],
    &["user", "users", "people"],
    &["logout", "signout"],
    &[
        "pass",
        "passed",
        "passes",
        "passing",
        "succeed",
        "succeeded",
        "succeeds",
        "success",
        "successful",
    ],
    &["battery", "batteries", "charge", "charging"],
    &[
        "drain", "drains", "drained", "draining", "lose", "loses", "losing", "loss",
    ],
    &[
        "sleep",
        "asleep",
        "sleeping",
        "standby",
        "suspend",
        "suspended",
    ],
    &[
        "disconnect",
        "disconnects",
        "disconnecting",
        "disconnected",
        "drops",
        "dropping",
        "dropouts",
    ],
    &[
        "disable",
        "disabled",
        "disables",
        "disabling",
        "deactivate",
        "deactivated",
    ],
    &[
        "enable",
        "enabled",
        "enables",
        "enabling",
        "activate",
        "activated",
    ],
    &["2fa", "mfa", "totp", "otp", "authenticator"],
    &[
        "addon",
        "addons",
        "extension",
        "extensions",
        "plugin",
        "plugins",
    ],
    &["glacier", "deeparchive", "coldline"],
    &["id", "ids", "identifier", "identifiers"],
    &["corporate", "office"],
    &["status", "statuscode"],
    &["rdns", "ptr"],
    &["undo", "revert", "reverted", "rollback", "reset"],
    &["analytics", "bi", "reporting"],
    &["expose", "exposed", "exposes", "exposing", "visible"],
    &["dnsbl", "rbl", "blocklist"],
    &["pwa", "serviceworker"],
    &["cart", "carts", "basket", "baskets"],
    &["below", "under", "beneath"],
    &["immutable", "undeletable", "worm", "objectlock"],
    &["outgoing", "outbound"],
    &["incoming", "inbound"],
    &["antivirus", "virus", "viruses", "clamav"],
    &["offboarding", "offboard", "leaver", "leavers"],
    &["keepalive", "serveraliveinterval", "clientaliveinterval"],
    &["replay", "redrive", "reprocess"],
    &[
        "suppress",
        "suppressed",
        "inhibit",
        "inhibited",
        "silence",
        "silenced",
        "mute",
        "muted",
    ],
    &["pii", "gdpr", "sensitive"],
    &[
        "inconsistent",
        "vary",
        "varies",
        "varying",
        "fluctuate",
        "fluctuates",
        "fluctuating",
    ],
    &["boot", "booting", "startup", "bootup"],
    &["bandwidth", "egress", "traffic"],
    &[
        "malware",
        "hacked",
        "compromised",
        "exploited",
        "infected",
        "breach",
        "breached",
    ],
    &["401", "unauthorized", "unauthenticated"],
    &["403", "forbidden"],
    &[
        "duplicate",
        "duplicates",
        "duplicated",
        "dupe",
        "dupes",
        "dedup",
        "dedupe",
        "deduplicate",
        "deduplicated",
        "deduplication",
        "twice",
        "double",
        "doubled",
    ],
    &[
        "limit", "limits", "max", "maximum", "cap", "capped", "ceiling", "ulimit", "quota",
        "quotas",
    ],
    &[
        "fd",
        "fds",
        "descriptor",
        "descriptors",
        "nofile",
        "limitnofile",
    ],
    &["lora", "lorawan"],
    &["stp", "bpdu"],
    &["bruteforce", "fail2ban"],
    &[
        "vulnerability",
        "vulnerabilities",
        "vuln",
        "vulns",
        "cve",
        "cves",
    ],
    &[
        "scan", "scans", "scanned", "scanner", "scanners", "scanning",
    ],
    &["gop", "keyframe", "keyframes"],
    &["garbled", "mojibake", "gibberish", "garbage"],
    &["smb", "cifs", "samba"],
    &[
        "typo",
        "typos",
        "misspelled",
        "misspelt",
        "misspelling",
        "misspellings",
    ],
    &[
        "i18n",
        "l10n",
        "translation",
        "translations",
        "localization",
        "localisation",
        "localise",
        "localize",
        "internationalization",
        "internationalisation",
        "bilingual",
        "multilingual",
    ],
    &["accessibility", "a11y", "wcag"],
    &[
        "conflict",
        "conflicts",
        "conflicting",
        "clash",
        "clashed",
        "clashes",
        "clashing",
    ],
    &[
        "chargeback",
        "chargebacks",
        "dispute",
        "disputes",
        "disputed",
    ],
    &["clear", "cleared", "empty", "emptied", "flush", "flushed"],
    &[
        "yubikey", "yubikeys", "fido2", "u2f", "passkey", "passkeys", "webauthn",
    ],
    &["url", "urls", "uri", "uris"],
    &["gb", "gigabyte", "gigabytes"],
    &["mb", "megabyte", "megabytes"],
    &["tb", "terabyte", "terabytes"],
    &["sso", "saml", "oidc"],
    &["wal", "journal"],
    &["duration", "took", "elapsed"],
    &[
        "alert",
        "alerts",
        "alerting",
        "alarm",
        "alarms",
        "notification",
        "notifications",
        "notify",
        "notified",
        "page",
        "paged",
        "paging",
        "pagerduty",
        "opsgenie",
        "oncall",
    ],
    &[
        "throttle",
        "throttled",
        "throttling",
        "ratelimit",
        "ratelimited",
        "toomanyrequests",
    ],
    &[
        "usage",
        "use",
        "used",
        "utilization",
        "utilisation",
        "full",
        "exhausted",
        "exhaustion",
    ],
    &[
        "shrink",
        "shrank",
        "shrunk",
        "reduce",
        "reduced",
        "decrease",
        "decreased",
        "smaller",
        "dropped",
    ],
    &[
        "reject", "rejected", "rejects", "refuse", "refused", "refuses", "deny", "denied",
    ],
    &["process", "processes", "pid", "pids"],
    &["loadbalancer", "lb", "alb", "elb", "nlb"],
    &[
        "encode",
        "encoding",
        "encoded",
        "transcode",
        "transcoding",
        "transcoded",
    ],
    &[
        "phone",
        "phones",
        "mobile",
        "smartphone",
        "smartphones",
        "telephone",
    ],
    &["systemd", "systemctl", "journalctl"],
    // Hardware and machine learning.
    &["gpu", "gpus", "cuda", "nvidia", "vram", "rtx", "geforce"],
    &["cpu", "cpus", "processor", "cores"],
    &[
        "training",
        "train",
        "trained",
        "finetune",
        "finetuned",
        "finetuning",
    ],
    // Time and dates.
    &["timezone", "timezones", "tz", "tzdata", "zoneinfo"],
    &["dst", "daylight", "clocks"],
    &["outdated", "stale", "obsolete", "deprecated"],
    &["clock", "clocks", "drift", "skew"],
    // Scaling and queues.
    &[
        "autoscale",
        "autoscaling",
        "autoscaler",
        "hpa",
        "keda",
        "scale",
        "scaled",
        "scaling",
    ],
    &["scale", "scaled", "scaling", "resize", "resized"],
    &["backlog", "backlogs", "queued", "pending", "lag"],
    &["consumer", "consumers", "worker", "workers"],
    &["replica", "replicas", "follower", "secondary"],
    // Keeping and expiring data.
    &[
        "retention",
        "retain",
        "retained",
        "expiry",
        "expire",
        "expires",
        "expiration",
        "lifecycle",
        // openssl's name for a certificate's expiry.
        "notafter",
    ],
    &[
        "prune",
        "pruned",
        "pruning",
        "cleanup",
        "vacuum",
        "compaction",
    ],
    &["archive", "archived", "archives", "tarball", "tar"],
    // Networks and names.
    &[
        "network",
        "networks",
        "networking",
        "lan",
        "subnet",
        "vlan",
        "router",
        "routers",
    ],
    &["ads", "adblock", "adblocker", "pihole", "blocklist"],
    &["proxy", "proxies", "reverseproxy"],
    &["internet", "public", "publicly", "outside", "external"],
    &["port", "ports", "listen", "listening"],
    // Sockets, and the commands that list them.
    &["socket", "sockets", "ss", "netstat"],
    &["ip", "ipv4", "ipv6"],
    &["latency", "ping", "rtt", "p99", "p95", "lag"],
    &["perforce", "p4", "helix"],
    &["pbx", "voip", "telephony"],
    &["jailbreak", "jailbroken", "rooted"],
    &["accurate", "accuracy", "precise", "precision"],
    &["timeout", "timeouts", "timedout", "hang", "hangs", "hung"],
    &["swap", "swapfile", "swappiness", "zram"],
    // Sizes and counts.
    &["size", "sizes", "big", "bigger", "large", "larger", "huge"],
    &["count", "counts", "number", "total"],
    // Software releases and apps.
    &["android", "apk", "aab", "playstore"],
    &["ios", "iphone", "ipa", "testflight", "appstore"],
    &["package", "packages", "dependency", "dependencies", "deps"],
    &["build", "builds", "compile", "compiled", "compilation"],
    &["flaky", "flake", "flakes", "intermittent", "intermittently"],
    &["cache", "caches", "cached", "caching"],
    &["secret", "secrets", "vault"],
    &[
        "encrypt",
        "encrypted",
        "encryption",
        "decrypt",
        "decrypted",
        "decryption",
    ],
    &["permission", "permissions", "chmod", "chown", "denied"],
    &["cors", "crossorigin"],
    &["webhook", "webhooks", "callback"],
    &["queue", "queues", "mq", "broker"],
    &[
        "metrics",
        "metric",
        "prometheus",
        "grafana",
        "dashboard",
        "dashboards",
    ],
    &["monitor", "monitoring", "uptime", "probe"],
    &["index", "indexes", "indices", "indexed"],
    &["doc", "docs", "document", "documents", "documentation"],
    &["wrapper", "wrappers", "binding", "bindings"],
    &["ventilation", "ventilated", "vented", "extraction"],
    &["win", "won", "awarded"],
    &["lowest", "min", "minimum"],
    &["highest", "max", "maximum"],
    &[
        "predict",
        "predicting",
        "predicted",
        "prediction",
        "predictions",
        "forecast",
        "forecasts",
        "forecasting",
    ],
    &["radio", "wireless"],
    &["query", "queries", "sql"],
    &["mid", "middle", "midway", "halfway"],
    &[
        "shortage",
        "shortages",
        "shortfall",
        "shortfalls",
        "stockout",
        "stockouts",
        "exhaustion",
    ],
    &[
        "restart",
        "restarted",
        "reboot",
        "rebooted",
        "bounce",
        "reset",
        "resets",
    ],
    &["upload", "uploads", "uploaded"],
    &["download", "downloads", "downloaded"],
    &["print", "printer", "printing", "cups"],
    &["photo", "photos", "picture", "pictures", "image", "images"],
    &["font", "fonts"],
    &["css", "stylesheet", "stylesheets", "styles"],
    &[
        "sound",
        "audio",
        "speaker",
        "speakers",
        "pipewire",
        "pulseaudio",
    ],
    &["screen", "display", "displays", "monitor", "monitors"],
    &["small", "tiny"],
    &["bluetooth", "bt"],
    &["mac", "macs", "macos", "osx"],
    &["ai", "llm", "llms"],
    &["touchpad", "trackpad"],
    &[
        "overlap",
        "overlapping",
        "concurrent",
        "concurrency",
        "simultaneous",
    ],
    &[
        "update",
        "updates",
        "updating",
        "refresh",
        "refreshed",
        "refreshes",
    ],
    &["program", "programs", "binary", "binaries", "executable"],
    &["median", "p50"],
];

/// Each grouped word's synonyms, sorted, itself excluded: built once, since every question
/// word asks for them several times.
static SYNONYMS: LazyLock<HashMap<&'static str, Vec<&'static str>>> = LazyLock::new(|| {
    let mut synonyms: HashMap<&'static str, Vec<&'static str>> = HashMap::new();
    for group in all_groups() {
        for word in group.iter() {
            synonyms
                .entry(word)
                .or_default()
                .extend(group.iter().filter(|other| *other != word));
        }
    }
    for found in synonyms.values_mut() {
        found.sort_unstable();
        found.dedup();
    }
    synonyms
});

/// Every group: the words of computing ([`GROUPS`]), then how people put what went wrong
/// ([`SYMPTOM_GROUPS`]), then the words of particular trades ([`TRADE_GROUPS`]).
pub(crate) fn all_groups() -> impl Iterator<Item = &'static [&'static str]> {
    (GROUPS.iter().chain(SYMPTOM_GROUPS).chain(TRADE_GROUPS)).copied()
}

/// The words that mean the same as `word` (itself excluded), from every group it is in.
pub fn synonyms_of(word: &str) -> Vec<&'static str> {
    SYNONYMS.get(word).cloned().unwrap_or_default()
}

/// The other words of every group of `groups` that holds `word`, each once.
pub(crate) fn others_in(groups: &[&[&'static str]], word: &str) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = groups
        .iter()
        .filter(|group| group.contains(&word))
        .flat_map(|group| group.iter().copied())
        .filter(|other| *other != word)
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lookup_answers_as_a_walk_of_the_groups() {
        let groups: Vec<&[&str]> = all_groups().collect();
        for group in &groups {
            for word in group.iter() {
                assert_eq!(synonyms_of(word), others_in(&groups, word), "{word}");
            }
        }
    }

    #[test]
    fn a_group_is_symmetric() {
        assert!(synonyms_of("ssl").contains(&"tls"));
        assert!(synonyms_of("tls").contains(&"ssl"));
        assert!(synonyms_of("k8s").contains(&"kubernetes"));
        assert!(!synonyms_of("postgres").contains(&"postgres"));
        assert!(synonyms_of("qxzzy").is_empty());
    }

    #[test]
    fn every_word_is_written_as_the_index_spells_it() {
        let phrases = (crate::phrases::PHRASES.iter()).flat_map(|(phrase, _)| phrase.split(' '));
        let forms = crate::forms::FORMS
            .iter()
            .flat_map(|forms| forms.iter().copied());
        for word in crate::tables::curated_words().chain(phrases).chain(forms) {
            assert!(
                !word.is_empty()
                    && word
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
                "{word:?} is not one lowercase word"
            );
        }
    }
}
