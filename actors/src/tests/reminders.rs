//! Wakes the agent never took come back once, on the ManualClock: a wake nobody asked about
//! is delivered again after `remind_after`, marked as a reminder naming the first event, and
//! never a second time; a wake whose wait the agent asked about is not reminded; stuck alerts
//! are not reminded (they come again by themselves).

use std::time::Duration;

use storage::{EventKind, TaskId, WaitId};

use super::{POLL, Scripted as Reminded, deploy_request, wait_for};
use crate::sight::content::Content;
use crate::tasks::stuck::StuckPolicy;
use crate::tasks::types::UpdateTask;
use crate::wake::reminders::WakeAttention;

const REMIND_AFTER: Duration = Duration::from_secs(600);

async fn start() -> Reminded {
    Reminded::start(|args| {
        args.wake.remind_after = Some(REMIND_AFTER);
        args.tasks.stuck = StuckPolicy {
            scan_interval: Duration::from_secs(100_000),
            ..StuckPolicy::default()
        };
    })
    .await
}

impl Reminded {
    /// A task whose wait on `target` resolves at once; its id and the wait's.
    async fn resolved_wait(&self, target: &str) -> (TaskId, WaitId) {
        let tree = &self.fixture.tree;
        let task = tree.register_task(deploy_request()).await.unwrap().id;
        let screen = self.sources.target(target, Content::text("building"));
        let new = wait_for(target, "'ALL DONE' is printed", 3600, Some(&task));
        let wait = tree.smart_wait(new).await.unwrap().record.id;
        screen.show(Content::text("building\nALL DONE in 3s"));
        self.fixture.advance(POLL).await;
        (task, wait)
    }

    fn texts(&self) -> Vec<String> {
        self.sink.received().into_iter().map(|e| e.text).collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wake_nobody_asked_about_comes_back_once_and_one_taken_never_does() {
    let reminded = start().await;
    let tree = &reminded.fixture.tree;
    let (ignored_task, ignored) = reminded.resolved_wait("pty:s-ignored").await;
    let (_, taken) = reminded.resolved_wait("pty:s-taken").await;
    let first = reminded.sink.received();
    assert_eq!(first.len(), 2, "{first:?}");
    assert!(first.iter().all(|e| e.kind == EventKind::WaitResolved));

    // The agent asks about one of the two waits.
    tree.wait_status(Some(taken.clone())).await.unwrap();
    reminded.fixture.advance(REMIND_AFTER / 2).await;
    assert_eq!(reminded.sink.received().len(), 2, "not due yet");
    reminded.fixture.advance(REMIND_AFTER / 2).await;
    reminded.fixture.advance(Duration::from_secs(60)).await;

    let received = reminded.sink.received();
    assert_eq!(received.len(), 3, "{:?}", reminded.texts());
    let reminder = &received[2];
    let original = first
        .iter()
        .find(|e| e.wait_id.as_deref() == Some(ignored.as_str()))
        .unwrap();
    assert_eq!(reminder.kind, EventKind::WaitResolved);
    assert_eq!(reminder.wait_id, original.wait_id);
    assert_eq!(reminder.task_id, original.task_id);
    let original_id = format!("e-{:06}", original.seq);
    assert!(
        reminder.text.starts_with(&format!(
            "Reminder: nothing was asked about this wake ({original_id}) in "
        )),
        "{}",
        reminder.text
    );
    let body = original
        .text
        .strip_suffix(&format!(" [lookout {original_id}]"))
        .unwrap();
    assert!(reminder.text.contains(body), "{}", reminder.text);
    assert!(
        reminder
            .text
            .ends_with(&format!("[lookout e-{:06}]", reminder.seq)),
        "{}",
        reminder.text
    );

    // Never a second time, and the counts say how the wakes fared.
    reminded.fixture.advance(REMIND_AFTER * 2).await;
    assert_eq!(reminded.sink.received().len(), 3, "{:?}", reminded.texts());
    assert_eq!(
        tree.wake_attention(),
        WakeAttention {
            taken: 1,
            not_taken: 1,
            reminded: 1
        }
    );
    // "Where am I?" on its task lists it as not taken, and takes it.
    let query = UpdateTask {
        query: Some("where am I?".into()),
        ..UpdateTask::default()
    };
    let answer = tree.update_task(ignored_task, query).await.unwrap();
    let wakes = answer.report.unwrap().inventory.wakes;
    assert_eq!(
        wakes.iter().map(|event| event.seq).collect::<Vec<_>>(),
        [original.seq],
        "the wake, not its reminder"
    );
    reminded.fixture.advance(Duration::from_secs(60)).await;
    assert_eq!(
        tree.wake_attention(),
        WakeAttention {
            taken: 2,
            not_taken: 0,
            reminded: 1
        }
    );
}
