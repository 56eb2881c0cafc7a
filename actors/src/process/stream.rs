//! A program that runs alongside a watch and streams its stdout to lookout (GStreamer
//! decoding the ScreenCast portal's PipeWire stream): started directly with an argv, never
//! through a shell, its stdin a descriptor lookout hands it, its stderr's tail kept for
//! error messages, and killed with its process group when dropped.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::process::{Child, ChildStdout, Stdio};
use std::sync::{Arc, Mutex};

use rustix::process::Pid;

use super::{SERVICE_MANAGER_VARIABLES, STDERR_TAIL_BYTES, tail};

/// A running program whose stdout is read as it comes.
pub struct StreamingChild {
    child: Child,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
}

impl StreamingChild {
    /// Starts `program` with `args`, `stdin` as its standard input.
    pub fn start(program: &str, args: &[String], stdin: OwnedFd) -> std::io::Result<Self> {
        use std::os::unix::process::CommandExt;
        #[allow(clippy::disallowed_methods)] // the one place streaming programs start
        let mut command = std::process::Command::new(program);
        for variable in SERVICE_MANAGER_VARIABLES {
            command.env_remove(variable);
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::from(stdin))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut stderr) = child.stderr.take() {
            let kept = stderr_tail.clone();
            std::thread::Builder::new()
                .name("lookout-stream-stderr".into())
                .spawn(move || {
                    let mut chunk = [0u8; 1024];
                    while let Ok(read) = stderr.read(&mut chunk) {
                        if read == 0 {
                            break;
                        }
                        let mut kept = crate::locks::lock(&kept);
                        kept.extend_from_slice(&chunk[..read]);
                        let excess = kept.len().saturating_sub(STDERR_TAIL_BYTES);
                        kept.drain(..excess);
                    }
                })?;
        }
        Ok(StreamingChild { child, stderr_tail })
    }

    /// Its stdout, once: whoever reads the stream takes it.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    /// How it ended, when it has: "exit status 1: <stderr>".
    pub fn ended(&mut self) -> Option<String> {
        let status = self.child.try_wait().ok()??;
        let stderr = tail(&crate::locks::lock(&self.stderr_tail));
        let status = match status.code() {
            Some(code) => format!("exit status {code}"),
            None => "ended by a signal".to_owned(),
        };
        Some(if stderr.trim().is_empty() {
            status
        } else {
            format!("{status}: {}", stderr.trim())
        })
    }
}

impl Drop for StreamingChild {
    fn drop(&mut self) {
        if let Some(group) = Pid::from_raw(self.child.id() as i32) {
            // Gone already is fine.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
