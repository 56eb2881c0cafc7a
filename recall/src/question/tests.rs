//! The reading of questions: framing, forms, synonyms, phrases, typos.

use super::*;

struct Words(Vec<(&'static str, u64)>);

impl Vocabulary for Words {
    /// A word, as the index holds it; a phrase only where an entry is that phrase.
    fn holds(&self, term: &str, prefix: bool) -> bool {
        let matches = |held: &str| {
            if prefix {
                held.starts_with(term)
            } else {
                held == term
            }
        };
        if term.contains(' ') {
            return self.0.iter().any(|(entry, _)| matches(entry));
        }
        (self.0.iter()).any(|(entry, _)| entry.split(' ').any(matches))
    }
    fn starting_with(&self, first: char) -> IndexWords {
        let mut words: Vec<(String, u64)> = (self.0.iter())
            .flat_map(|(entry, n)| entry.split(' ').map(move |w| (w.to_string(), *n)))
            .filter(|(w, _)| w.starts_with(first))
            .collect();
        words.sort();
        words.dedup();
        words.into()
    }
}

#[test]
fn a_three_letter_word_finds_its_plural_and_nothing_longer() {
    let index = Words(vec![
        ("fail2ban", 1),
        ("bans", 1),
        ("pgadmin", 1),
        ("dns", 2),
    ]);
    let question = Question::read("fail2ban ban pg dns", &index);
    let ban = &question.concepts[1];
    assert!(ban.known, "{ban:?}");
    assert!(ban.terms.iter().any(|t| t.text == "bans" && !t.prefix));
    // Two letters stay exact but for their plural; a word ending in s gets no second s.
    assert!(!question.concepts[2].known);
    let ip = &Question::read("public ip", &Words(vec![("ips", 1), ("ipsec", 1)])).concepts[1];
    assert!(ip.known, "{ip:?}");
    assert!(
        ip.terms.iter().any(|t| t.text == "ips" && !t.prefix),
        "{ip:?}"
    );
    assert!(
        ip.terms.iter().all(|t| t.text != "ip" || !t.prefix),
        "{ip:?}"
    );
    let dns = &question.concepts[3];
    assert!(dns.terms.iter().all(|t| t.text != "dnss"), "{dns:?}");
    // And the plural of a three-letter word finds the word: "pods" the record's "pod".
    let index = Words(vec![("pod", 3), ("pids", 1)]);
    let pods = &Question::read("pods restart", &index).concepts[0];
    assert!(pods.known && pods.corrected.is_none(), "{pods:?}");
    assert!(pods.terms.iter().any(|t| t.text == "pod" && !t.prefix));
    // A word in x takes -es: "fix" finds the record's "fixes".
    let fix = &Question::read("fix rate", &Words(vec![("fixes", 1)])).concepts[0];
    assert!(fix.known, "{fix:?}");
    // And one in a vowel and s: "bus" finds the record's "buses".
    let bus = &Question::read("night bus", &Words(vec![("buses", 1)])).concepts[1];
    assert!(bus.known, "{bus:?}");
}

#[test]
fn how_much_and_gets_are_framing_and_shrink_finds_what_dropped() {
    let index = Words(vec![
        ("bucket", 2),
        ("dropped", 1),
        ("alert", 3),
        ("errors", 2),
    ]);
    let question = Question::read("how much did the bucket shrink?", &index);
    assert_eq!(question.words(), ["bucket", "shrink"]);
    let shrink = &question.concepts[1];
    assert!(shrink.known);
    // "dropped" is looked for as every form of its word.
    assert!(
        shrink.terms.iter().any(|t| t.text == "drop" && t.prefix),
        "{shrink:?}"
    );
    let paged = Question::read("who gets paged when errors spike", &index);
    assert_eq!(paged.words(), ["paged", "errors", "spike"]);
}

#[test]
fn a_synonym_written_as_a_phrase_is_found_as_the_phrase() {
    let index = Words(vec![("rate limit", 1), ("login", 2)]);
    let question = Question::read("throttle login attempts", &index);
    let throttle = &question.concepts[0];
    assert!(throttle.known, "{throttle:?}");
    assert!(
        throttle
            .terms
            .iter()
            .any(|t| t.text == "rate limit" && t.is_phrase()),
        "{throttle:?}"
    );
}

#[test]
fn how_long_asks_for_a_duration_and_take_is_framing() {
    let index = Words(vec![("restore", 3), ("took", 2), ("minutes", 5)]);
    let question = Question::read("how long did the restore take?", &index);
    assert_eq!(question.words(), ["how long", "restore"]);
    let duration = &question.concepts[0];
    assert!(duration.known);
    let texts: Vec<&str> = duration.terms.iter().map(|t| t.text.as_str()).collect();
    for word in ["took", "elaps", "minut", "hour"] {
        assert!(
            texts.iter().any(|t| t.starts_with(word)),
            "{word} in {texts:?}"
        );
    }
}

#[test]
fn a_phrase_read_word_by_word_lists_a_repeated_word_once() {
    let index = Words(vec![("content", 2), ("sharing", 1)]);
    let question = Question::read("peer to peer content sharing", &index);
    assert_eq!(question.words(), ["peer", "content", "sharing"]);
    assert_eq!(question.unmatched(), ["peer"]);
}

#[test]
fn why_not_is_read_as_asking_what_was_decided_against() {
    use crate::asks::asks_why_not;
    for asked in [
        "why not ai for x-rays",
        "why no scooters",
        "why didn't we burst to aws",
        "why dont we run our own cdn",
        "why do we still have pay machines",
        "why did we not buy a tape drive",
    ] {
        assert!(asks_why_not(asked), "{asked}");
    }
    for asked in [
        "why did the backup fail",
        "why is the disk full",
        "not working",
    ] {
        assert!(!asks_why_not(asked), "{asked}");
    }
}

#[test]
fn return_is_framing_only_as_the_verb_a_question_ends_on() {
    let index = Words(vec![
        ("health", 2),
        ("check", 4),
        ("duty", 1),
        ("return", 3),
    ]);
    let read = |text: &str| Question::read(text, &index).words();
    assert_eq!(
        read("what did the health check return"),
        ["health", "check"]
    );
    assert_eq!(
        read("duty return takes too long"),
        ["duty", "return", "long"]
    );
    assert_eq!(read("return of the duty"), ["return", "duty"]);
    assert_eq!(read("what does it return for duty"), ["return", "duty"]);
}

#[test]
fn a_typo_of_a_curated_word_the_index_holds_only_by_its_relatives_is_read_as_it() {
    // The index holds kubectl and pods, never "kubernetes" itself.
    let index = Words(vec![("kubectl", 1), ("pods", 2), ("autoscale", 1)]);
    let question = Question::read("kuberentes autoscale", &index);
    assert_eq!(question.read_as(), ["kuberentes → kubernetes"]);
    assert!(question.unmatched().is_empty());
    let texts: Vec<&str> = (question.concepts[0].terms.iter())
        .map(|t| t.text.as_str())
        .collect();
    assert!(
        texts.contains(&"kubectl") && texts.contains(&"pod"),
        "{texts:?}"
    );
    // Nothing of it in the index: the word is unmatched, not read as anything.
    let bare = Words(vec![("autoscale", 1)]);
    let question = Question::read("kuberentes autoscale", &bare);
    assert!(question.read_as().is_empty());
    assert_eq!(question.unmatched(), ["kuberentes"]);
}

#[test]
fn common_words_and_contractions_are_not_searched() {
    assert_eq!(
        content_words("How didn't I set up the Postgres backup, last time?"),
        ["postgres", "backup"]
    );
    assert!(content_words("how did I do it?").is_empty());
    // "won't", "aren't", a reason, and a letter alone (a flag's) are framing too.
    assert_eq!(
        content_words("go binary almost won't run by itself because of set -u"),
        ["go", "binary", "run"]
    );
    // Written without the apostrophe, and a pronoun's -self, and "altogether".
    assert_eq!(
        content_words("why dont we do leather, can she do chairs by herself, owed altogether"),
        ["leather", "chairs", "owed"]
    );
}

#[test]
fn a_word_is_matched_in_every_form() {
    assert_eq!(stem("renewed"), "renew");
    assert_eq!(stem("certificates"), "certificat");
    assert_eq!(stem("configuration"), "configur");
    assert_eq!(stem("deployment"), "deploy");
    assert_eq!(stem("stopped"), "stop");
    assert_eq!(stem("patches"), "patch");
    // A silent e goes, so that the prefix finds "releasing" and "terminating"; not from a
    // short word ("state" is not "stat").
    assert_eq!(stem("releases"), "releas");
    assert_eq!(stem("terminate"), "terminat");
    assert_eq!(stem("state"), "state");
    assert_eq!(stem("free"), "free");
    assert_eq!(stem("status"), "status");
    assert_eq!(stem("access"), "access");
    assert_eq!(stem("used"), "used");
    assert_eq!(stem("weekly"), "week");
    // An adverb in -ically finds its adjective in -ic.
    assert_eq!(stem("statically"), "static");
    assert_eq!(stem("automatically"), "automatic");
    assert_eq!(stem("locally"), "local");
}

#[test]
fn a_typo_is_read_as_the_nearest_word_the_index_holds() {
    let index = Words(vec![("postgres", 4), ("posters", 1), ("coursefolio", 2)]);
    let question = Question::read("upgrade postgress for corsefolio", &index);
    assert_eq!(
        question.read_as(),
        ["postgress → postgres", "corsefolio → coursefolio"]
    );
    // "upgrade" is not in the index, but nothing near it either: it is unmatched.
    assert_eq!(question.unmatched(), ["upgrade"]);
    // A word the index holds (in some form) is never corrected.
    let question = Question::read("posters", &index);
    assert!(question.read_as().is_empty());
    // A word the index holds the start of is read as that start.
    let index = Words(vec![("clean", 1), ("cleaner", 1)]);
    assert_eq!(
        Question::read("cleanup", &index).read_as(),
        ["cleanup → clean"]
    );
    // Short words are not guessed at, but for their last two letters swapped.
    assert_eq!(Question::read("pgx", &index).unmatched(), ["pgx"]);
    let index = Words(vec![("bgp", 2), ("big", 1)]);
    assert_eq!(Question::read("bpg", &index).read_as(), ["bpg → bgp"]);
    assert_eq!(Question::read("bug", &index).unmatched(), ["bug"]);
    // A misspelt singular of a word held only in the plural is read as the plural.
    let index = Words(vec![("receipts", 2), ("recipes", 1)]);
    assert_eq!(
        Question::read("reciept printer", &index).read_as(),
        ["reciept → receipts"]
    );
    // A doubled letter written once, in another form of a word held: "vacine" of
    // "vaccinations"; not a word that only looks alike ("prompts" is not "promoted").
    let index = Words(vec![("vaccinations", 2), ("promoted", 1)]);
    assert_eq!(
        Question::read("vacine reminder", &index).read_as(),
        ["vacine → vaccinations"]
    );
    assert!(Question::read("prompts", &index).read_as().is_empty());
}

#[test]
fn synonyms_count_below_the_word_itself() {
    let index = Words(vec![("tls", 1)]);
    let question = Question::read("ssl", &index);
    let concept = &question.concepts[0];
    assert!(concept.known);
    let weight = |text: &str| {
        concept
            .terms
            .iter()
            .find(|t| t.text == text)
            .unwrap()
            .weight
    };
    assert_eq!(weight("ssl"), 1.0);
    assert_eq!(weight("tls"), SYNONYM_WEIGHT);
    assert!(concept.corrected.is_none());
}

#[test]
fn a_form_the_tables_do_not_list_finds_the_synonyms_of_one_they_do() {
    // The tables list "refuse", "refused" and "refuses" with "rejected"; not "refusing".
    assert!(curated_words().all(|listed| listed != "refusing"));
    let index = Words(vec![("rejected", 1)]);
    let question = Question::read("broker refusing clients", &index);
    let refusing = (question.concepts.iter())
        .find(|c| c.word == "refusing")
        .unwrap();
    assert!(refusing.known, "{:?}", refusing.terms);
    assert!(
        refusing.terms.iter().any(|t| t.text.starts_with("reject")),
        "{:?}",
        refusing.terms
    );
    // Only forms of one word meet: a stem under four letters finds nothing.
    assert_eq!(listed_form_of("using", "us"), None);
}

#[test]
fn a_three_letter_verb_finds_its_past_and_ing_forms() {
    let index = Words(vec![("added the callback", 1), ("running", 1)]);
    let question = Question::read("add a callback url", &index);
    assert!(
        question.concepts[0].known,
        "{:?}",
        question.concepts[0].terms
    );
    assert!(
        !question.names_the_unrecorded,
        "the action was taken: \"added\""
    );
    assert!(Question::read("run", &index).concepts[0].known);
    assert!(!Question::read("fix", &index).concepts[0].known);
}

#[test]
fn a_phrase_held_in_no_form_is_read_word_by_word() {
    // Nothing holds "certificate authority" nor "ca": "certificate" is still the question's.
    let index = Words(vec![("certificate renewal", 1)]);
    let question = Question::read("certificate authority", &index);
    assert_eq!(question.words(), ["certificate", "authority"]);
    assert_eq!(question.unmatched(), ["authority"]);
    // Held as what it stands for, it stays one word.
    let index = Words(vec![("ca bundle", 1)]);
    let question = Question::read("certificate authority", &index);
    assert_eq!(question.words(), ["certificate authority"]);
}

#[test]
fn a_phrase_of_a_trade_finds_its_word_and_back() {
    let index = Words(vec![("deaf listeners", 1)]);
    let question = Question::read("hearing impaired", &index);
    assert_eq!(question.words(), ["hearing impaired"]);
    assert!(question.concepts[0].known);
    let index = Words(vec![("jigsaws framed", 1), ("people climbing alone", 1)]);
    let question = Question::read("jigsaw puzzles climbing on your own", &index);
    assert_eq!(
        question.words(),
        ["jigsaw puzzle", "climbing", "on your own"]
    );
    assert!(
        question.unmatched().is_empty(),
        "{:?}",
        question.unmatched()
    );
}

#[test]
fn a_phrase_is_one_word_found_as_itself_and_as_the_word_it_is_written_as() {
    let index = Words(vec![
        ("write", 1),
        ("ahead", 1),
        ("log", 3),
        ("wal", 2),
        ("memory", 1),
    ]);
    let question = Question::read("sqlite write-ahead log out of memory", &index);
    assert_eq!(
        question.words(),
        ["sqlite", "write ahead log", "out of memory"],
        "common words inside a phrase stay in it"
    );
    let wal = &question.concepts[1];
    assert!(wal.known && wal.terms[0].is_phrase());
    assert_eq!(
        (wal.terms[0].weight, wal.terms[1].text.as_str()),
        (1.0, "wal")
    );
    assert_eq!(wal.terms[1].weight, SYNONYM_WEIGHT);
    // The word finds the phrase, below itself.
    let question = Question::read("wal", &index);
    let phrase = (question.concepts[0].terms.iter())
        .find(|term| term.is_phrase())
        .unwrap();
    assert_eq!(
        (phrase.text.as_str(), phrase.weight),
        ("write ahead log", SYNONYM_WEIGHT)
    );
    // A phrase none of whose forms the index holds is read word by word: its words
    // nothing holds are unmatched, not corrected.
    let question = Question::read("single sign-on", &index);
    assert_eq!(question.unmatched(), ["single", "sign"]);
    assert!(question.read_as().is_empty());
}

#[test]
fn what_a_question_asks_for_is_read_off_its_framing() {
    for (question, asks) in [
        ("how many keys were evicted", Asks::Figure),
        ("How big was the .git folder?", Asks::Figure),
        ("which cuda version does the render box have", Asks::Figure),
        ("how far behind was the replica", Asks::Figure),
        ("which ip did sentinel report for the master", Asks::Figure),
        ("what ttl does the record have", Asks::Figure),
        (
            "which memcache does nextcloud use for locking",
            Asks::Figure,
        ),
        ("which kernel is running now", Asks::Figure),
        ("which gpu does the container see", Asks::Figure),
        ("what was the sequence at after the restore", Asks::Figure),
        ("which query was the slowest", Asks::Figure),
        ("which issuer did the certificate have", Asks::Figure),
        ("what did the blocklist lookup say", Asks::Figure),
        ("what does the aaaa record point to", Asks::Figure),
        ("what encoding was the export", Asks::Figure),
        ("what is the lcp now", Asks::Figure),
        ("which ports are open from the outside", Asks::Figure),
        ("what addresses did the pool hand out", Asks::Figure),
        ("what was the sleep current", Asks::Figure),
        ("what's the median wait for a match now", Asks::Figure),
        ("how accurate are the arrival times", Asks::Figure),
        ("when did the renewal batch finish", Asks::Figure),
        ("when was the last rds snapshot taken", Asks::Figure),
        ("when was the new floor finished", Asks::Anything),
        ("missed doses yesterday", Asks::Figure),
        ("sync error rate last week", Asks::Figure),
        ("pm10 levels this month", Asks::Figure),
        ("outages this month", Asks::Topic),
        ("how long are idempotency keys kept", Asks::Anything),
        ("how long is an incremental build now", Asks::Figure),
        ("who is using the gpus right now", Asks::Figure),
        ("when did we switch the mx record", Asks::Anything),
        ("any reused passwords left", Asks::Outcome),
        ("what error rate did the canary have", Asks::Figure),
        ("did the failover happen", Asks::Outcome),
        ("which commit made search slow", Asks::Anything),
        ("did the evictions stop", Asks::Outcome),
        ("has the volume resize finished?", Asks::Outcome),
        ("are logins still failing", Asks::Outcome),
        ("is the queue still dropping messages", Asks::Outcome),
        ("is the build caching layers", Asks::Outcome),
        ("did we configure the cache", Asks::Anything),
        ("can't send email from the new server", Asks::Anything),
        ("can partners log in now", Asks::Outcome),
        ("is the api still cached by cloudflare", Asks::Outcome),
        ("is redis latency back to normal", Asks::Outcome),
        ("is the database reachable from the app now", Asks::Outcome),
        ("did the incomplete uploads get cleaned up", Asks::Outcome),
        (
            "did the borg backup run after breaking the lock",
            Asks::Outcome,
        ),
        ("did I get the logs", Asks::Anything),
        ("what speed does the ssd write at now", Asks::Figure),
        ("how long did the restore take", Asks::Figure),
        ("how did I deploy coursefolio", Asks::Anything),
        ("did I configure the ingress", Asks::Anything),
        ("do patients actually do their exercises", Asks::Anything),
        ("did we win the nhs contract", Asks::Outcome),
        ("do the backups still fail", Asks::Outcome),
        ("printer utilisation last month", Asks::Figure),
        ("longest driving day last month", Asks::Figure),
        ("why was redis evicting keys", Asks::Anything),
        (
            "what did we do about the duplicate machine ids",
            Asks::Anything,
        ),
        ("stop the evictions", Asks::Topic),
        ("cuda in docker", Asks::Topic),
        ("pg_upgradecluster output", Asks::Figure),
        ("redis cache hit count", Asks::Figure),
    ] {
        assert_eq!(Asks::of(question), asks, "{question}");
    }
}

#[test]
fn a_word_of_letters_and_digits_is_also_read_written_apart() {
    assert_eq!(letters_and_digits_apart("dns01").as_deref(), Some("dns 01"));
    assert_eq!(
        letters_and_digits_apart("utf8mb4").as_deref(),
        Some("utf 8 mb 4")
    );
    assert_eq!(letters_and_digits_apart("deploy"), None);
    assert_eq!(letters_and_digits_apart("2026"), None);
    let index = Words(vec![("dns 01", 1), ("dns", 3)]);
    let question = Question::read("dns01 challenge", &index);
    assert!(question.concepts[0].known, "{:?}", question.concepts[0]);
    // Both words held, but never one after the other: not known.
    let index = Words(vec![("dns", 3), ("01", 1)]);
    let question = Question::read("dns01 challenge", &index);
    assert!(!question.concepts[0].known, "{:?}", question.concepts[0]);
}

#[test]
fn a_number_finds_itself_padded_as_names_write_it() {
    let index = Words(vec![("screen", 3), ("044", 1), ("07", 1)]);
    let question = Question::read("is screen 44 on node 7", &index);
    let known = |word: &str| (question.concepts.iter()).any(|c| c.word == word && c.known);
    assert!(known("44") && known("7"), "{question:?}");
    // Three digits are written as they are.
    let index = Words(vec![("0440", 1)]);
    assert_eq!(
        Question::read("port 440", &index).unmatched(),
        ["port", "440"]
    );
}

#[test]
fn two_words_the_index_writes_as_one_are_read_as_it() {
    let index = Words(vec![("ubereats", 1), ("uber", 1), ("push", 2)]);
    let question = Question::read("push stock to uber eats", &index);
    assert_eq!(question.read_as(), ["uber eats → ubereats"]);
    assert_eq!(question.words(), ["push", "stock", "uber eats"]);
    assert!(question.concepts[2].known);
    // Not where both words are held on their own, nor across a word between them.
    let index = Words(vec![
        ("pushstock", 1),
        ("push", 1),
        ("stock", 1),
        ("ubereats", 1),
    ]);
    assert!(Question::read("push stock", &index).read_as().is_empty());
    let question = Question::read("uber the eats", &index);
    assert!(question.read_as().is_empty(), "{question:?}");
    // A number after a word: "year 7" of "Year7".
    let index = Words(vec![("year7", 1), ("accounts", 2)]);
    let question = Question::read("how many year 7 accounts", &index);
    assert_eq!(question.read_as(), ["year 7 → year7"]);
}

#[test]
fn a_word_the_index_lacks_is_read_as_two_words_it_holds() {
    let index = Words(vec![
        ("pg dump", 1),
        ("pg", 2),
        ("node modules", 1),
        ("node", 4),
    ]);
    assert_eq!(two_held_words("pgdump", &index).as_deref(), Some("pg dump"));
    assert_eq!(
        two_held_words("nodemodules", &index).as_deref(),
        Some("node modules")
    );
    assert_eq!(two_held_words("pgnodx", &index), None, "held, but not both");
    assert_eq!(two_held_words("nodes", &index), None, "too short to split");
    let question = Question::read("pgdump", &index);
    assert!(question.concepts[0].known, "{:?}", question.concepts[0]);
}

#[test]
fn an_electronic_form_the_index_lacks_is_read_as_the_thing_it_names() {
    let index = Words(vec![
        ("mar chart", 1),
        ("prescriptions", 2),
        ("evaluation", 3),
    ]);
    let question = Question::read("emar", &index);
    assert!(question.concepts[0].known, "{:?}", question.concepts[0]);
    let mar = (question.concepts[0].terms.iter()).find(|term| term.text == "mar");
    assert_eq!(mar.map(|term| term.weight), Some(SYNONYM_WEIGHT));
    assert!(Question::read("eprescriptions", &index).concepts[0].known);
    // A word the index holds is itself; a short one is no form of anything.
    let held = Question::read("evaluation", &index);
    assert!(!(held.concepts[0].terms.iter()).any(|term| term.text == "valuation"));
    assert_eq!(electronic_form("ear"), None);
    assert_eq!(electronic_form("esign"), Some("sign"));
}

#[test]
fn a_phrase_ending_in_a_short_word_is_matched_in_the_plural_too() {
    let index = Words(vec![("electric cars", 1)]);
    let question = Question::read("electric cars for lessons", &index);
    assert_eq!(question.words(), ["electric car", "lessons"]);
    assert!(question.concepts[0].known, "{:?}", question.concepts[0]);
}

#[test]
fn a_version_nothing_holds_says_the_question_was_not_recorded() {
    assert_eq!(versions_named("upgrade php to 8.3"), ["8.3"]);
    assert_eq!(versions_named("upgrade to postgres 17?"), ["17"]);
    assert!(versions_named("ssh takes 20 seconds").is_empty());
    assert!(versions_named("switch deploy keys to ed25519").is_empty());
    // A quantity something grows to is not a version.
    assert!(versions_named("did the volume grow to 200 gigabytes").is_empty());
    assert_eq!(versions_named("pin node to v20.11."), ["20.11"]);
    let index = Words(vec![("postgres", 3), ("upgrade", 2), ("16", 1), ("20", 1)]);
    assert!(Question::read("upgrade to postgres 17", &index).names_the_unrecorded);
    assert!(!Question::read("upgrade to postgres 16", &index).names_the_unrecorded);
    assert!(!Question::read("postgres 17 upgrade", &index).names_the_unrecorded);
    // "v1.29.4" is held as "v1 29 4": version 1.29 was recorded.
    let index = Words(vec![("v1 29", 1), ("nodes", 1), ("upgraded", 1)]);
    assert!(!Question::read("are all nodes upgraded to 1.29", &index).names_the_unrecorded);
    assert!(Question::read("are all nodes upgraded to 1.30", &index).names_the_unrecorded);
}

#[test]
fn a_move_to_something_nothing_holds_was_not_recorded() {
    assert_eq!(
        destination("move the site from cloudfront to fastly").as_deref(),
        Some("fastly")
    );
    assert_eq!(destination("upgrade to postgres"), None, "no from, no move");
    assert_eq!(
        destination("dns lookup went from 40 ms to what"),
        None,
        "asks where it went"
    );
    assert_eq!(
        destination("sent items from the shared mailbox go to the wrong folder"),
        None,
        "says how it went"
    );
    assert_eq!(
        destination("migrate the database to aurora").as_deref(),
        Some("aurora"),
        "a move the question opens with"
    );
    let index = Words(vec![("site", 2), ("cloudfront", 1), ("postgres", 1)]);
    let question = Question::read("move the site from cloudfront to fastly", &index);
    assert!(question.names_the_unrecorded);
    let question = Question::read("move the site from fastly to cloudfront", &index);
    assert!(!question.names_the_unrecorded);
    // Held only as a synonym of what the records name ("iptables" for "nftables") is
    // not held: what the move is to was never recorded.
    let index = Words(vec![("ufw", 1), ("iptables", 1)]);
    let question = Question::read("move from ufw to nftables", &index);
    assert!(
        question
            .concepts
            .iter()
            .any(|c| c.word == "nftables" && c.known)
    );
    assert!(question.names_the_unrecorded);
}

#[test]
fn an_action_nothing_holds_was_not_taken() {
    let index = Words(vec![("ssh", 2), ("host", 1), ("keys", 1), ("rotated", 1)]);
    assert!(!Question::read("rotate the ssh host keys", &index).names_the_unrecorded);
    let index = Words(vec![("ssh", 2), ("host", 1), ("keys", 1)]);
    assert!(Question::read("rotate the ssh host keys", &index).names_the_unrecorded);
    // Only an action the question opens with, and only one of the list.
    assert!(!Question::read("ssh host keys to rotate", &index).names_the_unrecorded);
    assert!(!Question::read("harden the ssh host keys", &index).names_the_unrecorded);
}

#[test]
fn what_a_question_names_before_for_must_be_recorded() {
    let index = Words(vec![
        ("mac", 2),
        ("backups", 3),
        ("time", 1),
        ("machine", 1),
    ]);
    // What it is about is named before "for"; what follows is what it was for.
    assert!(Question::read("backblaze for the mac backups", &index).names_the_unrecorded);
    assert!(!Question::read("time machine for the mac backups", &index).names_the_unrecorded);
    // Without "for", or with nothing of the question before it, nothing is read into it.
    assert!(!Question::read("backblaze mac backups", &index).names_the_unrecorded);
    assert!(!Question::read("for the mac backups", &index).names_the_unrecorded);
}

#[test]
fn a_word_the_tables_know_is_not_read_as_another() {
    let index = Words(vec![("made", 3), ("redis", 2), ("deleted", 1)]);
    // "mode" is an everyday word, spelt right: not the index's "made".
    let question = Question::read("redis cluster mode", &index);
    let mode = question.concepts.iter().find(|c| c.word == "mode").unwrap();
    assert_eq!(mode.corrected, None, "{mode:?}");
    assert!(!mode.known);
    // Nor as a word of the tables the index holds by its synonyms ("logs", held as "log").
    let held_as_synonyms = Words(vec![("log", 2), ("power", 1)]);
    let question = Question::read("power loss", &held_as_synonyms);
    let loss = question.concepts.iter().find(|c| c.word == "loss").unwrap();
    assert_eq!(loss.corrected, None, "{loss:?}");
    // Nor a reading a question names: "rate" is not the index's "rare".
    let question = Question::read("no show rate", &Words(vec![("rare", 1), ("show", 1)]));
    let rate = question.concepts.iter().find(|c| c.word == "rate").unwrap();
    assert_eq!(rate.corrected, None, "{rate:?}");
    // A word the tables do not know still is ("mdae" → "made" is a slip away).
    let question = Question::read("redis cluster mdae", &index);
    assert!(
        question.concepts.iter().any(|c| c.corrected.is_some()),
        "{question:?}"
    );
}

#[test]
fn a_number_with_dots_is_one_word_matched_as_its_numbers_in_a_row() {
    let index = Words(vec![("ruby 3 3 6", 1), ("4", 2)]);
    let question = Question::read("ruby 3.4 yjit", &index);
    assert_eq!(question.words(), ["ruby", "3.4", "yjit"]);
    let version = &question.concepts[1];
    assert_eq!(version.terms[0].text, "3 4");
    assert!(!version.known, "no record holds 3 then 4: {version:?}");
    // Held as the index writes it, "3.3" is known; an address is one word too.
    let index = Words(vec![("ruby", 1), ("3 3", 1), ("10 0 0 9", 1)]);
    assert!(Question::read("ruby 3.3", &index).concepts[1].known);
    assert_eq!(
        Question::read("ping 10.0.0.9.", &index).words(),
        ["ping", "10.0.0.9"]
    );
}
