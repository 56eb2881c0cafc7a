//! `lookout tools --format …` and `lookout call --function-call …`: the catalogue as other
//! APIs' tools, and their tool calls run against a daemon.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::{BINARY, TestDaemon, cli, deploy_task};

fn call_item(socket: &str, item: &Value) -> (i32, Value, String) {
    let (code, out, err) = cli(&[
        "--socket",
        socket,
        "call",
        "--function-call",
        &item.to_string(),
    ]);
    let output = serde_json::from_str(&out).unwrap_or_else(|_| panic!("not JSON: {out:?} ({err})"));
    (code, output, err)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_responses_function_call_gets_a_function_call_output() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let item = json!({
        "type": "function_call", "id": "fc_1", "call_id": "call_register",
        "name": "task_register", "arguments": deploy_task().to_string()
    });
    let (code, output, err) = call_item(socket, &item);
    assert_eq!(code, 0, "{err}");
    assert_eq!(output["type"], "function_call_output");
    assert_eq!(output["call_id"], "call_register");
    let result: Value = serde_json::from_str(output["output"].as_str().unwrap()).unwrap();
    let task_id = result["task_id"].as_str().unwrap();
    assert_eq!(result["plan"].as_array().unwrap().len(), 5);
    assert_eq!(
        output.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["type", "call_id", "output"]
    );

    // A daemon error is the output, so the model sees it; the exit code says it failed.
    let bad = json!({
        "type": "function_call", "call_id": "call_bad", "name": "task_update",
        "arguments": json!({"task_id": task_id, "status": "done-ish"}).to_string()
    });
    let (code, output, err) = call_item(socket, &bad);
    assert_eq!(code, 1);
    let error: Value = serde_json::from_str(output["output"].as_str().unwrap()).unwrap();
    assert_eq!(error["error"]["code"], -32602);
    assert!(
        error["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("status must be one of")
    );
    assert!(err.contains("hint: status must be one of"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_completions_tool_call_gets_a_tool_message() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let task_id = daemon.ok("task_register", deploy_task()).await["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    daemon
        .ok(
            "task_update",
            json!({"task_id": task_id, "message": "Step 1 done"}),
        )
        .await;
    let entry = json!({
        "id": "call_q1", "type": "function",
        "function": {"name": "task_update",
                     "arguments": json!({"task_id": task_id, "query": "where am I?"}).to_string()}
    });
    let (code, output, err) = call_item(socket, &entry);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        output.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["role", "tool_call_id", "content"]
    );
    assert_eq!(output["role"], "tool");
    assert_eq!(output["tool_call_id"], "call_q1");
    let answer: Value = serde_json::from_str(output["content"].as_str().unwrap()).unwrap();
    assert!(
        answer["summary"]
            .as_str()
            .unwrap()
            .starts_with("Completed step 1 (Build Docker image)."),
        "{answer}"
    );

    // The same through stdin, for calls too large for an argument.
    let mut child = Command::new(BINARY)
        .args(["--socket", socket, "call", "--function-call", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(entry.to_string().as_bytes())
        .unwrap();
    let piped = child.wait_with_output().unwrap();
    assert!(piped.status.success());
    let output: Value = serde_json::from_slice(&piped.stdout).unwrap();
    assert_eq!(output["tool_call_id"], "call_q1");

    let unknown =
        json!({"id": "call_x", "function": {"name": "task_frobnicate", "arguments": "{}"}});
    let (code, output, _) = call_item(socket, &unknown);
    assert_eq!(code, 1);
    let error: Value = serde_json::from_str(output["content"].as_str().unwrap()).unwrap();
    assert_eq!(error["error"]["code"], -32601);
    assert!(
        error["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("task_register")
    );
}

#[test]
fn function_calls_without_a_daemon_or_in_a_bad_shape_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("nobody-home.sock");
    let socket = socket.to_str().unwrap();
    let item =
        json!({"type": "function_call", "call_id": "c1", "name": "task_list", "arguments": "{}"});
    let (code, output, _) = call_item(socket, &item);
    assert_eq!(code, 3);
    let error: Value = serde_json::from_str(output["output"].as_str().unwrap()).unwrap();
    assert!(
        error["error"]["message"].as_str().unwrap().contains(socket),
        "{error}"
    );
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("lookout serve")
    );

    let (code, out, err) = cli(&[
        "--socket",
        socket,
        "call",
        "--function-call",
        r#"{"name":"task_list"}"#,
    ]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("expected a Responses function_call item"),
        "{err}"
    );
    let (code, _, err) = cli(&["call", "--function-call", "{}", "task_list"]);
    assert_eq!(code, 2, "a METHOD and --function-call are exclusive: {err}");
    let (code, _, err) = cli(&["call"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("METHOD") || err.contains("function-call"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_prints_the_catalogue_in_each_format() {
    let daemon = TestDaemon::start().await;
    let catalogue = daemon.ok("tools.list", json!({})).await["tools"].clone();
    let names: Vec<&str> = catalogue
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    let print = |format: &str| -> Value {
        let (code, out, err) = cli(&["tools", "--format", format]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let mcp = print("mcp");
    assert_eq!(mcp["tools"], catalogue);
    let openai = print("openai");
    let openresponses = print("openresponses");
    let anthropic = print("anthropic");
    for (index, name) in names.iter().enumerate() {
        let schema = &catalogue[index]["inputSchema"];
        assert_eq!(openai[index]["function"]["name"], *name);
        assert_eq!(openai[index]["function"]["parameters"], *schema);
        assert_eq!(openresponses[index]["name"], *name);
        assert_eq!(openresponses[index]["parameters"], *schema);
        assert_eq!(anthropic[index]["name"], *name);
        assert_eq!(anthropic[index]["input_schema"], *schema);
    }
    let (code, _, err) = cli(&["tools", "--format", "gemini"]);
    assert_eq!(code, 2);
    assert!(err.contains("openresponses"), "{err}");
}

/// A tool call whose arguments cannot be read is still answered in its own API: the model
/// gets what was wrong and the signature to use; stdout is never empty when the id is known.
#[test]
fn malformed_arguments_are_answered_with_the_expected_signature() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("unused.sock");
    let socket = socket.to_str().unwrap();
    for arguments in [r#"{"task_id": "t-1", "mess"#, "not json at all", "[1, 2]"] {
        let calls = [
            json!({"type": "function_call", "call_id": "call_1", "name": "task_update", "arguments": arguments}),
            json!({"id": "call_1", "type": "function",
                   "function": {"name": "task_update", "arguments": arguments}}),
            json!({"type": "tool_use", "id": "call_1", "name": "task_update",
                   "input": serde_json::from_str::<Value>(arguments).unwrap_or(json!(arguments))}),
        ];
        for call in calls {
            let (code, output, err) = call_item(socket, &call);
            assert_eq!(code, 1, "{call}: {err}");
            let content = output["output"]
                .as_str()
                .or(output["content"].as_str())
                .unwrap_or_else(|| panic!("no output in {output}"));
            let error: Value = serde_json::from_str(content).unwrap();
            assert_eq!(error["error"]["code"], -32602, "{error}");
            let message = error["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("the arguments of task_update are not a JSON object"),
                "{message}"
            );
            let hint = error["error"]["hint"].as_str().unwrap();
            assert!(hint.contains("task_update(task_id: string"), "{hint}");
            let id = output["call_id"]
                .as_str()
                .or(output["tool_call_id"].as_str())
                .or(output["tool_use_id"].as_str());
            assert_eq!(id, Some("call_1"), "{output}");
            if call["type"] == "tool_use" {
                assert_eq!(output["is_error"], true);
            }
        }
    }
}

/// Calls shaped by the strict schemas (every parameter present, `null` for the ones not
/// meant, `metadata` as a string of JSON, `env` as pairs) work as the plain ones do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_in_the_strict_form_are_taken() {
    let daemon = TestDaemon::start().await;
    let socket = daemon.socket();
    let socket = socket.to_str().unwrap();
    let register = json!({
        "type": "function_call", "call_id": "c_reg", "name": "task_register",
        "arguments": json!({"name": "Deploy", "plan": ["Build", "Ship"],
                            "metadata": "{\"repo\": \"coursefolio\"}",
                            "session_key": null, "agent_id": null, "origin": null}).to_string()
    });
    let (code, output, err) = call_item(socket, &register);
    assert_eq!(code, 0, "{err}: {output}");
    let task: Value = serde_json::from_str(output["output"].as_str().unwrap()).unwrap();
    let task_id = task["task_id"].as_str().unwrap();
    let stored = daemon.ok("task_get", json!({"task_id": task_id})).await;
    assert_eq!(stored["metadata"]["repo"], "coursefolio", "{stored}");

    let update = json!({
        "id": "c_up", "type": "function",
        "function": {"name": "task_update", "arguments": json!({
            "task_id": task_id, "message": "Built", "query": null, "status": null, "plan": null,
            "plan_reason": null, "completed_steps": [1], "current_step": null, "max_bytes": null
        }).to_string()}
    });
    let (code, output, err) = call_item(socket, &update);
    assert_eq!(code, 0, "{err}: {output}");

    let start = json!({
        "type": "function_call", "call_id": "c_term", "name": "term_start",
        "arguments": json!({"command": "echo \"$GREETING\"", "cwd": null,
                            "env": [{"name": "GREETING", "value": "hello from a pair"}],
                            "cols": null, "rows": null}).to_string()
    });
    let (code, output, err) = call_item(socket, &start);
    assert_eq!(code, 0, "{err}: {output}");
    let session: Value = serde_json::from_str(output["output"].as_str().unwrap()).unwrap();
    let session_id = session["session_id"].as_str().unwrap().to_owned();
    crate::support::wait_until(
        "the greeting is printed",
        std::time::Duration::from_secs(20),
        async || {
            daemon
                .ok("term_read", json!({"session_id": session_id}))
                .await["screen"]
                .as_str()
                .unwrap_or("")
                .contains("hello from a pair")
        },
    )
    .await;

    // A metadata string that holds no object, and a malformed pair, say how to write them.
    let wrong = daemon
        .err(
            "task_register",
            json!({"name": "X", "plan": ["a"], "metadata": "repo=coursefolio"}),
        )
        .await;
    assert!(wrong.hint.contains("written as a string"), "{}", wrong.hint);
    let wrong = daemon
        .err(
            "term_start",
            json!({"command": "true", "env": [{"key": "A", "value": "1"}]}),
        )
        .await;
    assert!(
        wrong.hint.contains("\"name\": \"RUST_LOG\""),
        "{}",
        wrong.hint
    );
}

#[test]
fn strict_exports_mark_every_tool_and_refuse_other_formats() {
    for format in ["openai", "openresponses"] {
        for strict in [false, true] {
            let mut args = vec!["tools", "--format", format];
            if strict {
                args.push("--strict");
            }
            let (code, out, err) = cli(&args);
            assert_eq!(code, 0, "{err}");
            let tools: Value = serde_json::from_str(&out).unwrap();
            for tool in tools.as_array().unwrap() {
                let tool = if format == "openai" {
                    &tool["function"]
                } else {
                    tool
                };
                assert_eq!(tool["strict"], strict, "{tool}");
                if strict {
                    let parameters = &tool["parameters"];
                    let properties = parameters["properties"].as_object().unwrap();
                    assert_eq!(
                        parameters["required"].as_array().unwrap().len(),
                        properties.len(),
                        "{tool}"
                    );
                    assert!(!parameters.to_string().contains("oneOf"), "{tool}");
                }
            }
        }
    }
    let (code, out, err) = cli(&["tools", "--format", "anthropic", "--strict"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("--format openai"), "{err}");
}
