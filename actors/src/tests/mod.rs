//! Actor-level tests: the whole tree on a real redb file and a ManualClock.

mod glyphs;
mod reminders;
mod stuck;
mod told;
mod tree;
mod vision;
mod waits;
mod wake;
mod window_waits;

use std::sync::Arc;
use std::time::Duration;

use storage::{Store, TaskId, Timestamp, WaitId, WaitState};

use crate::sight::target::Target;
use crate::tasks::types::{Metadata, Plan, RegisterTask, TaskName, UpdateTask};
use crate::waits::NewWait;
use crate::waits::scripted::ScriptedSources;
use crate::wake::sinks::{RecordingSink, SinkSpec};
use crate::{ManualClock, RestartPolicy, Tree, TreeArgs};

const START: &str = "2026-02-13T17:00:00Z";

struct Fixture {
    _dir: tempfile::TempDir,
    clock: Arc<ManualClock>,
    tree: Tree,
}

impl Fixture {
    /// The tree on a temp redb file and a ManualClock at [`START`], with quick restarts;
    /// `adjust` changes whatever else the test needs.
    async fn start(adjust: impl FnOnce(&mut TreeArgs)) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&dir.path().join("lookout.redb")).unwrap());
        let clock = ManualClock::new(Timestamp::parse_rfc3339(START).unwrap());
        let mut args = TreeArgs::new(store, clock.clone());
        let quick = RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RestartPolicy::default()
        };
        args.policy = quick.clone();
        args.tasks.policy = quick;
        adjust(&mut args);
        let tree = Tree::start(args).await.unwrap();
        Fixture {
            _dir: dir,
            clock,
            tree,
        }
    }

    /// Moves time forward and fires what fell due, waiting for all its effects.
    async fn advance(&self, by: Duration) {
        self.clock.advance(by);
        self.tree.settle().await.unwrap();
    }
}

/// A tree whose waits watch scripted targets and whose wakes go to a recording sink.
struct Scripted {
    fixture: Fixture,
    sources: Arc<ScriptedSources>,
    sink: Arc<RecordingSink>,
}

impl Scripted {
    /// `adjust` changes whatever else the test needs.
    async fn start(adjust: impl FnOnce(&mut TreeArgs)) -> Scripted {
        let sources = Arc::new(ScriptedSources::default());
        let sink = RecordingSink::new("recorder");
        let (factory, recorder) = (sources.clone(), sink.clone());
        let fixture = Fixture::start(move |args| {
            args.waits.sources = Some(factory);
            args.wake.sinks = vec![SinkSpec::Custom(recorder)];
            adjust(args);
        })
        .await;
        Scripted {
            fixture,
            sources,
            sink,
        }
    }
}

/// How often the waits of these tests poll their targets.
const POLL: Duration = Duration::from_secs(2);

/// A wait on `target` for `condition`, polled every [`POLL`].
fn wait_for(target: &str, condition: &str, timeout_s: u64, task: Option<&TaskId>) -> NewWait {
    NewWait {
        target: Target::parse(target).unwrap(),
        condition: condition.into(),
        timeout_s,
        poll_interval: POLL,
        task_id: task.cloned(),
        session_key: None,
        match_existing: false,
        step: None,
    }
}

async fn boot_with(policy: RestartPolicy, group_commit: bool) -> Fixture {
    Fixture::start(|args| {
        args.policy = policy.clone();
        args.tasks.policy = policy;
        args.group_commit = group_commit;
    })
    .await
}

async fn boot() -> Fixture {
    Fixture::start(|_| {}).await
}

fn deploy_request() -> RegisterTask {
    RegisterTask {
        name: TaskName::new("Deploy coursefolio to production").unwrap(),
        plan: Plan::new(
            &[
                "Build Docker image",
                "Push to registry",
                "SSH into server",
                "Pull and run",
                "Verify",
            ]
            .map(String::from),
        )
        .unwrap(),
        metadata: Metadata::new(&serde_json::json!({"repo": "coursefolio"})).unwrap(),
        session_key: Some("agent:main:main".into()),
        agent_id: None,
        origin: None,
    }
}

fn note(text: &str) -> UpdateTask {
    UpdateTask {
        message: Some(text.into()),
        ..UpdateTask::default()
    }
}

fn query(text: &str) -> UpdateTask {
    UpdateTask {
        query: Some(text.into()),
        ..UpdateTask::default()
    }
}

/// The state of wait `id` now.
async fn wait_state(tree: &Tree, id: &WaitId) -> WaitState {
    tree.wait_status(Some(id.clone())).await.unwrap()[0]
        .record
        .state
}

/// Polls `check` until it holds (the tree restarts actors asynchronously).
async fn eventually<F: AsyncFn() -> bool>(what: &str, check: F) {
    for _ in 0..500 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out waiting for: {what}");
}
