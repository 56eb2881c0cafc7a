//! The JSON-RPC envelope over the real socket: errors, batches, notifications, limits, bad
//! input and many clients.

use lookout::jsonrpc::codes;
use lookout::tools::spine::Method;
use serde_json::{Value, json};

use crate::support::{TestDaemon, deploy_task, err, ok};

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

fn hint(response: &Value) -> &str {
    response["error"]["data"]["hint"]
        .as_str()
        .unwrap_or_else(|| panic!("no hint: {response}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_lines_get_errors_and_the_connection_survives() {
    let daemon = TestDaemon::start().await;
    let mut client = daemon.client().await;
    let cases: Vec<(&[u8], i64)> = vec![
        (br#"{"jsonrpc":"2.0","id":3,"method":"#, codes::PARSE_ERROR),
        (b"not json at all", codes::PARSE_ERROR),
        (b"\xff\xfe\x00garbage", codes::PARSE_ERROR),
        (br#"{"id":1,"method":"task_list"}"#, codes::INVALID_REQUEST),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":42}"#,
            codes::INVALID_REQUEST,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"task_list","params":[1,2]}"#,
            codes::INVALID_PARAMS,
        ),
        (br#""just a string""#, codes::INVALID_REQUEST),
        (b"[]", codes::INVALID_REQUEST),
    ];
    let nested = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    for (line, expected) in cases
        .iter()
        .copied()
        .chain([(nested.as_bytes(), codes::PARSE_ERROR)])
    {
        client.send_line(line).await.unwrap();
        let response = client.read_json().await.unwrap();
        assert_eq!(
            code(&response),
            expected,
            "{}",
            String::from_utf8_lossy(line)
        );
        assert!(!hint(&response).is_empty());
    }
    // The same connection still serves requests.
    assert_eq!(
        ok(&mut client, "task_list", json!({})).await["tasks"],
        json!([])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_methods_fields_and_types_are_invalid_with_hints() {
    let daemon = TestDaemon::start().await;
    let unknown = daemon.err("task_regster", json!({})).await;
    assert_eq!(unknown.code, codes::METHOD_NOT_FOUND);
    assert!(
        unknown.hint.contains("did you mean task_register"),
        "{}",
        unknown.hint
    );

    let extra = daemon
        .err(
            "task_register",
            json!({"name": "x", "plan": ["a"], "priority": 1}),
        )
        .await;
    assert_eq!(extra.code, codes::INVALID_PARAMS);
    assert!(
        extra.message.contains("unknown field `priority`"),
        "{}",
        extra.message
    );
    assert!(
        extra
            .hint
            .contains("task_register(name: string, plan: string[]"),
        "{}",
        extra.hint
    );

    let missing = daemon.err("task_register", json!({"name": "x"})).await;
    assert!(
        missing.message.contains("missing field `plan`"),
        "{}",
        missing.message
    );
    let wrong_type = daemon
        .err("task_update", json!({"task_id": 7, "message": "x"}))
        .await;
    assert!(
        wrong_type.message.contains("invalid type"),
        "{}",
        wrong_type.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversize_request_is_refused_and_the_connection_stays_usable() {
    let daemon = TestDaemon::start_with(|config| config.max_request_bytes = 64 * 1024, None).await;
    let mut client = daemon.client().await;
    let huge = json!({"jsonrpc": "2.0", "id": 1, "method": "task_register",
                      "params": {"name": "x".repeat(200_000), "plan": ["a"]}});
    client.send_line(huge.to_string().as_bytes()).await.unwrap();
    let response = client.read_json().await.unwrap();
    assert_eq!(code(&response), codes::TOO_LARGE);
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("over the limit of 65536 bytes")
    );
    assert!(hint(&response).contains("max_request_bytes"));
    assert_eq!(
        ok(&mut client, "task_list", json!({})).await["message"],
        "No active tasks."
    );
    // Nothing of the refused request was stored.
    assert_eq!(
        ok(&mut client, "task_list", json!({"status": "all"})).await["tasks"],
        json!([])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_and_notifications() {
    let daemon = TestDaemon::start().await;
    let mut client = daemon.client().await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": "a", "method": "task_register", "params": deploy_task()},
        {"jsonrpc": "2.0", "method": "task_register", "params": deploy_task()},
        {"jsonrpc": "2.0", "id": "c", "method": "no_such_method"},
        7
    ]);
    client
        .send_line(batch.to_string().as_bytes())
        .await
        .unwrap();
    let responses = client.read_json().await.unwrap();
    let responses = responses.as_array().expect("a batch gets an array");
    assert_eq!(
        responses.len(),
        3,
        "the notification gets no entry: {responses:?}"
    );
    assert_eq!(responses[0]["id"], "a");
    assert!(
        responses[0]["result"]["task_id"]
            .as_str()
            .unwrap()
            .starts_with("t-")
    );
    assert_eq!(
        (responses[1]["id"].clone(), code(&responses[1])),
        (json!("c"), codes::METHOD_NOT_FOUND)
    );
    assert_eq!(code(&responses[2]), codes::INVALID_REQUEST);

    // A notification-only line gets no reply: the next line's answer comes first.
    let notification =
        json!({"jsonrpc": "2.0", "method": "task_register", "params": deploy_task()});
    client
        .send_line(notification.to_string().as_bytes())
        .await
        .unwrap();
    client
        .send_line(json!([notification]).to_string().as_bytes())
        .await
        .unwrap();
    let listed = ok(&mut client, "task_list", json!({})).await;
    assert_eq!(
        listed["tasks"].as_array().unwrap().len(),
        4,
        "every registration ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_vanishing_mid_request_leaves_the_daemon_unaffected() {
    let daemon = TestDaemon::start().await;
    let task_id = daemon.ok("task_register", deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for n in 0..20 {
        let mut client = daemon.client().await;
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "task_update",
                             "params": {"task_id": task_id, "message": format!("note {n}")}});
        client
            .send_line(request.to_string().as_bytes())
            .await
            .unwrap();
        drop(client);
        // A truncated request, then gone.
        let mut partial = daemon.client().await;
        partial
            .send_line(br#"{"jsonrpc":"2.0","id":1,"method":"task_upd"#)
            .await
            .unwrap();
        drop(partial);
    }
    let thread = daemon
        .ok("task_thread", json!({"task_id": task_id, "limit": 100}))
        .await;
    let notes: Vec<&str> = thread["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .filter(|c| c.starts_with("note "))
        .collect();
    // Each abandoned update was either applied whole or not at all, and each at most once.
    let unique: std::collections::BTreeSet<&&str> = notes.iter().collect();
    assert_eq!(unique.len(), notes.len());
    assert_eq!(
        daemon.ok("daemon.status", json!({})).await["health"],
        "serving"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_clients_are_all_served() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let mut clients = Vec::new();
    for _ in 0..16 {
        let socket = socket.clone();
        clients.push(tokio::spawn(async move {
            let mut client = lookout::client::Client::connect(&socket).await.unwrap();
            let task_id = ok(&mut client, "task_register", deploy_task()).await["task_id"].clone();
            for n in 0..20 {
                ok(
                    &mut client,
                    "task_update",
                    json!({"task_id": task_id, "message": format!("note {n}")}),
                )
                .await;
            }
            task_id
        }));
    }
    for handle in clients {
        let task_id = handle.await.unwrap();
        let thread = daemon
            .ok("task_thread", json!({"task_id": task_id, "limit": 100}))
            .await;
        assert_eq!(thread["messages"].as_array().unwrap().len(), 21);
    }
    // A caller is answered once its commit is durable, a moment before the Registry counts
    // the commit: the counters catch up right after.
    let mut status = json!(null);
    crate::support::wait_until(
        "the last commit is counted",
        std::time::Duration::from_secs(10),
        async || {
            status = daemon.ok("daemon.status", json!({})).await;
            status["storage"]["writes"] == 16 * 21
        },
    )
    .await;
    assert_eq!(status["storage"]["failed_writes"], 0, "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_and_daemon_status_describe_the_daemon() {
    let daemon = TestDaemon::start().await;
    let tools = daemon.ok("tools.list", json!({})).await;
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "task_register",
            "task_update",
            "task_plan_update",
            "task_list",
            "task_thread",
            "task_get",
            "memory_recall",
            "smart_wait",
            "wait_update",
            "wait_cancel",
            "wait_status",
            "term_start",
            "term_send",
            "term_read",
            "term_stop"
        ]
    );
    for tool in tools["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object");
        let description = tool["description"].as_str().unwrap();
        assert!(
            description.len() > 30 && description.ends_with('.'),
            "{description}"
        );
    }
    let status = daemon.ok("daemon.status", json!({})).await;
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(status["socket"], json!(daemon.socket()));
    assert!(
        status["data_file"]
            .as_str()
            .unwrap()
            .ends_with("data/lookout.redb")
    );
    assert_eq!(status["tasks"]["active"], 0);
    assert!(status["message"].as_str().unwrap().starts_with("lookout "));
    let refused = daemon.err("daemon.status", json!({"verbose": true})).await;
    assert_eq!(refused.code, codes::INVALID_PARAMS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_without_an_id_reach_a_waiting_client() {
    let daemon = TestDaemon::start().await;
    let mut client = daemon.client().await;
    let error = err(
        &mut client,
        "task_update",
        json!({"task_id": "t-000000", "message": "x"}),
    )
    .await;
    assert_eq!(error.code, codes::NOT_FOUND);
    assert!(error.hint.contains("task_list"), "{}", error.hint);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_deep_oversize_and_non_utf8_lines_each_get_one_error() {
    let daemon = TestDaemon::start_with(|config| config.max_request_bytes = 64 * 1024, None).await;
    let mut client = daemon.client().await;
    let valid = r#"{"jsonrpc":"2.0","id":9,"method":"task_list","params":{}}"#;
    let mut cases: Vec<(Vec<u8>, i64)> = (1..valid.len())
        .map(|cut| (valid.as_bytes()[..cut].to_vec(), codes::PARSE_ERROR))
        .collect();
    cases.extend([
        ("[".repeat(10_000).into_bytes(), codes::PARSE_ERROR),
        (r#"{"a":"#.repeat(10_000).into_bytes(), codes::PARSE_ERROR),
        (
            format!("{}{}", "[".repeat(10_000), "]".repeat(10_000)).into_bytes(),
            codes::PARSE_ERROR,
        ),
        // Invalid UTF-8 inside a string, an overlong encoding, an encoded surrogate.
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"task_list\xc3\x28\"}".to_vec(),
            codes::PARSE_ERROR,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc0\xaf\"}".to_vec(),
            codes::PARSE_ERROR,
        ),
        (b"\"\xed\xa0\x80\"".to_vec(), codes::PARSE_ERROR),
        // A lone surrogate escape and a raw control character are not JSON strings either.
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#.to_vec(),
            codes::PARSE_ERROR,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\x00b\"}".to_vec(),
            codes::PARSE_ERROR,
        ),
        // Over the limit: deep nesting and invalid UTF-8 are never even parsed.
        ("[".repeat(100_000).into_bytes(), codes::TOO_LARGE),
        (vec![0xff; 100_000], codes::TOO_LARGE),
    ]);
    for (round, (line, expected)) in cases.iter().enumerate() {
        // Each bad line, then a good call: exactly one error, then the good call's result.
        let id = 1000 + round;
        let follow_up = json!({"jsonrpc": "2.0", "id": id, "method": "task_list"});
        client.send_line(line).await.unwrap();
        client
            .send_line(follow_up.to_string().as_bytes())
            .await
            .unwrap();
        let what = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
        let response = client.read_json().await.unwrap();
        assert_eq!(code(&response), *expected, "{what}: {response}");
        assert_eq!(response["id"], Value::Null, "{what}");
        assert!(!hint(&response).is_empty());
        let answer = client.read_json().await.unwrap();
        assert_eq!(answer["id"], id, "{what}: one error, then the next answer");
        assert_eq!(answer["result"]["tasks"], json!([]), "{what}: {answer}");
    }
    assert_eq!(
        ok(&mut client, "task_list", json!({})).await["tasks"],
        json!([])
    );
}

/// What `docs/protocol.md` shows: each `→ method {params}` line and the `← {result}` line
/// after it, in order.
fn documented_calls(doc: &str) -> Vec<(String, Value, Value)> {
    let mut calls = Vec::new();
    let mut lines = doc.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(call) = line.strip_prefix("→ ") else {
            continue;
        };
        if call.starts_with('{') {
            continue; // a raw JSON-RPC envelope example, not a call by method name
        }
        let (method, params) = call.split_once(' ').unwrap();
        let result = lines
            .next()
            .and_then(|line| line.strip_prefix("← "))
            .unwrap_or_else(|| panic!("{method}: no result line after the call"));
        calls.push((
            method.to_owned(),
            serde_json::from_str(params).unwrap_or_else(|e| panic!("{method} params: {e}")),
            serde_json::from_str(result).unwrap_or_else(|e| panic!("{method} result: {e}")),
        ));
    }
    calls
}

/// One documented call as the live daemon answered it.
struct Replayed {
    method: String,
    /// The documented params with the live session's ids.
    params: Value,
    documented: Value,
    live: Value,
}

/// Runs the documented session against `daemon`, each call with the ids the live session
/// gave in place of the documented ones; the calls, and the documented ids mapped to the
/// live ones.
async fn replay(
    daemon: &TestDaemon,
    calls: &[(String, Value, Value)],
) -> (Vec<Replayed>, std::collections::HashMap<String, String>) {
    let mut ids = std::collections::HashMap::new();
    let mut replayed = Vec::new();
    for (method, params, documented) in calls {
        let params = with_live_ids(params, &ids);
        let live = daemon.ok(method, params.clone()).await;
        for field in ["task_id", "wait_id", "session_id"] {
            if let (Some(doc_id), Some(live_id)) =
                (documented[field].as_str(), live[field].as_str())
            {
                ids.insert(doc_id.to_owned(), live_id.to_owned());
            }
        }
        // The terminal example types into a program that waits for it.
        if method == "term_start" {
            tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        }
        replayed.push(Replayed {
            method: method.clone(),
            params,
            documented: documented.clone(),
            live,
        });
    }
    (replayed, ids)
}

/// Objects whose keys are names (sinks, actors, the caller's metadata), not fields.
const KEYED_BY_NAME: [&str; 3] = ["sink_states", "restarts", "metadata"];

/// Where `live` has another shape than `documented`: other fields, other nesting, another
/// type (a `null` on either side matches anything).
fn shape_differences(path: &str, documented: &Value, live: &Value, found: &mut Vec<String>) {
    match (documented, live) {
        (Value::Null, _) | (_, Value::Null) => {}
        (Value::Object(doc), Value::Object(now)) => {
            if KEYED_BY_NAME.iter().any(|name| path.ends_with(name)) {
                return;
            }
            let doc_keys: Vec<&String> = doc.keys().collect();
            let live_keys: Vec<&String> = now.keys().collect();
            if doc_keys != live_keys {
                found.push(format!(
                    "{path}: fields {doc_keys:?} documented, {live_keys:?} now"
                ));
                return;
            }
            for (key, value) in doc {
                shape_differences(&format!("{path}.{key}"), value, &now[key], found);
            }
        }
        (Value::Array(doc), Value::Array(now)) => {
            if let (Some(doc), Some(now)) = (doc.first(), now.first()) {
                shape_differences(&format!("{path}[0]"), doc, now, found);
            }
        }
        (doc, now) if std::mem::discriminant(doc) != std::mem::discriminant(now) => {
            found.push(format!("{path}: {doc} documented, {now} now"));
        }
        _ => {}
    }
}

/// Replaces the documented session's ids in `params` by the live session's.
fn with_live_ids(params: &Value, ids: &std::collections::HashMap<String, String>) -> Value {
    match params {
        Value::String(text) => Value::String(ids.get(text).cloned().unwrap_or(text.clone())),
        Value::Array(items) => Value::Array(items.iter().map(|v| with_live_ids(v, ids)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), with_live_ids(v, ids)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `docs/protocol.md` is the protocol reference: it documents every tool and daemon method,
/// and its session, replayed against the daemon (ids mapped to the live ones), gives results
/// of the documented shape, each with the fields its tool's outputSchema promises.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protocol_reference_replays_against_the_daemon() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let mut expected: Vec<&str> = Method::ALL.iter().map(|method| method.name()).collect();
    expected.sort();
    let mut headed: Vec<&str> = doc
        .lines()
        .filter_map(|line| line.strip_prefix("### `")?.strip_suffix('`'))
        .collect();
    headed.sort();
    assert_eq!(
        headed, expected,
        "docs/protocol.md must have a section per method"
    );

    let calls = documented_calls(&doc);
    let called: std::collections::BTreeSet<&str> =
        calls.iter().map(|(method, _, _)| method.as_str()).collect();
    assert_eq!(
        called,
        expected.iter().copied().collect(),
        "every method has an example"
    );
    let daemon = TestDaemon::start().await;
    let (replayed, _) = replay(&daemon, &calls).await;
    let mut differences = Vec::new();
    for call in &replayed {
        let method = &call.method;
        shape_differences(method, &call.documented, &call.live, &mut differences);
        if let Some(tool) = lookout::tools::catalogue::find(method) {
            for (field, _) in tool.output {
                assert!(
                    call.documented.get(*field).is_some(),
                    "{method}: the documented result lacks {field}, which its outputSchema requires"
                );
            }
        }
    }
    assert!(
        differences.is_empty(),
        "docs/protocol.md shows results of another shape than the daemon gives now:\n{}",
        differences.join("\n")
    );
}

/// Every method of the spine is answered on the socket: called with no params, it gives a
/// result or says what the params lack, never "unknown method"; and a name that is not in
/// the spine is refused as unknown, naming the closest one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_method_of_the_spine_is_answered_on_the_socket() {
    let daemon = TestDaemon::start().await;
    for method in Method::ALL {
        let mut client = daemon.client().await;
        match client.call(method.name(), json!({})).await.unwrap() {
            Ok(_) => {}
            Err(error) => assert_ne!(
                error.code,
                codes::METHOD_NOT_FOUND,
                "{method} is in the spine but not dispatched: {}",
                error.message
            ),
        }
    }
    let error = daemon.err("wait_statu", json!({})).await;
    assert_eq!(error.code, codes::METHOD_NOT_FOUND);
    assert!(
        error.hint.starts_with("did you mean wait_status?"),
        "{}",
        error.hint
    );
}

/// Values just past and just at one bound of a schema property: (over, at), for the bounds
/// a schema states on a number, a string or an array (of strings).
fn around_bound(keyword: &str, bound: &Value, item: &Value) -> Option<(Value, Value)> {
    let number = bound.as_f64()?;
    let count = bound.as_u64().map(|n| n as usize);
    let items = |n: usize| Value::Array(vec![item.clone(); n]);
    Some(match keyword {
        "maximum" if bound.is_u64() => (json!(number as u64 + 1), bound.clone()),
        "maximum" => (json!(number + 0.5), bound.clone()),
        "minimum" if number >= 1.0 && bound.is_u64() => (json!(number as u64 - 1), bound.clone()),
        "minimum" => (json!(number - 0.1), bound.clone()),
        "maxLength" => (json!("x".repeat(count? + 1)), json!("x".repeat(count?))),
        "minLength" if count? >= 1 => (json!(""), json!("x".repeat(count?))),
        "maxItems" => (items(count? + 1), items(count?)),
        "minItems" if count? >= 1 => (json!([]), items(count?)),
        _ => return None,
    })
}

/// Every bound the catalogue states (length, range, item count) is the daemon's: a value one
/// past it is refused as invalid or too large, and the value at it is taken. Each tool's
/// parameters start from its call in `docs/protocol.md`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bound_the_catalogue_states_is_the_daemons() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
    let calls = documented_calls(&std::fs::read_to_string(&path).unwrap());
    let daemon = TestDaemon::start().await;
    let (replayed, ids) = replay(&daemon, &calls).await;
    let base: Vec<(String, Value)> = replayed
        .into_iter()
        .map(|call| (call.method, call.params))
        .collect();
    // The wait and the session the examples end are gone; start fresh ones to bound against,
    // on a task still open (its first step standing for the step an example names).
    let mut task_id = None;
    for id in ids.values().filter(|id| id.starts_with("t-")) {
        let task = daemon.ok("task_get", json!({"task_id": id})).await;
        if task["status"] == "active" {
            task_id = Some(id.clone());
        }
    }
    let task_id = task_id.expect("the examples leave a task open");
    let wait = daemon
        .ok(
            "smart_wait",
            json!({"target": "file:/nonexistent/bounds.log", "wake_when": "'x' appears"}),
        )
        .await;
    let session = daemon
        .ok("term_start", json!({"command": "sleep 60"}))
        .await;
    let live = |params: &Value| -> Value {
        let mut params = params.clone();
        for (key, value) in [
            ("task_id", json!(task_id)),
            ("wait_id", wait["wait_id"].clone()),
            ("session_id", session["session_id"].clone()),
            ("step", json!(1)),
        ] {
            if params.get(key).is_some() {
                params[key] = value;
            }
        }
        params
    };
    let mut checked = 0;
    let mut disagreements = Vec::new();
    for tool in lookout::tools::catalogue::tools() {
        let schema = (tool.input_schema)();
        let examples: Vec<&Value> = base
            .iter()
            .filter(|(method, _)| method == tool.name())
            .map(|(_, params)| params)
            .collect();
        for (name, spec) in schema["properties"].as_object().unwrap() {
            // From the example that uses the parameter, else the first (a `max_bytes` goes
            // with a query, not with a note).
            let Some(start) = examples
                .iter()
                .find(|params| params.get(name).is_some())
                .or(examples.first())
                .copied()
            else {
                continue;
            };
            let item = start[name][0].clone();
            let item = if item.is_null() { json!("step") } else { item };
            // An array's item bounds are checked on its items, in the array.
            let places: Vec<(&Value, bool)> = vec![(spec, false), (&spec["items"], true)];
            for (place, in_items) in places {
                let Some(keywords) = place.as_object() else {
                    continue;
                };
                for (keyword, bound) in keywords {
                    let Some((over, at)) = around_bound(keyword, bound, &item) else {
                        continue;
                    };
                    let wrap = |value: Value| if in_items { json!([value]) } else { value };
                    let mut refused = live(start);
                    refused[name] = wrap(over);
                    let mut client = daemon.client().await;
                    match client.call(tool.name(), refused).await.unwrap() {
                        Err(error)
                            if error.code == codes::INVALID_PARAMS
                                || error.code == codes::TOO_LARGE => {}
                        Err(error) => disagreements.push(format!(
                            "{}.{name} {keyword} {bound}: one past it got {} ({})",
                            tool.name(),
                            error.code,
                            error.message
                        )),
                        Ok(_) => disagreements.push(format!(
                            "{}.{name} {keyword} {bound}: one past it was taken",
                            tool.name()
                        )),
                    }
                    let mut taken = live(start);
                    taken[name] = wrap(at);
                    let answer = client.call(tool.name(), taken).await.unwrap();
                    if let Err(error) = answer {
                        disagreements.push(format!(
                            "{}.{name} {keyword} {bound}: the bound itself was refused: {}",
                            tool.name(),
                            error.message
                        ));
                    }
                    checked += 1;
                }
            }
        }
    }
    println!("{checked} bounds checked");
    assert!(checked >= 25, "only {checked} bounds were checked");
    assert!(
        disagreements.is_empty(),
        "the catalogue and the daemon disagree:\n{}",
        disagreements.join("\n")
    );
}
