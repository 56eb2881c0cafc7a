//! What a candidate holds of a question, read off its text: per question word the best
//! weight of a term of it the document holds (coverage; and its share, the same with
//! everyday words counting half, which decides weakness: [`crate::everyday`]), the share
//! of the words its title holds, and a BM25 on the question's own words (the title
//! counting five times) beside the other candidates'. Reading the few candidates' text is
//! far cheaper than asking FTS5 once per term (each such query walks the term's whole
//! posting list). Pure.

use std::borrow::Cow;

use memchr::memmem::Finder;

use crate::Source;
use crate::asks::{is_figure_adjective, is_figure_noun};
use crate::diacritics::folded;
use crate::everyday::{EVERYDAY_WEIGHT, is_everyday};
use crate::question::{CORRECTION_WEIGHT, Concept, Question, Term};
use crate::rank::{ByWord, Held, source_weight};

/// Of a long document, the words of this many bytes of its body are read.
const READ_BYTES: usize = 256 * 1024;
/// BM25's term saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// How many times a word of the title counts beside one of the body.
const TITLE_WEIGHT: u32 = 5;

/// A candidate's text, as the search read it.
pub struct Text {
    pub row: i64,
    pub source: Source,
    /// The task it was recorded for (a task: its own id).
    pub task_id: Option<String>,
    pub end_ms: u64,
    pub title: String,
    pub body: String,
}

/// The question's terms, each counted once per text: the words a text is read for (a
/// term's own word, or each word of a phrase: [`Term::words`]), and which of them make
/// each term.
struct Probes<'q> {
    /// The words looked for (lowercase): the text and whether a word starting with it
    /// counts.
    words: Vec<(&'q str, bool)>,
    /// Per word looked for, its substring search over ASCII text; `None` for a word no
    /// ASCII word can start with (empty, or holding a byte outside `[a-z0-9]`).
    finders: Vec<Option<Finder<'q>>>,
    /// Per term (in the question's order), the indexes of its words in `words`: one for a
    /// word, several for a phrase (counted as its rarest word: the candidates FTS5 found
    /// for a phrase hold it as one).
    terms: Vec<Vec<usize>>,
}

impl<'q> Probes<'q> {
    fn of(terms: &[&'q Term]) -> Probes<'q> {
        let mut probes = Probes {
            words: Vec::new(),
            finders: Vec::new(),
            terms: Vec::with_capacity(terms.len()),
        };
        for term in terms {
            let indexes = term.words().map(|word| probes.index_of(word)).collect();
            probes.terms.push(indexes);
        }
        probes.finders = (probes.words.iter())
            .map(|(word, _)| {
                let searchable =
                    !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric());
                searchable.then(|| Finder::new(word.as_bytes()))
            })
            .collect();
        probes
    }

    /// Where `word` is among the words looked for, added when new.
    fn index_of(&mut self, word: (&'q str, bool)) -> usize {
        match self.words.iter().position(|seen| *seen == word) {
            Some(index) => index,
            None => {
                self.words.push(word);
                self.words.len() - 1
            }
        }
    }

    /// How often each term occurs in `text` (each word counting `weight` times), and how
    /// many words the text has (times `weight`).
    fn count(&self, text: &str, weight: u32) -> Counted {
        let (found, length) = if text.is_ascii() {
            self.find_in_ascii(&text.as_bytes().to_ascii_lowercase())
        } else {
            self.find_in_words(&text.to_lowercase())
        };
        let per_term = |of: fn(&Found) -> u32| {
            (self.terms.iter())
                .map(|words| words.iter().map(|&w| of(&found[w])).min().unwrap_or(0) * weight)
                .collect()
        };
        Counted {
            terms: per_term(|found| found.anywhere),
            in_form: per_term(|found| found.in_form),
            length: length * weight,
        }
    }

    /// Most text, lowercased: each word looked for is found by a substring search and kept
    /// where it starts a word (and, matched whole, ends one). Cutting the text into words
    /// and comparing each with every word looked for took a quarter of a search.
    fn find_in_ascii(&self, text: &[u8]) -> (Vec<Found>, u32) {
        let is_word = |at: usize| text.get(at).is_some_and(u8::is_ascii_alphanumeric);
        let mut words = 0u32;
        let mut inside = false;
        for byte in text {
            let alphanumeric = byte.is_ascii_alphanumeric();
            words += u32::from(alphanumeric && !inside);
            inside = alphanumeric;
        }
        let found = (self.words.iter().zip(&self.finders))
            .map(|(&(probe, prefix), finder)| match finder {
                Some(finder) => {
                    let mut found = Found::default();
                    for at in finder.find_iter(text) {
                        let after = at + probe.len();
                        if (at > 0 && is_word(at - 1)) || (!prefix && is_word(after)) {
                            continue;
                        }
                        let mut end = after;
                        while is_word(end) {
                            end += 1;
                        }
                        found.anywhere += 1;
                        found.in_form += u32::from(is_form(probe.as_bytes(), &text[after..end]));
                    }
                    found
                }
                // The empty word starts every word; one holding another byte, none.
                None if probe.is_empty() && prefix => Found {
                    anywhere: words,
                    in_form: words,
                },
                None => Found::default(),
            })
            .collect();
        (found, words)
    }

    /// Text beyond ASCII, lowercased: cut into words as characters, each compared with
    /// every word looked for.
    fn find_in_words(&self, text: &str) -> (Vec<Found>, u32) {
        let mut found = vec![Found::default(); self.words.len()];
        let mut words = 0u32;
        for word in text.split(|c: char| !c.is_alphanumeric()) {
            if word.is_empty() {
                continue;
            }
            // As the index's tokenizer reads it, which found the document: "Blüthner" is
            // "bluthner".
            let word = folded(word);
            let word = word.as_ref();
            words += 1;
            for (index, &(probe, prefix)) in self.words.iter().enumerate() {
                if word == probe || (prefix && word.starts_with(probe)) {
                    found[index].anywhere += 1;
                    let rest = &word.as_bytes()[probe.len()..];
                    found[index].in_form += u32::from(is_form(probe.as_bytes(), rest));
                }
            }
        }
        (found, words)
    }
}

/// What each part of a text holds: its title, what was said in it, and (of a session) what
/// its tools returned.
struct Parts {
    title: Counted,
    said: Counted,
    returned: Counted,
}

impl Parts {
    /// How many words the text has, its title's counted as often as they weigh.
    fn length(&self) -> u32 {
        self.title.length + self.said.length + self.returned.length
    }
}

/// How much a word counts that only a session's tool returned (a file it read, a page it
/// fetched: "token" in a YAML parser's source), beside one the session said.
const RETURNED_WEIGHT: f64 = 0.5;

/// Tools that read (a file, a search, a page), as a session names them: Claude Code's and
/// OpenClaw's.
const READING_TOOLS: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "WebFetch",
    "WebSearch",
    "read",
    "web_fetch",
    "web_search",
];

/// A session's body (as [`crate::Source::Transcript`] documents are written: a line per
/// thing said, "Asked: …", "Ran: …", "Used Read: {…}", "Result: …", a result running on
/// until the next such line) cut in two: what was said and done, with the commands run and
/// their output, and what a tool that reads returned ("Result: " after "Used Read: …").
/// Neither keeps the words that start a line ("Used", "Ran", a tool's name): every
/// session has them, and "used" is usage to a question ("pool exhausted"). "Failed" stays:
/// it says what went wrong.
fn said_and_returned(body: &str) -> (String, String) {
    const STARTS: &[&str] = &["Asked: ", "Told: ", "Answered: ", "Ran: ", "Result: "];
    let mut said = String::with_capacity(body.len());
    let mut returned = String::new();
    let mut after_a_reading_tool = false;
    let mut returning = false;
    for line in body.split_inclusive('\n') {
        let mut rest = line;
        if let Some(start) = STARTS.iter().find(|start| line.starts_with(**start)) {
            rest = &line[start.len()..];
            returning = after_a_reading_tool && *start == "Result: ";
            after_a_reading_tool = false;
        } else if let Some((tool, input)) = (line.strip_prefix("Used "))
            .and_then(|used| used.split_once(": "))
            .filter(|(tool, _)| !tool.contains(' '))
        {
            said.push_str(&without_json_keys(input));
            returning = false;
            after_a_reading_tool = READING_TOOLS.contains(&tool);
            continue;
        } else if line.starts_with("Failed: ") {
            returning = false;
            after_a_reading_tool = false;
        }
        if returning {
            returned.push_str(rest);
        } else {
            said.push_str(rest);
        }
    }
    (said, returned)
}

/// A tool's input without the names of its fields (`{"file_path":…,"new_string":…}` keeps
/// what it was given): every edit names "old" and "new", every read a "file" and a "path",
/// and "new maintainers" is not a session that edited a file.
fn without_json_keys(input: &str) -> String {
    let mut kept = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(quote) = rest.find('"') {
        kept.push_str(&rest[..quote]);
        let after = &rest[quote + 1..];
        let name = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let closed = after[name..].strip_prefix('"');
        match closed.map(str::trim_start) {
            Some(value) if name > 0 && value.starts_with(':') => {
                kept.push(' ');
                rest = &value[1..];
            }
            _ => {
                kept.push('"');
                rest = after;
            }
        }
    }
    kept.push_str(rest);
    kept
}

/// How often a word looked for occurs in a text.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Found {
    /// As itself, or (looked for as a start) at the start of any word.
    anywhere: u32,
    /// As itself or a form of it ([`is_form`]): not a longer word it starts ("model" of
    /// "mode").
    in_form: u32,
}

/// What a text holds of the question's terms.
struct Counted {
    /// Per term, how often it occurs.
    terms: Vec<u32>,
    /// Per term, how often it occurs as its word or a form of it ([`Found::in_form`]).
    in_form: Vec<u32>,
    /// Its words, times the text's weight.
    length: u32,
}

/// How much a word counts that a text holds only as the start of a longer word, not a
/// form of it ([`is_form`]): "model" holds "mode", "window" "wind", but less than a text
/// holding "modes" or "winds" does — and still something, as "payroll" holds "payrol".
const LONGER_WORD_WEIGHT: f64 = 0.8;

/// Whether `rest`, following `start` in a word, makes a form of it: an inflection or a
/// common derivation ("deploy" → "deployed", "deployment"; "plan" → "planned"), or a
/// number ("python" → "python3"). The stems searched keep at least four letters, so
/// "mode" finding "model" or "wind" finding "window" is a longer word, not a form. The
/// empty word starts every word, as a form of it.
fn is_form(start: &[u8], rest: &[u8]) -> bool {
    const ENDINGS: &[&[u8]] = &[
        b"", b"s", b"es", b"e", b"ed", b"d", b"ing", b"ings", b"er", b"ers", b"or", b"ors", b"ion",
        b"ions", b"ation", b"ations", b"ment", b"ments", b"ly", b"y", b"ies", b"ied", b"ier",
        b"iest", b"al", b"als", b"ure", b"ures", b"able", b"ability", b"ity", b"ities", b"ness",
        b"ance", b"ances", b"ence", b"ences", b"ive", b"ic", b"ics", b"ist", b"ists", b"ism",
        b"est", b"age", b"ages", b"ful", b"less", b"ise", b"ised", b"ize", b"ized", b"ising",
        b"izing", b"ate", b"ated", b"ates", b"ating", b"ant", b"ants", b"ent", b"ents", b"ee",
        b"ees", b"ary", b"ory", b"ous", b"ish", b"ry",
    ];
    // A doubled last letter: "planned", "shipping".
    let rest = match (start.last(), rest) {
        (Some(last), [first, after @ ..]) if last == first && !after.is_empty() => after,
        _ => rest,
    };
    start.is_empty() || ENDINGS.contains(&rest) || rest.iter().all(u8::is_ascii_digit)
}

/// What each candidate holds of `question`.
pub fn held(question: &Question, texts: &[Text]) -> Vec<Held> {
    let concepts = question.concepts.len().max(1) as f64;
    // How much each concept counts in deciding weakness: an everyday word half, and so the
    // reading a question names when nothing indexed names it ("rate" of "what's the
    // abandon rate now" or "first time fix rate": the record of it seldom says so), or the
    // word asking for it ("long" of "how long does the voa take").
    // So too the state a question asks about as it stands ("cold" of "is the cellar cold
    // again"), which the wait that watched it records as a reading.
    let unnamed_reading = |concept: &Concept| {
        !concept.known
            && (is_figure_noun(&concept.word)
                || is_figure_adjective(&concept.word)
                || question.state_asked_now.as_ref() == Some(&concept.word))
    };
    let counts_for_weakness: Vec<f64> = (question.concepts.iter())
        .map(|concept| {
            if is_everyday(&concept.word) || unnamed_reading(concept) {
                EVERYDAY_WEIGHT
            } else {
                1.0
            }
        })
        .collect();
    let weakness_total = counts_for_weakness
        .iter()
        .sum::<f64>()
        .max(f64::MIN_POSITIVE);
    // Every term of the question once, and per concept the indexes of its terms.
    let terms: Vec<&Term> = (question.concepts.iter())
        .flat_map(|concept| concept.terms.iter())
        .collect();
    let mut next = 0;
    let of_concept: Vec<std::ops::Range<usize>> = (question.concepts.iter())
        .map(|concept| {
            next += concept.terms.len();
            next - concept.terms.len()..next
        })
        .collect();
    let probes = Probes::of(&terms);
    let read: Vec<Parts> = texts
        .iter()
        .map(|text| {
            let mut end = text.body.len().min(READ_BYTES);
            while !text.body.is_char_boundary(end) {
                end -= 1;
            }
            let body = &text.body[..end];
            let (said, tools_returned) = match text.source {
                Source::Transcript => {
                    let (said, returned) = said_and_returned(body);
                    (Cow::Owned(said), Cow::Owned(returned))
                }
                _ => (Cow::Borrowed(body), Cow::Borrowed("")),
            };
            Parts {
                title: probes.count(&text.title, TITLE_WEIGHT),
                said: probes.count(&said, 1),
                returned: probes.count(&tools_returned, 1),
            }
        })
        .collect();
    let count = |parts: &Parts, term: usize| {
        parts.title.terms[term] + parts.said.terms[term] + parts.returned.terms[term]
    };
    // BM25 on the question's own words (as written, or corrected) over the candidates: a
    // rare synonym must not outweigh the word itself.
    let own: Vec<usize> = (0..terms.len())
        .filter(|&term| terms[term].weight >= CORRECTION_WEIGHT)
        .collect();
    let average = read
        .iter()
        .map(|parts| f64::from(parts.length()))
        .sum::<f64>()
        / read.len().max(1) as f64;
    let documents = read.len() as f64;
    let mut bm25 = vec![0.0; read.len()];
    for &term in &own {
        let counts: Vec<u32> = read.iter().map(|text| count(text, term)).collect();
        let holding = counts.iter().filter(|n| **n > 0).count() as f64;
        let idf = (1.0 + (documents - holding + 0.5) / (holding + 0.5)).ln();
        for (index, count) in counts.iter().enumerate() {
            let tf = f64::from(*count);
            let length = f64::from(read[index].length());
            bm25[index] +=
                idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average.max(1.0)));
        }
    }
    let best = bm25.iter().copied().fold(0.0_f64, f64::max);
    texts
        .iter()
        .zip(&read)
        .enumerate()
        .map(|(index, (text, counted))| {
            // A word only a tool returned (a file read, a page fetched) counts less than
            // one the session said.
            let weight_of = |term: usize| {
                let said = |of: fn(&Counted) -> &Vec<u32>| {
                    of(&counted.title)[term] + of(&counted.said)[term] > 0
                };
                let returned = |of: fn(&Counted) -> &Vec<u32>| of(&counted.returned)[term] > 0;
                let weight = terms[term].weight;
                if said(|c| &c.in_form) {
                    weight
                } else if said(|c| &c.terms) {
                    weight * LONGER_WORD_WEIGHT
                } else if returned(|c| &c.in_form) {
                    weight * RETURNED_WEIGHT
                } else if returned(|c| &c.terms) {
                    weight * RETURNED_WEIGHT * LONGER_WORD_WEIGHT
                } else {
                    0.0
                }
            };
            let weights: Vec<f64> = (of_concept.iter())
                .map(|range| (range.clone()).map(weight_of).fold(0.0, f64::max))
                .collect();
            let in_title = (of_concept.iter())
                .filter(|range| (*range).clone().any(|term| counted.title.terms[term] > 0))
                .count() as f64;
            Held {
                row: text.row,
                end_ms: text.end_ms,
                coverage: weights.iter().sum::<f64>() / concepts,
                share: (weights.iter().zip(&counts_for_weakness))
                    .map(|(weight, counts)| weight * counts)
                    .sum::<f64>()
                    / weakness_total,
                in_title: in_title / concepts,
                relevance: if best > 0.0 { bm25[index] / best } else { 0.0 },
                source_weight: source_weight(text.source, question.asks),
                lacks_only_unknown: question
                    .concepts
                    .iter()
                    .zip(&weights)
                    .filter(|(_, weight)| **weight == 0.0)
                    .all(|(concept, _)| !concept.known),
                answers_why_not: question.asks_why_not && records_a_plan_dropped(text),
                by_word: ByWord::new(
                    (weights.iter().zip(&counts_for_weakness)).map(|(weight, counts)| {
                        (weight / concepts, weight * counts / weakness_total)
                    }),
                ),
            }
        })
        .collect()
}

/// Whether a text says its plan was dropped: "cancelled" (a task's "Status changed: active
/// → cancelled"), "canceled" or "abandoned", lowercase, capitalised or in capitals.
fn records_a_plan_dropped(text: &Text) -> bool {
    // Not "cancel" alone: a record about cancellations is no plan dropped.
    const DROPPED: [&str; 9] = [
        "cancelled",
        "Cancelled",
        "CANCELLED",
        "canceled",
        "Canceled",
        "CANCELED",
        "abandoned",
        "Abandoned",
        "ABANDONED",
    ];
    let body = text.body.as_bytes();
    let read = [text.title.as_bytes(), &body[..body.len().min(READ_BYTES)]];
    DROPPED.iter().any(|word| {
        read.iter()
            .any(|part| memchr::memmem::find(part, word.as_bytes()).is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_read_without_its_line_starts_and_what_it_read_apart() {
        let body = "Asked: the pool is exhausted\n\
                    Used Read: {\"file_path\":\"yaml/__init__.py\"}\n\
                    Result: def scan(stream):\n    for token in tokens:\n\
                    Ran: pytest -q\n\
                    Result: 3 passed\n\
                    Used Edit: {\"old_string\":\"a\"}\n\
                    Result: updated\n\
                    Failed: exit status 1\n\
                    Answered: done";
        let (said, returned) = said_and_returned(body);
        assert_eq!(
            said,
            "the pool is exhausted\n{ \"yaml/__init__.py\"}\n\
             pytest -q\n3 passed\n{ \"a\"}\nupdated\n\
             Failed: exit status 1\ndone"
        );
        assert_eq!(returned, "def scan(stream):\n    for token in tokens:\n");
    }

    #[test]
    fn a_tool_input_is_read_without_its_field_names() {
        assert_eq!(
            without_json_keys(
                r#"{"file_path":"src/a.rs","old_string":"x: 1","new_string" : "say \"hi\""}"#
            ),
            r#"{ "src/a.rs", "x: 1",  "say \"hi\""}"#
        );
        assert_eq!(without_json_keys("no json here"), "no json here");
    }

    #[test]
    fn a_prefix_counts_every_word_it_starts_a_phrase_its_rarest_word_and_the_title_more() {
        let term = |text: &str, prefix| Term {
            text: text.into(),
            prefix,
            weight: 1.0,
        };
        let (prefix, exact, absent) = (
            term("deploy", true),
            term("deploy", false),
            term("zebra", true),
        );
        let phrase = term("load balancer", false);
        let probes = Probes::of(&[&prefix, &exact, &absent, &phrase]);
        let text = "Deployed the deploy; deployment later. Undeploy the load balancer, load it";
        let counted = probes.count(text, 1);
        assert_eq!(counted.terms, vec![3, 1, 0, 1]);
        assert_eq!(counted.length, 11);
        let title = probes.count("Deploy", TITLE_WEIGHT);
        assert_eq!((title.terms[0], title.length), (5, 5));
        // Text beyond ASCII is lowercased as Unicode and cut at its own letters.
        let unicode = probes.count("Déploiement: DEPLOYÉ, deploy", 1);
        assert_eq!(
            (unicode.terms[0], unicode.terms[1], unicode.length),
            (2, 1, 3)
        );
    }

    #[test]
    fn a_longer_word_a_start_begins_is_found_but_not_as_a_form_of_it() {
        let mode = Term {
            text: "mode".into(),
            prefix: true,
            weight: 1.0,
        };
        let probes = Probes::of(&[&mode]);
        let counted = probes.count("A model of the modes, in dark mode; a modem", 1);
        assert_eq!((counted.terms[0], counted.in_form[0]), (4, 2));
        let unicode = probes.count("Modèle, mode", 1);
        assert_eq!((unicode.terms[0], unicode.in_form[0]), (2, 1));
        for (start, rest) in [
            ("deploy", "ed"),
            ("deploy", "ment"),
            ("plan", "ned"),
            ("ship", "ping"),
            ("python", "3"),
            ("configur", "ation"),
            ("polic", "y"),
        ] {
            assert!(is_form(start.as_bytes(), rest.as_bytes()), "{start}{rest}");
        }
        for (start, rest) in [("mode", "l"), ("wind", "ow"), ("pass", "word")] {
            assert!(!is_form(start.as_bytes(), rest.as_bytes()), "{start}{rest}");
        }
    }

    #[test]
    fn ascii_text_is_counted_as_if_cut_into_words() {
        let term = |text: &str, prefix| Term {
            text: text.into(),
            prefix,
            weight: 1.0,
        };
        let terms = [
            term("aa", true),
            term("aa", false),
            term("ab", true),
            term("a", false),
            term("node.js", false),
            term("", true),
            term("", false),
            term("b2 aa", true),
        ];
        let probes = Probes::of(&terms.iter().collect::<Vec<_>>());
        // Every text of up to six bytes from these, and some longer: overlaps, words at
        // either end, separators of every kind.
        let alphabet = [b'a', b'A', b'b', b'2', b' ', b'.', b'_'];
        let mut texts: Vec<String> = Vec::new();
        for length in 0..=6u32 {
            for mut code in 0..alphabet.len().pow(length) {
                let mut text = String::new();
                for _ in 0..length {
                    text.push(char::from(alphabet[code % alphabet.len()]));
                    code /= alphabet.len();
                }
                texts.push(text);
            }
        }
        texts.push("aaa aa.AA_aab b2 aa b2 aaa, node.js ab".into());
        for text in &texts {
            let by_search = probes.find_in_ascii(&text.as_bytes().to_ascii_lowercase());
            let by_words = probes.find_in_words(&text.to_lowercase());
            assert_eq!(by_search, by_words, "{text:?}");
        }
    }
}
