//! `lookout doctor`: checks the database file and copies out what can still be read.
//!
//! Runs on the file itself, so the daemon must be stopped first (the error says how). The
//! rescue copy is JSON lines (`{"kind", "key", "record"}`), one per task, message, plan
//! revision, wait and event, written 0600 next to the database unless `--out` names a file;
//! each run writes a new file (`….rescue.jsonl`, `….rescue-2.jsonl`, …) and never deletes or
//! overwrites one. A damaged write journal is salvaged and reported (see `storage::doctor`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;
use storage::doctor::{self, Checkup, Integrity};

use super::{EXIT_CALL_FAILED, fail};

pub fn run(data_file: &Path, out: Option<PathBuf>, as_json: bool) -> ExitCode {
    let rescue_path = out.unwrap_or_else(|| free_rescue_path(data_file));
    let mut rescue = match create_private(&rescue_path) {
        Ok(file) => std::io::BufWriter::new(file),
        Err(error) => {
            return fail(
                &format!(
                    "cannot write the rescue copy {}: {error}",
                    rescue_path.display()
                ),
                EXIT_CALL_FAILED,
            );
        }
    };
    // redb panics on some damaged pages; the doctor catches them, and they are reported
    // below rather than printed as crashes.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let examined = doctor::examine(data_file, &mut rescue);
    std::panic::set_hook(previous_hook);
    let flushed = rescue.flush();
    let checkup = match examined {
        Ok(checkup) => checkup,
        Err(error) => {
            let _ = std::fs::remove_file(&rescue_path);
            let hint = match error {
                storage::StorageError::Locked { .. } => {
                    "\nThe daemon has it open: stop it first (`systemctl --user stop lookout`, or \
                     Ctrl-C on `lookout serve`), run `lookout doctor`, then start it again."
                }
                _ => "",
            };
            return fail(&format!("{error}{hint}"), EXIT_CALL_FAILED);
        }
    };
    if let Err(error) = flushed {
        return fail(
            &format!(
                "cannot write the rescue copy {}: {error}",
                rescue_path.display()
            ),
            EXIT_CALL_FAILED,
        );
    }
    if as_json {
        println!("{}", report_json(data_file, &rescue_path, &checkup));
    } else {
        print!("{}", report_text(data_file, &rescue_path, &checkup));
    }
    if checkup.is_healthy() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CALL_FAILED)
    }
}

/// `lookout.redb.rescue.jsonl`, or `.rescue-2.jsonl`, `-3`…: a name no file has yet.
fn free_rescue_path(data_file: &Path) -> PathBuf {
    let named = |suffix: &str| {
        let mut name = data_file.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    std::iter::once(named(".rescue.jsonl"))
        .chain((2..).map(|n| named(&format!(".rescue-{n}.jsonl"))))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_err())
        .expect("some number is free")
}

/// A new file (0600), never one that exists: a rescue copy is not overwritten, and one made
/// here is the only file the doctor removes (when it could not fill it).
fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

fn integrity_text(integrity: &Integrity) -> String {
    match integrity {
        Integrity::Sound => "sound".to_owned(),
        Integrity::Repaired => "repaired (damage was found and mended)".to_owned(),
        Integrity::Damaged(why) => format!("damaged ({why})"),
    }
}

fn report_text(data_file: &Path, rescue_path: &Path, checkup: &Checkup) -> String {
    let copied = &checkup.copied;
    let mut text = format!(
        "Database: {}\nIntegrity: {}\nCopied {} tasks, {} messages, {} plan revisions, {} waits \
         and {} events to {} (JSON lines).\n",
        data_file.display(),
        integrity_text(&checkup.integrity),
        copied.tasks,
        copied.messages,
        copied.plan_revisions,
        copied.waits,
        copied.events,
        rescue_path.display()
    );
    if checkup.from_journal > 0 {
        text.push_str(&format!(
            "Applied {} write(s) from the write journal first: acknowledged before the daemon \
             stopped without putting them in the file (a crash), as its next start would.\n",
            checkup.from_journal
        ));
    }
    if let Some(damage) = &checkup.journal.damage {
        let aside = checkup
            .journal
            .set_aside
            .as_ref()
            .map(|path| format!(" It was set aside as {}, unchanged;", path.display()))
            .unwrap_or_default();
        text.push_str(&format!(
            "The write journal was damaged: {damage}. The writes that could still be read were \
             applied ({}); acknowledged writes after them could not be replayed and are lost.\
             {aside} a new journal took its place and the id counters moved past any id the \
             lost writes handed out, so lookout can start again.\n",
            checkup.from_journal
        ));
    }
    if checkup.is_healthy() {
        text.push_str("Everything could be read: the database is healthy.\n");
        return text;
    }
    if checkup.unreadable.is_empty() && checkup.integrity == Integrity::Sound {
        text.push_str(&format!(
            "Everything else could be read (copied to {}).\n",
            rescue_path.display()
        ));
        return text;
    }
    text.push_str(&format!(
        "Could not read {} part(s):\n",
        checkup.unreadable.len()
    ));
    for problem in checkup.unreadable.iter().take(20) {
        text.push_str(&format!("  - {problem}\n"));
    }
    if checkup.unreadable.len() > 20 {
        text.push_str(&format!("  … and {} more\n", checkup.unreadable.len() - 20));
    }
    text.push_str(&format!(
        "What to do: keep {rescue}; move the database aside (mv {db} {db}.damaged) and start \
         lookout again, which begins a new one. The rescue copy holds every record that could \
         still be read.\n",
        rescue = rescue_path.display(),
        db = data_file.display()
    ));
    text
}

fn report_json(data_file: &Path, rescue_path: &Path, checkup: &Checkup) -> serde_json::Value {
    let copied = &checkup.copied;
    json!({
        "database": data_file,
        "healthy": checkup.is_healthy(),
        "integrity": integrity_text(&checkup.integrity),
        "from_journal": checkup.from_journal,
        "journal_damage": checkup.journal.damage,
        "journal_set_aside": checkup.journal.set_aside,
        "rescue_file": rescue_path,
        "copied": {
            "tasks": copied.tasks,
            "messages": copied.messages,
            "plan_revisions": copied.plan_revisions,
            "waits": copied.waits,
            "events": copied.events,
        },
        "unreadable": checkup.unreadable,
    })
}
