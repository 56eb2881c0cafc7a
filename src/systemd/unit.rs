//! The systemd user units (`contrib/systemd/`), rendered for this binary and written to
//! the user's unit folder by `lookout service install`.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// The service unit as shipped; its `ExecStart` line is replaced on install.
pub const SERVICE_TEMPLATE: &str = include_str!("../../contrib/systemd/lookout.service");
/// The optional socket unit for socket activation.
pub const SOCKET_UNIT: &str = include_str!("../../contrib/systemd/lookout.socket");

pub const SERVICE_FILE_NAME: &str = "lookout.service";
pub const SOCKET_FILE_NAME: &str = "lookout.socket";

/// The service unit with `ExecStart=<binary> serve` (and `--config <file>` when the install
/// named one, so the service reads the config the user installed it with).
pub fn service_unit(binary: &Path, config: Option<&Path>) -> String {
    let mut exec_start = format!("ExecStart={} serve", quote_exec_path(binary));
    if let Some(config) = config {
        exec_start.push_str(&format!(" --config {}", quote_exec_path(config)));
    }
    SERVICE_TEMPLATE
        .lines()
        .map(|line| {
            if line.starts_with("ExecStart=") {
                exec_start.as_str()
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The program path of the `ExecStart` line of a unit, unquoted, if it has one.
pub fn exec_start_program(unit: &str) -> Option<String> {
    let command = unit
        .lines()
        .find_map(|line| line.strip_prefix("ExecStart="))?
        .trim();
    let program = match command.strip_prefix('"') {
        Some(quoted) => {
            let mut program = String::new();
            let mut chars = quoted.chars();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => program.extend(chars.next()),
                    other => program.push(other),
                }
            }
            program
        }
        None => command.split_whitespace().next()?.to_owned(),
    };
    Some(program.replace("%%", "%").replace("$$", "$"))
}

/// A path as systemd reads it in `ExecStart`: `%` and `$` doubled (specifiers and variable
/// expansion), and double quotes around a path with spaces or quote characters.
fn quote_exec_path(path: &Path) -> String {
    let text = path.to_string_lossy().replace('%', "%%").replace('$', "$$");
    if text
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | ';'))
    {
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        text
    }
}

/// What an install changed.
#[derive(Debug, PartialEq, Eq)]
pub enum Written {
    Created(PathBuf),
    Updated(PathBuf),
    Unchanged(PathBuf),
}

impl Written {
    pub fn path(&self) -> &Path {
        match self {
            Written::Created(path) | Written::Updated(path) | Written::Unchanged(path) => path,
        }
    }
}

/// Writes the service unit (and the socket unit with `socket_activation`) into `folder`.
pub fn install(
    folder: &Path,
    binary: &Path,
    config: Option<&Path>,
    socket_activation: bool,
) -> anyhow::Result<Vec<Written>> {
    std::fs::create_dir_all(folder)
        .with_context(|| format!("cannot create the unit folder {}", folder.display()))?;
    let mut units = vec![(SERVICE_FILE_NAME, service_unit(binary, config))];
    if socket_activation {
        units.push((SOCKET_FILE_NAME, SOCKET_UNIT.to_owned()));
    }
    units
        .into_iter()
        .map(|(name, text)| write_unit(&folder.join(name), &text))
        .collect()
}

fn write_unit(path: &Path, text: &str) -> anyhow::Result<Written> {
    let previous = std::fs::read_to_string(path).ok();
    if previous.as_deref() == Some(text) {
        return Ok(Written::Unchanged(path.to_owned()));
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(match previous {
        Some(_) => Written::Updated(path.to_owned()),
        None => Written::Created(path.to_owned()),
    })
}

/// The unit files lookout installs that exist in `folder`.
pub fn installed(folder: &Path) -> Vec<PathBuf> {
    [SERVICE_FILE_NAME, SOCKET_FILE_NAME]
        .iter()
        .map(|name| folder.join(name))
        .filter(|path| path.exists())
        .collect()
}

/// Removes the unit files lookout installs from `folder`, and the links `systemctl enable`
/// made to them in its `*.wants` folders (what `disable` would remove); returns the unit
/// files that existed.
pub fn uninstall(folder: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for name in [SERVICE_FILE_NAME, SOCKET_FILE_NAME] {
        let path = folder.join(name);
        if remove_if_present(&path)? {
            removed.push(path);
        }
    }
    let wants_folders = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir() && path.extension().is_some_and(|ext| ext == "wants"));
    for wants in wants_folders {
        for name in [SERVICE_FILE_NAME, SOCKET_FILE_NAME] {
            let link = wants.join(name);
            if link.is_symlink() {
                remove_if_present(&link)?;
            }
        }
    }
    Ok(removed)
}

fn remove_if_present(path: &Path) -> anyhow::Result<bool> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(error).with_context(|| format!("cannot remove {}", path.display())),
    }
}
