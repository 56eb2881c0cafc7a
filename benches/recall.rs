//! The recall index on generated history: `cargo bench --bench recall`.
//!
//! Builds `recall.sqlite` files holding one week and 30 days of history at 8 active hours a
//! day — a document every 90 s on average (window runs, tasks, terminal sessions), each with
//! a title and ~40 lines of text drawn from a Zipf-distributed vocabulary of 20,000 words —
//! then runs 300 queries of 1–3 words through `RecallStore::search` (BM25, recency re-rank,
//! the top 3) — typical ones (words past the 100 most common) and common ones (the 2,000
//! most common) — and prints the insert cost, the query latency (p50, p95, p99) and the bytes on
//! disk per day. Deterministic: the same figures' inputs every run.
//!
//! Then end to end: the real `lookout serve` holding 1,000 tasks written through its socket
//! (a plan of 5 steps, 3 notes of ~40 words each), and questions asked four ways side by
//! side, each way a question of its own drawn alike and first in turn: as `memory_recall`
//! over the socket; as `RecallStore::search` in this process (the search without the call);
//! and as a raw FTS5 query on the same `recall.sqlite` (the top 3 by BM25, read whole), on a
//! connection like the daemon's and on one whose page cache holds the whole index. Every way
//! answers 500 questions first, unmeasured, so every cache is in its steady state. Questions
//! that match and questions that match nothing, one after another and each after 64 MiB of
//! other memory traffic (cold processor caches, as after an agent's other work). Prints p50
//! and p95 of each way and the ratios of `memory_recall`'s to the raw query's (goal ≤ 1.5×).
//! Last, 4 clients ask 200 typical questions each at once, each on a thread of its own: how
//! many `memory_recall` a second the daemon answers.

// A benchmark measures: it reads the wall clock; the rules these lints enforce are for the
// daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/daemon_process.rs"]
mod daemon_process;
#[path = "support/load_average.rs"]
mod load_average;
#[path = "support/rpc.rs"]
mod rpc;

use std::process::Stdio;
use std::time::Instant;

use lookout::client::Client;
use recall::{Document, RecallStore, Search, Source, Step};
use serde_json::json;

const ACTIVE_SECONDS_PER_DAY: u64 = 8 * 3600;
const MEAN_DOCUMENT_SECONDS: u64 = 90;
const LINES_PER_DOCUMENT: usize = 40;
const WORDS_PER_LINE: usize = 8;
const VOCABULARY: usize = 20_000;
const QUERIES: usize = 300;
const DAY_MS: u64 = 24 * 3600 * 1000;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A word index, Zipf-like: rank r drawn with weight 1/r.
    fn word(&mut self) -> usize {
        let harmonic = (VOCABULARY as f64).ln() + 0.577;
        ((self.unit() * harmonic).exp() as usize).clamp(1, VOCABULARY) - 1
    }

    /// A word index past the 100 most common: what a typical question names (real text
    /// spends its most common words on words like "the").
    fn typical_word(&mut self) -> usize {
        loop {
            let index = self.word();
            if index >= 100 {
                return index;
            }
        }
    }
}

fn word(index: usize) -> String {
    // Pronounceable and distinct: base-20 digits as syllables.
    const SYLLABLES: [&str; 20] = [
        "ka", "lo", "mi", "ne", "pu", "ra", "so", "ti", "vu", "ze", "ba", "de", "fi", "go", "hu",
        "ja", "ke", "li", "mo", "nu",
    ];
    let mut n = index;
    let mut text = String::new();
    loop {
        text.push_str(SYLLABLES[n % 20]);
        n /= 20;
        if n == 0 {
            break;
        }
    }
    text
}

fn history(days: u64, now_ms: u64, rng: &mut Rng) -> Vec<Document> {
    let mut documents = Vec::new();
    for day in 0..days {
        let day_start = now_ms - (days - day) * DAY_MS;
        let mut at = 0;
        while at < ACTIVE_SECONDS_PER_DAY {
            let length = ((-rng.unit().max(1e-9).ln()) * MEAN_DOCUMENT_SECONDS as f64) as u64 + 1;
            let start_ms = day_start + at * 1000;
            let lines: Vec<String> = (0..LINES_PER_DOCUMENT)
                .map(|_| {
                    (0..WORDS_PER_LINE)
                        .map(|_| word(rng.word()))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let title = (0..4)
                .map(|_| word(rng.word()))
                .collect::<Vec<_>>()
                .join(" ");
            let n = documents.len();
            documents.push(Document {
                key: format!("doc:{n}"),
                source: [Source::Task, Source::Terminal, Source::Screen][n % 3],
                task_id: (n % 3 == 0).then(|| format!("t-{n}")),
                title,
                body: lines.join("\n"),
                start_ms,
                end_ms: start_ms + length * 1000,
                steps: lines
                    .iter()
                    .take(5)
                    .enumerate()
                    .map(|(i, line)| Step {
                        at_ms: start_ms + i as u64 * 1000,
                        text: line.clone(),
                    })
                    .collect(),
                summary: format!("document {n}"),
                app: None,
                step: None,
                frames: Vec::new(),
            });
            at += length;
        }
    }
    documents
}

/// Questions each way asks unmeasured first.
const WARM_UP_QUESTIONS: usize = 500;
/// The page cache of the raw connection that holds the whole index: more than its file.
const RAW_CACHED_KIB: i64 = 64 * 1024;

/// How the questions are put, one setting after the other in one run.
#[derive(Clone, Copy, PartialEq)]
enum Setting {
    /// One after another, every way's caches in their steady state.
    Steady,
    /// Each question after [`OTHER_WORK_BYTES`] of other memory traffic, as an agent's
    /// question comes after seconds of other work: every way starts with the processor's
    /// caches cold.
    AfterOtherWork,
}

impl Setting {
    fn heading(self) -> &'static str {
        match self {
            Setting::Steady => "one question after another:",
            Setting::AfterOtherWork => {
                "each question after 64 MiB of other memory traffic (the processor's caches cold):"
            }
        }
    }
}

/// Bytes written between questions in [`Setting::AfterOtherWork`]: more than the
/// processor's caches hold.
const OTHER_WORK_BYTES: usize = 64 << 20;

/// Touches every cache line of `buffer`: what other work leaves in the caches.
fn other_work(buffer: &mut [u8]) {
    for (index, byte) in buffer.iter_mut().enumerate().step_by(64) {
        *byte = byte.wrapping_add(index as u8);
    }
    std::hint::black_box(buffer);
}

/// Questions that match (words past the most common) and questions that match nothing.
#[derive(Clone, Copy)]
enum Kind {
    Typical,
    NoMatch,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Typical => "typical",
            Kind::NoMatch => "no match",
        }
    }

    /// The `q`th question: 1 to 3 words.
    fn question(self, rng: &mut Rng, q: usize) -> String {
        (0..1 + q % 3)
            .map(|_| match self {
                Kind::Typical => word(rng.typical_word()),
                // Syllables the vocabulary never joins this way.
                Kind::NoMatch => format!("qx{}", word(rng.word())),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The ways a question is asked.
#[derive(Clone, Copy)]
enum Way {
    /// `memory_recall` over the socket, top 3.
    Recall,
    /// `RecallStore::search` in this process: the daemon's search without the call.
    Search,
    /// A raw FTS5 query (top 3 by BM25, read whole) on a connection like the daemon's.
    Raw,
    /// The same on a connection whose page cache holds the whole index.
    RawCached,
    /// `memory_recall` of common words only, which searches nothing: what any call over
    /// the socket costs in the same setting.
    Call,
}

impl Way {
    const ALL: [Way; 5] = [
        Way::Recall,
        Way::Search,
        Way::Raw,
        Way::RawCached,
        Way::Call,
    ];
}

struct Ways<'a> {
    client: &'a mut Client,
    store: RecallStore,
    raw: rusqlite::Statement<'a>,
    raw_cached: rusqlite::Statement<'a>,
}

impl Ways<'_> {
    /// Asks `question` one way; returns how long it took, in milliseconds.
    async fn ask(&mut self, way: Way, question: String) -> f64 {
        let started = Instant::now();
        match way {
            Way::Recall | Way::Call => {
                let question = match way {
                    Way::Call => "how did I".to_owned(),
                    _ => question,
                };
                let answer = rpc::call(
                    self.client,
                    "memory_recall",
                    json!({"query": question, "limit": 3}),
                )
                .await;
                std::hint::black_box(answer);
            }
            Way::Search => {
                let found = self.store.search(&Search {
                    words: question,
                    limit: 3,
                    recency_bias: 0.2,
                    task_id: None,
                    source: None,
                    now_ms: 0,
                });
                std::hint::black_box(found.unwrap());
            }
            Way::Raw | Way::RawCached => {
                // The words as the index's own expression: each quoted, a prefix, any.
                let expression = recall::match_expression(&question).unwrap();
                let statement = match way {
                    Way::Raw => &mut self.raw,
                    _ => &mut self.raw_cached,
                };
                let rows: Vec<(String, String, String)> = statement
                    .query_map([&expression], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                    })
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                std::hint::black_box(rows);
            }
        }
        started.elapsed().as_secs_f64() * 1e3
    }
}

/// One row: each way's p50 and p95, and the ratios of recall's, the search's and the call's
/// alone to the raw query's.
fn print_times(kind: &str, mut times: [Vec<f64>; 5]) {
    for way in &mut times {
        way.sort_by(f64::total_cmp);
    }
    let [recall, search, raw, cached, call] =
        times.map(|way| (percentile(&way, 0.5), percentile(&way, 0.95)));
    println!(
        "{kind:<10} {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>6.2}× {:>6.2}× {:>6.2}× {:>6.2}× {:>6.2}×{}",
        recall.0,
        recall.1,
        search.0,
        search.1,
        raw.0,
        raw.1,
        cached.0,
        cached.1,
        call.0,
        recall.0 / raw.0,
        recall.1 / raw.1,
        recall.0 / cached.0,
        search.0 / raw.0,
        call.0 / raw.0,
        load_average::busy_note()
    );
}

fn percentile(sorted: &[f64], share: f64) -> f64 {
    sorted[((sorted.len() as f64 * share) as usize).min(sorted.len() - 1)]
}

fn main() {
    load_average::print_load_average();
    // `-- end-to-end` (or `-- index`) runs that part alone.
    let parts: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let runs = |part: &str| parts.is_empty() || parts.iter().any(|p| p == part);
    if runs("index") {
        index_alone();
    }
    if runs("end-to-end") {
        end_to_end();
    }
}

fn index_alone() {
    let now_ms = 1_771_000_000_000;
    println!("recall index on generated history (8 active h/day, a document per ~90 s)");
    println!(
        "{:<8} {:<8} {:>6} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "history",
        "queries",
        "docs",
        "insert/doc",
        "query p50",
        "query p95",
        "query p99",
        "disk per day"
    );
    for days in [7u64, 30] {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ days);
        let documents = history(days, now_ms, &mut rng);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recall.sqlite");
        let mut store = RecallStore::open(&path).unwrap();
        let started = Instant::now();
        for chunk in documents.chunks(50) {
            store.put(chunk).unwrap();
        }
        let insert_ms = started.elapsed().as_secs_f64() * 1e3 / documents.len() as f64;
        let mut rows = Vec::new();
        for (label, skip_common) in [("typical", true), ("common", false)] {
            let mut took = Vec::with_capacity(QUERIES);
            for q in 0..QUERIES {
                // Typical questions name things (the vocabulary past its 100 most common words,
                // which real text spends on words like "the"); common ones use the words that
                // fill every document.
                let words = (0..1 + q % 3)
                    .map(|_| {
                        word(if skip_common {
                            rng.typical_word()
                        } else {
                            rng.word() % 2_000
                        })
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                let search = Search {
                    words,
                    limit: 3,
                    recency_bias: 0.5,
                    task_id: None,
                    source: None,
                    now_ms,
                };
                let started = Instant::now();
                let found = store.search(&search).unwrap();
                took.push(started.elapsed().as_secs_f64() * 1e3);
                std::hint::black_box(found);
            }
            took.sort_by(f64::total_cmp);
            rows.push((label, took));
        }
        drop(store);
        let bytes: u64 = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().metadata().unwrap().len())
            .sum();
        for (label, took) in rows {
            println!(
                "{:<8} {:<8} {:>6} {:>8.2}ms {:>8.2}ms {:>8.2}ms {:>8.2}ms {:>9.2} MB",
                format!("{days} days"),
                label,
                documents.len(),
                insert_ms,
                percentile(&took, 0.50),
                percentile(&took, 0.95),
                percentile(&took, 0.99),
                bytes as f64 / days as f64 / 1e6
            );
        }
    }
}

/// Tasks the end-to-end daemon holds.
const TASKS: usize = 1_000;
/// Questions asked each way, per kind.
const END_TO_END_QUESTIONS: usize = 300;
/// Clients asking at once, each on a thread of its own, and the questions each asks.
const CONCURRENT_CLIENTS: usize = 4;
const CONCURRENT_QUESTIONS: usize = 200;

/// `memory_recall` over the socket against a raw FTS5 query on the same index, side by side.
/// The client is one connection on a single-threaded runtime, as an agent's MCP client is
/// (Node's and Python's event loops): a reply wakes the thread that reads it, not a worker
/// that then wakes it.
fn end_to_end() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = daemon_process::start_daemon(dir.path(), "", Stdio::inherit());
    let socket = dir.path().join("lookout.sock");
    let mut rng = Rng(0x5DEE_CE66_D1CE_5EED);
    let sentence = |rng: &mut Rng, words: usize| {
        (0..words)
            .map(|_| word(rng.word()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    runtime.block_on(async {
        let mut client = Client::connect(&socket).await.unwrap();
        let started = Instant::now();
        for _ in 0..TASKS {
            let plan: Vec<String> = (0..5).map(|_| sentence(&mut rng, 6)).collect();
            let task = rpc::call(
                &mut client,
                "task_register",
                json!({"name": sentence(&mut rng, 4), "plan": plan}),
            )
            .await;
            let id = task["task_id"].as_str().unwrap().to_owned();
            for _ in 0..3 {
                rpc::call(
                    &mut client,
                    "task_update",
                    json!({"task_id": id, "message": sentence(&mut rng, 40)}),
                )
                .await;
            }
        }
        // The first question indexes every task; it is not measured.
        rpc::call(&mut client, "memory_recall", json!({"query": "warm"})).await;
        println!(
            "\nend to end: {TASKS} tasks written over the socket in {:.1} s; questions asked as \
             memory_recall (socket, top 3), as the search in this process, and as a raw FTS5 \
             query (top 3 by BM25, read whole) on a connection like the daemon's and on one \
             caching the whole index, and a call that searches nothing (memory_recall of \
             common words only) in turn with them; each way answered {WARM_UP_QUESTIONS} \
             first",
            started.elapsed().as_secs_f64()
        );
        // The raw query on a connection configured as the daemon's own reader (SQLite's
        // default page cache, 2 MiB), and on one whose cache holds the whole index: the
        // engine at its best.
        let open_raw = |cache_kib: Option<i64>| {
            let raw = rusqlite::Connection::open_with_flags(
                dir.path().join("data/recall.sqlite"),
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )
            .unwrap();
            if let Some(kib) = cache_kib {
                raw.pragma_update(None, "cache_size", -kib).unwrap();
            }
            raw
        };
        let (raw, raw_cached) = (open_raw(None), open_raw(Some(RAW_CACHED_KIB)));
        let raw_query =
            "SELECT doc.title, doc.body, doc.steps FROM doc_fts JOIN doc ON doc.id = doc_fts.rowid
                 WHERE doc_fts MATCH ?1 ORDER BY rank LIMIT 3";
        let mut ways = Ways {
            client: &mut client,
            store: RecallStore::open(&dir.path().join("data/recall.sqlite")).unwrap(),
            raw: raw.prepare(raw_query).unwrap(),
            raw_cached: raw_cached.prepare(raw_query).unwrap(),
        };
        // Every way's caches reach their steady state before anything is measured: a
        // connection's page cache fills as questions read pages, and a query on a cold
        // cache reads its pages from the file (0.2 against 0.7 ms for the raw query).
        for q in 0..WARM_UP_QUESTIONS {
            for way in Way::ALL {
                let question = Kind::Typical.question(&mut rng, q);
                ways.ask(way, question).await;
            }
        }
        println!(
            "{:<10} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>7} {:>7} {:>7} {:>7} {:>7}",
            "questions",
            "recall p50",
            "p95",
            "search p50",
            "p95",
            "raw p50",
            "p95",
            "cached p50",
            "p95",
            "call p50",
            "p50 ×",
            "p95 ×",
            "cached×",
            "search×",
            "call×"
        );
        // The fixed cost of a call: a question of common words only, which searches nothing.
        let mut floor_ms = Vec::with_capacity(END_TO_END_QUESTIONS);
        for _ in 0..END_TO_END_QUESTIONS {
            floor_ms.push(ways.ask(Way::Recall, "how did I".to_owned()).await);
        }
        floor_ms.sort_by(f64::total_cmp);
        println!(
            "{:<10} {:>9.3}ms {:>9.3}ms   (a question of common words only: the call's own cost)",
            "no words",
            percentile(&floor_ms, 0.5),
            percentile(&floor_ms, 0.95)
        );
        let mut flush = vec![0u8; OTHER_WORK_BYTES];
        for setting in [Setting::Steady, Setting::AfterOtherWork] {
            println!("{}", setting.heading());
            for kind in [Kind::Typical, Kind::NoMatch] {
                let mut times: [Vec<f64>; 5] = Default::default();
                for q in 0..END_TO_END_QUESTIONS {
                    // Each way asks a question of its own, drawn alike (the same words asked
                    // just before by another way would find their pages warm), and goes
                    // at each place in the turn equally often, with every number of words.
                    for turn in 0..Way::ALL.len() {
                        let way = Way::ALL[(q / 3 + turn) % Way::ALL.len()];
                        let question = kind.question(&mut rng, q);
                        if setting == Setting::AfterOtherWork {
                            other_work(&mut flush);
                        }
                        times[way as usize].push(ways.ask(way, question).await);
                    }
                }
                print_times(kind.name(), times);
            }
        }
        // Several agents asking at once: what searches that queue behind one another (or do
        // not) make of the daemon's two cores.
        let questions: Vec<String> = (0..CONCURRENT_QUESTIONS)
            .map(|q| Kind::Typical.question(&mut rng, q))
            .collect();
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..CONCURRENT_CLIENTS {
                scope.spawn(|| {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    runtime.block_on(async {
                        let mut client = Client::connect(&socket).await.unwrap();
                        for question in &questions {
                            let answer = rpc::call(
                                &mut client,
                                "memory_recall",
                                json!({"query": question, "limit": 3}),
                            )
                            .await;
                            std::hint::black_box(answer);
                        }
                    });
                });
            }
        });
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{CONCURRENT_CLIENTS} clients at once, {CONCURRENT_QUESTIONS} typical questions each: \
             {:.2} s, {:.0} memory_recall a second{}",
            seconds,
            (CONCURRENT_CLIENTS * CONCURRENT_QUESTIONS) as f64 / seconds,
            load_average::busy_note()
        );
    });
    let _ = daemon.kill();
    let _ = daemon.wait();
}
