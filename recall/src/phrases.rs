//! Things written as a phrase or as one word ("write-ahead log" and "WAL"): a phrase in a
//! question is read as one word, matched as the phrase and as that word (and its synonyms:
//! [`crate::synonyms`]), and the word in a question finds the phrase too. A phrase is its
//! words written lowercase as the index spells them, one space apart. Pure data and two
//! lookups.

use std::collections::HashMap;
use std::sync::LazyLock;

/// Phrases and the one word each is also written as.
pub const PHRASES: &[(&str, &str)] = &[
    ("write ahead log", "wal"),
    ("electronic signature", "esignature"),
    ("electronic signatures", "esignature"),
    ("late rent", "arrears"),
    ("late payment", "arrears"),
    ("late payments", "arrears"),
    ("card terminal", "pos"),
    ("card terminals", "pos"),
    ("card reader", "pos"),
    ("card readers", "pos"),
    ("payment terminal", "pos"),
    ("payment terminals", "pos"),
    ("self checkout", "kiosk"),
    ("self checkouts", "kiosks"),
    ("language model", "llm"),
    ("apple silicon", "arm64"),
    ("windows subsystem for linux", "wsl"),
    ("language models", "llms"),
    ("video call", "videocall"),
    ("video calls", "videocalls"),
    ("garbage collection", "gc"),
    ("garbage collector", "gc"),
    ("stop the world", "gc"),
    ("continuous integration", "ci"),
    ("continuous deployment", "deploy"),
    ("continuous delivery", "deploy"),
    ("pull request", "pr"),
    ("merge request", "pr"),
    ("virtual machine", "vm"),
    ("out of memory", "oom"),
    ("eating memory", "leak"),
    ("eats memory", "leak"),
    ("time sync", "timesync"),
    ("time synchronization", "timesync"),
    ("clock sync", "timesync"),
    ("single sign on", "sso"),
    ("two factor", "2fa"),
    ("2 factor", "2fa"),
    ("multi factor", "2fa"),
    ("two step", "2fa"),
    ("2 step", "2fa"),
    ("rate limit", "ratelimit"),
    ("rate limited", "ratelimited"),
    ("rate limiting", "ratelimit"),
    ("load balancer", "loadbalancer"),
    ("reverse proxy", "reverseproxy"),
    ("cut off", "close"),
    ("cuts off", "closes"),
    ("lock up", "freeze"),
    ("locks up", "freezes"),
    ("locking up", "freezing"),
    ("locked up", "frozen"),
    ("load balancing", "loadbalancer"),
    ("secure shell", "ssh"),
    ("wi fi", "wifi"),
    ("turn off", "disable"),
    ("turned off", "disable"),
    ("turning off", "disable"),
    ("turns off", "disable"),
    ("switch off", "disable"),
    ("switched off", "disable"),
    ("turn on", "enable"),
    ("turned on", "enable"),
    ("turning on", "enable"),
    ("turns on", "enable"),
    ("switch on", "enable"),
    ("switched on", "enable"),
    ("log in", "login"),
    ("log out", "logout"),
    ("logged out", "logout"),
    ("sign out", "signout"),
    ("signed out", "signout"),
    ("sign in", "signin"),
    ("signed in", "signin"),
    ("signing in", "signin"),
    ("logged in", "login"),
    ("logging in", "login"),
    // A token's claims by their names.
    ("issued at", "iat"),
    ("github actions", "actions"),
    ("gitlab ci", "ci"),
    ("back up", "backup"),
    ("backed up", "backup"),
    ("io wait", "iowait"),
    ("transparent huge pages", "thp"),
    ("transparent hugepage", "thp"),
    ("transparent hugepages", "thp"),
    // A graceful shutdown is a process handling SIGTERM.
    ("graceful shutdown", "sigterm"),
    ("file descriptor", "fd"),
    ("file descriptors", "fds"),
    ("multi arch", "multiarch"),
    ("multi platform", "multiarch"),
    ("api key", "apikey"),
    ("access token", "token"),
    ("cron job", "cron"),
    ("web server", "webserver"),
    ("hard drive", "disk"),
    ("hard disk", "disk"),
    ("name server", "nameserver"),
    // A question's framing: "how long did the restore take?" asks for a duration.
    ("how long", "duration"),
    ("on call", "oncall"),
    // HTTP statuses by their names: "bad gateway" is the 502 a log or a note shows.
    ("internal server error", "500"),
    ("bad gateway", "502"),
    ("service unavailable", "503"),
    ("gateway timeout", "504"),
    ("too many requests", "429"),
    ("request entity too large", "413"),
    ("payload too large", "413"),
    ("content too large", "413"),
    ("roll back", "rollback"),
    ("rolled back", "rollback"),
    ("rolling back", "rollback"),
    ("rolls back", "rollback"),
    ("google workspace", "gsuite"),
    ("g suite", "gsuite"),
    ("gmail for business", "gsuite"),
    ("secure print", "secureprint"),
    ("pull printing", "secureprint"),
    ("follow me printing", "secureprint"),
    ("right to left", "rtl"),
    ("entra id", "azuread"),
    ("azure ad", "azuread"),
    ("azure active directory", "azuread"),
    ("zero trust", "ztna"),
    ("dns over https", "doh"),
    ("encrypted dns", "doh"),
    ("secure dns", "doh"),
    ("time zone", "timezone"),
    ("time zones", "timezones"),
    ("daylight saving", "dst"),
    ("daylight savings", "dst"),
    ("out of date", "outdated"),
    ("queue depth", "backlog"),
    ("queue length", "backlog"),
    ("queue size", "backlog"),
    ("ad blocker", "adblocker"),
    ("ad blocking", "adblock"),
    ("timed out", "timedout"),
    ("play store", "playstore"),
    ("app store", "appstore"),
    ("fine tune", "finetune"),
    ("fine tuning", "finetuning"),
    ("clean up", "cleanup"),
    ("lock file", "lockfile"),
    ("cross origin", "crossorigin"),
    ("text message", "sms"),
    ("text messages", "sms"),
    ("cold storage", "glacier"),
    ("spin down", "spindown"),
    ("status code", "statuscode"),
    ("http code", "statuscode"),
    ("reverse dns", "rdns"),
    ("suspend to disk", "hibernate"),
    ("service worker", "serviceworker"),
    ("service workers", "serviceworker"),
    ("start up", "startup"),
    ("all over the place", "inconsistent"),
    ("personal data", "pii"),
    ("object lock", "objectlock"),
    ("planned downtime", "maintenance"),
    ("largest contentful paint", "lcp"),
    ("removable media", "usb"),
    ("removable drive", "usb"),
    ("removable drives", "usb"),
    ("block list", "blocklist"),
    ("black list", "blacklist"),
    ("deny list", "denylist"),
    ("add on", "addon"),
    ("add ons", "addons"),
    ("long range", "lora"),
    ("front desk", "reception"),
    ("network drive", "netdrive"),
    ("shared drive", "netdrive"),
    ("mapped drive", "netdrive"),
    ("security key", "yubikey"),
    ("security keys", "yubikeys"),
    ("hardware key", "yubikey"),
    ("hardware keys", "yubikeys"),
    ("availability group", "availabilitygroup"),
    ("availability groups", "availabilitygroup"),
    ("always on", "availabilitygroup"),
    ("parameter sniffing", "recompile"),
    ("spanning tree", "stp"),
    ("content security policy", "csp"),
    ("web application firewall", "waf"),
    ("brute force", "bruteforce"),
    ("tried passwords", "bruteforce"),
    ("password guessing", "bruteforce"),
    ("guessing passwords", "bruteforce"),
    ("signed url", "signedurl"),
    ("signed urls", "signedurls"),
    ("token authentication", "signedurls"),
    ("weird characters", "garbled"),
    ("strange characters", "garbled"),
    // Abbreviations of operations work and what they stand for, written from what the
    // words mean, before any history asked for them.
    ("role based access control", "rbac"),
    ("access control list", "acl"),
    ("access control lists", "acls"),
    ("identity and access management", "iam"),
    ("service level agreement", "sla"),
    ("service level objective", "slo"),
    ("recovery point objective", "rpo"),
    ("recovery time objective", "rto"),
    ("high availability", "ha"),
    ("disaster recovery", "dr"),
    ("infrastructure as code", "iac"),
    ("persistent volume claim", "pvc"),
    ("persistent volume claims", "pvcs"),
    ("custom resource definition", "crd"),
    ("custom resource definitions", "crds"),
    ("network attached storage", "nas"),
    ("storage area network", "san"),
    ("group policy", "gpo"),
    ("group policies", "gpos"),
    ("remote desktop", "rdp"),
    ("sender policy framework", "spf"),
    ("domainkeys identified mail", "dkim"),
    ("mail exchanger", "mx"),
    ("time to live", "ttl"),
    ("network address translation", "nat"),
    ("maximum transmission unit", "mtu"),
    ("maximum segment size", "mss"),
    ("mutual tls", "mtls"),
    ("certificate signing request", "csr"),
    ("certificate authority", "ca"),
    ("strict transport security", "hsts"),
    ("cross site request forgery", "csrf"),
    ("cross site scripting", "xss"),
    ("sql injection", "sqli"),
    ("remote code execution", "rce"),
    ("denial of service", "ddos"),
    ("key management service", "kms"),
    ("virtual private cloud", "vpc"),
    ("auto scaling group", "asg"),
    ("autoscaling group", "asg"),
    ("machine image", "ami"),
    ("single page app", "spa"),
    ("single page application", "spa"),
    ("server side rendering", "ssr"),
    ("server side rendered", "ssr"),
    ("search engine optimization", "seo"),
    ("command line", "cli"),
    ("change data capture", "cdc"),
    ("object relational mapper", "orm"),
    ("extract transform load", "etl"),
    ("wake on lan", "wol"),
    ("uninterruptible power supply", "ups"),
    ("network interface", "nic"),
    ("network card", "nic"),
    ("over the air", "ota"),
    ("real time clock", "rtc"),
    ("point of sale", "pos"),
    ("kitchen display", "kds"),
    ("mobile device management", "mdm"),
    ("device management", "mdm"),
    ("hardware security module", "hsm"),
    ("hardware in the loop", "hil"),
    ("bring your own device", "byod"),
    ("end of life", "eol"),
    ("power over ethernet", "poe"),
    ("printed circuit board", "pcb"),
    ("bill of materials", "bom"),
    ("key performance indicator", "kpi"),
    ("customer relationship management", "crm"),
    ("enterprise resource planning", "erp"),
    ("management information system", "mis"),
    ("speech to text", "stt"),
    ("speech recognition", "stt"),
    ("voice to text", "stt"),
    ("server sent events", "sse"),
    ("accelerated mobile pages", "amp"),
    ("interactive voice response", "ivr"),
    ("phone menu", "ivr"),
    ("smart speaker", "smartspeaker"),
    ("smart speakers", "smartspeakers"),
    ("electronic health record", "ehr"),
    ("electronic medical record", "emr"),
    ("minimum supported rust version", "msrv"),
    ("desktop app", "gui"),
    ("desktop application", "gui"),
    ("graphical interface", "gui"),
    ("tag manager", "gtm"),
    ("customer data platform", "cdp"),
    ("apple pay", "applepay"),
    ("screen reader", "screenreader"),
    ("peer to peer", "p2p"),
    ("read only", "ro"),
    ("strong customer authentication", "sca"),
    ("load test", "loadtest"),
    ("estimated time of arrival", "eta"),
    ("arrival time", "eta"),
    ("virtual reality", "vr"),
    ("augmented reality", "ar"),
    ("fell over", "crashed"),
    ("falls over", "crashes"),
    ("fall over", "crash"),
    ("applicant tracking system", "ats"),
    ("x ray", "xray"),
    ("x rays", "xrays"),
    ("phone system", "pbx"),
    ("check in", "checkin"),
    ("checked in", "checkin"),
    ("google pay", "googlepay"),
    ("fall back", "fallback"),
    ("falls back", "fallback"),
    ("fell back", "fallback"),
    ("falling back", "fallback"),
];

/// [`PHRASES`] read for lookups, built once; each list in the order of the table.
struct Lookups {
    /// Each phrase's word.
    word_of: HashMap<&'static str, &'static str>,
    /// Each word's phrases.
    phrases_of: HashMap<&'static str, Vec<&'static str>>,
    /// The phrases starting with each word.
    starting_with: HashMap<&'static str, Vec<&'static str>>,
}

static LOOKUPS: LazyLock<Lookups> = LazyLock::new(|| {
    let mut lookups = Lookups {
        word_of: HashMap::new(),
        phrases_of: HashMap::new(),
        starting_with: HashMap::new(),
    };
    for (phrase, word) in PHRASES {
        lookups.word_of.entry(*phrase).or_insert(*word);
        lookups.phrases_of.entry(*word).or_default().push(*phrase);
        let first = phrase.split(' ').next().unwrap_or(phrase);
        lookups
            .starting_with
            .entry(first)
            .or_default()
            .push(*phrase);
    }
    lookups
});

/// The word a phrase is also written as (`phrase` its words, one space apart).
pub fn word_of_phrase(phrase: &str) -> Option<&'static str> {
    LOOKUPS.word_of.get(phrase).copied()
}

/// The phrases `word` is also written as.
pub fn phrases_of(word: &str) -> Vec<&'static str> {
    LOOKUPS.phrases_of.get(word).cloned().unwrap_or_default()
}

/// The phrases whose first word is `word`, in the order of [`PHRASES`].
pub fn phrases_starting_with(word: &str) -> &'static [&'static str] {
    LOOKUPS.starting_with.get(word).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_phrase_is_listed_twice() {
        let mut phrases: Vec<&str> = PHRASES.iter().map(|(phrase, _)| *phrase).collect();
        phrases.sort_unstable();
        let listed = phrases.len();
        phrases.dedup();
        assert_eq!(phrases.len(), listed, "a phrase is listed twice in PHRASES");
    }

    #[test]
    fn a_phrase_and_its_word_find_each_other() {
        assert_eq!(word_of_phrase("write ahead log"), Some("wal"));
        assert_eq!(phrases_of("wal"), ["write ahead log"]);
        assert_eq!(word_of_phrase("ahead log"), None);
    }
}
