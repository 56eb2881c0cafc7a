//! The tree's arguments, grouped by subsystem, and their defaults: the constants `config.rs`
//! reuses, so that each default is written once.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use storage::Store;

use crate::clock::Clock;
use crate::condition::judge::Judge;
use crate::faults::Faults;
use crate::openclaw::exec::ExecSessions;
use crate::policy::RestartPolicy;
use crate::process::{ProcessSpawner, Spawner};
use crate::recall::recorder::RecorderSettings;
use crate::sight::capture::wayland::WaylandDisplay;
use crate::tasks::stuck::StuckPolicy;
use crate::terminals::session::TerminalLimits;
use crate::vision::VisionSpec;
use crate::waits::sources::SourceFactory;
use crate::wake::WakeSettings;
use crate::wake::sinks::SinkSpec;

/// How long a task nobody asks about stays loaded, by default.
pub const DEFAULT_TASK_UNLOAD_AFTER: Duration = Duration::from_secs(600);

/// The recall index's file name, beside the database.
pub const RECALL_FILE: &str = "recall.sqlite";
/// The folder of screen keyframes, beside the database.
pub const FRAMES_DIR: &str = "recall-frames";
/// How long screen and terminal history is kept by default.
pub const DEFAULT_RECALL_RETENTION: Duration = Duration::from_secs(90 * 24 * 3600);
/// Capture or judge failures in a row that end a wait in `error`.
pub const DEFAULT_MAX_CONSECUTIVE_FAILURES: u32 = 5;
/// Waits watching at once, at most: each holds an actor, a watcher and its captures (46–121
/// KiB for a `file:` wait, by the size of its log; BENCHMARKS.md "Idle smart waits"), so a
/// full daemon keeps under about 120 MiB for them.
pub const DEFAULT_MAX_LIVE_WAITS: usize = 1000;
/// The pixel gate's floor: a still window is judged again after this long.
pub const DEFAULT_PIXEL_FLOOR: Duration = Duration::from_secs(120);
/// How long a watched window may stay closed before its wait ends in `error`.
pub const DEFAULT_WINDOW_GONE_GRACE: Duration = Duration::from_secs(30);
/// How soon after a window or screen is first seen changing it is captured again to see
/// whether the change has settled (instead of waiting a whole poll).
pub const DEFAULT_SETTLE_PROBE: Duration = Duration::from_millis(50);

pub struct TreeArgs {
    pub store: Arc<Store>,
    pub clock: Arc<dyn Clock>,
    pub group_commit: bool,
    pub faults: Faults,
    /// How the Root restarts the subsystems.
    pub policy: RestartPolicy,
    /// How command sinks, tmux captures, the OCR backend and the recorder start programs.
    pub spawner: Arc<dyn Spawner>,
    pub tasks: TaskArgs,
    pub waits: WaitArgs,
    pub wake: WakeArgs,
    /// The vision backend and its limits.
    pub vision: VisionSpec,
    /// How many terminal sessions may run, and how many ended ones stay readable.
    pub terminal_limits: TerminalLimits,
    pub recall: RecallArgs,
}

/// The Tasks subsystem's arguments.
#[derive(Debug)]
pub struct TaskArgs {
    /// How a TaskActor is restarted.
    pub policy: RestartPolicy,
    pub stuck: StuckPolicy,
    /// How long a task nobody asks about stays loaded (its actor and record in memory).
    pub unload_after: Duration,
}

/// The Waits subsystem's arguments.
#[derive(Debug)]
pub struct WaitArgs {
    /// Where waits get their sources and gates (`None`: the production ones).
    pub sources: Option<Arc<dyn SourceFactory>>,
    /// The model that judges text conditions (`None`: phrases and exits only).
    pub text_model: Option<Arc<dyn Judge>>,
    /// The model that judges window and screen frames (`None`: wake on the first change).
    pub pixel_judge: Option<Arc<dyn Judge>>,
    /// Capture or judge failures in a row that end a wait in `error`.
    pub max_consecutive_failures: u32,
    /// Waits watching at once, at most: a new one (or one revived) past it is refused.
    pub max_live: usize,
    /// The X display of `window:` and `screen` waits (`None`: such waits fail, saying how
    /// to set one).
    pub x11_display: Option<String>,
    /// The Wayland compositor `window:` and `screen` waits read instead of the X display,
    /// when the desktop is a Wayland session (`None`: X11).
    pub wayland: Option<WaylandDisplay>,
    /// The pixel gate's floor: a still window is judged again after this long.
    pub pixel_floor: Duration,
    /// How long a watched window may stay closed before its wait ends in `error`.
    pub window_gone_grace: Duration,
    /// How soon a changing window or screen is captured again to see it settle
    /// (`Duration::ZERO`: not before the next poll).
    pub settle_probe: Duration,
    /// Whether a target whose source says when it changed (a file, a terminal session) is
    /// looked at on each change as well as at each poll (`false`: polled only).
    pub follow_changes: bool,
    /// A folder of the daemon's own where followed tmux panes pipe their output
    /// (`sight::capture::tmux`); `None`: tmux panes are polled only.
    pub tmux_pipes: Option<PathBuf>,
    /// The task ledger of the user's OpenClaw gateway, for `pty:` waits on the agent's own
    /// exec sessions; without a gateway `pty:` means this daemon's sessions only.
    pub openclaw: ExecSessions,
}

/// The Wake subsystem's arguments.
#[derive(Debug)]
pub struct WakeArgs {
    /// Where wake events go (built when the tree starts).
    pub sinks: Vec<SinkSpec>,
    /// Attempts per event and sink before it is recorded as dead.
    pub max_delivery_attempts: u32,
    /// A wake the agent did not take this long is delivered once more; `None`: never.
    pub remind_after: Option<Duration>,
}

/// The Recall subsystem's arguments: the index and the screen recorder.
#[derive(Debug)]
pub struct RecallArgs {
    /// The recall index's file (beside the database unless set).
    pub path: std::path::PathBuf,
    /// How long screen and terminal history is kept (`None`: forever).
    pub retention: Option<Duration>,
    /// The screen recorder (off unless set; its spawner is the tree's).
    pub recorder: RecorderSettings,
    /// Closed screen segments are described by the `[vision]` model (when there is one).
    pub procedures: bool,
    /// Claude Code's projects folder, when the agent's own sessions are searched (`[recall]
    /// sources`); `None`: they are not.
    pub transcripts: Option<std::path::PathBuf>,
    /// The OpenClaw gateway whose sessions are searched too (`[recall] sources`); `None`:
    /// they are not.
    pub openclaw: Option<Arc<crate::openclaw::client::GatewayClient>>,
}

impl TreeArgs {
    /// Production defaults around a store and a clock.
    pub fn new(store: Arc<Store>, clock: Arc<dyn Clock>) -> Self {
        let recall_path = store.path().with_file_name(RECALL_FILE);
        let frames_dir = store.path().with_file_name(FRAMES_DIR);
        Self {
            store,
            clock,
            group_commit: true,
            faults: Faults::default(),
            policy: RestartPolicy::default(),
            spawner: Arc::new(ProcessSpawner),
            tasks: TaskArgs {
                policy: RestartPolicy {
                    max_restarts: 20,
                    ..RestartPolicy::default()
                },
                stuck: StuckPolicy::default(),
                unload_after: DEFAULT_TASK_UNLOAD_AFTER,
            },
            waits: WaitArgs {
                sources: None,
                text_model: None,
                pixel_judge: None,
                max_consecutive_failures: DEFAULT_MAX_CONSECUTIVE_FAILURES,
                max_live: DEFAULT_MAX_LIVE_WAITS,
                x11_display: None,
                wayland: None,
                pixel_floor: DEFAULT_PIXEL_FLOOR,
                window_gone_grace: DEFAULT_WINDOW_GONE_GRACE,
                settle_probe: DEFAULT_SETTLE_PROBE,
                follow_changes: true,
                tmux_pipes: None,
                openclaw: ExecSessions::not_looked_for(),
            },
            wake: WakeArgs {
                sinks: Vec::new(),
                max_delivery_attempts: WakeSettings::default().max_attempts,
                remind_after: WakeSettings::default().remind_after,
            },
            vision: VisionSpec::default(),
            terminal_limits: TerminalLimits::default(),
            recall: RecallArgs {
                path: recall_path,
                retention: Some(DEFAULT_RECALL_RETENTION),
                recorder: RecorderSettings::off(Arc::new(ProcessSpawner), frames_dir),
                procedures: false,
                transcripts: None,
                openclaw: None,
            },
        }
    }
}
