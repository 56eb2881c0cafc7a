//! The forms of a verb that no ending makes ("caught" of "catch", "ran" of "run"), so a
//! question in one tense finds a record written in another, and the plurals of a noun no
//! ending makes ("pence" of "penny"). Pure data and a lookup.

use crate::synonyms::others_in;

/// The forms of a verb or a noun that no ending makes ("caught" of "catch", "ran" of
/// "run", "pence" of "penny"): each group is one word, so a form counts as much as the word
/// itself.
pub(crate) const FORMS: &[&[&str]] = &[
    &["become", "became"],
    &["begin", "began", "begun"],
    &["bend", "bent"],
    &["bleed", "bled"],
    &["blow", "blew", "blown"],
    &["break", "broke", "broken"],
    &["breed", "bred"],
    &["bring", "brought"],
    &["build", "built"],
    &["burn", "burnt"],
    &["buy", "bought"],
    &["catch", "caught"],
    &["choose", "chose", "chosen"],
    &["come", "came"],
    &["creep", "crept"],
    &["deal", "dealt"],
    &["dig", "dug"],
    &["do", "did", "done"],
    &["draw", "drew", "drawn"],
    &["dream", "dreamt"],
    &["drink", "drank", "drunk"],
    &["drive", "drove", "driven"],
    &["eat", "ate", "eaten"],
    &["fall", "fell", "fallen"],
    &["feed", "fed"],
    &["feel", "felt"],
    &["fight", "fought"],
    &["find", "found"],
    &["flee", "fled"],
    &["fly", "flew", "flown"],
    &["forbid", "forbade", "forbidden"],
    &["forget", "forgot", "forgotten"],
    &["freeze", "froze", "frozen"],
    &["get", "got", "gotten"],
    &["give", "gave", "given"],
    &["go", "went", "gone"],
    &["grow", "grew", "grown"],
    &["hang", "hung"],
    &["hear", "heard"],
    &["hide", "hid", "hidden"],
    &["hold", "held"],
    &["keep", "kept"],
    &["kneel", "knelt"],
    &["know", "knew", "known"],
    &["lay", "laid"],
    &["lead", "led"],
    &["leap", "leapt"],
    &["learn", "learnt"],
    &["leave", "left"],
    &["lend", "lent"],
    &["lose", "lost"],
    &["make", "made"],
    &["mean", "meant"],
    &["meet", "met"],
    &["overwrite", "overwrote", "overwritten"],
    &["pay", "paid"],
    &["rebuild", "rebuilt"],
    &["rewrite", "rewrote", "rewritten"],
    &["ride", "rode", "ridden"],
    &["ring", "rang", "rung"],
    &["rise", "rose", "risen"],
    &["run", "ran"],
    &["say", "said"],
    &["see", "saw", "seen"],
    &["seek", "sought"],
    &["sell", "sold"],
    &["send", "sent"],
    &["shake", "shook", "shaken"],
    &["shoot", "shot"],
    &["shrink", "shrank", "shrunk"],
    &["sing", "sang", "sung"],
    &["sink", "sank", "sunk"],
    &["sit", "sat"],
    &["sleep", "slept"],
    &["slide", "slid"],
    &["speak", "spoke", "spoken"],
    &["spell", "spelt"],
    &["spend", "spent"],
    &["spill", "spilt"],
    &["spin", "spun"],
    &["stand", "stood"],
    &["steal", "stole", "stolen"],
    &["stick", "stuck"],
    &["strike", "struck"],
    &["swear", "swore", "sworn"],
    &["sweep", "swept"],
    &["swim", "swam", "swum"],
    &["take", "took", "taken"],
    &["teach", "taught"],
    &["tear", "tore", "torn"],
    &["tell", "told"],
    &["think", "thought"],
    &["throw", "threw", "thrown"],
    &["understand", "understood"],
    &["undo", "undid", "undone"],
    &["wake", "woke", "woken"],
    &["wear", "wore", "worn"],
    &["weep", "wept"],
    &["win", "won"],
    &["write", "wrote", "written"],
    // A noun's plural that no ending makes.
    &["penny", "pennies", "pence"],
    &["person", "people"],
    &["child", "children"],
    &["mouse", "mice"],
    &["index", "indices", "indexes"],
    &["matrix", "matrices"],
    &["vertex", "vertices"],
    &["analysis", "analyses"],
    &["leaf", "leaves"],
    &["half", "halves"],
];

/// Verbs done again with "re-" that mean the verb once more ("restock", "reindex"); not
/// those that mean something else ("restore", "report", "resign", "recall").
const DONE_AGAIN: &[&str] = &[
    "activate",
    "align",
    "allocate",
    "apply",
    "assign",
    "attach",
    "authenticate",
    "authorize",
    "balance",
    "book",
    "boot",
    "build",
    "calculate",
    "check",
    "compile",
    "compute",
    "configure",
    "connect",
    "create",
    "deploy",
    "enable",
    "encode",
    "enrol",
    "enroll",
    "export",
    "fill",
    "flash",
    "format",
    "generate",
    "image",
    "import",
    "index",
    "install",
    "issue",
    "join",
    "key",
    "launch",
    "link",
    "load",
    "mount",
    "name",
    "open",
    "order",
    "partition",
    "post",
    "print",
    "provision",
    "queue",
    "read",
    "render",
    "route",
    "run",
    "scan",
    "schedule",
    "send",
    "shard",
    "size",
    "start",
    "stock",
    "submit",
    "sync",
    "tag",
    "test",
    "train",
    "try",
    "upload",
    "write",
];

/// The verb a verb done again is ("restocking" → "stocking", "reindexed" → "indexed"), in
/// the form it was written: `None` for a word that is not one.
pub fn done_again(word: &str) -> Option<&str> {
    let base = word.strip_prefix("re")?;
    DONE_AGAIN
        .iter()
        .any(|verb| {
            base.strip_prefix(verb)
                .is_some_and(|ending| ending.len() <= 4)
        })
        .then_some(base)
}

/// The verb a doer is named for ("checker" → "check", "pickers" → "pick", "extractor" →
/// "extract", "wrapper" → "wrap"), its root of four letters or more: `None` for a word in
/// no -er or -or, or too short a root ("user").
pub fn doer_of(word: &str) -> Option<&str> {
    let root = ["ers", "er", "ors", "or"]
        .iter()
        .find_map(|ending| word.strip_suffix(ending))?;
    // A consonant doubled before the ending: "wrapper", "planner", "shopper".
    let undoubled = match root.as_bytes() {
        [.., a, b] if a == b && b"bdgmnpt".contains(b) => &root[..root.len() - 1],
        _ => root,
    };
    (undoubled.chars().count() >= 4).then_some(undoubled)
}

/// The word a noun in -age is made from, for a word the index does not hold ("wastage" →
/// "wast", finding "waste"; "breakage" → "break", "leakage" → "leak"): a root of four
/// letters or more, so "usage" or "outage" is never read as "us" or "out".
pub fn noun_in_age(word: &str) -> Option<&str> {
    root_before(word, &["ages", "age"], 4)
}

/// What `word` has before the first of `endings` it ends in, when that is `shortest`
/// lowercase letters or more: the root a derived word is read as.
fn root_before<'w>(word: &'w str, endings: &[&str], shortest: usize) -> Option<&'w str> {
    endings
        .iter()
        .find_map(|ending| word.strip_suffix(ending))
        .filter(|root| {
            root.chars().count() >= shortest && root.chars().all(|c| c.is_ascii_lowercase())
        })
}

/// The verb a noun in -al is made from, for a word the index does not hold ("approval" →
/// "approv", finding "approved"; "renewal" → "renew", "refusal" → "refus", "referral" →
/// "refer"): only after the v, w, s or doubled r a verb leaves, and a root of four letters
/// or more, so "signal", "portal" or "manual" is never read as "sign", "port" or "manu".
pub fn noun_in_al(word: &str) -> Option<&str> {
    let root = word
        .strip_suffix("als")
        .or_else(|| word.strip_suffix("al"))?;
    let root = root
        .strip_suffix('r')
        .filter(|r| r.ends_with('r'))
        .unwrap_or(root);
    let after_a_verb = root.ends_with(['v', 'w', 's', 'r']);
    (after_a_verb && root.chars().count() >= 4 && root.chars().all(|c| c.is_ascii_lowercase()))
        .then_some(root)
}

/// The verb a noun in -ance is made from, for a word the index does not hold ("insurance"
/// → "insur", finding "insurer" and "insured"; "performance" → "perform", "clearance" →
/// "clear"): a root of five letters or more, not in i, so "instance", "distance" or
/// "appliance" is never read as "inst", "dist" or "appli" (of "application").
pub fn noun_in_ance(word: &str) -> Option<&str> {
    root_before(word, &["ances", "ance"], 5).filter(|root| !root.ends_with('i'))
}

/// An adjective in -able or -ible as its noun in -ability or -ibility and back, for a word
/// the index does not hold ("available" → "availabilit", finding "availability";
/// "reliability" → "reliabl", finding "reliable"): a root of three letters or more.
pub fn able_or_ability(word: &str) -> Option<String> {
    let root_of = |ending: &str| root_before(word, &[ending], 3);
    root_of("ability")
        .map(|root| format!("{root}abl"))
        .or_else(|| root_of("ibility").map(|root| format!("{root}ibl")))
        .or_else(|| root_of("able").map(|root| format!("{root}abilit")))
        .or_else(|| root_of("ible").map(|root| format!("{root}ibilit")))
}

/// The -ing and -ed forms of a verb whose root before its silent e is four letters
/// ("close", "store", "cache"), from the verb or its -s or -d: [`crate::stems::stem`]
/// keeps so short a verb's e, so a prefix of it finds "closes" but not "closing".
pub fn short_e_verb_forms(word: &str) -> Vec<String> {
    let verb = [word.strip_suffix('s'), word.strip_suffix('d'), Some(word)]
        .into_iter()
        .flatten()
        .find(|verb| verb.ends_with('e'));
    let Some(root) = verb.and_then(|verb| verb.strip_suffix('e')) else {
        return Vec::new();
    };
    let consonant_last = root.ends_with(|c: char| c.is_ascii_lowercase() && !"aeiouy".contains(c));
    if root.len() != 4 || !root.chars().all(|c| c.is_ascii_lowercase()) || !consonant_last {
        return Vec::new();
    }
    [format!("{root}ing"), format!("{root}ed")]
        .into_iter()
        .filter(|form| form != word)
        .collect()
}

/// The adjective of a superlative, for a word the index does not hold ("longest" → "long",
/// "biggest" → "big", "busiest" → "busy", "largest" → "large"): the words to match whole,
/// the likelier first.
pub fn adjective_of_superlative(word: &str) -> Vec<String> {
    let Some(root) = word
        .strip_suffix("est")
        .filter(|root| root.len() >= 3 && root.chars().all(|c| c.is_ascii_lowercase()))
    else {
        return Vec::new();
    };
    if let Some(before_y) = root.strip_suffix('i') {
        return vec![format!("{before_y}y")];
    }
    let letters = root.as_bytes();
    let last = letters[letters.len() - 1];
    if letters.len() >= 4 && last == letters[letters.len() - 2] && !b"aeiouls".contains(&last) {
        return vec![root[..root.len() - 1].to_owned()];
    }
    vec![root.to_owned(), format!("{root}e")]
}

/// The number of thousands a count in k writes ("20k" → "20", "1.5k" is one word with dots
/// and not read here), for a word the index does not hold: "after 20k" of a run the record
/// puts as "20 km", "40k users" as "40,000".
pub fn number_of_thousands(word: &str) -> Option<&str> {
    word.strip_suffix('k')
        .filter(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
}

/// The number an ordinal writes ("20th" → "20", "1st" → "1"), for a word the index does
/// not hold: "on the 20th" of a run the record dates "2026-11-20".
pub fn number_of_ordinal(word: &str) -> Option<&str> {
    ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|ending| word.strip_suffix(ending))
        .filter(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
}

/// The other forms of a verb in -y after a consonant, which change the "y" ("drying",
/// "dried", "dries" of "dry"; "copied" of "copying"; "applied" of "apply"), from any of
/// them: English writes no ending on such a verb that a prefix of another form finds.
pub fn y_verb_forms(word: &str) -> Vec<String> {
    let after_a_consonant =
        |root: &&str| root.chars().last().is_some_and(|c| !"aeiouy".contains(c));
    let root = word
        .strip_suffix("ying")
        .filter(after_a_consonant)
        .or_else(|| word.strip_suffix("ied"))
        .or_else(|| word.strip_suffix("ies"))
        .or_else(|| {
            // The verb itself, where a y after a consonant is most likely a verb's: a short
            // word ("copy", "deny"), "-ply" or "-ify" ("apply", "verify"); not a noun's
            // ("query", "photography"), whose plural a prefix of the stem finds.
            (word.strip_suffix('y').filter(after_a_consonant)).filter(|root| {
                root.chars().count() <= 3 || root.ends_with("pl") || root.ends_with("if")
            })
        });
    let Some(root) = root
        .filter(|root| root.chars().count() >= 2 && root.chars().all(|c| c.is_ascii_lowercase()))
    else {
        return Vec::new();
    };
    [
        format!("{root}y"),
        format!("{root}ying"),
        format!("{root}ied"),
        format!("{root}ies"),
    ]
    .into_iter()
    .filter(|form| form != word)
    .collect()
}

/// The other forms of a verb of three letters written with an ending ("asking" finds
/// "asked" and "asks", "fixed" "fixing"), which [`crate::stems::stem`] leaves whole
/// since a root that short is not sure to be one. Not the root itself: "coming" is no
/// form of "com"; but "cutting" is of "cut", its consonant doubled.
pub fn short_verb_forms(word: &str) -> Vec<String> {
    let (root, ending) = match (word.strip_suffix("ing"), word.strip_suffix("ed")) {
        (Some(root), _) => (root, "ing"),
        (_, Some(root)) => (root, "ed"),
        _ => return Vec::new(),
    };
    if !root.chars().all(|c| c.is_ascii_lowercase()) {
        return Vec::new();
    }
    // A consonant doubled before the ending ("cutting", "logged") is the verb's own: the
    // verb is its first three letters, which no prefix of the word finds.
    if let [a, b, c, d] = root.as_bytes()
        && c == d
        && !b"aeiouls".contains(d)
    {
        let verb = String::from_utf8(vec![*a, *b, *c]).unwrap_or_default();
        return vec![format!("{verb}s"), verb];
    }
    if root.len() != 3 {
        return Vec::new();
    }
    let other = if ending == "ing" { "ed" } else { "ing" };
    vec![format!("{root}{other}"), format!("{root}s")]
}

/// A month's number as a date writes it ("november" → "11", "april" → "04"): a question
/// asks "on 20 november" of a record that says `2026-11-20`. Not "may", which is far more
/// often the verb.
pub fn month_number(word: &str) -> Option<&'static str> {
    const MONTHS: [(&str, &str); 22] = [
        ("january", "01"),
        ("jan", "01"),
        ("february", "02"),
        ("feb", "02"),
        ("march", "03"),
        ("april", "04"),
        ("apr", "04"),
        ("june", "06"),
        ("jun", "06"),
        ("july", "07"),
        ("jul", "07"),
        ("august", "08"),
        ("aug", "08"),
        ("september", "09"),
        ("sept", "09"),
        ("sep", "09"),
        ("october", "10"),
        ("oct", "10"),
        ("november", "11"),
        ("nov", "11"),
        ("december", "12"),
        ("dec", "12"),
    ];
    MONTHS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, number)| *number)
}

/// The thing an electronic form names, for a word the index does not hold: "emar" (an
/// electronic MAR chart) is "mar", "eprescriptions" "prescriptions", "esign" "sign". Three
/// letters at least after the "e", so "eat" or "ear" is never read as a form of anything.
pub fn electronic_form(word: &str) -> Option<&str> {
    word.strip_prefix('e')
        .filter(|thing| thing.len() >= 3 && thing.chars().all(|c| c.is_ascii_lowercase()))
}

/// A number as a plural writes it, or the number of such a plural ("year 7" finds "year
/// 7s", "the 1990s" finds "1990").
pub fn number_in_plural(word: &str) -> Option<String> {
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    match word.strip_suffix('s') {
        Some(number) if digits(number) => Some(number.to_owned()),
        _ if digits(word) => Some(format!("{word}s")),
        _ => None,
    }
}

/// The other spelling of a word in -ize or -ise (-yze or -yse), with its endings ("quantization" and
/// "quantisation", "optimised" and "optimized"): American and British English, each as
/// likely in a record as in a question.
pub fn other_spelling(word: &str) -> Option<String> {
    const ENDINGS: &[&str] = &["ations", "ation", "ers", "er", "ing", "es", "ed", "e"];
    ENDINGS.iter().find_map(|ending| {
        let before = word.strip_suffix(ending)?;
        let (root, other) = [("iz", "is"), ("is", "iz"), ("yz", "ys"), ("ys", "yz")]
            .iter()
            .find_map(|(spelt, other)| Some((before.strip_suffix(spelt)?, *other)))?;
        (root.chars().count() >= 3).then(|| format!("{root}{other}{ending}"))
    })
}

/// The verb of a noun in -ersion, -ission or -sion after a vowel ("corrosion" and
/// "corrode"), or in -uction, -ension, -scription or -umption ("reduction" and "reduce",
/// "extension" and "extend", "subscription" and "subscribe", "consumption" and
/// "consume"), or the noun of a verb in -ert or -mit ("conversion" and "convert",
/// "permission" and "permit"): the other word of the pair,
/// as a prefix finds its forms (`None` for a word of neither kind).
pub fn noun_or_verb(word: &str) -> Option<String> {
    let singular = word.strip_suffix('s').unwrap_or(word);
    if let Some(root) = singular.strip_suffix("ersion") {
        return Some(format!("{root}ert"));
    }
    if let Some(root) = singular.strip_suffix("ission") {
        return Some(format!("{root}it"));
    }
    // "corrosion" and "corroded", "exclusion" and "exclude", "collision" and "collide".
    if let Some(root) = singular.strip_suffix("sion")
        && (root.ends_with(['o', 'u', 'i']))
        && root.chars().count() >= 4
    {
        return Some(format!("{root}d"));
    }
    // A root of three letters or more: "pension" is never read as "pend".
    let endings = [
        ("uction", "uc"),
        ("ension", "end"),
        ("scription", "scrib"),
        ("umption", "um"),
    ];
    if let Some(verb) = endings.iter().find_map(|(ending, verb)| {
        let root = singular.strip_suffix(ending)?;
        (root.chars().count() >= 3).then(|| format!("{root}{verb}"))
    }) {
        return Some(verb);
    }
    let verb = ["ed", "ing", "s"]
        .iter()
        .find_map(|ending| word.strip_suffix(ending))
        .filter(|verb| ["ert", "mit", "mitt"].iter().any(|end| verb.ends_with(end)))
        .unwrap_or(word);
    if verb.chars().count() < 4 {
        return None;
    }
    if let Some(root) = verb.strip_suffix("ert") {
        return Some(format!("{root}ersion"));
    }
    // "submitted": the doubled t of the past.
    let verb = verb
        .strip_suffix('t')
        .filter(|v| v.ends_with("mit"))
        .unwrap_or(verb);
    verb.strip_suffix("mit")
        .map(|root| format!("{root}mission"))
}

/// The other forms of `word` that no ending makes ("caught" for "catch", "catch" for
/// "caught").
pub fn forms_of(word: &str) -> Vec<&'static str> {
    let mut forms = others_in(FORMS, word);
    // An ending that dropped the verb's e: "driving" is "drive", so "drove" and "driven";
    // "taking" finds "took".
    let dropped_e = (word.strip_suffix("ing").or_else(|| word.strip_suffix("ed")))
        .filter(|root| root.len() >= 2)
        .map(|root| format!("{root}e"));
    if let Some(verb) = dropped_e {
        forms.extend(
            FORMS
                .iter()
                .filter(|group| group.contains(&verb.as_str()))
                .flat_map(|group| group.iter().copied()),
        );
        forms.sort_unstable();
        forms.dedup();
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_verb_in_e_finds_its_forms_in_ing_and_ed() {
        assert_eq!(short_e_verb_forms("closes"), ["closing", "closed"]);
        assert_eq!(short_e_verb_forms("cache"), ["caching", "cached"]);
        assert_eq!(short_e_verb_forms("stored"), ["storing"]);
        assert!(
            short_e_verb_forms("issue").is_empty(),
            "a vowel before the e"
        );
        assert!(
            short_e_verb_forms("terminate").is_empty(),
            "its stem drops the e"
        );
        assert!(short_e_verb_forms("deploy").is_empty());
    }

    #[test]
    fn a_superlative_is_read_as_its_adjective() {
        assert_eq!(adjective_of_superlative("longest"), ["long", "longe"]);
        assert_eq!(adjective_of_superlative("biggest"), ["big"]);
        assert_eq!(adjective_of_superlative("busiest"), ["busy"]);
        assert_eq!(adjective_of_superlative("largest"), ["larg", "large"]);
        assert!(adjective_of_superlative("test").is_empty());
    }

    #[test]
    fn a_count_in_k_is_its_number() {
        assert_eq!(number_of_thousands("20k"), Some("20"));
        assert_eq!(number_of_thousands("k"), None);
        assert_eq!(number_of_thousands("k8s"), None);
        assert_eq!(number_of_thousands("pk"), None);
    }

    #[test]
    fn a_noun_in_al_is_read_as_its_verb() {
        assert_eq!(noun_in_al("approval"), Some("approv"));
        assert_eq!(noun_in_al("renewals"), Some("renew"));
        assert_eq!(noun_in_al("referral"), Some("refer"));
        assert_eq!(noun_in_al("refusal"), Some("refus"));
        for not_one in ["signal", "portal", "manual", "oval", "total", "rural"] {
            assert_eq!(noun_in_al(not_one), None, "{not_one}");
        }
    }

    #[test]
    fn a_noun_in_ance_is_read_as_its_verb() {
        assert_eq!(noun_in_ance("insurance"), Some("insur"));
        assert_eq!(noun_in_ance("performances"), Some("perform"));
        assert_eq!(noun_in_ance("clearance"), Some("clear"));
        for not_one in ["instance", "distance", "appliance", "balance", "finance"] {
            assert_eq!(noun_in_ance(not_one), None, "{not_one}");
        }
    }

    #[test]
    fn an_adjective_in_able_finds_its_noun_and_back() {
        assert_eq!(able_or_ability("available").as_deref(), Some("availabilit"));
        assert_eq!(able_or_ability("reliability").as_deref(), Some("reliabl"));
        assert_eq!(
            able_or_ability("compatible").as_deref(),
            Some("compatibilit")
        );
        assert_eq!(able_or_ability("visibility").as_deref(), Some("visibl"));
        assert_eq!(able_or_ability("table"), None, "too short a root");
        assert_eq!(able_or_ability("deploy"), None);
    }

    #[test]
    fn a_noun_in_age_is_read_as_its_root() {
        assert_eq!(noun_in_age("wastage"), Some("wast"));
        assert_eq!(noun_in_age("breakages"), Some("break"));
        assert_eq!(noun_in_age("usage"), None, "too short a root");
        assert_eq!(noun_in_age("outage"), None);
        assert_eq!(noun_in_age("deploy"), None);
    }

    #[test]
    fn each_form_finds_the_others() {
        assert_eq!(forms_of("caught"), ["catch"]);
        assert_eq!(forms_of("run"), ["ran"]);
        assert_eq!(forms_of("took"), ["take", "taken"]);
        assert_eq!(forms_of("pennies"), ["pence", "penny"]);
        assert!(forms_of("deploy").is_empty());
    }

    #[test]
    fn an_ending_that_dropped_an_e_finds_the_verb_and_its_forms() {
        assert_eq!(forms_of("driving"), ["drive", "driven", "drove"]);
        assert_eq!(forms_of("taking"), ["take", "taken", "took"]);
        assert!(forms_of("deploying").is_empty());
    }

    #[test]
    fn a_number_finds_its_plural_and_back() {
        assert_eq!(number_in_plural("7").as_deref(), Some("7s"));
        assert_eq!(number_in_plural("9s").as_deref(), Some("9"));
        assert_eq!(number_in_plural("s"), None);
        assert_eq!(number_in_plural("pods"), None);
    }

    #[test]
    fn american_and_british_spellings_find_each_other() {
        assert_eq!(
            other_spelling("quantization").as_deref(),
            Some("quantisation")
        );
        assert_eq!(other_spelling("optimised").as_deref(), Some("optimized"));
        assert_eq!(other_spelling("normalize").as_deref(), Some("normalise"));
        assert_eq!(other_spelling("analysed").as_deref(), Some("analyzed"));
        assert_eq!(other_spelling("size"), None, "too short a root");
        assert_eq!(other_spelling("deploy"), None);
    }

    #[test]
    fn a_noun_in_sion_finds_its_verb_and_back() {
        assert_eq!(noun_or_verb("conversion").as_deref(), Some("convert"));
        assert_eq!(noun_or_verb("permissions").as_deref(), Some("permit"));
        assert_eq!(noun_or_verb("converted").as_deref(), Some("conversion"));
        assert_eq!(noun_or_verb("submitted").as_deref(), Some("submission"));
        assert_eq!(noun_or_verb("emit").as_deref(), Some("emission"));
        assert_eq!(noun_or_verb("corrosion").as_deref(), Some("corrod"));
        assert_eq!(noun_or_verb("exclusions").as_deref(), Some("exclud"));
        assert_eq!(noun_or_verb("reduction").as_deref(), Some("reduc"));
        assert_eq!(noun_or_verb("extensions").as_deref(), Some("extend"));
        assert_eq!(noun_or_verb("subscription").as_deref(), Some("subscrib"));
        assert_eq!(noun_or_verb("consumption").as_deref(), Some("consum"));
        assert_eq!(noun_or_verb("pension"), None);
        assert_eq!(noun_or_verb("sessions"), None);
        assert_eq!(noun_or_verb("deploy"), None);
    }

    #[test]
    fn a_doer_is_read_as_its_verb() {
        assert_eq!(doer_of("pickers"), Some("pick"));
        assert_eq!(doer_of("checker"), Some("check"));
        assert_eq!(doer_of("extractor"), Some("extract"));
        assert_eq!(doer_of("wrappers"), Some("wrap"));
        assert_eq!(doer_of("seller"), Some("sell"));
        assert_eq!(doer_of("user"), None);
    }

    #[test]
    fn an_ordinal_is_read_as_its_number() {
        assert_eq!(number_of_ordinal("20th"), Some("20"));
        assert_eq!(number_of_ordinal("1st"), Some("1"));
        assert_eq!(number_of_ordinal("23rd"), Some("23"));
        assert_eq!(number_of_ordinal("nth"), None);
        assert_eq!(number_of_ordinal("th"), None);
        assert_eq!(doer_of("deploy"), None);
    }

    #[test]
    fn a_verb_in_y_finds_its_forms_that_change_the_y() {
        assert_eq!(y_verb_forms("drying"), ["dry", "dried", "dries"]);
        assert_eq!(y_verb_forms("copied"), ["copy", "copying", "copies"]);
        assert_eq!(y_verb_forms("retries"), ["retry", "retrying", "retried"]);
        assert!(
            y_verb_forms("deploying").is_empty(),
            "a vowel before the y keeps it"
        );
        assert!(y_verb_forms("tied").is_empty(), "too short to say");
        assert_eq!(y_verb_forms("apply"), ["applying", "applied", "applies"]);
        assert_eq!(y_verb_forms("dry"), ["drying", "dried", "dries"]);
        assert!(y_verb_forms("play").is_empty(), "a y after a vowel stays");
        assert_eq!(
            y_verb_forms("verify"),
            ["verifying", "verified", "verifies"]
        );
        assert!(
            y_verb_forms("query").is_empty(),
            "a noun as likely as a verb"
        );
    }

    #[test]
    fn a_verb_of_three_letters_with_an_ending_finds_its_other_forms() {
        assert_eq!(short_verb_forms("asking"), ["asked", "asks"]);
        assert_eq!(short_verb_forms("fixed"), ["fixing", "fixs"]);
        assert!(short_verb_forms("ask").is_empty());
        assert_eq!(short_verb_forms("cutting"), ["cuts", "cut"]);
        assert_eq!(short_verb_forms("logged"), ["logs", "log"]);
        assert!(short_verb_forms("selling").is_empty(), "its own double l");
        assert!(
            short_verb_forms("using").is_empty(),
            "a root of two letters"
        );
        assert!(short_verb_forms("deploying").is_empty());
    }

    #[test]
    fn a_month_is_its_number_as_a_date_writes_it() {
        assert_eq!(month_number("november"), Some("11"));
        assert_eq!(month_number("apr"), Some("04"));
        assert_eq!(month_number("may"), None);
        assert_eq!(month_number("monday"), None);
    }

    #[test]
    fn a_verb_done_again_is_the_verb() {
        assert_eq!(done_again("restocking"), Some("stocking"));
        assert_eq!(done_again("reindexed"), Some("indexed"));
        assert_eq!(done_again("rerun"), Some("run"));
        assert_eq!(done_again("restore"), None);
        assert_eq!(done_again("report"), None);
        assert_eq!(done_again("stock"), None);
    }
}
