//! Tells glibc's allocator to give large buffers back, by starting `lookout serve` over once
//! with `GLIBC_TUNABLES` set.
//!
//! glibc serves a large allocation (a captured frame is 1.2 MB for a 640x480 window, 8 MB
//! for a 1080p screen) from a fresh mapping and unmaps it when freed, until the first such
//! buffer is freed: from then on it raises that threshold to the buffer's size and keeps
//! freed buffers in its heaps, out of the system's reach. A daemon that captures frames
//! all day then holds about a frame per watched window and per capture thread that it no
//! longer uses (BENCHMARKS.md, window waits: 544 KiB per window wait with the default, 156–160
//! KiB with the threshold fixed). Fixing the threshold takes `mallopt`, which needs
//! `unsafe`, or the `glibc.malloc.mmap_threshold` tunable, which glibc reads only when the
//! program starts: so `serve` starts itself over (`exec`: the same process id, the same
//! arguments, the inherited sockets kept) once, with the tunables added to whatever
//! `GLIBC_TUNABLES` already held. A user who set `glibc.malloc.mmap_threshold` is left alone.

/// Set in the environment of the process started over: it never starts over twice, whatever
/// glibc made of `GLIBC_TUNABLES` (it cuts the variable's text at the first tunable it
/// reads, so `/proc/PID/environ` shows the others as entries of their own).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const STARTED_OVER: &str = "LOOKOUT_ALLOCATOR_TUNED";

#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TUNABLES: &str = "glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072";

/// Starts the process over with the allocator tunables unless they are set already; returns
/// only when it does not (already tuned, not glibc, or the program could not be started
/// again, which is logged to stderr and otherwise harmless). Call it first thing, while the
/// process has one thread.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::process::CommandExt;

        let current = crate::config::environment::var("GLIBC_TUNABLES").unwrap_or_default();
        if crate::config::environment::is_set(STARTED_OVER)
            || current.contains("glibc.malloc.mmap_threshold")
        {
            return;
        }
        let tunables = if current.is_empty() {
            TUNABLES.to_owned()
        } else {
            format!("{current}:{TUNABLES}")
        };
        let program = match std::env::current_exe() {
            Ok(program) => program,
            Err(error) => {
                eprintln!("lookout: cannot tune the allocator (no path to this program: {error})");
                return;
            }
        };
        let mut args = std::env::args_os();
        #[allow(clippy::disallowed_methods)] // not a child: this process, started over
        let mut command = std::process::Command::new(program);
        if let Some(name) = args.next() {
            command.arg0(name);
        }
        let error = command
            .args(args)
            .env("GLIBC_TUNABLES", tunables)
            .env(STARTED_OVER, "1")
            .exec();
        eprintln!("lookout: cannot tune the allocator (starting over failed: {error})");
    }
}
