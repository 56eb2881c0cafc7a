//! Checked with the clients users have: the official Python SDKs (`openai`, `anthropic`, the
//! OpenAI Agents SDK, `mcp`), pinned in `tests/python/requirements.txt` and installed into a
//! venv under the target folder on first use (from the Python package registry). A machine
//! without `python3 -m venv` fails here, saying what to install; it never passes silently.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::support::{build_aside, cli};

const REQUIREMENTS: &str = include_str!("../python/requirements.txt");

/// One venv per requirements file, made once per test process.
static MADE: Mutex<Option<PathBuf>> = Mutex::new(None);

/// The venv's python, with the SDKs installed.
pub fn python() -> PathBuf {
    let mut made = MADE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(python) = made.as_ref() {
        return python.clone();
    }
    // Named by the requirements, so a changed pin makes a new venv.
    let stamp = REQUIREMENTS.bytes().fold(0u32, |hash, byte| {
        hash.wrapping_mul(31).wrapping_add(byte as u32)
    });
    let folder =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("python-sdks-{stamp:08x}"));
    let python = folder.join("bin/python");
    if !python.exists() {
        build_aside(&folder, |building| {
            let venv = Command::new("python3")
                .args(["-m", "venv"])
                .arg(building)
                .output()
                .unwrap_or_else(|error| {
                    panic!(
                        "cannot run python3 ({error}); install it: apt-get install python3 python3-venv"
                    )
                });
            assert!(
                venv.status.success(),
                "python3 -m venv failed; install python3-venv: {}",
                String::from_utf8_lossy(&venv.stderr)
            );
            let requirements = building.join("requirements.txt");
            std::fs::write(&requirements, REQUIREMENTS).unwrap();
            let pip = Command::new(building.join("bin/pip"))
                .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(&requirements)
                .output()
                .unwrap();
            assert!(
                pip.status.success(),
                "pip could not install the SDKs from the Python package registry: {}",
                String::from_utf8_lossy(&pip.stderr)
            );
        });
    }
    *made = Some(python.clone());
    python
}

/// Runs `script` (under tests/python) with `input` on stdin; its stdout as JSON.
pub fn run_python(script: &str, input: &Value) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let mut child = Command::new(python())
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        input.to_string().as_bytes(),
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{script} found problems:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{script} printed {stdout}"))
}

fn exported(format: &str, strict: bool) -> Value {
    let mut args = vec!["tools", "--format", format];
    if strict {
        args.push("--strict");
    }
    let (code, out, err) = cli(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// Every export passes the SDKs' own types (the Responses `FunctionToolParam` requires
/// `strict`), and the strict form goes through the Agents SDK's strict conversion unchanged.
#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs python3-venv and the Python package registry (the official SDKs)"
)]
fn the_function_tool_exports_pass_the_sdks_own_types() {
    let findings = run_python(
        "check_function_tools.py",
        &json!({
            "openai": exported("openai", false),
            "openai_strict": exported("openai", true),
            "openresponses": exported("openresponses", false),
            "openresponses_strict": exported("openresponses", true),
            "anthropic": exported("anthropic", false),
        }),
    );
    println!("{findings}");
    assert_eq!(
        findings["tools"],
        exported("openai", false).as_array().unwrap().len()
    );
}

/// `lookout mcp` through the official MCP Python SDK client: every tool has a title, the four
/// annotation hints and an outputSchema, and a call of each (the SDK validates every
/// successful result's structured content against its tool's outputSchema) succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs python3-venv and the Python package registry (the official SDKs)"
)]
async fn the_mcp_server_passes_the_python_sdks_checks() {
    let daemon = crate::support::TestDaemon::start().await;
    let log = daemon.dir.path().join("mcp.log");
    let input = json!({
        "binary": crate::support::BINARY,
        "socket": daemon.socket(),
        "log_file": log,
    });
    let findings = tokio::task::spawn_blocking(move || run_python("check_mcp.py", &input))
        .await
        .unwrap();
    println!("{findings}");
    assert_eq!(findings["called"], findings["tools"], "{findings}");
    assert_eq!(
        findings["read_only"],
        json!([
            "memory_recall",
            "task_get",
            "task_list",
            "task_thread",
            "term_read",
            "wait_status"
        ])
    );
    assert_eq!(
        findings["destructive"],
        json!(["term_send", "term_start", "term_stop", "wait_cancel"])
    );
}
