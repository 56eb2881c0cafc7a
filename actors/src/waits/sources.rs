//! The factory that picks a source and a gate for a target, and `ProductionSources`, the
//! real one:
//!
//! - `file:` — [`crate::sight::capture::file::FileTail`], the tail of a log;
//! - `tmux:` — [`crate::sight::capture::tmux::TmuxPane`], `tmux capture-pane`;
//! - `pty:` — terminal sessions the daemon owns (`terminals::source`), or the agent's own
//!   OpenClaw exec sessions ([`crate::sight::capture::openclaw::ExecSource`]) when the id is not the daemon's
//!   and an OpenClaw gateway is set up;
//! - `window:`/`screen` — pixels, through the X11 capture, or the Wayland one when the
//!   daemon was given a Wayland compositor, and the pixel gate.

use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::directory::Directory;
use crate::error::CallError;
use crate::lanes::Lane;
use crate::openclaw::exec::{ExecSession, ExecSessions, ExecState};
use crate::process::{RunRequest, Spawner};
use crate::sight::capture::file::{FileTail, not_a_regular_file};
use crate::sight::capture::openclaw::ExecSource;
use crate::sight::capture::portal::PortalSettings;
use crate::sight::capture::portal::session;
use crate::sight::capture::portal::stream::GSTREAMER_INSPECT;
use crate::sight::capture::tmux::TmuxPane;
use crate::sight::capture::wayland::access::{Chosen, portal_window_refusal};
use crate::sight::capture::wayland::{ScreenAccess, WaylandCapture, WaylandDisplay, WaylandPixels};
use crate::sight::capture::x11::windows::closest_titles;
use crate::sight::capture::x11::{CaptureOptions, Watched, WindowStatus, X11Capture, X11Source};
use crate::sight::capture::{CaptureError, Source};
use crate::sight::gate::Gate;
use crate::sight::gate::pixel::PixelGate;
use crate::sight::gate::text::TextGate;
use crate::sight::target::{Target, WindowSelector};
use crate::terminals::session::SessionTable;
use crate::terminals::source::TerminalSource;
use crate::terminals::types::SessionId;
use crate::waits::texts;

/// Builds the source and the gate for a target.
pub trait SourceFactory: Debug + Send + Sync + 'static {
    /// A source for `target`, or why it cannot be watched (bad pane, no X display…).
    fn source(&self, target: &Target, directory: &Directory) -> Result<Box<dyn Source>, CallError>;

    /// The gate suited to the target's content.
    fn gate(&self, target: &Target) -> Box<dyn Gate>;

    /// Whether a new wait on `target` makes sense now (a `pty:` session must exist and an X
    /// display must open when the wait starts; a resumed wait finds out from its first
    /// capture instead), and what the agent should know about it (a window that is not
    /// there yet).
    fn check_new(
        &self,
        _target: &Target,
        _directory: &Directory,
    ) -> BoxFuture<'static, Result<Vec<String>, CallError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Whether the target's source reports the exit of the process that does the work: a
    /// terminal session running a command (not an interactive shell, whose exit says
    /// nothing of the commands typed into it).
    fn reports_exit(&self, target: &Target) -> bool {
        matches!(target, Target::Pty(_))
    }

    /// Whether the target shows a shell prompt (terminals and tmux panes, not log files).
    fn has_prompt(&self, target: &Target) -> bool {
        matches!(target, Target::Pty(_) | Target::Tmux(_))
    }

    /// Whether what the target prints can be seen; not so for an OpenClaw exec session,
    /// whose state and exit status alone are visible, so only "it finishes" can be judged.
    fn shows_output(&self, _target: &Target) -> bool {
        true
    }
}

/// A `file:` target that exists must be a regular file (a FIFO or a device would block
/// every read); one that does not exist yet is fine.
async fn check_file(path: PathBuf, lane: &Lane) -> Result<(), CallError> {
    let refusal = lane
        .run(move || match std::fs::metadata(&path) {
            Ok(metadata) => not_a_regular_file(&path, &metadata),
            Err(_) => None,
        })
        .await
        .unwrap_or(None);
    match refusal {
        Some(refusal) => Err(CallError::invalid(refusal.problem, refusal.fix)),
        None => Ok(()),
    }
}

/// The real sources.
#[derive(Debug)]
pub struct ProductionSources {
    pub spawner: Arc<dyn Spawner>,
    /// The X display of `window:` and `screen` targets (`[x11] display`, else `DISPLAY`).
    pub display: Option<String>,
    /// The Wayland compositor that `window:` and `screen` targets are read from instead of
    /// X11, when the desktop is a Wayland session.
    pub wayland: Option<WaylandDisplay>,
    /// The pixel gate's floor: a still window is judged again after this long.
    pub pixel_floor: Duration,
    /// The task ledger of the user's OpenClaw gateway, for `pty:` ids of the agent's own
    /// exec sessions, or where the daemon looked for one.
    pub openclaw: ExecSessions,
    /// The daemon's terminal sessions, to tell a shell from a command.
    pub terminals: SessionTable,
    /// Where followed tmux panes pipe their output (`None`: polled only).
    pub tmux_pipes: Option<PathBuf>,
}

impl SourceFactory for ProductionSources {
    fn source(&self, target: &Target, directory: &Directory) -> Result<Box<dyn Source>, CallError> {
        match target {
            Target::File(path) => Ok(Box::new(FileTail::new(
                path.clone(),
                directory.lanes().targets.clone(),
            ))),
            Target::Tmux(pane) => Ok(Box::new(match &self.tmux_pipes {
                Some(pipes) => {
                    TmuxPane::piped_into(pane.clone(), self.spawner.clone(), pipes.clone())
                }
                None => TmuxPane::new(pane.clone(), self.spawner.clone()),
            })),
            Target::Pty(session) => match self.openclaw.ledger() {
                Some(ledger) if self.is_exec_session(session) => {
                    Ok(Box::new(ExecSource::new(ledger.clone(), session)))
                }
                _ => Ok(Box::new(TerminalSource::new(&self.terminals, session))),
            },
            Target::Window(_) | Target::Screen => {
                let bug = |error: CaptureError| {
                    CallError::internal(error.message, "this is a bug in lookout")
                };
                Ok(match &self.wayland {
                    Some(wayland) => Box::new(
                        WaylandPixels::new(wayland.clone(), target).map_err(|error| {
                            CallError::unavailable(
                                error.message,
                                "watch screen, or a text target (pty:, tmux:, file:)",
                            )
                        })?,
                    ),
                    None => {
                        Box::new(X11Source::deferred(self.display.clone(), target).map_err(bug)?)
                    }
                })
            }
        }
    }

    fn gate(&self, target: &Target) -> Box<dyn Gate> {
        if target.is_pixels() {
            Box::new(PixelGate::new(self.pixel_floor))
        } else {
            Box::new(TextGate::default())
        }
    }

    fn reports_exit(&self, target: &Target) -> bool {
        match target {
            Target::Pty(session) => !self.terminals.runs_a_shell(session),
            _ => false,
        }
    }

    fn has_prompt(&self, target: &Target) -> bool {
        match target {
            Target::Pty(session) => !self.is_exec_session(session),
            Target::Tmux(_) => true,
            _ => false,
        }
    }

    fn shows_output(&self, target: &Target) -> bool {
        !matches!(target, Target::Pty(session) if self.is_exec_session(session))
    }

    fn check_new(
        &self,
        target: &Target,
        directory: &Directory,
    ) -> BoxFuture<'static, Result<Vec<String>, CallError>> {
        if let Target::Pty(session) = target {
            return check_pty(
                session.trim().to_owned(),
                self.terminals.clone(),
                self.openclaw.clone(),
            );
        }
        let file = match target {
            Target::File(path) => Some((path.clone(), directory.lanes().targets.clone())),
            _ => None,
        };
        let watched = Watched::of(target);
        let display = self.display.clone();
        let wayland = self.wayland.clone();
        let spawner = self.spawner.clone();
        let background_output = target.is_background_output();
        Box::pin(async move {
            if let Some((path, lane)) = file {
                check_file(path, &lane).await?;
                if background_output {
                    return Ok(vec![texts::background_output_note()]);
                }
            }
            let Some(watched) = watched else {
                return Ok(Vec::new());
            };
            let needle = match &watched {
                Watched::Window(WindowSelector::Title(needle)) => Some(needle.clone()),
                _ => None,
            };
            // Open the display once, off the runtime, so that a wait that cannot work fails
            // now with a reason instead of at its first captures; a window not there yet is
            // fine (it may open later), and the reply says what is there instead.
            let session = if wayland.is_some() { "Wayland" } else { "X11" };
            let opened = tokio::task::spawn_blocking(move || match wayland {
                Some(wayland) => match ScreenAccess::choose(&wayland)? {
                    Chosen::Screencopy => WaylandCapture::connect(&wayland, watched)?
                        .window_status()
                        .map(Pixels::Read),
                    Chosen::Portal(portal) if matches!(watched, Watched::Screen) => {
                        Ok(Pixels::ThroughPortal(portal))
                    }
                    Chosen::Portal(_) => Err(portal_window_refusal(&wayland)),
                },
                None => {
                    X11Capture::connect(display.as_deref(), watched, CaptureOptions::default())?
                        .window_status()
                        .map(Pixels::Read)
                }
            })
            .await
            .map_err(|error| {
                CallError::internal(
                    format!("opening the {session} display failed: {error}"),
                    "retry",
                )
            })?;
            let opened = opened.map_err(|error| {
                CallError::unavailable(
                    error.message,
                    format!(
                        "window: and screen waits need a display the daemon can read ({session} \
                         here); text targets (pty:, tmux:, file:) work without one"
                    ),
                )
            })?;
            let status = match opened {
                Pixels::Read(status) => status,
                Pixels::ThroughPortal(portal) => {
                    check_portal(&portal, spawner.as_ref()).await?;
                    return Ok(vec![texts::portal_note()]);
                }
            };
            Ok(match (status, needle) {
                (WindowStatus::Missing { titles }, Some(needle)) => {
                    let closest = closest_titles(&needle, &titles, 3);
                    vec![texts::window_missing_note(&needle, &closest)]
                }
                (WindowStatus::Missing { .. }, None) => {
                    vec![texts::window_missing_note("", &[])]
                }
                (WindowStatus::Found, _) => Vec::new(),
            })
        })
    }
}

/// What opening the display for a new pixel wait found.
enum Pixels {
    /// The display was read: whether the window is there.
    Read(WindowStatus),
    /// The screen is read through the ScreenCast portal, not opened yet (that may ask the
    /// user).
    ThroughPortal(PortalSettings),
}

/// Whether the screen can be read through the portal: a ScreenCast portal answers on the
/// session bus, and GStreamer with PipeWire's plugin is there to read its stream.
async fn check_portal(portal: &PortalSettings, spawner: &dyn Spawner) -> Result<(), CallError> {
    session::probe(&portal.bus).await.map_err(|error| {
        CallError::unavailable(
            error.message,
            "the screen of a GNOME or KDE Wayland session is read through the ScreenCast \
             portal; set [wayland] session_bus if the daemon does not run in that session",
        )
    })?;
    let inspector = GSTREAMER_INSPECT;
    let missing = || {
        CallError::unavailable(
            format!(
                "{inspector} finds no pipewiresrc: lookout reads the portal's screen stream \
                 with GStreamer's PipeWire plugin"
            ),
            "install GStreamer's tools and PipeWire plugin (Debian, Ubuntu: apt install \
             gstreamer1.0-tools gstreamer1.0-pipewire; Fedora: gstreamer1-plugins-base-tools \
             pipewire-gstreamer)",
        )
    };
    let found = spawner
        .run(RunRequest {
            program: inspector.to_owned(),
            args: vec!["pipewiresrc".to_owned()],
            stdin: Vec::new(),
            timeout: Duration::from_secs(20),
            max_stdout_bytes: 0,
            env: Vec::new(),
        })
        .await
        .map_err(|_| missing())?;
    if found.succeeded() {
        Ok(())
    } else {
        Err(missing())
    }
}

impl ProductionSources {
    /// Whether `session` (a `pty:` id) is one of the agent's OpenClaw exec sessions
    /// (`crisp-ridge`), watched in the gateway's ledger: a gateway is set up and the id is not
    /// shaped like this daemon's (`s-4k9x2m`, which every session it runs has).
    fn is_exec_session(&self, session: &str) -> bool {
        self.openclaw.ledger().is_some() && !session.trim().starts_with(SessionId::PREFIX)
    }
}

/// A new wait's `pty:` target: a session this daemon runs, else one of the agent's OpenClaw
/// exec sessions; an id that is neither is refused with the live sessions of both kinds.
fn check_pty(
    session: String,
    table: SessionTable,
    exec: ExecSessions,
) -> BoxFuture<'static, Result<Vec<String>, CallError>> {
    Box::pin(async move {
        let id = SessionId::parse(&session)?;
        let ours = match table.get(&id) {
            Ok(_) => return Ok(Vec::new()),
            Err(error) => error,
        };
        let running = table.running_described();
        // A lookout id that is gone: its own reason, with what is running now.
        if session.starts_with(SessionId::PREFIX) {
            return Err(with_live_sessions(ours, &running, None));
        }
        let ledger = match exec {
            ExecSessions::Gateway(ledger) => ledger,
            ExecSessions::NoGateway { looked } => {
                let error = CallError::not_found(
                    format!(
                        "pty:{session} is not a terminal session of this daemon (its ids look \
                         like s-4k9x2m); it is probably an OpenClaw exec session, but no \
                         OpenClaw gateway was found to ask about it: lookout looked {looked}"
                    ),
                    "for an OpenClaw exec session, point lookout at the gateway \
                     (OPENCLAW_GATEWAY_URL and OPENCLAW_GATEWAY_TOKEN in the daemon's \
                     environment, or a [[wake.sinks]] entry of kind \"openclaw\", \
                     see `lookout setup openclaw`) and restart the daemon; for a command of \
                     your own, run it with term_start and wait on the session_id it returns",
                );
                return Err(with_live_sessions(error, &running, None));
            }
        };
        let sessions = ledger.sessions().await.map_err(|error| {
            CallError::unavailable(
                format!(
                    "pty:{session} is not a terminal session of this daemon, and the OpenClaw \
                     gateway could not be asked about its exec sessions: {}",
                    error.message
                ),
                "start the gateway (openclaw gateway status), or watch a session lookout runs \
                 (term_start)",
            )
        })?;
        match ExecSession::chosen(&sessions, &session) {
            Some(found) => Ok(vec![texts::exec_session_note(found)]),
            None => {
                let live: Vec<ExecSession> = sessions
                    .into_iter()
                    .filter(|known| known.state == ExecState::Running)
                    .collect();
                let error = CallError::not_found(
                    format!(
                        "pty:{session} is neither a terminal session of this daemon nor an exec \
                         session of the OpenClaw gateway at {}",
                        ledger.url()
                    ),
                    "use the session_id term_start returned, or the sessionId your exec tool \
                     returned when it backgrounded the command",
                );
                Err(with_live_sessions(error, &running, Some(&live)))
            }
        }
    })
}

/// A not-found error, with the sessions that could be meant listed in its fix.
fn with_live_sessions(
    error: CallError,
    ours: &[String],
    exec: Option<&[ExecSession]>,
) -> CallError {
    let mut hint = error.hint.clone();
    let listed = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join(", ")
        }
    };
    hint.push_str(&format!(
        "; running terminal sessions of this daemon: {}",
        listed(ours)
    ));
    if let Some(exec) = exec {
        let exec: Vec<String> = exec.iter().map(ExecSession::describe).collect();
        hint.push_str(&format!(
            "; running OpenClaw exec sessions: {}",
            listed(&exec)
        ));
    }
    CallError { hint, ..error }
}
