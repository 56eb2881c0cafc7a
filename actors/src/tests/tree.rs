//! The tree's requests, restarts and retirements.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use storage::{MsgType, Status, StatusFilter, TaskId};

use super::{START, boot, boot_with, deploy_request, eventually, note, query};
use crate::tasks::types::{Plan, PlanChange, UpdateTask};
use crate::{ActorKind, ErrorKind, Health, RestartPolicy};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_update_and_query_use_the_clock_and_the_store() {
    let fixture = boot().await;
    let tree = &fixture.tree;
    let task = tree.register_task(deploy_request()).await.unwrap();
    assert_eq!(task.created_at.to_rfc3339(), START);
    assert_eq!(task.status, Status::Active);

    fixture.clock.advance(Duration::from_secs(60));
    tree.update_task(
        task.id.clone(),
        note("Step 1 done — built image, tagged v1.2.3"),
    )
    .await
    .unwrap();
    fixture.clock.advance(Duration::from_secs(60));
    let updated = tree
        .update_task(
            task.id.clone(),
            note("Step 2 done — pushed to ghcr.io/alex/coursefolio:v1.2.3"),
        )
        .await
        .unwrap();
    assert_eq!(updated.progress.completed, [1, 2]);
    assert_eq!(updated.task.updated_at.to_rfc3339(), "2026-02-13T17:02:00Z");

    fixture.clock.advance(Duration::from_secs(600));
    let answered = tree
        .update_task(task.id.clone(), query("where am I on this task?"))
        .await
        .unwrap();
    let report = answered.report.unwrap();
    assert_eq!(report.progress.current, Some(3));
    assert!(
        report.summary.starts_with("Completed steps 1-2"),
        "{}",
        report.summary
    );
    assert_eq!(report.next, "Next: step 3, SSH into server.");
    assert_eq!(
        answered.task.updated_at.to_rfc3339(),
        "2026-02-13T17:02:00Z",
        "a query is not activity"
    );

    let thread = tree.thread(task.id.clone(), 50, None).await.unwrap();
    let kinds: Vec<MsgType> = thread.messages.iter().map(|(_, m)| m.msg_type).collect();
    assert_eq!(
        kinds,
        [
            MsgType::Lifecycle,
            MsgType::Text,
            MsgType::Progress,
            MsgType::Text,
            MsgType::Progress
        ]
    );
    assert_eq!(thread.total, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_tasks_are_not_found() {
    let fixture = boot().await;
    let missing = TaskId::new("t-zzzzzz");
    let error = fixture
        .tree
        .update_task(missing.clone(), note("hello"))
        .await
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::NotFound);
    assert!(error.hint.contains("task_list"), "{error}");
    let error = fixture.tree.thread(missing, 10, None).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_share_commits_and_lose_nothing() {
    let fixture = boot().await;
    let tree = Arc::new(fixture.tree);
    let mut ids = Vec::new();
    for _ in 0..8 {
        ids.push(tree.register_task(deploy_request()).await.unwrap().id);
    }
    let mut writers = Vec::new();
    for id in ids.clone() {
        let tree = tree.clone();
        writers.push(tokio::spawn(async move {
            for n in 0..25 {
                tree.update_task(id.clone(), note(&format!("note {n}")))
                    .await
                    .unwrap();
            }
        }));
    }
    for writer in writers {
        writer.await.unwrap();
    }
    for id in ids {
        let thread = tree.thread(id, 1000, None).await.unwrap();
        assert_eq!(thread.messages.len(), 26, "registration note plus 25 notes");
    }
    let status = tree.status().await.unwrap();
    assert_eq!(status.registry.writes, 8 + 8 * 25);
    assert!(status.registry.commits <= status.registry.writes);
    assert_eq!(status.registry.failed_writes, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_task_actor_fails_the_call_and_restarts_from_storage() {
    let fixture = boot().await;
    let tree = &fixture.tree;
    let id = tree.register_task(deploy_request()).await.unwrap().id;
    tree.update_task(id.clone(), note("Step 1 done"))
        .await
        .unwrap();

    tree.faults().panic_next(ActorKind::Task);
    let error = tree
        .update_task(id.clone(), note("Step 2 done"))
        .await
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Internal);
    assert!(error.hint.contains("retry"), "{error}");

    let report = tree
        .update_task(id.clone(), query("where am I?"))
        .await
        .unwrap()
        .report
        .unwrap();
    assert_eq!(
        report.progress.completed,
        [1],
        "the failed call left nothing behind"
    );
    tree.update_task(id.clone(), note("Step 2 done"))
        .await
        .unwrap();
    let status = tree.status().await.unwrap();
    assert_eq!(status.tasks.task_actor_failures, 1);
    assert_eq!(status.health, Health::Serving);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_root_restarts_a_crashed_registry_and_tasks_supervisor() {
    let fixture = boot().await;
    let tree = &fixture.tree;
    let id = tree.register_task(deploy_request()).await.unwrap().id;

    tree.faults().panic_next(ActorKind::Registry);
    let error = tree
        .update_task(id.clone(), note("lost in the crash"))
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind, ErrorKind::Internal | ErrorKind::Unavailable),
        "{error}"
    );
    eventually("the registry is back", async || {
        tree.update_task(id.clone(), note("after the registry restart"))
            .await
            .is_ok()
    })
    .await;

    tree.faults().panic_next(ActorKind::Tasks);
    assert!(
        tree.update_task(id.clone(), note("lost again"))
            .await
            .is_err()
    );
    eventually("the tasks supervisor is back", async || {
        tree.update_task(id.clone(), note("after the tasks restart"))
            .await
            .is_ok()
    })
    .await;

    let contents: Vec<String> = tree
        .thread(id.clone(), 100, None)
        .await
        .unwrap()
        .messages
        .into_iter()
        .map(|(_, m)| m.content)
        .collect();
    assert!(
        !contents.iter().any(|c| c.starts_with("lost")),
        "{contents:?}"
    );
    assert!(contents.iter().any(|c| c == "after the tasks restart"));
    // A new registration after the supervisor restart does not reuse an id.
    let second = tree.register_task(deploy_request()).await.unwrap().id;
    assert_ne!(second, id);
    let status = tree.status().await.unwrap();
    assert_eq!(status.restarts.get("registry"), Some(&1));
    assert_eq!(status.restarts.get("tasks supervisor"), Some(&1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_loop_past_the_intensity_limit_fails_the_tree() {
    let strict = RestartPolicy {
        max_restarts: 2,
        window: Duration::from_secs(3600),
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(1),
    };
    let fixture = boot_with(strict, true).await;
    let tree = &fixture.tree;
    let id = tree.register_task(deploy_request()).await.unwrap().id;
    for _ in 0..3 {
        tree.faults().panic_next(ActorKind::Registry);
        let _ = tree.update_task(id.clone(), note("crash")).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reason = tokio::time::timeout(Duration::from_secs(10), tree.failed())
        .await
        .unwrap();
    assert!(reason.contains("registry failed 3 times"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_tasks_retire_their_actor_and_can_be_reopened() {
    let fixture = boot().await;
    let tree = &fixture.tree;
    let id = tree.register_task(deploy_request()).await.unwrap().id;
    let done = UpdateTask {
        status: Some(Status::Completed),
        ..note("All done — site is live")
    };
    tree.update_task(id.clone(), done).await.unwrap();

    // Requests racing with the retirement are served in order by one actor at a time.
    let (refused, reopened, queried) = tokio::join!(
        tree.update_task(id.clone(), note("late note")),
        tree.update_task(
            id.clone(),
            UpdateTask {
                status: Some(Status::Active),
                ..UpdateTask::default()
            }
        ),
        tree.update_task(id.clone(), query("status?")),
    );
    assert_eq!(refused.unwrap_err().kind, ErrorKind::Conflict);
    assert_eq!(reopened.unwrap().task.status, Status::Active);
    assert_eq!(queried.unwrap().task.status, Status::Active);

    let active = tree
        .list_tasks(StatusFilter::Only(Status::Active), 10, None)
        .await
        .unwrap();
    assert_eq!(active.tasks.len(), 1);
    let status = tree.status().await.unwrap();
    assert!(status.tasks.live_task_actors <= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_revisions_are_stored_and_keep_unchanged_marks() {
    let fixture = boot().await;
    let tree = &fixture.tree;
    let id = tree.register_task(deploy_request()).await.unwrap().id;
    let mark = UpdateTask {
        completed_steps: BTreeSet::from([1, 2]),
        ..UpdateTask::default()
    };
    tree.update_task(id.clone(), mark).await.unwrap();
    let new_plan = [
        "Build Docker image",
        "Push to registry",
        "Run migrations",
        "SSH into server",
        "Pull and run",
        "Verify",
    ];
    let change = PlanChange {
        new_plan: Plan::new(&new_plan.map(String::from)).unwrap(),
        reason: Some("the release needs a schema migration".into()),
    };
    let revised = tree.revise_plan(id.clone(), change).await.unwrap();
    assert_eq!(revised.revised.revision, 1);
    assert_eq!(revised.revised.kept_completed, [1, 2]);
    assert_eq!(revised.progress.current, Some(3));
    assert_eq!(revised.progress.pct, 33);

    let thread = tree.thread(id.clone(), 50, None).await.unwrap();
    let (_, last) = thread.messages.last().unwrap();
    assert_eq!(
        (last.msg_type, last.content.as_str()),
        (
            MsgType::Plan,
            "Plan revised: the release needs a schema migration"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_panics_past_the_intensity_limit_restart_the_tasks_supervisor() {
    let fixture = super::Fixture::start(|args| {
        args.tasks.policy = RestartPolicy {
            max_restarts: 1,
            ..RestartPolicy::default()
        };
    })
    .await;
    let tree = &fixture.tree;
    let id = tree.register_task(deploy_request()).await.unwrap().id;
    for _ in 0..2 {
        tree.faults().panic_next(ActorKind::Task);
        assert_eq!(
            tree.update_task(id.clone(), note("boom"))
                .await
                .unwrap_err()
                .kind,
            ErrorKind::Internal
        );
    }
    eventually("the supervisor was restarted", async || {
        tree.status()
            .await
            .is_ok_and(|status| status.restarts.get("tasks supervisor") == Some(&1))
    })
    .await;
    eventually("the task is served again", async || {
        tree.update_task(id.clone(), note("back")).await.is_ok()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_answers_while_serving_and_fails_when_an_actor_is_down() {
    let fixture = boot().await;
    let tree = &fixture.tree;
    tree.ping().await.unwrap();

    // The ping itself reaches the Tasks supervisor, which dies handling it.
    tree.faults().panic_next(ActorKind::Tasks);
    let error = tree.ping().await.unwrap_err();
    assert!(error.message.contains("tasks supervisor"), "{error}");
    eventually("the tasks supervisor is back", async || {
        tree.ping().await.is_ok()
    })
    .await;

    tree.faults().panic_next(ActorKind::Registry);
    let error = tree.ping().await.unwrap_err();
    assert!(error.message.contains("registry"), "{error}");
    eventually("the registry is back", async || tree.ping().await.is_ok()).await;

    // Every child of the root answers the ping: a wedged one (alive, answering nothing)
    // fails it by timing out, so the watchdog stops being petted, and it passes again once
    // the actor goes on.
    for (kind, name) in [
        (ActorKind::Recall, "recall actor"),
        (ActorKind::Recorder, "screen recorder"),
    ] {
        tree.faults().wedge(kind);
        let error = tree.ping().await.unwrap_err();
        assert!(error.message.contains(name), "{error}");
        tree.faults().release();
        eventually("the wedged actor goes on", async || {
            tree.ping().await.is_ok()
        })
        .await;
    }
    tree.faults().panic_next(ActorKind::Clock);
    let error = tree.ping().await.unwrap_err();
    assert!(error.message.contains("clock"), "{error}");
    eventually("the clock is back", async || tree.ping().await.is_ok()).await;

    tree.shutdown().await;
    assert!(tree.ping().await.is_err(), "a stopped tree fails the ping");
}

/// Tasks nobody asks about are unloaded after `task_unload_after` (their actors retire, so
/// memory follows the tasks in use), and the next call about one loads it from storage with
/// nothing lost, also when the call races the unloading.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_tasks_are_unloaded_and_load_again_on_the_next_call() {
    let fixture = super::Fixture::start(|args| {
        args.tasks.unload_after = Duration::from_secs(600);
    })
    .await;
    let tree = &fixture.tree;
    let mut ids = Vec::new();
    for _ in 0..30 {
        let id = tree.register_task(deploy_request()).await.unwrap().id;
        let first_step = UpdateTask {
            completed_steps: BTreeSet::from([1]),
            ..UpdateTask::default()
        };
        tree.update_task(id.clone(), first_step).await.unwrap();
        ids.push(id);
    }
    assert_eq!(tree.status().await.unwrap().tasks.live_task_actors, 30);

    fixture.advance(Duration::from_secs(300)).await;
    tree.update_task(ids[0].clone(), note("still on it"))
        .await
        .unwrap();
    // Unloading and a call about an unloaded task at the same moment: the call waits for
    // the retiring actor and is served by a fresh one.
    let (_, raced) = tokio::join!(
        fixture.advance(Duration::from_secs(360)),
        tree.update_task(ids[7].clone(), note("raced the unloading"))
    );
    assert!(raced.unwrap().changed);
    eventually("the idle task actors to stop", async || {
        let tasks = tree.status().await.unwrap().tasks;
        tasks.live_task_actors <= 2
    })
    .await;
    let tasks = tree.status().await.unwrap().tasks;
    assert!(tasks.unloaded_task_actors >= 28, "{tasks:?}");
    assert_eq!(tasks.task_actor_failures, 0);

    let again = UpdateTask {
        completed_steps: BTreeSet::from([2]),
        ..UpdateTask::default()
    };
    let updated = tree.update_task(ids[12].clone(), again).await.unwrap();
    assert_eq!(updated.task.completed_steps, BTreeSet::from([1, 2]));
    let thread = tree.thread(ids[7].clone(), 10, None).await.unwrap();
    assert!(
        thread
            .messages
            .iter()
            .any(|(_, m)| m.content == "raced the unloading"),
        "{:?}",
        thread.messages
    );
    // A task asked about within the period stays loaded until its own period passes.
    let before = tree.status().await.unwrap().tasks.unloaded_task_actors;
    fixture.advance(Duration::from_secs(60)).await;
    let later = tree.status().await.unwrap().tasks.unloaded_task_actors;
    assert_eq!(later, before, "a task used 7 minutes ago was unloaded");
    fixture.advance(Duration::from_secs(300)).await;
    let tasks = tree.status().await.unwrap().tasks;
    assert!(tasks.unloaded_task_actors > before, "{tasks:?}");
}
