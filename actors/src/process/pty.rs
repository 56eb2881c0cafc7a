//! Programs on a pseudo-terminal: starting one for a terminal session, and signalling it.
//!
//! Part of [`crate::process`], the one place lookout starts programs. The program runs from
//! an argv array exactly as given; a shell runs only when the caller passes the shell as the
//! program (`/bin/sh -c LINE`, which the terminal sessions do when an agent asks for a
//! command line). The child leads a new session whose controlling terminal is the pty, so
//! its process group id is its pid and a signal to that group reaches what it started in the
//! foreground. Reads and writes go through tokio's `AsyncFd`: no thread per session.

use std::fmt;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;

use pty_process::{OwnedReadPty, OwnedWritePty};
use rustix::process::Pid;

/// What a session's programs see in `TERM` unless the caller sets it: the vt100 emulator
/// understands the xterm sequences programs send for it.
pub const DEFAULT_TERM: &str = "xterm-256color";

/// A program to start on a new pty of the given size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtyRequest {
    pub program: String,
    pub args: Vec<String>,
    /// The working directory; the daemon's when `None`.
    pub cwd: Option<PathBuf>,
    /// Set on top of the daemon's environment (and `TERM`).
    pub env: Vec<(String, String)>,
    pub cols: u16,
    pub rows: u16,
}

/// A started program and the controller end of its pty.
pub struct PtyProcess {
    pub pid: u32,
    pub child: tokio::process::Child,
    /// Everything the program writes to its terminal.
    pub reader: OwnedReadPty,
    /// What is written here, the program reads as typed input.
    pub writer: OwnedWritePty,
    /// A second descriptor of the controller end, to ask the terminal for its foreground
    /// process group (the owned halves do not lend theirs).
    pub control: OwnedFd,
}

impl fmt::Debug for PtyProcess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PtyProcess")
            .field("pid", &self.pid)
            .finish()
    }
}

/// Starts `request` on a new pty. Must run inside the tokio runtime (the pty registers with
/// its reactor).
pub fn spawn_pty(request: &PtyRequest) -> io::Result<PtyProcess> {
    let (pty, pts) = pty_process::open().map_err(into_io)?;
    pty.resize(pty_process::Size::new(request.rows, request.cols))
        .map_err(into_io)?;
    // Close-on-exec, so no later child inherits this session's terminal.
    let control = rustix::io::fcntl_dupfd_cloexec(pty.as_fd(), 0)?;
    #[allow(clippy::disallowed_methods)] // the one place terminal programs start
    let mut command = pty_process::Command::new(&request.program);
    for variable in super::SERVICE_MANAGER_VARIABLES {
        command = command.env_remove(variable);
    }
    let mut command = command
        .args(&request.args)
        .env("TERM", DEFAULT_TERM)
        .envs(request.env.iter().map(|(key, value)| (key, value)))
        .kill_on_drop(true);
    if let Some(cwd) = &request.cwd {
        command = command.current_dir(cwd);
    }
    let child = command.spawn(pts).map_err(into_io)?;
    let pid = child
        .id()
        .ok_or_else(|| io::Error::other("the program ended before its pid was known"))?;
    let (reader, writer) = pty.into_split();
    Ok(PtyProcess {
        pid,
        child,
        reader,
        writer,
        control,
    })
}

fn into_io(error: pty_process::Error) -> io::Error {
    match error {
        pty_process::Error::Io(error) => error,
        pty_process::Error::Rustix(errno) => errno.into(),
        other => io::Error::other(other.to_string()),
    }
}

/// The signals an agent may send to a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signal {
    Term,
    Int,
    Hup,
    Kill,
}

impl Signal {
    pub const ALL: [Signal; 4] = [Signal::Term, Signal::Int, Signal::Hup, Signal::Kill];

    /// `TERM`, `term`, `SIGTERM` and `15` all name SIGTERM.
    pub fn parse(text: &str) -> Option<Signal> {
        let upper = text.trim().to_ascii_uppercase();
        let name = upper.strip_prefix("SIG").unwrap_or(&upper);
        Signal::ALL
            .into_iter()
            .find(|signal| signal.as_str() == name || signal.number().to_string() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Signal::Term => "TERM",
            Signal::Int => "INT",
            Signal::Hup => "HUP",
            Signal::Kill => "KILL",
        }
    }

    pub fn number(self) -> i32 {
        self.to_rustix().as_raw()
    }

    fn to_rustix(self) -> rustix::process::Signal {
        match self {
            Signal::Term => rustix::process::Signal::TERM,
            Signal::Int => rustix::process::Signal::INT,
            Signal::Hup => rustix::process::Signal::HUP,
            Signal::Kill => rustix::process::Signal::KILL,
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The usual name of signal `number` ("TERM"), for exit statuses.
pub fn signal_name(number: i32) -> Option<&'static str> {
    use rustix::process::Signal as S;
    let known = [
        (S::HUP, "HUP"),
        (S::INT, "INT"),
        (S::QUIT, "QUIT"),
        (S::ILL, "ILL"),
        (S::TRAP, "TRAP"),
        (S::ABORT, "ABRT"),
        (S::BUS, "BUS"),
        (S::FPE, "FPE"),
        (S::KILL, "KILL"),
        (S::USR1, "USR1"),
        (S::SEGV, "SEGV"),
        (S::USR2, "USR2"),
        (S::PIPE, "PIPE"),
        (S::ALARM, "ALRM"),
        (S::TERM, "TERM"),
    ];
    known
        .into_iter()
        .find(|(signal, _)| signal.as_raw() == number)
        .map(|(_, name)| name)
}

/// Sends `signal` to the process group the session leader `pid` heads and, when it differs
/// (a shell with job control runs each job in its own group), to the terminal's foreground
/// process group. Fails only when neither could be signalled.
pub fn signal_session(pid: u32, control: Option<&OwnedFd>, signal: Signal) -> io::Result<()> {
    let leader = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("bad pid {pid}")))?;
    let to_leader = rustix::process::kill_process_group(leader, signal.to_rustix())
        .or_else(|_| rustix::process::kill_process(leader, signal.to_rustix()));
    let foreground = control
        .and_then(|fd| rustix::termios::tcgetpgrp(fd).ok())
        .filter(|group| *group != leader);
    if let Some(group) = foreground {
        let to_foreground = rustix::process::kill_process_group(group, signal.to_rustix());
        if to_foreground.is_ok() {
            return Ok(());
        }
    }
    to_leader.map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    fn request(program: &str, args: &[&str]) -> PtyRequest {
        PtyRequest {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            cwd: None,
            env: Vec::new(),
            cols: 100,
            rows: 30,
        }
    }

    /// Everything the program writes until its terminal closes.
    async fn output_of(mut process: PtyProcess) -> String {
        let mut output = Vec::new();
        // EIO once every holder of the terminal's other end closed it: that is the end.
        let _ = process.reader.read_to_end(&mut output).await;
        let _ = process.child.wait().await;
        String::from_utf8_lossy(&output).into_owned()
    }

    #[tokio::test]
    async fn the_program_sees_a_terminal_of_the_requested_size_and_environment() {
        let dir = tempfile::tempdir().unwrap();
        let mut shell = request(
            "/bin/sh",
            &[
                "-c",
                "stty size; echo \"$TERM $GREETING\"; pwd; test -t 0 && echo tty",
            ],
        );
        shell.env.push(("GREETING".into(), "hello".into()));
        shell.cwd = Some(dir.path().to_owned());
        let output = output_of(spawn_pty(&shell).unwrap()).await;
        assert!(output.contains("30 100"), "{output}");
        assert!(output.contains("xterm-256color hello"), "{output}");
        let cwd = dir.path().canonicalize().unwrap();
        assert!(output.contains(cwd.to_str().unwrap()), "{output}");
        assert!(output.contains("tty"), "{output}");
    }

    #[tokio::test]
    async fn arguments_are_never_interpreted_by_a_shell() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("pwned");
        let hostile = format!("; touch {} #", marker.display());
        let output = output_of(spawn_pty(&request("echo", &[&hostile, "$(id)"])).unwrap()).await;
        assert!(output.contains(&hostile), "{output}");
        assert!(output.contains("$(id)"), "{output}");
        assert!(!marker.exists());
        let missing = spawn_pty(&request("/nonexistent/program", &[])).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    #[tokio::test]
    async fn a_signal_reaches_the_whole_foreground_job() {
        // The shell waits for sleep, its child in the same group: TERM to the group ends both.
        let process = spawn_pty(&request("/bin/sh", &["-c", "sleep 1000; echo never"])).unwrap();
        let PtyProcess {
            pid,
            mut child,
            control,
            ..
        } = process;
        signal_session(pid, Some(&control), Signal::Term).unwrap();
        let status = child.wait().await.unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(Signal::Term.number()));
    }

    #[test]
    fn signal_names_parse_forgivingly() {
        for (text, signal) in [
            ("TERM", Signal::Term),
            ("sigint", Signal::Int),
            (" hup ", Signal::Hup),
            ("9", Signal::Kill),
        ] {
            assert_eq!(Signal::parse(text), Some(signal), "{text}");
        }
        assert_eq!(Signal::parse("STOP"), None);
        assert_eq!(signal_name(15), Some("TERM"));
        assert_eq!(signal_name(9), Some("KILL"));
        assert_eq!(signal_name(64), None);
    }
}
