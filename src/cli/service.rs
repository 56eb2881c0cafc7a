//! `lookout service install | uninstall | status`: the systemd user service.
//!
//! Writes the units from `contrib/systemd/` into the user's unit folder with this binary's
//! absolute path, prints the `systemctl --user` commands that follow, and with `--now` runs
//! them itself when `systemctl` is on PATH (through the actors' `Spawner`, the one way
//! lookout starts programs).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use actors::process::{ProcessSpawner, RunOutcome, RunRequest, Spawner};

use anyhow::Context;
use serde_json::json;

use super::{EXIT_CALL_FAILED, EXIT_NO_DAEMON, ServiceCommand};
use crate::client::Client;
use crate::config::paths;
use crate::systemd::unit::{self, SERVICE_FILE_NAME, SOCKET_FILE_NAME, Written};
use crate::tools::spine::Method;

/// Runs a `service` command. `config` is the `--config` the command was given: an install
/// writes it into the unit, so the service reads the same file.
pub(super) async fn run(
    command: ServiceCommand,
    socket: &Path,
    config: Option<&Path>,
    json: bool,
) -> ExitCode {
    let outcome = match command {
        ServiceCommand::Install {
            now,
            socket_activation,
        } => install(now, socket_activation, config).await,
        ServiceCommand::Uninstall { now } => uninstall(now).await,
        ServiceCommand::Status => return status(socket, json).await,
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(EXIT_CALL_FAILED),
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(EXIT_CALL_FAILED)
        }
    }
}

fn unit_folder() -> anyhow::Result<PathBuf> {
    paths::systemd_user_unit_dir().context(
        "neither XDG_CONFIG_HOME nor HOME is set, so there is no user unit folder; set one of them",
    )
}

/// Writes the units; returns whether every `systemctl` command it ran succeeded.
async fn install(
    now: bool,
    socket_activation: bool,
    config: Option<&Path>,
) -> anyhow::Result<bool> {
    let binary = std::env::current_exe()
        .and_then(|path| path.canonicalize())
        .context("cannot find the path of this lookout binary")?;
    // The service starts elsewhere: it needs the config's absolute path.
    let config = config
        .map(|config| {
            config
                .canonicalize()
                .with_context(|| format!("cannot find the config file {}", config.display()))
        })
        .transpose()?;
    let folder = unit_folder()?;
    for written in unit::install(&folder, &binary, config.as_deref(), socket_activation)? {
        let verb = match written {
            Written::Created(_) => "Wrote",
            Written::Updated(_) => "Updated",
            Written::Unchanged(_) => "Unchanged:",
        };
        println!("{verb} {}", written.path().display());
    }
    match &config {
        Some(config) => println!(
            "  ExecStart={} serve --config {}",
            binary.display(),
            config.display()
        ),
        None => println!("  ExecStart={} serve", binary.display()),
    }
    let enable_unit = if socket_activation {
        SOCKET_FILE_NAME
    } else {
        SERVICE_FILE_NAME
    };
    let commands: [&[&str]; 2] = [
        &["--user", "daemon-reload"],
        &["--user", "enable", "--now", enable_unit],
    ];
    let all_ran = if now {
        run_systemctl(&commands).await
    } else {
        println!("\nStart it now and at every login:");
        print_commands(&commands);
        true
    };
    println!(
        "\nWatching windows or the screen needs your desktop (X or Wayland); give it to the user manager with:\n  \
         systemctl --user import-environment DISPLAY XAUTHORITY WAYLAND_DISPLAY SWAYSOCK\n\
         then restart the service. Logs: journalctl --user -u lookout -f"
    );
    Ok(all_ran)
}

async fn uninstall(now: bool) -> anyhow::Result<bool> {
    let folder = unit_folder()?;
    let present: Vec<String> = unit::installed(&folder)
        .iter()
        .filter_map(|path| path.file_name()?.to_str().map(str::to_owned))
        .collect();
    let mut all_ran = true;
    if now && !present.is_empty() {
        let mut disable = vec!["--user", "disable", "--now"];
        disable.extend(present.iter().map(String::as_str));
        all_ran &= run_systemctl(&[&disable]).await;
    }
    let removed = unit::uninstall(&folder)?;
    if removed.is_empty() {
        println!("No lookout units in {}.", folder.display());
    }
    for path in &removed {
        println!("Removed {}", path.display());
    }
    let reload: [&[&str]; 1] = [&["--user", "daemon-reload"]];
    if now {
        all_ran &= run_systemctl(&reload).await;
    } else if !removed.is_empty() {
        println!("\nIf the service is running, stop it and let systemd forget the units:");
        print_commands(&[
            &["--user", "stop", "lookout.socket", "lookout.service"],
            reload[0],
        ]);
    }
    Ok(all_ran)
}

/// `service status`: the unit, what systemd says of it, and whether the daemon answers; as
/// lines of text, or (`--json`) one object with the same facts.
async fn status(socket: &Path, json: bool) -> ExitCode {
    let mut report = serde_json::Map::new();
    let mut lines = Vec::new();
    match unit_folder() {
        Ok(folder) => {
            let service = folder.join(SERVICE_FILE_NAME);
            match std::fs::read_to_string(&service) {
                Ok(text) => {
                    let program = unit::exec_start_program(&text).unwrap_or_default();
                    let this_binary = std::env::current_exe()
                        .and_then(|path| path.canonicalize())
                        .is_ok_and(|path| path == Path::new(&program));
                    let whose = if this_binary {
                        "this binary"
                    } else {
                        "not this binary; `lookout service install` points it here"
                    };
                    lines.push(format!(
                        "unit:    {} (runs {program}: {whose})",
                        service.display()
                    ));
                    report.insert(
                        "unit".into(),
                        json!({"path": service, "program": program, "this_binary": this_binary}),
                    );
                }
                Err(_) => {
                    lines.push(format!(
                        "unit:    not installed in {} (`lookout service install` writes it)",
                        folder.display()
                    ));
                    report.insert("unit".into(), json!(null));
                }
            }
            let socket_unit = folder.join(SOCKET_FILE_NAME);
            let activation = socket_unit.exists();
            if activation {
                lines.push(format!(
                    "         socket activation: {}",
                    socket_unit.display()
                ));
            }
            report.insert(
                "socket_unit".into(),
                json!(activation.then_some(socket_unit)),
            );
        }
        Err(error) => {
            lines.push(format!("unit:    {error:#}"));
            report.insert("unit".into(), json!({"error": format!("{error:#}")}));
        }
    }
    let mut systemd = serde_json::Map::new();
    match crate::config::environment::find_on_path("systemctl") {
        Some(systemctl) => {
            for (question, unit) in [
                ("is-enabled", SERVICE_FILE_NAME),
                ("is-active", SERVICE_FILE_NAME),
            ] {
                let answer = systemctl_run(&systemctl, &["--user", question, unit])
                    .await
                    .map(|outcome| {
                        let said = String::from_utf8_lossy(&outcome.stdout).trim().to_owned();
                        if said.is_empty() {
                            outcome.stderr_tail.trim().to_owned()
                        } else {
                            said
                        }
                    })
                    .unwrap_or_else(|error| format!("cannot run systemctl: {error}"));
                lines.push(format!("systemd: {question} {unit}: {answer}"));
                systemd.insert(question.to_owned(), json!(answer));
            }
        }
        None => lines.push("systemd: systemctl is not on PATH".to_owned()),
    }
    report.insert(
        "systemd".into(),
        if systemd.is_empty() {
            json!(null)
        } else {
            serde_json::Value::Object(systemd)
        },
    );
    let answer = async {
        let mut client = Client::connect(socket).await?;
        client.call(Method::DaemonStatus.name(), json!({})).await
    }
    .await;
    let exit = match answer {
        Ok(Ok(status)) => {
            lines.push(format!(
                "daemon:  lookout {} serving on {} (pid {}, up {}s)",
                status["version"].as_str().unwrap_or("?"),
                status["socket"].as_str().unwrap_or("?"),
                status["pid"],
                status["uptime_s"]
            ));
            report.insert("daemon".into(), status);
            ExitCode::SUCCESS
        }
        Ok(Err(error)) => {
            lines.push(format!(
                "daemon:  answered with an error: {} ({})",
                error.message, error.hint
            ));
            report.insert(
                "daemon".into(),
                json!({"error": {"code": error.code, "message": error.message, "hint": error.hint}}),
            );
            ExitCode::from(EXIT_CALL_FAILED)
        }
        Err(error) => {
            lines.push(format!("daemon:  {error}"));
            report.insert(
                "daemon".into(),
                json!({"error": {"message": error.to_string()}}),
            );
            ExitCode::from(EXIT_NO_DAEMON)
        }
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::Value::Object(report)).unwrap_or_default()
        );
    } else {
        println!("{}", lines.join("\n"));
    }
    exit
}

fn print_commands(commands: &[&[&str]]) {
    for args in commands {
        println!("  systemctl {}", args.join(" "));
    }
}

/// Runs each `systemctl` command in order, stopping at the first failure; false if one
/// failed or systemctl is not on PATH.
async fn run_systemctl(commands: &[&[&str]]) -> bool {
    let Some(systemctl) = crate::config::environment::find_on_path("systemctl") else {
        println!(
            "\nsystemctl is not on PATH, so nothing was started; where systemd runs your session, run:"
        );
        print_commands(commands);
        return false;
    };
    for args in commands {
        println!("$ systemctl {}", args.join(" "));
        match systemctl_run(&systemctl, args).await {
            Ok(outcome) if outcome.succeeded() => {
                print!("{}", String::from_utf8_lossy(&outcome.stdout))
            }
            Ok(outcome) => {
                print!("{}", String::from_utf8_lossy(&outcome.stdout));
                eprintln!(
                    "error: `systemctl {}` failed ({})",
                    args.join(" "),
                    outcome.failure(SYSTEMCTL_TIMEOUT)
                );
                return false;
            }
            Err(error) => {
                eprintln!("error: cannot run {}: {error}", systemctl.display());
                return false;
            }
        }
    }
    true
}

/// How long one `systemctl --user` command may take (starting the service included).
const SYSTEMCTL_TIMEOUT: Duration = Duration::from_secs(90);
/// What of systemctl's output is kept to show.
const SYSTEMCTL_OUTPUT_BYTES: usize = 64 * 1024;

async fn systemctl_run(systemctl: &Path, args: &[&str]) -> std::io::Result<RunOutcome> {
    ProcessSpawner
        .run(RunRequest {
            program: systemctl.to_string_lossy().into_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            stdin: Vec::new(),
            timeout: SYSTEMCTL_TIMEOUT,
            max_stdout_bytes: SYSTEMCTL_OUTPUT_BYTES,
            env: Vec::new(),
        })
        .await
}
