//! How good recall's answers are, not how fast: a committed history (tasks, terminal
//! sessions, woken waits) and questions an agent would ask later — paraphrases, typos,
//! synonyms and questions nothing answers — each with the document that answers it.
//! Prints top-1 and top-3 (the answer first, among the first three, weak results not
//! counted), the share shown first and shown at all (weak ones counted: raw FTS5 marks
//! nothing weak, so there they are its top-1 and top-3) and the no-answer rate (a question nothing
//! answers gets no result, or only weak ones), for `memory_recall`'s search and, side by
//! side on the same index, for a raw FTS5 query of the question's words (any of them, BM25
//! with the title weighted 5×); then every history pooled.
//!
//! `cargo bench --bench recall_quality` runs `benches/recall-quality/history.json` (what
//! the ranking was tuned on) and `held-out.json` (written before looking at the results);
//! `-- --verbose` lists every miss.

use std::path::Path;

use recall::RecallStore;
use recall::quality::{History, Score, score};

/// Scores one history, prints its lines, and returns memory_recall's score and raw FTS5's.
fn run(file: &Path, verbose: bool) -> (Score, Score) {
    let history = History::parse(&std::fs::read_to_string(file).expect("the history file"));
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("recall.sqlite");
    let mut store = RecallStore::open(&path).expect("the index");
    store.put(&history.documents).expect("indexed");
    let recalled = score(&store, &history);

    let raw = rusqlite::Connection::open(&path).expect("the index, read raw");
    let mut statement = raw
        .prepare(
            "SELECT doc.key FROM doc_fts JOIN doc ON doc.id = doc_fts.rowid
             WHERE doc_fts MATCH ?1 ORDER BY bm25(doc_fts, 5.0, 1.0) LIMIT 3",
        )
        .expect("the raw query");
    let mut baseline = Score::default();
    for (question, answer) in &history.questions {
        let keys: Vec<(String, bool)> = match recall::match_expression(question) {
            Some(expression) => statement
                .query_map([expression], |row| row.get::<_, String>(0))
                .expect("queried")
                .map(|key| (key.expect("a key"), false))
                .collect(),
            None => Vec::new(),
        };
        baseline.add(question, answer.as_deref(), &keys);
    }
    println!("{}", file.display());
    println!("  {:<22}{}", "memory_recall", recalled.line());
    println!("  {:<22}{}", "raw FTS5 (any word)", baseline.line());
    if verbose {
        for miss in &recalled.misses {
            println!("    miss: {miss}");
        }
    }
    (recalled, baseline)
}

fn main() {
    let verbose = std::env::args().any(|arg| arg == "--verbose");
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/recall-quality");
    let mut every = (Score::default(), Score::default());
    for file in [
        "history.json",
        "held-out.json",
        "unseen.json",
        "blind.json",
        "fresh.json",
        "later.json",
        "seventh.json",
        "eighth.json",
        "ninth.json",
        "tenth.json",
        "eleventh.json",
        "twelfth.json",
        "thirteenth.json",
        "fourteenth.json",
        "fifteenth.json",
        "sixteenth.json",
        "seventeenth.json",
        "eighteenth.json",
        "nineteenth.json",
        "twentieth.json",
        "twenty-first.json",
        "twenty-second.json",
        "twenty-third.json",
        "twenty-fourth.json",
        "twenty-fifth.json",
        "twenty-sixth.json",
        "twenty-seventh.json",
        "twenty-eighth.json",
        "twenty-ninth.json",
        "thirtieth.json",
        "thirty-first.json",
        "thirty-second.json",
        "thirty-third.json",
        "thirty-fourth.json",
        "thirty-fifth.json",
        "thirty-sixth.json",
        "thirty-seventh.json",
        "thirty-eighth.json",
        "thirty-ninth.json",
        "fortieth.json",
        "forty-first.json",
        "forty-second.json",
        "forty-third.json",
        "forty-fourth.json",
        "forty-fifth.json",
        "forty-sixth.json",
        "forty-seventh.json",
        "forty-eighth.json",
        "forty-ninth.json",
        "fiftieth.json",
        "fifty-first.json",
        "fifty-second.json",
        "fifty-third.json",
        "fifty-fourth.json",
        "fifty-fifth.json",
        "fifty-sixth.json",
        "fifty-seventh.json",
        "fifty-eighth.json",
        "fifty-ninth.json",
        "sixtieth.json",
        "sixty-first.json",
        "sixty-second.json",
        "sixty-third.json",
        "sixty-fourth.json",
        "sixty-fifth.json",
        "sixty-sixth.json",
        "sixty-seventh.json",
        "sixty-eighth.json",
        "sixty-ninth.json",
        "seventieth.json",
        "seventy-first.json",
        "seventy-second.json",
        "seventy-third.json",
        "seventy-fourth.json",
        "seventy-fifth.json",
        "seventy-sixth.json",
        "seventy-seventh.json",
        "seventy-eighth.json",
        "seventy-ninth.json",
        "eightieth.json",
        "eighty-first.json",
        "eighty-second.json",
        "eighty-third.json",
        "eighty-fourth.json",
        "eighty-fifth.json",
        "eighty-sixth.json",
        "eighty-seventh.json",
        "eighty-eighth.json",
        "eighty-ninth.json",
        "ninetieth.json",
        "ninety-first.json",
        "ninety-second.json",
        "ninety-third.json",
        "ninety-fourth.json",
        "ninety-fifth.json",
        "ninety-sixth.json",
        "ninety-seventh.json",
        "ninety-eighth.json",
        "ninety-ninth.json",
        "hundredth.json",
        "hundred-and-first.json",
        "hundred-and-second.json",
        "hundred-and-third.json",
        "hundred-and-fourth.json",
        "hundred-and-fifth.json",
        "hundred-and-sixth.json",
        "hundred-and-seventh.json",
        "hundred-and-eighth.json",
        "hundred-and-ninth.json",
        "hundred-and-tenth.json",
        "hundred-and-eleventh.json",
        "hundred-and-twelfth.json",
        "hundred-and-thirteenth.json",
        "hundred-and-fourteenth.json",
        "hundred-and-fifteenth.json",
        "hundred-and-sixteenth.json",
        "hundred-and-seventeenth.json",
        "hundred-and-eighteenth.json",
        "hundred-and-nineteenth.json",
        "hundred-and-twentieth.json",
        "hundred-and-twenty-first.json",
        "hundred-and-twenty-second.json",
        "hundred-and-twenty-third.json",
        "hundred-and-twenty-fourth.json",
        "hundred-and-twenty-fifth.json",
        "hundred-and-twenty-sixth.json",
        "hundred-and-twenty-seventh.json",
        "hundred-and-twenty-eighth.json",
        "hundred-and-twenty-ninth.json",
        "hundred-and-thirtieth.json",
        "hundred-and-thirty-first.json",
        "hundred-and-thirty-second.json",
        "hundred-and-thirty-third.json",
        "hundred-and-thirty-fourth.json",
        "hundred-and-thirty-fifth.json",
        "hundred-and-thirty-sixth.json",
        "hundred-and-thirty-seventh.json",
        "hundred-and-thirty-eighth.json",
        "hundred-and-thirty-ninth.json",
        "hundred-and-fortieth.json",
        "hundred-and-forty-first.json",
        "hundred-and-forty-second.json",
        "hundred-and-forty-third.json",
        "hundred-and-forty-fourth.json",
        "hundred-and-forty-fifth.json",
        "hundred-and-forty-sixth.json",
        "hundred-and-forty-seventh.json",
        "hundred-and-forty-eighth.json",
        "hundred-and-forty-ninth.json",
        "hundred-and-fiftieth.json",
        "hundred-and-fifty-first.json",
        "hundred-and-fifty-second.json",
        "hundred-and-fifty-third.json",
        "hundred-and-fifty-fourth.json",
        "hundred-and-fifty-fifth.json",
        "hundred-and-fifty-sixth.json",
        "hundred-and-fifty-seventh.json",
        "hundred-and-fifty-eighth.json",
        "hundred-and-fifty-ninth.json",
        "hundred-and-sixtieth.json",
        "hundred-and-sixty-first.json",
        "hundred-and-sixty-second.json",
        "hundred-and-sixty-third.json",
        "hundred-and-sixty-fourth.json",
        "hundred-and-sixty-fifth.json",
        "hundred-and-sixty-sixth.json",
        "hundred-and-sixty-seventh.json",
        "hundred-and-sixty-eighth.json",
        "hundred-and-sixty-ninth.json",
        "hundred-and-seventieth.json",
        "hundred-and-seventy-first.json",
        "hundred-and-seventy-second.json",
        "hundred-and-seventy-third.json",
        "hundred-and-seventy-fourth.json",
        "hundred-and-seventy-fifth.json",
        "hundred-and-seventy-sixth.json",
        "hundred-and-seventy-seventh.json",
        "hundred-and-seventy-eighth.json",
        "hundred-and-seventy-ninth.json",
        "hundred-and-eightieth.json",
        "hundred-and-eighty-first.json",
        "hundred-and-eighty-second.json",
        "hundred-and-eighty-third.json",
        "hundred-and-eighty-fourth.json",
        "hundred-and-eighty-fifth.json",
        "hundred-and-eighty-sixth.json",
        "hundred-and-eighty-seventh.json",
        "hundred-and-eighty-eighth.json",
        "hundred-and-eighty-ninth.json",
        "hundred-and-ninetieth.json",
        "hundred-and-ninety-first.json",
        "hundred-and-ninety-second.json",
        "hundred-and-ninety-third.json",
        "hundred-and-ninety-fourth.json",
        "hundred-and-ninety-fifth.json",
        "hundred-and-ninety-sixth.json",
        "hundred-and-ninety-seventh.json",
        "hundred-and-ninety-eighth.json",
        "hundred-and-ninety-ninth.json",
        "two-hundredth.json",
        "two-hundred-and-first.json",
        "two-hundred-and-second.json",
        "two-hundred-and-third.json",
        "two-hundred-and-fourth.json",
        "two-hundred-and-fifth.json",
        "two-hundred-and-sixth.json",
        "two-hundred-and-seventh.json",
        "two-hundred-and-eighth.json",
        "two-hundred-and-ninth.json",
        "two-hundred-and-tenth.json",
        "two-hundred-and-eleventh.json",
        "two-hundred-and-twelfth.json",
        "two-hundred-and-thirteenth.json",
        "two-hundred-and-fourteenth.json",
        "two-hundred-and-fifteenth.json",
        "two-hundred-and-sixteenth.json",
        "two-hundred-and-seventeenth.json",
        "two-hundred-and-eighteenth.json",
        "two-hundred-and-nineteenth.json",
        "two-hundred-and-twentieth.json",
        "two-hundred-and-twenty-first.json",
        "two-hundred-and-twenty-second.json",
        "two-hundred-and-twenty-third.json",
        "two-hundred-and-twenty-fourth.json",
        "two-hundred-and-twenty-fifth.json",
        "two-hundred-and-twenty-sixth.json",
        "two-hundred-and-twenty-seventh.json",
        "two-hundred-and-twenty-eighth.json",
        "two-hundred-and-twenty-ninth.json",
        "two-hundred-and-thirtieth.json",
        "two-hundred-and-thirty-first.json",
        "two-hundred-and-thirty-second.json",
        "two-hundred-and-thirty-third.json",
        "two-hundred-and-thirty-fourth.json",
        "two-hundred-and-thirty-fifth.json",
        "two-hundred-and-thirty-sixth.json",
        "two-hundred-and-thirty-seventh.json",
        "two-hundred-and-thirty-eighth.json",
        "two-hundred-and-thirty-ninth.json",
        "two-hundred-and-fortieth.json",
        "two-hundred-and-forty-first.json",
        "two-hundred-and-forty-second.json",
        "two-hundred-and-forty-third.json",
        "two-hundred-and-forty-fourth.json",
        "two-hundred-and-forty-fifth.json",
        "two-hundred-and-forty-sixth.json",
        "two-hundred-and-forty-seventh.json",
        "two-hundred-and-forty-eighth.json",
        "two-hundred-and-forty-ninth.json",
        "two-hundred-and-fiftieth.json",
    ] {
        let (recalled, baseline) = run(&folder.join(file), verbose);
        every.0.merge(&recalled);
        every.1.merge(&baseline);
    }
    println!("every history above, pooled (what each was tuned on included)");
    println!("  {:<22}{}", "memory_recall", every.0.line());
    println!("  {:<22}{}", "raw FTS5 (any word)", every.1.line());
}
