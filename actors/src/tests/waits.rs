//! Smart waits on the ManualClock with scripted targets and judges: the life of a wait, its
//! task linkage (docs/contract.md §4 and §5: no stuck alert while a wait is live, wait messages typed `wait`), failures, restarts.

use std::sync::Arc;
use std::time::Duration;

use storage::{EventKind, MsgType, Status, Store, TaskId, Timestamp, WaitId, WaitState};

use super::Scripted as Waits;
use super::{Fixture, POLL, START, deploy_request, eventually, note, query, wait_for, wait_state};
use crate::condition::judge::{Judge, JudgeFailure, Usage, Verdict};
use crate::sight::capture::CaptureError;
use crate::sight::content::{Content, Frame, ProcessExit, WINDOW_CLOSED};
use crate::tasks::stuck::StuckPolicy;
use crate::waits::WaitUpdate;
use crate::waits::scripted::{ScriptedJudge, ScriptedSources, ScriptedTarget};
use crate::wake::sinks::{RecordingSink, SinkSpec};
use crate::{ActorKind, ErrorKind, ManualClock, Tree, TreeArgs};

async fn start(model: Option<Arc<ScriptedJudge>>) -> Waits {
    Waits::start(move |args| {
        args.waits.text_model = model.map(|judge| judge as Arc<dyn Judge>);
        args.tasks.stuck = StuckPolicy {
            scan_interval: Duration::from_secs(60),
            ..StuckPolicy::default()
        };
    })
    .await
}

impl Waits {
    fn tree(&self) -> &Tree {
        &self.fixture.tree
    }

    fn target(&self, target: &str, text: &str) -> ScriptedTarget {
        self.sources.target(target, Content::text(text))
    }

    async fn advance(&self, by: Duration) {
        self.fixture.advance(by).await;
    }

    async fn state(&self, id: &WaitId) -> WaitState {
        wait_state(self.tree(), id).await
    }

    async fn events(&self) -> Vec<(EventKind, String)> {
        self.tree().settle().await.unwrap();
        self.tree()
            .recent_events(50)
            .await
            .unwrap()
            .into_iter()
            .map(|e| (e.kind, e.text))
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phrase_wait_resolves_with_the_matching_line_and_wakes_once() {
    let waits = start(None).await;
    let tree = waits.tree();
    let task = tree.register_task(deploy_request()).await.unwrap();
    tree.update_task(task.id.clone(), note("Steps 1-3 done"))
        .await
        .unwrap();
    let terminal = waits.target("pty:s-build", "step 1");
    let created = tree
        .smart_wait(wait_for(
            "pty:s-build",
            "wake me when 'ALL DONE' is printed",
            300,
            Some(&task.id),
        ))
        .await
        .unwrap();
    assert_eq!(
        created.message,
        "Monitoring. I'll wake you when: wake me when 'ALL DONE' is printed. Timeout: 300s. \
         Read as: 'ALL DONE' is printed (phrase match)."
    );
    let id = created.record.id.clone();
    assert_eq!(
        created.record.session_key.as_deref(),
        Some("agent:main:main"),
        "inherited from the task"
    );

    waits.advance(POLL).await;
    terminal.show(Content::text("step 1\nstep 2"));
    waits.advance(POLL).await;
    assert_eq!(waits.state(&id).await, WaitState::Watching);
    let linked = tree
        .update_task(task.id.clone(), query("where am I?"))
        .await
        .unwrap()
        .task;
    assert_eq!(linked.active_wait_ids, [id.to_string()]);
    assert_eq!(linked.last_wait_state, Some(WaitState::Watching));

    terminal.show(Content::text("step 1\nstep 2\nstep 3\nALL DONE in 3.2s"));
    waits.advance(POLL).await;
    assert_eq!(waits.state(&id).await, WaitState::Resolved);

    let events = waits.events().await;
    assert_eq!(events.len(), 1, "{events:?}");
    let (kind, text) = &events[0];
    assert_eq!(*kind, EventKind::WaitResolved);
    assert_eq!(
        text,
        &format!(
            "smart_wait resolved ({id}): ALL DONE in 3.2s. Elapsed: 6s. Task {} \"Deploy coursefolio to production\": continue with step 4, Pull and run. [lookout e-000001]",
            task.id
        )
    );
    assert_eq!(waits.sink.received().len(), 1);
    assert_eq!(
        waits.sink.received()[0].session_key.as_deref(),
        Some("agent:main:main")
    );

    // Seed 004 acceptance 5: the thread messages of the wait are typed `wait`.
    let thread = tree.thread(task.id.clone(), 50, None).await.unwrap();
    let wait_messages: Vec<&str> = thread
        .messages
        .iter()
        .filter(|(_, m)| m.msg_type == MsgType::Wait)
        .map(|(_, m)| m.content.as_str())
        .collect();
    assert_eq!(wait_messages.len(), 2, "{wait_messages:?}");
    assert!(wait_messages[0].starts_with(&format!("Waiting ({id}) on pty:s-build until:")));
    assert_eq!(
        wait_messages[1],
        format!("Wait {id} resolved after 6s: ALL DONE in 3.2s")
    );
    let after = tree
        .update_task(task.id.clone(), query("?"))
        .await
        .unwrap()
        .task;
    assert!(after.active_wait_ids.is_empty());
    assert_eq!(after.last_wait_state, Some(WaitState::Resolved));
    assert_eq!(
        after.last_wait_event_at,
        Some(Timestamp::from_secs(after.updated_at.as_secs()))
    );

    // Later polls change nothing: one wake, ever.
    waits.advance(POLL * 5).await;
    assert_eq!(waits.sink.received().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acceptance_1_no_stuck_alert_while_a_linked_wait_is_live() {
    let waits = start(None).await;
    let tree = waits.tree();
    let task = tree.register_task(deploy_request()).await.unwrap();
    waits.target("tmux:build", "compiling");
    let id = tree
        .smart_wait(wait_for(
            "tmux:build",
            "when 'Finished' appears",
            3_600,
            Some(&task.id),
        ))
        .await
        .unwrap()
        .record
        .id;
    for _ in 0..20 {
        waits.advance(Duration::from_secs(60)).await;
    }
    let status = tree.status().await.unwrap();
    assert_eq!(
        status.tasks.stuck_alerts, 0,
        "20 minutes idle, but a wait is live"
    );
    assert_eq!(status.waits.live_waits, 1);

    tree.wait_cancel(id.clone(), Some("found another way".into()))
        .await
        .unwrap();
    for _ in 0..6 {
        waits.advance(Duration::from_secs(60)).await;
    }
    assert_eq!(
        tree.status().await.unwrap().tasks.stuck_alerts,
        1,
        "stuck once the wait is gone"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_that_is_never_met_times_out_with_the_last_observation() {
    let waits = start(None).await;
    let log = waits.target("file:/var/log/build.log", "downloading 10%");
    let id = waits
        .tree()
        .smart_wait(wait_for(
            "file:/var/log/build.log",
            "when 'saved' appears",
            10,
            None,
        ))
        .await
        .unwrap()
        .record
        .id;
    waits.advance(POLL).await;
    log.show(Content::text("downloading 10%\ndownloading 85%"));
    for _ in 0..5 {
        waits.advance(POLL).await;
    }
    assert_eq!(waits.state(&id).await, WaitState::Timeout);
    let events = waits.events().await;
    assert_eq!(events[0].0, EventKind::WaitTimeout);
    assert!(
        events[0].1.starts_with(&format!(
            "smart_wait timeout ({id}): Condition not met after 10s. Last observation: downloading 85%. Look at the target"
        )),
        "{}",
        events[0].1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_sends_no_wake_and_a_cancelled_wait_cannot_be_revived() {
    let waits = start(None).await;
    let tree = waits.tree();
    let task = tree.register_task(deploy_request()).await.unwrap();
    waits.target("tmux:a", "x");
    let id = tree
        .smart_wait(wait_for("tmux:a", "when 'y' shows", 300, Some(&task.id)))
        .await
        .unwrap()
        .record
        .id;
    let cancelled = tree
        .wait_cancel(id.clone(), Some("user provided the file directly".into()))
        .await
        .unwrap();
    assert_eq!(
        cancelled.message,
        "Wait cancelled. Reason: user provided the file directly."
    );
    assert_eq!(cancelled.record.state, WaitState::Cancelled);
    waits.advance(POLL * 3).await;
    assert!(waits.events().await.is_empty());
    let again = tree.wait_cancel(id.clone(), None).await.unwrap();
    assert!(
        again.message.contains("had already ended (cancelled)"),
        "{}",
        again.message
    );
    let error = tree
        .wait_update(
            id.clone(),
            WaitUpdate {
                timeout_s: Some(60),
                ..WaitUpdate::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Conflict);
    let thread = tree.thread(task.id.clone(), 50, None).await.unwrap();
    let (_, last) = thread.messages.last().unwrap();
    assert_eq!(
        (last.msg_type, last.content.clone()),
        (
            MsgType::Wait,
            format!("Wait {id} cancelled: user provided the file directly")
        )
    );
    let missing = tree
        .wait_cancel(WaitId::new("w-nope00"), None)
        .await
        .unwrap_err();
    assert_eq!(missing.kind, ErrorKind::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_update_revives_a_resolved_wait_and_rejudges_a_live_one_at_once() {
    let waits = start(None).await;
    let tree = waits.tree();
    let page = waits.target("tmux:web", "page loading");
    let id = tree
        .smart_wait(wait_for("tmux:web", "when 'loaded' shows", 300, None))
        .await
        .unwrap()
        .record
        .id;
    page.show(Content::text("page loaded, table rendering"));
    waits.advance(POLL).await;
    assert_eq!(waits.state(&id).await, WaitState::Resolved);

    let update = WaitUpdate {
        wake_when: Some("when 'rows: 20' shows".into()),
        timeout_s: Some(60),
        message: Some("page loaded but table still rendering".into()),
    };
    let revived = tree.wait_update(id.clone(), update).await.unwrap();
    assert_eq!(
        revived.message,
        "Resumed. Watching for: when 'rows: 20' shows. New timeout: 60s."
    );
    assert_eq!(revived.record.state, WaitState::Watching);
    waits.advance(POLL).await;
    assert_eq!(
        waits.state(&id).await,
        WaitState::Watching,
        "the table is not there yet"
    );

    // On a live wait, a new condition is judged against what arrived since the wait
    // (re)started, at once.
    page.show(Content::text(
        "page loaded, table rendering\nrows: 5, still rendering",
    ));
    let update = WaitUpdate {
        wake_when: Some("when 'still rendering' shows".into()),
        ..WaitUpdate::default()
    };
    tree.wait_update(id.clone(), update).await.unwrap();
    waits.tree().settle().await.unwrap();
    assert_eq!(waits.state(&id).await, WaitState::Resolved);
    let history: Vec<&str> = {
        let view = tree.wait_status(Some(id.clone())).await.unwrap();
        view[0]
            .record
            .history
            .iter()
            .map(|h| h.event.as_str())
            .collect::<Vec<_>>()
            .join(",")
            .leak()
            .split(',')
            .collect()
    };
    assert_eq!(
        history,
        [
            "created", "judged", "resolved", "revived", "updated", "judged", "resolved"
        ]
    );
    assert_eq!(waits.events().await.len(), 2, "one wake per resolution");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_failures_in_a_row_end_the_wait_in_error_and_say_why() {
    let waits = start(None).await;
    let pane = waits.target("tmux:main:9", "x");
    let id = waits
        .tree()
        .smart_wait(wait_for("tmux:main:9", "when 'y' shows", 300, None))
        .await
        .unwrap()
        .record
        .id;
    waits.tree().settle().await.unwrap();
    for _ in 0..5 {
        pane.fail_next(CaptureError::retryable(
            "tmux pane main:9: can't find pane: main:9",
        ));
    }
    for _ in 0..4 {
        waits.advance(POLL).await;
    }
    assert_eq!(
        waits.state(&id).await,
        WaitState::Watching,
        "four failures are not five"
    );
    waits.advance(POLL).await;
    assert_eq!(waits.state(&id).await, WaitState::Error);
    let events = waits.events().await;
    assert_eq!(events[0].0, EventKind::WaitError);
    assert!(
        events[0]
            .1
            .contains("5 capture failures in a row; the last: tmux pane main:9: can't find pane"),
        "{}",
        events[0].1
    );

    // A permanent failure ends it at once.
    let lost = waits.target("pty:s-gone", "x");
    lost.fail_next(CaptureError::permanent(
        "terminal session s-gone is not running in this daemon",
    ));
    let refused = waits
        .tree()
        .smart_wait(wait_for("pty:s-gone", "when 'y' shows", 300, None))
        .await
        .unwrap_err();
    assert!(
        refused
            .message
            .contains("terminal session s-gone is not running"),
        "{}",
        refused.message
    );
    // One that fails for good while watching ends at once.
    let flaky = waits.target("pty:s-later", "x");
    let id = waits
        .tree()
        .smart_wait(wait_for("pty:s-later", "when 'y' shows", 300, None))
        .await
        .unwrap()
        .record
        .id;
    flaky.fail_next(CaptureError::permanent(
        "terminal session s-later is not running in this daemon",
    ));
    waits.tree().settle().await.unwrap();
    assert_eq!(waits.state(&id).await, WaitState::Error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_judges_settled_text_and_its_failures_count() {
    let judge = ScriptedJudge::new(|request| {
        let Content::Text { text, .. } = &request.content else {
            unreachable!()
        };
        if text.contains("crash") {
            return Err(JudgeFailure {
                message: "HTTP 401 from http://127.0.0.1: check the key".into(),
                model_call: true,
            });
        }
        Ok(Verdict {
            met: text.contains("green"),
            observation: format!(
                "the tests look {}",
                if text.contains("green") {
                    "green"
                } else {
                    "red"
                }
            ),
            model_call: Some(Usage {
                input_tokens: 100,
                output_tokens: 7,
            }),
        })
    });
    let waits = start(Some(judge.clone())).await;
    let tests = waits.target("tmux:tests", "running");
    let created = waits
        .tree()
        .smart_wait(wait_for(
            "tmux:tests",
            "when the tests look green",
            300,
            None,
        ))
        .await
        .unwrap();
    assert!(!created.message.contains("No model"), "{}", created.message);
    let id = created.record.id;
    waits.advance(POLL).await; // the first capture: still moving, as far as the gate knows
    assert_eq!(judge.calls(), 0);
    waits.advance(POLL).await; // settled, but nothing new since the wait began: not asked
    let calls_after_baseline = judge.calls();
    assert_eq!(calls_after_baseline, 0);
    tests.show(Content::text("running\nred"));
    waits.advance(POLL).await; // changing: not asked
    assert_eq!(judge.calls(), calls_after_baseline);
    waits.advance(POLL).await; // settled: asked
    assert_eq!(judge.calls(), calls_after_baseline + 1);
    for _ in 0..3 {
        waits.advance(POLL).await; // unchanged: never asked again
    }
    assert_eq!(judge.calls(), calls_after_baseline + 1);

    tests.show(Content::text("running\ngreen"));
    waits.advance(POLL).await;
    waits.advance(POLL).await;
    assert_eq!(waits.state(&id).await, WaitState::Resolved);
    let record = waits
        .tree()
        .wait_status(Some(id))
        .await
        .unwrap()
        .remove(0)
        .record;
    assert_eq!(record.counters.judge_calls, 2);
    assert_eq!(
        (record.counters.input_tokens, record.counters.output_tokens),
        (200, 14)
    );
    assert!(record.counters.skipped_by_gate >= 3);
    assert_eq!(
        record.last_observation.as_deref(),
        Some("the tests look green")
    );

    // Five judge failures in a row end a wait in error, with the judge's words. The model
    // judges what was printed after the wait began, so the crash comes after it.
    let id = waits
        .tree()
        .smart_wait(wait_for(
            "tmux:tests",
            "when the tests look green",
            300,
            None,
        ))
        .await
        .unwrap()
        .record
        .id;
    tests.show(Content::text("running\ngreen\ncrash"));
    // A failed judgment is not "seen": the same settled content is asked about again.
    for _ in 0..6 {
        waits.advance(POLL).await;
    }
    let record = waits
        .tree()
        .wait_status(Some(id))
        .await
        .unwrap()
        .remove(0)
        .record;
    assert_eq!(record.state, WaitState::Error);
    assert_eq!(record.counters.judge_failures, 5);
    assert!(
        waits
            .events()
            .await
            .last()
            .unwrap()
            .1
            .contains("check the key")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_model_a_vague_condition_wakes_as_changed_at_the_first_change_and_says_so() {
    let waits = start(None).await;
    let page = waits.target("tmux:dash", "loading");
    let created = waits
        .tree()
        .smart_wait(wait_for(
            "tmux:dash",
            "when the dashboard looks healthy",
            300,
            None,
        ))
        .await
        .unwrap();
    assert!(
        created.message.contains("No model is configured"),
        "{}",
        created.message
    );
    waits.advance(POLL * 3).await;
    assert_eq!(
        waits.state(&created.record.id).await,
        WaitState::Watching,
        "no change yet"
    );
    page.show(Content::text("loading\nall 12 services up"));
    waits.advance(POLL).await;
    waits.advance(POLL).await;
    assert_eq!(waits.state(&created.record.id).await, WaitState::Changed);
    let (kind, text) = waits.events().await.remove(0);
    assert_eq!(kind, EventKind::WaitChanged);
    assert!(
        text.starts_with(&format!(
            "smart_wait changed ({}): new output: all 12 services up. The condition was not judged: \
             no model is configured to judge \"the dashboard looks healthy\".",
            created.record.id
        )),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exit_clause_resolves_when_the_process_exits() {
    let waits = start(None).await;
    let terminal = waits.target("pty:s-make", "building");
    let id = waits
        .tree()
        .smart_wait(wait_for(
            "pty:s-make",
            "when the command finishes",
            300,
            None,
        ))
        .await
        .unwrap()
        .record
        .id;
    waits.advance(POLL * 2).await;
    terminal.show(Content::Text {
        text: "building\nerror: 2 failed".into(),
        origin: Default::default(),
        exit: Some(ProcessExit { code: Some(2) }),
    });
    waits.advance(POLL).await;
    assert_eq!(waits.state(&id).await, WaitState::Resolved);
    assert!(
        waits.events().await[0]
            .1
            .contains("the process exited with status 2; last line: error: 2 failed")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_watcher_is_restarted_and_the_wait_goes_on() {
    let waits = start(None).await;
    let terminal = waits.target("tmux:flaky", "a");
    let id = waits
        .tree()
        .smart_wait(wait_for("tmux:flaky", "when 'done' shows", 300, None))
        .await
        .unwrap()
        .record
        .id;
    waits.advance(POLL).await;
    terminal.panic_next();
    waits.advance(POLL).await;
    waits.tree().faults().panic_next(ActorKind::Watcher);
    waits.advance(POLL).await;
    terminal.show(Content::text("done"));
    for _ in 0..3 {
        waits.advance(POLL).await;
    }
    assert_eq!(waits.state(&id).await, WaitState::Resolved);
    let record = waits
        .tree()
        .wait_status(Some(id))
        .await
        .unwrap()
        .remove(0)
        .record;
    let failures = record
        .history
        .iter()
        .filter(|h| h.event.as_str() == "capture_failed")
        .count();
    assert_eq!(failures, 2, "{:?}", record.history);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_waits_resume_after_a_restart_and_a_passed_deadline_times_out_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("lookout.redb")).unwrap());
    let clock = ManualClock::new(Timestamp::parse_rfc3339(START).unwrap());
    let sources = Arc::new(ScriptedSources::default());
    let sink = RecordingSink::new("recorder");
    let boot = |store: Arc<Store>| {
        let mut args = TreeArgs::new(store, clock.clone());
        args.waits.sources = Some(sources.clone());
        args.wake.sinks = vec![SinkSpec::Custom(sink.clone())];
        Tree::start(args)
    };
    let tree = boot(store.clone()).await.unwrap();
    let log = sources.target("file:/tmp/app.log", Content::text("starting"));
    sources.target("file:/tmp/other.log", Content::text("starting"));
    let long = tree
        .smart_wait(wait_for(
            "file:/tmp/app.log",
            "when 'ready' appears",
            600,
            None,
        ))
        .await
        .unwrap()
        .record
        .id;
    let short = tree
        .smart_wait(wait_for(
            "file:/tmp/other.log",
            "when 'ready' appears",
            30,
            None,
        ))
        .await
        .unwrap()
        .record
        .id;
    tree.settle().await.unwrap();
    tree.shutdown().await;

    // Down for a minute: the 30-second wait's deadline passes, the 10-minute one's does not.
    clock.advance(Duration::from_secs(60));
    let tree = boot(store).await.unwrap();
    tree.settle().await.unwrap();
    let events: Vec<String> = tree
        .recent_events(10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.text)
        .collect();
    assert_eq!(events.len(), 1);
    assert!(events[0].starts_with(&format!(
        "smart_wait timeout ({short}): Condition not met after 30s."
    )));
    assert!(
        events[0].contains("the deadline passed while the daemon was not running"),
        "{}",
        events[0]
    );

    let live = tree.wait_status(None).await.unwrap();
    assert_eq!(
        live.iter().map(|v| v.record.id.clone()).collect::<Vec<_>>(),
        std::slice::from_ref(&long)
    );
    log.show(Content::text("starting\nready on :8080"));
    clock.advance(POLL);
    tree.settle().await.unwrap();
    assert_eq!(
        tree.wait_status(Some(long)).await.unwrap()[0].record.state,
        WaitState::Resolved
    );
    assert_eq!(tree.recent_events(10).await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_on_terminal_tasks_and_unknown_targets_are_refused() {
    let waits = start(None).await;
    let tree = waits.tree();
    let task = tree.register_task(deploy_request()).await.unwrap();
    let done = crate::tasks::types::UpdateTask {
        status: Some(Status::Completed),
        ..Default::default()
    };
    tree.update_task(task.id.clone(), done).await.unwrap();
    waits.target("tmux:x", "x");
    let error = tree
        .smart_wait(wait_for("tmux:x", "when 'y' shows", 60, Some(&task.id)))
        .await
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Conflict);
    let missing = tree
        .smart_wait(wait_for(
            "tmux:x",
            "when 'y' shows",
            60,
            Some(&TaskId::new("t-nope00")),
        ))
        .await
        .unwrap_err();
    assert_eq!(missing.kind, ErrorKind::NotFound);
    let unscripted = tree
        .smart_wait(wait_for("tmux:elsewhere", "when 'y' shows", 60, None))
        .await
        .unwrap_err();
    assert_eq!(unscripted.kind, ErrorKind::NotFound);
    // A refused wait's actor retires right after its reply: none stays behind.
    super::eventually("the refused waits' actors retired", async || {
        tree.status().await.unwrap().waits.live_waits == 0
    })
    .await;
}

/// How long a closed window may stay closed in the window tests below.
const GRACE: Duration = Duration::from_secs(10);

/// A tree watching scripted windows, judged by `model` (none: the first settled change wakes).
async fn start_watching_windows(model: Option<Arc<dyn Judge>>) -> Waits {
    Waits::start(move |args| {
        args.waits.pixel_judge = model;
        args.waits.window_gone_grace = GRACE;
    })
    .await
}

fn window(shade: u8) -> Content {
    Content::Frame(Frame::new(64, 48, vec![shade; 64 * 48 * 4]))
}

fn closed_window() -> Content {
    Content::Absent {
        description: WINDOW_CLOSED.into(),
    }
}

/// A vision model stand-in: a frame never meets the condition; the window's absence does
/// when `met_when_closed`.
fn installer_model(met_when_closed: bool) -> Arc<ScriptedJudge> {
    ScriptedJudge::new(move |request| {
        let (met, observation) = match &request.content {
            Content::Absent { description } => (
                met_when_closed,
                format!("the installer is gone ({description})"),
            ),
            _ => (false, "the installer is still copying files".to_owned()),
        };
        Ok(Verdict {
            met,
            observation,
            model_call: Some(Usage {
                input_tokens: 10,
                output_tokens: 2,
            }),
        })
    })
}

impl Waits {
    /// A wait on `window:Installer` whose first capture is done (t = 0).
    async fn watch_installer(&self) -> (ScriptedTarget, WaitId) {
        let installer = self.sources.target("window:Installer", window(40));
        let id = self
            .tree()
            .smart_wait(wait_for(
                "window:Installer",
                "the installer finishes",
                600,
                None,
            ))
            .await
            .unwrap()
            .record
            .id;
        self.tree().settle().await.unwrap();
        (installer, id)
    }

    /// Polls until the wait is no longer `Watching` (or `polls` are done); returns how many
    /// polls that took and the state.
    async fn poll_until_ended(&self, id: &WaitId, polls: u32) -> (u32, WaitState) {
        for poll in 1..=polls {
            self.advance(POLL).await;
            let state = self.state(id).await;
            if state != WaitState::Watching {
                return (poll, state);
            }
        }
        (polls, WaitState::Watching)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_that_closes_and_stays_closed_ends_the_wait_in_error_after_the_grace() {
    let model = installer_model(false);
    let waits = start_watching_windows(Some(model.clone())).await;
    let (installer, id) = waits.watch_installer().await;
    waits.advance(POLL).await; // settled: the model looks (t = 2)
    assert_eq!(model.calls(), 1);

    installer.show(closed_window());
    waits.advance(POLL).await; // the first capture without the window (t = 4)
    let closed_at = waits.tree().directory().now();
    waits.advance(POLL).await; // settled: the model sees the absence and says not met
    assert_eq!(model.calls(), 2);
    // Polls go on while the window is closed for less than the grace, then it ends.
    let (polls, state) = waits.poll_until_ended(&id, 20).await;
    assert_eq!(state, WaitState::Error);
    let ended_at = waits.tree().directory().now();
    assert_eq!(
        ended_at.millis_since(closed_at),
        GRACE.as_millis() as u64,
        "ended after {polls} more polls"
    );
    assert_eq!(model.calls(), 2, "the absence was judged once");

    let events = waits.events().await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].0, EventKind::WaitError);
    assert_eq!(
        events[0].1,
        format!(
            "smart_wait error ({id}): window:Installer closed and stayed closed for 10s. If another \
             window now shows what you are waiting for, start a new smart_wait on it (window:<title> \
             or window:0x<id>); if this one will open again, wait_update(wait_id: \"{id}\") watches \
             for it again. Fix what the error names, then start a new smart_wait or go on without it. \
             [lookout e-000001]"
        )
    );
    let record = waits.tree().wait_status(Some(id)).await.unwrap()[0]
        .record
        .clone();
    assert_eq!(
        record.last_observation.as_deref(),
        Some("the installer is gone (window closed)")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_back_within_the_grace_is_watched_as_before_and_a_revived_wait_gets_a_new_grace() {
    let model = installer_model(false);
    let waits = start_watching_windows(Some(model.clone())).await;
    let (installer, id) = waits.watch_installer().await;
    installer.show(closed_window());
    for _ in 0..4 {
        waits.advance(POLL).await; // closed for 6 s of the 10
    }
    installer.show(window(40));
    let (_, state) = waits.poll_until_ended(&id, 15).await;
    assert_eq!(state, WaitState::Watching, "the window came back in time");

    // Closed again: a whole new grace, not what was left of the first one.
    installer.show(closed_window());
    waits.advance(POLL).await;
    let closed_at = waits.tree().directory().now();
    let (_, state) = waits.poll_until_ended(&id, 20).await;
    assert_eq!(state, WaitState::Error);
    let ended_at = waits.tree().directory().now();
    assert_eq!(ended_at.millis_since(closed_at), GRACE.as_millis() as u64);

    // What the wake suggests: wait_update watches again, with a grace of its own.
    waits
        .tree()
        .wait_update(id.clone(), WaitUpdate::default())
        .await
        .unwrap();
    waits.tree().settle().await.unwrap();
    let revived_at = waits.tree().directory().now();
    let (_, state) = waits.poll_until_ended(&id, 20).await;
    assert_eq!(state, WaitState::Error);
    let ended_at = waits.tree().directory().now();
    assert_eq!(ended_at.millis_since(revived_at), GRACE.as_millis() as u64);
    let events = waits.events().await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events.iter().all(|(kind, _)| *kind == EventKind::WaitError));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_finds_the_condition_met_by_the_absence_resolves_the_wait() {
    let model = installer_model(true);
    let waits = start_watching_windows(Some(model.clone())).await;
    let (installer, id) = waits.watch_installer().await;
    installer.show(closed_window());
    waits.advance(POLL).await;
    waits.advance(POLL).await;
    assert_eq!(waits.state(&id).await, WaitState::Resolved);
    let events = waits.events().await;
    assert_eq!(events[0].0, EventKind::WaitResolved);
    assert!(
        events[0].1.starts_with(&format!(
            "smart_wait resolved ({id}): the installer is gone (window closed). Elapsed: 4s."
        )),
        "{}",
        events[0].1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_model_a_closed_window_is_the_first_change_and_wakes_as_changed() {
    let waits = start_watching_windows(None).await;
    let (installer, id) = waits.watch_installer().await;
    waits.advance(POLL).await;
    installer.show(closed_window());
    waits.advance(POLL).await;
    waits.advance(POLL).await;
    assert_eq!(waits.state(&id).await, WaitState::Changed);
    let events = waits.events().await;
    assert_eq!(events[0].0, EventKind::WaitChanged);
    assert!(
        events[0].1.starts_with(&format!(
            "smart_wait changed ({id}): window closed. The condition was not judged: no model is configured"
        )),
        "{}",
        events[0].1
    );
}

/// A judge that answers only when the test lets it: a judgment the test can keep in flight.
#[derive(Debug)]
struct HeldJudge {
    answers: Arc<tokio::sync::Semaphore>,
    calls: std::sync::atomic::AtomicU64,
}

impl HeldJudge {
    fn new() -> Arc<HeldJudge> {
        Arc::new(HeldJudge {
            answers: Arc::new(tokio::sync::Semaphore::new(0)),
            calls: Default::default(),
        })
    }
}

impl Judge for HeldJudge {
    fn describe(&self) -> String {
        "held judge".to_owned()
    }

    fn judge(
        &self,
        request: crate::condition::judge::JudgeRequest,
    ) -> futures::future::BoxFuture<'static, Result<Verdict, JudgeFailure>> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let answers = self.answers.clone();
        Box::pin(async move {
            answers.acquire().await.unwrap().forget();
            Ok(Verdict {
                met: request.content.is_closed_window(),
                observation: "the installer closed: it is done".to_owned(),
                model_call: Some(Usage::default()),
            })
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judgment_in_flight_when_the_grace_ends_decides_first() {
    let judge = HeldJudge::new();
    let waits = start_watching_windows(Some(judge.clone())).await;
    waits.sources.target("window:Installer", closed_window());
    // The window is closed from the start: the first capture says so (t = 0).
    let id = waits
        .tree()
        .smart_wait(wait_for(
            "window:Installer",
            "the installer finishes",
            600,
            None,
        ))
        .await
        .unwrap()
        .record
        .id;
    waits.tree().settle().await.unwrap();
    // Settled at t = 2: the model is asked, and holds its answer past the grace.
    let asked = waits.advance(POLL);
    let held = async {
        super::eventually("the model was asked", async || {
            judge.calls.load(std::sync::atomic::Ordering::SeqCst) == 1
        })
        .await;
        for _ in 0..6 {
            waits.advance(POLL).await; // up to t = 14: closed for 14 s
        }
        let still = waits.state(&id).await;
        judge.answers.add_permits(1);
        still
    };
    let ((), still) = tokio::join!(asked, held);
    assert_eq!(
        still,
        WaitState::Watching,
        "the grace passed while the model was judging"
    );
    waits.tree().settle().await.unwrap();
    assert_eq!(waits.state(&id).await, WaitState::Resolved);
}

/// The settle probe's first delay ([`crate::tree::DEFAULT_SETTLE_PROBE`]).
const PROBE: Duration = crate::tree::DEFAULT_SETTLE_PROBE;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_change_that_holds_is_judged_at_the_settle_probe_not_a_poll_later() {
    let model = ScriptedJudge::new(|request| {
        let finished = matches!(&request.content, Content::Frame(frame) if frame.pixels[0] == 200);
        Ok(Verdict {
            met: finished,
            observation: if finished {
                "the installer says Finished".to_owned()
            } else {
                "the installer is still copying files".to_owned()
            },
            model_call: None,
        })
    });
    let waits = start_watching_windows(Some(model.clone())).await;
    let (installer, id) = waits.watch_installer().await;
    // The first capture is news (t = 0); the probe a moment later finds it still and the
    // model looks then, not at the next poll.
    assert_eq!(model.calls(), 0);
    waits.advance(PROBE).await;
    assert_eq!(model.calls(), 1, "judged at the probe");

    // The window changes and holds: seen at the poll (t = 2), judged at the probe.
    installer.show(window(200));
    waits.advance(POLL - PROBE).await;
    assert_eq!(model.calls(), 1, "a change first seen is not judged yet");
    assert_eq!(waits.state(&id).await, WaitState::Watching);
    waits.advance(PROBE).await;
    assert_eq!(waits.state(&id).await, WaitState::Resolved);
    assert_eq!(model.calls(), 2);
    let record = waits.tree().wait_status(Some(id)).await.unwrap()[0]
        .record
        .clone();
    assert_eq!(record.counters.captures, 4, "two polls and two probes");
    let ended = record.ended_at.unwrap();
    let started = Timestamp::parse_rfc3339(START).unwrap();
    assert_eq!(
        ended.millis_since(started),
        (POLL + PROBE).as_millis() as u64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_that_keeps_moving_costs_at_most_three_probes_per_poll() {
    let model = installer_model(false);
    let waits = start_watching_windows(Some(model.clone())).await;
    let (installer, id) = waits.watch_installer().await;
    waits.advance(PROBE).await;
    let captures = async || {
        waits.tree().wait_status(Some(id.clone())).await.unwrap()[0]
            .record
            .counters
            .captures
    };
    assert_eq!(captures().await, 2);
    // A new shade at every capture: seen at the poll, then three probes (PROBE, 2×PROBE and
    // 4×PROBE apart) that find it moving, then nothing until the next poll.
    let mut shade = 50;
    installer.show(window(shade));
    waits.advance(POLL - PROBE).await;
    for _ in 0..12 {
        shade += 10;
        installer.show(window(shade));
        waits.advance(PROBE).await;
    }
    assert_eq!(captures().await, 2 + 1 + 3, "the poll and its three probes");
    assert_eq!(model.calls(), 1, "a moving window is not judged");
}

/// At most `max_live` waits watch at once: one more is refused (a conflict saying what to do),
/// and so is reviving an ended one; a wait that ends makes room again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_waits_are_capped_with_a_refusal_that_says_what_to_do() {
    let sources = Arc::new(ScriptedSources::default());
    let factory = sources.clone();
    let fixture = Fixture::start(move |args| {
        args.waits.sources = Some(factory);
        args.waits.max_live = 2;
    })
    .await;
    let tree = &fixture.tree;
    let pane = sources.target("tmux:a", Content::text("a"));
    let first = tree
        .smart_wait(wait_for("tmux:a", "when 'x' shows", 600, None))
        .await
        .unwrap();
    tree.smart_wait(wait_for("tmux:a", "when 'y' shows", 600, None))
        .await
        .unwrap();
    let refused = tree
        .smart_wait(wait_for("tmux:a", "when 'z' shows", 600, None))
        .await
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Conflict);
    assert!(
        refused.message.contains("2 waits are watching"),
        "{}",
        refused.message
    );
    assert!(refused.hint.contains("max_live_waits"), "{}", refused.hint);
    // The first one resolves: room for one more.
    pane.show(Content::text("a\nx"));
    fixture.advance(POLL).await;
    super::eventually("the resolved wait's actor retired", async || {
        tree.status().await.unwrap().waits.live_waits == 1
    })
    .await;
    tree.smart_wait(wait_for("tmux:a", "when 'z' shows", 600, None))
        .await
        .unwrap();
    // Full again: reviving the resolved one is refused too (it would watch).
    let revived = tree
        .wait_update(first.record.id.clone(), WaitUpdate::default())
        .await
        .unwrap_err();
    assert!(
        revived.message.contains("2 waits are watching"),
        "{}",
        revived.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_tells_its_changes_is_read_at_once_and_polled_when_it_stops() {
    let waits = start(None).await;
    let tree = waits.tree();
    let resolved = async |id: &WaitId| wait_state(tree, id).await == WaitState::Resolved;
    let wait_on = async |target: &str| {
        let wait = wait_for(target, "wake me when 'ALL DONE' is printed", 300, None);
        tree.smart_wait(wait).await.unwrap().record.id
    };
    let told = waits
        .sources
        .told_target("pty:s-told", Content::text("step 1"));
    let id = wait_on("pty:s-told").await;
    waits.advance(POLL).await;
    let polled = told.captures();
    // The clock stands still: no poll is due, and the change alone is read and decided.
    told.show(Content::text("step 1\nALL DONE in 3.2s"));
    eventually("decided on the change", async || resolved(&id).await).await;
    assert!(told.captures() > polled);

    // A source that stops telling is still read at the poll interval.
    let quiet = waits
        .sources
        .told_target("pty:s-quiet", Content::text("step 1"));
    let id = wait_on("pty:s-quiet").await;
    waits.advance(POLL).await;
    quiet.stop_telling();
    quiet.show(Content::text("step 1\nALL DONE in 3.2s"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        waits.state(&id).await,
        WaitState::Watching,
        "nothing told it"
    );
    waits.advance(POLL).await;
    eventually("read at the poll", async || resolved(&id).await).await;
}

/// A wait that ends while its target is being read: its Watcher is stopped mid-capture,
/// and nothing follows the target's changes any more (a follower left behind would keep a
/// tmux pane piped, a file watched, after every wait on it ended).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_ended_while_its_target_is_read_stops_following_the_target() {
    let waits = start(None).await;
    let tree = waits.tree();
    let target = (waits.sources).told_target("pty:s-slow", Content::text("step 1"));
    let wait = wait_for(
        "pty:s-slow",
        "wake me when 'ALL DONE' is printed",
        300,
        None,
    );
    let id = tree.smart_wait(wait).await.unwrap().record.id;
    waits.advance(POLL).await;
    assert!(target.listeners() > 0, "the target is followed");
    // Told of a change, the Watcher starts a read that takes a minute.
    target.slow_captures(Duration::from_secs(60));
    let read = target.captures();
    target.show(Content::text("step 2"));
    eventually("a read under way", async || target.captures() > read).await;
    tree.wait_cancel(id, Some("done another way".into()))
        .await
        .unwrap();
    eventually("nobody follows the target", async || {
        target.listeners() == 0
    })
    .await;
}

/// A window whose source tells every change (X11 under DAMAGE) is not read while it is
/// still: its polls cost no capture until it changes, until [`READ_ANYWAY_AFTER`] passed
/// since its last read, or until the floor judges it again; once the source stops telling,
/// every poll reads it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_still_window_told_of_every_change_is_read_only_when_it_may_have_changed() {
    use crate::waits::feed::READ_ANYWAY_AFTER;
    const FLOOR: Duration = Duration::from_secs(120);
    let model = installer_model(false);
    let waits = start_watching_windows(Some(model.clone())).await;
    let installer = (waits.sources).told_window("window:Installer", window(40), FLOOR);
    let wait = wait_for("window:Installer", "the installer finishes", 3600, None);
    let id = waits.tree().smart_wait(wait).await.unwrap().record.id;
    waits.tree().settle().await.unwrap();
    assert_eq!(model.calls(), 1, "the first frame is judged at once");
    let polls = async |count: u32| {
        for _ in 0..count {
            waits.advance(POLL).await;
        }
    };
    let read = installer.captures();
    polls(10).await; // t = 20 s
    assert_eq!(
        installer.captures(),
        read,
        "still and told of no change: not read"
    );
    let record = waits.tree().wait_status(Some(id.clone())).await.unwrap()[0]
        .record
        .clone();
    assert_eq!(record.counters.captures, 11, "every poll counts as a look");
    assert_eq!(record.counters.skipped_by_gate, 10);

    // A change is read as it is told, judged at the probe that finds it still, and read once
    // more at the poll after (the last read was a probe's); then nothing again.
    installer.show(window(200));
    eventually("the change is read at once", async || {
        installer.captures() == read + 1
    })
    .await;
    // The probe is armed just after the capture is counted, from the clock's time then.
    let timers = waits.tree().directory().timers();
    eventually("the settle probe is armed", async || {
        timers.any_named_like("watcher-probe-")
    })
    .await;
    waits.advance(PROBE).await;
    assert_eq!(installer.captures(), read + 2);
    assert_eq!(model.calls(), 2, "judged once it held still");
    waits.advance(POLL - PROBE).await; // t = 22 s
    assert_eq!(installer.captures(), read + 3);
    polls(29).await; // t = 80 s
    assert_eq!(installer.captures(), read + 3, "nothing told since");

    // The safety net: read anyway a minute after the last read.
    assert_eq!(READ_ANYWAY_AFTER, Duration::from_secs(60));
    polls(1).await; // t = 82 s
    assert_eq!(installer.captures(), read + 4);
    // The floor: judged again two minutes after the last judgment (t = 20.05 s), on a read.
    polls(29).await; // t = 140 s
    assert_eq!((installer.captures(), model.calls()), (read + 4, 2));
    polls(1).await; // t = 142 s
    assert_eq!((installer.captures(), model.calls()), (read + 5, 3));

    // A source that stops telling is read at every poll.
    installer.stop_telling();
    polls(3).await;
    assert_eq!(installer.captures(), read + 8);
    assert_eq!(waits.state(&id).await, WaitState::Watching);
}
