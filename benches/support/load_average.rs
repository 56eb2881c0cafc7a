//! The machine's load when a bench starts, printed first: figures taken on a busy machine
//! (the 1-minute load average above 1.0 per core) are not comparable with a quiet one's, and
//! the bench says so beside them.

/// The 1-minute load average and the cores, from /proc and the scheduler.
pub fn load_per_core() -> (f64, usize) {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = text
        .split_whitespace()
        .next()
        .and_then(|first| first.parse().ok())
        .unwrap_or(0.0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (load, cores)
}

/// Prints the load average; returns whether the machine is quiet enough to quote ratios.
pub fn print_load_average() -> bool {
    let (load, cores) = load_per_core();
    let quiet = load <= cores as f64;
    println!(
        "load average {load:.2} on {cores} cores ({:.2} per core): {}\n",
        load / cores as f64,
        if quiet {
            "quiet enough to quote"
        } else {
            "BUSY: above 1.0 per core, these figures are not comparable with a quiet run"
        }
    );
    quiet
}

/// What to print after a ratio measured just now: nothing on a quiet machine, else the load
/// it was measured under and that it is not comparable.
#[allow(dead_code)] // not every bench that includes this file prints ratios
pub fn busy_note() -> String {
    let (load, cores) = load_per_core();
    if load <= cores as f64 {
        String::new()
    } else {
        format!(
            " [measured at a load of {:.2} per core: BUSY, not comparable]",
            load / cores as f64
        )
    }
}
