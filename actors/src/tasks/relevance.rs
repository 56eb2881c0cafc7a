//! Finding the thread messages that answer a question: "what tag did I push?" finds the
//! message that names the tag. Pure text logic.
//!
//! A small bag-of-words search. Query and messages become lowercase words without stopwords;
//! a query word matches a message word tolerantly ("tag" finds "tagged"). Each query word
//! found in a message adds a weight that grows the rarer the word is across the thread, so a
//! word that pins one message down outweighs one that every message repeats. A word counts
//! once per message however often it appears, so long messages get no edge. Equal scores go
//! to the newer message, which better reflects where the task stands.

/// The shortest word that may match by prefix or stem, so "at" does not find "attach".
const MIN_TOLERANT_LEN: usize = 3;

/// Words too common in questions or progress notes to say what a message is about.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "but", "by", "can", "could", "did", "didnt", "do", "does", "doesnt",
    "done", "dont", "far", "for", "from", "get", "got", "had", "has", "have", "he", "her", "here",
    "him", "his", "how", "i", "if", "im", "in", "into", "is", "isnt", "it", "its", "ive", "just",
    "me", "my", "no", "not", "now", "of", "on", "or", "our", "please", "she", "so", "some", "step",
    "steps", "task", "than", "that", "thats", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "to", "up", "us", "was", "wasnt", "we", "were", "what", "whats",
    "when", "where", "wheres", "which", "who", "why", "will", "with", "would", "yet", "you",
    "your",
];

/// Suffixes stripped to compare words by stem, longest first, with what replaces them.
const SUFFIXES: &[(&str, &str)] = &[
    ("ies", "y"),
    ("ied", "y"),
    ("ing", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
];

/// The seqs of up to `limit` messages most relevant to `query`, best first. `messages` is
/// (seq, content), oldest first. When no message shares a meaningful word with the query
/// (e.g. "where am I?"), returns the seqs of the newest `limit` messages instead, newest first.
pub fn most_relevant(query: &str, messages: &[(u64, &str)], limit: usize) -> Vec<u64> {
    if limit == 0 || messages.is_empty() {
        return Vec::new();
    }
    let query = Query::new(query);
    if query.terms.is_empty() {
        return newest(messages, limit);
    }
    // Which query words each message mentions.
    let mentions: Vec<Vec<bool>> = messages
        .iter()
        .map(|(_, content)| {
            let mut found = vec![false; query.terms.len()];
            for word in content.split_whitespace() {
                query.mark_matches(word, &mut found);
            }
            found
        })
        .collect();

    // IDF-like: a word in one message of eight weighs ln 9, one in all of them ln 2.
    let thread_size = messages.len() as f64;
    let weights: Vec<f64> = (0..query.terms.len())
        .map(|which| {
            let mentioning = mentions.iter().filter(|found| found[which]).count();
            if mentioning == 0 {
                0.0
            } else {
                (1.0 + thread_size / mentioning as f64).ln()
            }
        })
        .collect();
    let scores: Vec<f64> = mentions
        .iter()
        .map(|found| {
            found
                .iter()
                .zip(&weights)
                .filter(|(found, _)| **found)
                .map(|(_, weight)| weight)
                .sum()
        })
        .collect();

    let mut chosen: Vec<usize> = (0..messages.len())
        .filter(|&index| scores[index] > 0.0)
        .collect();
    if chosen.is_empty() {
        return newest(messages, limit);
    }
    // Best first; on a tie the later (newer) message wins.
    chosen.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(b.cmp(&a)));
    chosen.truncate(limit);
    chosen.into_iter().map(|index| messages[index].0).collect()
}

/// The seqs of the newest `limit` messages, newest first.
fn newest(messages: &[(u64, &str)], limit: usize) -> Vec<u64> {
    messages
        .iter()
        .rev()
        .take(limit)
        .map(|(seq, _)| *seq)
        .collect()
}

/// `text` cut to at most `max_chars` characters around the words that match `query`: the
/// stretch holding the most matching words, cut at spaces, with "…" where it was cut. The
/// whole text when it fits; its beginning when no word matches.
pub fn excerpt(query: &str, text: &str, max_chars: usize) -> String {
    Excerpt::new(query, text).cut(max_chars)
}

/// A message made ready to be cut around the words that match a query, at any length: the
/// matching is done once, however many lengths a budget tries.
pub struct Excerpt {
    chars: Vec<char>,
    /// Where each whitespace-separated word starts, in characters.
    word_starts: Vec<usize>,
    /// Where each word that matches the query starts.
    hits: Vec<usize>,
}

impl Excerpt {
    pub fn new(query: &str, text: &str) -> Self {
        let query = Query::new(query);
        let words = words_at(text);
        let hits = words
            .iter()
            .filter(|(_, word)| {
                let mut found = vec![false; query.terms.len()];
                query.mark_matches(word, &mut found);
                found.contains(&true)
            })
            .map(|(at, _)| *at)
            .collect();
        Self {
            chars: text.chars().collect(),
            word_starts: words.iter().map(|(at, _)| *at).collect(),
            hits,
        }
    }

    /// The text's length in characters.
    pub fn len(&self) -> usize {
        self.chars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// At most `max_chars` characters: whole when it fits, else the densest stretch of
    /// matches (its beginning when nothing matched), with "…" where it was cut.
    pub fn cut(&self, max_chars: usize) -> String {
        let (chars, hits) = (&self.chars, &self.hits);
        let length = chars.len();
        if length <= max_chars {
            return chars.iter().collect();
        }
        let width = max_chars.saturating_sub(2);
        if hits.is_empty() || width < 10 {
            let text: String = chars.iter().take(max_chars + 1).collect();
            return crate::words::shorten(&text, max_chars);
        }
        // The hit that opens the densest stretch; a quarter of the width is kept before it.
        let lead = width / 4;
        let densest = (0..hits.len())
            .max_by_key(|&first| {
                let reach = hits[first] + width - lead;
                let covered = hits[first..].iter().take_while(|&&at| at < reach).count();
                (covered, std::cmp::Reverse(first))
            })
            .unwrap_or(0);
        let mut start = hits[densest].saturating_sub(lead).min(length - width);
        let mut end = start + width;
        // Whole words only: start at a word, end before a space.
        if start > 0
            && let Some(at) = self.word_starts.iter().find(|&&at| at >= start && at < end)
        {
            start = *at;
        }
        if end < length
            && let Some(space) = (start + 1..end).rev().find(|&at| chars[at].is_whitespace())
        {
            end = space;
        }
        let body: String = chars[start..end].iter().collect();
        format!(
            "{}{}{}",
            if start > 0 { "…" } else { "" },
            body.trim(),
            if end < length { "…" } else { "" }
        )
    }
}

/// Each whitespace-separated word of `text` with the character offset it starts at.
fn words_at(text: &str) -> Vec<(usize, &str)> {
    let mut words = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    for (char_at, (byte_at, c)) in text.char_indices().enumerate() {
        match (c.is_whitespace(), open) {
            (true, Some((word_char, word_byte))) => {
                words.push((word_char, &text[word_byte..byte_at]));
                open = None;
            }
            (false, None) => open = Some((char_at, byte_at)),
            _ => {}
        }
    }
    if let Some((word_char, word_byte)) = open {
        words.push((word_char, &text[word_byte..]));
    }
    words
}

/// A question's meaningful words, each once, with the first letters any word matching it
/// must contain.
struct Query {
    terms: Vec<Term>,
    /// The first `MIN_TOLERANT_LEN` characters of each term: a tolerant match shares them
    /// (a prefix match starts with them, equal stems start with the same letters).
    heads: Vec<Vec<u8>>,
}

impl Query {
    fn new(text: &str) -> Self {
        let mut terms = terms(text);
        terms.sort_by(|a, b| a.text.cmp(&b.text));
        terms.dedup_by(|a, b| a.text == b.text);
        let heads = terms
            .iter()
            .map(|term| {
                let head: usize = term
                    .text
                    .chars()
                    .take(MIN_TOLERANT_LEN)
                    .map(char::len_utf8)
                    .sum();
                term.text.as_bytes()[..head].to_vec()
            })
            .collect();
        Self { terms, heads }
    }

    /// Sets `found[i]` for each query word that `word` (one whitespace-separated word of a
    /// message) matches. Words that cannot match are passed over without being parsed.
    fn mark_matches(&self, word: &str, found: &mut [bool]) {
        let may_match = self.heads.iter().any(|head| {
            !head.is_ascii()
                || word
                    .as_bytes()
                    .windows(head.len())
                    .any(|window| window.eq_ignore_ascii_case(head))
        });
        if !may_match {
            return;
        }
        for term in terms(word) {
            for (which, wanted) in self.terms.iter().enumerate() {
                found[which] |= wanted.matches(&term);
            }
        }
    }
}

/// A searchable word with what tolerant matching needs precomputed.
#[derive(Debug)]
struct Term {
    text: String,
    stem: String,
    /// Only words of letters match tolerantly: "v1.2" must not find "v1.2.3", nor "20" "2024".
    is_alphabetic: bool,
}

impl Term {
    fn new(text: &str) -> Self {
        Term {
            text: text.to_owned(),
            stem: stem(text),
            is_alphabetic: text.chars().all(char::is_alphabetic),
        }
    }

    /// Equal; or, for words of letters, one a prefix of the other ("tag", "tagged") or both
    /// the same after their suffixes go ("tags", "tagging").
    fn matches(&self, other: &Term) -> bool {
        if self.text == other.text {
            return true;
        }
        if !self.is_alphabetic || !other.is_alphabetic {
            return false;
        }
        let (shorter, longer) = if self.text.len() <= other.text.len() {
            (self, other)
        } else {
            (other, self)
        };
        let by_prefix = shorter.text.chars().count() >= MIN_TOLERANT_LEN
            && longer.text.starts_with(&shorter.text);
        let by_stem = self.stem.chars().count() >= MIN_TOLERANT_LEN && self.stem == other.stem;
        by_prefix || by_stem
    }
}

/// The meaningful words of `text`: lowercase runs of letters and digits without stopwords or
/// lone letters. A compound such as "v1.2.3" or "ghcr.io/alex/app:v1.2.3" yields its parts
/// ("v1", "2", "3", "ghcr", "io", …) and itself whole, so quoting it exactly scores higher.
fn terms(text: &str) -> Vec<Term> {
    // Apostrophes go first so that "didn't" is one word, "didnt", a stopword.
    let lowered: String = text
        .to_lowercase()
        .chars()
        .filter(|&c| c != '\'' && c != '\u{2019}')
        .collect();
    let mut words = Vec::new();
    for chunk in lowered.split_whitespace() {
        let chunk = chunk.trim_matches(|c: char| !c.is_alphanumeric());
        let parts: Vec<&str> = chunk
            .split(|c: char| !c.is_alphanumeric())
            .filter(|part| !part.is_empty())
            .collect();
        if parts.len() > 1 {
            words.push(chunk);
        }
        words.extend(parts);
    }
    words
        .into_iter()
        .filter(|word| is_meaningful(word))
        .map(Term::new)
        .collect()
}

fn is_meaningful(word: &str) -> bool {
    let mut chars = word.chars();
    let lone_letter = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_alphabetic());
    !lone_letter && !STOPWORDS.contains(&word)
}

/// `word` without its first matching suffix, keeping at least `MIN_TOLERANT_LEN` characters,
/// and with a doubled final consonant undone: "tagged" → "tag", "passes" → "pas" like "pass".
fn stem(word: &str) -> String {
    let stripped = SUFFIXES.iter().find_map(|(suffix, replacement)| {
        let root = word.strip_suffix(suffix)?;
        (root.chars().count() >= MIN_TOLERANT_LEN).then(|| format!("{root}{replacement}"))
    });
    let mut stem = stripped.unwrap_or_else(|| word.to_owned());
    let mut tail = stem.chars().rev();
    if let (Some(last), Some(before)) = (tail.next(), tail.next()) {
        let doubled_consonant = last == before && last.is_alphabetic() && !"aeiou".contains(last);
        if doubled_consonant && stem.chars().count() > MIN_TOLERANT_LEN {
            stem.pop();
        }
    }
    stem
}

#[cfg(test)]
mod tests {
    use super::*;

    const THREAD: &[(u64, &str)] = &[
        (101, "Registered task: deploy coursefolio to prod"),
        (102, "Step 1 done — built the docker image"),
        (103, "SSH into prod-2 OK"),
        (
            104,
            "Step 2 done — pushed to ghcr.io/alex/coursefolio:v1.2.3, tagged v1.2.3",
        ),
        (105, "The server prod-2 needs a restart after the push"),
        (106, "Restarted nginx on the server"),
        (107, "Step 3 done — migrations applied"),
        (108, "Checking the logs for errors"),
    ];

    #[test]
    fn finds_the_tag_that_was_pushed() {
        assert_eq!(most_relevant("what tag did I push?", THREAD, 1), [104]);
    }

    #[test]
    fn finds_the_server_reached_by_ssh() {
        assert_eq!(
            most_relevant("which server did I ssh into", THREAD, 1),
            [103]
        );
    }

    #[test]
    fn falls_back_to_the_newest_when_nothing_matches() {
        assert_eq!(most_relevant("where am I?", THREAD, 3), [108, 107, 106]);
        assert_eq!(most_relevant("kubernetes?", THREAD, 20).len(), THREAD.len());
    }

    #[test]
    fn returns_matches_best_first_and_newer_first_on_a_tie() {
        let found = most_relevant("which server did I push to", THREAD, 3);
        assert_eq!(found, [105, 106, 104]);
    }

    #[test]
    fn returns_only_messages_that_match() {
        assert_eq!(most_relevant("nginx", THREAD, 5), [106]);
    }

    #[test]
    fn limit_zero_or_empty_thread_gives_nothing() {
        assert!(most_relevant("what tag did I push?", THREAD, 0).is_empty());
        assert!(most_relevant("what tag did I push?", &[], 5).is_empty());
    }

    #[test]
    fn an_exact_version_finds_its_message() {
        assert_eq!(most_relevant("v1.2.3", THREAD, 1), [104]);
    }

    #[test]
    fn newer_message_wins_a_tie() {
        let thread = [(1, "deployed to staging"), (2, "deployed to staging")];
        assert_eq!(most_relevant("staging", &thread, 1), [2]);
    }

    #[test]
    fn matches_words_tolerantly() {
        let matches = |a: &str, b: &str| Term::new(a).matches(&Term::new(b));
        assert!(matches("tag", "tagged"));
        assert!(matches("pushed", "push"));
        assert!(matches("tags", "tagging"));
        assert!(matches("retries", "retry"));
        assert!(matches("passes", "passed"));
        assert!(!matches("at", "attach"));
        assert!(!matches("v1.2", "v1.2.3"));
        assert!(!matches("20", "2024"));
        assert!(!matches("tag", "stage"));
    }

    #[test]
    fn never_panics_on_odd_input() {
        let thread = [(1, ""), (2, "’'…"), (3, "ünïcödé 步骤 ✓"), (4, "a.b.c/d:e")];
        for query in ["", "?", "ünïcödé", "步骤", "a.b.c", "'", "done"] {
            for limit in [0, 1, 10] {
                let found = most_relevant(query, &thread, limit);
                assert!(found.len() <= limit);
            }
        }
    }

    #[test]
    fn an_excerpt_keeps_the_words_that_matched() {
        let filler = "lorem ipsum dolor sit amet ".repeat(200);
        let text = format!("{filler}Pushed the image, tagged v1.2.3 on ghcr.io. {filler}");
        let cut = excerpt("what tag did I push?", &text, 120);
        assert!(cut.chars().count() <= 120, "{cut}");
        assert!(cut.contains("tagged v1.2.3"), "{cut}");
        assert!(cut.starts_with('…') && cut.ends_with('…'), "{cut}");
        // Whole when it fits; the beginning when nothing matches.
        assert_eq!(excerpt("tag", "short note", 120), "short note");
        let start = excerpt("kubernetes", &text, 40);
        assert!(
            start.starts_with("lorem") && start.chars().count() <= 40,
            "{start}"
        );
    }

    #[test]
    fn an_excerpt_never_splits_a_character() {
        let text = "é".repeat(500) + " tag " + &"ü".repeat(500);
        let cut = excerpt("tag", &text, 60);
        assert!(cut.contains("tag") && cut.chars().count() <= 60, "{cut}");
    }
}
