//! The `lookout` command line: `serve` runs the daemon, `mcp` bridges MCP clients to it,
//! `service` installs it as a systemd user service, `tools` prints the catalogue for other
//! APIs; everything else is a client of its socket.

mod allocator;
mod conventions;
mod doctor;
mod follow;
mod help;
mod hints;
pub mod hooks;
mod monitor;
mod render;
mod service;
mod setup;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value, json};

use crate::cli::conventions::ColorChoice;
use crate::client::{Client, ClientError};
use crate::config::{Config, ConfigSource};
use crate::config::{environment, paths};
use crate::daemon::logging;
use crate::daemon::{self, DaemonOptions};
use crate::jsonrpc::{RpcError, codes};
use crate::mcp;
use crate::systemd::{ServiceManager, activation};
use crate::tools::catalogue;
use crate::tools::export::{self, FunctionCall, ToolFormat};
use crate::tools::limits::{MAX_ANSWER_BYTES, MAX_TASK_GET_BYTES};
use crate::tools::spine::Method;

/// Exit code when the daemon answered with an error.
pub(crate) const EXIT_CALL_FAILED: u8 = 1;
/// Exit code for a usage error.
pub(crate) const EXIT_USAGE: u8 = 2;
/// Exit code when no daemon could be reached.
pub(crate) const EXIT_NO_DAEMON: u8 = 3;

#[derive(Parser)]
#[command(
    name = "lookout",
    version,
    about = "A daemon that gives LLM agents a memory for long tasks and a lookout that waits for them",
    after_help = "Start the daemon with `lookout serve`; the other commands talk to it over its socket.",
    after_long_help = help::after_long_help()
)]
struct Cli {
    /// The daemon's socket [default: $XDG_RUNTIME_DIR/lookout/lookout.sock, else
    /// lookout-$UID/lookout.sock in $TMPDIR or /tmp]
    #[arg(long, global = true, env = "LOOKOUT_SOCKET", value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Config file [default: $LOOKOUT_CONFIG, else ~/.config/lookout/config.toml when present]
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print the raw JSON result instead of text
    #[arg(long, global = true)]
    json: bool,
    /// Colour the logs: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
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
    /// Have I done this before? Search past tasks, waits, terminal sessions and screen
    /// history by keywords; `recall pause|resume|forget` control the screen history
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Recall {
        /// What to look for, in a few words: "docker push", "the migration I ran last week"
        #[arg(required = true)]
        query: Option<String>,
        /// Results to show (1-20, default 3)
        #[arg(long)]
        limit: Option<u32>,
        /// Only this task
        #[arg(long, value_name = "ID")]
        task: Option<String>,
        #[command(subcommand)]
        control: Option<RecallCommand>,
    },
    /// Call any method with JSON params, e.g. `lookout call task_list '{"status":"all"}'`,
    /// or run a model's tool call with --function-call
    Call {
        /// A method name: a tool (`task_list`) or the daemon's own (`daemon.status`)
        #[arg(required_unless_present = "function_call")]
        method: Option<String>,
        /// Params as a JSON object (default: {})
        params: Option<String>,
        /// A Responses `function_call` item, a Chat Completions `tool_calls[]` entry or an
        /// Anthropic `tool_use` block (`-` reads it from stdin); prints the matching output item
        #[arg(long, value_name = "JSON", conflicts_with_all = ["method", "params"])]
        function_call: Option<String>,
    },
    /// Show the daemon's status
    Status,
    /// Print wake events as the daemon emits them, until interrupted (`--json` for raw);
    /// reconnects when the daemon restarts
    Events {
        /// Keep printing as events happen (what `events` does; the flag is for scripts that
        /// spell it out)
        #[arg(long)]
        follow: bool,
        /// Only this task's events
        #[arg(long = "task", value_name = "ID")]
        task_id: Option<String>,
        /// Only events for this agent session
        #[arg(long = "session", value_name = "KEY")]
        session_key: Option<String>,
    },
    /// Print this agent session's wakes, one line each and nothing else on stdout; never ends
    /// on its own (waits for the daemon, reconnects, catches up). Made for Claude Code's
    /// plugin monitors, which start a turn for every line
    Monitor {
        /// Also follow wakes of tasks and waits registered with this session key (Claude
        /// Code's own session is followed without it)
        #[arg(long = "session", value_name = "KEY")]
        session_keys: Vec<String>,
    },
    /// Block until a wait ends and print its wake text. Exit code: 0 resolved, 4 changed (not
    /// judged), 5 timed out, 6 error, 7 cancelled, 8 still watching at --timeout
    Wait {
        /// The wait's id, as smart_wait returned it (`w-4hx8q2`)
        wait_id: String,
        /// Give up after this many seconds (the wait goes on)
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<u64>,
    },
    /// Print the tool catalogue as another API's tool definitions
    Tools {
        /// Whose tool definitions to print
        #[arg(long, value_enum)]
        format: ToolFormat,
        /// OpenAI strict function calling: every parameter required, optional ones nullable
        /// (openai and openresponses formats)
        #[arg(long)]
        strict: bool,
    },
    /// Serve the tools over MCP on stdin/stdout, forwarding each call to the daemon; also a
    /// Claude Code channel that pushes this session's wakes
    Mcp {
        /// Also push the wakes of tasks and waits registered with this session key
        #[arg(long = "session", value_name = "KEY")]
        session_key: Option<String>,
        /// How this session's wakes reach it: pushed by this bridge as channel messages, or
        /// printed by `lookout monitor` beside it (the Claude Code plugin)
        #[arg(long, value_enum, default_value_t = mcp::WakePath::Channel)]
        wakes: mcp::WakePath,
    },
    /// Connect an agent runtime to lookout in one step (its MCP server, instructions and wake
    /// path) and say what changed; run again, it changes nothing
    Setup {
        /// The runtime: claude-code (the plugin), openclaw, or codex
        #[arg(value_enum)]
        runtime: setup::Runtime,
        /// Take the setup back out instead
        #[arg(long)]
        undo: bool,
    },
    /// Check the database file (stop the daemon first) and copy out what can still be read
    Doctor {
        /// Where the rescue copy goes (default: next to the database, `.rescue.jsonl`)
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Install, remove or inspect the systemd user service
    #[command(subcommand)]
    Service(ServiceCommand),
    /// Hooks for agent runtimes
    #[command(subcommand)]
    Hook(HookCommand),
    /// Print the shell completion script: `lookout completions bash > /etc/bash_completion.d/lookout`
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page lookout(1), or write it and one page per command into --out
    Man {
        /// Write lookout.1 and one page per command into this folder
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum RecallCommand {
    /// Stop recording the screen, for a while (`--for 30m`, `2h`, `1d`) or until `resume`
    Pause {
        /// How long: `30m`, `2h`, `1d` (default: until `lookout recall resume`)
        #[arg(long = "for", value_name = "DURATION")]
        duration: Option<String>,
    },
    /// Record the screen again (as `[recall] mode` says)
    Resume,
    /// Remove screen segments and terminal sessions, with their keyframes, from recall
    Forget {
        /// Those of the last DURATION (`2h`, `7d`) or since a time (`2026-11-24T09:00:00Z`)
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
        /// Those of one application (its WM_CLASS, as `lookout status` shows it)
        #[arg(long, value_name = "NAME")]
        app: Option<String>,
        /// Those recorded for one task
        #[arg(long, value_name = "ID")]
        task: Option<String>,
        /// Everything recorded
        #[arg(long, conflicts_with_all = ["since", "app", "task"])]
        all: bool,
    },
}

#[derive(Subcommand)]
enum ServiceCommand {
    /// Write lookout.service to $XDG_CONFIG_HOME/systemd/user/ with this binary's path
    Install {
        /// Also run `systemctl --user daemon-reload` and `enable --now`
        #[arg(long)]
        now: bool,
        /// Also install lookout.socket, so systemd starts the daemon on the first connection
        #[arg(long)]
        socket_activation: bool,
    },
    /// Remove the unit files (with --now, disable and stop the service first)
    Uninstall {
        /// Also disable and stop the service first
        #[arg(long)]
        now: bool,
    },
    /// Show whether the unit is installed, what systemd says of it, and whether the daemon answers
    Status,
}

#[derive(Subcommand)]
enum HookCommand {
    /// Claude Code SessionStart hook: print the active tasks' summaries for a compacted
    /// session, that session's first (reads Claude Code's JSON on stdin when piped)
    SessionStart {
        /// Print at most this many bytes
        #[arg(long, default_value_t = hooks::DEFAULT_MAX_BYTES as u32,
              value_parser = clap::value_parser!(u32).range(hooks::MIN_MAX_BYTES as i64..=1_048_576))]
        max_bytes: u32,
    },
}

#[derive(Subcommand)]
enum TaskCommand {
    /// Register a task with its plan: `lookout task register "Deploy" --step Build --step Push`
    Register {
        /// The task's short name, e.g. "Deploy coursefolio"
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
        /// Print only the new task's id, for a script: `task=$(lookout task register … --print-id)`
        /// (`--json` prints the whole result instead)
        #[arg(long)]
        print_id: bool,
    },
    /// Report progress, change status or plan, or ask a question
    Update {
        /// The task's id (`t-7k2m9q`)
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
    /// Show a task whole: its plan as a checklist, metadata, plan revisions and waits
    Show {
        /// The task's id (`t-7k2m9q`)
        task_id: String,
    },
    /// List tasks, most recently updated first
    List {
        /// active (default), paused, completed, failed, cancelled or all
        #[arg(long)]
        status: Option<String>,
        /// Tasks per page (1-1000, default 10)
        #[arg(long)]
        limit: Option<u32>,
        /// Start after the previous page (its next_cursor)
        #[arg(long)]
        cursor: Option<String>,
    },
    /// Print a task's message thread
    Thread {
        /// The task's id (`t-7k2m9q`)
        task_id: String,
        /// Messages per page (1-1000, default 50)
        #[arg(long)]
        limit: Option<u32>,
        /// Only messages with a seq below this
        #[arg(long)]
        before: Option<u64>,
    },
}

/// Who `lookout mcp` speaks for: `--session`, and the Claude Code session that started it
/// (Claude Code gives its stdio MCP servers `CLAUDE_CODE_SESSION_ID` and
/// `CLAUDE_PROJECT_DIR`).
fn mcp_identity(session_key: Option<String>) -> mcp::channel::Identity {
    let session_id = environment::non_empty("CLAUDE_CODE_SESSION_ID");
    let stamped = session_id
        .as_deref()
        .map(actors::wake::event::claude_code_session_key);
    let session_keys = session_key
        .into_iter()
        .chain(session_id.clone())
        .chain(stamped)
        .collect();
    let cwd = environment::var_os("CLAUDE_PROJECT_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    mcp::channel::Identity {
        session_keys,
        session_id,
        cwd,
    }
}

/// How long the process waits, once it is done, for blocking work that is still running.
const RUNTIME_RELEASE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Serve) {
        conventions::quiet_on_closed_pipe();
    }
    match &cli.command {
        Command::Completions { shell } => {
            return match conventions::completions(*shell) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => fail(
                    &format!("cannot write the completions: {error}"),
                    EXIT_CALL_FAILED,
                ),
            };
        }
        Command::Man { out } => {
            return match conventions::man(out.as_deref()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => fail(
                    &format!("cannot write the man page: {error}"),
                    EXIT_CALL_FAILED,
                ),
            };
        }
        _ => {}
    }
    // A config named on the command line must be there: a typo would otherwise leave every
    // client command on the defaults without a word.
    if let Some(config) = &cli.config
        && !config.exists()
    {
        return fail(
            &format!(
                "--config {}: no such file; give the path of an existing config file, or leave \
                 --config out to use $LOOKOUT_CONFIG or ~/.config/lookout/config.toml",
                config.display()
            ),
            EXIT_USAGE,
        );
    }
    if let Command::Serve = cli.command {
        allocator::tune();
    }
    // A socket passed by systemd is taken now, while the process has one thread: taking it
    // edits the environment.
    let inherited_listener = match cli.command {
        Command::Serve => match activation::take_inherited_listener() {
            Ok(listener) => listener,
            Err(error) => return fail(&format!("{error:#}"), EXIT_CALL_FAILED),
        },
        _ => None,
    };
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
    let exit = runtime.block_on(run(cli, inherited_listener));
    // Work still on the runtime's blocking threads (an X11 round trip to a display that went
    // away) must not hold the process: a runtime dropped normally waits for all of it.
    runtime.shutdown_timeout(RUNTIME_RELEASE_TIMEOUT);
    exit
}

async fn run(cli: Cli, inherited_listener: Option<std::os::unix::net::UnixListener>) -> ExitCode {
    let loaded = Config::discover(cli.config.as_deref());
    let colour = cli.color.colours(
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
        environment::non_empty("NO_COLOR").is_some(),
    );
    if let Command::Serve = cli.command {
        return match loaded {
            Ok((config, source)) => {
                logging::init(config.log_level, colour);
                serve(config, source, cli.socket, inherited_listener).await
            }
            Err(error) => fail(&format!("{error:#}"), EXIT_CALL_FAILED),
        };
    }
    logging::init(crate::config::LogLevel::Warn, colour);
    if let Command::Setup { runtime, undo } = cli.command {
        return match loaded {
            Ok((config, _)) => {
                let socket = cli.socket.unwrap_or_else(|| paths::socket_path(&config));
                setup::run(runtime, undo, &paths::data_folder(&config), &socket).await
            }
            Err(error) => fail(&format!("{error:#}"), EXIT_CALL_FAILED),
        };
    }
    if let Command::Doctor { out } = cli.command {
        return match loaded {
            Ok((config, _)) => doctor::run(&paths::data_file(&config), out, cli.json),
            Err(error) => fail(&format!("{error:#}"), EXIT_CALL_FAILED),
        };
    }
    // A client only needs the socket path from the config; a broken config file should not
    // stop it from reaching a daemon at the default path.
    let config = loaded.map(|(config, _)| config).unwrap_or_default();
    let socket = cli
        .socket
        .clone()
        .unwrap_or_else(|| paths::socket_path(&config));
    let command = match cli.command {
        Command::Tools { format, strict } => {
            return match export::tool_definitions(format, strict) {
                Ok(definitions) => {
                    println!("{}", pretty(&definitions));
                    ExitCode::SUCCESS
                }
                Err(error) => fail(&error, EXIT_USAGE),
            };
        }
        Command::Mcp { session_key, wakes } => {
            return match mcp::serve_stdio(socket, mcp_identity(session_key), wakes).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => fail(&format!("{error:#}"), EXIT_CALL_FAILED),
            };
        }
        Command::Service(command) => {
            return service::run(command, &socket, cli.config.as_deref(), cli.json).await;
        }
        Command::Hook(HookCommand::SessionStart { max_bytes }) => {
            let input = hooks::SessionStartInput::from_stdin().await;
            let context = hooks::session_start(&socket, max_bytes as usize, input.as_ref()).await;
            if cli.json {
                // Claude Code's JSON hook output: the same text as additional context.
                let output = json!({"hookSpecificOutput": {
                    "hookEventName": "SessionStart", "additionalContext": context}});
                println!("{output}");
            } else {
                print!("{context}");
            }
            return ExitCode::SUCCESS;
        }
        Command::Call {
            function_call: Some(item),
            ..
        } => return function_call(&socket, &item).await,
        Command::Events {
            task_id,
            session_key,
            ..
        } => {
            let filter = follow::EventFilter {
                task_id,
                session_key,
                wait_id: None,
            };
            return follow::events(&socket, filter, cli.json).await;
        }
        Command::Monitor { session_keys } => {
            let session = monitor::MonitoredSession::new(
                session_keys,
                environment::non_empty("CLAUDE_CODE_SESSION_ID"),
            );
            return monitor::monitor(&socket, session).await;
        }
        Command::Wait { wait_id, timeout } => {
            return follow::wait(
                &socket,
                &wait_id,
                timeout.map(Duration::from_secs),
                cli.json,
            )
            .await;
        }
        other => other,
    };
    let (method, params, renderer) = match request_for(command) {
        Ok(request) => request,
        Err(message) => return fail(&message, EXIT_USAGE),
    };
    call(
        &socket,
        &method,
        params,
        if cli.json { None } else { Some(renderer) },
    )
    .await
}

async fn serve(
    mut config: Config,
    source: ConfigSource,
    socket: Option<PathBuf>,
    inherited_listener: Option<std::os::unix::net::UnixListener>,
) -> ExitCode {
    if socket.is_some() {
        config.socket_path = socket;
    }
    let mut options = DaemonOptions::new(config, source);
    options.inherited_listener = inherited_listener;
    match daemon::run(options, ServiceManager::from_env()).await {
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
        Command::Serve
        | Command::Doctor { .. }
        | Command::Setup { .. }
        | Command::Tools { .. }
        | Command::Completions { .. }
        | Command::Man { .. }
        | Command::Mcp { .. }
        | Command::Service(_)
        | Command::Hook(_)
        | Command::Events { .. }
        | Command::Monitor { .. }
        | Command::Wait { .. }
        | Command::Call {
            function_call: Some(_),
            ..
        } => unreachable!("handled before: not a plain method call"),
        Command::Status => (
            Method::DaemonStatus.name().into(),
            json!({}),
            render::status,
        ),
        Command::Recall {
            control: Some(control),
            ..
        } => match control {
            RecallCommand::Pause { duration } => {
                let params = match duration {
                    Some(duration) => json!({"for": duration}),
                    None => json!({}),
                };
                (Method::RecallPause.name().into(), params, message_only)
            }
            RecallCommand::Resume => (Method::RecallResume.name().into(), json!({}), message_only),
            RecallCommand::Forget {
                since,
                app,
                task,
                all,
            } => {
                let mut params = json!({});
                if let Some(since) = since {
                    params["since"] = json!(since);
                }
                if let Some(app) = app {
                    params["app"] = json!(app);
                }
                if let Some(task) = task {
                    params["task_id"] = json!(task);
                }
                if all {
                    params["all"] = json!(true);
                }
                (Method::RecallForget.name().into(), params, message_only)
            }
        },
        Command::Recall {
            query,
            limit,
            task,
            control: None,
        } => {
            let mut params = json!({"query": query.unwrap_or_default()});
            if let Some(limit) = limit {
                params["limit"] = json!(limit);
            }
            if let Some(task) = task {
                params["task_id"] = json!(task);
            }
            (Method::MemoryRecall.name().into(), params, render::recalled)
        }
        Command::Call {
            method: Some(method),
            params,
            function_call: None,
        } => {
            let params = match params {
                Some(text) => serde_json::from_str(&text)
                    .map_err(|e| format!("params are not valid JSON: {e}"))?,
                None => json!({}),
            };
            (method, params, pretty as Renderer)
        }
        Command::Call { method: None, .. } => {
            return Err("name a METHOD, or pass --function-call JSON".into());
        }
        Command::Task(TaskCommand::Register {
            name,
            steps,
            metadata,
            session_key,
            print_id,
        }) => {
            let mut params = json!({"name": name, "plan": steps});
            if let Some(text) = metadata {
                params["metadata"] = serde_json::from_str(&text)
                    .map_err(|e| format!("--metadata is not valid JSON: {e}"))?;
            }
            if let Some(key) = session_key {
                params["session_key"] = json!(key);
            }
            let renderer: Renderer = if print_id {
                |result| result["task_id"].as_str().unwrap_or("").to_owned()
            } else {
                render::task_registered
            };
            (Method::TaskRegister.name().into(), params, renderer)
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
                render::task_answer
            } else {
                message_only
            };
            put("query", query.map(Value::from));
            put("completed_steps", (!done.is_empty()).then(|| json!(done)));
            put("current_step", current.map(Value::from));
            put("plan", (!plan.is_empty()).then(|| json!(plan)));
            put("plan_reason", reason.map(Value::from));
            (
                Method::TaskUpdate.name().into(),
                Value::Object(params),
                renderer,
            )
        }
        Command::Task(TaskCommand::Show { task_id }) => (
            Method::TaskGet.name().into(),
            json!({"task_id": task_id, "max_bytes": MAX_TASK_GET_BYTES}),
            render::task_show,
        ),
        Command::Task(TaskCommand::List {
            status,
            limit,
            cursor,
        }) => {
            // A person at a terminal reads more than an agent's context holds.
            let mut params = json!({"max_bytes": MAX_ANSWER_BYTES});
            if let Some(cursor) = cursor {
                params["cursor"] = json!(cursor);
            }
            if let Some(status) = status {
                params["status"] = json!(status);
            }
            if let Some(limit) = limit {
                params["limit"] = json!(limit);
            }
            (Method::TaskList.name().into(), params, render::task_list)
        }
        Command::Task(TaskCommand::Thread {
            task_id,
            limit,
            before,
        }) => {
            let mut params = json!({"task_id": task_id, "max_bytes": MAX_ANSWER_BYTES});
            if let Some(limit) = limit {
                params["limit"] = json!(limit);
            }
            if let Some(before) = before {
                params["before"] = json!(before);
            }
            (
                Method::TaskThread.name().into(),
                params,
                render::task_thread,
            )
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
                Some(render) => println!("{}", hints::as_commands(&render(&result))),
                None => println!("{}", pretty(&result)),
            }
            ExitCode::SUCCESS
        }
        Ok(Err(error)) => {
            // The human commands name commands in their hints; `lookout call` keeps the
            // tools' call syntax, as it speaks the tools' language.
            let hint = match renderer {
                Some(_) => hints::as_commands(&error.hint),
                None => error.hint,
            };
            eprintln!("error: {}\nhint: {hint}", error.message);
            ExitCode::from(EXIT_CALL_FAILED)
        }
        Err(error @ ClientError::NoDaemon { .. }) => fail(&error.to_string(), EXIT_NO_DAEMON),
        Err(error) => fail(&error.to_string(), EXIT_CALL_FAILED),
    }
}

/// `lookout call --function-call`: runs a model's tool call and prints the item that answers
/// it in the same API. stdout always carries that item (with the error as its output when
/// the call failed), so a runtime can hand it straight back to the model; the exit code says
/// whether the call succeeded (0), failed (1) or found no daemon (3).
async fn function_call(socket: &Path, item: &str) -> ExitCode {
    let text = if item == "-" {
        let mut text = String::new();
        if let Err(error) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text) {
            return fail(
                &format!("cannot read the tool call from stdin: {error}"),
                EXIT_USAGE,
            );
        }
        text
    } else {
        item.to_owned()
    };
    let item: Value = match serde_json::from_str(&text) {
        Ok(item) => item,
        Err(error) => {
            return fail(
                &format!("--function-call is not valid JSON: {error}"),
                EXIT_USAGE,
            );
        }
    };
    let call = match FunctionCall::parse(&item) {
        Ok(call) => call,
        // The call has an id: it is answered, with what was wrong, as any failed call is.
        Err(error) => match error.answer() {
            Some(answer) => {
                println!("{}", answer);
                eprintln!("error: {error}");
                return ExitCode::from(EXIT_CALL_FAILED);
            }
            None => return fail(&error.to_string(), EXIT_USAGE),
        },
    };
    let (outcome, exit) = if catalogue::find(&call.name).is_none() {
        let known: Vec<&str> = catalogue::tools().map(|tool| tool.name()).collect();
        let error = RpcError::new(
            codes::METHOD_NOT_FOUND,
            format!("unknown tool '{}'", call.name),
            format!("call one of {}", known.join(", ")),
        );
        (Err(error), EXIT_CALL_FAILED)
    } else {
        let arguments = Value::Object(call.arguments.clone());
        let reply = async {
            let mut client = Client::connect(socket).await?;
            client.call(&call.name, arguments).await
        }
        .await;
        match reply {
            Ok(Ok(result)) => (Ok(result), 0),
            Ok(Err(error)) => (Err(error), EXIT_CALL_FAILED),
            Err(error) => {
                let exit = match error {
                    ClientError::NoDaemon { .. } => EXIT_NO_DAEMON,
                    _ => EXIT_CALL_FAILED,
                };
                let error = RpcError::new(
                    codes::UNAVAILABLE,
                    error.to_string(),
                    "start the daemon (`lookout serve`) and retry the call",
                );
                (Err(error), exit)
            }
        }
    };
    println!("{}", call.output(&outcome));
    if let Err(error) = &outcome {
        eprintln!("error: {}\nhint: {}", error.message, error.hint);
    }
    ExitCode::from(exit)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

pub(crate) fn fail(message: &str, code: u8) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The argv an example config runs, as `lookout …` arguments.
    fn lookout_args(command: &str, args: &[Value]) -> Vec<String> {
        assert_eq!(
            command.split_whitespace().next(),
            Some("lookout"),
            "{command}"
        );
        let mut argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        argv.extend(args.iter().map(|arg| arg.as_str().unwrap().to_owned()));
        argv
    }

    #[test]
    fn the_contrib_examples_run_real_commands() {
        let mcp_json: Value =
            serde_json::from_str(include_str!("../../contrib/claude-code/.mcp.json")).unwrap();
        let server = &mcp_json["mcpServers"]["lookout"];
        let argv = lookout_args(
            server["command"].as_str().unwrap(),
            server["args"].as_array().unwrap(),
        );
        assert!(matches!(
            Cli::try_parse_from(&argv).unwrap().command,
            Command::Mcp { .. }
        ));

        let settings: Value =
            serde_json::from_str(include_str!("../../contrib/claude-code/settings.json")).unwrap();
        let session_start = &settings["hooks"]["SessionStart"][0];
        assert_eq!(session_start["matcher"], "compact");
        let argv = lookout_args(session_start["hooks"][0]["command"].as_str().unwrap(), &[]);
        assert!(matches!(
            Cli::try_parse_from(&argv).unwrap().command,
            Command::Hook(HookCommand::SessionStart { .. })
        ));

        let skill = include_str!("../../contrib/openclaw/SKILL.md");
        let registration = skill
            .lines()
            .find_map(|line| line.strip_prefix("openclaw mcp set lookout '"))
            .expect("the skill shows the MCP registration");
        let server: Value = serde_json::from_str(registration.trim_end_matches('\'')).unwrap();
        let argv = lookout_args(
            server["command"].as_str().unwrap(),
            server["args"].as_array().unwrap(),
        );
        assert!(matches!(
            Cli::try_parse_from(&argv).unwrap().command,
            Command::Mcp { .. }
        ));
    }

    /// What teaches an agent the tools: the skill, the Claude Code docs, the MCP instructions.
    const AGENT_DOCS: [(&str, &str); 4] = [
        (
            "contrib/openclaw/SKILL.md",
            include_str!("../../contrib/openclaw/SKILL.md"),
        ),
        (
            "contrib/claude-code/README.md",
            include_str!("../../contrib/claude-code/README.md"),
        ),
        (
            "contrib/claude-code/CLAUDE.md",
            include_str!("../../contrib/claude-code/CLAUDE.md"),
        ),
        ("the MCP server's instructions", mcp::INSTRUCTIONS),
    ];

    #[test]
    fn every_argument_of_every_command_says_what_it_is() {
        fn walk(command: &clap::Command, path: &str, bare: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let builtin = ["help", "version"].contains(&arg.get_id().as_str());
                if arg.get_help().is_none() && !builtin && !arg.is_hide_set() {
                    bare.push(format!("{path} {}", arg.get_id()));
                }
            }
            for sub in command.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), bare);
            }
        }
        let mut bare = Vec::new();
        walk(
            &<Cli as clap::CommandFactory>::command(),
            "lookout",
            &mut bare,
        );
        assert!(bare.is_empty(), "arguments without help: {bare:?}");
    }

    #[test]
    fn agent_docs_name_only_target_kinds_that_exist() {
        let known: Vec<&str> = actors::sight::target::KINDS
            .iter()
            .map(|(kind, _)| *kind)
            .collect();
        for (doc, text) in AGENT_DOCS {
            for kind in crate::tools::catalogue::target_kinds_named(text) {
                assert!(
                    known.contains(&kind.as_str()),
                    "{doc} names {kind}:<…>, which is no target kind"
                );
            }
        }
    }

    /// The docs that must mention every tool in the catalogue.
    const COMPLETE_DOCS: [&str; 2] = ["contrib/openclaw/SKILL.md", "contrib/claude-code/CLAUDE.md"];

    /// How tool names start. A tool of a new family must add its prefix here, so the docs
    /// check keeps seeing every name shaped like a tool.
    const TOOL_PREFIXES: [&str; 5] = ["task_", "smart_", "wait_", "term_", "memory_"];

    /// Words shaped like a tool name that name something else: the stuck wake's envelope and
    /// the wake events' kinds (a channel message's `kind`).
    const NOT_TOOLS: [&str; 6] = [
        "task_stuck_resume",
        "task_stuck",
        "wait_resolved",
        "wait_changed",
        "wait_timeout",
        "wait_error",
    ];

    /// Every identifier in `text` (a run of letters, digits and `_`) shaped like a tool name.
    fn tool_shaped_words(text: &str) -> BTreeSet<&str> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|word| {
                TOOL_PREFIXES
                    .iter()
                    .any(|prefix| word.len() > prefix.len() && word.starts_with(prefix))
            })
            .collect()
    }

    /// The tool-shaped words of `text` that are neither a tool, nor a parameter of one, nor
    /// a known word of another kind.
    fn unknown_tools(text: &str) -> Vec<&str> {
        let parameters: BTreeSet<String> = catalogue::tools()
            .flat_map(|tool| {
                let schema = (tool.input_schema)();
                let names: Vec<String> = schema["properties"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .cloned()
                    .collect();
                names
            })
            .collect();
        tool_shaped_words(text)
            .into_iter()
            .filter(|word| {
                catalogue::find(word).is_none()
                    && !parameters.contains(*word)
                    && !NOT_TOOLS.contains(word)
            })
            .collect()
    }

    #[test]
    fn every_tool_name_has_a_known_prefix() {
        for tool in catalogue::tools() {
            assert!(
                TOOL_PREFIXES
                    .iter()
                    .any(|prefix| tool.name().starts_with(prefix)),
                "add the prefix of `{}` to TOOL_PREFIXES",
                tool.name()
            );
        }
    }

    #[test]
    fn the_docs_check_finds_names_that_are_not_tools() {
        let text = "Call `smart_wait`, then `wait_extend(wait_id)`; memory_search and \
                    task_register(task_id) or [task_stuck_resume] term_read.";
        assert_eq!(unknown_tools(text), ["memory_search", "wait_extend"]);
        assert_eq!(
            tool_shaped_words("`task_`, term_, wait_status(x), not_a_task_word"),
            BTreeSet::from(["wait_status"])
        );
    }

    #[test]
    fn the_docs_name_only_tools_that_exist() {
        for (doc, text) in AGENT_DOCS {
            let unknown = unknown_tools(text);
            assert!(
                unknown.is_empty(),
                "{doc} names {unknown:?}, which are not tools in src/tools/catalogue/"
            );
        }
    }

    #[test]
    fn the_skill_and_the_claude_instructions_mention_every_tool() {
        for (doc, text) in AGENT_DOCS
            .into_iter()
            .filter(|(doc, _)| COMPLETE_DOCS.contains(doc))
        {
            let mentioned = tool_shaped_words(text);
            let missing: Vec<&str> = catalogue::tools()
                .map(|tool| tool.name())
                .filter(|name| !mentioned.contains(name))
                .collect();
            assert!(
                missing.is_empty(),
                "{doc} does not mention {missing:?}: teach the agent when to use them"
            );
        }
    }
}
