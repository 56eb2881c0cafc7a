//! The general words that stand for a kind of thing, and the specific things of each kind
//! ("database" → postgres, mysql, sqlite). A kind goes one way only: the kind finds its
//! members, a member does not find the others. A member counts less than a synonym
//! ([`KIND_WEIGHT`] beside [`crate::synonyms::SYNONYM_WEIGHT`]).
//!
//! To add a kind: a general word and its members, written as the index spells them
//! (lowercase letters and digits). Pure data and one lookup.

use crate::synonyms::synonyms_of;

/// How much a member of a kind counts when the question names the kind ("database" →
/// "postgres").
pub const KIND_WEIGHT: f64 = 0.7;

/// A general word, and the specific things of its kind (one way only: "database" finds
/// "postgres", but "postgres" does not find "mysql").
pub(crate) const KINDS: &[(&str, &[&str])] = &[
    (
        "pet",
        &[
            "dog", "dogs", "cat", "cats", "puppy", "puppies", "kitten", "kittens",
        ],
    ),
    (
        "weather",
        &[
            "rain", "rained", "rainy", "snow", "snowed", "frost", "storm", "storms", "wind",
            "gales", "heatwave", "fog",
        ],
    ),
    (
        "vehicle",
        &[
            "bus", "buses", "van", "vans", "car", "cars", "lorry", "lorries", "truck", "trucks",
            "coach", "coaches", "taxi", "taxis",
        ],
    ),
    (
        "food",
        &[
            "meal",
            "meals",
            "snack",
            "snacks",
            "lunch",
            "lunches",
            "breakfast",
            "dinner",
        ],
    ),
    (
        "database",
        &[
            "postgres",
            "postgresql",
            "mysql",
            "mariadb",
            "sqlite",
            "mongodb",
            "redis",
            "rds",
            "aurora",
            "dynamodb",
        ],
    ),
    ("cloud", &["aws", "gcp", "azure", "hetzner", "digitalocean"]),
    (
        "accessibility",
        &[
            "axe",
            "pa11y",
            "lighthouse",
            "screenreader",
            "nvda",
            "voiceover",
            "jaws",
        ],
    ),
    ("browser", &["firefox", "chrome", "chromium", "safari"]),
    ("loadtest", &["k6", "locust", "jmeter", "gatling", "vegeta"]),
    ("webserver", &["nginx", "apache", "caddy", "traefik"]),
    ("editor", &["vim", "neovim", "emacs", "vscode"]),
    ("cms", &["wordpress", "drupal", "joomla", "ghost"]),
    (
        "linter",
        &[
            "eslint",
            "pylint",
            "flake8",
            "ruff",
            "clippy",
            "shellcheck",
            "rubocop",
        ],
    ),
    ("shell", &["bash", "zsh", "fish"]),
    (
        "language",
        &["rust", "python", "go", "javascript", "typescript", "java"],
    ),
    ("cache", &["redis", "memcached", "varnish"]),
    (
        "queue",
        &[
            "kafka", "rabbitmq", "sqs", "nats", "sidekiq", "celery", "oban", "bullmq",
        ],
    ),
    ("device", &["computer", "laptop", "phone", "tablet"]),
    (
        "loadbalancer",
        &["haproxy", "nginx", "traefik", "envoy", "elb"],
    ),
    (
        "reverseproxy",
        &["nginx", "traefik", "caddy", "haproxy", "envoy"],
    ),
    ("laptop", &["thinkpad", "macbook", "xps"]),
    ("phone", &["android", "iphone", "ios"]),
    ("cdn", &["cloudfront", "cloudflare", "fastly", "akamai"]),
    (
        "raid",
        &[
            "mdadm", "mdstat", "raid1", "raid5", "raid6", "raid10", "mirror",
        ],
    ),
    (
        "multiarch",
        &["arm64", "amd64", "aarch64", "buildx", "qemu", "platforms"],
    ),
    (
        "persistence",
        &["aof", "appendonly", "appendfsync", "rdb", "fsync"],
    ),
    ("duration", &["minutes", "hours", "seconds"]),
    (
        "kubernetes",
        &[
            "pod", "pods", "helm", "kubelet", "ingress", "hpa", "eks", "gke", "aks",
        ],
    ),
    ("e2e", &["playwright", "cypress", "selenium"]),
    ("smartwatch", &["watchos", "wearos", "garmin", "fitbit"]),
    (
        "malware",
        &[
            "miner",
            "cryptominer",
            "webshell",
            "ransomware",
            "trojan",
            "rootkit",
            "backdoor",
        ],
    ),
    (
        "edr",
        &["wazuh", "ossec", "crowdstrike", "falco", "sentinelone"],
    ),
    ("trustees", &["treasurer", "chair", "secretary"]),
    // What guards a login against guessing.
    ("bruteforce", &["ratelimit", "ratelimited", "lockout"]),
    // Not kinds of git, but what a record about git work says instead of "git".
    (
        "git",
        &[
            "clone",
            "checkout",
            "commit",
            "commits",
            "rebase",
            "repo",
            "gitattributes",
            "gitignore",
        ],
    ),
];

/// The specific things of the kind `word` names, or of a kind one of its synonyms names.
pub fn members_of(word: &str) -> Vec<&'static str> {
    let mut names = vec![word.to_owned()];
    names.extend(synonyms_of(word).into_iter().map(str::to_owned));
    let mut found: Vec<&'static str> = KINDS
        .iter()
        .filter(|(kind, _)| names.iter().any(|name| name == kind))
        .flat_map(|(_, members)| members.iter().copied())
        .filter(|member| *member != word)
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_goes_one_way() {
        assert!(members_of("db").contains(&"postgres"));
        assert!(members_of("database").contains(&"sqlite"));
        assert!(members_of("postgres").is_empty());
        assert!(members_of("loadbalancer").contains(&"haproxy"));
    }
}
