//! Table tests of the wait transitions: what each input does to the record, the watch and
//! the step the actor takes.

use std::time::Duration;

use storage::{EventKind, Timestamp, WaitEvent, WaitId, WaitState};

use super::*;
use crate::condition::judge::Usage;
use crate::sight::target::Target;

const T0: Timestamp = Timestamp(1_771_000_000_000);

fn at(seconds: u64) -> Timestamp {
    T0.saturating_add_millis(seconds * 1000)
}

fn record() -> WaitRecord {
    new_record(
        WaitId::new("w-4hx8q2"),
        &NewWait {
            target: Target::parse("file:/tmp/build.log").unwrap(),
            condition: "when 'ALL DONE' is printed".into(),
            timeout_s: 300,
            poll_interval: Duration::from_secs(2),
            task_id: None,
            session_key: None,
            match_existing: false,
            step: None,
        },
        None,
        T0,
    )
}

fn verdict(met: bool, observation: &str, tokens: Option<(u64, u64)>) -> Verdict {
    Verdict {
        met,
        observation: observation.into(),
        model_call: tokens.map(|(input_tokens, output_tokens)| Usage {
            input_tokens,
            output_tokens,
        }),
    }
}

fn failure(message: &str, model_call: bool) -> JudgeFailure {
    JudgeFailure {
        message: message.into(),
        model_call,
    }
}

#[test]
fn a_new_record_watches_until_its_deadline_with_one_history_entry() {
    let record = record();
    assert_eq!(record.state, WaitState::Watching);
    assert_eq!(record.deadline, at(300));
    assert_eq!(record.poll_interval_ms, 2000);
    assert_eq!(record.target, "file:/tmp/build.log");
    assert_eq!(record.history.len(), 1);
    assert_eq!(record.history[0].event, WaitEvent::Created);
}

#[test]
fn history_keeps_created_and_the_newest_entries() {
    let mut record = record();
    for n in 0..(MAX_HISTORY as u64 + 10) {
        add_history(&mut record, at(n), WaitEvent::Judged, Some(false), None);
    }
    assert_eq!(record.history.len(), MAX_HISTORY);
    assert_eq!(record.history[0].event, WaitEvent::Created);
    assert_eq!(
        record.history.last().unwrap().at,
        at(MAX_HISTORY as u64 + 9)
    );
}

#[test]
fn decisions_on_observations() {
    // (decision, step, last observation afterwards, judging afterwards)
    let table = [
        (
            Decision::Met("ALL DONE in 4s".into()),
            Step::End(Ending::Resolved("ALL DONE in 4s".into())),
            Some("ALL DONE in 4s"),
            false,
        ),
        (
            Decision::NotMet("step 2".into()),
            Step::Keep,
            Some("step 2"),
            false,
        ),
        (Decision::NotMet(String::new()), Step::Keep, None, false),
        (Decision::AskModel, Step::AskModel, None, true),
        (
            Decision::Changed {
                observation: "new output: step 2".into(),
                unjudged: vec!["the page looks right".into()],
            },
            Step::End(Ending::Changed {
                observation: "new output: step 2".into(),
                unjudged: vec!["the page looks right".into()],
            }),
            Some("new output: step 2"),
            false,
        ),
    ];
    for (decision, step, last, judging) in table {
        let mut record = record();
        let mut watch = Watch::default();
        let label = format!("{decision:?}");
        assert_eq!(
            observed(&mut record, &mut watch, decision, at(5)),
            step,
            "{label}"
        );
        assert_eq!(record.last_observation.as_deref(), last, "{label}");
        assert_eq!(watch.judging, judging, "{label}");
    }
}

#[test]
fn verdicts_count_calls_and_tokens_and_failures_end_the_wait_at_the_limit() {
    let mut record = record();
    let mut watch = Watch {
        judging: true,
        ..Watch::default()
    };
    let step = judged(
        &mut record,
        &mut watch,
        Ok(verdict(false, "progress 40%", Some((1200, 30)))),
        at(10),
        3,
    );
    assert_eq!(step, Step::Save);
    assert!(!watch.judging);
    assert_eq!(record.counters.judge_calls, 1);
    assert_eq!(record.counters.input_tokens, 1200);
    assert_eq!(record.last_observation.as_deref(), Some("progress 40%"));

    for n in 1..=2 {
        let step = judged(
            &mut record,
            &mut watch,
            Err(failure("HTTP 503", true)),
            at(10 + n),
            3,
        );
        assert_eq!(step, Step::Save, "failure {n} of 3");
    }
    let step = judged(
        &mut record,
        &mut watch,
        Err(failure("HTTP 503", false)),
        at(20),
        3,
    );
    assert!(
        matches!(&step, Step::End(Ending::Error(cause)) if cause.starts_with("3 judge failures in a row") && cause.contains("HTTP 503")),
        "{step:?}"
    );
    assert_eq!(record.counters.judge_failures, 3);
    assert_eq!(
        record.counters.judge_calls, 3,
        "the last failure made no call"
    );

    // A verdict in between forgives the streak.
    let mut watch = Watch::default();
    let mut record = self::record();
    judged(&mut record, &mut watch, Err(failure("x", true)), at(1), 2);
    judged(
        &mut record,
        &mut watch,
        Ok(verdict(false, "no", None)),
        at(2),
        2,
    );
    assert_eq!(
        judged(&mut record, &mut watch, Err(failure("x", true)), at(3), 2),
        Step::Save
    );
    assert_eq!(
        judged(
            &mut record,
            &mut watch,
            Ok(verdict(true, "green", None)),
            at(4),
            2
        ),
        Step::End(Ending::Resolved("green".into()))
    );
}

#[test]
fn capture_failures_end_the_wait_when_permanent_or_at_the_limit() {
    let mut record = record();
    let mut watch = Watch::default();
    let retryable = CaptureError::retryable("tmux: can't find pane");
    assert_eq!(
        capture_failed(&mut record, &mut watch, retryable.clone(), at(1), 2),
        Step::Keep
    );
    assert!(matches!(
        capture_failed(&mut record, &mut watch, retryable, at(2), 2),
        Step::End(Ending::Error(cause)) if cause.starts_with("2 capture failures in a row")
    ));
    let mut watch = Watch::default();
    assert_eq!(
        capture_failed(
            &mut record,
            &mut watch,
            CaptureError::permanent("the session is gone"),
            at(3),
            5
        ),
        Step::End(Ending::Error("the session is gone".into()))
    );
}

#[test]
fn endings_set_the_state_the_event_and_the_texts() {
    // (ending, state, event kind, what the wake text starts with)
    let table = [
        (
            Ending::Resolved("ALL DONE".into()),
            WaitState::Resolved,
            EventKind::WaitResolved,
            "smart_wait resolved (w-4hx8q2): ALL DONE. Elapsed: 47s.",
        ),
        (
            Ending::Timeout {
                observation: Some("step 2".into()),
                while_down: false,
            },
            WaitState::Timeout,
            EventKind::WaitTimeout,
            "smart_wait timeout (w-4hx8q2): Condition not met after 300s. Last observation: step 2.",
        ),
        (
            Ending::Timeout {
                observation: None,
                while_down: true,
            },
            WaitState::Timeout,
            EventKind::WaitTimeout,
            "smart_wait timeout (w-4hx8q2): Condition not met after 300s. Last observation: none yet (the deadline passed while the daemon was not running).",
        ),
        (
            Ending::Error("the pane is gone".into()),
            WaitState::Error,
            EventKind::WaitError,
            "smart_wait error (w-4hx8q2): the pane is gone.",
        ),
        (
            Ending::Changed {
                observation: "new output: step 2".into(),
                unjudged: vec!["the page looks right".into()],
            },
            WaitState::Changed,
            EventKind::WaitChanged,
            "smart_wait changed (w-4hx8q2): new output: step 2. The condition was not judged: no model is configured to judge \"the page looks right\". Elapsed: 47s.",
        ),
    ];
    for (ending, state, kind, head) in table {
        let mut record = record();
        let end = end(&mut record, ending.clone(), at(47));
        assert_eq!(record.state, state, "{ending:?}");
        assert_eq!(record.ended_at, Some(at(47)));
        assert_eq!(end.kind, kind);
        assert_eq!(end.head, head);
        assert!(end.note.starts_with("Wait w-4hx8q2 "), "{}", end.note);
    }
}

#[test]
fn revive_update_and_cancel() {
    let mut ended = record();
    end(&mut ended, Ending::Resolved("x".into()), at(10));
    let change = WaitUpdate {
        wake_when: Some("when 'DEPLOYED' shows".into()),
        timeout_s: Some(60),
        message: Some("not that".into()),
    };
    let revived = revive(&ended, &change, None, at(100)).unwrap();
    assert_eq!(revived.state, WaitState::Watching);
    assert_eq!(revived.condition, "when 'DEPLOYED' shows");
    assert_eq!((revived.started_at, revived.deadline), (at(100), at(160)));
    assert_eq!(revived.ended_at, None);

    let mut live = record();
    let changed = update(
        &mut live,
        &WaitUpdate {
            timeout_s: Some(30),
            ..WaitUpdate::default()
        },
        at(40),
    );
    assert!(!changed, "only the timeout changed");
    assert_eq!(live.deadline, at(70));
    assert!(update(&mut live, &change, at(40)));

    let mut cancelled = record();
    let note = cancel(&mut cancelled, Some("not needed"), at(5));
    assert_eq!(cancelled.state, WaitState::Cancelled);
    assert!(note.contains("not needed"));
    let refused = revive(&cancelled, &WaitUpdate::default(), None, at(6)).unwrap_err();
    assert!(refused.message.contains("cancelled"), "{}", refused.message);
}

#[test]
fn a_watch_remembers_its_first_content_and_restarts() {
    let mut watch = Watch::default();
    assert!(watch.is_baseline(7));
    assert!(watch.is_baseline(7));
    assert!(!watch.is_baseline(8));
    watch.judge_failures_in_a_row = 2;
    watch.restart();
    assert_eq!(watch.generation, 1);
    assert_eq!(watch.judge_failures_in_a_row, 0);
    assert!(
        watch.is_baseline(8),
        "a restarted watch takes a new first content"
    );
}
