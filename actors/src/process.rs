//! Running other programs: the `Spawner` seam and its production implementation.
//!
//! The only module of lookout that starts processes. Programs run directly with an argv
//! array, never through a shell, so no text an agent writes can become a command. A run
//! returns its exit status, the tail of its stderr and, when asked, its stdout (a tmux pane,
//! tesseract's text for the OCR judge). [`pty`] starts the programs of terminal sessions on a
//! pseudo-terminal; [`stream`] a program whose output is read while it runs (the portal's
//! screen stream).

pub mod pty;
pub mod stream;

use std::fmt::Debug;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::process::Pid;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::clock::BoxFuture;
use crate::locks::lock;

/// What the service manager tells lookout itself (where to report readiness, the watchdog
/// period, sockets it passed): a program lookout starts must not see them, or it could
/// speak to systemd as the service. Removed from every program's environment.
pub const SERVICE_MANAGER_VARIABLES: [&str; 6] = [
    "NOTIFY_SOCKET",
    "WATCHDOG_USEC",
    "WATCHDOG_PID",
    "LISTEN_FDS",
    "LISTEN_PID",
    "LISTEN_FDNAMES",
];

/// Set in the environment of every wake sink's program (and so of what it starts) to the
/// daemon's data folder: a daemon that was killed leaves them behind, and its next start
/// finds them by it ([`end_orphaned_sinks`]).
pub const SINK_OWNER_VARIABLE: &str = "LOOKOUT_SINK_OF";

/// Keep at most this much of a program's stderr for error messages.
const STDERR_TAIL_BYTES: usize = 2048;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRequest {
    pub program: String,
    pub args: Vec<String>,
    /// Written to the program's stdin, which is then closed.
    pub stdin: Vec<u8>,
    /// The program is killed when it runs longer.
    pub timeout: Duration,
    /// Keep at most this much of stdout in the outcome; 0 discards it.
    pub max_stdout_bytes: usize,
    /// Variables set for the program on top of the daemon's environment.
    pub env: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    /// The exit code; `None` when a signal ended it (or it was killed for the timeout).
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The end of what it wrote to stderr, lossily decoded.
    pub stderr_tail: String,
    /// The start of what it wrote to stdout, up to the request's `max_stdout_bytes`.
    pub stdout: Vec<u8>,
}

impl RunOutcome {
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }

    /// "exit status 3: <stderr>" or "killed after 10s": why a run did not succeed.
    pub fn failure(&self, timeout: Duration) -> String {
        let status = match (self.timed_out, self.exit_code) {
            (true, _) => format!("killed after {}s without finishing", timeout.as_secs()),
            (false, Some(code)) => format!("exit status {code}"),
            (false, None) => "ended by a signal".to_owned(),
        };
        let stderr = self.stderr_tail.trim();
        if stderr.is_empty() {
            status
        } else {
            format!("{status}: {stderr}")
        }
    }
}

/// Starts programs. Tests and the harness can script it.
pub trait Spawner: Debug + Send + Sync + 'static {
    /// Runs `request` to completion (or its timeout).
    fn run(&self, request: RunRequest) -> BoxFuture<std::io::Result<RunOutcome>>;
}

/// Real processes through tokio.
#[derive(Debug, Default, Clone, Copy)]
pub struct ProcessSpawner;

impl Spawner for ProcessSpawner {
    fn run(&self, request: RunRequest) -> BoxFuture<std::io::Result<RunOutcome>> {
        Box::pin(run_process(request))
    }
}

async fn run_process(request: RunRequest) -> std::io::Result<RunOutcome> {
    #[allow(clippy::disallowed_methods)] // the one place programs start
    let mut command = tokio::process::Command::new(&request.program);
    for variable in SERVICE_MANAGER_VARIABLES {
        command.env_remove(variable);
    }
    let mut child = command
        .args(&request.args)
        .envs(request.env.iter().map(|(name, value)| (name, value)))
        .stdin(Stdio::piped())
        .stdout(if request.max_stdout_bytes > 0 {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        // Its own process group, so a timeout ends whatever it started too (`openclaw`
        // respawns itself as a child that would otherwise deliver after we gave up).
        .process_group(0)
        .spawn()?;
    let mut group = GroupKiller(child.id().and_then(|id| Pid::from_raw(id as i32)));
    let mut stdin = child.stdin.take();
    let input = request.stdin;
    let feed = async move {
        if let Some(stdin) = stdin.as_mut() {
            // A program that does not read its stdin closes the pipe; that is its choice.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        }
    };
    // The pipes are read by tasks of their own into shared buffers: a run is over when the
    // program exits, not when its pipes close (a child it leaves in the background may hold
    // them open for as long as it likes).
    let stderr_kept = Arc::new(Mutex::new(Vec::new()));
    let drain = tokio::spawn(read_into(
        child.stderr.take(),
        Arc::clone(&stderr_kept),
        Keep::Tail(STDERR_TAIL_BYTES),
    ));
    let stdout_kept = Arc::new(Mutex::new(Vec::new()));
    let collect = tokio::spawn(read_into(
        child.stdout.take(),
        Arc::clone(&stdout_kept),
        Keep::Head(request.max_stdout_bytes),
    ));
    let finished = tokio::time::timeout(request.timeout, async {
        let ((), status) = tokio::join!(feed, child.wait());
        status
    })
    .await;
    // What the program wrote before it exited is in the pipes already: a moment to take it.
    for reader in [drain, collect] {
        let abort = reader.abort_handle();
        if tokio::time::timeout(PIPE_GRACE, reader).await.is_err() {
            abort.abort();
        }
    }
    let taken = |kept: &Mutex<Vec<u8>>| std::mem::take(&mut *lock(kept));
    match finished {
        Ok(status) => {
            // It finished: what it left running in the background is its own business.
            group.disarm();
            Ok(RunOutcome {
                exit_code: status?.code(),
                timed_out: false,
                stderr_tail: tail(&taken(&stderr_kept)),
                stdout: taken(&stdout_kept),
            })
        }
        Err(_) => {
            group.kill();
            let _ = child.kill().await;
            Ok(RunOutcome {
                exit_code: None,
                timed_out: true,
                stderr_tail: String::new(),
                stdout: Vec::new(),
            })
        }
    }
}

/// Ends what the wake sinks of an earlier run of the daemon owning `owner` (its data folder)
/// left running when that daemon was killed: every process of this user whose environment
/// carries `LOOKOUT_SINK_OF=<owner>`, with its process group. Returns how many were found.
/// A sink's program is told its owner in the environment, so a process of another daemon, or
/// any other program, is never touched.
pub fn end_orphaned_sinks(owner: &str) -> usize {
    let marker = format!("{SINK_OWNER_VARIABLE}={owner}").into_bytes();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let me = std::process::id();
    let mut ended = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
            .filter(|pid| *pid != me)
        else {
            continue;
        };
        // Another user's process cannot be read: it is not ours anyway.
        let Ok(environment) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environment
            .split(|byte| *byte == 0)
            .any(|variable| variable == marker)
        {
            continue;
        }
        let Some(pid) = Pid::from_raw(pid as i32) else {
            continue;
        };
        let group = rustix::process::getpgid(Some(pid)).ok();
        let own_group = rustix::process::getpgid(None).ok();
        match group.filter(|group| Some(*group) != own_group) {
            Some(group) => {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
            None => {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
        ended += 1;
    }
    ended
}

/// How long the pipes of a program that exited are still read: what it wrote before it
/// exited is waiting there; a child holding them open afterwards is not waited for.
const PIPE_GRACE: Duration = Duration::from_millis(100);

/// Which part of a pipe's output to keep.
#[derive(Clone, Copy)]
enum Keep {
    /// The first bytes (stdout, read as the program's answer).
    Head(usize),
    /// The last bytes (stderr, for an error message).
    Tail(usize),
}

/// Reads `pipe` to its end into `kept`, keeping what `keep` says but reading on, so the
/// program never blocks on a full pipe.
async fn read_into(
    pipe: Option<impl tokio::io::AsyncRead + Unpin>,
    kept: Arc<Mutex<Vec<u8>>>,
    keep: Keep,
) {
    let Some(mut pipe) = pipe else {
        return;
    };
    let mut chunk = vec![0u8; 8192];
    while let Ok(read) = pipe.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        let mut kept = lock(&kept);
        match keep {
            Keep::Head(max) => {
                let room = max.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..read.min(room)]);
            }
            Keep::Tail(max) => {
                kept.extend_from_slice(&chunk[..read]);
                let excess = kept.len().saturating_sub(max);
                kept.drain(..excess);
            }
        }
    }
}

/// Kills a run's whole process group when the run times out or is abandoned (dropped
/// mid-way, e.g. at shutdown), unless disarmed because the program finished.
struct GroupKiller(Option<Pid>);

impl GroupKiller {
    fn kill(&mut self) {
        if let Some(group) = self.0.take() {
            // Gone already is fine.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
    }

    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for GroupKiller {
    fn drop(&mut self) {
        self.kill();
    }
}

fn tail(bytes: &[u8]) -> String {
    let start = bytes.len().saturating_sub(STDERR_TAIL_BYTES);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(program: &str, args: &[&str], stdin: &str) -> RunRequest {
        RunRequest {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            stdin: stdin.as_bytes().to_vec(),
            timeout: Duration::from_secs(10),
            max_stdout_bytes: 0,
            env: Vec::new(),
        }
    }

    #[tokio::test]
    async fn stdout_is_kept_up_to_the_limit_only_when_asked() {
        let mut chatty = request("sh", &["-c", "cat; printf 0123456789"], "in:");
        assert!(
            ProcessSpawner
                .run(chatty.clone())
                .await
                .unwrap()
                .stdout
                .is_empty()
        );
        chatty.max_stdout_bytes = 6;
        let outcome = ProcessSpawner.run(chatty).await.unwrap();
        assert!(outcome.succeeded());
        assert_eq!(outcome.stdout, b"in:012");
    }

    #[tokio::test]
    async fn runs_with_stdin_and_reports_exit_and_stderr() {
        let outcome = ProcessSpawner
            .run(request(
                "sh",
                &["-c", "read line; echo \"got $line\" >&2; exit 3"],
                "hello\n",
            ))
            .await
            .unwrap();
        assert_eq!(outcome.exit_code, Some(3));
        assert_eq!(
            outcome.failure(Duration::from_secs(1)),
            "exit status 3: got hello"
        );
        assert!(
            ProcessSpawner
                .run(request("true", &[], ""))
                .await
                .unwrap()
                .succeeded()
        );
    }

    #[tokio::test]
    async fn arguments_are_never_interpreted_by_a_shell() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("pwned");
        let hostile = format!("; touch {} #", marker.display());
        let outcome = ProcessSpawner
            .run(request("echo", &[&hostile], ""))
            .await
            .unwrap();
        assert!(outcome.succeeded());
        assert!(!marker.exists());
    }

    #[tokio::test]
    async fn a_timeout_kills_the_children_the_program_started_too() {
        let dir = tempfile::tempdir().unwrap();
        let late = dir.path().join("delivered-late");
        // Like `openclaw`: the program starts a child (same group, not waited for by us) that
        // would deliver after a while, and then hangs itself.
        let script = format!("(sleep 1; touch {}) & sleep 30", late.display());
        let mut run = request("sh", &["-c", &script], "");
        run.timeout = Duration::from_millis(200);
        let outcome = ProcessSpawner.run(run).await.unwrap();
        assert!(outcome.timed_out);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(
            !late.exists(),
            "the child outlived the timeout and delivered"
        );
    }

    #[tokio::test]
    async fn a_run_ends_when_the_program_exits_even_if_a_child_holds_its_pipes() {
        // The program backgrounds work that keeps stdout and stderr open for 30 s, writes its
        // answer and exits 0: the run is over at its exit, with what it wrote.
        let script = "sleep 30 & echo done; echo 'a warning' >&2; exit 0";
        let mut run = request("sh", &["-c", script], "");
        run.max_stdout_bytes = 100;
        run.timeout = Duration::from_secs(20);
        let outcome = ProcessSpawner.run(run).await.unwrap();
        assert!(
            !outcome.timed_out,
            "held to the timeout by the child's pipes"
        );
        assert!(outcome.succeeded(), "{outcome:?}");
        assert_eq!(outcome.stdout, b"done\n");
        assert_eq!(outcome.stderr_tail, "a warning\n");
    }

    #[tokio::test]
    async fn only_the_end_of_a_long_stderr_is_kept() {
        let script = "head -c 100000 /dev/zero | tr '\\0' 'x' >&2; echo END >&2; exit 3";
        let outcome = ProcessSpawner
            .run(request("sh", &["-c", script], ""))
            .await
            .unwrap();
        assert_eq!(outcome.exit_code, Some(3));
        assert_eq!(outcome.stderr_tail.len(), STDERR_TAIL_BYTES);
        assert!(
            outcome.stderr_tail.ends_with("xEND\n"),
            "{}",
            outcome.stderr_tail
        );
    }

    #[tokio::test]
    async fn a_program_that_hangs_is_killed_at_the_timeout() {
        let mut slow = request("sleep", &["30"], "");
        slow.timeout = Duration::from_millis(200);
        let outcome = ProcessSpawner.run(slow).await.unwrap();
        assert!(outcome.timed_out && !outcome.succeeded());
        assert!(
            ProcessSpawner
                .run(request("/nonexistent/program", &[], ""))
                .await
                .is_err()
        );
    }
}
