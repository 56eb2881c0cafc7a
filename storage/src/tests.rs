//! Storage tests on real redb files in temp folders.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::*;

/// A task as the codec tests use it.
pub(crate) fn sample_task() -> TaskRecord {
    let mut task = task(1, Status::Active, 1_771_000_100);
    task.origin = Some(Origin {
        session_id: Some("5f0c-claude-session".into()),
        cwd: Some("/home/me/coursefolio".into()),
    });
    task
}

fn task(sequence: u64, status: Status, updated_at_secs: u64) -> TaskRecord {
    TaskRecord {
        id: TaskId::from_sequence(sequence),
        name: format!("task {sequence}"),
        status,
        metadata_json: r#"{"repo":"coursefolio"}"#.into(),
        session_key: Some("agent:main".into()),
        created_at: Timestamp::from_secs(1_771_000_000),
        updated_at: Timestamp::from_secs(updated_at_secs),
        ..crate::testkit::deploy_task(&["Build", "Push", "Deploy"], &[1])
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
    // The next page starts after the last task listed, across statuses, and ends the list.
    let cursor = ListCursor::after(all.tasks.last().unwrap());
    assert_eq!(ListCursor::parse(&cursor.encode()), Some(cursor.clone()));
    let rest = store
        .list_tasks_after(&StatusFilter::All, 2, Some(&cursor))
        .unwrap();
    assert_eq!(
        rest.tasks.iter().map(|t| &t.id).collect::<Vec<_>>(),
        [&b.id]
    );
    assert!(!rest.more);
    assert_eq!(ListCursor::parse("t-abc"), None);
    // What changed since a time, oldest first, across statuses, in pages.
    let since = store
        .tasks_updated_since(0, None, 2)
        .unwrap()
        .iter()
        .map(|t| (t.updated_at, t.id.clone()))
        .collect::<Vec<_>>();
    assert_eq!(since.len(), 2);
    assert!(since[0] <= since[1]);
    let last = store
        .tasks_updated_since(0, None, 2)
        .unwrap()
        .pop()
        .unwrap();
    let rest = store
        .tasks_updated_since(0, Some(&ListCursor::after(&last)), 10)
        .unwrap();
    assert_eq!(rest.len(), 1);
    assert!(rest[0].updated_at >= last.updated_at);
    assert!(
        store
            .tasks_updated_since(u64::MAX, None, 10)
            .unwrap()
            .is_empty()
    );

    let idle = store
        .stuck_candidates(Timestamp::from_secs(250), |_, _| true)
        .unwrap();
    assert_eq!(
        idle.iter()
            .map(|c| (c.updated_at, c.task_id.clone()))
            .collect::<Vec<_>>(),
        [(Timestamp::from_secs(200), b.id)]
    );
    assert!(
        store
            .stuck_candidates(Timestamp::from_secs(150), |_, _| true)
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

fn fixture(version: u64) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/schema-v{version}.redb"))
}

/// The records of the schema version 1 fixture, as they decode today.
fn fixture_v1_batch() -> WriteBatch {
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

/// The records of the schema version 2 fixture: a stuck candidate with its own threshold,
/// and the outbox with one settled and one pending event.
fn fixture_v2_batch() -> WriteBatch {
    let mut idle = task(3, Status::Active, 1_771_003_000);
    idle.metadata_json = r#"{"stuck_threshold_s":30}"#.into();
    idle.stuck_threshold_s = Some(30);
    idle.last_stuck_alert_at = Some(Timestamp::from_secs(1_771_003_100));
    let delivery = |outcome| SinkDelivery {
        sink: "openclaw".into(),
        attempts: 1,
        next_attempt_at: Timestamp::from_secs(1_771_003_101),
        outcome,
    };
    let event = |seq, outcome: DeliveryOutcome| EventRecord {
        seq,
        kind: EventKind::TaskStuck,
        text: "[task_stuck_resume] {}".into(),
        task_id: Some(idle.id.clone()),
        wait_id: None,
        session_key: Some("agent:main:main".into()),
        created_at: Timestamp::from_secs(1_771_003_100),
        settled: outcome.is_settled(),
        deliveries: vec![delivery(outcome)],
    };
    let mut fixture = fixture_v1_batch();
    fixture.mutations.extend([
        Mutation::PutEvent(event(
            1,
            DeliveryOutcome::Delivered {
                at: Timestamp::from_secs(1_771_003_101),
            },
        )),
        Mutation::PutEvent(event(
            2,
            DeliveryOutcome::Pending {
                last_error: Some("exit status 1".into()),
            },
        )),
        Mutation::PutTask(idle),
        Mutation::RaiseCounter {
            counter: Counter::EventSequence,
            at_least: 2,
        },
        Mutation::AddToCounter {
            counter: Counter::DeadDeliveries,
            by: 3,
        },
    ]);
    fixture
}

/// Asserts that every record of `expected` reads back from `store` as written.
fn assert_holds(store: &Store, expected: &WriteBatch) {
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
                assert_eq!(store.counter(*counter).unwrap(), *at_least)
            }
            Mutation::AddToCounter { counter, by } => {
                assert_eq!(store.counter(*counter).unwrap(), *by)
            }
            Mutation::PutEvent(event) => {
                assert_eq!(store.events(&[event.seq]).unwrap(), vec![event.clone()])
            }
            Mutation::PutWait(wait) => {
                assert_eq!(store.wait(&wait.id).unwrap().as_ref(), Some(wait));
                if let Some(task_id) = &wait.task_id {
                    let of_task = store.waits_of_task(task_id).unwrap();
                    assert!(of_task.contains(wait), "{task_id:?} lists {:?}", wait.id);
                    assert!(of_task.iter().all(|w| w.task_id.as_ref() == Some(task_id)));
                }
            }
        }
    }
}

/// Opens a copy of `fixtures/schema-v<version>.redb` through `Store::open` (which runs every
/// migration from that version) and checks its integrity.
fn open_fixture_copy(version: u64) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("lookout.redb");
    std::fs::copy(fixture(version), &copy).expect("the fixture file is committed");
    let store = Store::open(&copy).unwrap();
    assert!(store.check_integrity().unwrap());
    let stats = store.stats().unwrap();
    assert_eq!(stats.schema_version, SCHEMA_VERSION);
    assert_eq!(
        stats.tasks_by_status,
        store.count_tasks_by_status().unwrap(),
        "the migrated per-status counts match the status index"
    );
    (dir, store)
}

/// The file schema version 1 wrote (frozen; never regenerated) migrates to the current
/// version and every record decodes, V1 task records included.
#[test]
fn fixture_from_schema_version_1_migrates_and_decodes() {
    let (_dir, store) = open_fixture_copy(1);
    assert_holds(&store, &fixture_v1_batch());
    // Its only active task has a live wait, so the migrated stuck index is empty.
    assert!(
        store
            .stuck_candidates(Timestamp(u64::MAX / 2), |_, _| true)
            .unwrap()
            .is_empty()
    );
    assert!(store.pending_events().unwrap().is_empty());
}

/// The file schema version 2 wrote (frozen): it migrates and every record decodes.
#[test]
fn fixture_from_schema_version_2_opens_and_decodes() {
    let (_dir, store) = open_fixture_copy(2);
    assert_holds(&store, &fixture_v2_batch());
    let candidates = store
        .stuck_candidates(Timestamp(u64::MAX / 2), |_, _| true)
        .unwrap();
    assert_eq!(candidates.len(), 1);
    assert_eq!(candidates[0].info.threshold_override_s, Some(30));
    assert_eq!(
        store
            .pending_events()
            .unwrap()
            .iter()
            .map(|e| e.seq)
            .collect::<Vec<_>>(),
        [2]
    );
}

/// A hand-made version 1 file with an idle active task: the version 2 migration builds the
/// stuck index from it, reading the per-task threshold out of the V1 metadata.
#[test]
fn the_version_2_migration_builds_the_stuck_index_from_v1_records() {
    #[derive(serde::Serialize)]
    enum V1Envelope<'a> {
        V1(&'a V1Record),
    }
    #[derive(serde::Serialize)]
    struct V1Record {
        id: TaskId,
        name: String,
        status: Status,
        plan: Vec<String>,
        completed_steps: BTreeSet<u32>,
        current_step: Option<u32>,
        metadata_json: String,
        session_key: Option<String>,
        agent_id: Option<String>,
        created_at: Timestamp,
        updated_at: Timestamp,
        last_seq: u64,
        plan_revisions: u32,
        active_wait_ids: Vec<String>,
        last_wait_state: Option<WaitState>,
        last_wait_event_at: Option<Timestamp>,
        last_stuck_alert_at: Option<Timestamp>,
    }
    let old = V1Record {
        id: TaskId::new("t-oldone"),
        name: "old".into(),
        status: Status::Active,
        plan: vec!["a".into()],
        completed_steps: BTreeSet::new(),
        current_step: None,
        metadata_json: r#"{"stuck_threshold_s":45,"repo":"x"}"#.into(),
        session_key: None,
        agent_id: None,
        created_at: Timestamp::from_secs(10),
        updated_at: Timestamp::from_secs(20),
        last_seq: 0,
        plan_revisions: 0,
        active_wait_ids: vec![],
        last_wait_state: None,
        last_wait_event_at: None,
        last_stuck_alert_at: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lookout.redb");
    {
        let db = redb::Database::create(&path).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(crate::schema::META)
            .unwrap()
            .insert("schema_version", 1)
            .unwrap();
        let bytes = postcard::to_stdvec(&V1Envelope::V1(&old)).unwrap();
        txn.open_table(crate::schema::TASKS)
            .unwrap()
            .insert("t-oldone", bytes.as_slice())
            .unwrap();
        txn.open_table(crate::schema::TASKS_BY_STATUS)
            .unwrap()
            .insert((0, 20_000, "t-oldone"), ())
            .unwrap();
        txn.commit().unwrap();
    }
    let store = Store::open(&path).unwrap();
    let candidates = store
        .stuck_candidates(Timestamp::from_secs(1000), |_, _| true)
        .unwrap();
    assert_eq!(candidates.len(), 1);
    assert_eq!(candidates[0].task_id.as_str(), "t-oldone");
    assert_eq!(candidates[0].info.threshold_override_s, Some(45));
    assert_eq!(
        store
            .task(&TaskId::new("t-oldone"))
            .unwrap()
            .unwrap()
            .stuck_threshold_s,
        Some(45)
    );
}

#[test]
fn the_stuck_index_holds_active_tasks_without_waits_only() {
    let (_dir, store) = temp_store();
    let mut waiting = task(1, Status::Active, 100);
    waiting.active_wait_ids = vec!["w-1".into()];
    let mut idle = task(2, Status::Active, 200);
    idle.stuck_threshold_s = Some(5);
    let paused = task(3, Status::Paused, 50);
    store
        .apply(&[batch(vec![
            Mutation::PutTask(waiting.clone()),
            Mutation::PutTask(idle.clone()),
            Mutation::PutTask(paused),
        ])])
        .unwrap();
    let all = |store: &Store| {
        store
            .stuck_candidates(Timestamp::from_secs(10_000), |_, _| true)
            .unwrap()
    };
    assert_eq!(
        all(&store)
            .iter()
            .map(|c| c.task_id.clone())
            .collect::<Vec<_>>(),
        [idle.id.clone()]
    );
    assert_eq!(all(&store)[0].info.threshold_override_s, Some(5));

    // The wait ends: the task becomes a candidate; an update moves its index entry.
    waiting.active_wait_ids.clear();
    waiting.updated_at = Timestamp::from_secs(300);
    idle.last_stuck_alert_at = Some(Timestamp::from_secs(250));
    store
        .apply(&[batch(vec![
            Mutation::PutTask(waiting.clone()),
            Mutation::PutTask(idle.clone()),
        ])])
        .unwrap();
    let found = all(&store);
    assert_eq!(
        found.iter().map(|c| c.task_id.clone()).collect::<Vec<_>>(),
        [idle.id, waiting.id]
    );
    assert_eq!(found[0].info.last_alert_at, Some(Timestamp::from_secs(250)));
    // The filter sees each entry's last update and info.
    let only_overridden = store
        .stuck_candidates(Timestamp::from_secs(10_000), |_, info| {
            info.threshold_override_s.is_some()
        })
        .unwrap();
    assert_eq!(only_overridden.len(), 1);
}

#[test]
fn the_outbox_tracks_pending_events() {
    let (_dir, store) = temp_store();
    let event = |seq, settled| EventRecord {
        seq,
        kind: EventKind::WaitResolved,
        text: format!("event {seq}"),
        task_id: None,
        wait_id: Some("w-1".into()),
        session_key: None,
        created_at: Timestamp::from_secs(seq),
        deliveries: vec![],
        settled,
    };
    store
        .apply(&[batch(vec![
            Mutation::PutEvent(event(1, false)),
            Mutation::PutEvent(event(2, false)),
        ])])
        .unwrap();
    assert_eq!(store.pending_events().unwrap().len(), 2);
    store
        .apply(&[batch(vec![Mutation::PutEvent(event(1, true))])])
        .unwrap();
    assert_eq!(store.pending_events().unwrap(), vec![event(2, false)]);
    assert_eq!(store.recent_events(10).unwrap().len(), 2);
    assert_eq!(store.events(&[1, 7]).unwrap(), vec![event(1, true)]);
    let stats = store.stats().unwrap();
    assert_eq!((stats.events, stats.events_pending), (2, 1));
    assert_eq!(event(7, false).id(), "e-000007");
}

/// The records of the schema version 3 fixture: everything of version 2 plus a live and an
/// ended wait.
fn fixture_v3_batch() -> WriteBatch {
    let wait = |sequence, state| WaitRecord {
        id: WaitId::from_sequence(sequence),
        target: "pty:s-1a2b3c".into(),
        condition: "wake me when 'ALL DONE' is printed".into(),
        task_id: Some(TaskId::from_sequence(3)),
        session_key: Some("agent:main:main".into()),
        state,
        created_at: Timestamp::from_secs(1_771_004_000),
        started_at: Timestamp::from_secs(1_771_004_000),
        deadline: Timestamp::from_secs(1_771_004_300),
        timeout_s: 300,
        poll_interval_ms: 2_000,
        last_observation: Some("step 2".into()),
        ended_at: (state != WaitState::Watching).then(|| Timestamp::from_secs(1_771_004_100)),
        counters: WaitCounters {
            captures: 50,
            skipped_by_gate: 40,
            judge_calls: 2,
            judge_failures: 1,
            input_tokens: 900,
            output_tokens: 30,
        },
        history: vec![WaitHistoryEntry {
            at: Timestamp::from_secs(1_771_004_000),
            event: WaitEvent::Created,
            met: None,
            detail: None,
        }],
        // Written as V1 records, which watched all of a target's text.
        match_existing: true,
        baseline: None,
        deadline_boot: None,
        step: None,
    };
    let mut fixture = fixture_v2_batch();
    fixture.mutations.extend([
        Mutation::PutWait(wait(1, WaitState::Watching)),
        Mutation::PutWait(wait(2, WaitState::Resolved)),
        Mutation::RaiseCounter {
            counter: Counter::WaitSequence,
            at_least: 2,
        },
    ]);
    fixture
}

/// The file schema version 3 wrote (frozen): it migrates (the per-status counts are
/// counted) and every record decodes.
#[test]
fn fixture_from_schema_version_3_opens_and_decodes() {
    let (_dir, store) = open_fixture_copy(3);
    assert_holds(&store, &fixture_v3_batch());
    let live: Vec<String> = store
        .live_waits()
        .unwrap()
        .iter()
        .map(|w| w.id.to_string())
        .collect();
    assert_eq!(live, [WaitId::from_sequence(1).to_string()]);
}

/// The per-status counts of a migrated fixture count its tasks.
fn assert_tasks_counted(store: &Store) {
    let tasks: u64 = store
        .stats()
        .unwrap()
        .tasks_by_status
        .iter()
        .map(|(_, count)| count)
        .sum();
    assert!(tasks > 0, "the fixture has tasks to count");
}

/// The file schema version 4 wrote: the records of version 3 with the per-status counts.
#[test]
fn fixture_from_schema_version_4_opens_and_decodes() {
    let (_dir, store) = open_fixture_copy(4);
    assert_holds(&store, &fixture_v3_batch());
    assert_tasks_counted(&store);
}

/// The file schema version 5 wrote: the records of version 3 with the waits indexed by task.
/// `LOOKOUT_WRITE_FIXTURE=5 cargo test -p lookout-storage fixture` rewrites it (only ever for the
/// current version; older fixtures stay as they were made).
#[test]
fn fixture_from_schema_version_5_opens_and_decodes() {
    #[allow(clippy::disallowed_methods)] // a developer's switch, read by this test only
    let rewrite = std::env::var("LOOKOUT_WRITE_FIXTURE").as_deref() == Ok("5");
    if rewrite {
        assert_eq!(
            SCHEMA_VERSION, 5,
            "write a fixture only for the current schema version"
        );
        let _ = std::fs::remove_file(fixture(5));
        let store = Store::open(&fixture(5)).unwrap();
        store.apply(&[fixture_v3_batch()]).unwrap();
        drop(store);
        redb::Database::open(fixture(5)).unwrap().compact().unwrap();
    }
    let (_dir, store) = open_fixture_copy(5);
    assert_holds(&store, &fixture_v3_batch());
    assert_tasks_counted(&store);
}

/// The per-status counts `daemon.status` reads follow every status change, several in one
/// batch included, and always equal a walk of the status index.
#[test]
fn the_per_status_counts_follow_every_status_change() {
    let (_dir, store) = temp_store();
    let counts = |store: &Store| -> Vec<u64> {
        let kept = store.stats().unwrap().tasks_by_status;
        assert_eq!(kept, store.count_tasks_by_status().unwrap());
        kept.into_iter().map(|(_, count)| count).collect()
    };
    let mut first = task(1, Status::Active, 100);
    let second = task(2, Status::Active, 100);
    store
        .apply(&[WriteBatch {
            mutations: vec![
                Mutation::PutTask(first.clone()),
                Mutation::PutTask(second.clone()),
            ],
        }])
        .unwrap();
    assert_eq!(counts(&store), [2, 0, 0, 0, 0]);
    // Paused, then completed, in one batch; an update that keeps the status counts nothing.
    first.status = Status::Paused;
    let paused = first.clone();
    first.status = Status::Completed;
    let mut touched = second.clone();
    touched.updated_at = Timestamp(touched.updated_at.0 + 1);
    store
        .apply(&[
            WriteBatch {
                mutations: vec![Mutation::PutTask(paused)],
            },
            WriteBatch {
                mutations: vec![Mutation::PutTask(first.clone()), Mutation::PutTask(touched)],
            },
        ])
        .unwrap();
    assert_eq!(counts(&store), [1, 0, 1, 0, 0]);
    // A failed commit changes no count.
    let mut failing = second;
    failing.status = Status::Failed;
    let duplicate = Mutation::AppendMessage {
        task_id: first.id,
        seq: 1,
        message: message("first", 101),
    };
    store
        .apply(&[WriteBatch {
            mutations: vec![duplicate.clone()],
        }])
        .unwrap();
    store
        .apply(&[WriteBatch {
            mutations: vec![Mutation::PutTask(failing), duplicate],
        }])
        .unwrap_err();
    assert_eq!(counts(&store), [1, 0, 1, 0, 0]);
}

#[test]
fn the_live_wait_index_follows_the_state() {
    let (_dir, store) = temp_store();
    let mut batch = fixture_v3_batch();
    batch
        .mutations
        .retain(|m| matches!(m, Mutation::PutWait(_)));
    store.apply(std::slice::from_ref(&batch)).unwrap();
    assert_eq!(store.live_waits().unwrap().len(), 1);
    let Mutation::PutWait(mut live) = batch.mutations[0].clone() else {
        unreachable!()
    };
    live.state = WaitState::Timeout;
    store
        .apply(&[WriteBatch {
            mutations: vec![Mutation::PutWait(live.clone())],
        }])
        .unwrap();
    assert!(store.live_waits().unwrap().is_empty());
    assert_eq!(
        store.wait(&live.id).unwrap().unwrap().state,
        WaitState::Timeout
    );
    assert_eq!(store.wait(&WaitId::new("w-nope00")).unwrap(), None);
    let stats = store.stats().unwrap();
    assert_eq!((stats.waits, stats.live_waits), (2, 0));
}

fn faulty(faults: &StorageFaults) -> OpenOptions {
    OpenOptions {
        faults: Some(faults.clone()),
        ..OpenOptions::default()
    }
}

fn faulty_store() -> (tempfile::TempDir, PathBuf, StorageFaults, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lookout.redb");
    let faults = StorageFaults::default();
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    (dir, path, faults, store)
}

fn put(sequence: u64) -> WriteBatch {
    batch(vec![Mutation::PutTask(task(
        sequence,
        Status::Active,
        1_771_000_000 + sequence,
    ))])
}

#[test]
fn a_failed_commit_is_an_error_and_the_store_recovers_when_the_disk_does() {
    let (_dir, _path, faults, store) = faulty_store();
    store.apply(&[put(1)]).unwrap();
    // Every sync fails until the disk is "mended".
    faults.fail_next_commits(u32::MAX);
    let error = store.apply(&[put(2)]).unwrap_err();
    assert!(error.is_io(), "{error}");
    // The store reopens the file for the next write; the disk still fails, so that fails too.
    assert!(store.apply(&[put(3)]).is_err());
    assert!(faults.fired() >= 2, "{} faults fired", faults.fired());
    faults.clear();
    store.apply(&[put(4)]).unwrap();
    assert_eq!(store.reopens(), 1, "one reopen once the disk worked again");
    // Acknowledged writes are there. A write whose sync failed may be there too (the pages
    // reached the file, only the sync failed), which is why its caller is told "may or may
    // not be stored"; each batch is whole either way.
    for n in [1, 4] {
        assert!(
            store.task(&TaskId::from_sequence(n)).unwrap().is_some(),
            "task {n}"
        );
    }
    assert!(store.check_integrity().unwrap());
}

#[test]
fn a_failed_read_is_an_error_and_reads_work_again_after_it() {
    let (_dir, _path, faults, store) = faulty_store();
    store.apply(&[put(1)]).unwrap();
    faults.fail_next_reads(1);
    let id = TaskId::from_sequence(1);
    assert!(store.task(&id).unwrap_err().is_io());
    assert_eq!(faults.fired(), 1);
    assert!(store.task(&id).unwrap().is_some());
    assert_eq!(store.reopens(), 1);
}

#[test]
fn a_crash_image_keeps_every_acknowledged_write_and_nothing_unsynced() {
    let (_dir, path, faults, store) = faulty_store();
    for n in 1..=20 {
        store.apply(&[put(n)]).unwrap();
    }
    // This write reaches the file but never becomes durable: the sync fails.
    faults.fail_next_commits(1);
    assert!(store.apply(&[put(21)]).is_err());
    faults.crash_image().unwrap();
    assert!(
        store.apply(&[put(22)]).is_err(),
        "a crashed store cannot reopen the file"
    );
    drop(store);
    faults.restart();
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    assert!(store.check_integrity().unwrap());
    for n in 1..=20 {
        assert!(
            store.task(&TaskId::from_sequence(n)).unwrap().is_some(),
            "task {n}"
        );
    }
    for n in 21..=22 {
        assert_eq!(
            store.task(&TaskId::from_sequence(n)).unwrap(),
            None,
            "task {n}"
        );
    }
    store.apply(&[put(23)]).unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    assert!(store.task(&TaskId::from_sequence(23)).unwrap().is_some());
}

/// A wait record of the current format keeps its baseline and the choice to match what was
/// there; one without a baseline counts everything.
#[test]
fn wait_baselines_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("lookout.redb")).unwrap();
    let mut batch = fixture_v3_batch();
    let waits: Vec<WaitRecord> = batch
        .mutations
        .iter()
        .filter_map(|m| match m {
            Mutation::PutWait(wait) => Some(wait.clone()),
            _ => None,
        })
        .collect();
    let mut file = waits[0].clone();
    file.id = WaitId::from_sequence(10);
    file.match_existing = false;
    file.baseline = Some(TextBaseline::File {
        device: 2049,
        inode: 77,
        length: 4096,
    });
    let mut screen = waits[0].clone();
    screen.id = WaitId::from_sequence(11);
    screen.match_existing = false;
    screen.baseline = Some(TextBaseline::Lines(vec!["$ make".into(), "step 1".into()]));
    screen.state = WaitState::Changed;
    batch = WriteBatch::new();
    batch.push(Mutation::PutWait(file.clone()));
    batch.push(Mutation::PutWait(screen.clone()));
    store.apply(&[batch]).unwrap();
    assert_eq!(store.wait(&file.id).unwrap(), Some(file));
    assert_eq!(store.wait(&screen.id).unwrap(), Some(screen));
}

/// A store holding `tasks` tasks of `notes` messages each, closed again.
fn filled_file(tasks: u64, notes: u64) -> (tempfile::TempDir, PathBuf) {
    let (dir, store) = temp_store();
    for sequence in 1..=tasks {
        let mut record = task(sequence, Status::Active, 1_771_000_100);
        record.last_seq = notes;
        let mut mutations = vec![Mutation::PutTask(record.clone())];
        for seq in 1..=notes {
            mutations.push(Mutation::AppendMessage {
                task_id: record.id.clone(),
                seq,
                message: message(
                    &format!("note {seq} of {sequence}: {}", "x".repeat(400)),
                    seq,
                ),
            });
        }
        store.apply(&[batch(mutations)]).unwrap();
    }
    let path = store.path().to_owned();
    drop(store);
    (dir, path)
}

#[test]
fn the_doctor_copies_out_a_sound_file_whole() {
    let (_dir, path) = filled_file(30, 20);
    let mut rescue = Vec::new();
    let checkup = doctor::examine(&path, &mut rescue).unwrap();
    assert!(checkup.is_healthy(), "{checkup:?}");
    assert_eq!(checkup.copied.tasks, 30);
    assert_eq!(checkup.copied.messages, 600);
    let text = String::from_utf8(rescue).unwrap();
    assert_eq!(text.lines().count(), 630);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["kind"], "task");
    assert!(
        first["record"]["name"]
            .as_str()
            .unwrap()
            .starts_with("task ")
    );
}

#[test]
fn the_doctor_reports_damaged_pages_without_crashing() {
    let (_dir, path) = filled_file(30, 20);
    // Garbage over a stretch in the middle of the file, as a failing disk would leave it.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 2 / 4096 * 4096;
    for (offset, byte) in bytes[at..at + 4096].iter_mut().enumerate() {
        *byte = (offset * 7 + 13) as u8;
    }
    std::fs::write(&path, &bytes).unwrap();
    let mut rescue = Vec::new();
    let checkup = doctor::examine(&path, &mut rescue).unwrap();
    // redb reads its trees when it opens a file, so the damage is found there: said, not
    // a crash.
    assert!(!checkup.is_healthy(), "{checkup:?}");
    assert!(
        matches!(&checkup.integrity, doctor::Integrity::Damaged(why) if why.contains("page")),
        "{checkup:?}"
    );
    assert!(!checkup.unreadable.is_empty(), "{checkup:?}");
}

#[test]
fn the_doctor_refuses_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lookout.redb");
    std::fs::write(&path, b"").unwrap();
    let refused = doctor::examine(&path, &mut Vec::new()).unwrap_err();
    assert!(
        refused.to_string().contains("is empty (0 bytes)"),
        "{refused}"
    );
    // And so does the store, leaving the file as it was.
    let refused = Store::open(&path).err().unwrap();
    assert!(matches!(refused, StorageError::Empty { .. }), "{refused}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
}

/// Every fresh database starts its ids somewhere of its own, keeps that start when reopened,
/// and a database that had made ids before seeds existed keeps its ids as they were.
#[test]
fn each_fresh_database_has_its_own_id_seed_and_old_ones_keep_theirs() {
    let seeds: Vec<u64> = (0..3)
        .map(|_| {
            let (dir, store) = temp_store();
            let seed = store.counter(Counter::IdSeed).unwrap();
            drop(store);
            let reopened = Store::open(&dir.path().join("data/lookout.redb")).unwrap();
            assert_eq!(reopened.counter(Counter::IdSeed).unwrap(), seed);
            seed
        })
        .collect();
    assert!(
        seeds[0] != seeds[1] && seeds[1] != seeds[2] && seeds[0] != seeds[2],
        "{seeds:?}"
    );
    assert!(seeds.iter().all(|seed| *seed < 36u64.pow(6)));
    assert_ne!(
        TaskId::from_sequence(crate::model::seeded(1, seeds[0])),
        TaskId::from_sequence(crate::model::seeded(1, seeds[1]))
    );
    // A database's first wait does not share its first task's digits.
    for seed in seeds.iter().copied().chain([0, 36u64.pow(6) - 1]) {
        let task = TaskId::from_sequence(crate::model::seeded(1, seed));
        let wait = WaitId::from_sequence(crate::model::seeded_wait(1, seed));
        assert_ne!(task.as_str()[2..], wait.as_str()[2..], "seed {seed}");
    }

    // The fixture of schema version 1 had made task ids: it gets no seed.
    let (_dir, old) = open_fixture_copy(1);
    assert!(old.counter(Counter::TaskSequence).unwrap() > 0);
    assert_eq!(old.counter(Counter::IdSeed).unwrap(), 0);
}

/// The machine loses power: both files are cut back to their last sync and the store is gone;
/// the machine is back, so the files may be opened again.
fn power_loss(faults: &StorageFaults, store: Store) {
    faults.crash_image().unwrap();
    drop(store);
    faults.restart();
}

/// A faulty store that acknowledged tasks 1 to `count`, one write each, then lost power.
fn tasks_then_power_loss(count: u64) -> (tempfile::TempDir, PathBuf, StorageFaults) {
    let (dir, path, faults, store) = faulty_store();
    for n in 1..=count {
        store.apply(&[put(n)]).unwrap();
    }
    power_loss(&faults, store);
    (dir, path, faults)
}

/// Whether the redb file alone (no journal replayed) holds task `n`.
fn file_alone_holds(path: &Path, n: u64) -> bool {
    let db = redb::Database::open(path).unwrap();
    let txn = redb::ReadableDatabase::begin_read(&db).unwrap();
    let tasks = txn.open_table(crate::schema::TASKS).unwrap();
    tasks
        .get(TaskId::from_sequence(n).as_str())
        .unwrap()
        .is_some()
}

#[test]
fn an_acknowledged_write_survives_a_crash_through_the_journal_before_the_file_has_it() {
    let (_dir, path, faults) = tasks_then_power_loss(5);
    // The file was not synced since it was opened: only the journal holds the writes.
    assert!(!file_alone_holds(&path, 5), "no checkpoint ran yet");
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    assert_eq!(store.replayed_writes(), 5);
    assert_eq!(
        store.stats().unwrap().journal_records,
        0,
        "caught up at the open"
    );
    for n in 1..=5 {
        assert!(
            store.task(&TaskId::from_sequence(n)).unwrap().is_some(),
            "task {n}"
        );
    }
    // The open caught the file up: a second crash with nothing written loses nothing either.
    power_loss(&faults, store);
    assert!(file_alone_holds(&path, 5));
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    assert!(store.check_integrity().unwrap());
    assert_eq!(
        store.stats().unwrap().tasks_by_status[0],
        (Status::Active, 5)
    );
}

#[test]
fn a_checkpoint_every_so_many_records_catches_the_file_up_and_the_journal_starts_over() {
    let written = CHECKPOINT_RECORDS + 3;
    let (_dir, path, faults) = tasks_then_power_loss(written);
    assert!(file_alone_holds(&path, CHECKPOINT_RECORDS), "checkpointed");
    assert!(
        !file_alone_holds(&path, written),
        "after the checkpoint: in the journal only"
    );
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    for n in 1..=written {
        assert!(
            store.task(&TaskId::from_sequence(n)).unwrap().is_some(),
            "task {n}"
        );
    }
    // The records written after the restart, at the journal's beginning, replayed; the ones
    // left behind them from before the checkpoint did not (each task's counts stay right).
    let listed = store.count_tasks_by_status().unwrap();
    assert_eq!(listed, store.stats().unwrap().tasks_by_status);
}

#[test]
fn a_commit_too_large_for_the_journal_is_synced_by_the_file_itself() {
    let (_dir, path, faults, store) = faulty_store();
    store.apply(&[put(1)]).unwrap();
    let mut large = task(2, Status::Active, 1_771_000_002);
    large.metadata_json = format!(r#"{{"blob":"{}"}}"#, "x".repeat(JOURNAL_BYTES as usize));
    store
        .apply(&[batch(vec![Mutation::PutTask(large)])])
        .unwrap();
    power_loss(&faults, store);
    assert!(file_alone_holds(&path, 2), "synced by redb");
    assert!(file_alone_holds(&path, 1), "with every commit before it");
}

#[test]
fn a_journal_record_this_build_cannot_read_stops_the_open_instead_of_dropping_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lookout.redb");
    let store = Store::open(&path).unwrap();
    let journal_path = store.journal_path();
    drop(store);
    let backend = crate::journal::file_at(&journal_path).unwrap();
    let facts = crate::journal::Facts {
        applied: 0,
        paired: true,
        clean: true,
    };
    let (mut journal, replayed) =
        crate::journal::Journal::open(backend, &journal_path, facts, true).unwrap();
    assert!(replayed.is_empty());
    // A format version this build does not know.
    journal.append(1, &[9, 9, 9]).unwrap();
    drop(journal);
    let error = Store::open(&path).unwrap_err();
    assert!(
        matches!(error, StorageError::JournalUnreadable { seq: 1, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("newer lookout"), "{error}");
}

#[test]
fn the_doctor_copies_the_writes_still_in_the_journal_after_a_crash() {
    let (_dir, path, _faults) = tasks_then_power_loss(4);
    assert!(!file_alone_holds(&path, 4), "only the journal holds them");
    let mut rescue = Vec::new();
    let checkup = doctor::examine(&path, &mut rescue).unwrap();
    assert!(checkup.is_healthy(), "{checkup:?}");
    assert_eq!(checkup.from_journal, 4);
    assert_eq!(checkup.copied.tasks, 4);
    // The file holds them now, and a second look applies nothing again.
    assert!(file_alone_holds(&path, 4));
    let again = doctor::examine(&path, &mut Vec::new()).unwrap();
    assert_eq!((again.from_journal, again.copied.tasks), (0, 4));
}

mod journal_damage;
