//! What `lookout --help` and the man page say beyond clap's own sections: the exit status,
//! the environment and examples, as the tools users know (gh, cargo) do. One list, rendered
//! for the terminal and for roff, so the two cannot drift; a test parses every example.

use clap_mangen::roff::{Roff, bold, roman};

use super::follow::{
    EXIT_STILL_WATCHING, EXIT_WAIT_CANCELLED, EXIT_WAIT_CHANGED, EXIT_WAIT_ERROR, EXIT_WAIT_TIMEOUT,
};
use super::{EXIT_CALL_FAILED, EXIT_NO_DAEMON, EXIT_USAGE};
use crate::daemon::EXIT_TREE_FAILED;

/// A section: its title, and its entries as (term, what it means).
struct Section {
    title: &'static str,
    entries: Vec<(String, &'static str)>,
}

fn sections() -> [Section; 3] {
    let code = |code: u8| code.to_string();
    [
        Section {
            title: "EXIT STATUS",
            entries: vec![
                (code(0), "Success."),
                (
                    code(EXIT_CALL_FAILED),
                    "The daemon refused the call or could not do it; the message says how to fix it.",
                ),
                (code(EXIT_USAGE), "The command line is not valid."),
                (
                    code(EXIT_NO_DAEMON),
                    "No daemon answers on the socket (start one with `lookout serve`).",
                ),
                (
                    code(EXIT_WAIT_CHANGED),
                    "`lookout wait`: the wait woke on a change nobody could judge.",
                ),
                (
                    code(EXIT_WAIT_TIMEOUT),
                    "`lookout wait`: the wait timed out.",
                ),
                (code(EXIT_WAIT_ERROR), "`lookout wait`: watching failed."),
                (
                    code(EXIT_WAIT_CANCELLED),
                    "`lookout wait`: the wait was cancelled.",
                ),
                (
                    code(EXIT_STILL_WATCHING),
                    "`lookout wait --timeout`: still watching when the time was up.",
                ),
                (
                    code(EXIT_TREE_FAILED),
                    "`lookout serve`: the daemon's actors kept failing and it gave up.",
                ),
            ],
        },
        Section {
            title: "ENVIRONMENT",
            entries: vec![
                (
                    "LOOKOUT_SOCKET".into(),
                    "The daemon's socket (as --socket).",
                ),
                ("LOOKOUT_CONFIG".into(), "The config file (as --config)."),
                (
                    "LOOKOUT_LOG".into(),
                    "Log level: error, warn, info, debug or trace.",
                ),
                (
                    "XDG_RUNTIME_DIR, XDG_DATA_HOME, XDG_CONFIG_HOME".into(),
                    "Where the socket, the data and the config file live.",
                ),
                (
                    "DISPLAY, WAYLAND_DISPLAY".into(),
                    "The desktop window: and screen waits watch, unless the config names one.",
                ),
                ("NO_COLOR".into(), "Set to anything: no colour in the logs."),
                (
                    "NOTIFY_SOCKET, WATCHDOG_USEC, LISTEN_FDS".into(),
                    "Set by systemd: readiness, the watchdog and socket activation.",
                ),
            ],
        },
        Section {
            title: "EXAMPLES",
            entries: EXAMPLES
                .iter()
                .map(|(command, what)| (format!("$ {command}"), *what))
                .collect(),
        },
    ]
}

/// Commands a newcomer types first, each with what it does.
const EXAMPLES: [(&str, &str); 6] = [
    (
        "lookout serve",
        "Run the daemon in the foreground, with defaults.",
    ),
    (
        "lookout task register \"Deploy\" --step Build --step Push --json",
        "Register a task with its plan; the result carries its task_id.",
    ),
    (
        "lookout task update t-7k2m9q --message \"Step 1 done\"",
        "Report progress on a task.",
    ),
    (
        "lookout task list --status all",
        "Every task, newest first.",
    ),
    (
        "lookout wait w-4hx8q2 --timeout 600",
        "Block until a wait ends; the exit status says how.",
    ),
    (
        "lookout events --follow",
        "Print wake events as they happen.",
    ),
];

/// The sections as `--help` prints them after the options.
pub fn after_long_help() -> String {
    let mut text = String::new();
    for section in sections() {
        let title = section.title.to_lowercase();
        let mut title = title.chars();
        let first = title.next().map(|c| c.to_ascii_uppercase()).unwrap_or(' ');
        text.push_str(&format!("{first}{}:\n", title.as_str()));
        for (term, meaning) in &section.entries {
            text.push_str(&format!("  {term}\n      {meaning}\n"));
        }
        text.push('\n');
    }
    text.trim_end().to_owned()
}

/// The sections as roff, for the man page.
pub fn man_sections(roff: &mut Roff) {
    for section in sections() {
        roff.control("SH", [section.title]);
        for (term, meaning) in section.entries {
            roff.control("TP", []);
            roff.text([bold(term)]);
            roff.text([roman(meaning)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use actors::terminals::session::shell_words;
    use clap::Parser;

    use super::*;

    #[test]
    fn every_example_is_a_command_lookout_takes() {
        for (command, _) in EXAMPLES {
            let argv = shell_words(command);
            if let Err(error) = super::super::Cli::try_parse_from(&argv) {
                panic!("{command}: {error}");
            }
        }
    }

    #[test]
    fn help_and_man_page_carry_the_same_sections() {
        let help = after_long_help();
        let mut roff = Roff::default();
        man_sections(&mut roff);
        let page = roff.to_roff();
        for title in ["EXIT STATUS", "ENVIRONMENT", "EXAMPLES"] {
            assert!(page.contains(title), "{title}");
        }
        for section in sections() {
            for (term, _) in section.entries {
                assert!(help.contains(&term), "--help lacks {term}");
            }
        }
        assert!(help.starts_with("Exit status:"), "{help}");
    }
}
