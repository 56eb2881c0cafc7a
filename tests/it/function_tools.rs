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
