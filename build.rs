//! The test tiers. `LOOKOUT_FULL_TESTS=1` sets `cfg(lookout_full_tests)`, which runs the tests
//! that need programs a bare machine lacks (a desktop, a compositor, the portal stack,
//! tesseract, tmux, systemd's tools, libfaketime, root for a second user, the Python SDKs).
//! Without it those tests are ignored, each saying what it needs; `.ci/deps` installs it all.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(lookout_full_tests)");
    println!("cargo::rerun-if-env-changed=LOOKOUT_FULL_TESTS");
    println!("cargo::rerun-if-changed=build.rs");
    // A build script is where Cargo hands a crate its environment.
    #[allow(clippy::disallowed_methods)]
    let full = std::env::var_os("LOOKOUT_FULL_TESTS").is_some_and(|value| value == "1");
    if full {
        println!("cargo::rustc-cfg=lookout_full_tests");
    }
}
