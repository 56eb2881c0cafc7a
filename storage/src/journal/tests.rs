//! The journal against its own file: records read back in order, a torn last record told
//! from damage, records of an earlier generation, damage the database makes harmless.

use super::*;
use crate::model::Timestamp;

fn journal_in(dir: &Path, applied: u64) -> Result<(Journal, Vec<Replayed>), StorageError> {
    let path = dir.join("test.journal");
    let existed = path.exists();
    let facts = Facts {
        applied,
        paired: existed,
        clean: false,
    };
    let (mut journal, records) = Journal::open(file_at(&path).unwrap(), &path, facts, existed)?;
    journal.prepare()?;
    Ok((journal, records))
}

/// A commit that raises the task counter to `n`: payloads of one size for every `n`.
fn raise(n: u64) -> Vec<u8> {
    let mut batch = WriteBatch::new();
    batch.push(Mutation::RaiseCounter {
        counter: Counter::TaskSequence,
        at_least: n,
    });
    encode(&[batch])
}

fn seqs(replayed: &[Replayed]) -> Vec<u64> {
    replayed.iter().map(|record| record.seq).collect()
}

#[test]
fn records_replay_in_order_with_their_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (mut journal, replayed) = journal_in(dir.path(), 0).unwrap();
    assert!(replayed.is_empty(), "a new journal is zeros");
    for n in 1..=3 {
        journal.append(n, &raise(n * 10)).unwrap();
    }
    drop(journal);
    let (journal, replayed) = journal_in(dir.path(), 0).unwrap();
    assert_eq!(seqs(&replayed), [1, 2, 3]);
    assert_eq!(
        replayed[2].batch.mutations,
        [Mutation::RaiseCounter {
            counter: Counter::TaskSequence,
            at_least: 30
        }]
    );
    assert_eq!(journal.records(), 3, "the next record goes after them");
}

#[test]
fn reading_stops_at_a_torn_last_record_and_at_records_of_an_earlier_generation() {
    let dir = tempfile::tempdir().unwrap();
    let (mut journal, _) = journal_in(dir.path(), 0).unwrap();
    for n in 1..=4 {
        journal.append(n, &raise(n)).unwrap();
    }
    // After a checkpoint the next record overwrites record 1; records 2..4 stay behind it,
    // whole and with good checksums, but of the earlier generation.
    journal.restart(4).unwrap();
    journal.append(5, &raise(5)).unwrap();
    drop(journal);
    let (mut journal, replayed) = journal_in(dir.path(), 4).unwrap();
    assert_eq!(seqs(&replayed), [5]);
    journal.append(6, &raise(6)).unwrap();
    journal.append(7, &raise(7)).unwrap();
    drop(journal);
    let path = dir.path().join("test.journal");
    let record = RECORD_HEADER_BYTES as usize + raise(5).len();
    let flip = |n: usize| {
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[RECORDS_AT as usize + record * n + RECORD_HEADER_BYTES as usize + 1] ^= 0xff;
        std::fs::write(&path, bytes).unwrap();
    };
    // A torn write: one byte of the last record, 7, never reached the disk.
    flip(2);
    let (_, replayed) = journal_in(dir.path(), 4).unwrap();
    assert_eq!(seqs(&replayed), [5, 6], "stops before the torn record");
    // Record 6 damaged with record 7 readable after it: damage, not a tear.
    flip(2);
    flip(1);
    let error = journal_in(dir.path(), 4).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("record 6 does not read, and record 7 after it does"),
        "{error}"
    );
}

#[test]
fn a_record_the_database_holds_may_be_damaged_without_loss() {
    let dir = tempfile::tempdir().unwrap();
    let (mut journal, _) = journal_in(dir.path(), 0).unwrap();
    for n in 1..=5 {
        journal.append(n, &raise(n)).unwrap();
    }
    drop(journal);
    let path = dir.path().join("test.journal");
    let record = RECORD_HEADER_BYTES as usize + raise(1).len();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[RECORDS_AT as usize + record + RECORD_HEADER_BYTES as usize + 1] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    // Record 2 does not read, but the database holds records up to 3: nothing is lost,
    // and the records after it still replay.
    let (_, replayed) = journal_in(dir.path(), 3).unwrap();
    assert_eq!(seqs(&replayed), [1, 3, 4, 5]);
    // Holding only record 1, the database would lose record 2: damage.
    assert!(journal_in(dir.path(), 1).is_err());
}

#[test]
fn every_mutation_comes_back_as_it_was_logged() {
    let task = crate::testkit::deploy_task(&["Build", "Deploy"], &[1]);
    let message = crate::model::MessageRecord {
        role: crate::model::Role::Agent,
        msg_type: crate::model::MsgType::Text,
        content: "Step 1 done".into(),
        created_at: Timestamp::from_secs(1_771_000_000),
    };
    let mut batch = WriteBatch::new();
    batch
        .push(Mutation::AppendMessage {
            task_id: task.id.clone(),
            seq: 7,
            message,
        })
        .push(Mutation::PutTask(task));
    for counter in Counter::ALL {
        batch.push(Mutation::AddToCounter { counter, by: 2 });
    }
    assert_eq!(decode(&encode(&[batch.clone()])), Some(batch));
}

#[test]
fn the_file_grows_in_steps_as_records_need_and_records_across_a_step_replay() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.journal");
    let (mut journal, _) = journal_in(dir.path(), 0).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        RECORDS_AT + GROWTH,
        "a new journal takes its first step only"
    );
    let mut batch = WriteBatch::new();
    batch.push(Mutation::RaiseCounter {
        counter: Counter::TaskSequence,
        at_least: 7,
    });
    let payload = encode(&[batch]);
    let per_step = GROWTH / (RECORD_HEADER_BYTES + payload.len() as u64);
    let count = per_step * 2 + 3;
    for seq in 1..=count {
        journal.append(seq, &payload).unwrap();
    }
    let length = std::fs::metadata(&path).unwrap().len();
    assert_eq!(length % GROWTH, 0, "{length}");
    assert!(
        (RECORDS_AT + 2 * GROWTH..=RECORDS_AT + 4 * GROWTH).contains(&length),
        "{length}"
    );
    drop(journal);
    let (_, replayed) = journal_in(dir.path(), 0).unwrap();
    assert_eq!(seqs(&replayed), (1..=count).collect::<Vec<_>>());
}
