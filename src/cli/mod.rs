//! The `lookout` command line: `serve` runs the daemon; everything else is a client of its
//! socket.

mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value, json};

use crate::client::{Client, ClientError};
use crate::config::{Config, ConfigSource};
use crate::daemon::{self, DaemonOptions};
use crate::{logging, paths};

/// Exit code when the daemon answered with an error.
const EXIT_CALL_FAILED: u8 = 1;
/// Exit code when no daemon could be reached.
const EXIT_NO_DAEMON: u8 = 3;

#[derive(Parser)]
#[command(
    name = "lookout",
    version,
    about = "A daemon that gives LLM agents a memory for long tasks and a lookout that waits for them",
    after_help = "Start the daemon with `lookout serve`; the other commands talk to it over its socket."
)]
struct Cli {
    /// The daemon's socket [default: $XDG_RUNTIME_DIR/lookout/lookout.sock]
    #[arg(long, global = true, env = "LOOKOUT_SOCKET", value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Config file [default: $LOOKOUT_CONFIG, else ~/.config/lookout/config.toml when present]
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print the raw JSON result instead of text
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the daemon in the foreground (embedded defaults when there is no config file)
    Serve,
    /// Register, update and inspect tasks
    #[command(subcommand)]
    Task(TaskCommand),
    /// Call any method with JSON params, e.g. `lookout call task_list '{"status":"all"}'`
    Call {
        method: String,
        /// Params as a JSON object (default: {})
        params: Option<String>,
    },
    /// Show the daemon's status
    Status,
}

#[derive(Subcommand)]
enum TaskCommand {
    /// Register a task with its plan: `lookout task register "Deploy" --step Build --step Push`
    Register {
        name: String,
        /// A plan step, in order; repeat for each step
        #[arg(long = "step", required = true, value_name = "TEXT")]
        steps: Vec<String>,
        /// Metadata as a JSON object
        #[arg(long, value_name = "JSON")]
        metadata: Option<String>,
        /// Agent session to wake about this task
        #[arg(long, value_name = "KEY")]
        session_key: Option<String>,
    },
    /// Report progress, change status or plan, or ask a question
    Update {
        task_id: String,
        /// Progress note, e.g. "Step 2 done — pushed v1.2.3"
        #[arg(short, long)]
        message: Option<String>,
        /// New status: active, paused, completed, failed or cancelled
        #[arg(long)]
        status: Option<String>,
        /// A question, e.g. "what tag did I push?"
        #[arg(long)]
        query: Option<String>,
        /// Mark a step number done; repeatable
        #[arg(long = "done", value_name = "STEP")]
        done: Vec<u32>,
        /// The step number being worked on now
        #[arg(long, value_name = "STEP")]
        current: Option<u32>,
        /// A step of a replacement plan; repeat for each step
        #[arg(long = "plan-step", value_name = "TEXT")]
        plan: Vec<String>,
        /// Why the plan changed
        #[arg(long, requires = "plan")]
        reason: Option<String>,
    },
    /// Show a task's plan as a checklist with its progress
    Show { task_id: String },
    /// List tasks, most recently updated first
    List {
        /// active (default), paused, completed, failed, cancelled or all
        #[arg(long)]
        status: Option<String>,
        #[arg(long)]
        limit: Option<u32>,
    },
    /// Print a task's message thread
    Thread {
        task_id: String,
        #[arg(long)]
        limit: Option<u32>,
        /// Only messages with a seq below this
        #[arg(long)]
        before: Option<u64>,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(cli))
}

async fn run(cli: Cli) -> ExitCode {
    let loaded = Config::discover(cli.config.as_deref());
    if let Command::Serve = cli.command {
        return match loaded {
            Ok((config, source)) => serve(config, source, cli.socket).await,
            Err(error) => fail(&format!("{error:#}"), EXIT_CALL_FAILED),
        };
    }
    logging::init("warn");
    // A client only needs the socket path from the config; a broken config file should not
    // stop it from reaching a daemon at the default path.
    let config = loaded.map(|(config, _)| config).unwrap_or_default();
    let socket = cli
        .socket
        .clone()
        .unwrap_or_else(|| paths::socket_path(&config));
    let (method, params, renderer) = match request_for(cli.command) {
        Ok(request) => request,
        Err(message) => return fail(&message, 2),
    };
    call(
        &socket,
        &method,
        params,
        if cli.json { None } else { Some(renderer) },
    )
    .await
}

async fn serve(mut config: Config, source: ConfigSource, socket: Option<PathBuf>) -> ExitCode {
    logging::init(&config.log_level);
    if socket.is_some() {
        config.socket_path = socket;
    }
    match daemon::run(DaemonOptions::new(config, source)).await {
        Ok(code) => code,
        Err(error) => {
            tracing::error!("{error:#}");
            fail(&format!("{error:#}"), EXIT_CALL_FAILED)
        }
    }
}

type Renderer = fn(&Value) -> String;

/// The method, params and text renderer for a client command.
fn request_for(command: Command) -> Result<(String, Value, Renderer), String> {
    let message_only: Renderer = |result| result["message"].as_str().unwrap_or("").to_owned();
    Ok(match command {
        Command::Serve => unreachable!("serve is handled before"),
        Command::Status => ("daemon.status".into(), json!({}), render::status),
        Command::Call { method, params } => {
            let params = match params {
                Some(text) => serde_json::from_str(&text)
                    .map_err(|e| format!("params are not valid JSON: {e}"))?,
                None => json!({}),
            };
            let pretty: Renderer =
                |result| serde_json::to_string_pretty(result).unwrap_or_default();
            (method, params, pretty)
        }
        Command::Task(TaskCommand::Register {
            name,
            steps,
            metadata,
            session_key,
        }) => {
            let mut params = json!({"name": name, "plan": steps});
            if let Some(text) = metadata {
                params["metadata"] = serde_json::from_str(&text)
                    .map_err(|e| format!("--metadata is not valid JSON: {e}"))?;
            }
            if let Some(key) = session_key {
                params["session_key"] = json!(key);
            }
            ("task_register".into(), params, render::task_registered)
        }
        Command::Task(TaskCommand::Update {
            task_id,
            message,
            status,
            query,
            done,
            current,
            plan,
            reason,
        }) => {
            let mut params = Map::new();
            params.insert("task_id".into(), json!(task_id));
            let mut put = |key: &str, value: Option<Value>| {
                if let Some(value) = value {
                    params.insert(key.into(), value);
                }
            };
            put("message", message.map(Value::from));
            put("status", status.map(Value::from));
            let renderer: Renderer = if query.is_some() {
                render::task_show
            } else {
                message_only
            };
            put("query", query.map(Value::from));
            put("completed_steps", (!done.is_empty()).then(|| json!(done)));
            put("current_step", current.map(Value::from));
            put("plan", (!plan.is_empty()).then(|| json!(plan)));
            put("plan_reason", reason.map(Value::from));
            ("task_update".into(), Value::Object(params), renderer)
        }
        Command::Task(TaskCommand::Show { task_id }) => (
            "task_update".into(),
            json!({"task_id": task_id, "query": "where am I on this task?"}),
            render::task_show,
        ),
        Command::Task(TaskCommand::List { status, limit }) => {
            let mut params = json!({});
            if let Some(status) = status {
                params["status"] = json!(status);
            }
            if let Some(limit) = limit {
                params["limit"] = json!(limit);
            }
            ("task_list".into(), params, render::task_list)
        }
        Command::Task(TaskCommand::Thread {
            task_id,
            limit,
            before,
        }) => {
            let mut params = json!({"task_id": task_id});
            if let Some(limit) = limit {
                params["limit"] = json!(limit);
            }
            if let Some(before) = before {
                params["before"] = json!(before);
            }
            ("task_thread".into(), params, render::task_thread)
        }
    })
}

async fn call(socket: &Path, method: &str, params: Value, renderer: Option<Renderer>) -> ExitCode {
    let outcome = async {
        let mut client = Client::connect(socket).await?;
        client.call(method, params).await
    }
    .await;
    match outcome {
        Ok(Ok(result)) => {
            match renderer {
                Some(render) => println!("{}", render(&result)),
                None => println!(
                    "{}",
                    serde_json::to_string_pretty(&result).unwrap_or_default()
                ),
            }
            ExitCode::SUCCESS
        }
        Ok(Err(error)) => {
            eprintln!("error: {}\nhint: {}", error.message, error.hint);
            ExitCode::from(EXIT_CALL_FAILED)
        }
        Err(error @ ClientError::NoDaemon { .. }) => fail(&error.to_string(), EXIT_NO_DAEMON),
        Err(error) => fail(&error.to_string(), EXIT_CALL_FAILED),
    }
}

fn fail(message: &str, code: u8) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}
