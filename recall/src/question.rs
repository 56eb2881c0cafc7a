//! A question as the index reads it: its content words, each a [`Concept`] matched by the
//! word in any form ("renewed" finds "renewal"), by its synonyms and abbreviations, by the
//! things of a kind it names ([`crate::synonyms`]), and — when none of those is anywhere in
//! the index — by the nearest word the index holds (a typo: "postgress" → "postgres"), or
//! else by the nearest word of the curated tables when the index holds that word's synonyms
//! or members ("kuberentes" → kubernetes, found as kubectl and pods).
//! Reading a question asks the index's [`Vocabulary`]; the rest is pure.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::asks::{Asks, asks_why_not, is_figure_noun, state_asked_now};
use crate::compounds::{
    dotted_number, joined_where_held, letters_and_digits_apart, numbers_in_a_row, two_held_words,
    words_and_dotted_numbers,
};
use crate::diacritics::folded;
use crate::everyday::is_everyday;
use crate::forms::{
    able_or_ability, adjective_of_superlative, doer_of, done_again, electronic_form, forms_of,
    month_number, noun_in_age, noun_in_al, noun_in_ance, noun_or_verb, number_in_plural,
    number_of_ordinal, number_of_thousands, other_spelling, short_e_verb_forms, short_verb_forms,
    y_verb_forms,
};
use crate::framing::{is_common, is_framing, is_framing_at};
use crate::kinds::{KIND_WEIGHT, members_of};
use crate::phrases::{phrases_of, phrases_starting_with, word_of_phrase};
use crate::stems::{stem, term_for, whole};
use crate::synonyms::{SYNONYM_WEIGHT, synonyms_of};
use crate::tables::{curated_words, is_curated};
use crate::typos::{nearest_curated_word, nearest_word};

/// How much a corrected word counts beside a word spelled as the index holds it.
pub const CORRECTION_WEIGHT: f64 = 0.9;
/// How much a phrase's last word alone counts ("limit" of "rate limit").
const PHRASE_HEAD_WEIGHT: f64 = 0.5;

/// Words of the index, each with how many documents hold it.
pub type IndexWords = std::sync::Arc<[(String, u64)]>;

/// Whether `words` (as [`Vocabulary::starting_with`] gives them, in byte order) hold `word`.
pub fn among(words: &[(String, u64)], word: &str) -> bool {
    words
        .binary_search_by(|(held, _)| held.as_str().cmp(word))
        .is_ok()
}

/// Where a question's words are looked up: the words the index holds.
pub trait Vocabulary {
    /// Whether the index holds `term` (a word starting with it, when `prefix`).
    fn holds(&self, term: &str, prefix: bool) -> bool;
    /// The words the index holds that start with `first`, with how many documents hold each,
    /// in byte order.
    fn starting_with(&self, first: char) -> IndexWords;

    /// Whether the index holds `word` as a word of its own, read from
    /// [`Vocabulary::starting_with`] (kept between searches: no query).
    fn holds_word(&self, word: &str) -> bool {
        word.chars()
            .next()
            .is_some_and(|first| among(&self.starting_with(first), word))
    }
}

/// One way of matching a concept, and how much a document holding it counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub text: String,
    /// Matches every word starting with `text` (else only `text` itself).
    pub prefix: bool,
    pub weight: f64,
}

impl Term {
    /// Several words, matched one after the other ("write ahead log").
    #[cfg(test)]
    pub fn is_phrase(&self) -> bool {
        self.text.contains(' ')
    }

    /// Its words, each with whether words it starts count: a word as the term says; each
    /// word of a phrase exactly, but its last as a prefix when the phrase is one.
    pub fn words(&self) -> impl Iterator<Item = (&str, bool)> {
        let last = self.text.split(' ').count() - 1;
        (self.text.split(' ').enumerate())
            .map(move |(index, word)| (word, self.prefix && index == last))
    }
}

/// One content word of the question and the terms that match it.
#[derive(Clone, Debug, PartialEq)]
pub struct Concept {
    /// As the question wrote it (lowercase).
    pub word: String,
    pub terms: Vec<Term>,
    /// The index's word it was read as, when the word itself is nowhere in the index.
    pub corrected: Option<String>,
    /// Whether any of its terms is in the index at all.
    pub known: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Question {
    pub concepts: Vec<Concept>,
    /// What kind of answer it asks for, read off how it is framed.
    pub asks: Asks,
    /// It names a version nothing in the index holds ("upgrade to postgres 17" where the
    /// records say 16), a move to something nothing holds as itself ("from cloudfront to
    /// fastly", "from ufw to nftables" where only iptables is recorded), or opens with an
    /// action nothing holds ("rotate the ssh host keys": [`ACTIONS`]), or names before its
    /// "for" only what nothing holds ("backblaze for the mac backups"): what it asks about
    /// was not recorded, so every result is weak.
    pub names_the_unrecorded: bool,
    /// It asks why something was not done, or is still as it was ("why not ai for
    /// x-rays"): [`crate::asks::asks_why_not`].
    pub asks_why_not: bool,
    /// The state it asks a thing is in as it stands ("cold" of "is the cellar cold
    /// again?"): [`crate::asks::state_asked_now`].
    pub state_asked_now: Option<String>,
}

impl Question {
    /// Reads `text` against the index's vocabulary.
    pub fn read(text: &str, vocabulary: &impl Vocabulary) -> Question {
        let concepts = question_words(text)
            .into_iter()
            .flat_map(|word| match word_of_phrase(&word) {
                // A number with dots ("3.4", "10.0.0.9") is one thing: its numbers one
                // after the other, as the index holds them ("ruby 3.4" is not any record
                // holding a 3 and a 4).
                _ if word.contains('.') => vec![dotted_number(word, vocabulary)],
                Some(written) => {
                    let phrase = phrase_concept(word, written, vocabulary);
                    if phrase.known {
                        return vec![phrase];
                    }
                    // Held neither as the phrase nor as what it stands for: its words, each
                    // on its own ("certificate" of "certificate authority authorization").
                    (phrase.word.split(' '))
                        .filter(|word| !is_framing(word))
                        .map(|word| concept(word.to_owned(), vocabulary))
                        .collect()
                }
                None => vec![concept(word, vocabulary)],
            })
            .fold(Vec::<Concept>::new(), |mut concepts, concept| {
                // A word a phrase's words repeat is one concept ("peer" of "peer to peer").
                if concepts.iter().all(|seen| seen.word != concept.word) {
                    concepts.push(concept);
                }
                concepts
            });
        let concepts = joined_where_held(text, concepts, vocabulary);
        // "5.1" as the index holds it: its numbers one after the other, the first maybe
        // with its "v" ("v1.29.4" is "v1 29 4").
        let recorded = |version: &str| {
            let numbers = numbers_in_a_row(version);
            vocabulary.holds(&numbers, false) || vocabulary.holds(&format!("v{numbers}"), false)
        };
        // Whether the question's word `word` is known: `None` when it is not one of its
        // words (framing).
        let known = |word: &str| (concepts.iter()).find(|c| c.word == word).map(|c| c.known);
        // What a move is to, held as itself: "nftables" is not recorded by a record of
        // "iptables", its synonym.
        let held_as_itself = |word: &str| known(word) == Some(true) && vocabulary.holds(word, true);
        let unrecorded = versions_named(text)
            .into_iter()
            .any(|version| !recorded(version))
            || destination(text).is_some_and(|word| !held_as_itself(&word))
            || lowercase_words(text).next().is_some_and(|first| {
                ACTIONS.contains(&first.as_str()) && known(&first) == Some(false)
            })
            || names_unrecorded_for(text, &concepts);
        Question {
            names_the_unrecorded: unrecorded,
            concepts,
            asks: Asks::of(text),
            asks_why_not: asks_why_not(text),
            state_asked_now: state_asked_now(text),
        }
    }

    /// The question's words, as written.
    pub fn words(&self) -> Vec<String> {
        self.concepts.iter().map(|c| c.word.clone()).collect()
    }

    /// "postgress → postgres" for each word read as another.
    pub fn read_as(&self) -> Vec<String> {
        self.concepts
            .iter()
            .filter_map(|c| c.corrected.as_ref().map(|to| format!("{} → {to}", c.word)))
            .collect()
    }

    /// The words nothing in the index matches, in any form.
    pub fn unmatched(&self) -> Vec<String> {
        self.concepts
            .iter()
            .filter(|c| !c.known)
            .map(|c| c.word.clone())
            .collect()
    }
}

/// Moves a question may open with, to where it says after "to".
const MOVES: &[&str] = &["move", "migrate", "switch"];

/// Actions a question may open with ("rotate the ssh host keys") that a record of them
/// would name in one of their forms or synonyms: when nothing indexed does, the action was
/// never taken, and every result is weak. Not the actions said many ways (upgrade, move,
/// replace), which a record may put in a word of its own.
const ACTIONS: &[&str] = &[
    "rotate",
    "encrypt",
    "install",
    "enable",
    "disable",
    "add",
    "buy",
    "translate",
    "remove",
    "delete",
    "rename",
    "convert",
];

/// The searchable words of a question: lowercase runs of letters and digits, without the
/// words every question has, each once.
pub fn content_words(question: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in lowercase_words(question) {
        if !is_framing(&word) && !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// The words of `text`, lowercased, as the index reads them (a diacritic dropped).
pub(crate) fn lowercase_words(text: &str) -> impl Iterator<Item = String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| folded(&word.to_lowercase()).into_owned())
}

/// The content words, with each known phrase among them ("write-ahead log", "out of
/// memory": [`crate::phrases::PHRASES`]) as one word, its words one space apart.
fn question_words(question: &str) -> Vec<String> {
    let all: Vec<String> = words_and_dotted_numbers(question).collect();
    let mut words: Vec<String> = Vec::new();
    let mut at = 0;
    while at < all.len() {
        // A phrase's last word may be written in the plural: "hard drives".
        let phrase = phrases_starting_with(&all[at]).iter().find(|phrase| {
            let length = phrase.split(' ').count();
            all.get(at..at + length).is_some_and(|run| {
                phrase
                    .split(' ')
                    .zip(run)
                    .enumerate()
                    .all(|(index, (word, written))| {
                        word == written
                            || (index + 1 == length && written.strip_suffix('s') == Some(word))
                    })
            })
        });
        let (word, length) = match phrase {
            Some(phrase) => ((*phrase).to_owned(), phrase.split(' ').count()),
            None => (all[at].clone(), 1),
        };
        let framing = length == 1 && is_framing_at(&all, at);
        at += length;
        if !framing && !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// A phrase of the question: matched as the phrase, and as the word it is also written as
/// with that word's synonyms (below the phrase itself). Not corrected.
fn phrase_concept(phrase: String, written: &str, vocabulary: &impl Vocabulary) -> Concept {
    let mut terms = vec![term_for(&phrase, 1.0), term_for(written, SYNONYM_WEIGHT)];
    // The other phrases written as that word are synonyms of the phrase: "card reader" of
    // "card machine" counts as "pos" does.
    for other in phrases_of(written) {
        if other != phrase {
            terms.push(term_for(other, SYNONYM_WEIGHT));
        }
    }
    // A last word too short to be matched by its start is matched in the plural too:
    // "electric cars" of "electric car".
    if !terms[0].prefix && !phrase.ends_with('s') {
        terms.push(term_for(&format!("{phrase}s"), 1.0));
    }
    add_related(&mut terms, written, SYNONYM_WEIGHT);
    // Its last word alone, well below: "the limit of 5 certificates" holds some of "rate
    // limit"… not its first word, which qualifies ("rate") more than it names.
    if let Some(head) = phrase.rsplit(' ').next()
        && !is_common(head)
        && !terms.iter().any(|term| term.text == head)
    {
        terms.push(term_for(head, PHRASE_HEAD_WEIGHT));
    }
    Concept {
        known: terms.iter().any(|term| holds(vocabulary, term)),
        word: phrase,
        terms,
        corrected: None,
    }
}

/// Whether what a question is about, named before its "for" ("backblaze for the mac
/// backups", "set up pgbouncer for cloud sql"), is nothing the index holds: what follows
/// says what it was for, and a record of that purpose alone is not an answer.
fn names_unrecorded_for(text: &str, concepts: &[Concept]) -> bool {
    let words: Vec<String> = lowercase_words(text).collect();
    let Some(at) = words.iter().position(|word| word == "for") else {
        return false;
    };
    let head = &words[..at];
    // What it names: its words before "for" but the everyday ones ("what did I change for
    // the migration unit" names nothing before its "for").
    let mut named = (concepts.iter())
        .filter(|concept| {
            let in_head = |word: &str| head.iter().any(|h| h == word);
            concept.word.split(' ').all(in_head) && !is_everyday(&concept.word)
        })
        .peekable();
    named.peek().is_some() && named.all(|concept| !concept.known)
}

/// Where a move "from" one thing goes "to" ("move the site from cloudfront to fastly" →
/// "fastly"), lowercase.
fn destination(text: &str) -> Option<String> {
    let words: Vec<String> = lowercase_words(text).collect();
    // From "from", or from a move the question opens with ("move the database to aurora").
    let from = (words.iter().position(|word| word == "from"))
        .or_else(|| MOVES.contains(&words.first()?.as_str()).then_some(0))?;
    let to = from + words[from..].iter().position(|word| word == "to")?;
    // "to what" asks where it went, "to the wrong folder" says how it went: neither names
    // a destination.
    (words[to + 1..].iter())
        .find(|word| !matches!(word.as_str(), "the" | "a" | "an"))
        .filter(|word| !is_framing(word) && !is_everyday(word))
        .cloned()
}

/// The versions a question names after "to", "version" or "v", or after what follows "to"
/// ("upgrade php to 8.3", "upgrade to postgres 17"), each as written.
fn versions_named(text: &str) -> Vec<&str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let is = |at: usize, lead: &str| words[at].eq_ignore_ascii_case(lead);
    // "to 17" names a version where the question moves something to it ("upgrade php to
    // 8.3"), not where a quantity grows to it ("grow to 200 gigabytes").
    let moves_to = (words.iter()).any(|word| {
        let word = word.to_ascii_lowercase();
        ["upgrad", "downgrad", "updat", "migrat", "pin", "bump"]
            .iter()
            .any(|verb| word.starts_with(verb))
            || MOVES.contains(&word.as_str())
    });
    let leads = |at: usize| {
        ["version", "v"].iter().any(|lead| is(at, lead))
            || (moves_to && (is(at, "to") || (at > 0 && is(at - 1, "to"))))
    };
    (1..words.len())
        .filter(|&at| leads(at - 1))
        .map(|at| {
            let word = words[at].trim_end_matches(|c: char| c.is_ascii_punctuation());
            word.strip_prefix(['v', 'V']).unwrap_or(word)
        })
        .filter(|version| {
            !version.is_empty() && version.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
        .collect()
}

/// Whether the index holds `term`: a phrase as one, its words in order (its last one as a
/// prefix when the phrase is one), not its words apart ("onedrive" is not known because
/// some record says "one" and another "drive").
pub(crate) fn holds(vocabulary: &impl Vocabulary, term: &Term) -> bool {
    vocabulary.holds(&term.text, term.prefix)
}

fn concept(word: String, vocabulary: &impl Vocabulary) -> Concept {
    let mut terms = vec![term_for(&word, 1.0)];
    // The forms of the word, or of its stem ("sending" → "send" → "sent").
    let stemmed = stem(&word);
    let mut forms = forms_of(&word);
    if stemmed != word {
        forms.extend(forms_of(&stemmed));
    }
    terms.extend(forms.into_iter().map(|form| term_for(form, 1.0)));
    // "conversion" finds "converted", "permit" finds "permissions".
    terms.extend(noun_or_verb(&word).map(|other| term_for(&other, 1.0)));
    terms.extend(other_spelling(&word).map(|other| term_for(&other, 1.0)));
    terms.extend(number_in_plural(&word).map(|other| term_for(&other, 1.0)));
    terms.extend((y_verb_forms(&word).iter()).map(|form| term_for(form, 1.0)));
    terms.extend((short_verb_forms(&word).iter()).map(|form| term_for(form, 1.0)));
    // "closes" finds "closing", a little below the word itself: "prices" is as often the
    // noun, which "pricing" is not.
    terms.extend((short_e_verb_forms(&word).iter()).map(|form| whole(form, SYNONYM_WEIGHT)));
    terms.extend(month_number(&word).map(|number| term_for(number, SYNONYM_WEIGHT)));
    let other_number = plural_of_short(&word);
    add_related(&mut terms, &word, 1.0);
    // A form the tables do not list finds what the listed form does ("refusing" as
    // "refused": rejected, denied).
    if let Some(listed) = listed_form_of(&word, &stemmed) {
        add_related(&mut terms, listed, 1.0);
    }
    if let Some(singular) = other_number
        .as_ref()
        .filter(|other| other.text.len() < word.len())
    {
        // "prs" is "pr": with its synonyms and phrases ("pull request").
        add_related(&mut terms, &singular.text, 1.0);
    }
    terms.extend(other_number);
    // A number of one or two digits as a name writes it, padded: "screen 44" is
    // "screen-044", "node 7" "node-07".
    if word.len() <= 2 && word.chars().all(|c| c.is_ascii_digit()) {
        for padded in [format!("0{word}"), format!("00{word}")] {
            if padded.len() <= 3 {
                terms.push(term_for(&padded, 1.0));
            }
        }
    }
    // A verb of three letters in its past and -ing forms: "add" finds "added", "fix"
    // "fixed", "run" "running" (a prefix of three letters would find too much). The last
    // letter doubles only after a single vowel, as English spells it ("run", not "add").
    if word.len() == 3 && word.chars().all(|c| c.is_ascii_lowercase()) {
        let letters = word.as_bytes();
        let vowel = |c: u8| b"aeiou".contains(&c);
        let doubles = !vowel(letters[0]) && vowel(letters[1]) && !b"aeiouwxy".contains(&letters[2]);
        let last = &word[2..];
        let doubled = [format!("{word}{last}ed"), format!("{word}{last}ing")];
        let forms = [format!("{word}ed"), format!("{word}ing")];
        for form in forms
            .into_iter()
            .chain(doubles.then_some(doubled).into_iter().flatten())
        {
            if !terms.iter().any(|term| term.text == form) {
                terms.push(whole(form, 1.0));
            }
        }
    }
    let mut known = terms.iter().any(|term| holds(vocabulary, term));
    // "dns01" written apart, as the index holds "DNS-01"; "pgdump" as "pg_dump".
    let apart = || letters_and_digits_apart(&word).or_else(|| two_held_words(&word, vocabulary));
    if !known && let Some(apart) = apart() {
        let apart = whole(apart, 1.0);
        known = holds(vocabulary, &apart);
        terms.push(apart);
    }
    // A word the index lacks read as the one it is made from, the first of them the index
    // holds, below the word itself: a verb done again finds the verb ("restocking" the
    // record's "stock"), an electronic form the thing it names ("emar" the "MAR chart"), a
    // doer what it does ("pickers" the team that "picks" litter), a noun in -age its root
    // ("wastage" "waste"), a noun in -al or -ance its verb ("approval" "approved",
    // "insurance" "insurer"); and, as whole words, a superlative its adjective ("longest" of
    // a record's "long run"), a count in k its number ("20k" of "20 km"), an ordinal its
    // number ("20th" of "2026-11-20").
    if !known {
        let bases = [
            done_again(&word),
            electronic_form(&word),
            doer_of(&word),
            noun_in_age(&word),
            noun_in_al(&word),
            noun_in_ance(&word),
        ];
        let able = able_or_ability(&word);
        let adjectives = adjective_of_superlative(&word);
        let whole_words = (adjectives.iter().map(String::as_str))
            .chain(number_of_thousands(&word))
            .chain(number_of_ordinal(&word));
        if let Some(held) = (bases.into_iter().flatten().chain(able.as_deref()))
            .map(|base| term_for(base, SYNONYM_WEIGHT))
            .chain(whole_words.map(|other| whole(other, SYNONYM_WEIGHT)))
            .find(|term| holds(vocabulary, term))
        {
            known = true;
            terms.push(held);
        }
    }
    let mut corrected = None;
    // A word the tables know, or a reading ("rate"), is spelt right: it is not read as
    // another word the index holds ("mode" is not "made", "rate" not "rare"), only as
    // another form of itself ("deleted" → "delete").
    let may_read_as = |other: &str| {
        let another_form = other.starts_with(&stemmed) || stemmed.starts_with(&stem(other));
        another_form || !(is_everyday(&word) || is_curated(&word) || is_figure_noun(&word))
    };
    if !known
        && let Some(nearest) = nearest_word(&word, vocabulary).filter(|other| may_read_as(other))
    {
        terms.push(whole(nearest.clone(), CORRECTION_WEIGHT));
        add_related(&mut terms, &nearest, CORRECTION_WEIGHT);
        corrected = Some(nearest);
    } else if !known
        && let Some(nearest) = nearest_curated_word(&word).filter(|other| may_read_as(other))
    {
        // A misspelt word the index holds only by its synonyms or its kind's members
        // ("kuberentes" → kubernetes → kubectl, pods).
        let mut related = vec![term_for(nearest, CORRECTION_WEIGHT)];
        add_related(&mut related, nearest, CORRECTION_WEIGHT);
        if related.iter().any(|term| holds(vocabulary, term)) {
            terms.extend(related);
            corrected = Some(nearest.to_owned());
        }
    }
    Concept {
        known: known || corrected.is_some(),
        word,
        terms,
        corrected,
    }
}

/// The word of the curated tables with the stem of `word` (`stemmed`), when the tables do
/// not list `word` itself: a stem of four letters or more, so that only forms of one word
/// meet.
fn listed_form_of(word: &str, stemmed: &str) -> Option<&'static str> {
    /// Each stem's first word of the tables: built once, read per question word.
    static BY_STEM: LazyLock<HashMap<String, &'static str>> = LazyLock::new(|| {
        let mut by_stem = HashMap::new();
        for listed in curated_words() {
            by_stem.entry(stem(listed)).or_insert(listed);
        }
        by_stem
    });
    if stemmed.chars().count() < 4 || is_curated(word) {
        return None;
    }
    BY_STEM.get(stemmed).copied()
}

/// The word's synonyms, the phrases it is written as, and the things of its kind, at their
/// weights times `scale`.
fn add_related(terms: &mut Vec<Term>, word: &str, scale: f64) {
    // A synonym written as a phrase is found as the phrase too ("throttle" → ratelimit →
    // "rate limit").
    let related = std::iter::once(word)
        .chain(synonyms_of(word))
        .flat_map(|synonym| {
            let phrases = phrases_of(synonym);
            (synonym != word)
                .then_some(synonym)
                .into_iter()
                .chain(phrases)
        })
        .map(|w| (w, SYNONYM_WEIGHT))
        .chain(members_of(word).into_iter().map(|w| (w, KIND_WEIGHT)));
    for (other, weight) in related {
        if !terms.iter().any(|t| t.text == other) {
            terms.push(term_for(other, weight * scale));
        }
    }
}

/// A two- or three-letter word, matched exactly, also matches its plural in -s: "ip" finds
/// "ips", "ban" finds "bans" (while "pg" still does not find "pgadmin"), or in -es after x,
/// z or a vowel and s ("fix" "fixes", "bus" "buses"); the plural of a three-letter word
/// its singular: "pods" finds "pod", "logs" "log"; and the plural of a two-letter word of
/// the tables its singular: "prs" finds "pr", "vms" "vm".
fn plural_of_short(word: &str) -> Option<Term> {
    if !word.chars().all(char::is_alphabetic) {
        return None;
    }
    // (Unless its singular is a synonym already, as "log" of "logs" is.)
    if word.len() == 4
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !synonyms_of(word).contains(&&word[..3])
    {
        return Some(whole(&word[..3], 1.0));
    }
    if word.chars().count() == 2 {
        // "ip" finds "IPs", "vm" finds "VMs".
        return Some(whole(format!("{word}s"), 1.0));
    }
    if word.chars().count() != 3 {
        return None;
    }
    let other = match word.strip_suffix('s') {
        // "fix" finds "fixes", "tax" "taxes".
        None if word.ends_with(['x', 'z']) => format!("{word}es"),
        None => format!("{word}s"),
        Some(singular) if is_curated(singular) => singular.to_owned(),
        // "bus" finds "buses", "gas" "gases".
        Some(_) if b"aeiou".contains(&word.as_bytes()[1]) => format!("{word}es"),
        Some(_) => return None,
    };
    Some(whole(other, 1.0))
}

#[cfg(test)]
mod tests;
