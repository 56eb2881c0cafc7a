//! A damaged write journal is never replayed past in silence: a torn tail (the last record,
//! cut by a crash) is told from damage (a record that does not read with a readable one after
//! it, a gap, a journal missing, emptied or zeroed, a symlink, a database older than its
//! journal); damage refuses the open and changes no file, and `lookout doctor` replays what
//! still reads, sets the journal aside, moves the id counters on and lets the store open.

use super::*;
use crate::journal::RECORDS_AT;

/// Where the records of the journal at `path` begin, in order (their `LKJ1` marks).
fn record_offsets(path: &Path) -> Vec<usize> {
    let bytes = std::fs::read(path).unwrap();
    let mut offsets = Vec::new();
    let mut at = RECORDS_AT as usize;
    while let Some(found) = bytes[at..].windows(4).position(|w| w == b"LKJ1") {
        offsets.push(at + found);
        at += found + 4;
    }
    offsets
}

/// Flips one byte of record `n` (1-based)'s payload.
fn flip_record(journal: &Path, n: usize) {
    let offsets = record_offsets(journal);
    let mut bytes = std::fs::read(journal).unwrap();
    bytes[offsets[n - 1] + 24] ^= 0x55;
    std::fs::write(journal, bytes).unwrap();
}

/// The meta table and the task ids of the database file alone.
fn contents(path: &Path) -> (Vec<(String, u64)>, Vec<String>) {
    let db = redb::Database::open(path).unwrap();
    let txn = redb::ReadableDatabase::begin_read(&db).unwrap();
    let meta = txn.open_table(crate::schema::META).unwrap();
    let meta = redb::ReadableTable::iter(&meta)
        .unwrap()
        .map(|entry| {
            let (key, value) = entry.unwrap();
            (key.value().to_owned(), value.value())
        })
        .collect();
    let tasks = txn.open_table(crate::schema::TASKS).unwrap();
    let tasks = redb::ReadableTable::iter(&tasks)
        .unwrap()
        .map(|entry| entry.unwrap().0.value().to_owned())
        .collect();
    (meta, tasks)
}

fn journal_of(path: &Path) -> PathBuf {
    crate::journal::path_beside(path)
}

/// The open fails on damage, saying what it is and what to run, and writes nothing: the
/// journal stays byte for byte, the database holds what it held (redb's own open may rewrite
/// its header after a crash, so the file is compared by its contents, not its bytes).
fn refused(path: &Path, faults: &StorageFaults, what: &str) -> String {
    let journal = journal_of(path);
    let before = (contents(path), std::fs::read(&journal).ok());
    let error = Store::open_with(path, faulty(faults)).unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(error, StorageError::JournalDamaged { .. }),
        "{text}"
    );
    assert!(text.contains(what), "{text}");
    assert!(text.contains("lookout doctor"), "{text}");
    let after = (contents(path), std::fs::read(&journal).ok());
    assert!(
        before.1 == after.1,
        "a refused open leaves the journal as it was"
    );
    assert_eq!(
        before.0, after.0,
        "a refused open leaves the database as it was"
    );
    text
}

#[test]
fn a_record_that_does_not_read_with_later_ones_after_it_is_damage_not_a_torn_tail() {
    let (_dir, path, faults) = tasks_then_power_loss(101);
    let journal = journal_of(&path);
    flip_record(&journal, 51);
    let text = refused(
        &path,
        &faults,
        "record 51 does not read, and record 52 after it does",
    );
    assert!(text.contains("after record 0"), "{text}");

    let mut rescue = Vec::new();
    let checkup = doctor::examine(&path, &mut rescue).unwrap();
    assert!(!checkup.is_healthy(), "damage is not healthy");
    assert_eq!(checkup.from_journal, 50, "records 1 to 50 still read");
    assert_eq!(checkup.copied.tasks, 50);
    let aside = checkup.journal.set_aside.clone().expect("set aside");
    assert!(aside.exists() && aside != journal);
    assert!(
        checkup
            .journal
            .damage
            .as_deref()
            .unwrap()
            .contains("record 51")
    );

    // It opens again, with what could be saved, and hands out no id twice.
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    assert!(store.task(&TaskId::from_sequence(50)).unwrap().is_some());
    assert!(store.task(&TaskId::from_sequence(51)).unwrap().is_none());
    assert!(store.counter(Counter::TaskSequence).unwrap() >= 1_000_000);
    drop(store);
    // A second doctor run sets nothing aside again and keeps the first copy.
    let again = doctor::examine(&path, &mut Vec::new()).unwrap();
    assert!(again.is_healthy(), "{again:?}");
    assert!(aside.exists());
}

#[test]
fn a_damaged_first_record_is_damage() {
    let (_dir, path, faults) = tasks_then_power_loss(5);
    flip_record(&journal_of(&path), 1);
    refused(
        &path,
        &faults,
        "record 1 does not read, and record 2 after it does",
    );
}

#[test]
fn a_torn_last_record_is_a_crash_and_the_records_before_it_replay() {
    let (_dir, path, faults) = tasks_then_power_loss(5);
    flip_record(&journal_of(&path), 5);
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    assert_eq!(store.replayed_writes(), 4);
}

#[test]
fn a_journal_missing_emptied_or_zeroed_after_a_crash_is_damage() {
    for (how, said) in [
        ("deleted", "it is missing"),
        ("emptied", "it is empty"),
        ("zeroed", "it is zeroed"),
    ] {
        let (_dir, path, faults) = tasks_then_power_loss(3);
        let journal = journal_of(&path);
        match how {
            "deleted" => std::fs::remove_file(&journal).unwrap(),
            "emptied" => std::fs::write(&journal, b"").unwrap(),
            _ => std::fs::write(&journal, vec![0; JOURNAL_BYTES as usize]).unwrap(),
        }
        refused(&path, &faults, said);
        let checkup = doctor::examine(&path, &mut Vec::new()).unwrap();
        assert!(!checkup.is_healthy(), "{how}: {checkup:?}");
        assert_eq!(checkup.from_journal, 0, "{how}");
        Store::open_with(&path, faulty(&faults)).unwrap();
    }
}

#[test]
fn a_journal_missing_after_a_clean_shutdown_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lookout.redb");
    let store = Store::open(&path).unwrap();
    store.apply(&[put(1), put(2)]).unwrap();
    drop(store);
    std::fs::remove_file(journal_of(&path)).unwrap();
    let store = Store::open(&path).unwrap();
    assert!(store.task(&TaskId::from_sequence(2)).unwrap().is_some());
}

#[test]
fn a_journal_that_is_a_symlink_is_refused_and_its_target_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lookout.redb");
    drop(Store::open(&path).unwrap());
    let journal = journal_of(&path);
    std::fs::remove_file(&journal).unwrap();
    let target = dir.path().join("precious.txt");
    std::fs::write(&target, b"keep me").unwrap();
    std::os::unix::fs::symlink(&target, &journal).unwrap();
    let error = Store::open(&path).unwrap_err();
    assert!(error.to_string().contains("a symbolic link"), "{error}");
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_ne!(mode, 0o600, "not chmodded");
}

#[test]
fn a_database_older_than_its_journal_is_damage() {
    let (dir, path, faults, store) = faulty_store();
    // A copy of the file as it stands before any record.
    store.apply(&[put(1)]).unwrap();
    drop(store);
    let old = dir.path().join("old.redb");
    std::fs::copy(&path, &old).unwrap();
    faults.restart();
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    for n in 2..=CHECKPOINT_RECORDS + 5 {
        store.apply(&[put(n)]).unwrap();
    }
    drop(store);
    // The file goes back to the old copy; the journal has moved on.
    std::fs::copy(&old, &path).unwrap();
    faults.restart();
    refused(&path, &faults, "the database is older than its journal");
}

#[test]
fn a_journal_of_the_first_format_replays_and_is_rewritten() {
    let (_dir, path, faults) = tasks_then_power_loss(3);
    let journal = journal_of(&path);
    // The first format: the same records from offset 0, no header.
    let bytes = std::fs::read(&journal).unwrap();
    let mut first_format = bytes[RECORDS_AT as usize..].to_vec();
    first_format.resize(JOURNAL_BYTES as usize, 0);
    std::fs::write(&journal, first_format).unwrap();
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    assert_eq!(store.replayed_writes(), 3);
    drop(store);
    let store = Store::open_with(&path, faulty(&faults)).unwrap();
    assert_eq!(store.replayed_writes(), 0);
    assert!(store.task(&TaskId::from_sequence(3)).unwrap().is_some());
}
