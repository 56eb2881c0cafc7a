//! How a question's word is matched in the index: a short word as itself ("pg" is not
//! "pgadmin"), a longer one as the prefix of its stem, so "renewed" finds "renewal" and
//! "certificates" "certificate". Pure.

use crate::question::Term;

/// `word` matched as itself only, not as a prefix.
pub(crate) fn whole(word: impl Into<String>, weight: f64) -> Term {
    Term {
        text: word.into(),
        prefix: false,
        weight,
    }
}

/// How a word is matched: short words exactly ("pg" is not "pgadmin"), longer ones as the
/// prefix of every form ("renewed" → "renew…", "certificates" → "certificate…").
pub(crate) fn term_for(word: &str, weight: f64) -> Term {
    if let Some((_, last)) = word.rsplit_once(' ') {
        // A phrase: its last word in every form ("pull requests", "rate limited") when it is
        // long enough to be a word's stem.
        return Term {
            text: word.to_owned(),
            prefix: last.chars().count() >= 4,
            weight,
        };
    }
    if word.chars().count() <= 3 {
        return whole(word, weight);
    }
    Term {
        text: stem(word),
        prefix: true,
        weight,
    }
}

/// The word without an inflection, so that its prefix finds every form; at least four
/// characters stay.
pub fn stem(word: &str) -> String {
    const ENDINGS: &[&str] = &[
        "ations", "ation", "ments", "ment", "ions", "ion", "ings", "ing", "ies", "ied", "es", "ed",
        "ly", "s",
    ];
    for ending in ENDINGS {
        if let Some(root) = word.strip_suffix(ending) {
            if root.chars().count() < 4 {
                continue;
            }
            if *ending == "es"
                && !["ss", "x", "z", "ch", "sh"]
                    .iter()
                    .any(|e| root.ends_with(e))
            {
                // "releases" is "release" + "s"; "fixes" is "fix" + "es".
                continue;
            }
            if ending.starts_with("ion") && !(root.ends_with('t') || root.ends_with("ss")) {
                continue; // "evictions" → "evict", "sessions" → "sess"; not "million"
            }
            if *ending == "s" && root.ends_with(['s', 'u', 'i']) {
                continue; // "access", "status", "analysis"
            }
            let mut root = root.to_owned();
            let chars: Vec<char> = root.chars().collect();
            let n = chars.len();
            if matches!(*ending, "ing" | "ed")
                && n >= 5
                && chars[n - 1] == chars[n - 2]
                && !"aeiouls".contains(chars[n - 1])
            {
                root.pop(); // "stopped" → "stop", "running" → "run…"
            }
            if *ending == "s" {
                return without_silent_e(&root).unwrap_or(root);
            }
            // An adverb in -ically is its adjective in -ic: "statically" → "static".
            if *ending == "ly"
                && let Some(adjective) = root.strip_suffix("al").filter(|r| r.ends_with("ic"))
            {
                return adjective.to_owned();
            }
            return root;
        }
    }
    without_silent_e(word).unwrap_or_else(|| word.to_owned())
}

/// A silent e goes where -ing and -ed would take it: "terminate" finds "terminating".
fn without_silent_e(word: &str) -> Option<String> {
    let root = word.strip_suffix('e')?;
    (root.chars().count() >= 5
        && root.ends_with(|c: char| c.is_ascii_alphabetic() && !"aeiouy".contains(c)))
    .then(|| root.to_owned())
}
