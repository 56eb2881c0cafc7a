//! The validated values of terminal sessions (`SessionId`, `CommandLine`, `TermSize`,
//! `StartSession`, `TermInput`) and the replies of the Terminals actor.
//!
//! Built once at the edge from an agent's params; everything past it holds these types, so a
//! size out of range or an empty argv never reaches the actor.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use storage::Timestamp;

use crate::error::CallError;
use crate::linkage::StepLink;
use crate::process::pty::{Signal, signal_name};
use crate::sight::content::ProcessExit;
use crate::terminals::keys::Key;
use crate::words::shorten;

pub const DEFAULT_COLS: u16 = 120;
pub const DEFAULT_ROWS: u16 = 40;
pub const MIN_COLS: u16 = 20;
pub const MAX_COLS: u16 = 300;
pub const MIN_ROWS: u16 = 5;
pub const MAX_ROWS: u16 = 100;
/// The whole command (every argv entry, or the shell line), in bytes.
pub const MAX_COMMAND_BYTES: usize = 16 * 1024;
pub const MAX_ARGS: usize = 1024;
pub const MAX_ENV_VARS: usize = 100;
pub const MAX_ENV_BYTES: usize = 16 * 1024;
/// Text and keys of one `term_send`, in bytes.
pub const MAX_SEND_BYTES: usize = 64 * 1024;
pub const MAX_KEYS: usize = 256;
const MAX_SESSION_ID_CHARS: usize = 64;
/// The shell that runs a command given as one string.
pub const SHELL: &str = "/bin/sh";

/// A terminal session's id: `s-` and six base-36 characters, never repeated by one daemon
/// and, because the sequence is seeded by the clock, not by the next one either.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionId(String);

impl SessionId {
    pub const PREFIX: &'static str = "s-";

    /// An id as an agent wrote it (any text an id could be; unknown ones are found missing
    /// later, with a hint).
    pub fn parse(text: &str) -> Result<SessionId, CallError> {
        let text = text.trim();
        if text.is_empty()
            || text.chars().count() > MAX_SESSION_ID_CHARS
            || text.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(CallError::invalid(
                "session_id is blank, too long or has spaces in it",
                "pass the session_id term_start returned, e.g. \"s-4k9x2m\"",
            ));
        }
        Ok(SessionId(text.to_owned()))
    }

    pub(crate) fn from_sequence(sequence: u64) -> SessionId {
        SessionId(format!(
            "{}{}",
            Self::PREFIX,
            storage::model::scrambled_base36(sequence)
        ))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What to run: an argv array run directly, or a command line run by `/bin/sh -c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandLine {
    Argv(Vec<String>),
    Shell(String),
}

impl CommandLine {
    pub fn argv(argv: Vec<String>) -> Result<CommandLine, CallError> {
        let hint = "pass command as an array [program, arg, …], e.g. [\"make\", \"-j8\"], or as one \
                    string for /bin/sh -c, e.g. \"make -j8 2>&1 | tee build.log\"";
        match argv.first() {
            None => return Err(CallError::invalid("command is an empty array", hint)),
            Some(program) if program.trim().is_empty() => {
                return Err(CallError::invalid(
                    "command's first entry (the program) is blank",
                    hint,
                ));
            }
            Some(_) => {}
        }
        if argv.len() > MAX_ARGS {
            return Err(CallError::too_large(
                format!("command has {} entries", argv.len()),
                format!("at most {MAX_ARGS} arguments; put long lists in a file or a script"),
            ));
        }
        check_command_text(argv.iter().map(String::as_str))?;
        Ok(CommandLine::Argv(argv))
    }

    pub fn shell(line: String) -> Result<CommandLine, CallError> {
        if line.trim().is_empty() {
            return Err(CallError::invalid(
                "command is blank",
                "pass a command line for /bin/sh -c, e.g. \"make -j8\", or an argv array",
            ));
        }
        check_command_text([line.as_str()])?;
        Ok(CommandLine::Shell(line))
    }

    /// The program and its arguments as the process module starts them.
    pub fn program_and_args(&self) -> (String, Vec<String>) {
        match self {
            CommandLine::Argv(argv) => (argv[0].clone(), argv[1..].to_vec()),
            CommandLine::Shell(line) => (SHELL.to_owned(), vec!["-c".to_owned(), line.clone()]),
        }
    }

    /// For messages: the shell line, or the argv with arguments that need it quoted;
    /// shortened past 200 characters.
    pub fn display(&self) -> String {
        let full = match self {
            CommandLine::Shell(line) => line.clone(),
            CommandLine::Argv(argv) => shell_line(argv),
        };
        shorten(&full, 200)
    }
}

fn check_command_text<'a>(parts: impl IntoIterator<Item = &'a str>) -> Result<(), CallError> {
    let mut total = 0;
    for part in parts {
        if part.contains('\0') {
            return Err(CallError::invalid(
                "command contains a NUL character",
                "remove the \\u0000 from the command; programs cannot receive it",
            ));
        }
        total += part.len();
    }
    if total > MAX_COMMAND_BYTES {
        return Err(CallError::too_large(
            format!("command is {total} bytes"),
            format!(
                "at most {MAX_COMMAND_BYTES} bytes; put a long command in a script and run that"
            ),
        ));
    }
    Ok(())
}

/// `args` as a shell line a user can paste: each one a word, quoted where it needs it.
pub fn shell_line(args: &[impl AsRef<str>]) -> String {
    args.iter()
        .map(|arg| quote(arg.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `arg` as one shell word: bare when it needs no quoting, else in single quotes. How a
/// command line is shown for pasting (here, and in the CLI's hints).
pub fn quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// A terminal's size in character cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TermSize {
    pub cols: u16,
    pub rows: u16,
}

impl Default for TermSize {
    fn default() -> Self {
        TermSize {
            cols: DEFAULT_COLS,
            rows: DEFAULT_ROWS,
        }
    }
}

impl TermSize {
    pub fn new(cols: Option<u32>, rows: Option<u32>) -> Result<TermSize, CallError> {
        let check = |what: &str, value: Option<u32>, default: u16, min: u16, max: u16| match value {
            None => Ok(default),
            Some(n) if (u32::from(min)..=u32::from(max)).contains(&n) => Ok(n as u16),
            Some(n) => Err(CallError::invalid(
                format!("{what} {n} is out of range"),
                format!("{what} must be between {min} and {max} (default {default})"),
            )),
        };
        Ok(TermSize {
            cols: check("cols", cols, DEFAULT_COLS, MIN_COLS, MAX_COLS)?,
            rows: check("rows", rows, DEFAULT_ROWS, MIN_ROWS, MAX_ROWS)?,
        })
    }
}

impl fmt::Display for TermSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.cols, self.rows)
    }
}

/// A request to start a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartSession {
    pub command: CommandLine,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    pub size: TermSize,
    /// The task (and step of it) the session works on: it appears in the task's thread,
    /// and its exit proves the step (0) or blocks it.
    pub link: Option<StepLink>,
}

impl StartSession {
    pub fn new(
        command: CommandLine,
        cwd: Option<String>,
        env: BTreeMap<String, String>,
        size: TermSize,
    ) -> Result<StartSession, CallError> {
        let cwd = match cwd {
            None => None,
            Some(text) => {
                let path = PathBuf::from(text.trim());
                if !path.is_absolute() {
                    return Err(CallError::invalid(
                        format!("cwd '{text}' is not an absolute path"),
                        "give the working directory as a full path, e.g. /home/alex/project",
                    ));
                }
                Some(path)
            }
        };
        if env.len() > MAX_ENV_VARS {
            return Err(CallError::too_large(
                format!("env has {} variables", env.len()),
                format!("at most {MAX_ENV_VARS}; the daemon's environment is inherited anyway"),
            ));
        }
        let mut bytes = 0;
        for (key, value) in &env {
            if key.is_empty() || key.contains('=') || key.contains('\0') || value.contains('\0') {
                return Err(CallError::invalid(
                    format!("env variable '{key}' has an invalid name or value"),
                    "names are non-empty and have no '=' or NUL; values have no NUL, e.g. {\"RUST_LOG\": \"debug\"}",
                ));
            }
            bytes += key.len() + value.len();
        }
        if bytes > MAX_ENV_BYTES {
            return Err(CallError::too_large(
                format!("env is {bytes} bytes"),
                format!("at most {MAX_ENV_BYTES} bytes of names and values"),
            ));
        }
        Ok(StartSession {
            command,
            cwd,
            env: env.into_iter().collect(),
            size,
            link: None,
        })
    }
}

/// What `term_send` types: the text as is, then the keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermInput {
    pub text: Option<String>,
    pub keys: Vec<Key>,
}

impl TermInput {
    pub fn new(text: Option<String>, keys: Vec<Key>) -> Result<TermInput, CallError> {
        let text = text.filter(|text| !text.is_empty());
        if text.is_none() && keys.is_empty() {
            return Err(CallError::invalid(
                "term_send needs text or keys",
                "pass text to type (e.g. \"yes\") and/or keys to press (e.g. [\"Enter\"])",
            ));
        }
        if keys.len() > MAX_KEYS {
            return Err(CallError::too_large(
                format!("{} keys in one call", keys.len()),
                format!("at most {MAX_KEYS} keys per term_send; split the input"),
            ));
        }
        let bytes = text.as_ref().map_or(0, String::len) + keys.len() * 8;
        if bytes > MAX_SEND_BYTES {
            return Err(CallError::too_large(
                format!("the input is about {bytes} bytes"),
                format!(
                    "at most {MAX_SEND_BYTES} bytes per term_send; split it, or write a file and have the program read that"
                ),
            ));
        }
        Ok(TermInput { text, keys })
    }

    /// The bytes a terminal would send for this input; arrow keys follow the program's
    /// cursor-key mode.
    pub fn bytes(&self, application_cursor: bool) -> Vec<u8> {
        let mut bytes = self.text.clone().unwrap_or_default().into_bytes();
        for key in &self.keys {
            bytes.extend_from_slice(&key.bytes(application_cursor));
        }
        bytes
    }
}

/// How a session's program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitStatus {
    /// The exit status, when it exited by itself.
    pub code: Option<i32>,
    /// The signal that ended it, otherwise.
    pub signal: Option<i32>,
}

impl ExitStatus {
    pub fn from_std(status: std::process::ExitStatus) -> ExitStatus {
        use std::os::unix::process::ExitStatusExt;
        ExitStatus {
            code: status.code(),
            signal: status.signal(),
        }
    }

    /// "TERM" for a session ended by SIGTERM.
    pub fn signal_name(&self) -> Option<String> {
        self.signal.map(|number| {
            signal_name(number)
                .map(str::to_owned)
                .unwrap_or_else(|| number.to_string())
        })
    }

    pub fn to_process_exit(self) -> ProcessExit {
        ProcessExit { code: self.code }
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal_name()) {
            (Some(code), _) => write!(f, "exited with status {code}"),
            (None, Some(signal)) => write!(f, "was ended by signal {signal}"),
            (None, None) => f.write_str("ended"),
        }
    }
}

/// Whether a session's program still runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    Running,
    Ended(ExitStatus),
}

impl RunState {
    pub fn is_running(self) -> bool {
        self == RunState::Running
    }

    pub fn exit(self) -> Option<ExitStatus> {
        match self {
            RunState::Running => None,
            RunState::Ended(status) => Some(status),
        }
    }
}

/// The reply to a start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionStarted {
    pub id: SessionId,
    pub pid: u32,
    pub command: String,
    pub size: TermSize,
    /// The task and step the session works for.
    pub link: Option<StepLink>,
}

/// The reply to a send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputSent {
    pub id: SessionId,
    pub bytes: usize,
}

/// What a session shows: the reply to a read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionSnapshot {
    pub id: SessionId,
    pub pid: u32,
    pub command: String,
    pub size: TermSize,
    pub started_at: Timestamp,
    /// The visible screen as text: one line per row (wrapped rows joined), trailing blanks
    /// removed.
    pub screen: String,
    /// The newest lines that scrolled off the top, oldest first (at most what was asked).
    pub scrollback: Vec<String>,
    /// How many scrollback lines the session keeps now.
    pub scrollback_kept: usize,
    pub state: RunState,
    /// Bytes the program wrote to its terminal so far.
    pub output_bytes: u64,
}

impl SessionSnapshot {
    /// The newest non-blank line of the output (the screen, then the scrollback), trimmed.
    pub fn last_line(&self) -> Option<String> {
        self.screen
            .lines()
            .rev()
            .chain(self.scrollback.iter().rev().map(String::as_str))
            .find(|line| !line.trim().is_empty())
            .map(|line| line.trim().to_owned())
    }
}

/// The reply to a stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionStopped {
    pub id: SessionId,
    pub pid: u32,
    pub signal: Signal,
    pub outcome: StopOutcome,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopOutcome {
    /// It had ended before; nothing was sent.
    AlreadyEnded(ExitStatus),
    /// It ended after the signal.
    Ended(ExitStatus),
    /// The signal was sent but the program still runs after waiting this long.
    StillRunning(Duration),
}

/// Counts for status reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerminalsStats {
    pub live: usize,
    pub ended_kept: usize,
    pub started: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_checked_and_described() {
        let argv =
            CommandLine::argv(vec!["echo".into(), "two words".into(), "it's".into()]).unwrap();
        assert_eq!(argv.display(), "echo 'two words' 'it'\\''s'");
        assert_eq!(
            argv.program_and_args(),
            ("echo".into(), vec!["two words".into(), "it's".into()])
        );
        let shell = CommandLine::shell("make -j8 | tee log".into()).unwrap();
        assert_eq!(
            shell.program_and_args(),
            (
                "/bin/sh".into(),
                vec!["-c".into(), "make -j8 | tee log".into()]
            )
        );
        assert!(CommandLine::argv(vec![]).is_err());
        assert!(CommandLine::argv(vec![" ".into()]).is_err());
        assert!(CommandLine::shell("  ".into()).is_err());
        assert!(CommandLine::shell("a\0b".into()).is_err());
        let huge = CommandLine::shell("x".repeat(MAX_COMMAND_BYTES + 1)).unwrap_err();
        assert_eq!(huge.kind, crate::ErrorKind::TooLarge);
    }

    #[test]
    fn sizes_default_and_stay_in_range() {
        assert_eq!(
            TermSize::new(None, None).unwrap(),
            TermSize {
                cols: 120,
                rows: 40
            }
        );
        assert_eq!(
            TermSize::new(Some(80), Some(24)).unwrap().to_string(),
            "80x24"
        );
        let error = TermSize::new(Some(10), None).unwrap_err();
        assert!(error.hint.contains("between 20 and 300"), "{}", error.hint);
        assert!(TermSize::new(None, Some(1000)).is_err());
    }

    #[test]
    fn start_requests_need_an_absolute_cwd_and_sane_env() {
        let command = CommandLine::shell("true".into()).unwrap();
        let start = |cwd: Option<&str>, env: &[(&str, &str)]| {
            StartSession::new(
                command.clone(),
                cwd.map(str::to_owned),
                env.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                TermSize::default(),
            )
        };
        assert!(start(Some("/tmp"), &[("RUST_LOG", "debug")]).is_ok());
        assert!(
            start(Some("build"), &[])
                .unwrap_err()
                .message
                .contains("not an absolute path")
        );
        assert!(start(None, &[("A=B", "c")]).is_err());
        assert!(start(None, &[("", "c")]).is_err());
    }

    #[test]
    fn session_ids_parse_and_format() {
        let id = SessionId::from_sequence(1_771_002_000_000);
        assert!(
            id.as_str().starts_with("s-") && id.as_str().len() == 8,
            "{id}"
        );
        assert_eq!(SessionId::parse(&format!(" {id} ")).unwrap(), id);
        assert!(SessionId::parse("").is_err());
        assert!(SessionId::parse("s 1").is_err());
        assert_ne!(SessionId::from_sequence(1), SessionId::from_sequence(2));
    }

    #[test]
    fn exit_statuses_read_well() {
        let exited = ExitStatus {
            code: Some(0),
            signal: None,
        };
        assert_eq!(exited.to_string(), "exited with status 0");
        let killed = ExitStatus {
            code: None,
            signal: Some(15),
        };
        assert_eq!(killed.to_string(), "was ended by signal TERM");
        assert_eq!(killed.to_process_exit(), ProcessExit { code: None });
    }
}
