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
//! (a plan of 5 steps, 3 notes of ~40 words each), and each question asked twice, side by side:
//! as `memory_recall` over the socket, and as a raw FTS5 query on the same `recall.sqlite`
//! (the top 3 by BM25, read whole) — with questions that match and questions that match
//! nothing. Prints p50 and p95 of both and their ratio (goal ≤ 1.5×). Last, 4 clients ask
//! 200 typical questions each at once, each on a thread of its own: how many `memory_recall`
//! a second the daemon answers.

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
            "\nend to end: {TASKS} tasks written over the socket in {:.1} s; each question asked \
             as memory_recall (socket, top 3) and as a raw FTS5 query (top 3 by BM25, read whole)",
            started.elapsed().as_secs_f64()
        );
        let raw = rusqlite::Connection::open_with_flags(
            dir.path().join("data/recall.sqlite"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        let mut statement = raw
            .prepare(
                "SELECT doc.title, doc.body, doc.steps FROM doc_fts JOIN doc ON doc.id = doc_fts.rowid
                 WHERE doc_fts MATCH ?1 ORDER BY rank LIMIT 3",
            )
            .unwrap();
        let store = RecallStore::open(&dir.path().join("data/recall.sqlite")).unwrap();
        println!(
            "{:<10} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
            "questions",
            "recall p50",
            "recall p95",
            "search p50",
            "search p95",
            "raw FTS5 p50",
            "raw FTS5 p95",
            "p50 ×",
            "p95 ×"
        );
        // The fixed cost of a call: a question of common words only, which searches nothing.
        let mut floor_ms = Vec::with_capacity(END_TO_END_QUESTIONS);
        for _ in 0..END_TO_END_QUESTIONS {
            let started = Instant::now();
            let answer =
                rpc::call(&mut client, "memory_recall", json!({"query": "how did I"})).await;
            floor_ms.push(started.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(answer);
        }
        floor_ms.sort_by(f64::total_cmp);
        println!(
            "{:<10} {:>12.3}ms {:>12.3}ms   (a question of common words only: the call's own cost)",
            "no words",
            percentile(&floor_ms, 0.5),
            percentile(&floor_ms, 0.95)
        );
        for kind in ["typical", "no match"] {
            let mut recall_ms = Vec::with_capacity(END_TO_END_QUESTIONS);
            let mut raw_ms = Vec::with_capacity(END_TO_END_QUESTIONS);
            let mut search_ms = Vec::with_capacity(END_TO_END_QUESTIONS);
            for q in 0..END_TO_END_QUESTIONS {
                let words: Vec<String> = (0..1 + q % 3)
                    .map(|_| match kind {
                        "typical" => word(rng.typical_word()),
                        // Syllables the vocabulary never joins this way.
                        _ => format!("qx{}", word(rng.word())),
                    })
                    .collect();
                // The words as the index's own expression: each quoted, a prefix, any of them.
                let expression = recall::match_expression(&words.join(" ")).unwrap();
                // Each way goes first, second and third equally often (and with every number
                // of words): the one after another asked the same words finds the index's
                // pages warm in the processor's caches.
                for turn in 0..3 {
                    match (q / 3 + turn) % 3 {
                        0 => {
                            let started = Instant::now();
                            let rows: Vec<(String, String, String)> = statement
                                .query_map([&expression], |row| {
                                    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                                })
                                .unwrap()
                                .collect::<Result<_, _>>()
                                .unwrap();
                            raw_ms.push(started.elapsed().as_secs_f64() * 1e3);
                            std::hint::black_box(rows);
                        }
                        1 => {
                            let started = Instant::now();
                            let found = store
                                .search(&Search {
                                    words: words.join(" "),
                                    limit: 3,
                                    recency_bias: 0.2,
                                    task_id: None,
                                    source: None,
                                    now_ms: 0,
                                })
                                .unwrap();
                            search_ms.push(started.elapsed().as_secs_f64() * 1e3);
                            std::hint::black_box(found);
                        }
                        _ => {
                            let started = Instant::now();
                            let answer = rpc::call(
                                &mut client,
                                "memory_recall",
                                json!({"query": words.join(" "), "limit": 3}),
                            )
                            .await;
                            recall_ms.push(started.elapsed().as_secs_f64() * 1e3);
                            std::hint::black_box(answer);
                        }
                    }
                }
            }
            recall_ms.sort_by(f64::total_cmp);
            raw_ms.sort_by(f64::total_cmp);
            search_ms.sort_by(f64::total_cmp);
            let (search_p50, search_p95) = (percentile(&search_ms, 0.5), percentile(&search_ms, 0.95));
            let (recall_p50, recall_p95) = (percentile(&recall_ms, 0.5), percentile(&recall_ms, 0.95));
            let (raw_p50, raw_p95) = (percentile(&raw_ms, 0.5), percentile(&raw_ms, 0.95));
            println!(
                "{kind:<10} {recall_p50:>12.3}ms {recall_p95:>12.3}ms {search_p50:>12.3}ms {search_p95:>12.3}ms {raw_p50:>12.3}ms {raw_p95:>12.3}ms {:>7.1}× {:>7.1}×{}",
                recall_p50 / raw_p50,
                recall_p95 / raw_p95,
                load_average::busy_note()
            );
        }
        // Several agents asking at once: what searches that queue behind one another (or do
        // not) make of the daemon's two cores.
        let questions: Vec<String> = (0..CONCURRENT_QUESTIONS)
            .map(|q| {
                (0..1 + q % 3)
                    .map(|_| word(rng.typical_word()))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
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
