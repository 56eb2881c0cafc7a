//! The stuck scan: `cargo bench --bench stuck_scan`.
//!
//! Fills a real redb file with 100,000 tasks of which 10,000 are active, then times one scan
//! as the daemon runs it (the stuck-candidate index and the rule, no task record read) with
//! no task due and with 1,000 due, beside reading every task record, which is what the scan
//! would cost without the index.

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/load_average.rs"]
mod load_average;

use std::time::{Duration, Instant};

use actors::tasks::stuck::StuckPolicy;
use storage::{Mutation, Status, StatusFilter, Store, TaskId, TaskRecord, Timestamp, WriteBatch};

const TASKS: u64 = 100_000;
const ACTIVE_EVERY: u64 = 10; // 10,000 active
const RUNS: usize = 200;
const NOW_S: u64 = 2_000_000_000;

fn task(sequence: u64) -> TaskRecord {
    let active = sequence.is_multiple_of(ACTIVE_EVERY);
    // The first 1,000 active tasks have been idle an hour; the rest were updated a minute ago.
    let idle_s = if active && sequence < 1_000 * ACTIVE_EVERY {
        3_600
    } else {
        60
    };
    TaskRecord {
        id: TaskId::from_sequence(sequence),
        name: format!("benchmark task {sequence}"),
        status: if active {
            Status::Active
        } else {
            Status::Completed
        },
        metadata_json: r#"{"repo":"coursefolio"}"#.into(),
        session_key: Some("agent:main:main".into()),
        created_at: Timestamp::from_secs(NOW_S - 86_400),
        updated_at: Timestamp::from_secs(NOW_S - idle_s),
        last_seq: 12,
        ..storage::testkit::deploy_task(&["Build", "Push", "Deploy", "Verify"], &[1])
    }
}

fn time(runs: usize, mut scan: impl FnMut() -> usize) -> (Duration, Duration, usize) {
    let mut samples = Vec::with_capacity(runs);
    let mut found = 0;
    for _ in 0..runs {
        let started = Instant::now();
        found = scan();
        samples.push(started.elapsed());
    }
    samples.sort();
    (samples[runs / 2], samples[runs * 99 / 100], found)
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn main() {
    load_average::print_load_average();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = Store::open(&dir.path().join("lookout.redb")).unwrap();
    let started = Instant::now();
    for chunk in (0..TASKS).collect::<Vec<_>>().chunks(5_000) {
        let batch = WriteBatch {
            mutations: chunk.iter().map(|&n| Mutation::PutTask(task(n))).collect(),
        };
        store.apply(&[batch]).unwrap();
    }
    println!(
        "stuck scan benchmark: {TASKS} tasks, {} active, loaded in {:.1} s",
        TASKS / ACTIVE_EVERY,
        started.elapsed().as_secs_f64()
    );

    let now = Timestamp::from_secs(NOW_S);
    let cutoff = Timestamp::from_secs(NOW_S - 1);
    let quiet = StuckPolicy::default(); // 300 s: the idle-hour tasks are due
    let (p50, p99, due) = time(RUNS, || {
        store
            .stuck_candidates(cutoff, |updated_at, info| {
                quiet.is_due(now, updated_at, info)
            })
            .unwrap()
            .len()
    });
    println!(
        "one scan, {due} due (threshold 300 s): p50 {:.3} ms, p99 {:.3} ms",
        ms(p50),
        ms(p99)
    );

    let patient = StuckPolicy {
        threshold: Duration::from_secs(7_200),
        ..StuckPolicy::default()
    };
    let (quiet_p50, quiet_p99, none) = time(RUNS, || {
        store
            .stuck_candidates(cutoff, |updated_at, info| {
                patient.is_due(now, updated_at, info)
            })
            .unwrap()
            .len()
    });
    println!(
        "one scan, {none} due (threshold 2 h): p50 {:.3} ms, p99 {:.3} ms",
        ms(quiet_p50),
        ms(quiet_p99)
    );

    let (naive_p50, _, naive_due) = time(20, || {
        let page = std::hint::black_box(
            store
                .list_tasks(&StatusFilter::All, TASKS as usize)
                .unwrap(),
        );
        page.tasks
            .iter()
            .filter(|t| t.is_stuck_candidate() && quiet.is_due(now, t.updated_at, &t.stuck_info()))
            .count()
    });
    assert_eq!(naive_due, due, "both ways find the same tasks");
    println!(
        "without the index (read all {TASKS} records, apply the rule): p50 {:.1} ms, {:.0}x the indexed scan{}",
        ms(naive_p50),
        naive_p50.as_secs_f64() / p50.as_secs_f64(),
        load_average::busy_note()
    );
}
