//! What a question asks for, read off how it is framed: a figure ("how many", "which
//! version"), an outcome ("did the evictions stop?") or anything. It says where the answer
//! is likely written down: a command's output, the wait that watched, or a task. Pure.

use crate::Source;
use crate::question::lowercase_words;

/// What a question asks for, which says where its answer is likely written down.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Asks {
    /// How something was done, or anything else: a task holds it.
    #[default]
    Anything,
    /// A figure ("how many keys were evicted", "which cuda version"): a command's output.
    Figure,
    /// Whether something came to pass ("did the evictions stop"): the wait that watched it.
    Outcome,
    /// A bare phrase naming what it is about ("cuda in docker"): the task of it, before the
    /// commands and waits recorded for it.
    Topic,
}

/// "how <this>" asks for a figure. Not "how often": a frequency is a schedule a task
/// records ("springs changed every two years"), seldom a command's count.
const FIGURE_AFTER_HOW: &[&str] = &[
    "many", "much", "big", "bigger", "large", "larger", "small", "smaller", "full", "fast", "slow",
    "high", "low", "old", "far", "long", "accurate", "humid", "hot", "warm", "heavy", "loud",
    "busy", "tall",
];
/// "which/what <this>" asks for a figure a command printed: "which version", "what ip".
const FIGURE_NOUNS: &[&str] = &[
    "version",
    "versions",
    "ip",
    "address",
    "port",
    "ttl",
    "value",
    "status",
    "size",
    "count",
    "limit",
    "limits",
    "number",
    "node",
    "host",
    "server",
    "pod",
    "cipher",
    "algorithm",
    "protocol",
    "arn",
    "role",
    "account",
    "id",
    "speed",
    "throughput",
    "latency",
    "encoding",
    "charset",
    // Readings: "what was the sleep current", "what was the error rate".
    "current",
    "voltage",
    "temperature",
    "reading",
    "level",
    "usage",
    "utilisation",
    "utilization",
    "occupancy",
    "rate",
    "percentage",
    "total",
    "score",
    "average",
    "peak",
    "uptime",
    "availability",
    "median",
    "checksum",
    "share",
    "proportion",
    "fraction",
    "hash",
    // What is paid: "what rent does flat 2 pay".
    "price",
    "rent",
    "fee",
];
/// "which/what … <this>" asks for a setting or a reading a command printed: "which
/// memcache does nextcloud use", "which kernel is running", "which gpu does it see", "what
/// was the sequence at", "which issuer did it have", "what did the lookup say", "what does
/// the record point to".
const FIGURE_VERBS: &[&str] = &[
    "at", "have", "has", "had", "use", "uses", "using", "run", "runs", "running", "see", "sees",
    "show", "shows", "say", "says", "said", "return", "returns", "returned", "print", "prints",
    "printed", "point", "points", "resolve", "resolves",
];
/// A bare phrase with one of these ("pg_upgradecluster output", "redis cache hit count")
/// names what a command printed.
const OUTPUT_NOUNS: &[&str] = &["output", "outputs", "figures", "count"];
/// How a question opens when it asks one; a bare phrase ("cuda in docker") names a topic.
const ASKING: &[&str] = &[
    "how", "what", "which", "when", "where", "why", "who", "did", "does", "do", "has", "have",
    "is", "was", "were", "are", "can", "could", "should", "will", "would", "any",
];
/// "did it <this>" asks whether something came to pass.
const OUTCOME_VERBS: &[&str] = &[
    "finish",
    "finished",
    "complete",
    "completed",
    "stop",
    "stopped",
    "stay",
    "stayed",
    "succeed",
    "succeeded",
    "pass",
    "passed",
    "fail",
    "failed",
    "recover",
    "recovered",
    "go",
    "went",
    "come",
    "came",
    "end",
    "ended",
    "hold",
    "held",
    "drop",
    "dropped",
    "return",
    "returned",
    "settle",
    "settled",
    "level",
    "leveled",
    "levelled",
    "appear",
    "appeared",
    "arrive",
    "arrived",
    "work",
    "worked",
    "run",
    "ran",
    "clear",
    "cleared",
    "reach",
    "reached",
    "drain",
    "drained",
    "happen",
    "happened",
    // What a wait watched being done: "was the image pushed?"
    "push",
    "pushed",
    "deploy",
    "deployed",
    "release",
    "released",
    "publish",
    "published",
    "upload",
    "uploaded",
    "merge",
    "merged",
    "connect",
    "connected",
    "start",
    "started",
    "ship",
    "shipped",
    "verify",
    "verified",
    "ready",
    "healthy",
    // What a wait watched being decided: "did we win the contract", "was it approved".
    "win",
    "won",
    "award",
    "awarded",
    "approve",
    "approved",
    "grant",
    "granted",
];

impl Asks {
    /// Where the answer it asks for is written besides a task: a figure in a command's
    /// output, an outcome in the wait that watched or the command that checked ("are there
    /// still duplicates" of a query that printed none); nowhere else for anything.
    pub fn written_in(self) -> &'static [Source] {
        match self {
            Asks::Figure => &[Source::Terminal],
            Asks::Outcome => &[Source::Wait, Source::Terminal],
            Asks::Anything | Asks::Topic => &[],
        }
    }

    /// What `question` asks for:
    /// - a figure when it opens "how many/much/big…", or names a version, a setting in use,
    ///   what a command said or a superlative ("the slowest") with "which" or "what", or
    ///   asks "what is … now";
    /// - anything when it asks "what did I/we do …" (how something was dealt with);
    /// - an outcome when it opens "did"/"has"/"is"/"can"… and asks about a thing (not what
    ///   "I" or "we" did), says what came to pass with one of [`OUTCOME_VERBS`] (or its -ing:
    ///   "failing") or in the passive ("did it get cleaned up"), or asks whether something
    ///   "still" holds, is "back" or holds "now";
    /// - a topic when it opens with no word of [`ASKING`] (a figure when it names an output:
    ///   [`OUTPUT_NOUNS`]);
    /// - else anything.
    pub fn of(question: &str) -> Asks {
        let words: Vec<String> = lowercase_words(question).collect();
        let word = |at: usize| words.get(at).map_or("", String::as_str);
        // "how long are idempotency keys kept", "how long until couples get their photos"
        // ask for a standing duration, which a task records; "how long did the restore
        // take" or "how long is a build now" for one measured, which a command printed.
        // ("how long does a cycle take" is either: as a standing one it lost two.)
        let standing_duration = word(1) == "long"
            && matches!(word(2), "is" | "are" | "until")
            && !words.iter().any(|w| w == "now");
        if word(0) == "how" && FIGURE_AFTER_HOW.contains(&word(1)) && !standing_duration {
            return Asks::Figure;
        }
        // "what is the lcp now" asks for a reading as it stands.
        if word(0) == "what"
            && matches!(word(1), "is" | "are" | "s")
            && words.iter().any(|w| w == "now")
        {
            return Asks::Figure;
        }
        // "when did the renewal batch finish" asks for the moment a command's output or a
        // wait's recorded.
        if word(0) == "when"
            && word(1) == "did"
            && words.iter().skip(2).any(|w| names_an_outcome(w))
        {
            return Asks::Figure;
        }
        // "when was the last backup" asks for the moment a command's listing shows.
        if word(0) == "when"
            && matches!(word(1), "was" | "is")
            && word(2) == "the"
            && matches!(word(3), "last" | "latest")
        {
            return Asks::Figure;
        }
        // "what did we do about the dead email addresses" asks how something was dealt with.
        if word(0) == "what" && matches!(word(2), "i" | "we") && word(3) == "do" {
            return Asks::Anything;
        }
        // "which query was the slowest" asks which record held the figure.
        let superlative = |w: &str| w == "most" || (w.len() > 5 && w.ends_with("est"));
        if matches!(word(0), "which" | "what")
            && (words.iter())
                .any(|w| is_figure_noun(w) || FIGURE_VERBS.contains(&w.as_str()) || superlative(w))
        {
            return Asks::Figure;
        }
        // ("can't send email" states a symptom: the "t" of a contraction follows.)
        // ("any failed jobs left?" asks as "are there any …" does.)
        let yes_or_no = matches!(
            word(0),
            "did" | "does" | "do" | "has" | "have" | "is" | "was" | "were" | "are" | "can" | "any"
        ) && word(1) != "t";
        // "is it still cached?", "is the shop back up?" ask whether a state holds now: what
        // a wait watched.
        let outcome = |word: &String| {
            names_an_outcome(word) || matches!(word.as_str(), "still" | "back" | "now")
        };
        // "did the uploads get cleaned up?": something done to it, in the passive.
        let passive = words
            .windows(2)
            .any(|pair| matches!(pair[0].as_str(), "get" | "got") && pair[1].ends_with("ed"));
        // "did the volume grow?" asks what came of a thing; "did I configure …?" how it was
        // done.
        // "do patients do their exercises" asks what usually happens, which the record of
        // how it was dealt with says, not what a wait saw come to pass.
        let of_a_thing = !matches!(word(1), "i" | "we" | "you" | "they" | "it") && word(0) != "do";
        if yes_or_no && (passive || of_a_thing || words.iter().skip(1).any(outcome)) {
            return Asks::Outcome;
        }
        // "missed doses yesterday", "who is using the gpus right now": a reading of a day
        // or of the moment, which a command printed.
        let right_now = words
            .windows(2)
            .any(|pair| pair[0] == "right" && pair[1] == "now");
        if right_now || words.iter().any(|w| w == "yesterday") {
            return Asks::Figure;
        }
        // "sync error rate last week", "pm10 levels this month", "longest driving day last
        // month": a reading over a period, which a command printed.
        let over_a_period = words.windows(2).any(|pair| {
            matches!(pair[0].as_str(), "last" | "this" | "past")
                && matches!(pair[1].as_str(), "week" | "month" | "quarter" | "year")
        });
        if over_a_period && words.iter().any(|w| is_figure_noun(w) || superlative(w)) {
            return Asks::Figure;
        }
        if !ASKING.contains(&word(0)) {
            if words.iter().any(|w| OUTPUT_NOUNS.contains(&w.as_str())) {
                return Asks::Figure;
            }
            return Asks::Topic;
        }
        Asks::Anything
    }
}

/// Whether `question` asks why something was not done, or is still as it was ("why not ai
/// for x-rays", "why didn't we burst to aws", "why do we still have pay machines"): what a
/// plan decided against answers it, a cancelled task.
pub fn asks_why_not(question: &str) -> bool {
    let words: Vec<String> = lowercase_words(question).take(4).collect();
    words.first().is_some_and(|first| first == "why")
        && words.iter().skip(1).any(|word| {
            // "t" is what "didn't" leaves after its apostrophe.
            matches!(word.as_str(), "not" | "no" | "never" | "still" | "t")
                || NEGATED.contains(&word.as_str())
        })
}

/// The state `question` asks a thing is in as it stands, the word before its "now",
/// "again" or "yet" ("cold" of "is the cellar cold again?", "dry" of "is the corridor dry
/// now?"): what a wait watched answers it, in a reading (11.6°C, 57% RH) rather than the
/// word for the state.
pub fn state_asked_now(question: &str) -> Option<String> {
    let words: Vec<String> = lowercase_words(question).collect();
    if !matches!(words.first()?.as_str(), "is" | "are") {
        return None;
    }
    let at =
        (words.iter().skip(3)).position(|word| matches!(word.as_str(), "now" | "again" | "yet"))?;
    Some(words[at + 2].clone())
}

/// Auxiliaries with "not", written without the apostrophe ("didnt").
const NEGATED: &[&str] = &[
    "didnt", "dont", "doesnt", "isnt", "arent", "wasnt", "werent", "havent", "hasnt", "wont",
    "cant",
];

/// One of [`OUTCOME_VERBS`], or its form in -ing ("failing", "dropping").
fn names_an_outcome(word: &str) -> bool {
    let verb = |word: &str| OUTCOME_VERBS.contains(&word);
    verb(word)
        || word.strip_suffix("ing").is_some_and(|stem| {
            let doubled = stem.len() > 2
                && stem.as_bytes()[stem.len() - 1] == stem.as_bytes()[stem.len() - 2];
            verb(stem) || (doubled && verb(&stem[..stem.len() - 1]))
        })
}

/// One of [`FIGURE_AFTER_HOW`]: how a figure is asked for ("long" of "how long"), which the
/// record of the figure seldom says.
pub(crate) fn is_figure_adjective(word: &str) -> bool {
    FIGURE_AFTER_HOW.contains(&word)
}

/// One of [`FIGURE_NOUNS`], or its plural ("ports", "addresses").
pub(crate) fn is_figure_noun(word: &str) -> bool {
    let noun = |word: &str| FIGURE_NOUNS.contains(&word);
    noun(word)
        || word.strip_suffix('s').is_some_and(noun)
        || word.strip_suffix("es").is_some_and(noun)
}
