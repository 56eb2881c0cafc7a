//! What /proc says about a process: CPU ticks and memory. Shared by the benches that run
//! the real daemon as a child (included with `#[path]`; a subfolder of `benches/` is not a
//! bench target of its own).

use std::process::Command;

/// utime + stime of the process and its reaped children, in clock ticks.
pub fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The command name may hold spaces; the fields after it are plain.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    // Fields 14-17 of stat(5): utime, stime, cutime, cstime (index 0 here is field 3).
    fields[11..15]
        .iter()
        .map(|f| f.parse::<u64>().unwrap())
        .sum()
}

pub fn clock_ticks_per_second() -> f64 {
    let output = Command::new("getconf").arg("CLK_TCK").output().unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Resident memory now, in KiB.
#[allow(dead_code)] // not every bench that includes this file reads memory
pub fn rss_kib(pid: u32) -> u64 {
    status_field_kib(pid, "VmRSS:")
}

/// A KiB field of /proc/PID/status, e.g. `VmHWM:`.
#[allow(dead_code)] // not every bench that includes this file reads memory
pub fn status_field_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap()
}
