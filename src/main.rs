//! The `lookout` binary.

fn main() -> std::process::ExitCode {
    lookout::cli::main()
}
