//! Terminal sessions as shared data: the table of sessions, one `Session` per program, and
//! the pump task that moves a program's output into its screen.
//!
//! The table lives in the [`Directory`](crate::Directory), not in the Terminals actor, like
//! the Clock's timer table: a restarted Terminals actor finds every session where it was,
//! and a wait's `TerminalSource` reads a session's screen without a round trip through any
//! mailbox. Only the Terminals actor adds sessions and signals them; a session's own pump
//! task is the only writer of its screen and its end.

use std::collections::{HashMap, VecDeque};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pty_process::{OwnedReadPty, OwnedWritePty};
use storage::{TaskId, Timestamp};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;

use crate::directory::Directory;
use crate::error::CallError;
use crate::linkage::StepLink;
use crate::locks::lock;
use crate::process::pty::{Signal, signal_session};
use crate::sight::capture::{CaptureError, tell_changed};
use crate::sight::content::{Content, TextOrigin};
use crate::terminals::screen::Screen;
use crate::terminals::types::{
    ExitStatus, InputSent, RunState, SessionId, SessionSnapshot, TermInput, TermSize,
    TerminalsStats,
};

/// Sessions whose program still runs, at most.
pub const MAX_LIVE_SESSIONS: usize = 64;
/// Ended sessions kept readable (the oldest is forgotten past it).
pub const MAX_ENDED_SESSIONS: usize = 32;
/// Ids of forgotten sessions remembered, to tell "ended long ago" from "never existed".
const FORGOTTEN_IDS: usize = 1024;
/// Bytes read from a pty at once.
const READ_CHUNK: usize = 16 * 1024;
/// After the program exits, how long its last output may take to arrive. A background child
/// that keeps the terminal open does not keep the session running past it.
pub const EXIT_DRAIN_TIMEOUT: Duration = Duration::from_millis(500);
/// How long a write waits for the program to take its input.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(5);
/// Scrollback lines above the screen in a wait's capture.
pub const CAPTURE_SCROLLBACK_LINES: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TerminalLimits {
    pub max_live: usize,
    pub max_ended: usize,
}

impl Default for TerminalLimits {
    fn default() -> Self {
        TerminalLimits {
            max_live: MAX_LIVE_SESSIONS,
            max_ended: MAX_ENDED_SESSIONS,
        }
    }
}

/// One program on its pty.
pub struct Session {
    pub id: SessionId,
    pub pid: u32,
    /// The command, for messages.
    pub command: String,
    pub size: TermSize,
    pub started_at: Timestamp,
    /// The task (and step) the session works on, told how it ended.
    pub link: Option<StepLink>,
    screen: Mutex<Screen>,
    /// Released when the session ends.
    writer: tokio::sync::Mutex<Option<OwnedWritePty>>,
    control: Mutex<Option<OwnedFd>>,
    state: watch::Sender<RunState>,
    /// Moves on at each read from the terminal and at the end: the waits on the session
    /// look at once.
    changed: watch::Sender<u64>,
    /// The newest lines typed with `term_send` (at most [`TYPED_LINES_KEPT`]): a wait does
    /// not take their echo for output.
    typed: Mutex<Arc<[String]>>,
}

/// Typed lines a session remembers for the waits on it.
pub const TYPED_LINES_KEPT: usize = 32;

impl Session {
    pub(crate) fn new(
        id: SessionId,
        pid: u32,
        command: String,
        size: TermSize,
        started_at: Timestamp,
        writer: OwnedWritePty,
        control: OwnedFd,
        link: Option<StepLink>,
    ) -> Session {
        Session {
            id,
            pid,
            command,
            size,
            started_at,
            link,
            screen: Mutex::new(Screen::new(size)),
            writer: tokio::sync::Mutex::new(Some(writer)),
            control: Mutex::new(Some(control)),
            state: watch::Sender::new(RunState::Running),
            changed: watch::Sender::new(0),
            typed: Mutex::new(Arc::from(Vec::new())),
        }
    }

    pub fn state(&self) -> RunState {
        *self.state.borrow()
    }

    /// The screen, the newest `lines` of scrollback, and whether it still runs.
    pub fn snapshot(&self, lines: usize) -> SessionSnapshot {
        // The state first: a session seen ended has all its output in the screen already.
        let state = self.state();
        let screen = lock(&self.screen);
        SessionSnapshot {
            id: self.id.clone(),
            pid: self.pid,
            command: self.command.clone(),
            size: self.size,
            started_at: self.started_at,
            screen: screen.screen_text(),
            scrollback: screen.scrollback_tail(lines),
            scrollback_kept: screen.scrollback_len(),
            state,
            output_bytes: screen.output_bytes(),
        }
    }

    /// What a wait sees: the newest scrollback lines, then the screen; and the exit once the
    /// program ended.
    /// Whether the program is an interactive shell ("bash", "/bin/zsh -l"): then the work
    /// is the commands typed into it, and the shell's exit says nothing about them.
    pub fn runs_a_shell(&self) -> bool {
        is_interactive_shell(&self.command)
    }

    pub fn capture(&self) -> Content {
        let state = self.state();
        let screen = lock(&self.screen);
        let mut text = screen.scrollback_tail(CAPTURE_SCROLLBACK_LINES).join("\n");
        let visible = screen.screen_text();
        if !text.is_empty() && !visible.is_empty() {
            text.push('\n');
        }
        text.push_str(&visible);
        Content::Text {
            text: text.into(),
            exit: state.exit().map(ExitStatus::to_process_exit),
            origin: TextOrigin::Terminal {
                typed: lock(&self.typed).clone(),
            },
        }
    }

    /// Remembers the lines of typed text, newest last.
    fn remember_typed(&self, input: &TermInput) {
        let Some(text) = &input.text else { return };
        let lines: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect();
        if lines.is_empty() {
            return;
        }
        let mut typed = lock(&self.typed);
        let mut kept: Vec<String> = typed.iter().cloned().chain(lines).collect();
        let excess = kept.len().saturating_sub(TYPED_LINES_KEPT);
        kept.drain(..excess);
        *typed = Arc::from(kept);
    }

    /// Types `input` into the terminal.
    pub async fn write(&self, input: &TermInput) -> Result<InputSent, CallError> {
        let bytes = input.bytes(lock(&self.screen).application_cursor());
        self.remember_typed(input);
        let mut writer = self.writer.lock().await;
        let Some(pty) = writer.as_mut() else {
            return Err(self.ended_error());
        };
        let written = tokio::time::timeout(SEND_TIMEOUT, async {
            pty.write_all(&bytes).await?;
            pty.flush().await
        })
        .await;
        match written {
            Ok(Ok(())) => Ok(InputSent {
                id: self.id.clone(),
                bytes: bytes.len(),
            }),
            Ok(Err(error)) => Err(CallError::unavailable(
                format!("could not type into {}: {error}", self.id),
                "the program may have just ended; check it with term_read",
            )),
            Err(_) => Err(CallError::unavailable(
                format!(
                    "{} did not take the input within {}s: the program is not reading its terminal",
                    self.id,
                    SEND_TIMEOUT.as_secs()
                ),
                "part of the input may have been typed; look with term_read, and stop a stuck program with term_stop",
            )),
        }
    }

    /// The conflict error for input to a session that ended.
    pub fn ended_error(&self) -> CallError {
        let how = self
            .state()
            .exit()
            .map(|status| status.to_string())
            .unwrap_or_else(|| "ended".into());
        CallError::conflict(
            format!("terminal session {} has ended: its program {how}", self.id),
            "read its last screen with term_read, or start a new session with term_start",
        )
    }

    /// Sends `signal` to the program's process group (and the terminal's foreground job).
    pub fn signal(&self, signal: Signal) -> Result<(), CallError> {
        let control = lock(&self.control);
        signal_session(self.pid, control.as_ref(), signal).map_err(|error| {
            CallError::unavailable(
                format!(
                    "could not send {signal} to {} (pid {}): {error}",
                    self.id, self.pid
                ),
                "it may have just ended; check with term_read",
            )
        })
    }

    /// Waits up to `timeout` for the program to end.
    pub async fn wait_until_ended(&self, timeout: Duration) -> Option<ExitStatus> {
        let mut state = self.state.subscribe();
        let ended = tokio::time::timeout(timeout, state.wait_for(|s| !s.is_running())).await;
        match ended {
            Ok(Ok(state)) => state.exit(),
            _ => self.state().exit(),
        }
    }

    /// A count that moves on whenever the session printed or ended.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn feed(&self, bytes: &[u8]) {
        lock(&self.screen).feed(bytes);
        tell_changed(&self.changed);
    }

    /// Records the end (after all output is in the screen) and releases the terminal.
    async fn finish(&self, status: ExitStatus) {
        self.writer.lock().await.take();
        lock(&self.control).take();
        self.state.send_replace(RunState::Ended(status));
        tell_changed(&self.changed);
    }
}

/// Every session of this daemon, shared by the Terminals actor, its pumps and the wait
/// sources. Cloning shares it.
#[derive(Clone, Default)]
pub struct SessionTable {
    inner: Arc<Mutex<Table>>,
}

#[derive(Default)]
struct Table {
    sessions: HashMap<SessionId, Arc<Session>>,
    /// Ended sessions still kept, oldest first.
    ended: VecDeque<SessionId>,
    forgotten: VecDeque<SessionId>,
    limits: TerminalLimits,
    /// The newest id sequence handed out.
    last_sequence: u64,
    started: u64,
}

impl Table {
    fn live(&self) -> usize {
        self.sessions.len() - self.ended.len()
    }
}

impl std::fmt::Debug for SessionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionTable").finish_non_exhaustive()
    }
}

impl SessionTable {
    pub(crate) fn set_limits(&self, limits: TerminalLimits) {
        lock(&self.inner).limits = limits;
    }

    /// A fresh id. The sequence starts at the clock's milliseconds and never goes back, so
    /// a restarted daemon (whose clock has moved on) does not hand out its predecessor's ids;
    /// the six base-36 digits wrap only after 36^6 ms, about 25 days.
    pub(crate) fn next_id(&self, now: Timestamp) -> SessionId {
        let mut table = lock(&self.inner);
        let sequence = (table.last_sequence + 1).max(now.as_millis());
        table.last_sequence = sequence;
        SessionId::from_sequence(sequence)
    }

    /// Whether another session may start.
    pub(crate) fn check_room(&self) -> Result<(), CallError> {
        let table = lock(&self.inner);
        if table.live() < table.limits.max_live {
            return Ok(());
        }
        let mut live: Vec<&str> = table
            .sessions
            .values()
            .filter(|session| session.state().is_running())
            .map(|session| session.id.as_str())
            .collect();
        live.sort_unstable();
        Err(CallError::conflict(
            format!(
                "{} terminal sessions are running, the most this daemon allows",
                table.limits.max_live
            ),
            format!(
                "stop one you no longer need with term_stop (running: {})",
                live.join(", ")
            ),
        ))
    }

    pub(crate) fn admit(&self, session: Arc<Session>) {
        let mut table = lock(&self.inner);
        table.started += 1;
        table.sessions.insert(session.id.clone(), session);
    }

    /// A session that ended: keep it readable, forgetting the oldest ended one past the limit.
    fn ended(&self, id: &SessionId) {
        let mut table = lock(&self.inner);
        table.ended.push_back(id.clone());
        while table.ended.len() > table.limits.max_ended {
            let Some(oldest) = table.ended.pop_front() else {
                break;
            };
            table.sessions.remove(&oldest);
            table.forgotten.push_back(oldest);
            if table.forgotten.len() > FORGOTTEN_IDS {
                table.forgotten.pop_front();
            }
        }
    }

    /// The session, or a not-found error saying why it is not there.
    pub fn get(&self, id: &SessionId) -> Result<Arc<Session>, CallError> {
        let table = lock(&self.inner);
        if let Some(session) = table.sessions.get(id) {
            return Ok(session.clone());
        }
        if table.forgotten.contains(id) {
            return Err(CallError::not_found(
                format!("terminal session {id} ended long ago and is no longer kept"),
                format!(
                    "the daemon keeps the last {} ended sessions; start the command again with term_start",
                    table.limits.max_ended
                ),
            ));
        }
        Err(CallError::not_found(
            format!("no terminal session {id} in this daemon"),
            "start one with term_start and use the session_id it returns; sessions do not survive a daemon restart",
        ))
    }

    /// Whether `id` names a session this daemon still has (running or ended and kept).
    /// Whether session `id` runs an interactive shell ([`Session::runs_a_shell`]).
    pub fn runs_a_shell(&self, id: &str) -> bool {
        SessionId::parse(id)
            .ok()
            .and_then(|id| self.get(&id).ok())
            .is_some_and(|session| session.runs_a_shell())
    }

    pub fn contains(&self, id: &str) -> bool {
        lock(&self.inner)
            .sessions
            .keys()
            .any(|known| known.as_str() == id)
    }

    /// A wait's capture of session `id` (as a `pty:` target names it).
    pub fn capture(&self, id: &str) -> Result<Content, CaptureError> {
        let found = {
            let table = lock(&self.inner);
            let session = table
                .sessions
                .iter()
                .find(|(known, _)| known.as_str() == id)
                .map(|(_, session)| session.clone());
            match session {
                Some(session) => Ok(session),
                None if table.forgotten.iter().any(|known| known.as_str() == id) => {
                    Err(CaptureError::permanent(format!(
                        "terminal session {id} ended long ago and its output is no longer kept; \
                         start it again with term_start"
                    )))
                }
                None => Err(CaptureError::permanent(format!(
                    "terminal session {id} is not running in this daemon: its output was lost \
                     when the daemon restarted; start it again with term_start"
                ))),
            }
        };
        found.map(|session| session.capture())
    }

    /// The running sessions, as lists in messages show them: "s-4k9x2m (`make test`)".
    pub fn running_described(&self) -> Vec<String> {
        self.running()
            .iter()
            .map(|session| format!("{} (`{}`)", session.id, session.command))
            .collect()
    }

    pub fn stats(&self) -> TerminalsStats {
        let table = lock(&self.inner);
        TerminalsStats {
            live: table.live(),
            ended_kept: table.ended.len(),
            started: table.started,
        }
    }

    /// The running sessions started for `task`, oldest first.
    pub fn running_for(&self, task: &TaskId) -> Vec<Arc<Session>> {
        let mut sessions: Vec<Arc<Session>> = self
            .running()
            .into_iter()
            .filter(|session| {
                session
                    .link
                    .as_ref()
                    .is_some_and(|link| link.task_id == *task)
            })
            .collect();
        sessions.sort_by_key(|session| session.started_at);
        sessions
    }

    fn running(&self) -> Vec<Arc<Session>> {
        lock(&self.inner)
            .sessions
            .values()
            .filter(|session| session.state().is_running())
            .cloned()
            .collect()
    }

    /// Hangs up every running session, as closing a terminal window does, and kills what
    /// is still running after `grace`.
    pub(crate) async fn hang_up_all(&self, grace: Duration) {
        let running = self.running();
        if running.is_empty() {
            return;
        }
        tracing::info!(sessions = running.len(), "hanging up terminal sessions");
        for session in &running {
            let _ = session.signal(Signal::Hup);
        }
        futures::future::join_all(running.iter().map(|s| s.wait_until_ended(grace))).await;
        let stubborn: Vec<&Arc<Session>> = running
            .iter()
            .filter(|session| session.state().is_running())
            .collect();
        for session in &stubborn {
            tracing::warn!(session = %session.id, pid = session.pid, "killing a session that ignored SIGHUP");
            let _ = session.signal(Signal::Kill);
        }
        futures::future::join_all(stubborn.iter().map(|s| s.wait_until_ended(grace))).await;
    }
}

/// Starts the task that reads the program's output into its screen until the program has
/// ended and its output is drained, then records the end.
/// Once it ended, its task and the recall index are told ([`crate::terminals::ended`]).
pub(crate) fn spawn_pump(
    table: SessionTable,
    session: Arc<Session>,
    reader: OwnedReadPty,
    child: tokio::process::Child,
    directory: Directory,
) {
    tokio::spawn(async move {
        let status = pump(&session, reader, child).await;
        tracing::debug!(session = %session.id, %status, "terminal session ended");
        session.finish(status).await;
        table.ended(&session.id);
        crate::terminals::ended::announce(&directory, &session, status);
    });
}

async fn pump(
    session: &Session,
    mut reader: OwnedReadPty,
    mut child: tokio::process::Child,
) -> ExitStatus {
    let mut buffer = vec![0u8; READ_CHUNK];
    // Whether the terminal still delivers output: it reports EIO once every process holding
    // its other end has closed it.
    let mut open = true;
    let mut exited: Option<ExitStatus> = None;
    // Armed when the child exits: output still in the terminal is drained for this long.
    let mut drain = std::pin::pin!(drain_after_exit(false));
    loop {
        if let (Some(status), false) = (exited, open) {
            return status;
        }
        tokio::select! {
            read = reader.read(&mut buffer), if open => match read {
                Ok(0) | Err(_) => open = false,
                Ok(n) => session.feed(&buffer[..n]),
            },
            waited = child.wait(), if exited.is_none() => {
                let status = waited.map(ExitStatus::from_std).unwrap_or(ExitStatus {
                    code: None,
                    signal: None,
                });
                exited = Some(status);
                drain.set(drain_after_exit(true));
            }
            () = &mut drain, if exited.is_some() => {
                if let Some(status) = exited {
                    return status;
                }
            }
        }
    }
}

/// Resolves [`EXIT_DRAIN_TIMEOUT`] after it is made with `armed`; never without. A duration,
/// not a clock reading: the sessions read no time.
async fn drain_after_exit(armed: bool) {
    if armed {
        tokio::time::sleep(EXIT_DRAIN_TIMEOUT).await;
    } else {
        std::future::pending::<()>().await;
    }
}

/// Whether a command line (as a session shows it) starts an interactive shell: a shell's
/// name with nothing but options that keep it interactive ("bash", "zsh -l", "/bin/sh -i"),
/// after variables set for it and `exec` or `env` ("PS1='$ ' exec sh").
fn is_interactive_shell(command: &str) -> bool {
    let words = shell_words(command);
    let mut words = words
        .iter()
        .map(String::as_str)
        .skip_while(|word| is_assignment(word) || matches!(*word, "exec" | "env"));
    let Some(program) = words.next() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let shell = matches!(
        name.trim_start_matches('-'),
        "sh" | "bash"
            | "zsh"
            | "fish"
            | "dash"
            | "ksh"
            | "mksh"
            | "tcsh"
            | "csh"
            | "ash"
            | "nu"
            | "pwsh"
            | "elvish"
            | "xonsh"
    );
    shell
        && words.all(|option| {
            matches!(
                option,
                "-l" | "-i"
                    | "-il"
                    | "-li"
                    | "--login"
                    | "--interactive"
                    | "--norc"
                    | "--noprofile"
                    | "--no-rcs"
                    | "-f"
            )
        })
}

/// `NAME=value`.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The words of a command line, with single and double quotes taken off (enough to find a
/// program's name; no expansions).
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => word.get_or_insert_default().push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_default().push(c),
        }
    }
    words.extend(word);
    words
}

#[cfg(test)]
mod shell_tests {
    use super::is_interactive_shell;

    #[test]
    fn interactive_shells_are_told_from_commands() {
        for shell in [
            "bash",
            "/bin/bash",
            "zsh -l",
            "/usr/bin/fish",
            "sh -i",
            "bash --norc",
            "PS1='$ ' exec sh",
            "env TERM=dumb bash",
        ] {
            assert!(is_interactive_shell(shell), "{shell}");
        }
        for command in [
            "bash -c make",
            "make",
            "sh build.sh",
            "bash script.sh",
            "npm test",
            "X=1 make",
            "",
        ] {
            assert!(!is_interactive_shell(command), "{command}");
        }
    }
}
