//! Terminal sessions the daemon owns: the Terminals actor behind `term_start`, `term_send`,
//! `term_read` and `term_stop`, and the `pty:` targets of smart waits.
//!
//! A session is a program on its own pseudo-terminal, started by the process module
//! ([`crate::process::pty`]); its output goes through a vt100 emulator into a screen and a
//! bounded scrollback ([`screen`]), in memory only: sessions survive client disconnects and
//! an actor restart, not a daemon restart. The sessions live in a table shared through the
//! [`Directory`] ([`session`]); this actor is the one that adds to it (checking the limits),
//! types into sessions and signals them. Slow work (waiting for a program to take input or
//! to end) runs in tasks that answer the caller, so one stuck program never blocks the
//! mailbox. When the tree stops, every running session is hung up.

mod ended;
pub mod keys;
pub mod screen;
pub mod session;
pub mod source;
pub mod types;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};

use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::process::pty::{PtyProcess, PtyRequest, Signal, spawn_pty};
use session::{Session, SessionTable, TerminalLimits, spawn_pump};
use types::{
    CommandLine, InputSent, SessionId, SessionSnapshot, SessionStarted, SessionStopped,
    StartSession, StopOutcome, TermInput, TerminalsStats,
};

/// How long `term_stop` waits for the program to end after the signal.
pub const STOP_WAIT: Duration = Duration::from_secs(3);
/// How long a hung-up session may take to end at shutdown before it is killed.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// How long the tree waits for the Terminals actor (or the task it hands a request to).
pub const TERMINAL_CALL_TIMEOUT: Duration = Duration::from_secs(15);

pub enum TerminalsMsg {
    Start(
        StartSession,
        RpcReplyPort<Result<SessionStarted, CallError>>,
    ),
    Send(
        SessionId,
        TermInput,
        RpcReplyPort<Result<InputSent, CallError>>,
    ),
    /// The screen and this many scrollback lines.
    Read(
        SessionId,
        usize,
        RpcReplyPort<Result<SessionSnapshot, CallError>>,
    ),
    Stop(
        SessionId,
        Signal,
        RpcReplyPort<Result<SessionStopped, CallError>>,
    ),
    Stats(RpcReplyPort<TerminalsStats>),
}

pub struct TerminalsActor;

pub struct TerminalsArgs {
    pub directory: Directory,
    /// The sessions: the same table across restarts of this actor.
    pub sessions: SessionTable,
    pub limits: TerminalLimits,
}

pub struct TerminalsState {
    directory: Directory,
    sessions: SessionTable,
}

impl Actor for TerminalsActor {
    type Msg = TerminalsMsg;
    type State = TerminalsState;
    type Arguments = TerminalsArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<TerminalsMsg>,
        args: TerminalsArgs,
    ) -> Result<TerminalsState, ActorProcessingErr> {
        let sessions = args.sessions;
        sessions.set_limits(args.limits);
        Ok(TerminalsState {
            directory: args.directory,
            sessions,
        })
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<TerminalsMsg>,
        state: &mut TerminalsState,
    ) -> Result<(), ActorProcessingErr> {
        // Only a deliberate stop (the daemon shutting down) gets here; a panic restarts the
        // actor and leaves the sessions running.
        state.sessions.hang_up_all(SHUTDOWN_GRACE).await;
        Ok(())
    }

    async fn handle(
        &self,
        _myself: ActorRef<TerminalsMsg>,
        msg: TerminalsMsg,
        state: &mut TerminalsState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.faults().check(ActorKind::Terminals);
        match msg {
            TerminalsMsg::Start(request, reply) => {
                let _ = reply.send(start(state, &request));
            }
            TerminalsMsg::Send(id, input, reply) => {
                match state.sessions.get(&id) {
                    Err(error) => {
                        let _ = reply.send(Err(error));
                    }
                    Ok(session) if !session.state().is_running() => {
                        let _ = reply.send(Err(session.ended_error()));
                    }
                    // A program that does not read its input must not hold up the mailbox.
                    Ok(session) => {
                        tokio::spawn(async move {
                            let _ = reply.send(session.write(&input).await);
                        });
                    }
                }
            }
            TerminalsMsg::Read(id, lines, reply) => {
                let snapshot = state
                    .sessions
                    .get(&id)
                    .map(|session| session.snapshot(lines));
                let _ = reply.send(snapshot);
            }
            TerminalsMsg::Stop(id, signal, reply) => stop(state, &id, signal, reply),
            TerminalsMsg::Stats(reply) => {
                let _ = reply.send(state.sessions.stats());
            }
        }
        Ok(())
    }
}

fn start(state: &TerminalsState, request: &StartSession) -> Result<SessionStarted, CallError> {
    state.sessions.check_room()?;
    if let Some(cwd) = &request.cwd
        && !cwd.is_dir()
    {
        return Err(CallError::invalid(
            format!("cwd {} is not a directory", cwd.display()),
            "pass an existing directory, or create it first",
        ));
    }
    let (program, args) = request.command.program_and_args();
    let pty_request = PtyRequest {
        program,
        args,
        cwd: request.cwd.clone(),
        env: request.env.clone(),
        cols: request.size.cols,
        rows: request.size.rows,
    };
    let PtyProcess {
        pid,
        child,
        reader,
        writer,
        control,
    } = spawn_pty(&pty_request).map_err(|error| spawn_error(&request.command, &error))?;
    let now = state.directory.now();
    let id = state.sessions.next_id(now);
    let command = request.command.display();
    let session = Arc::new(Session::new(
        id.clone(),
        pid,
        command.clone(),
        request.size,
        now,
        writer,
        control,
        request.link.clone(),
    ));
    state.sessions.admit(session.clone());
    spawn_pump(
        state.sessions.clone(),
        session,
        reader,
        child,
        state.directory.clone(),
    );
    tracing::info!(session = %id, pid, %command, "terminal session started");
    Ok(SessionStarted {
        id,
        pid,
        command,
        size: request.size,
        link: request.link.clone(),
    })
}

fn spawn_error(command: &CommandLine, error: &std::io::Error) -> CallError {
    let (program, _) = command.program_and_args();
    match error.kind() {
        std::io::ErrorKind::NotFound => CallError::invalid(
            format!("cannot start {program}: no such program"),
            "check the spelling or give the full path (e.g. /usr/bin/make); to use pipes, \
             redirections or && pass command as one string, which /bin/sh -c runs",
        ),
        std::io::ErrorKind::PermissionDenied => CallError::invalid(
            format!("cannot start {program}: permission denied"),
            "the file is not executable by the daemon's user; run it through its interpreter, \
             e.g. [\"sh\", \"script.sh\"]",
        ),
        _ => CallError::unavailable(
            format!("cannot start {program}: {error}"),
            "the system may be out of ptys or processes; stop sessions you no longer need and retry",
        ),
    }
}

fn stop(
    state: &TerminalsState,
    id: &SessionId,
    signal: Signal,
    reply: RpcReplyPort<Result<SessionStopped, CallError>>,
) {
    let session = match state.sessions.get(id) {
        Ok(session) => session,
        Err(error) => {
            let _ = reply.send(Err(error));
            return;
        }
    };
    let stopped = |outcome| SessionStopped {
        id: session.id.clone(),
        pid: session.pid,
        signal,
        outcome,
    };
    if let Some(status) = session.state().exit() {
        let _ = reply.send(Ok(stopped(StopOutcome::AlreadyEnded(status))));
        return;
    }
    // A program that ended a moment ago (its group is gone, its last output still draining)
    // cannot be signalled; the wait below tells that apart from a real failure.
    let signalled = session.signal(signal);
    if signalled.is_ok() {
        tracing::info!(session = %session.id, %signal, "terminal session signalled");
    }
    let id = session.id.clone();
    let pid = session.pid;
    tokio::spawn(async move {
        let outcome = match (signalled, session.wait_until_ended(STOP_WAIT).await) {
            (Ok(()), Some(status)) => StopOutcome::Ended(status),
            (Ok(()), None) => StopOutcome::StillRunning(STOP_WAIT),
            (Err(_), Some(status)) => StopOutcome::AlreadyEnded(status),
            (Err(error), None) => {
                let _ = reply.send(Err(error));
                return;
            }
        };
        let _ = reply.send(Ok(SessionStopped {
            id,
            pid,
            signal,
            outcome,
        }));
    });
}
