//! The command-line conventions a Unix tool keeps: quiet on a closed pipe, colour only where
//! wanted (`--color`, `NO_COLOR`), shell completions and a man page generated from the clap
//! definitions, so they cannot drift from the commands.

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;

/// When to colour what lookout writes to a terminal (its logs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When the output is a terminal and `NO_COLOR` is not set
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream that is (or is not) a terminal; `no_color` is whether
    /// `NO_COLOR` is set to something (https://no-color.org).
    pub fn colours(self, is_terminal: bool, no_color: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_terminal && !no_color,
        }
    }
}

/// A client command whose reader went away (`lookout task list | head -1`) ends quietly, as
/// `cat` would, instead of panicking: `println!` panics on a closed stdout, and this hook
/// turns that one panic into exit status 0. Every other panic is reported as before.
pub fn quiet_on_closed_pipe() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let said = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if said.starts_with("failed printing to stdout") && said.contains("Broken pipe") {
            std::process::exit(0);
        }
        report(info);
    }));
}

/// `lookout completions SHELL`: the completion script for `shell`, on stdout.
pub fn completions(shell: clap_complete::Shell) -> std::io::Result<()> {
    let mut command = super::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "lookout", &mut script);
    to_stdout(&script)
}

/// `lookout man [--out DIR]`: lookout(1) on stdout, or that page and one per subcommand
/// (`lookout-task.1`, …) written into `out`.
pub fn man(out: Option<&Path>) -> std::io::Result<()> {
    let command = super::Cli::command();
    match out {
        None => to_stdout(&top_page(command)?),
        Some(folder) => {
            std::fs::create_dir_all(folder)?;
            clap_mangen::generate_to(command.clone(), folder)?;
            // The top page again, with the sections clap_mangen does not write.
            std::fs::write(folder.join("lookout.1"), top_page(command)?)
        }
    }
}

/// lookout(1): clap_mangen's sections, then EXIT STATUS, ENVIRONMENT and EXAMPLES (instead
/// of its EXTRA section, which holds the same text as `--help` prints it).
fn top_page(command: clap::Command) -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(command);
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    man.render_subcommands_section(&mut page)?;
    let mut sections = clap_mangen::roff::Roff::default();
    super::help::man_sections(&mut sections);
    sections.to_writer(&mut page)?;
    man.render_version_section(&mut page)?;
    Ok(page)
}

/// Writes `bytes` to stdout; a reader that went away is not an error.
fn to_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_choice_the_terminal_and_no_color() {
        assert!(ColorChoice::Auto.colours(true, false));
        assert!(!ColorChoice::Auto.colours(true, true));
        assert!(!ColorChoice::Auto.colours(false, false));
        assert!(ColorChoice::Always.colours(false, true));
        assert!(!ColorChoice::Never.colours(true, false));
    }
}
