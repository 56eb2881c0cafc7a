//! Storage tests on real redb files in temp folders.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::*;

fn task(sequence: u64, status: Status, updated_at_secs: u64) -> TaskRecord {
    TaskRecord {
        id: TaskId::from_sequence(sequence),
        name: format!("task {sequence}"),
        status,
        plan: vec!["Build".into(), "Push".into(), "Deploy".into()],
        completed_steps: BTreeSet::from([1]),
        current_step: None,
        metadata_json: r#"{"repo":"coursefolio"}"#.into(),
        session_key: Some("agent:main".into()),
        agent_id: None,
        created_at: Timestamp::from_secs(1_771_000_000),
        updated_at: Timestamp::from_secs(updated_at_secs),
        last_seq: 0,
        plan_revisions: 0,
        active_wait_ids: vec![],
        last_wait_state: None,
        last_wait_event_at: None,
        last_stuck_alert_at: None,
    }
}

fn message(content: &str, secs: u64) -> MessageRecord {
    MessageRecord {
        role: Role::Agent,
        msg_type: MsgType::Text,
        content: content.into(),
        created_at: Timestamp::from_secs(secs),
    }
}

fn batch(mutations: Vec<Mutation>) -> WriteBatch {
    WriteBatch { mutations }
}

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("data/lookout.redb")).unwrap();
    (dir, store)
}

#[test]
fn tasks_and_messages_round_trip() {
    let (_dir, store) = temp_store();
    let mut record = task(1, Status::Active, 1_771_000_100);
    record.last_seq = 2;
    let id = record.id.clone();
    store
        .apply(&[batch(vec![
            Mutation::PutTask(record.clone()),
            Mutation::AppendMessage {
                task_id: id.clone(),
                seq: 1,
                message: message("one", 1),
            },
            Mutation::AppendMessage {
                task_id: id.clone(),
                seq: 2,
                message: message("two", 2),
            },
        ])])
        .unwrap();
    assert_eq!(store.task(&id).unwrap(), Some(record));
    let thread = store.thread(&id, None, 50).unwrap();
    assert_eq!(
        thread.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(store.thread(&id, Some(2), 50).unwrap().len(), 1);
    assert_eq!(store.task(&TaskId::new("t-nope00")).unwrap(), None);
}

#[test]
fn thread_pages_back_newest_last() {
    let (_dir, store) = temp_store();
    let id = TaskId::from_sequence(7);
    let mutations = (1..=30)
        .map(|seq| Mutation::AppendMessage {
            task_id: id.clone(),
            seq,
            message: message(&format!("m{seq}"), seq),
        })
        .collect();
    store.apply(&[batch(mutations)]).unwrap();
    let last_five: Vec<u64> = store
        .thread(&id, None, 5)
        .unwrap()
        .iter()
        .map(|m| m.0)
        .collect();
    assert_eq!(last_five, [26, 27, 28, 29, 30]);
    let before_ten: Vec<u64> = store
        .thread(&id, Some(10), 3)
        .unwrap()
        .iter()
        .map(|m| m.0)
        .collect();
    assert_eq!(before_ten, [7, 8, 9]);
    // Another task's messages never leak into this thread.
    let other = TaskId::from_sequence(8);
    assert!(store.thread(&other, None, 50).unwrap().is_empty());
}

#[test]
fn status_index_follows_every_put() {
    let (_dir, store) = temp_store();
    let mut a = task(1, Status::Active, 100);
    let b = task(2, Status::Active, 200);
    let c = task(3, Status::Completed, 300);
    store
        .apply(&[batch(vec![
            Mutation::PutTask(a.clone()),
            Mutation::PutTask(b.clone()),
            Mutation::PutTask(c.clone()),
        ])])
        .unwrap();
    let active = store
        .list_tasks(&StatusFilter::Only(Status::Active), 10)
        .unwrap();
    assert_eq!(
        active
            .tasks
            .iter()
            .map(|t| t.id.clone())
            .collect::<Vec<_>>(),
        [b.id.clone(), a.id.clone()]
    );
    assert!(!active.more);

    a.status = Status::Completed;
    a.updated_at = Timestamp::from_secs(400);
    store
        .apply(&[batch(vec![Mutation::PutTask(a.clone())])])
        .unwrap();
    let active = store
        .list_tasks(&StatusFilter::Only(Status::Active), 10)
        .unwrap();
    assert_eq!(active.tasks.len(), 1);
    let all = store.list_tasks(&StatusFilter::All, 2).unwrap();
    assert_eq!(
        all.tasks.iter().map(|t| t.id.clone()).collect::<Vec<_>>(),
        [a.id, c.id]
    );
    assert!(all.more);

    let idle = store
        .active_tasks_idle_since(Timestamp::from_secs(250))
        .unwrap();
    assert_eq!(idle, vec![(Timestamp::from_secs(200), b.id)]);
    assert!(
        store
            .active_tasks_idle_since(Timestamp::from_secs(150))
            .unwrap()
            .is_empty()
    );

    let stats = store.stats().unwrap();
    assert_eq!(stats.tasks_by_status[0], (Status::Active, 1));
    assert_eq!(stats.tasks_by_status[2], (Status::Completed, 2));
}

#[test]
fn a_failing_batch_applies_nothing() {
    let (_dir, store) = temp_store();
    let id = TaskId::from_sequence(1);
    store
        .apply(&[batch(vec![Mutation::AppendMessage {
            task_id: id.clone(),
            seq: 1,
            message: message("first", 1),
        }])])
        .unwrap();
    let record = task(1, Status::Active, 10);
    let error = store
        .apply(&[
            batch(vec![Mutation::PutTask(record)]),
            batch(vec![Mutation::AppendMessage {
                task_id: id.clone(),
                seq: 1,
                message: message("overwrite", 2),
            }]),
        ])
        .unwrap_err();
    assert!(
        matches!(error, StorageError::DuplicateMessage { seq: 1, .. }),
        "{error}"
    );
    assert_eq!(
        store.task(&id).unwrap(),
        None,
        "the task of the failed transaction is absent"
    );
    assert_eq!(store.thread(&id, None, 10).unwrap()[0].1.content, "first");
}

#[test]
fn counters_only_rise() {
    let (_dir, store) = temp_store();
    let raise = |at_least| {
        batch(vec![Mutation::RaiseCounter {
            counter: Counter::TaskSequence,
            at_least,
        }])
    };
    store.apply(&[raise(5)]).unwrap();
    store.apply(&[raise(3)]).unwrap();
    assert_eq!(store.counter(Counter::TaskSequence).unwrap(), 5);
}

#[test]
fn a_second_open_of_the_same_file_is_refused_with_a_clear_error() {
    let (dir, _store) = temp_store();
    let error = Store::open(&dir.path().join("data/lookout.redb")).unwrap_err();
    assert!(matches!(error, StorageError::Locked { .. }));
    assert!(
        error.to_string().contains("another lookout daemon"),
        "{error}"
    );
}

#[test]
fn a_file_from_a_newer_lookout_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lookout.redb");
    {
        let db = redb::Database::create(&path).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(crate::schema::META)
            .unwrap()
            .insert("schema_version", 99)
            .unwrap();
        txn.commit().unwrap();
    }
    let error = Store::open(&path).unwrap_err();
    assert!(
        matches!(error, StorageError::NewerSchema { found: 99, .. }),
        "{error}"
    );
}

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/schema-v1.redb")
}

/// The records the committed fixture holds, written by schema version 1.
fn fixture_batch() -> WriteBatch {
    let mut record = task(1, Status::Active, 1_771_002_900);
    record.last_seq = 2;
    record.plan_revisions = 1;
    record.active_wait_ids = vec!["w-000001".into()];
    record.last_wait_state = Some(WaitState::Watching);
    record.last_wait_event_at = Some(Timestamp::from_secs(1_771_002_800));
    let id = record.id.clone();
    batch(vec![
        Mutation::PutTask(record),
        Mutation::PutTask(task(2, Status::Cancelled, 1_771_002_000)),
        Mutation::AppendMessage {
            task_id: id.clone(),
            seq: 1,
            message: message("registered", 1),
        },
        Mutation::AppendMessage {
            task_id: id.clone(),
            seq: 2,
            message: message("Step 1 done", 2),
        },
        Mutation::PutPlanRevision(PlanRevisionRecord {
            task_id: id,
            revision: 1,
            old_plan: vec!["Build".into(), "Deploy".into()],
            new_plan: vec!["Build".into(), "Push".into(), "Deploy".into()],
            reason: "forgot the push".into(),
            author: Author::Agent,
            created_at: Timestamp::from_secs(1_771_002_500),
        }),
        Mutation::RaiseCounter {
            counter: Counter::TaskSequence,
            at_least: 2,
        },
    ])
}

/// Opens a copy of the committed fixture (made by schema version 1) through `Store::open`,
/// which runs every migration from that version, and checks every record decodes as written.
/// `LOOKOUT_WRITE_FIXTURE=1 cargo test -p storage fixture` rewrites the fixture.
#[test]
fn fixture_from_schema_version_1_opens_and_decodes() {
    if std::env::var_os("LOOKOUT_WRITE_FIXTURE").is_some() {
        let _ = std::fs::remove_file(fixture_path());
        let store = Store::open(&fixture_path()).unwrap();
        store.apply(&[fixture_batch()]).unwrap();
        drop(store);
        // Compacted so the committed file stays small.
        redb::Database::open(fixture_path())
            .unwrap()
            .compact()
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("lookout.redb");
    std::fs::copy(fixture_path(), &copy)
        .expect("the fixture storage/fixtures/schema-v1.redb exists");
    let mut store = Store::open(&copy).unwrap();
    assert!(store.check_integrity().unwrap());
    let expected = fixture_batch();
    for mutation in &expected.mutations {
        match mutation {
            Mutation::PutTask(record) => {
                assert_eq!(store.task(&record.id).unwrap().as_ref(), Some(record))
            }
            Mutation::AppendMessage {
                task_id,
                seq,
                message,
            } => {
                let thread = store.thread(task_id, Some(seq + 1), 1).unwrap();
                assert_eq!(thread, vec![(*seq, message.clone())]);
            }
            Mutation::PutPlanRevision(revision) => {
                assert_eq!(
                    store.plan_revisions(&revision.task_id).unwrap(),
                    vec![revision.clone()]
                );
            }
            Mutation::RaiseCounter { counter, at_least } => {
                assert_eq!(store.counter(*counter).unwrap(), *at_least);
            }
        }
    }
    assert_eq!(store.stats().unwrap().schema_version, SCHEMA_VERSION);
}
