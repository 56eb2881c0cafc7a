//! The pure task transitions: registration, updates, plan revisions, proofs and blockers.
use super::*;
use crate::tasks::types::{Metadata, Plan, TaskName};

fn registered() -> TaskRecord {
    let request = RegisterTask {
        name: TaskName::new("Deploy coursefolio").unwrap(),
        plan: Plan::new(&["Build", "Push", "SSH", "Pull and run", "Verify"].map(String::from))
            .unwrap(),
        metadata: Metadata::empty(),
        session_key: None,
        agent_id: None,
        origin: None,
    };
    register(TaskId::new("t-000001"), request, Timestamp::from_secs(100)).record
}

fn note(text: &str) -> UpdateTask {
    UpdateTask {
        message: Some(text.into()),
        ..UpdateTask::default()
    }
}

#[test]
fn registration_posts_the_plan_as_a_lifecycle_message() {
    let request = RegisterTask {
        name: TaskName::new("  Ship  ").unwrap(),
        plan: Plan::new(&["Build".into(), "Ship".into()]).unwrap(),
        metadata: Metadata::empty(),
        session_key: Some("agent:main:main".into()),
        agent_id: None,
        origin: None,
    };
    let transition = register(TaskId::new("t-000001"), request, Timestamp::from_secs(5));
    assert_eq!(transition.record.name, "Ship");
    assert_eq!(transition.record.last_seq, 1);
    assert_eq!(transition.messages[0].msg_type, MsgType::Lifecycle);
    assert_eq!(
        transition.messages[0].content,
        "Task registered: Ship\nPlan:\n  1. Build\n  2. Ship"
    );
}

#[test]
fn a_progress_message_marks_steps_and_posts_a_progress_note() {
    let task = registered();
    let next = update(
        &task,
        &note("Step 1 done — built image"),
        Timestamp::from_secs(200),
    )
    .unwrap();
    assert_eq!(next.effects.newly_completed, [1]);
    assert_eq!(next.record.updated_at, Timestamp::from_secs(200));
    let kinds: Vec<MsgType> = next.messages.iter().map(|m| m.msg_type).collect();
    assert_eq!(kinds, [MsgType::Text, MsgType::Progress]);
    assert_eq!(next.messages[1].content, "✓ Step 1: Build");
    assert_eq!(next.record.last_seq, 3);
    // Saying it again changes nothing but the thread.
    let again = update(
        &next.record,
        &note("step 1 done"),
        Timestamp::from_secs(300),
    )
    .unwrap();
    assert!(again.effects.newly_completed.is_empty());
    assert_eq!(again.messages.len(), 1);
}

#[test]
fn explicit_steps_are_checked_against_the_plan() {
    let task = registered();
    let request = UpdateTask {
        completed_steps: BTreeSet::from([6]),
        ..UpdateTask::default()
    };
    let error = update(&task, &request, Timestamp::from_secs(1)).unwrap_err();
    assert!(error.message.contains("the plan has 5 steps"), "{error}");
    let request = UpdateTask {
        current_step: Some(0),
        ..UpdateTask::default()
    };
    assert!(update(&task, &request, Timestamp::from_secs(1)).is_err());
}

#[test]
fn status_changes_post_lifecycle_and_terminal_tasks_refuse_notes() {
    let task = registered();
    let request = UpdateTask {
        message: Some("All done — site is live".into()),
        status: Some(Status::Completed),
        ..UpdateTask::default()
    };
    let done = update(&task, &request, Timestamp::from_secs(10)).unwrap();
    assert_eq!(
        done.effects.status_change,
        Some((Status::Active, Status::Completed))
    );
    assert_eq!(
        done.messages.last().unwrap().content,
        "Status changed: active → completed"
    );

    let error = update(
        &done.record,
        &note("one more thing"),
        Timestamp::from_secs(11),
    )
    .unwrap_err();
    assert_eq!(error.kind, crate::error::ErrorKind::Conflict);

    let reopen = UpdateTask {
        status: Some(Status::Active),
        ..note("one more thing")
    };
    let reopened = update(&done.record, &reopen, Timestamp::from_secs(12)).unwrap();
    assert_eq!(reopened.record.status, Status::Active);
}

#[test]
fn a_query_alone_does_not_count_as_activity() {
    let task = registered();
    let query = UpdateTask {
        query: Some("where am I?".into()),
        ..UpdateTask::default()
    };
    let next = update(&task, &query, Timestamp::from_secs(999)).unwrap();
    assert_eq!(next.record.updated_at, task.updated_at);
    assert!(next.messages.is_empty());
}

#[test]
fn plan_revision_stores_old_and_new_and_keeps_unchanged_marks() {
    let mut task = registered();
    task.completed_steps = BTreeSet::from([1, 2]);
    let new_plan = [
        "Build",
        "Push",
        "Run migrations",
        "SSH",
        "Pull and run",
        "Verify",
    ];
    let request = UpdateTask {
        plan: Some(PlanChange {
            new_plan: Plan::new(&new_plan.map(String::from)).unwrap(),
            reason: Some("the release needs a schema migration".into()),
        }),
        ..UpdateTask::default()
    };
    let next = update(&task, &request, Timestamp::from_secs(50)).unwrap();
    let stored = next.revision.unwrap();
    assert_eq!(
        (
            stored.revision,
            stored.old_plan.len(),
            stored.new_plan.len()
        ),
        (1, 5, 6)
    );
    assert_eq!(stored.author, Author::Agent);
    let revised = next.effects.revision.unwrap();
    assert_eq!(revised.kept_completed, [1, 2]);
    assert_eq!(
        next.messages[0].content,
        "Plan revised: the release needs a schema migration"
    );
    assert_eq!(next.messages[0].msg_type, MsgType::Plan);
    assert_eq!(progress_of(&next.record).current, Some(3));
}

#[test]
fn current_step_is_named_then_cleared_once_done() {
    let task = registered();
    let request = UpdateTask {
        current_step: Some(3),
        ..UpdateTask::default()
    };
    let next = update(&task, &request, Timestamp::from_secs(1)).unwrap();
    assert_eq!(next.messages[0].content, "▶ Now on step 3, SSH");
    assert_eq!(progress_of(&next.record).current, Some(3));
    let done = update(&next.record, &note("step 3 done"), Timestamp::from_secs(2)).unwrap();
    assert_eq!(done.record.current_step, None);
    assert_eq!(progress_of(&done.record).current, Some(1));
}

fn session_proof() -> StepProof {
    StepProof::Session {
        session_id: "s-1a2b3c".into(),
        command: "cargo test".into(),
        exit_code: 0,
    }
}

#[test]
fn a_note_claims_a_step_and_a_proof_then_verifies_it() {
    let task = registered();
    let next = update(
        &task,
        &note("Step 1 done — built v2"),
        Timestamp::from_secs(10),
    )
    .unwrap();
    let mut task = next.record;
    let claimed = &task.step_evidence[&1].proof;
    assert_eq!(
        claimed,
        &StepProof::Claimed {
            note: Some("Step 1 done — built v2".into())
        }
    );
    assert!(!claimed.is_verified());

    let (proved, message) = prove_step(&mut task, 1, session_proof(), Timestamp::from_secs(20));
    assert_eq!(proved, Proved::Confirmed);
    assert_eq!(
        message.unwrap().content,
        "✓ Step 1 verified: session s-1a2b3c (cargo test) exited 0"
    );
    assert!(task.step_evidence[&1].proof.is_verified());
    let (again, message) = prove_step(&mut task, 1, session_proof(), Timestamp::from_secs(30));
    assert_eq!(again, Proved::Unchanged("it was verified already".into()));
    assert!(message.is_none());

    // A claim after the proof keeps the proof.
    let next = update(
        &task,
        &UpdateTask {
            completed_steps: BTreeSet::from([1, 2]),
            ..UpdateTask::default()
        },
        Timestamp::from_secs(40),
    )
    .unwrap();
    assert!(next.record.step_evidence[&1].proof.is_verified());
    assert_eq!(
        next.record.step_evidence[&2].proof,
        StepProof::Claimed { note: None }
    );
}

#[test]
fn a_proof_marks_an_open_step_but_not_past_the_plan_or_on_a_closed_task() {
    let mut task = registered();
    task.current_step = Some(3);
    let (proved, _) = prove_step(&mut task, 3, session_proof(), Timestamp::from_secs(5));
    assert_eq!(proved, Proved::Marked);
    assert!(task.completed_steps.contains(&3));
    assert_eq!(task.current_step, None, "a done step is no longer current");

    let (past, _) = prove_step(&mut task, 9, session_proof(), Timestamp::from_secs(6));
    assert_eq!(past, Proved::Unchanged("the plan has 5 steps now".into()));
    task.status = Status::Cancelled;
    let (closed, _) = prove_step(&mut task, 4, session_proof(), Timestamp::from_secs(7));
    assert_eq!(closed, Proved::Unchanged("the task is cancelled".into()));
    assert!(!task.completed_steps.contains(&4));
}

#[test]
fn evidence_moves_with_its_step_when_the_plan_is_revised() {
    let mut task = registered();
    task.plan = ["1. Build", "2. Push", "3. Run the test suite", "4. Verify"]
        .map(String::from)
        .to_vec();
    task.completed_steps = BTreeSet::from([1, 3]);
    let at = Timestamp::from_secs(1);
    task.step_evidence.insert(
        1,
        StepEvidence {
            proof: session_proof(),
            at,
        },
    );
    let claimed = StepProof::Claimed { note: None };
    task.step_evidence
        .insert(3, StepEvidence { proof: claimed, at });
    let request = UpdateTask {
        plan: Some(PlanChange {
            new_plan: Plan::new(&["Lint", "Build", "Push", "Verify"].map(String::from)).unwrap(),
            reason: Some("lint first".into()),
        }),
        ..UpdateTask::default()
    };
    let next = update(&task, &request, Timestamp::from_secs(50)).unwrap();
    assert_eq!(next.record.completed_steps, BTreeSet::from([2]));
    assert_eq!(
        next.record
            .step_evidence
            .keys()
            .copied()
            .collect::<Vec<_>>(),
        [2],
        "step 1's proof moved to its new number 2; the dropped step's claim went with it"
    );
    assert!(next.record.step_evidence[&2].proof.is_verified());
    assert_eq!(
        next.messages[0].content,
        "Plan revised: lint first\nDropped done marks of old steps: 3 (Run the test suite)"
    );
}

#[test]
fn a_failed_wait_or_session_posts_a_blocker_on_its_step() {
    let mut task = registered();
    let message = block_step(&task, 4, "wait w-000001 timed out after 60s", Timestamp(9));
    assert_eq!(message.msg_type, MsgType::Blocker);
    assert_eq!(
        message.content,
        "⚠ Blocker on step 4, Pull and run: wait w-000001 timed out after 60s"
    );
    let ended = SessionChange::Ended {
        session_id: "s-1a2b3c".into(),
        command: "make deploy".into(),
        step: Some(4),
        code: Some(2),
        how: "exited with status 2".into(),
        last_line: Some("make: *** [deploy] Error 2".into()),
    };
    let messages = session_change(&mut task, &ended, Timestamp(10)).unwrap();
    let contents: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        contents,
        [
            "Terminal session s-1a2b3c (make deploy) exited with status 2; last line: make: *** \
             [deploy] Error 2",
            "⚠ Blocker on step 4, Pull and run: Terminal session s-1a2b3c (make deploy) exited \
             with status 2; last line: make: *** [deploy] Error 2",
        ]
    );
    assert!(task.completed_steps.is_empty());
    task.status = Status::Completed;
    let check = session_change(
        &mut task,
        &SessionChange::Check { step: None },
        Timestamp(11),
    );
    assert!(check.is_err(), "a closed task takes no new session");
}
