//! `lookout setup <runtime>`: connects one agent runtime to lookout in one step — its MCP
//! server entry, its instructions, and the path its wakes take — and says what it changed.
//! Run again, it changes nothing; `--undo` takes it back out.
//!
//! - `claude-code`: writes the Claude Code plugin the binary carries (the MCP server, the
//!   SessionStart hook, the guidance as a skill and the monitor that brings this session's
//!   wakes) as a marketplace in the data folder, then adds and installs it through `claude`
//!   when it is on PATH, else prints the two commands.
//! - `openclaw`: `openclaw mcp set lookout …`, the skill in OpenClaw's skills folder, and a
//!   look at whether the daemon's native sink reaches the gateway.
//! - `codex`: the `[mcp_servers.lookout]` table in Codex CLI's `config.toml`; Codex has no
//!   path to push a wake, so the agent runs `lookout wait` in the background.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use actors::process::{ProcessSpawner, RunRequest, Spawner};
use actors::terminals::types::shell_line;
use serde_json::{Value, json};

use crate::cli::{EXIT_CALL_FAILED, fail};
use crate::client::Client;
use crate::config::environment;
use crate::tools::spine::Method;

/// The runtimes `lookout setup` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Runtime {
    /// Claude Code: the plugin (MCP server, hook, skill, wake monitor)
    ClaudeCode,
    /// OpenClaw: the MCP server entry, the skill, and the gateway the wakes go to
    Openclaw,
    /// Codex CLI: the MCP server entry (wakes through `lookout wait`)
    Codex,
}

/// The plugin's files, as the repository holds them, by their place in the plugin folder.
const PLUGIN_FILES: [(&str, &str); 3] = [
    (
        ".claude-plugin/plugin.json",
        include_str!("../../contrib/claude-code/plugins/lookout/.claude-plugin/plugin.json"),
    ),
    (
        "hooks/hooks.json",
        include_str!("../../contrib/claude-code/plugins/lookout/hooks/hooks.json"),
    ),
    (
        "skills/lookout/SKILL.md",
        include_str!("../../contrib/claude-code/plugins/lookout/skills/lookout/SKILL.md"),
    ),
];
/// The repository's marketplace, whose plugin is written beside it as `plugins/lookout`.
const MARKETPLACE: &str = include_str!("../../.claude-plugin/marketplace.json");
/// The plugin as `claude plugin install` names it: `<plugin>@<marketplace>`.
const PLUGIN: &str = "lookout@lookout";
/// OpenClaw's skill (the same file `contrib/openclaw/SKILL.md` ships).
const OPENCLAW_SKILL: &str = include_str!("../../contrib/openclaw/SKILL.md");
/// The MCP server entry OpenClaw and Codex get.
const MCP_ENTRY: &str = r#"{"command":"lookout","args":["mcp"]}"#;
/// Codex CLI's table for lookout, as written into its `config.toml`.
const CODEX_TABLE: &str = "[mcp_servers.lookout]\ncommand = \"lookout\"\nargs = [\"mcp\"]\n";
/// How long one `claude` or `openclaw` command may take.
const RUNTIME_CLI_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs the setup of `runtime` (or takes it back out) and prints each change.
pub async fn run(runtime: Runtime, undo: bool, data_folder: &Path, socket: &Path) -> ExitCode {
    let outcome = match (runtime, undo) {
        (Runtime::ClaudeCode, false) => claude_code(&data_folder.join("claude-code")).await,
        (Runtime::ClaudeCode, true) => claude_code_undo(&data_folder.join("claude-code")).await,
        (Runtime::Openclaw, false) => openclaw(socket).await,
        (Runtime::Openclaw, true) => openclaw_undo().await,
        (Runtime::Codex, false) => codex(),
        (Runtime::Codex, true) => codex_undo(),
    };
    match outcome {
        Ok(()) if undo => ExitCode::SUCCESS,
        Ok(()) => {
            say_whether_the_daemon_answers(socket).await;
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error, EXIT_CALL_FAILED),
    }
}

/// Writes the plugin's marketplace folder; `claude` adds and installs it.
async fn claude_code(folder: &Path) -> Result<(), String> {
    let mut marketplace: Value =
        serde_json::from_str(MARKETPLACE).map_err(|error| error.to_string())?;
    marketplace["plugins"][0]["source"] = json!("./plugins/lookout");
    let marketplace = serde_json::to_string_pretty(&marketplace).unwrap_or_default() + "\n";
    let mut files = vec![(folder.join(".claude-plugin/marketplace.json"), marketplace)];
    for (place, text) in PLUGIN_FILES {
        files.push((folder.join("plugins/lookout").join(place), text.to_owned()));
    }
    let mut written = 0;
    for (path, text) in &files {
        written += usize::from(write_if_changed(path, text)?);
    }
    match written {
        0 => println!("The plugin in {} is up to date.", folder.display()),
        count => println!("Wrote {count} files of the plugin to {}.", folder.display()),
    }
    let add = ["plugin", "marketplace", "add", &folder.to_string_lossy()];
    let install = ["plugin", "install", PLUGIN];
    let Some(claude) = environment::find_on_path("claude") else {
        println!(
            "claude is not on PATH. To install the plugin, run:\n  claude {}\n  claude {}",
            shell_line(&add),
            shell_line(&install)
        );
        return Ok(());
    };
    for args in [&add[..], &install[..]] {
        let said = run_program(&claude, args).await?;
        println!("claude {}: {said}", shell_line(args));
    }
    println!(
        "Start a new Claude Code session: its wakes arrive as events of the plugin's monitor \
         (`lookout monitor`), its tools are mcp__plugin_lookout_lookout__*, and a compacted \
         session is told where its tasks stand."
    );
    println!("{}", recall_tip("claude-code", "Claude Code"));
    Ok(())
}

async fn claude_code_undo(folder: &Path) -> Result<(), String> {
    if let Some(claude) = environment::find_on_path("claude") {
        for args in [
            &["plugin", "uninstall", PLUGIN][..],
            &["plugin", "marketplace", "remove", "lookout"][..],
        ] {
            // Not installed is as good as uninstalled: say what claude said and go on.
            let said = run_program(&claude, args)
                .await
                .unwrap_or_else(|error| error);
            println!("claude {}: {said}", shell_line(args));
        }
    } else {
        println!(
            "claude is not on PATH; remove the plugin there with: claude plugin uninstall {PLUGIN} \
             && claude plugin marketplace remove lookout"
        );
    }
    remove_folder(folder)
}

/// The folder OpenClaw keeps its state (and skills) in, found as the gateway's config is.
fn openclaw_home() -> Result<PathBuf, String> {
    crate::config::openclaw::state_folder(&environment::non_empty)
        .ok_or_else(|| "neither OPENCLAW_STATE_DIR, OPENCLAW_HOME nor HOME is set".to_owned())
}

async fn openclaw(socket: &Path) -> Result<(), String> {
    let args = ["mcp", "set", "lookout", MCP_ENTRY];
    match environment::find_on_path("openclaw") {
        Some(openclaw) => {
            let said = run_program(&openclaw, &args).await?;
            println!("openclaw {}: {said}", shell_line(&args));
        }
        None => println!(
            "openclaw is not on PATH. Add the MCP server where it runs with:\n  openclaw {}",
            shell_line(&args)
        ),
    }
    let skill = openclaw_home()?.join("skills/lookout/SKILL.md");
    if write_if_changed(&skill, OPENCLAW_SKILL)? {
        println!("Wrote the skill to {}.", skill.display());
    } else {
        println!("The skill in {} is up to date.", skill.display());
    }
    // Whether the wakes will reach the gateway: what the daemon's native sink last learned.
    let status = match Client::connect(socket).await {
        Ok(mut client) => client
            .call(Method::DaemonStatus.name(), json!({}))
            .await
            .ok(),
        Err(_) => None,
    };
    match status.and_then(Result::ok) {
        Some(status) => match status["wake"]["sink_states"]["openclaw"].as_str() {
            Some(state) => println!("Wakes: the daemon's OpenClaw sink is {state}."),
            None => println!(
                "Wakes: the daemon found no OpenClaw gateway to wake. It reads the gateway's \
                 port and token from {} (or OPENCLAW_CONFIG_PATH, OPENCLAW_GATEWAY_URL and \
                 OPENCLAW_GATEWAY_TOKEN) when it starts: restart it once the gateway is set up \
                 (systemctl --user restart lookout).",
                // Found, as the skill's folder was above.
                crate::config::openclaw::config_path(&environment::non_empty)
                    .unwrap_or_default()
                    .display()
            ),
        },
        None => println!("Wakes: checked once the daemon runs (lookout status)."),
    }
    println!("{}", recall_tip("openclaw", "OpenClaw"));
    Ok(())
}

/// How to have `memory_recall` search the runtime's own past sessions too (opt-in).
fn recall_tip(source: &str, runtime: &str) -> String {
    format!(
        "Recall (opt-in): for memory_recall to search your past {runtime} sessions too, \
         redacted like the screen, add to lookout's config: [recall] sources = [\"{source}\"]"
    )
}

async fn openclaw_undo() -> Result<(), String> {
    let args = ["mcp", "unset", "lookout"];
    match environment::find_on_path("openclaw") {
        Some(openclaw) => {
            let said = run_program(&openclaw, &args)
                .await
                .unwrap_or_else(|error| error);
            println!("openclaw {}: {said}", shell_line(&args));
        }
        None => println!(
            "openclaw is not on PATH; remove the entry with: openclaw {}",
            shell_line(&args)
        ),
    }
    remove_folder(&openclaw_home()?.join("skills/lookout"))
}

/// Removes `folder` and says so; one that is not there is as good as removed.
fn remove_folder(folder: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(folder) {
        Ok(()) => println!("Removed {}.", folder.display()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(format!("cannot remove {}: {error}", folder.display())),
    }
    Ok(())
}

/// Codex CLI's config file: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`.
fn codex_config() -> Result<PathBuf, String> {
    environment::var_os("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| environment::var_os("HOME").map(|home| PathBuf::from(home).join(".codex")))
        .map(|folder| folder.join("config.toml"))
        .ok_or_else(|| "neither CODEX_HOME nor HOME is set".to_owned())
}

fn codex() -> Result<(), String> {
    let path = codex_config()?;
    let text = read_or_empty(&path)?;
    if text
        .lines()
        .any(|line| line.trim() == "[mcp_servers.lookout]")
    {
        println!(
            "{} already has [mcp_servers.lookout]; left as it is.",
            path.display()
        );
    } else {
        let separator = if text.is_empty() || text.ends_with("\n\n") {
            ""
        } else if text.ends_with('\n') {
            "\n"
        } else {
            "\n\n"
        };
        write_if_changed(&path, &format!("{text}{separator}{CODEX_TABLE}"))?;
        println!("Added [mcp_servers.lookout] to {}.", path.display());
    }
    println!(
        "Codex cannot be woken from outside: after smart_wait, have it run `lookout wait \
         <wait_id>` (it ends with the wake text; exit 0 resolved, 4 changed, 5 timeout, 6 error)."
    );
    Ok(())
}

fn codex_undo() -> Result<(), String> {
    let path = codex_config()?;
    let text = read_or_empty(&path)?;
    let kept = without_toml_table(&text, "[mcp_servers.lookout]");
    if kept == text {
        println!("{} has no [mcp_servers.lookout].", path.display());
    } else {
        write_if_changed(&path, &kept)?;
        println!("Removed [mcp_servers.lookout] from {}.", path.display());
    }
    Ok(())
}

/// `text` without the table headed `header` (up to the next table or the end).
fn without_toml_table(text: &str, header: &str) -> String {
    let mut kept = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            inside = trimmed == header;
        }
        if !inside {
            kept.push_str(line);
        }
    }
    kept
}

fn read_or_empty(path: &Path) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(error) => Err(format!("cannot read {}: {error}", path.display())),
    }
}

/// Writes `text` to `path` (making its folder) unless it holds that already; whether it
/// wrote.
fn write_if_changed(path: &Path, text: &str) -> Result<bool, String> {
    if std::fs::read_to_string(path).is_ok_and(|now| now == text) {
        return Ok(false);
    }
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)
            .map_err(|error| format!("cannot make {}: {error}", folder.display()))?;
    }
    std::fs::write(path, text)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(true)
}

/// Runs a runtime's own command line; its last line of output, or why it failed.
async fn run_program(program: &Path, args: &[&str]) -> Result<String, String> {
    let outcome = ProcessSpawner
        .run(RunRequest {
            program: program.to_string_lossy().into_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            stdin: Vec::new(),
            timeout: RUNTIME_CLI_TIMEOUT,
            max_stdout_bytes: 64 * 1024,
            env: Vec::new(),
        })
        .await
        .map_err(|error| format!("cannot run {}: {error}", program.display()))?;
    let stdout = String::from_utf8_lossy(&outcome.stdout).into_owned();
    let last = |text: &str| {
        text.lines()
            .map(str::trim)
            .rfind(|line| !line.is_empty())
            .unwrap_or("done")
            .to_owned()
    };
    if outcome.succeeded() {
        Ok(last(&stdout))
    } else {
        Err(format!(
            "`{} {}` failed ({}): {}",
            program.display(),
            shell_line(args),
            outcome.failure(RUNTIME_CLI_TIMEOUT),
            last(&format!("{stdout}\n{}", outcome.stderr_tail))
        ))
    }
}

async fn say_whether_the_daemon_answers(socket: &Path) {
    match Client::connect(socket).await {
        Ok(_) => println!("The daemon answers on {}.", socket.display()),
        Err(_) => println!(
            "No daemon answers on {} yet: start it with `lookout service install --now` (or \
             `lookout serve`).",
            socket.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toml_table_is_taken_out_whole_and_nothing_else() {
        let text = "model = \"o4\"\n\n[mcp_servers.lookout]\ncommand = \"lookout\"\nargs = [\"mcp\"]\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        assert_eq!(
            without_toml_table(text, "[mcp_servers.lookout]"),
            "model = \"o4\"\n\n[mcp_servers.other]\ncommand = \"x\"\n"
        );
        assert_eq!(
            without_toml_table("a = 1\n", "[mcp_servers.lookout]"),
            "a = 1\n"
        );
    }

    #[test]
    fn the_plugin_s_guidance_differs_from_claude_md_only_in_how_wakes_come() {
        let claude_md = include_str!("../../contrib/claude-code/CLAUDE.md");
        let skill = PLUGIN_FILES[2].1;
        let bullets = |text: &str| -> Vec<String> {
            text.split("\n- ")
                .skip(1)
                .filter(|bullet| !bullet.starts_with("**Getting the wake.**"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(bullets(skill), bullets(claude_md));
        assert!(skill.contains("lookout's monitor") && !skill.contains("<channel"));
    }

    #[test]
    fn the_plugin_is_this_version_and_runs_the_monitor_beside_a_bridge_that_pushes_nothing() {
        let plugin: Value = serde_json::from_str(PLUGIN_FILES[0].1).unwrap();
        assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(
            plugin["mcpServers"]["lookout"]["args"],
            json!(["mcp", "--wakes", "monitor"])
        );
        assert_eq!(
            plugin["experimental"]["monitors"][0]["command"],
            "lookout monitor"
        );
        assert!(
            plugin.get("monitors").is_none(),
            "claude plugin validate warns on it"
        );
        let hooks: Value = serde_json::from_str(PLUGIN_FILES[1].1).unwrap();
        assert_eq!(
            hooks["hooks"]["SessionStart"][0]["matcher"],
            "startup|resume|compact"
        );
    }
}
