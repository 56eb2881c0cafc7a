//! What an agent reads back about its tasks: `cargo bench --bench answers`.
//!
//! Runs the real `lookout serve` binary on a temp folder (tasks go stuck after a second idle)
//! and, for a small, a medium and a big task, prints the bytes of the answer to
//! "where am I?" and to "what tag did I push?" (by default and with `max_bytes` 65,536; and
//! whether the note naming the tag is in it), the bytes of the stuck resume packet and how many of the agent's notes it kept; then
//! the latency of both questions on the big task (sequential calls, one client).
//!
//! - small: the 5-step deploy of the protocol examples, 2 short notes;
//! - medium: 20 steps of ~120 characters, 10 notes of ~2 KB;
//! - big: 100 steps of ~480 characters, 6 notes of ~26 KB (the task the budgets issue saw
//!   answer 165,665 bytes).

// A benchmark measures: it reads the wall clock and starts the program it measures; the
// rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "support/daemon_process.rs"]
mod daemon_process;
#[path = "support/load_average.rs"]
mod load_average;

#[path = "support/rpc.rs"]
mod rpc;

use rpc::call;
use std::process::Stdio;
use std::time::{Duration, Instant};

use daemon_process::start_daemon;
use lookout::client::Client;
use serde_json::{Value, json};

const LATENCY_CALLS: usize = 300;

struct Shape {
    label: &'static str,
    steps: usize,
    step_chars: usize,
    notes: usize,
    note_chars: usize,
}

const SHAPES: [Shape; 3] = [
    Shape {
        label: "small",
        steps: 5,
        step_chars: 20,
        notes: 2,
        note_chars: 60,
    },
    Shape {
        label: "medium",
        steps: 20,
        step_chars: 120,
        notes: 10,
        note_chars: 2_000,
    },
    Shape {
        label: "big",
        steps: 100,
        step_chars: 480,
        notes: 6,
        note_chars: 26_000,
    },
];

fn text_of(prefix: &str, chars: usize) -> String {
    let filler = "checked replica lag on the secondary cluster and nothing moved; ";
    let mut text = format!("{prefix} ");
    while text.len() < chars {
        text.push_str(filler);
    }
    text.truncate(chars);
    text.trim_end().to_owned()
}

/// The note that names the tag: the filler around one sentence, in the middle.
fn tag_note(chars: usize) -> String {
    let half = text_of("Note", chars.saturating_sub(80) / 2);
    format!("{half} Tagged the image v7.3.1 and pushed it to the registry. {half}")
}

async fn register(client: &mut Client, shape: &Shape) -> String {
    let plan: Vec<String> = (1..=shape.steps)
        .map(|n| text_of(&format!("Shard {n}:"), shape.step_chars))
        .collect();
    let task = call(
        client,
        "task_register",
        json!({"name": format!("{} task", shape.label), "plan": plan}),
    )
    .await;
    let id = task["task_id"].as_str().unwrap().to_owned();
    let done: Vec<usize> = (1..=shape.steps * 2 / 5).collect();
    call(
        client,
        "task_update",
        json!({"task_id": id, "completed_steps": done}),
    )
    .await;
    for n in 0..shape.notes {
        let note = if n == shape.notes / 2 {
            tag_note(shape.note_chars)
        } else {
            text_of(&format!("Note {n}:"), shape.note_chars)
        };
        call(
            client,
            "task_update",
            json!({"task_id": id, "message": note}),
        )
        .await;
    }
    id
}

fn main() {
    load_average::print_load_average();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = start_daemon(
        dir.path(),
        "[stuck]\nthreshold_s = 1\nscan_interval_s = 1\n",
        Stdio::inherit(),
    );
    let socket = dir.path().join("lookout.sock");
    runtime.block_on(async {
        let mut listener = Client::connect(&socket).await.unwrap();
        call(&mut listener, "events.subscribe", json!({})).await;
        let mut client = Client::connect(&socket).await.unwrap();
        let mut ids = Vec::new();
        for shape in &SHAPES {
            ids.push(register(&mut client, shape).await);
        }
        println!(
            "{:<7} {:>11} {:>11} {:>15} {:>9} {:>12} {:>11}",
            "task", "where am I", "what tag", "max_bytes 64Ki", "tag found", "packet bytes", "notes kept"
        );
        let mut packets = std::collections::HashMap::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while packets.len() < ids.len() && Instant::now() < deadline {
            let event = tokio::time::timeout(Duration::from_secs(30), listener.read_json())
                .await
                .expect("a stuck alert")
                .unwrap();
            let params = &event["params"];
            if params["kind"] == "task_stuck" {
                let text = params["text"].as_str().unwrap().to_owned();
                packets.insert(params["task_id"].as_str().unwrap().to_owned(), text);
            }
        }
        for (shape, id) in SHAPES.iter().zip(&ids) {
            let whereami = call(
                &mut client,
                "task_update",
                json!({"task_id": id, "query": "where am I?"}),
            )
            .await;
            let tag = call(
                &mut client,
                "task_update",
                json!({"task_id": id, "query": "what tag did I push?"}),
            )
            .await;
            let widest = call(
                &mut client,
                "task_update",
                json!({"task_id": id, "query": "what tag did I push?", "max_bytes": 65536}),
            )
            .await;
            let found = tag["relevant_messages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["content"].as_str().unwrap().contains("v7.3.1"));
            let packet_text = &packets[id];
            let packet: Value =
                serde_json::from_str(packet_text.strip_prefix("[task_stuck_resume] ").unwrap())
                    .unwrap();
            let notes = packet["recent_messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "agent" && m["msg_type"] == "text")
                .count();
            println!(
                "{:<7} {:>11} {:>11} {:>15} {:>9} {:>12} {:>8} of {}",
                shape.label,
                whereami.to_string().len(),
                tag.to_string().len(),
                widest.to_string().len(),
                if found { "yes" } else { "NO" },
                packet_text.len(),
                notes,
                shape.notes
            );
        }

        let big = ids.last().unwrap();
        for query in ["where am I?", "what tag did I push?"] {
            let mut took = Vec::with_capacity(LATENCY_CALLS);
            for _ in 0..LATENCY_CALLS {
                let started = Instant::now();
                call(
                    &mut client,
                    "task_update",
                    json!({"task_id": big, "query": query}),
                )
                .await;
                took.push(started.elapsed());
            }
            took.sort();
            let at =
                |share: f64| took[((took.len() as f64 * share) as usize).min(took.len() - 1)];
            println!(
                "{query:?} on the big task, {LATENCY_CALLS} sequential calls: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
                at(0.50).as_secs_f64() * 1e3,
                at(0.95).as_secs_f64() * 1e3,
                took.last().unwrap().as_secs_f64() * 1e3
            );
        }
    });
    daemon.kill().unwrap();
    daemon.wait().unwrap();
}
