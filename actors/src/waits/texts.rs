//! The words of smart waits: the replies, the thread messages and the wake texts.
//!
//! A wake text stands on its own for an agent that lost its context: what happened, to which
//! wait, and — when the wait belongs to a task — the task and what to do next (the TaskActor
//! adds that part, since it knows the task's next step).

use storage::{EventKind, TaskId, WaitId};

use crate::condition::{JudgedBy, Judges, Reading};
use crate::error::CallError;
use crate::openclaw::exec::ExecSession;

/// Observations are cut to this many characters inside texts.
const OBSERVATION_CHARS: usize = 300;

fn cut(text: &str) -> String {
    crate::words::shorten(text.trim(), OBSERVATION_CHARS)
}

fn ends_sentence(text: &str) -> String {
    let text = cut(text);
    if text.ends_with(['.', '!', '?', '…']) {
        text
    } else {
        format!("{text}.")
    }
}

/// The `message` of a new wait: "Monitoring. I'll wake you when: …. Timeout: 300s.", then
/// how the condition was read and anything the agent should know (a clause nobody can
/// judge, a phrase already on screen, a window not there yet).
pub fn monitoring(condition: &str, timeout_s: u64, reading: &str, notes: &[String]) -> String {
    let mut text = format!(
        "Monitoring. I'll wake you when: {}. Timeout: {timeout_s}s. {reading}",
        condition.trim().trim_end_matches('.')
    );
    for note in notes {
        text.push(' ');
        text.push_str(note);
    }
    text
}

/// "Read as: any of ['ALL DONE' is printed (phrase match); an error appears (error
/// lines)]." — the reading in one sentence.
pub fn reading_sentence(reading: &Reading, judges: Judges) -> String {
    let judged: Vec<(&crate::condition::Clause, JudgedBy)> = reading.judged_by(judges);
    let mut by_clause = judged.iter();
    let groups: Vec<String> = reading
        .groups
        .iter()
        .map(|group| {
            group
                .iter()
                .map(|clause| {
                    let by = by_clause
                        .next()
                        .map(|(_, by)| by.to_string())
                        .unwrap_or_default();
                    let not = if clause.negated { "not " } else { "" };
                    format!("{not}{} ({by})", clause.text)
                })
                .collect::<Vec<_>>()
                .join(" and ")
        })
        .collect();
    match groups.as_slice() {
        [one] => format!("Read as: {one}."),
        many => format!("Read as: any of [{}].", many.join("; ")),
    }
}

/// What happens to the clauses nobody can judge, for the creation reply.
pub fn unjudged_note(unjudged: &[String], pixels: bool) -> String {
    let clauses = quoted_list(unjudged);
    let configure = if pixels {
        "configure [vision] (a vision model, or ocr for quoted text on screen)"
    } else {
        "quote the exact text to wait for (e.g. 'BUILD SUCCESSFUL'), or configure a model in [vision]"
    };
    format!(
        "No model is configured to judge {clauses}: I will wake you as wait_changed (not \
         resolved) at the first settled change, for you to look. To have it judged, {configure}."
    )
}

/// Why a wait woke as changed: "no model is configured to judge "…"".
pub fn not_judged_because(unjudged: &[String]) -> String {
    format!("no model is configured to judge {}", quoted_list(unjudged))
}

fn quoted_list(clauses: &[String]) -> String {
    let quoted: Vec<String> = clauses.iter().map(|c| format!("\"{}\"", cut(c))).collect();
    match quoted.as_slice() {
        [] => "the condition".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A watched window that does not exist when the wait starts: it may open later.
/// What a wait on one of the agent's OpenClaw exec sessions can see.
pub fn exec_session_note(session: &ExecSession) -> String {
    format!(
        "pty:{} is your OpenClaw exec session {}, read from the gateway's task ledger: I see \
         whether it runs and its exit status, not its output (OpenClaw gives no other program \
         an exec session's output), and your own process poll/log still get all of it.",
        session.session_id,
        session.describe()
    )
}

/// What a wait on a Claude Code background command's output file should know.
pub fn background_output_note() -> String {
    "This is the output file of a command you backgrounded: I read it from its first line \
     (what it printed before this wait counts), and it holds no exit status, so \"it \
     finishes\" is decided from its output (a summary line: test result, BUILD …, Finished, \
     Done in …, exit code …), not from the command's exit; quote the line to be sure \
     (wake_when \"'test result:' appears\")."
        .to_owned()
}

/// Why a condition about output cannot be watched on a target whose output is not seen.
pub fn output_not_seen(target: &str, clauses: &[String]) -> CallError {
    CallError::invalid(
        format!(
            "{target} is an OpenClaw exec session: lookout sees whether it runs and its exit \
             status, not what it prints, so {} cannot be judged there",
            quoted_list(clauses)
        ),
        "wait for the end instead (wake_when \"the command finishes\", or \"it succeeds\" for \
         exit status 0); to wait on its output, run the command with its output going to a \
         file (`make test > /tmp/test.log 2>&1`) and wait on file:/tmp/test.log, or run it \
         with term_start and wait on its pty: session",
    )
}

/// The reply's note when the screen is read through the desktop's ScreenCast portal.
pub fn portal_note() -> String {
    "The screen is read through the desktop's ScreenCast portal: the first time, the desktop \
     shows a screen-sharing dialog, where the user picks the screen and chooses Share; until \
     then wait_status says the wait is waiting for it. The choice is kept, so later waits do \
     not ask again."
        .to_owned()
}

pub fn window_missing_note(needle: &str, closest: &[String]) -> String {
    let what = if needle.is_empty() {
        "That window does not exist yet".to_owned()
    } else {
        format!("No window's title contains '{needle}' yet")
    };
    let open = if closest.is_empty() {
        String::new()
    } else {
        let titles: Vec<String> = closest.iter().map(|t| format!("'{}'", cut(t))).collect();
        format!(
            " Open windows with the closest titles: {}.",
            titles.join(", ")
        )
    };
    format!(
        "{what}: I'll watch for it to appear, and no model is asked until it does.{open} If you \
         meant another window, cancel this wait and start one on window:<its title>."
    )
}

/// A phrase the target already shows when the wait starts.
pub fn already_present_note(phrase: &str, line: &str, lines_from_end: usize) -> String {
    let place = match lines_from_end {
        0 => "on the last line".to_owned(),
        1 => "1 line from the end".to_owned(),
        n => format!("{n} lines from the end"),
    };
    format!(
        "'{phrase}' is already there ({place}: \"{}\"); only a new occurrence counts (pass \
         match_existing: true to count what is there).",
        crate::words::shorten(line.trim(), 120)
    )
}

/// What a wait linked to a step does to it, for the reply that starts it.
pub fn step_note(task: &TaskId, step: u32) -> String {
    format!(
        "Resolved, it marks step {step} of {task} done as verified (a change nobody judged marks \
         nothing); a timeout or an error posts a blocker on that step."
    )
}

/// The `message` of `wait_update`: "Resumed. Watching for: …. New timeout: 60s."
pub fn resumed(condition: &str, timeout_s: u64) -> String {
    format!(
        "Resumed. Watching for: {}. New timeout: {timeout_s}s.",
        condition.trim().trim_end_matches('.')
    )
}

pub fn cancelled(reason: Option<&str>) -> String {
    match reason {
        Some(reason) => format!("Wait cancelled. Reason: {}", ends_sentence(reason)),
        None => "Wait cancelled.".to_owned(),
    }
}

/// Thread messages (msg_type `wait`).
pub fn created_note(id: &WaitId, target: &str, condition: &str, timeout_s: u64) -> String {
    format!(
        "Waiting ({id}) on {target} until: {}. Timeout: {timeout_s}s.",
        condition.trim().trim_end_matches('.')
    )
}

pub fn revived_note(id: &WaitId, target: &str, condition: &str, timeout_s: u64) -> String {
    format!(
        "Wait {id} revived: watching {target} until: {}. Timeout: {timeout_s}s.",
        condition.trim().trim_end_matches('.')
    )
}

pub fn resolved_note(id: &WaitId, elapsed_s: u64, observation: &str) -> String {
    format!(
        "Wait {id} resolved after {elapsed_s}s: {}",
        cut(observation)
    )
}

pub fn timeout_note(id: &WaitId, timeout_s: u64, last_observation: Option<&str>) -> String {
    format!(
        "Wait {id} timed out after {timeout_s}s. Last observation: {}",
        cut(last_observation.unwrap_or("none"))
    )
}

pub fn changed_note(id: &WaitId, elapsed_s: u64, observation: &str) -> String {
    format!(
        "Wait {id} woke you after {elapsed_s}s at a change nobody judged: {}",
        cut(observation)
    )
}

/// The head of a `wait_changed` wake text.
pub fn changed_head(id: &WaitId, observation: &str, why: &str, seconds: u64) -> String {
    format!(
        "smart_wait changed ({id}): {} The condition was not judged: {}. Elapsed: {seconds}s.",
        ends_sentence(observation),
        why
    )
}

/// The thread note of a wait that ended because its condition can no longer hold.
pub fn over_note(id: &WaitId, elapsed_s: u64, why: &str, observation: &str) -> String {
    format!(
        "Wait {id} ended after {elapsed_s}s without its condition: {}. {}",
        cut(why),
        cut(observation)
    )
}

/// The head of a `wait_changed` wake text for a condition that can no longer hold: why,
/// and what the target showed last.
pub fn over_head(id: &WaitId, why: &str, observation: &str, seconds: u64) -> String {
    format!(
        "smart_wait changed ({id}): {} {} Elapsed: {seconds}s.",
        ends_sentence(&capitalized(why)),
        ends_sentence(&capitalized(observation))
    )
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

pub fn error_note(id: &WaitId, cause: &str) -> String {
    format!("Wait {id} failed: {}", cut(cause))
}

pub fn cancelled_note(id: &WaitId, reason: Option<&str>) -> String {
    format!(
        "Wait {id} cancelled: {}",
        cut(reason.unwrap_or("no reason given"))
    )
}

/// Why a wait ends after failures in a row: "5 capture failures in a row; the last: …".
pub fn failed_in_a_row(count: u32, what: &str, last: &str) -> String {
    format!("{count} {what} failures in a row; the last: {last}")
}

/// The observation of a window or screen wait with no model, at the first settled change:
/// what changed (a closed window says so), and why that woke the agent.
pub fn first_settled_change(content: &crate::sight::content::Content) -> String {
    use crate::sight::content::Content;
    let what = match content {
        Content::Absent { description } => description.as_str(),
        Content::Text { .. } | Content::Frame(_) => "the window changed",
    };
    format!(
        "{what} (no vision model is configured to judge the condition, so lookout woke you at the \
         first settled change; configure [vision] to have a model judge it)"
    )
}

/// Why a wait whose window closed and stayed closed ended, and what to do about it.
pub fn window_closed_cause(id: &WaitId, target: &str, closed_for_s: u64) -> String {
    format!(
        "{target} closed and stayed closed for {closed_for_s}s. If another window \
         now shows what you are waiting for, start a new smart_wait on it (window:<title> or \
         window:0x<id>); if this one will open again, wait_update(wait_id: \"{id}\") watches for it \
         again"
    )
}

/// The refusal of a quiet window the timeout cannot hold.
pub fn quiet_beyond_timeout(clause: &str, quiet_s: u64, timeout_s: u64) -> CallError {
    CallError::invalid(
        format!(
            "\"{}\" waits for {quiet_s}s without output, which cannot pass within the timeout \
             of {timeout_s}s: the wait could only time out",
            cut(clause)
        ),
        format!(
            "raise timeout above the quiet window (e.g. timeout: {}), or ask for a shorter \
             one (\"no new output for 10 seconds\")",
            quiet_s.saturating_mul(2).max(quiet_s + 30)
        ),
    )
}

/// Why a wait on a file ended: it was deleted and not put back (a rotated log would be).
pub fn file_deleted_why(target: &str, gone_for_s: u64) -> String {
    format!(
        "{target} was deleted and has not come back for {gone_for_s}s, so nothing more can be \
         written to it; if a new file will take its place, start a new smart_wait on it"
    )
}

/// The first part of a wake text, the wording of docs/contract.md §7.
pub fn wake_head(kind: EventKind, id: &WaitId, observation_or_cause: &str, seconds: u64) -> String {
    match kind {
        EventKind::WaitResolved => {
            format!(
                "smart_wait resolved ({id}): {} Elapsed: {seconds}s.",
                ends_sentence(observation_or_cause)
            )
        }
        EventKind::WaitTimeout => format!(
            "smart_wait timeout ({id}): Condition not met after {seconds}s. Last observation: {}",
            ends_sentence(observation_or_cause)
        ),
        EventKind::WaitError | EventKind::TaskStuck => {
            format!(
                "smart_wait error ({id}): {}",
                ends_sentence(observation_or_cause)
            )
        }
        EventKind::WaitChanged => format!(
            "smart_wait changed ({id}): {} Elapsed: {seconds}s.",
            ends_sentence(observation_or_cause)
        ),
    }
}

/// The end of a wake text for a wait with no task.
pub fn taskless_tail(kind: EventKind, id: &WaitId) -> String {
    match kind {
        EventKind::WaitResolved => format!(
            " Not what you were waiting for? wait_update(wait_id: \"{id}\", wake_when: …) sends the wait back to watching."
        ),
        EventKind::WaitTimeout => format!(
            " Look at the target; wait_update(wait_id: \"{id}\", timeout: …) watches again with a new timeout."
        ),
        EventKind::WaitError | EventKind::TaskStuck => {
            " Fix what the error names, then start a new smart_wait or go on without it.".to_owned()
        }
        EventKind::WaitChanged => format!(
            " Look at the target: if the condition holds, go on; if not, wait_update(wait_id: \"{id}\") \
             watches again from here."
        ),
    }
}

#[cfg(test)]
mod tests {

    use storage::TaskRecord;

    use super::*;
    use crate::tasks::plan::PlanProgress;

    fn task(done: &[u32]) -> TaskRecord {
        storage::testkit::deploy_task(&["Build", "Push", "SSH", "Pull and run"], done)
    }

    #[test]
    fn wake_texts_read_like_the_seed_and_stand_on_their_own() {
        let id = WaitId::new("w-4hx8");
        let task = task(&[1, 2, 3]);
        let progress = PlanProgress::new(4, &task.completed_steps, None);
        let resolved = wake_head(
            EventKind::WaitResolved,
            &id,
            "Download completed — file \"report.pdf\" saved",
            47,
        ) + &crate::tasks::report::wait_event_tail(
            EventKind::WaitResolved,
            &id,
            &task,
            &progress,
            None,
        );
        assert_eq!(
            resolved,
            "smart_wait resolved (w-4hx8): Download completed — file \"report.pdf\" saved. Elapsed: 47s. \
             Task t-7k2m9q \"Deploy coursefolio to production\": continue with step 4, Pull and run."
        );
        let timeout = wake_head(
            EventKind::WaitTimeout,
            &id,
            "Download progress bar at ~85%, appears stalled",
            300,
        );
        assert_eq!(
            timeout,
            "smart_wait timeout (w-4hx8): Condition not met after 300s. Last observation: Download progress bar at ~85%, appears stalled."
        );
        let error = wake_head(
            EventKind::WaitError,
            &id,
            "tmux pane main:9: can't find pane",
            12,
        ) + &taskless_tail(EventKind::WaitError, &id);
        assert!(
            error.starts_with("smart_wait error (w-4hx8): tmux pane main:9: can't find pane. Fix"),
            "{error}"
        );
        let timeout_tail = crate::tasks::report::wait_event_tail(
            EventKind::WaitTimeout,
            &id,
            &task,
            &progress,
            None,
        );
        assert!(
            timeout_tail.contains("wait_update(wait_id: \"w-4hx8\""),
            "{timeout_tail}"
        );
        assert!(
            timeout_tail.contains("the task is on step 4, Pull and run"),
            "{timeout_tail}"
        );
    }

    #[test]
    fn replies_match_the_protocol_examples() {
        let window = Judges {
            text: false,
            exit_known: false,
            has_prompt: false,
            model: crate::condition::Reach::Full,
        };
        let condition = "the download completes or an error dialog appears";
        let reading = reading_sentence(&Reading::parse(condition), window);
        assert_eq!(
            reading,
            "Read as: any of [the download completes (model); an error dialog appears (model)]."
        );
        assert!(
            monitoring(condition, 120, &reading, &[]).starts_with(
                "Monitoring. I'll wake you when: the download completes or an error dialog appears. Timeout: 120s. Read as:"
            )
        );
        assert_eq!(
            resumed("the data table is fully rendered with rows visible", 60),
            "Resumed. Watching for: the data table is fully rendered with rows visible. New timeout: 60s."
        );
        assert_eq!(
            cancelled(Some("user provided the file directly")),
            "Wait cancelled. Reason: user provided the file directly."
        );
        let note = unjudged_note(&["the page looks right".into()], false);
        assert!(note.starts_with("No model is configured to judge \"the page looks right\": I will wake you as wait_changed"), "{note}");
        assert!(
            already_present_note("BUILD SUCCESSFUL", "BUILD SUCCESSFUL in 3s", 2)
                .starts_with("'BUILD SUCCESSFUL' is already there (2 lines from the end: \"BUILD SUCCESSFUL in 3s\")")
        );
    }

    #[test]
    fn a_changed_wake_says_nothing_was_judged() {
        let id = WaitId::new("w-4hx8");
        let head = changed_head(
            &id,
            "new output: progress 20%",
            &not_judged_because(&["the page looks right".into()]),
            12,
        ) + &taskless_tail(EventKind::WaitChanged, &id);
        assert!(
            head.starts_with(
                "smart_wait changed (w-4hx8): new output: progress 20%. The condition was not judged: no model is configured to judge \"the page looks right\". Elapsed: 12s. Look at the target"
            ),
            "{head}"
        );
    }
}
