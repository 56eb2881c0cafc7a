//! What a greedy or careless client cannot take from the daemon: memory through large
//! batches, pipelining without reading or half-sent lines; connections through the file
//! limit, idle sockets or lines that never end. Each is tried against the real binary.

use std::time::Duration;

use lookout::client::Client;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

use crate::support::{DaemonProcess, ok};

/// The memory goal: no sequence of requests takes the daemon above this (peak RSS).
const MEMORY_GOAL_KIB: u64 = 256 * 1024;

fn status_field_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// Sends `line` and reads one reply line.
async fn exchange(stream: &mut BufReader<UnixStream>, line: &str) -> Value {
    stream.get_mut().write_all(line.as_bytes()).await.unwrap();
    stream.get_mut().write_all(b"\n").await.unwrap();
    let mut reply = String::new();
    stream.read_line(&mut reply).await.unwrap();
    serde_json::from_str(&reply).unwrap()
}

/// A batch of `count` calls of `method`, with `params` unless they are null.
fn batch_of(count: usize, method: &str, params: &Value) -> String {
    let entries: Vec<String> = (0..count)
        .map(|id| {
            let mut call = json!({"jsonrpc": "2.0", "id": id, "method": method});
            if !params.is_null() {
                call["params"] = params.clone();
            }
            call.to_string()
        })
        .collect();
    format!("[{}]", entries.join(","))
}

/// Counts the entries of a batch reply that ran, and those the one shared error says were
/// not run ("entries 70 to 399 of this batch of 400 … were not run").
fn ran_and_not_run(reply: &Value) -> (usize, usize) {
    let entries = reply
        .as_array()
        .unwrap_or_else(|| panic!("a batch reply, not {reply}"));
    let ran = entries.iter().filter(|e| e.get("result").is_some()).count();
    let not_run = entries
        .iter()
        .filter_map(|e| {
            let message = e["error"]["message"].as_str()?;
            let words: Vec<&str> = message.split_whitespace().collect();
            (e["error"]["code"] == -32004 && words.first() == Some(&"entries")).then(|| {
                let first: usize = words[1].parse().unwrap();
                let last: usize = words[3].parse().unwrap();
                last + 1 - first
            })
        })
        .sum();
    (ran, not_run)
}

/// The attacks that took the daemon to gigabytes, at once: batches whose replies are huge,
/// three clients that pipeline without reading, and 400 connections each half-sending a 1 MB
/// line. Replies are bounded, the pipelining clients stop being read, the half-sent lines
/// share one pool, a small call is still answered, and the peak RSS stays under 256 MiB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_client_can_make_the_daemon_hold_more_than_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let pid = daemon.child.id();
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    let task_id = ok(&mut client, "task_register", crate::support::deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let note = "n".repeat(32 * 1024);
    for _ in 0..70 {
        ok(
            &mut client,
            "task_update",
            json!({"task_id": task_id, "message": note}),
        )
        .await;
    }
    let baseline_kib = status_field_kib(pid, "VmRSS:");

    // No answer grows with the data: a thread of 70 notes of 32 KB asked for whole comes
    // back within its byte budget, saying how to read the rest (the 2 MiB reply cap is a
    // backstop no call reaches; see server::tests).
    let mut raw = BufReader::new(UnixStream::connect(&daemon.socket).await.unwrap());
    let whole = json!({"jsonrpc": "2.0", "id": 1, "method": "task_thread",
                       "params": {"task_id": task_id, "limit": 1000, "max_bytes": 65536}});
    let answer = exchange(&mut raw, &whole.to_string()).await;
    let bytes = answer["result"].to_string().len();
    assert!(bytes <= 65536, "{bytes} bytes");
    assert!(
        answer["result"]["message"]
            .as_str()
            .unwrap()
            .contains("page back with before"),
        "{answer}"
    );

    // A batch of 400 large reads runs until its replies reach the batch budget.
    let thread = json!({"task_id": task_id, "limit": 40, "max_bytes": 65536});
    let reply = exchange(&mut raw, &batch_of(400, "task_thread", &thread)).await;
    let (ran, not_run) = ran_and_not_run(&reply);
    // 4 MiB of replies of at most 64 KiB each: at least 64 of the 400 run, not all.
    assert!((64..=200).contains(&ran), "{ran} ran");
    assert_eq!(ran + not_run, 400);
    // 18,500 catalogue reads in one line: over the batch limit, refused whole.
    let reply = exchange(&mut raw, &batch_of(18_500, "tools.list", &Value::Null)).await;
    assert_eq!(reply["error"]["code"], -32004, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("18500 entries"),
        "{reply}"
    );
    drop(reply);

    // Three clients send large reads without ever reading a reply: the daemon stops reading
    // them, so their writes block long before 20,000 requests (1.3 GB of replies) went in.
    let request = format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": 1, "method": "task_thread", "params": thread})
    );
    let mut pipeliners = Vec::new();
    for _ in 0..3 {
        let mut stream = UnixStream::connect(&daemon.socket).await.unwrap();
        let request = request.clone();
        pipeliners.push(tokio::spawn(async move {
            let mut sent = 0;
            while sent < 20_000 {
                let write = stream.write_all(request.as_bytes());
                if tokio::time::timeout(Duration::from_secs(3), write)
                    .await
                    .is_err()
                {
                    break;
                }
                sent += 1;
            }
            (sent, stream)
        }));
    }
    // 400 connections each send 1 MB of a line that never ends.
    let mut half_senders = Vec::new();
    for _ in 0..400 {
        let mut stream = UnixStream::connect(&daemon.socket).await.unwrap();
        half_senders.push(tokio::spawn(async move {
            let chunk = vec![b' '; 64 * 1024];
            for _ in 0..16 {
                let write = stream.write_all(&chunk);
                if tokio::time::timeout(Duration::from_secs(3), write)
                    .await
                    .is_err()
                {
                    break;
                }
            }
            stream
        }));
    }
    let mut half_sent = Vec::new();
    for sender in half_senders {
        half_sent.push(sender.await.unwrap());
    }
    let mut pipelined = Vec::new();
    for pipeliner in pipeliners {
        let (sent, stream) = pipeliner.await.unwrap();
        assert!(
            sent < 20_000,
            "a client that never reads was read {sent} times"
        );
        pipelined.push(stream);
    }
    // Someone else still gets answers.
    let mut bystander = Client::connect(&daemon.socket).await.unwrap();
    let status = ok(&mut bystander, "daemon.status", json!({})).await;
    assert_eq!(status["health"], "serving", "{status}");
    let peak_kib = status_field_kib(pid, "VmHWM:");
    let now_kib = status_field_kib(pid, "VmRSS:");
    println!(
        "memory under attack: baseline RSS {baseline_kib} KiB, peak {peak_kib} KiB, now {now_kib} KiB"
    );
    assert!(
        peak_kib < MEMORY_GOAL_KIB,
        "peak RSS {peak_kib} KiB is over the goal of {MEMORY_GOAL_KIB} KiB"
    );
    drop(half_sent);
    drop(pipelined);
    ok(&mut bystander, "task_list", json!({})).await;
}

/// Reads one line from `stream`, or `None` when nothing comes within `patience` or the
/// connection is closed.
async fn line_within(stream: &mut BufReader<UnixStream>, patience: Duration) -> Option<String> {
    let mut line = String::new();
    match tokio::time::timeout(patience, stream.read_line(&mut line)).await {
        Ok(Ok(bytes)) if bytes > 0 => Some(line),
        _ => None,
    }
}

fn open_file_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .unwrap();
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

/// Started with a soft open-file limit of 64, the daemon raises it to the hard one. Under a
/// hard limit of 300 it serves 300 − 256 reserved = 44 connections and tells the next ones
/// why it closes them; idle connections are closed after the idle timeout (one that follows
/// events is kept), and a line that never ends gets an error and is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_capped_and_idle_ones_closed() {
    let raised_dir = tempfile::tempdir().unwrap();
    let raised = DaemonProcess::start_wrapped(
        raised_dir.path(),
        "",
        &["prlimit", "--nofile=64:2048", "--"],
    );
    assert_eq!(open_file_limits(raised.child.id()), (2048, 2048));
    drop(raised);

    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start_wrapped(
        dir.path(),
        "[connections]\nidle_timeout_s = 2\nline_timeout_s = 2\n",
        &["prlimit", "--nofile=300:300", "--"],
    );
    // The readiness probe's connection holds a slot until the server reads its end: let a
    // round trip through the daemon and a moment pass, so the count below starts from zero.
    let mut client = Client::connect(&daemon.socket).await.unwrap();
    client
        .call("daemon.status", json!({}))
        .await
        .unwrap()
        .unwrap();
    drop(client);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut connections = Vec::new();
    for _ in 0..60 {
        connections.push(BufReader::new(
            UnixStream::connect(&daemon.socket).await.unwrap(),
        ));
    }
    let mut refused = 0;
    for connection in &mut connections {
        if let Some(line) = line_within(connection, Duration::from_millis(300)).await {
            assert!(line.contains("too many connections"), "{line}");
            assert!(line.contains("max_connections"), "{line}");
            refused += 1;
        }
    }
    assert_eq!(refused, 60 - 44);
    assert!(
        daemon
            .log_text()
            .contains("fewer connections than max_connections"),
        "{}",
        daemon.log_text()
    );
    drop(connections);

    // A subscriber outlives the idle timeout; a silent connection does not.
    let mut subscriber = BufReader::new(UnixStream::connect(&daemon.socket).await.unwrap());
    let subscribed = exchange(
        &mut subscriber,
        r#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#,
    )
    .await;
    assert_eq!(subscribed["result"]["subscribed"], true, "{subscribed}");
    let mut silent = BufReader::new(UnixStream::connect(&daemon.socket).await.unwrap());
    let mut half = BufReader::new(UnixStream::connect(&daemon.socket).await.unwrap());
    half.get_mut()
        .write_all(br#"{"jsonrpc":"2.0","id":1,"method":"#)
        .await
        .unwrap();
    let cut_off = line_within(&mut half, Duration::from_secs(10)).await;
    let cut_off = cut_off.expect("an error for the line that never ended");
    assert!(cut_off.contains("did not end within 2s"), "{cut_off}");
    assert_eq!(line_within(&mut half, Duration::from_secs(5)).await, None);
    let mut probe = String::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), silent.read_line(&mut probe))
        .await
        .expect("the silent connection is closed after the idle timeout")
        .unwrap();
    assert_eq!(closed, 0, "closed without a word: {probe}");
    let status = exchange(
        &mut subscriber,
        r#"{"jsonrpc":"2.0","id":2,"method":"daemon.status"}"#,
    )
    .await;
    assert_eq!(status["id"], 2, "{status}");
    assert!(!daemon.log_text().contains("accepting a connection failed"));
}

/// A bystander's `daemon.status` on a fresh connection, and how long it took.
async fn bystander_status(socket: &std::path::Path) -> (Value, Duration) {
    let asked = std::time::Instant::now();
    let mut bystander = Client::connect(socket).await.unwrap();
    let status = tokio::time::timeout(
        Duration::from_secs(10),
        ok(&mut bystander, "daemon.status", json!({})),
    )
    .await
    .expect("a bystander is answered while others attack");
    (status, asked.elapsed())
}

/// The attacks that built replies before budgeting them, together: four clients each send a
/// 1 MiB batch of non-objects, one a 400 KB batch of them, and 500 connections each send a
/// 649-byte batch of catalogue reads and never read. Each batch of non-objects is answered
/// with a few errors and one shared one (a small reply), the 500 hold one reply each at most,
/// a bystander is answered, the peak RSS stays under 256 MiB, and memory comes back once
/// the attackers leave. (The bystander's latency is printed, not asserted: `cargo bench
/// --bench socket` measures it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_clients_together_cannot_starve_a_bystander_or_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = DaemonProcess::start(dir.path());
    let pid = daemon.child.id();
    let (_, _) = bystander_status(&daemon.socket).await;
    let baseline_kib = status_field_kib(pid, "VmRSS:");

    let ones = |bytes: usize| format!("[{}1]", "1,".repeat(bytes / 2 - 1));
    let mut flooders = Vec::new();
    for bytes in [1_000_000, 1_000_000, 1_000_000, 1_000_000, 400_000] {
        let socket = daemon.socket.clone();
        let line = ones(bytes);
        flooders.push(tokio::spawn(async move {
            let mut stream = BufReader::new(UnixStream::connect(&socket).await.unwrap());
            let reply = exchange(&mut stream, &line).await;
            (reply.to_string().len(), reply)
        }));
    }
    let catalogue = batch_of(13, "tools.list", &Value::Null);
    assert!(catalogue.len() < 700, "{}", catalogue.len());
    let mut silent = Vec::new();
    for _ in 0..500 {
        let mut stream = UnixStream::connect(&daemon.socket).await.unwrap();
        stream
            .write_all(format!("{catalogue}\n{catalogue}\n").as_bytes())
            .await
            .unwrap();
        silent.push(stream);
    }
    for flooder in flooders {
        let (bytes, reply) = flooder.await.unwrap();
        assert!(
            bytes < 16 * 1024,
            "a {bytes}-byte reply to a batch of non-objects"
        );
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("over the limit of 1000"), "{reply}");
    }
    // Under the limit, non-objects share one error past the first eight.
    let mut stream = BufReader::new(UnixStream::connect(&daemon.socket).await.unwrap());
    let reply = exchange(&mut stream, &ones(2_000)).await;
    let entries = reply.as_array().unwrap();
    assert_eq!(entries.len(), 9, "{reply}");
    assert!(
        entries[8]["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("and 992 more entries"),
        "{reply}"
    );

    let (status, took) = bystander_status(&daemon.socket).await;
    assert_eq!(status["health"], "serving", "{status}");
    let peak_kib = status_field_kib(pid, "VmHWM:");
    let under_attack_kib = status_field_kib(pid, "VmRSS:");
    drop(silent);
    drop(stream);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (_, after) = bystander_status(&daemon.socket).await;
    let after_kib = status_field_kib(pid, "VmRSS:");
    println!(
        "hostile clients: baseline RSS {baseline_kib} KiB, peak {peak_kib} KiB, under attack \
         {under_attack_kib} KiB, 3 s after {after_kib} KiB; bystander answered in {} ms \
         under attack, {} ms after",
        took.as_millis(),
        after.as_millis()
    );
    assert!(
        peak_kib < MEMORY_GOAL_KIB,
        "peak RSS {peak_kib} KiB is over the goal of {MEMORY_GOAL_KIB} KiB"
    );
    assert!(
        after_kib < baseline_kib + 64 * 1024,
        "{after_kib} KiB 3 s after the attack, from {baseline_kib} KiB before"
    );
}
