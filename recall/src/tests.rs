//! The index on a real SQLite file: documents found by their words (prefixes, title weight),
//! filtered, re-ranked by recency, replaced by key, and a file of another layout started afresh.

use super::*;

const DAY_MS: u64 = 24 * 3600 * 1000;
const NOW: u64 = 1_771_000_000_000;

fn document(key: &str, title: &str, body: &str, end_ms: u64) -> Document {
    Document {
        key: key.to_owned(),
        source: Source::Task,
        task_id: Some(key.to_owned()),
        title: title.to_owned(),
        body: body.to_owned(),
        start_ms: end_ms - 60_000,
        end_ms,
        steps: vec![Step {
            at_ms: end_ms - 30_000,
            text: format!("{title}: step"),
        }],
        summary: format!("summary of {title}"),
        app: None,
        step: None,
        frames: Vec::new(),
    }
}

fn search(words: &str, recency_bias: f64) -> Search {
    Search {
        words: words.to_owned(),
        limit: 3,
        recency_bias,
        task_id: None,
        source: None,
        now_ms: NOW,
    }
}

/// A new index in a folder of its own (kept while the folder lives), holding `documents`.
fn store_holding(documents: &[Document]) -> (tempfile::TempDir, RecallStore) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = RecallStore::open(&dir.path().join("recall.sqlite")).unwrap();
    store.put(documents).unwrap();
    (dir, store)
}

fn keys(found: &[Ranked]) -> Vec<&str> {
    found.iter().map(|r| r.document.key.as_str()).collect()
}

#[test]
fn documents_are_found_by_their_words_and_the_title_weighs_more() {
    let (_dir, store) = store_holding(&[
        document(
            "t-1",
            "Deploy coursefolio to production",
            "built the docker image",
            NOW,
        ),
        document(
            "t-2",
            "Rotate the TLS certificates",
            "deployed to staging once",
            NOW,
        ),
        document("t-3", "Write the release notes", "nothing about it", NOW),
    ]);
    let found = store
        .search(&search("how did I deploy coursefolio last time?", 0.0))
        .unwrap()
        .results;
    // t-2 holds "deployed" only: half of the question, below t-1.
    assert_eq!(keys(&found), ["t-1", "t-2"]);
    assert_eq!(found[0].confidence, 1.0);
    let deployed = store.search(&search("deploy", 0.0)).unwrap().results;
    // "deploy*" is a prefix of "deployed"; "release" is a synonym, which counts less.
    assert_eq!(keys(&deployed), ["t-1", "t-2", "t-3"]);
    assert!(deployed[1].confidence < 1.0, "{}", deployed[1].confidence);
    assert!(deployed[2].confidence < deployed[1].confidence);
    assert_eq!(
        found[0].document.steps[0].text,
        "Deploy coursefolio to production: step"
    );
    assert!(
        store
            .search(&search("kubernetes", 0.0))
            .unwrap()
            .results
            .is_empty()
    );
    assert!(
        store
            .search(&search("how did I?", 0.0))
            .unwrap()
            .results
            .is_empty()
    );
    // FTS5 syntax in a question is only words.
    assert!(store.search(&search("deploy\" OR * NEAR(", 0.0)).is_ok());
}

#[test]
fn recency_bias_reorders_equal_matches_and_filters_narrow() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = RecallStore::open(&dir.path().join("recall.sqlite")).unwrap();
    let mut old = document("t-old", "Deploy the API", "deploy", NOW - 30 * DAY_MS);
    old.body = "deploy deploy deploy".into();
    let new = document("t-new", "Deploy the API", "deploy once", NOW - DAY_MS);
    store.put(&[old, new]).unwrap();
    assert_eq!(
        keys(&store.search(&search("deploy", 0.0)).unwrap().results),
        ["t-old", "t-new"]
    );
    assert_eq!(
        keys(&store.search(&search("deploy", 1.0)).unwrap().results),
        ["t-new", "t-old"]
    );
    let mut scoped = search("deploy", 0.0);
    scoped.task_id = Some("t-new".into());
    assert_eq!(keys(&store.search(&scoped).unwrap().results), ["t-new"]);
    scoped.task_id = None;
    scoped.source = Some(Source::Terminal);
    assert!(store.search(&scoped).unwrap().results.is_empty());
}

#[test]
fn a_key_indexed_again_replaces_its_document_and_marks_persist() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recall.sqlite");
    let mut store = RecallStore::open(&path).unwrap();
    store
        .put(&[document("t-1", "Deploy", "first words", NOW)])
        .unwrap();
    store
        .put(&[document("t-1", "Deploy", "second words", NOW)])
        .unwrap();
    assert!(
        store
            .search(&search("first", 0.0))
            .unwrap()
            .results
            .is_empty()
    );
    assert_eq!(
        keys(&store.search(&search("second", 0.0)).unwrap().results),
        ["t-1"]
    );
    assert_eq!(store.counts().unwrap()[0], (Source::Task, 1));
    store.set_mark("tasks", 42).unwrap();
    drop(store);
    let store = RecallStore::open(&path).unwrap();
    assert_eq!(store.mark("tasks").unwrap(), 42);
    assert_eq!(store.mark("never").unwrap(), 0);

    // A file of another layout starts afresh.
    store
        .connection
        .pragma_update(None, "user_version", 99)
        .unwrap();
    drop(store);
    let store = RecallStore::open(&path).unwrap();
    assert_eq!(store.mark("tasks").unwrap(), 0);
    assert!(
        store
            .search(&search("second", 0.0))
            .unwrap()
            .results
            .is_empty()
    );
}

#[test]
fn a_document_holding_every_word_comes_before_those_holding_one() {
    let (_dir, store) = store_holding(&[
        document("t-both", "Release notes", "deploy coursefolio once", NOW),
        document(
            "t-one",
            "Deploy deploy deploy",
            "deploy deploy deploy deploy",
            NOW,
        ),
        document("t-other", "Coursefolio", "coursefolio coursefolio", NOW),
    ]);
    let mut one = search("deploy coursefolio", 0.0);
    one.limit = 1;
    assert_eq!(keys(&store.search(&one).unwrap().results), ["t-both"]);
    // Fewer than the limit hold every word: those holding any fill the rest.
    let found = store
        .search(&search("deploy coursefolio", 0.0))
        .unwrap()
        .results;
    assert_eq!(found.len(), 3);
    assert_eq!(found[0].document.key, "t-both");
    // A question half of which is nowhere indexed has only weak answers.
    let found = store
        .search(&search("deploy elasticsearch", 0.0))
        .unwrap()
        .results;
    assert!(!found.is_empty() && found.iter().all(|r| r.weak));
}

fn screen(key: &str, app: &str, task: Option<&str>, end_ms: u64) -> Document {
    Document {
        source: Source::Screen,
        task_id: task.map(str::to_owned),
        app: Some(app.to_owned()),
        step: Some(2),
        frames: vec![Frame {
            offset_ms: 0,
            path: format!("/frames/{key}/000000000.jpg"),
            bytes: 100,
        }],
        ..document(key, &format!("{app} window"), "release notes", end_ms)
    }
}

#[test]
fn forget_removes_screen_and_terminal_history_by_time_app_or_task_and_leaves_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = RecallStore::open(&dir.path().join("recall.sqlite")).unwrap();
    let terminal = Document {
        source: Source::Terminal,
        task_id: None,
        ..document(
            "term:s-1",
            "make release",
            "release notes",
            NOW - 3 * DAY_MS,
        )
    };
    store
        .put(&[
            document(
                "t-1",
                "Write the release notes",
                "release notes",
                NOW - 5 * DAY_MS,
            ),
            screen("screen:a", "Firefox", Some("t-1"), NOW - 2 * DAY_MS),
            screen("screen:b", "XTerm", Some("t-2"), NOW - DAY_MS),
            screen("screen:c", "XTerm", None, NOW),
            terminal,
        ])
        .unwrap();
    let all = Search {
        limit: 10,
        ..search("release notes", 0.0)
    };
    let found = store.search(&all).unwrap().results;
    assert_eq!(found.len(), 5);
    let firefox = found.iter().find(|r| r.document.key == "screen:a").unwrap();
    assert_eq!(firefox.document.app.as_deref(), Some("Firefox"));
    assert_eq!(firefox.document.step, Some(2));
    assert_eq!(firefox.document.frames.len(), 1);

    let by_app = Forget {
        app: Some("xterm".into()),
        ..Forget::default()
    };
    let gone = store.forget(&by_app).unwrap();
    assert_eq!(gone.documents, 2, "both XTerm segments, any case");
    assert_eq!(gone.frames.len(), 2);
    let by_task = Forget {
        task_id: Some("t-1".into()),
        ..Forget::default()
    };
    assert_eq!(
        store.forget(&by_task).unwrap().documents,
        1,
        "the Firefox segment, not the task"
    );
    let expired = Forget {
        before_ms: Some(NOW - 2 * DAY_MS),
        ..Forget::default()
    };
    assert_eq!(
        store.forget(&expired).unwrap().documents,
        1,
        "the old terminal session"
    );
    let counts = store.counts().unwrap();
    assert_eq!(
        counts,
        vec![
            (Source::Task, 1),
            (Source::Wait, 0),
            (Source::Terminal, 0),
            (Source::Screen, 0),
            (Source::Transcript, 0)
        ]
    );
}

#[test]
fn a_version_2_index_gains_the_screen_columns_and_keeps_its_documents() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recall.sqlite");
    {
        let connection = Connection::open(&path).unwrap();
        connection
            .execute_batch(
                "CREATE TABLE doc(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,
                     source TEXT NOT NULL, task_id TEXT, title TEXT NOT NULL, body TEXT NOT NULL,
                     start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, steps TEXT NOT NULL,
                     summary TEXT NOT NULL);
                 CREATE VIRTUAL TABLE doc_fts USING fts5(title, body, content='doc',
                     content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3 4');
                 CREATE TRIGGER doc_added AFTER INSERT ON doc BEGIN
                     INSERT INTO doc_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
                 END;
                 CREATE TABLE mark(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                 INSERT INTO doc(key, source, task_id, title, body, start_ms, end_ms, steps, summary)
                     VALUES ('term:s-9', 'terminal', NULL, 'make deploy', 'deployed coursefolio',
                             1, 2, '[]', 'a session');
                 PRAGMA user_version = 2;",
            )
            .unwrap();
    }
    let store = RecallStore::open(&path).unwrap();
    let found = store.search(&search("coursefolio", 0.0)).unwrap().results;
    assert_eq!(
        keys(&found),
        ["term:s-9"],
        "a terminal session has no other record"
    );
    assert_eq!(found[0].document.app, None);
    assert!(found[0].document.frames.is_empty());
}

#[test]
fn typos_synonyms_and_kinds_find_what_was_meant_and_say_how() {
    let (_dir, store) = store_holding(&[
        document(
            "t-pg",
            "Upgrade PostgreSQL 14 to 16 on db-1",
            "pg_upgrade ran; postgres restarted",
            NOW - 3 * DAY_MS,
        ),
        document("t-node", "Upgrade Node to 20", "nvm install 20", NOW),
        document(
            "t-tls",
            "Renew the TLS certificate for coursefolio.dev",
            "certbot renew",
            NOW - 10 * DAY_MS,
        ),
    ]);
    // A typo is read as the word the index holds, and said so.
    let found = store.search(&search("upgrade postgress", 0.0)).unwrap();
    assert_eq!(found.read_as, ["postgress → postgres"]);
    assert_eq!(keys(&found.results)[0], "t-pg");
    // So is a form of a word held in another, with a letter dropped.
    let found = store.search(&search("restrting postgres", 0.0)).unwrap();
    assert_eq!(found.read_as, ["restrting → restarted"]);
    assert_eq!(keys(&found.results), ["t-pg"]);
    // "SSL" alone finds the TLS task; "the database" finds the Postgres upgrade first.
    let found = store.search(&search("renew the SSL cert", 0.0)).unwrap();
    assert_eq!(keys(&found.results), ["t-tls"]);
    assert!(found.read_as.is_empty() && found.unmatched.is_empty());
    let found = store.search(&search("upgrade the database", 0.0)).unwrap();
    assert_eq!(
        keys(&found.results)[0],
        "t-pg",
        "{:?}",
        keys(&found.results)
    );
    // The order is the confidence each result reports.
    let confidences: Vec<f64> = found.results.iter().map(|r| r.confidence).collect();
    assert!(
        confidences.windows(2).all(|w| w[0] >= w[1]),
        "{confidences:?}"
    );
    // Words nothing matches are named; what holds only one of three words is weak.
    let found = store
        .search(&search("how did I upgrade kubernetes ingress?", 0.0))
        .unwrap();
    assert_eq!(found.unmatched, ["kubernetes", "ingress"]);
    assert!(!found.results.is_empty());
    assert!(
        found.results.iter().all(|r| r.weak),
        "{:?}",
        keys(&found.results)
    );
    assert!(found.results[0].confidence < 0.5);
}

/// An HTTP status asked for by its name finds the note that gives its number, and a
/// question's framing ("put … in", "the whole …") is not a word it must hold.
#[test]
fn a_status_asked_by_name_finds_its_number() {
    let (_dir, store) = store_holding(&[
        document(
            "t-502",
            "Intermittent 502 errors from nginx in front of gunicorn",
            "gunicorn workers were killed at the 30 s timeout",
            NOW,
        ),
        document(
            "t-lfs",
            "Move the design assets to Git LFS",
            "git lfs track",
            NOW,
        ),
    ]);
    let found = store
        .search(&search("nginx bad gateway with gunicorn", 0.0))
        .unwrap();
    assert_eq!(found.words, ["nginx", "bad gateway", "gunicorn"]);
    assert_eq!(keys(&found.results), ["t-502"]);
    assert!(!found.results[0].weak);
    let found = store
        .search(&search("put the whole design folder in git lfs", 0.0))
        .unwrap();
    assert_eq!(found.words, ["design", "folder", "git", "lfs"]);
    assert_eq!(keys(&found.results), ["t-lfs"]);
}

/// The reading a question names counts half in deciding weakness when nothing indexed
/// names it: the command that printed the abandon rate says "abandoned".
#[test]
fn a_reading_nothing_names_counts_half_in_deciding_weakness() {
    let mut terminal = document(
        "terminal:s-1",
        "psql cc -c \"select round(100.0*sum(abandoned::int)/count(*),1) from calls\"",
        "round 6.1",
        NOW,
    );
    terminal.source = Source::Terminal;
    let (_dir, store) = store_holding(&[terminal]);
    let found = store
        .search(&search("what's the abandon rate now", 0.0))
        .unwrap();
    assert_eq!(found.unmatched, ["rate"]);
    assert_eq!(keys(&found.results), ["terminal:s-1"]);
    assert!(!found.results[0].weak);
    // So in a question put as a name ("first time fix rate"), not only one for a figure.
    let found = store.search(&search("abandon rate", 0.0)).unwrap();
    assert_eq!(keys(&found.results), ["terminal:s-1"]);
    assert!(!found.results[0].weak);
    // A reading alone, with nothing the index holds, finds nothing.
    let found = store.search(&search("churn rate", 0.0)).unwrap();
    assert!(found.results.is_empty(), "{found:?}");
}

/// A session is searched by what was said and done in it: the words only a file it read
/// holds count half, and the words every session starts its lines with ("Used", "Ran")
/// not at all, so a question about something it never did finds it weak.
#[test]
fn a_session_holding_a_question_only_in_what_it_read_is_weak() {
    let mut session = document(
        "transcript:a1",
        "load settings from environment variables",
        "Asked: load settings from environment variables\n\
         Used Read: {\"file_path\":\"yaml/__init__.py\"}\n\
         Result: def scan(stream): tokens, refresh\n\
         Answered: any setting can be set with LEDGER_ and its name; the environment wins",
        NOW,
    );
    session.source = Source::Transcript;
    let (_dir, store) = store_holding(&[session]);
    let found = store
        .search(&search("refresh token rotation", 0.0))
        .unwrap();
    assert_eq!(keys(&found.results), ["transcript:a1"]);
    assert!(found.results[0].weak, "{found:?}");
    // "used" is usage to a question: the "Used" of a tool's line is not.
    let found = store.search(&search("settings exhausted", 0.0)).unwrap();
    assert!(found.results[0].weak, "{found:?}");
    // What was said is held in full.
    let found = store.search(&search("environment settings", 0.0)).unwrap();
    assert!(!found.results[0].weak, "{found:?}");
}

/// A question's everyday words count half in deciding whether a result is weak: the record
/// holding its names is an answer though it says "bill" where the question says "cost";
/// one holding only its everyday words, or a name the index does not know, is not.
#[test]
fn everyday_words_count_half_in_deciding_weakness() {
    let (_dir, store) = store_holding(&[
        document(
            "t-s3",
            "S3 bill doubled: move old objects to Glacier",
            "Storage Lens: 38 TB in the media bucket; a lifecycle rule moves them after 90 days",
            NOW,
        ),
        document(
            "t-cluster",
            "Grow the Kubernetes cluster by two nodes",
            "the node pool went from 3 to 5",
            NOW,
        ),
    ]);
    // s3 and storage are held, reduce and amount are nowhere: held, by the names.
    let found = store
        .search(&search("reduce the s3 storage amount", 0.0))
        .unwrap();
    assert_eq!(found.unmatched, ["reduce", "amount"]);
    assert_eq!(keys(&found.results), ["t-s3"]);
    assert!(!found.results[0].weak);
    // A name the index does not hold leaves the rest weak.
    let found = store.search(&search("elasticsearch cluster", 0.0)).unwrap();
    assert_eq!(found.unmatched, ["elasticsearch"]);
    assert!(found.results.iter().all(|r| r.weak));
    // Holding only the everyday words of a question, or a name and too few of them, is weak.
    let found = store
        .search(&search("the old pool is slow and broken", 0.0))
        .unwrap();
    assert!(
        found.results.iter().all(|r| r.weak),
        "{:?} {:?} {:?}",
        keys(&found.results),
        found.read_as,
        found.unmatched
    );
}

/// A verb's irregular form is the verb ("caught" answers "catch"), and a phrase's last word
/// alone holds some of it ("the limit of 5 certificates" of "rate limit").
#[test]
fn irregular_forms_and_a_phrases_last_word_are_found() {
    let (_dir, store) = store_holding(&[
        document(
            "t-timer",
            "Backup timer did not run while the laptop was asleep",
            "OnCalendar=daily passed while suspended and nothing caught up; Persistent=true",
            NOW,
        ),
        document(
            "t-le",
            "Let's Encrypt refuses new certificates",
            "a deploy loop hit the limit of 5 duplicate certificates a week",
            NOW,
        ),
    ]);
    let found = store.search(&search("timer catch up missed", 0.0)).unwrap();
    assert_eq!(keys(&found.results), ["t-timer"]);
    assert!(!found.results[0].weak);
    let found = store
        .search(&search("letsencrypt rate limit", 0.0))
        .unwrap();
    assert_eq!(keys(&found.results), ["t-le"]);
    assert!(!found.results[0].weak, "letsencrypt and the limit");
    // A form of the word's stem: "sending" is "send", whose past is "sent".
    let found = store
        .search(&search("timer sending duplicate", 0.0))
        .unwrap();
    assert_eq!(found.unmatched, ["sending"], "nothing was sent yet");
    let (_dir, store) = store_holding(&[document(
        "t-mail",
        "Root mailbox fills with cron output",
        "stdout sent to the journal instead",
        NOW,
    )]);
    let found = store.search(&search("cron sending output", 0.0)).unwrap();
    assert!(found.unmatched.is_empty(), "{:?}", found.unmatched);
    assert!(!found.results[0].weak);
}

/// A short plural of the tables is its singular with its phrases ("prs" finds "pull
/// requests"), a phrase's last word is found in every form, and a question may write it
/// in the plural ("hard drives" is the phrase "hard drive").
#[test]
fn plurals_of_abbreviations_and_phrases_are_found() {
    let (_dir, store) = store_holding(&[
        document(
            "t-deps",
            "Dependabot opens 40 pull requests a week",
            "grouped minor and patch updates",
            NOW,
        ),
        document(
            "t-disk",
            "Replace the hard drive with reallocated sectors",
            "swapped it and rebuilt the array",
            NOW,
        ),
    ]);
    let found = store
        .search(&search("too many dependabot prs", 0.0))
        .unwrap();
    assert_eq!(keys(&found.results), ["t-deps"]);
    assert!(!found.results[0].weak, "dependabot and the pull requests");
    let found = store
        .search(&search("which hard drives are failing", 0.0))
        .unwrap();
    assert_eq!(found.words, ["hard drive", "failing"]);
}

/// The quality benchmark's histories, held to a floor: a change that makes answers worse
/// fails here (the figures themselves: `cargo bench --bench recall_quality`).
/// (ninth, eleventh, thirteenth and sixteenth rose once more when a task came to weigh 0.6
/// beside the moment a question for a figure or an outcome asks for.)
#[test]
fn the_committed_histories_are_answered_well() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/recall-quality");
    let sets = [
        // 94.6 / 100 % after a bare phrase names a topic: "coursefolio health check after
        // deploy" gets the deploy before the wait on its health check; 92.9 / 100 % when
        // a topic's task is found through its records ("grafana error rate" gets the
        // ingress task the wait watched Grafana for).
        ("history.json", 0.92, 1.0, 0),
        ("held-out.json", 0.95, 0.98, 0),
        ("unseen.json", 0.95, 0.98, 0),
        ("blind.json", 0.9, 0.9, 0),
        // Measured once unseen at 76 / 81 %, 90 / 95 % after the paraphrase groups.
        // 95.2 / 95.2 % after a wait or a command answers for the task it served. A
        // migration as a move makes "terraform state migration" (no answer) find "Move
        // the staging stack", "state" read as "stage".
        ("fresh.json", 0.95, 0.95, 1),
        // Measured once unseen at 88 / 88 %, 96 / 96 % after throttle and usage.
        // 100 / 100 % after "full" reads as usage.
        ("later.json", 1.0, 1.0, 0),
        // Measured once unseen at 88 / 96 %, 92 / 100 % after a short word's plural, 96 /
        // 100 % after questions asking for a figure put a command's output first.
        // 100 / 100 % after a wait or a command answers for the task it served.
        ("seventh.json", 1.0, 1.0, 0),
        // Measured once unseen at 80 / 80 %, 88 / 88 % after HTTP statuses by name and two
        // framing words, 92 / 92 % after the topic groups of 2026-11-30.
        // 96.0 / 96.0 % after a wait or a command answers for the task it served.
        ("eighth.json", 0.96, 0.96, 0),
        // Measured once unseen at 70 / 78 %, 85 / 96 % after time sync, leaks, a finish,
        // a filesystem, a setting and five framing words.
        // 88.9 / 100 % after a wait or a command answers for the task it served: two
        // figures its tasks hold ("how much swap did I add") went to their commands.
        ("ninth.json", 0.88, 1.0, 0),
        // Measured once unseen at 81.5 / 88.9 %, 96.3 / 100 % after questions asking for a
        // figure or an outcome put a command's output or a wait first, and Wi-Fi, a
        // disconnect, a notification, "turn off" and "log in".
        ("tenth.json", 0.96, 1.0, 0),
        // Measured once unseen at 92.6 / 92.6 %, 96.3 / 100 % after a lag, a battery's
        // charge, a drain, sleep, "while" as framing and "how far" as asking for a figure.
        ("eleventh.json", 1.0, 1.0, 0),
        // Measured once unseen at 81.5 / 81.5 %, 88.9 / 88.9 % after brotli, zfs, people,
        // signing out, a pass, a drive, verify, "failing", and "keep", "being" and "after"
        // as framing.
        // 92.6 / 92.6 % after everyday words counted half in deciding weakness.
        // 88.9 / 92.6 % after a wait is weak only where its task is: "how much smaller did
        // the home page get" goes to the command's output.
        ("twelfth.json", 0.88, 0.92, 0),
        // Measured once unseen at 74.1 / 74.1 %, 77.8 / 85.2 % after the topic groups
        // (GPUs, training, time zones, autoscaling, queue depth, retention, networks,
        // sizes…) and "use" read as usage, 81.5 / 88.9 % after everyday words.
        // 92.6 / 96.3 % after a wait or a command answers for the task it served.
        ("thirteenth.json", 0.92, 0.96, 0),
        // Measured once unseen at 81.5 / 81.5 % (every miss the right record first but
        // weak), 92.6 / 92.6 % after everyday words counted half in deciding weakness,
        // "-ion" endings and RSS as memory.
        ("fourteenth.json", 0.92, 0.92, 0),
        // Measured once unseen at 74.1 / 74.1 %, 85.2 / 85.2 % after irregular verb forms,
        // a phrase's last word, rejecting, processes and systemd.
        // 92.6 / 92.6 % after a wait or a command answers for the task it served.
        ("fifteenth.json", 0.92, 0.92, 0),
        // Measured once unseen at 81.5 / 88.9 %, 88.9 / 96.3 % after a load balancer's
        // abbreviations, phones, encoding, RTX cards, and "older" as an everyday word.
        // 96.3 / 100 % after a wait or a command answers for the task it served.
        ("sixteenth.json", 0.96, 1.0, 0),
        // Measured once unseen at 77.8 / 81.5 % with one question that has no answer
        // answered, 85.2 / 88.9 % and every no-answer weak after "but" as framing, "stuck"
        // no longer an everyday word, CDNs as a kind and exhaustion as usage.
        ("seventeenth.json", 0.88, 0.88, 0),
        // Measured once unseen at 81.5 / 88.9 %, 88.9 / 96.3 % after encryption, "kept" as
        // framing, a short plural read as its singular ("prs") and phrases in the plural.
        // 92.6 % top-1 after a yes/no question about a thing asks for an outcome.
        ("eighteenth.json", 0.92, 0.96, 0),
        // Measured once unseen at 73.1 / 88.5 %, 84.6 / 92.3 % after "which ip" and its
        // like asking for a figure, "happen" for an outcome, and the forms of a stem.
        // 88.5 / 92.3 % after a wait or a command answers for the task it served.
        // 92.3 / 92.3 % after a bare phrase names a topic, its task first.
        ("nineteenth.json", 0.92, 0.92, 0),
        // Measured once unseen at 68.0 / 80.0 %, one of its five questions with no answer
        // answered ("backup the proxmox vms to a nas" gets the record holding "proxmox" and
        // "vms"); 80.0 / 92.0 % after duplicates, limits, HTTP 401 and 403, JWTs, signing
        // in, CI runners and disk space, and that one weak once "backup" was no longer read
        // as "back". The last number: questions with no answer that may get one.
        // 88.0 / 96.0 % after a wait or a command answers for the task it served.
        // 96.0 / 96.0 % after a bare phrase names a topic, its task first.
        ("twentieth.json", 0.96, 0.96, 0),
        // Measured once unseen at 82.1 / 82.1 %, 96.4 / 100 % after openssl's x509 and
        // notAfter, git's words for git, monitors as screens, tiny as small, and "two",
        // "between", "anything" as framing.
        // 100 / 100 % after "did it run" asks for an outcome.
        ("twenty-first.json", 1.0, 1.0, 0),
        // Measured once unseen at 85.7 / 96.4 %, three of its five questions with no answer
        // answered; 92.9 / 100 % and two answered after a far key no longer read as a slip
        // ("slack" as "stack"), "replace" with "recreate", RDS as a database, and the
        // internet as what is outside.
        // 100 / 100 % after a bare phrase names a topic, its task first.
        ("twenty-second.json", 1.0, 1.0, 1),
        // Measured once unseen at 67.9 / 75.0 %, 85.7 / 92.9 % after "compose" was no longer
        // read as "comp" nor "vaccum" missed (the wrong letter doubled), SSDs and NVMe as
        // disks, overheating as temperature, persistence and AOF, and "everything" as
        // framing.
        // 92.9 / 92.9 % after a bare phrase names a topic, its task first.
        ("twenty-third.json", 0.92, 0.92, 0),
        // Measured once unseen at 78.6 / 85.7 %, 96.4 / 96.4 % after "what is the limit"
        // asking for a figure, "was it pushed" for an outcome, no correction to or from a
        // word of three letters ("long" is not "log"), ulimit, file descriptors and
        // multi-arch images.
        ("twenty-fourth.json", 0.96, 0.96, 0),
        // Measured once unseen at 78.6 / 85.7 %, two of its five questions with no answer
        // answered (by records that hold them word for word); 82.1 / 89.3 % after a word of
        // letters and digits found written apart ("dns01" as "DNS-01") and a slip of one
        // edit preferred to a shorter word it starts with ("replicaton" → "replication").
        // 89.3 / 89.3 % after a bare phrase names a topic, its task first.
        ("twenty-fifth.json", 0.89, 0.89, 1),
        // Measured once unseen at 73.1 / 73.1 %, four of its five questions with no answer
        // answered by the record of the same tool and an overlapping verb ("move jest to
        // vitest" gets the Jest task that "moved" its type checks); 84.6 / 84.6 % after a
        // word read as two the index holds ("pgdump" as "pg_dump"), RAID's tools, wg,
        // "swapped" a drive for "replace", and warm as the other side of cold.
        // 88.5 / 88.5 % after a wait or a command answers for the task it served.
        // 92.3 / 92.3 % and a no-answer more after "is it … now" asking for an outcome and
        // a move the question opens with going where "to" says.
        ("twenty-sixth.json", 0.92, 0.92, 2),
        // Measured once unseen at 88.5 / 92.3 %, one of its five questions with no answer
        // answered; 92.3 / 96.2 % after "calls" as an everyday word, "verified" and "ready"
        // asking for an outcome, and "back up" as one word.
        // 100 / 100 % after a wait or a command answers for the task it served.
        ("twenty-seventh.json", 1.0, 1.0, 1),
        // Measured once unseen at 88.5 / 92.3 %, two of its five questions with no answer
        // answered by a record of the same tool; not tuned on.
        // 92.3 / 96.2 % after a wait or a command answers for the task it served.
        // 96.2 / 100 % after a wait or command is weak only where its task is.
        ("twenty-eighth.json", 0.96, 1.0, 1),
        // Measured once unseen at 84.6 / 88.5 %, three of its five questions with no answer
        // answered; 92.3 / 92.3 % and two answered after a version read as its numbers in
        // a row ("django to 5.1" where the records hold 5 and 1 apart), "which node" asking
        // for a figure, and CSS as styles.
        // 96.2 / 96.2 % after a bare phrase names a topic, its task first.
        ("twenty-ninth.json", 0.96, 0.96, 2),
        // Measured once unseen at 88.5 / 96.2 %, one of its five questions with no answer
        // answered ("move the site from cloudfront to fastly"); 96.2 / 100 % and none after
        // a move to something nothing indexed holds makes every result weak, "setting" as
        // an everyday word, and ss and netstat for sockets.
        // 100 / 100 % after a wait or a command answers for the task it served.
        ("thirtieth.json", 1.0, 1.0, 0),
        // Measured once unseen at 76.9 / 92.3 %, two of its five questions with no answer
        // answered; 84.6 / 96.2 % after "which cipher" (and algorithm, protocol) asking for
        // a figure, "how long" too, and "io wait" as iowait.
        // 92.3 / 96.2 % after a bare phrase names a topic, its task first.
        // 96.2 % top-1 after a yes/no question about a thing asks for an outcome.
        ("thirty-first.json", 0.96, 0.96, 2),
        // Measured once unseen at 84.6 / 92.3 %, one of its five questions with no answer
        // answered; 88.5 / 100 % after "pods" finding "pod" (not corrected to "pids") and
        // errno as an error.
        // 92.3 / 100 % after a wait or a command answers for the task it served.
        // 96.2 / 100 % after a bare phrase names a topic, its task first.
        // 100 % top-1 after a yes/no question about a thing asks for an outcome.
        ("thirty-second.json", 1.0, 1.0, 1),
        // Measured once unseen at 80.8 / 88.5 %, one of its five questions with no answer
        // answered; 88.5 / 96.2 % after compression (gzip) and "gha" for CI.
        // 92.3 / 96.2 % after a bare phrase names a topic, its task first.
        // 96.2 / 96.2 % after "is it … now" asking for an outcome.
        ("thirty-third.json", 0.96, 0.96, 1),
        // Measured once unseen at 92.3 / 92.3 %, one of its five questions with no answer
        // answered; not tuned on.
        // 92.3 / 96.2 % after a wait or a command answers for the task it served.
        ("thirty-fourth.json", 0.92, 0.96, 0),
        // Measured once unseen at 80.8 / 84.6 %, 92.3 / 96.2 % after "switch" with
        // "replace", THP as transparent huge pages, and a graceful shutdown as SIGTERM.
        // 96.2 / 96.2 % after a wait or a command answers for the task it served.
        ("thirty-fifth.json", 0.96, 0.96, 0),
        // Measured once unseen at 88.5 / 92.3 %, two of its five questions with no answer
        // answered by records of the same tools; 92.3 / 96.2 % after docs as documents.
        // 96.2 / 96.2 % after a bare phrase names a topic, its task first.
        ("thirty-sixth.json", 0.96, 0.96, 2),
        // Measured once unseen at 84.6 / 96.2 %, one of its five questions with no answer
        // answered; 88.5 / 96.2 % after "which role" (and arn, account, id) asking for a
        // figure.
        // 92.3 / 96.2 % after a wait or a command answers for the task it served.
        // 96.2 / 96.2 % after a bare phrase names a topic, its task first.
        ("thirty-seventh.json", 0.96, 0.96, 0),
        // Measured once unseen at 92.3 / 96.2 %, 100 / 100 % after java and the JVM, the
        // garbage collector and an outcome in -ing ("are logins still failing").
        ("thirty-eighth.json", 1.0, 1.0, 1),
        // Measured once unseen at 92.3 / 96.2 %, 100 / 100 % after headphones, video calls
        // and "which … use" asking for a figure.
        ("thirty-ninth.json", 1.0, 1.0, 0),
        // Measured once unseen at 69.2 / 73.1 %, 96.2 / 96.2 % after contractions, "because"
        // and a flag's letter as framing, plural figure nouns, "which … running", pictures
        // as images, programs as binaries, "previous" as old, and a move's destination
        // held as itself.
        // 100 / 100 % after a wait is weak only where its task is ("did the alert noise go
        // down").
        ("fortieth.json", 1.0, 1.0, 0),
        // Measured once unseen at 84.6 / 96.2 %, 92.3 / 100 % after "is it still …" asking
        // for an outcome, Mac as macOS and "instead" as framing.
        // 100 / 100 % after a bare phrase names a topic, its task first.
        ("forty-first.json", 1.0, 1.0, 1),
        // Measured once unseen at 73.1 / 73.1 %, 88.5 / 88.5 % after a silent e dropped
        // from a stem ("terminate" finds "terminating"), hanging as stuck, switching as
        // moving, and "level off" as an outcome.
        ("forty-second.json", 0.88, 0.88, 0),
        // Measured once unseen at 88.5 / 96.2 %, 92.3 / 100 % after "themselves" as framing,
        // times of day as everyday words and "which … see" asking for a figure.
        // 96.2 / 100 % after a bare phrase names a topic, its task first.
        ("forty-third.json", 0.96, 1.0, 0),
        // Measured once unseen at 88.5 / 92.3 %, 100 / 100 % after "forever" as an everyday
        // word, "what speed" asking for a figure and "is it back …" for an outcome.
        ("forty-fourth.json", 1.0, 1.0, 1),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after "is it … now" asking
        // for an outcome and costs as the bill.
        ("forty-fifth.json", 0.92, 0.92, 0),
        // Measured once unseen at 84.6 / 88.5 %, 100 / 100 % after a two-letter word's
        // plural ("ip" finds "IPs"), a VPS as a VM, a reverse proxy as a kind, and a move
        // the question opens with going where "to" says.
        ("forty-sixth.json", 1.0, 1.0, 0),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after "locking up" as
        // freezing, "cuts off" as closing, charges as the bill and "did it get …ed" asking
        // for an outcome.
        ("forty-seventh.json", 0.92, 0.92, 0),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after "almost" as framing,
        // "use" as an everyday word and "what was it at" asking for a figure.
        ("forty-eighth.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after AI and LLMs as one
        // group and "language model" as a phrase for LLM.
        ("forty-ninth.json", 0.96, 0.96, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after "did it run" asking
        // for an outcome.
        ("fiftieth.json", 0.92, 0.92, 1),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 88.5 % after "can it … now" asking
        // for an outcome, 84.6 / 84.6 % since a longer word a question's word starts counts
        // less than a form of it ("jsonb" of "json").
        ("fifty-first.json", 0.84, 0.84, 1),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after "windows subsystem for
        // linux" as WSL and refreshing as updating.
        ("fifty-second.json", 0.96, 0.96, 0),
        // Measured once unseen at 96.2 / 96.2 %, 100 / 100 % after "apple silicon" as arm64.
        ("fifty-third.json", 1.0, 1.0, 1),
        // Measured once unseen at 80.8 / 88.5 %, 84.6 / 88.5 % after "which … slowest"
        // asking for a figure.
        ("fifty-fourth.json", 0.84, 0.88, 1),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after "loading" as an
        // everyday word.
        ("fifty-fifth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 84.6 %, 96.2 / 96.2 % after "stable" and "gives"
        // as everyday words and a trackpad as a touchpad.
        ("fifty-sixth.json", 0.96, 0.96, 0),
        // Measured once unseen at 100 / 100 %.
        ("fifty-seventh.json", 1.0, 1.0, 0),
        // Measured once unseen at 92.3 / 92.3 %.
        ("fifty-eighth.json", 0.92, 0.92, 1),
        // Measured once unseen at 80.8 / 80.8 %, 88.5 / 88.5 % after "stale" as old and
        // overlapping as concurrent.
        ("fifty-ninth.json", 0.88, 0.88, 0),
        // Measured once unseen at 84.6 / 84.6 %.
        ("sixtieth.json", 0.84, 0.84, 1),
        // Measured once unseen at 80.8 / 84.6 %, 88.5 / 88.5 % after "which … have" asking
        // for a figure and a wait weak only where its task is.
        ("sixty-first.json", 0.88, 0.88, 0),
        // Measured once unseen at 69.2 / 69.2 %, 88.5 / 88.5 % after meetings as video calls,
        // a linter as its kind, "what did we do about" asking how, and corporate as office.
        ("sixty-second.json", 0.88, 0.88, 0),
        // Measured once unseen at 80.8 / 80.8 %, 96.2 / 96.2 % after an add-on as an
        // extension, cold storage as glacier, a text message as sms and "spin down".
        ("sixty-third.json", 0.96, 0.96, 1),
        // Measured once unseen at 88.5 / 88.5 %, 100 / 100 % after undo as reset, suspend to
        // disk as hibernate and analytics as reporting.
        ("sixty-fourth.json", 1.0, 1.0, 0),
        // Measured once unseen at 73.1 / 73.1 %, 92.3 / 92.3 % after visible as exposed, a
        // dnsbl as a block list, "what did … say" asking for a figure, and "since" framing.
        ("sixty-fifth.json", 0.92, 0.92, 0),
        // Measured once unseen at 80.8 / 80.8 %, 76.9 / 76.9 % since a phrase is known only
        // where it is held as one ("keyless aws auth" had held "sign in" as two words apart).
        ("sixty-sixth.json", 0.76, 0.76, 0),
        // Measured once unseen at 80.8 / 80.8 %, 96.2 / 96.2 % after malware as hacked, a cms
        // as its kind, startup as boot and bandwidth as egress.
        ("sixty-seventh.json", 0.96, 0.96, 1),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after "all over the place" as
        // inconsistent; two no-answers answered ("git lfs on the mac").
        ("sixty-eighth.json", 0.92, 0.92, 2),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after personal data as pii;
        // two no-answers answered ("grafana loki datasource").
        ("sixty-ninth.json", 0.96, 0.96, 2),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after openjdk as java; two
        // no-answers answered ("helm rollback failed").
        ("seventieth.json", 0.92, 0.92, 2),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after below as under; one
        // no-answer answered ("grafana dashboards as code").
        ("seventy-first.json", 0.88, 0.88, 1),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after "what does it point to"
        // asking for a figure.
        ("seventy-second.json", 0.88, 0.88, 0),
        // Measured once unseen at 88.5 / 88.5 %.
        ("seventy-third.json", 0.88, 0.88, 1),
        // Measured once unseen at 96.2 / 96.2 %.
        ("seventy-fourth.json", 0.96, 0.96, 1),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after pay as cost and
        // immutable as object lock.
        ("seventy-fifth.json", 0.92, 0.92, 1),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after a mistake as an everyday
        // word and antivirus as clamav.
        ("seventy-sixth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 92.3 % after "inside" as an everyday
        // word.
        ("seventy-seventh.json", 0.88, 0.92, 1),
        // Measured once unseen at 88.5 / 88.5 %; three no-answers answered ("ups battery
        // replacement").
        ("seventy-eighth.json", 0.88, 0.88, 3),
        // Measured once unseen at 88.5 / 92.3 %, 92.3 / 92.3 % after "what encoding"
        // asking for a figure.
        ("seventy-ninth.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after a leaver as offboarding
        // and removable media as usb.
        ("eightieth.json", 0.96, 0.96, 1),
        // Measured once unseen at 76.9 / 76.9 %, 84.6 / 84.6 % after the largest contentful
        // paint as lcp and "what is … now" asking for a figure; two no-answers answered.
        ("eighty-first.json", 0.84, 0.84, 2),
        // Measured once unseen at 88.5 / 88.5 %.
        ("eighty-second.json", 0.88, 0.88, 1),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 92.3 % after everyday words before
        // "for" naming nothing, and "mode" not read as "made".
        ("eighty-third.json", 0.88, 0.92, 1),
        // Measured once unseen at 80.8 / 80.8 %, 88.5 / 88.5 % after "left" as an everyday
        // word and replay as redrive.
        ("eighty-fourth.json", 0.88, 0.88, 0),
        // Measured once unseen at 92.3 / 92.3 %.
        ("eighty-fifth.json", 0.92, 0.92, 1),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after suppress as inhibit and
        // tell and know as everyday words.
        ("eighty-sixth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 84.6 %, 96.2 / 96.2 % after a form the tables do
        // not list finding the synonyms of one they do, and file descriptors as nofile.
        ("eighty-seventh.json", 0.96, 0.96, 1),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after the front desk as the
        // reception, a network drive as a shared one, new hires as staff, clear as empty.
        ("eighty-eighth.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after an availability group
        // as always on, and parameter sniffing as recompile.
        ("eighty-ninth.json", 0.96, 0.96, 2),
        // Measured once unseen at 92.3 / 96.2 %.
        ("ninetieth.json", 0.92, 0.96, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after created as an everyday
        // word.
        ("ninety-first.json", 0.92, 0.92, 1),
        // Measured once unseen at 92.3 / 92.3 %.
        ("ninety-second.json", 0.92, 0.92, 0),
        // Measured once unseen at 76.9 / 76.9 %, 84.6 / 84.6 % after a gop as a keyframe,
        // token authentication as signed urls, weird characters as garbled.
        ("ninety-third.json", 0.84, 0.84, 0),
        // Measured once unseen at 65.4 / 65.4 %, 84.6 / 84.6 % after buy and attempts as
        // everyday words, brute force, a vulnerability scanner, a csp and a waf.
        ("ninety-fourth.json", 0.84, 0.84, 1),
        // Measured once unseen at 80.8 / 80.8 %, 100 / 100 % after "v1.29.4" recording
        // version 1.29, "to what" naming no destination, request entity too large as 413,
        // p99 as latency, adopt as an everyday word.
        ("ninety-fifth.json", 1.0, 1.0, 0),
        // Measured once unseen at 73.1 / 76.9 %, 76.9 / 80.8 % after chargebacks as
        // disputes.
        ("ninety-sixth.json", 0.76, 0.80, 3),
        // Measured once unseen at 92.3 / 92.3 %.
        ("ninety-seventh.json", 0.92, 0.92, 0),
        // Measured once unseen at 84.6 / 88.5 %, 92.3 / 96.2 % after rolled back as a
        // rollback and garbage as gibberish.
        ("ninety-eighth.json", 0.92, 0.96, 1),
        // Measured once unseen at 96.2 / 96.2 %.
        ("ninety-ninth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 92.3 % after "to the wrong folder"
        // naming no destination; "mailbox size limit increase" finds the retention policy,
        // not weak, since a reading nothing holds ("limit") counts half.
        ("hundredth.json", 0.88, 0.92, 1),
        // Measured once unseen at 100 / 100 %.
        ("hundred-and-first.json", 1.0, 1.0, 0),
        // Measured once unseen at 84.6 / 88.5 %, 92.3 / 96.2 % after tried passwords as
        // brute force and conflicting as clashed.
        ("hundred-and-second.json", 0.92, 0.96, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("hundred-and-third.json", 0.96, 0.96, 0),
        // Measured once unseen at 96.2 / 96.2 %, 100 / 100 % after launch as an everyday
        // word.
        ("hundred-and-fourth.json", 1.0, 1.0, 1),
        // Measured once unseen at 96.2 / 96.2 %.
        ("hundred-and-fifth.json", 0.96, 0.96, 1),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 92.3 % after pull printing as secure
        // print; "print quotas" stopped reading as "print quotes" (quota as a limit).
        ("hundred-and-sixth.json", 0.88, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after typos as misspelled,
        // expensive as cost.
        ("hundred-and-seventh.json", 0.96, 0.96, 1),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after i18n as translations,
        // accessibility as a11y with axe and pa11y, right to left as rtl, support as an
        // everyday word.
        ("hundred-and-eighth.json", 0.92, 0.92, 2),
        // Measured once unseen at 92.3 / 92.3 %, 100 / 100 % after entra id as azure ad, url
        // as uri, "add" finding "added"; passkeys no longer read as "passes".
        ("hundred-and-ninth.json", 1.0, 1.0, 0),
        // Measured once unseen at 84.6 / 84.6 %.
        ("hundred-and-tenth.json", 0.84, 0.84, 2),
        // Measured once unseen at 80.8 / 88.5 %, 84.6 / 92.3 % after zero trust as ztna.
        ("hundred-and-eleventh.json", 0.84, 0.92, 2),
        // Measured once unseen at 76.9 / 88.5 %, 76.9 / 92.3 % after encrypted dns as doh.
        ("hundred-and-twelfth.json", 0.76, 0.92, 0),
        // Measured once unseen at 84.6 / 92.3 %; nothing general to fix ("came back" as
        // reappeared answered one question and lost another).
        ("hundred-and-thirteenth.json", 0.84, 0.92, 0),
        // Measured once unseen at 88.5 / 96.2 %.
        ("hundred-and-fourteenth.json", 0.88, 0.96, 1),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 96.2 % after kds, pos and takings
        // were listed and "uber eats" read as the "ubereats" the index holds.
        ("hundred-and-fifteenth.json", 0.88, 0.96, 1),
        // Measured once unseen at 80.8 / 84.6 %, 92.3 / 92.3 % after ota, rtc and "falls
        // back" were listed and "the sleep current" asked for a reading.
        ("hundred-and-sixteenth.json", 0.92, 0.92, 0),
        // Measured once unseen at 84.6 / 84.6 %, 96.2 / 100 % after pupils as students, the
        // mis, two-step as 2fa, and "year 7" read as the "year7" the index holds.
        ("hundred-and-seventeenth.json", 0.96, 1.0, 0),
        // Measured once unseen at 84.6 / 88.5 %, 92.3 / 92.3 % after "what's … now" asked
        // for a reading, the median as p50, and scaling as autoscaling.
        ("hundred-and-eighteenth.json", 0.92, 0.92, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("hundred-and-nineteenth.json", 0.96, 0.96, 0),
        // Measured once unseen at 73.1 / 73.1 %: loudness asked of a record that says
        // "quieter" and "LUFS", a wait asked of by its jargon ("double ender").
        ("hundred-and-twentieth.json", 0.73, 0.73, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("hundred-and-twenty-first.json", 0.96, 0.96, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after pennies as pence.
        ("hundred-and-twenty-second.json", 0.92, 0.92, 0),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after server-sent events as
        // sse and accelerated mobile pages as amp.
        ("hundred-and-twenty-third.json", 0.92, 0.92, 1),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after "turned off" as
        // disabled, the phone menu as the ivr, and a reading nothing names counting half.
        ("hundred-and-twenty-fourth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after a smart speaker as
        // alexa.
        ("hundred-and-twenty-fifth.json", 0.88, 0.88, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("hundred-and-twenty-sixth.json", 0.96, 0.96, 0),
        // Measured once unseen at 100 / 100 %.
        ("hundred-and-twenty-seventh.json", 1.0, 1.0, 0),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after "statically" as
        // static, the msrv and a desktop app as a gui.
        ("hundred-and-twenty-eighth.json", 0.92, 0.92, 1),
        // Measured once unseen at 88.5 / 92.3 %, 92.3 / 96.2 % after "restocking" found
        // "stock" (a verb done again).
        ("hundred-and-twenty-ninth.json", 0.92, 0.96, 0),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after the tag manager as gtm
        // and a customer data platform as a cdp.
        ("hundred-and-thirtieth.json", 0.92, 0.92, 1),
        // Measured once unseen at 73.1 / 76.9 %, 80.8 / 84.6 % after chromecast as casting
        // and apple pay as a wallet; what is left asks by names the records never wrote
        // ("keycard", "pms", "overbooking").
        ("hundred-and-thirty-first.json", 0.80, 0.84, 0),
        // Measured once unseen at 84.6 / 88.5 %.
        ("hundred-and-thirty-second.json", 0.84, 0.88, 0),
        // Measured once unseen at 92.3 / 92.3 %, 100 / 100 % after a screen reader (nvda,
        // voiceover) as accessibility and bilingual as i18n.
        ("hundred-and-thirty-third.json", 1.0, 1.0, 0),
        // Measured once unseen at 80.8 / 80.8 %, 84.6 / 84.6 % after "screen 44" found
        // "screen-044" and read only as ro.
        ("hundred-and-thirty-fourth.json", 0.84, 0.84, 2),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after a load test as a kind
        // (k6, locust, jmeter) and strong customer authentication as sca.
        ("hundred-and-thirty-fifth.json", 0.92, 0.92, 0),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after "conversion" found
        // "converted" (a noun in -ersion or -ission and its verb).
        ("hundred-and-thirty-sixth.json", 0.88, 0.88, 0),
        // Measured once unseen at 84.6 / 84.6 %, 84.6 / 88.5 % after device management as
        // mdm.
        ("hundred-and-thirty-seventh.json", 0.84, 0.88, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after "their" as framing.
        ("hundred-and-thirty-eighth.json", 0.92, 0.92, 1),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after bitcoin as a
        // cryptocurrency.
        ("hundred-and-thirty-ninth.json", 0.96, 0.96, 0),
        // Measured once unseen at 73.1 / 73.1 %, 80.8 / 80.8 % after perforce as p4 and lag
        // as latency.
        ("hundred-and-fortieth.json", 0.80, 0.80, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("hundred-and-forty-first.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after "how accurate" asked for
        // a figure, the arrival time as the eta, and "ph" heard as "f" ("tachograf").
        ("hundred-and-forty-second.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 96.2 %, 96.2 / 100 % after "any …" asked whether
        // something holds and virtual reality as vr.
        ("hundred-and-forty-third.json", 0.96, 1.0, 0),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 88.5 % after "when did … finish"
        // asked for the moment a command printed.
        ("hundred-and-forty-fourth.json", 0.88, 0.88, 0),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 92.3 % after a resume as a cv.
        ("hundred-and-forty-fifth.json", 0.88, 0.92, 1),
        // Measured once unseen at 96.2 / 96.2 %.
        ("hundred-and-forty-sixth.json", 0.96, 0.96, 0),
        // Measured once unseen at 76.9 / 80.8 %, 88.5 / 88.5 % after "what share" asked for
        // a figure, x-rays as radiographs, and "vacine" read as "vaccinations".
        ("hundred-and-forty-seventh.json", 0.88, 0.88, 0),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after "across" counted as
        // an everyday word.
        ("hundred-and-forty-eighth.json", 0.88, 0.88, 0),
        // Measured once unseen at 84.6 / 92.3 %, 92.3 / 96.2 % after a phone system as a
        // pbx (voip) and check in as one word.
        ("hundred-and-forty-ninth.json", 0.92, 0.96, 0),
        // Measured once unseen at 84.6 / 84.6 %.
        ("hundred-and-fiftieth.json", 0.84, 0.84, 0),
        // Measured once unseen at 80.8 / 84.6 %, 84.6 / 84.6 % after "fell over" as
        // crashed.
        ("hundred-and-fifty-first.json", 0.84, 0.84, 0),
        // Measured once unseen at 76.9 / 76.9 %, 80.8 / 80.8 % after augmented reality as
        // ar.
        ("hundred-and-fifty-second.json", 0.80, 0.80, 0),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after "return" read as a
        // noun, excise as duty and card terminals as pos.
        ("hundred-and-fifty-third.json", 0.92, 0.92, 0),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after an opac as the
        // catalogue and a self checkout as a kiosk.
        ("hundred-and-fifty-fourth.json", 0.88, 0.88, 0),
        // Measured once unseen at 80.8 / 80.8 %, 88.5 / 88.5 % after docusign as
        // e-signatures and late rent as arrears; a no-answer answered ("landlord
        // statements each month").
        ("hundred-and-fifty-fifth.json", 0.88, 0.88, 1),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after mid as the middle.
        ("hundred-and-fifty-sixth.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after theft as stolen.
        ("hundred-and-fifty-seventh.json", 0.92, 0.92, 0),
        // Measured once unseen at 73.1 / 73.1 %, 84.6 / 84.6 % after mics as
        // microphones, dead air as silent and digital radio as dab.
        ("hundred-and-fifty-eighth.json", 0.84, 0.84, 0),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after turnstiles as gates
        // and a virtual waiting room as a queue.
        ("hundred-and-fifty-ninth.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after captions as
        // subtitles and post-editing as mtpe.
        ("hundred-and-sixtieth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after the annual meeting
        // as the agm.
        ("hundred-and-sixty-first.json", 0.88, 0.88, 0),
        // Measured once unseen at 69.2 / 73.1 %, 76.9 / 80.8 % after number plates as anpr
        // and electric vehicles as ev; a no-answer answered ("parking fines appeals").
        ("hundred-and-sixty-second.json", 0.76, 0.80, 1),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after leakage as leaks, a uav
        // as a drone and smart meters as amr.
        ("hundred-and-sixty-third.json", 0.92, 0.92, 0),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after access points as wifi.
        ("hundred-and-sixty-fourth.json", 0.96, 0.96, 0),
        // Measured once unseen at 88.5 / 92.3 %, 92.3 / 92.3 % after running out as a
        // shortage.
        ("hundred-and-sixty-fifth.json", 0.92, 0.92, 0),
        // Measured once unseen at 80.8 / 80.8 %, 84.6 / 84.6 % after luggage as baggage.
        ("hundred-and-sixty-sixth.json", 0.84, 0.84, 0),
        // Measured once unseen at 76.9 / 80.8 %, 84.6 / 88.5 % after epos as a till and
        // reefers as chilled.
        ("hundred-and-sixty-seventh.json", 0.84, 0.88, 0),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after pv as solar and
        // condensation as damp.
        ("hundred-and-sixty-eighth.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %.
        ("hundred-and-sixty-ninth.json", 0.88, 0.88, 0),
        // Measured once unseen at 80.8 / 80.8 %; petrol as fuel shows "petrol expenses"
        // its answer, weak.
        ("hundred-and-seventieth.json", 0.80, 0.80, 0),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 96.2 % after xmas as christmas, a
        // voucher as a gift card and sprinklers as irrigation.
        ("hundred-and-seventy-first.json", 0.92, 0.96, 0),
        // Measured once unseen at 73.1 / 76.9 %, 84.6 / 88.5 % after breakages as damage,
        // lorries as vans and cartons as boxes.
        ("hundred-and-seventy-second.json", 0.84, 0.88, 0),
        // Measured once unseen at 84.6 / 88.5 %, 92.3 / 96.2 % after emar as a mar chart and
        // cqc as the regulator; "dbs checks for new carers" finds the falls task, not weak.
        ("hundred-and-seventy-third.json", 0.92, 0.96, 1),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after electric cars as an ev
        // (a phrase's short last word matched in the plural).
        ("hundred-and-seventy-fourth.json", 0.92, 0.92, 0),
        // Measured once unseen at 84.6 / 84.6 %, 96.2 / 96.2 % after a crane as a hoist,
        // moorings as berths, reservations as bookings, jetties as pontoons and gas oil as
        // diesel; "sewage pump out station" finds the fuel pump, not weak.
        ("hundred-and-seventy-fifth.json", 0.96, 0.96, 1),
        // Measured once unseen at 76.9 / 76.9 %, 80.8 / 80.8 % after a cold room as a fridge;
        // "sympathy flowers" and "bridal flowers" find the funeral and wedding records by
        // a synonym only (weak) below one holding "flowers".
        ("hundred-and-seventy-sixth.json", 0.80, 0.80, 1),
        // Measured once unseen at 80.8 / 84.6 %, 92.3 / 96.2 % after drying as dried (a
        // verb in -y) and golf carts as buggies.
        ("hundred-and-seventy-seventh.json", 0.92, 0.96, 0),
        // Measured once unseen at 88.5 / 88.5 %.
        ("hundred-and-seventy-eighth.json", 0.88, 0.88, 0),
        // Measured once unseen at 84.6 / 84.6 %, 100 / 100 % after a webcast as a
        // livestream, a cold store as a fridge, the cma as a regulator and in memoriam
        // giving as memorial donations.
        ("hundred-and-seventy-ninth.json", 1.0, 1.0, 0),
        // Measured once unseen at 76.9 / 76.9 %, 80.8 / 80.8 % after seg as export payments;
        // five answers first but weak, each holding half of a two-word question.
        ("hundred-and-eightieth.json", 0.80, 0.80, 1),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after a membership as a
        // subscription and a kdm as keys ("bulb replacement" finds the lamp task, weak).
        ("hundred-and-eighty-first.json", 0.92, 0.92, 0),
        // Measured once unseen at 92.3 / 96.2 %.
        ("hundred-and-eighty-second.json", 0.92, 0.96, 1),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after equipment as kit, a
        // blizzard as a storm and a piste as a slope.
        ("hundred-and-eighty-third.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after second hand as reuse;
        // "anpr at the tip" (the tip a recycling centre) finds its answer, weak.
        ("hundred-and-eighty-fourth.json", 0.92, 0.92, 0),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after cp12 as gas safety
        // and fix as fixes (a word in x takes -es), and a reading nothing names ("rate")
        // counting half.
        ("hundred-and-eighty-fifth.json", 0.92, 0.92, 1),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after food as meals and
        // snacks.
        ("hundred-and-eighty-sixth.json", 0.88, 0.88, 0),
        // Measured once unseen at 80.8 / 80.8 %, 88.5 / 88.5 % after a no show as missed and
        // tinting as dyeing, and "rate" no longer read as "rare".
        ("hundred-and-eighty-seventh.json", 0.88, 0.88, 0),
        // Measured once unseen at 80.8 / 84.6 %.
        ("hundred-and-eighty-eighth.json", 0.80, 0.84, 0),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after asking as asked (a verb
        // of three letters with an ending) and a coffee shop as a cafe.
        ("hundred-and-eighty-ninth.json", 0.96, 0.96, 1),
        // Measured once unseen at 80.8 / 80.8 %, 84.6 / 84.6 % after footage as video and
        // buses as vehicles; "night bus routes", about no record, finds the cancelled
        // hydrogen buses' routes since "bus" finds "buses".
        ("hundred-and-ninetieth.json", 0.84, 0.84, 2),
        // Measured once unseen at 80.8 / 84.6 %, 92.3 / 92.3 % after a clue as a hint, a
        // disclaimer as a waiver and team building as corporate.
        ("hundred-and-ninety-first.json", 0.92, 0.92, 0),
        // Measured once unseen at 80.8 / 80.8 %, 84.6 / 84.6 % after a pickup as a
        // collection.
        ("hundred-and-ninety-second.json", 0.84, 0.84, 0),
        // Measured once unseen at 80.8 / 84.6 %, 88.5 / 88.5 % after a plan dropped counting
        // whatever its age on a question why not, and cas as a visa.
        ("hundred-and-ninety-third.json", 0.88, 0.88, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after festive as christmas.
        ("hundred-and-ninety-fourth.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.5 / 88.5 %.
        ("hundred-and-ninety-fifth.json", 0.88, 0.88, 1),
        // Measured once unseen at 80.8 / 80.8 %, 84.6 / 84.6 % after mains as power.
        ("hundred-and-ninety-sixth.json", 0.84, 0.84, 0),
        // Measured once unseen at 76.9 / 80.8 %, 80.8 / 80.8 % after ringing as rang; "jab
        // records" finds the vaccination check by a synonym only (weak), below a record
        // of walks "not recorded".
        ("hundred-and-ninety-seventh.json", 0.80, 0.80, 0),
        // Measured once unseen at 76.9 / 76.9 %.
        ("hundred-and-ninety-eighth.json", 0.76, 0.76, 0),
        // Measured once unseen at 80.8 / 80.8 %.
        ("hundred-and-ninety-ninth.json", 0.80, 0.80, 0),
        // Measured once unseen at 80.8 / 84.6 %.
        ("two-hundredth.json", 0.80, 0.84, 0),
        // Measured once unseen at 76.9 / 80.8 %, 80.8 / 84.6 % after coshh as chemicals.
        ("two-hundred-and-first.json", 0.80, 0.84, 0),
        // Measured once unseen at 84.6 / 84.6 %.
        ("two-hundred-and-second.json", 0.84, 0.84, 0),
        // Measured once unseen at 84.6 / 84.6 %, 88.5 / 88.5 % after data protection as gdpr.
        ("two-hundred-and-third.json", 0.88, 0.88, 0),
        // Measured once unseen at 80.8 / 80.8 %, 88.5 / 88.5 % after priority as urgent and a
        // rodenticide as a pesticide.
        ("two-hundred-and-fourth.json", 0.88, 0.88, 1),
        // Measured once unseen at 76.9 / 76.9 %; a registration plate as anpr and a pet as a
        // kind (dog, cat) bring two answers into view, weak.
        ("two-hundred-and-fifth.json", 0.76, 0.76, 1),
        // Measured once unseen at 88.5 / 96.2 %.
        ("two-hundred-and-sixth.json", 0.88, 0.96, 0),
        // Measured once unseen at 84.6 / 88.5 %.
        ("two-hundred-and-seventh.json", 0.84, 0.88, 0),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after driving as drove.
        ("two-hundred-and-eighth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 88.5 % after "how often" asking a
        // task.
        ("two-hundred-and-ninth.json", 0.88, 0.88, 0),
        // Measured once unseen at 84.6 / 88.5 %, 96.2 / 96.2 % after waiting staff, seating
        // plans and midweek.
        ("two-hundred-and-tenth.json", 0.96, 0.96, 0),
        // Measured once unseen at 80.8 / 84.6 %.
        ("two-hundred-and-eleventh.json", 0.80, 0.84, 0),
        // Measured once unseen at 80.8 / 84.6 % and 4 of 5 without an answer weak, 88.5 /
        // 92.3 % and 5 of 5 after cashless as a till, a train station and staffing.
        ("two-hundred-and-twelfth.json", 0.88, 0.92, 0),
        // Measured once unseen at 73.1 / 92.3 %, 76.9 / 92.3 % after showing up as turning
        // up; "when do we count the ink" finds the SQL count(*) of two commands first.
        ("two-hundred-and-thirteenth.json", 0.76, 0.92, 1),
        // Measured once unseen at 84.6 / 92.3 %, 92.3 / 92.3 % after make-up lessons and
        // child protection as safeguarding. "adult swimming lessons" and "one to one
        // lessons" find the lane booking of the school's lessons.
        ("two-hundred-and-fourteenth.json", 0.92, 0.92, 2),
        // Measured once unseen at 96.2 / 96.2 %, 3 of 5 without an answer weak: a garage
        // door and a window lock find the records of doors and locks.
        ("two-hundred-and-fifteenth.json", 0.96, 0.96, 2),
        // Measured once unseen at 69.2 / 80.8 %, 84.6 / 92.3 % after a sneak peek as a
        // preview, gigabytes as gb, "pre" apart and mileage; "photo booth" is read as
        // "photo both".
        ("two-hundred-and-sixteenth.json", 0.84, 0.92, 2),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after annual as yearly and a
        // detector as an alarm; "chimney fire insurance" finds the gas fires.
        ("two-hundred-and-seventeenth.json", 0.92, 0.92, 1),
        // Measured once unseen at 73.1 / 76.9 %, 76.9 / 88.5 % after a hosepipe as a hose
        // and untidy as untended; "how long is the wait" finds every wait.
        ("two-hundred-and-eighteenth.json", 0.76, 0.88, 1),
        // Measured once unseen at 92.3 / 92.3 %.
        ("two-hundred-and-nineteenth.json", 0.92, 0.92, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("two-hundred-and-twentieth.json", 0.96, 0.96, 0),
        // Measured once unseen at 88.5 / 92.3 %.
        ("two-hundred-and-twenty-first.json", 0.88, 0.92, 0),
        // Measured once unseen at 88.5 / 92.3 %, 92.3 / 96.2 % after an energy certificate
        // as an epc.
        ("two-hundred-and-twenty-second.json", 0.92, 0.96, 0),
        // Measured once unseen at 84.6 / 92.3 %; "rise" finds the stage's "risers" by its
        // start.
        ("two-hundred-and-twenty-third.json", 0.84, 0.92, 0),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after renting as hiring.
        ("two-hundred-and-twenty-fourth.json", 0.96, 0.96, 1),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after swept as sweeping.
        ("two-hundred-and-twenty-fifth.json", 0.96, 0.96, 1),
        // Measured once unseen at 96.2 / 96.2 %, 100 / 100 % after a tourist tax as a levy.
        ("two-hundred-and-twenty-sixth.json", 1.0, 1.0, 1),
        // Measured once unseen at 88.5 / 96.2 %; "docs build too slow" finds a newer task
        // holding "docs" and "built" first.
        ("two-hundred-and-twenty-seventh.json", 0.88, 0.96, 1),
        // Measured once unseen at 92.3 / 96.2 %.
        ("two-hundred-and-twenty-eighth.json", 0.92, 0.96, 1),
        // Measured once unseen at 88.5 / 92.3 %; a blocklist as a blacklist found the
        // answer and lost "dnsbl" to apt's package blacklist elsewhere.
        ("two-hundred-and-twenty-ninth.json", 0.88, 0.92, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("two-hundred-and-thirtieth.json", 0.96, 0.96, 1),
        // Measured once unseen at 80.8 / 88.5 %, 84.6 / 88.5 % after "setup" as an
        // everyday word; two answers lose to a newer task holding as much.
        ("two-hundred-and-thirty-first.json", 0.84, 0.88, 0),
        // Measured once unseen at 100 / 100 %.
        ("two-hundred-and-thirty-second.json", 1.0, 1.0, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("two-hundred-and-thirty-third.json", 0.96, 0.96, 0),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after shipped as dispatched
        // and grown up as adult.
        ("two-hundred-and-thirty-fourth.json", 0.96, 0.96, 1),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 92.3 % after "mostly" as framing.
        ("two-hundred-and-thirty-fifth.json", 0.88, 0.92, 0),
        // Measured once unseen at 80.8 / 84.6 %, 84.6 / 88.5 % after selected as picked.
        ("two-hundred-and-thirty-sixth.json", 0.84, 0.88, 0),
        // Measured once unseen at 92.3 / 96.2 % and 4 of 5 without an answer weak, 5 of 5
        // after a number with dots as one word ("ruby 3.4 yjit" held 3 and 4 apart).
        ("two-hundred-and-thirty-seventh.json", 0.92, 0.96, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("two-hundred-and-thirty-eighth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 92.3 %; "windows 11 upgrade" finds the update
        // rings and a "19/11/2026".
        ("two-hundred-and-thirty-ninth.json", 0.84, 0.92, 1),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after an allergy as an
        // allergen and throwing away as waste.
        ("two-hundred-and-fortieth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 88.5 %; "mimir compaction" finds the record
        // naming Mimir among what stays.
        ("two-hundred-and-forty-first.json", 0.84, 0.88, 1),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after a stand-up paddleboard
        // as a sup.
        ("two-hundred-and-forty-second.json", 0.96, 0.96, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after a captcha as
        // Turnstile; "seo plugin settings" finds the plugin updates.
        ("two-hundred-and-forty-third.json", 0.92, 0.92, 1),
        // Measured once unseen at 84.6 / 88.5 %; "staff dbs checks" finds the children's
        // medical checks.
        ("two-hundred-and-forty-fourth.json", 0.84, 0.88, 1),
        // Measured once unseen at 96.2 / 96.2 %.
        ("two-hundred-and-forty-fifth.json", 0.96, 0.96, 0),
        // Measured once unseen at 80.8 / 80.8 %, 84.6 / 84.6 % after a consultation as an
        // appointment; "flu jab clinics" finds the travel clinic's jabs.
        ("two-hundred-and-forty-sixth.json", 0.84, 0.84, 1),
        // Measured once unseen at 96.2 / 96.2 %.
        ("two-hundred-and-forty-seventh.json", 0.96, 0.96, 0),
        // Measured once unseen at 88.5 / 88.5 %, 96.2 / 96.2 % after became and raising
        // funds.
        ("two-hundred-and-forty-eighth.json", 0.96, 0.96, 0),
        // Measured once unseen at 96.2 / 100 %.
        ("two-hundred-and-forty-ninth.json", 0.96, 1.0, 0),
        // Measured once unseen at 100 / 100 %.
        ("two-hundred-and-fiftieth.json", 1.0, 1.0, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after its stop's fixes.
        ("two-hundred-and-fifty-first.json", 0.92, 0.92, 0),
        // Measured once unseen at 76.9 / 88.5 %, 88.5 / 96.2 % after its stop's fixes.
        ("two-hundred-and-fifty-second.json", 0.88, 0.96, 1),
        // Measured once unseen at 92.3 / 92.3 %, 96.2 / 96.2 % after its stop's fixes.
        ("two-hundred-and-fifty-third.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 84.6 %, 92.3 / 92.3 % after its stop's fixes.
        ("two-hundred-and-fifty-fourth.json", 0.92, 0.92, 1),
        // Measured once unseen at 96.2 / 96.2 %, 100 / 100 % after its stop's fixes.
        ("two-hundred-and-fifty-fifth.json", 1.0, 1.0, 1),
        // Measured once unseen at 76.9 / 80.8 %, 92.3 / 96.2 % after its stop's fixes.
        ("two-hundred-and-fifty-sixth.json", 0.92, 0.96, 1),
        // Measured once unseen at 92.3 / 100 %.
        ("two-hundred-and-fifty-seventh.json", 0.92, 1.0, 1),
        // Measured once unseen at 76.9 / 80.8 %, 88.5 / 88.5 % after its stop's fixes.
        ("two-hundred-and-fifty-eighth.json", 0.88, 0.88, 0),
        // Measured once unseen at 80.8 / 84.6 %, 88.5 / 92.3 % after its stop's fixes.
        ("two-hundred-and-fifty-ninth.json", 0.88, 0.92, 0),
        // Measured once unseen at 92.3 / 96.2 %, 92.3 / 100 % after its stop's fixes.
        ("two-hundred-and-sixtieth.json", 0.92, 1.0, 0),
        // Measured once unseen at 84.6 / 92.3 %, 88.5 / 96.2 % after its stop's fixes.
        ("two-hundred-and-sixty-first.json", 0.88, 0.96, 0),
        // Measured once unseen at 80.8 / 80.8 %, 92.3 / 92.3 % after its stop's fixes.
        ("two-hundred-and-sixty-second.json", 0.92, 0.92, 0),
        // Measured once unseen at 80.8 / 92.3 %, 84.6 / 92.3 % after its stop's fixes.
        ("two-hundred-and-sixty-third.json", 0.84, 0.92, 1),
        // Measured once unseen at 69.2 / 80.8 %, 84.6 / 96.2 % after its stop's fixes, 80.8 /
        // 92.3 % since a longer word a question's word starts counts less than a form of it
        // ("hosts" was held only by "/etc/hostname").
        ("two-hundred-and-sixty-fourth.json", 0.80, 0.92, 0),
        // Measured once unseen at 88.5 / 92.3 %, 92.3 / 96.2 % after its stop's fixes.
        ("two-hundred-and-sixty-fifth.json", 0.92, 0.96, 0),
        // Measured once unseen at 88.5 / 100 %, 96.2 / 100 % after its stop's fixes.
        ("two-hundred-and-sixty-sixth.json", 0.96, 1.0, 0),
        // Measured once unseen at 92.3 / 92.3 %, 100 / 100 % after its stop's fixes.
        ("two-hundred-and-sixty-seventh.json", 1.0, 1.0, 1),
        // Measured once unseen at 88.5 / 92.3 %, 92.3 / 100 % after its stop's fixes.
        ("two-hundred-and-sixty-eighth.json", 0.92, 1.0, 0),
        // Measured once unseen at 84.6 / 92.3 %, 92.3 / 100 % after its stop's fixes.
        ("two-hundred-and-sixty-ninth.json", 0.92, 1.0, 0),
        // Measured once unseen at 92.3 / 96.2 %, 96.2 / 100 % after its stop's fixes.
        ("two-hundred-and-seventieth.json", 0.96, 1.0, 0),
        // Measured once unseen at 88.5 / 96.2 %.
        ("two-hundred-and-seventy-first.json", 0.88, 0.96, 0),
        // Measured once unseen at 80.8 / 80.8 %, 96.2 / 100 % after its stop's fixes.
        ("two-hundred-and-seventy-second.json", 0.96, 1.0, 2),
        // Measured once unseen at 88.5 / 92.3 %, 96.2 / 100 % after its stop's fixes.
        ("two-hundred-and-seventy-third.json", 0.96, 1.0, 0),
        // Measured once unseen at 84.6 / 92.3 %, 88.5 / 96.2 % after its stop's fixes.
        ("two-hundred-and-seventy-fourth.json", 0.88, 0.96, 1),
        // Measured once unseen at 80.8 / 88.5 %, 84.6 / 92.3 % after its stop's fixes.
        ("two-hundred-and-seventy-fifth.json", 0.84, 0.92, 1),
        // Measured once unseen at 76.9 / 80.8 %, 84.6 / 92.3 % after its stop's fixes.
        ("two-hundred-and-seventy-sixth.json", 0.84, 0.92, 1),
        // Measured once unseen at 80.8 / 80.8 %.
        ("two-hundred-and-seventy-seventh.json", 0.8, 0.8, 1),
        // Measured once unseen at 88.5 / 92.3 %.
        ("two-hundred-and-seventy-eighth.json", 0.88, 0.92, 0),
        // Measured once unseen at 92.0 / 92.0 %.
        ("two-hundred-and-seventy-ninth.json", 0.92, 0.92, 4),
        // Measured once unseen at 73.1 / 80.8 %, 80.8 / 88.5 % after its stop's fixes.
        ("two-hundred-and-eightieth.json", 0.8, 0.88, 0),
        // Measured once unseen at 85.2 / 88.9 %.
        ("two-hundred-and-eighty-first.json", 0.85, 0.88, 1),
        // Measured once unseen at 92.3 / 96.2 %, 96.2 / 100 % after its stop's fixes.
        ("two-hundred-and-eighty-second.json", 0.96, 1.0, 1),
        // Measured once unseen at 96.2 / 96.2 %.
        ("two-hundred-and-eighty-third.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.0 / 84.0 %, 84.0 / 88.0 % after its stop's fixes.
        ("two-hundred-and-eighty-fourth.json", 0.84, 0.88, 0),
        // Measured once unseen at 92.3 / 96.2 %, 96.2 / 96.2 % after its stop's fixes.
        ("two-hundred-and-eighty-fifth.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.6 / 88.5 %, 92.3 / 96.2 % after its stop's fixes.
        ("two-hundred-and-eighty-sixth.json", 0.92, 0.96, 0),
        // Measured once unseen at 84.6 / 88.5 %, 88.5 / 92.3 % after its stop's fixes.
        ("two-hundred-and-eighty-seventh.json", 0.88, 0.92, 1),
        // Measured once unseen at 76.9 / 80.8 %, 84.6 / 88.5 % after its stop's fixes.
        ("two-hundred-and-eighty-eighth.json", 0.84, 0.88, 0),
        // Measured once unseen at 100 / 100 %.
        ("two-hundred-and-eighty-ninth.json", 1.0, 1.0, 1),
        // Measured once unseen at 84.6 / 92.3 %, 88.5 / 96.2 % after its stop's fixes.
        ("two-hundred-and-ninetieth.json", 0.88, 0.96, 0),
        // Measured once unseen at 96.2 / 96.2 %.
        ("two-hundred-and-ninety-first.json", 0.96, 0.96, 0),
        // Measured once unseen at 84.0 / 84.0 %, 88.0 / 88.0 % after its stop's fixes.
        ("two-hundred-and-ninety-second.json", 0.88, 0.88, 1),
        // Measured once unseen at 92.3 / 96.2 %.
        ("two-hundred-and-ninety-third.json", 0.92, 0.96, 2),
        // Measured once unseen at 88.5 / 92.3 %, 92.3 / 96.2 % after its stop's fixes.
        ("two-hundred-and-ninety-fourth.json", 0.92, 0.96, 0),
        // Measured once unseen at 100 / 100 %.
        ("two-hundred-and-ninety-fifth.json", 1.0, 1.0, 0),
        // Measured once unseen at 88.5 / 88.5 %, 92.3 / 92.3 % after its stop's fixes.
        ("two-hundred-and-ninety-sixth.json", 0.92, 0.92, 1),
        // Measured once unseen at 61.5 / 69.2 %, 69.2 / 80.8 % after its stop's fixes.
        ("two-hundred-and-ninety-seventh.json", 0.69, 0.8, 0),
        // Measured once unseen at 73.1 / 76.9 %, 80.8 / 84.6 % after its stop's fixes.
        ("two-hundred-and-ninety-eighth.json", 0.8, 0.84, 0),
        // Measured once unseen at 65.4 / 73.1 %, 73.1 / 76.9 % after its stop's fixes.
        ("two-hundred-and-ninety-ninth.json", 0.73, 0.76, 1),
        // Measured once unseen at 84.6 / 92.3 %.
        ("three-hundredth.json", 0.84, 0.92, 1),
        // Measured once unseen at 92.3 / 92.3 %.
        ("three-hundred-and-first.json", 0.92, 0.92, 1),
        // Measured once unseen at 69.2 / 84.6 %.
        ("three-hundred-and-second.json", 0.69, 0.84, 0),
        // Measured once unseen at 84.6 / 96.2 %, 88.5 / 96.2 % after its stop's fixes.
        ("three-hundred-and-third.json", 0.88, 0.96, 0),
        // Measured once unseen at 76.9 / 88.5 %.
        ("three-hundred-and-fourth.json", 0.76, 0.88, 0),
        // Measured once unseen at 69.2 / 88.5 %.
        ("three-hundred-and-fifth.json", 0.69, 0.88, 1),
        // Measured once unseen at 69.2 / 76.9 %.
        ("three-hundred-and-sixth.json", 0.69, 0.76, 0),
        // Measured once unseen at 73.1 / 76.9 %, 92.3 / 96.2 % after its stop's fixes.
        ("three-hundred-and-seventh.json", 0.92, 0.96, 0),
        // Measured once unseen at 75.0 / 83.3 %, 83.3 / 95.8 % after its stop's fixes.
        ("three-hundred-and-eighth.json", 0.83, 0.95, 0),
        // Measured once unseen at 80.8 / 84.6 %, 88.5 / 92.3 % after its stop's fixes.
        ("three-hundred-and-ninth.json", 0.88, 0.92, 0),
        // Measured once unseen at 64.0 / 64.0 %, 80.0 / 80.0 % after its stop's fixes.
        ("three-hundred-and-tenth.json", 0.8, 0.8, 0),
        // Measured once unseen at 80.0 / 84.0 %, 88.0 / 92.0 % after its stop's fixes.
        ("three-hundred-and-eleventh.json", 0.88, 0.92, 1),
        // Measured once unseen at 76.0 / 80.0 %.
        ("three-hundred-and-twelfth.json", 0.76, 0.8, 0),
        // Measured once unseen at 80.0 / 84.0 %, 84.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-thirteenth.json", 0.84, 0.88, 1),
        // Measured once unseen at 80.0 / 80.0 %, 88.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-fourteenth.json", 0.88, 0.88, 0),
        // Measured once unseen at 80.0 / 88.0 %, 84.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-fifteenth.json", 0.84, 0.88, 0),
        // Measured once unseen at 84.0 / 88.0 %, 92.0 / 92.0 % after its stop's fixes.
        ("three-hundred-and-sixteenth.json", 0.92, 0.92, 0),
        // Measured once unseen at 68.0 / 80.0 %, 76.0 / 84.0 % after its stop's fixes.
        ("three-hundred-and-seventeenth.json", 0.76, 0.84, 1),
        // Measured once unseen at 76.0 / 76.0 %, 88.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-eighteenth.json", 0.88, 0.88, 0),
        // Measured once unseen at 84.0 / 88.0 %, 92.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-nineteenth.json", 0.92, 0.96, 0),
        // Measured once unseen at 92.0 / 96.0 %, 96.0 / 100 % after its stop's fixes.
        ("three-hundred-and-twentieth.json", 0.96, 1.0, 0),
        // Measured once unseen at 76.0 / 84.0 %, 84.0 / 92.0 % after its stop's fixes.
        ("three-hundred-and-twenty-first.json", 0.84, 0.92, 1),
        // Measured once unseen at 88.0 / 96.0 %.
        ("three-hundred-and-twenty-second.json", 0.88, 0.96, 0),
        // Measured once unseen at 92.0 / 92.0 %.
        ("three-hundred-and-twenty-third.json", 0.92, 0.92, 0),
        // Measured once unseen at 68.0 / 72.0 %, 76.0 / 80.0 % after its stop's fixes.
        ("three-hundred-and-twenty-fourth.json", 0.76, 0.8, 0),
        // Measured once unseen at 80.0 / 88.0 %.
        ("three-hundred-and-twenty-fifth.json", 0.8, 0.88, 0),
        // Measured once unseen at 96.0 / 100 %, 100 / 100 % after its stop's fixes.
        ("three-hundred-and-twenty-sixth.json", 1.0, 1.0, 0),
        // Measured once unseen at 92.0 / 92.0 %.
        ("three-hundred-and-twenty-seventh.json", 0.92, 0.92, 1),
        // Measured once unseen at 88.0 / 92.0 %, 92.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-twenty-eighth.json", 0.92, 0.96, 1),
        // Measured once unseen at 84.0 / 88.0 %, 88.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-twenty-ninth.json", 0.88, 0.88, 0),
        // Measured once unseen at 88.0 / 88.0 %, 92.0 / 92.0 % after its stop's fixes.
        ("three-hundred-and-thirtieth.json", 0.92, 0.92, 1),
        // Measured once unseen at 96.0 / 96.0 %.
        ("three-hundred-and-thirty-first.json", 0.96, 0.96, 0),
        // Measured once unseen at 76.0 / 80.0 %, 84.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-thirty-second.json", 0.84, 0.88, 0),
        // Measured once unseen at 80.0 / 80.0 %, 88.0 / 92.0 % after its stop's fixes.
        ("three-hundred-and-thirty-third.json", 0.88, 0.92, 0),
        // Measured once unseen at 76.0 / 80.0 %, 84.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-thirty-fourth.json", 0.84, 0.88, 2),
        // Measured once unseen at 80.0 / 88.0 %, 84.0 / 92.0 % after its stop's fixes.
        ("three-hundred-and-thirty-fifth.json", 0.84, 0.92, 0),
        // Measured once unseen at 84.0 / 92.0 %, 88.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-thirty-sixth.json", 0.88, 0.96, 0),
        // Measured once unseen at 80.0 / 88.0 %.
        ("three-hundred-and-thirty-seventh.json", 0.8, 0.88, 1),
        // Measured once unseen at 84.0 / 96.0 %.
        ("three-hundred-and-thirty-eighth.json", 0.84, 0.96, 0),
        // Measured once unseen at 92.0 / 92.0 %, 96.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-thirty-ninth.json", 0.96, 0.96, 1),
        // Measured once unseen at 80.0 / 88.0 %, 88.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-fortieth.json", 0.88, 0.96, 1),
        // Measured once unseen at 96.0 / 96.0 %.
        ("three-hundred-and-forty-first.json", 0.96, 0.96, 2),
        // Measured once unseen at 80.0 / 84.0 %, 84.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-forty-second.json", 0.84, 0.88, 0),
        // Measured once unseen at 84.0 / 84.0 %, 88.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-forty-third.json", 0.88, 0.88, 0),
        // Measured once unseen at 100 / 100 %.
        ("three-hundred-and-forty-fourth.json", 1.0, 1.0, 0),
        // Measured once unseen at 88.0 / 96.0 %.
        ("three-hundred-and-forty-fifth.json", 0.88, 0.96, 0),
        // Measured once unseen at 92.0 / 92.0 %.
        ("three-hundred-and-forty-sixth.json", 0.92, 0.92, 0),
        // Measured once unseen at 88.0 / 96.0 %.
        ("three-hundred-and-forty-seventh.json", 0.88, 0.96, 0),
        // Measured once unseen at 84.0 / 88.0 %.
        ("three-hundred-and-forty-eighth.json", 0.84, 0.88, 1),
        // Measured once unseen at 84.0 / 88.0 %, 92.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-forty-ninth.json", 0.92, 0.96, 1),
        // Measured once unseen at 88.0 / 96.0 %.
        ("three-hundred-and-fiftieth.json", 0.88, 0.96, 0),
        // Measured once unseen at 87.5 / 95.8 %, 91.7 / 100 % after its stop's fixes.
        ("three-hundred-and-fifty-first.json", 0.91, 1.0, 1),
        // Measured once unseen at 96.0 / 96.0 %.
        ("three-hundred-and-fifty-second.json", 0.96, 0.96, 0),
        // Measured once unseen at 92.0 / 92.0 %, 96.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-fifty-third.json", 0.96, 0.96, 1),
        // Measured once unseen at 96.0 / 100 %.
        ("three-hundred-and-fifty-fourth.json", 0.96, 1.0, 0),
        // Measured once unseen at 95.8 / 95.8 %, 100 / 100 % after its stop's fixes.
        ("three-hundred-and-fifty-fifth.json", 1.0, 1.0, 1),
        // Measured once unseen at 80.0 / 84.0 %, 84.0 / 88.0 % after its stop's fixes.
        ("three-hundred-and-fifty-sixth.json", 0.84, 0.88, 0),
        // Measured once unseen at 88.0 / 92.0 %, 96.0 / 100 % after its stop's fixes.
        ("three-hundred-and-fifty-seventh.json", 0.96, 1.0, 0),
        // Measured once unseen at 92.0 / 96.0 %, 96.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-fifty-eighth.json", 0.96, 0.96, 0),
        // Measured once unseen at 80.0 / 88.0 %, 92.0 / 96.0 % after its stop's fixes.
        ("three-hundred-and-fifty-ninth.json", 0.92, 0.96, 0),
        // Measured once unseen at 92.0 / 96.0 %.
        ("three-hundred-and-sixtieth.json", 0.92, 0.96, 0),
        // Measured once unseen at 91.7 / 91.7 %.
        ("three-hundred-and-sixty-first.json", 0.91, 0.91, 2),
        // Measured once unseen at 87.5 / 95.8 %.
        ("three-hundred-and-sixty-second.json", 0.87, 0.95, 0),
        // Measured once unseen at 91.7 / 91.7 %, 95.8 / 95.8 % after its stop's fixes.
        ("three-hundred-and-sixty-third.json", 0.95, 0.95, 0),
        // Measured once unseen at 75.0 / 87.5 %, 83.3 / 95.8 % after its stop's fixes.
        ("three-hundred-and-sixty-fourth.json", 0.83, 0.95, 1),
        // Measured once unseen at 91.7 / 91.7 %.
        ("three-hundred-and-sixty-fifth.json", 0.91, 0.91, 0),
        // Measured once unseen at 87.5 / 87.5 %.
        ("three-hundred-and-sixty-sixth.json", 0.87, 0.87, 0),
        // Measured once unseen at 87.5 / 91.7 %, 95.8 / 95.8 % after its stop's fixes.
        ("three-hundred-and-sixty-seventh.json", 0.95, 0.95, 0),
        // Measured once unseen at 91.7 / 95.8 %, 95.8 / 100 % after its stop's fixes.
        ("three-hundred-and-sixty-eighth.json", 0.95, 1.0, 0),
        // Measured once unseen at 91.7 / 91.7 %.
        ("three-hundred-and-sixty-ninth.json", 0.91, 0.91, 2),
        // Measured once unseen at 87.5 / 95.8 %.
        ("three-hundred-and-seventieth.json", 0.87, 0.95, 0),
        // Measured once unseen at 87.5 / 91.7 %, 91.7 / 95.8 % after its stop's fixes.
        ("three-hundred-and-seventy-first.json", 0.91, 0.95, 0),
        // Measured once unseen at 75.0 / 79.2 %, 79.2 / 83.3 % after its stop's fixes.
        ("three-hundred-and-seventy-second.json", 0.79, 0.83, 1),
    ];
    for (file, top1, top3, answered_unanswerable) in sets {
        let text = std::fs::read_to_string(folder.join(file)).unwrap();
        let history = quality::History::parse(&text);
        let (_dir, store) = store_holding(&history.documents);
        let score = quality::score(&store, &history);
        println!("{file}: {}", score.line());
        assert!(
            score.top1_share() >= top1 && score.top3_share() >= top3,
            "{file}: {}\n{:#?}",
            score.line(),
            score.misses
        );
        assert!(
            score.said_nothing + answered_unanswerable >= score.unanswerable,
            "{file}: {:#?}",
            score.misses
        );
    }
}

/// More documents hold every word of the question than are read: those holding more of it
/// in their title are read first, then the newest, so an old task named for the question is
/// not lost behind forty newer ones that merely mention it.
#[test]
fn when_more_documents_tie_than_are_read_the_title_and_then_recency_choose() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = RecallStore::open(&dir.path().join("recall.sqlite")).unwrap();
    let named = document(
        "t-named",
        "Renew the wildcard certificate",
        "certbot renew with the dns challenge",
        NOW - 40 * DAY_MS,
    );
    store.put(&[named]).unwrap();
    let mentions: Vec<Document> = (0..40)
        .map(|n| {
            document(
                &format!("t-{n}"),
                &format!("Weekly chores {n}"),
                "checked the certificate expiry and the backups",
                NOW - n * 3_600_000,
            )
        })
        .collect();
    store.put(&mentions).unwrap();
    let found = store.search(&search("certificate", 0.0)).unwrap();
    assert_eq!(
        keys(&found.results)[0],
        "t-named",
        "{:?}",
        keys(&found.results)
    );
    // Without the title, the newest of those holding the word are the ones read.
    let found = store.search(&search("expiry", 0.0)).unwrap();
    assert_eq!(found.results.len(), 3);
    for result in &found.results {
        assert!(result.document.end_ms >= NOW - 40 * 3_600_000);
    }
}

#[test]
fn a_word_indexed_after_a_search_corrects_the_next_ones_typo() {
    let (_dir, mut store) =
        store_holding(&[document("t-1", "Rotate the keys", "gpg keys rotated", NOW)]);
    // No word of the index starts with z: nothing to read "zookeepr" as.
    let found = store.search(&search("zookeepr", 0.0)).unwrap();
    assert_eq!(found.unmatched, ["zookeepr"]);
    // The words kept from that search's look at the index are not the index's any more.
    let session = Document {
        source: Source::Terminal,
        ..document("t-2", "Restart zookeeper", "zookeeper came back", NOW)
    };
    store.put(&[session]).unwrap();
    let found = store.search(&search("zookeepr", 0.0)).unwrap();
    assert_eq!(found.read_as, ["zookeepr → zookeeper"]);
    assert_eq!(keys(&found.results), ["t-2"]);
    // Nor are they once a session is forgotten.
    store
        .forget(&Forget {
            task_id: Some("t-2".into()),
            ..Forget::default()
        })
        .unwrap();
    let found = store.search(&search("zookeepr", 0.0)).unwrap();
    assert_eq!(found.unmatched, ["zookeepr"]);
}

/// A symptom said in everyday words finds the task that names it technically: "time sync"
/// is the NTP daemon's work, "eating memory" a leak, and "keeps" only frames the question.
#[test]
fn a_symptom_in_everyday_words_finds_its_technical_name() {
    let (_dir, store) = store_holding(&[
        document(
            "t-chrony",
            "Clocks drift on the hypervisor hosts",
            "replaced ntpd with chrony on the four hosts",
            NOW,
        ),
        document(
            "t-leak",
            "Memory leak in the websocket gateway",
            "the disconnect handler never removed the listeners",
            NOW,
        ),
        document("t-swap", "Add swap to the VPS", "fallocate, mkswap", NOW),
    ]);
    for (question, answer) in [
        ("time sync is off on the hypervisors", "t-chrony"),
        ("the websocket server keeps eating memory", "t-leak"),
    ] {
        let found = store.search(&search(question, 0.0)).unwrap();
        assert_eq!(keys(&found.results)[..1], [answer], "{question}");
        assert!(!found.results[0].weak, "{question}: {:?}", found.results);
    }
}

/// A question asking for a figure finds the command whose output shows it before the task
/// that ran the command; one asking whether something came to pass finds the wait that
/// watched it; any other finds the task.
#[test]
fn what_a_question_asks_for_says_which_record_answers_it_first() {
    let of = |key: &str, source: Source, title: &str, body: &str| Document {
        source,
        ..document(key, title, body, NOW)
    };
    let (_dir, store) = store_holding(&[
        of(
            "task:redis",
            Source::Task,
            "Redis evicts keys under memory pressure",
            "evicted keys climbing; set maxmemory 6gb and allkeys-lru",
        ),
        of(
            "terminal:stats",
            Source::Terminal,
            "redis-cli INFO stats",
            "evicted_keys:184223\nkeyspace_hits:91234411",
        ),
        of(
            "wait:evictions",
            Source::Wait,
            "pty:redis-cli INFO stats — evicted keys stop growing",
            "evicted_keys held at 184223 for 30 minutes",
        ),
    ]);
    for (question, answer) in [
        ("how many redis keys were evicted", "terminal:stats"),
        ("did the redis evictions stop", "wait:evictions"),
        ("why was redis evicting keys", "task:redis"),
    ] {
        let found = store.search(&search(question, 0.0)).unwrap();
        assert_eq!(
            keys(&found.results)[0],
            answer,
            "{question}: {:?}",
            found.results
        );
    }
}

/// A wait or a command run for a task answers the outcome or the figure its task is about,
/// though its own text names neither ("md0 [UU]" of a RAID resync); a question about how
/// it was done still finds the task, and a wait of no task gains nothing.
#[test]
fn a_wait_or_command_answers_for_the_task_it_served() {
    let under = |key: &str, source: Source, task: Option<&str>, title: &str, body: &str| Document {
        source,
        task_id: task.map(str::to_owned),
        ..document(key, title, body, NOW - DAY_MS)
    };
    let documents = [
        document(
            "raid",
            "Backup server: a failing disk in the mirror",
            "swapped sda, mdadm --add the new disk; the resync ran overnight",
            NOW - DAY_MS,
        ),
        under(
            "wait:mdstat",
            Source::Wait,
            Some("raid"),
            "pty:s-3 — cat /proc/mdstat shows [UU]",
            "smart_wait resolved: md0 : active raid1 sda1[2] sdb1[1] [UU]",
        ),
        under(
            "terminal:smart",
            Source::Terminal,
            Some("raid"),
            "smartctl -A /dev/sda",
            "Reallocated_Sector_Ct 212",
        ),
        under(
            "wait:other",
            Source::Wait,
            None,
            "file:/var/log/backup.log — the backup finishes",
            "smart_wait resolved: backup finished",
        ),
    ];
    let (_dir, store) = store_holding(&documents);
    for (question, answer) in [
        ("did the raid resync finish", "wait:mdstat"),
        (
            "how many sectors did the failing disk have",
            "terminal:smart",
        ),
        ("how did I swap the failing disk", "raid"),
        // A bare phrase names a topic: the task, before the command whose name and output
        // hold its words.
        ("reallocated sectors on sda", "raid"),
        // Though only the command holds its word, the task it was run for is found.
        ("smartctl", "raid"),
    ] {
        let found = store.search(&search(question, 0.0)).unwrap();
        assert_eq!(keys(&found.results)[0], answer, "{question}: {found:?}");
    }
    // Narrowed to tasks, the task's wait is not brought in.
    let tasks = Search {
        source: Some(Source::Task),
        ..search("did the raid resync finish", 0.0)
    };
    assert_eq!(keys(&store.search(&tasks).unwrap().results), ["raid"]);
    // Narrowed to terminal sessions, the command's task is not brought in.
    let commands = Search {
        source: Some(Source::Terminal),
        ..search("smartctl", 0.0)
    };
    let found = store.search(&commands).unwrap();
    assert_eq!(keys(&found.results), ["terminal:smart"]);
    // Unlinked, the wait holds only its own words, and the task comes first.
    let unlinked: Vec<Document> = (documents.iter().cloned())
        .map(|document| match document.source {
            Source::Wait => Document {
                task_id: None,
                ..document
            },
            _ => document,
        })
        .collect();
    let (_dir, store) = store_holding(&unlinked);
    let found = store
        .search(&search("did the raid resync finish", 0.0))
        .unwrap();
    assert_eq!(keys(&found.results)[0], "raid", "{found:?}");
}

/// "Why not …" asks what a plan decided against: the cancelled task comes before one that
/// holds as much of the question and was done.
#[test]
fn why_not_finds_the_plan_that_was_dropped() {
    let (_dir, store) = store_holding(&[
        document(
            "t-driver",
            "The imaging sensor stopped working after the update",
            "1. Reinstalled the sensor driver of the x-ray unit\n2. Its AI reading of x-rays checked",
            NOW - DAY_MS,
        ),
        document(
            "t-ai",
            "Automated reading of images",
            "1. Trialled AI reading of x-rays\nStatus changed: active → cancelled",
            NOW - 30 * DAY_MS,
        ),
    ]);
    for question in ["why not ai for x-rays", "why didn't we do ai for x-rays"] {
        let found = store.search(&search(question, 0.0)).unwrap();
        assert_eq!(keys(&found.results)[0], "t-ai", "{question}: {found:?}");
    }
    // However strongly recency counts, the plan dropped a month ago is the answer.
    let found = store.search(&search("why not ai for x-rays", 1.0)).unwrap();
    assert_eq!(keys(&found.results)[0], "t-ai", "{found:?}");
    let found = store.search(&search("ai for x-rays", 0.0)).unwrap();
    assert_eq!(keys(&found.results)[0], "t-driver", "{found:?}");
}

/// "why didn't we build an app" of a cancelled loyalty app holds half the question, and
/// what it lacks nothing indexed holds: on any other question that is weak, but a plan
/// dropped, asked why, is seldom named as the question names it.
#[test]
fn a_plan_dropped_asked_why_is_an_answer_though_it_lacks_the_verb() {
    let (_dir, store) = store_holding(&[
        document(
            "loyalty",
            "Loyalty app for regulars",
            "1. Quoted at 4,000\nStatus changed: active → cancelled",
            NOW - 40 * DAY_MS,
        ),
        document("cards", "Card reader drops", "1. A second reader", NOW),
    ]);
    let found = store
        .search(&search("why didnt we build an app", 0.5))
        .unwrap();
    assert_eq!(keys(&found.results), ["loyalty"], "{found:?}");
    assert!(!found.results[0].weak, "{found:?}");
    let found = store.search(&search("build an app", 0.5)).unwrap();
    assert!(found.results[0].weak, "not asked why: {found:?}");
}

/// A phrase is read as the other phrases written as the same word, as that word itself:
/// "card machine" holds "card reader" as "pos" does, so a symptom beside it still leaves
/// the record holding enough of the question to be an answer.
#[test]
fn phrases_of_one_word_are_synonyms_of_each_other() {
    let (_dir, store) = store_holding(&[document(
        "readers",
        "Queues when the card reader drops",
        "1. A second reader on its own SIM",
        NOW,
    )]);
    let found = store
        .search(&search("card machine not working", 0.5))
        .unwrap();
    assert_eq!(keys(&found.results), ["readers"], "{found:?}");
    assert!(!found.results[0].weak, "{found:?}");
}

/// A word the question names holds a record that writes it, or a form of it, before one
/// that only writes a longer word it starts: "modes" answers "dark mode" before "model".
#[test]
fn a_form_of_a_word_counts_more_than_a_longer_word_it_starts() {
    let (_dir, store) = store_holding(&[
        document(
            "model",
            "Invoices in the EN 16931 model",
            "1. Dark backgrounds",
            NOW - DAY_MS,
        ),
        document(
            "modes",
            "Colour modes for the invoices",
            "1. Dark backgrounds",
            NOW - DAY_MS,
        ),
    ]);
    let found = store.search(&search("dark mode invoices", 0.5)).unwrap();
    assert_eq!(keys(&found.results)[0], "modes", "{found:?}");
    assert!(found.results[0].confidence > found.results[1].confidence);
}

/// Whether something still holds is answered by the command that printed it as well as by
/// a wait, though only its task names what it checked.
#[test]
fn a_command_run_for_a_task_answers_whether_something_still_holds() {
    let under = |key: &str, source: Source, title: &str, body: &str| Document {
        source,
        task_id: Some("duplicates".to_owned()),
        ..document(key, title, body, NOW - DAY_MS)
    };
    let (_dir, store) = store_holding(&[
        document(
            "duplicates",
            "Duplicate accession numbers in the collection database",
            "1. Objects imported twice\n2. A unique index on accession_no, the duplicates merged",
            NOW - DAY_MS,
        ),
        under(
            "terminal:check",
            Source::Terminal,
            "psql collections -c \"select accession_no from objects group by 1 having count(*) > 1\"",
            "(0 rows)",
        ),
        under(
            "wait:import",
            Source::Wait,
            "http:https://collections.example/api/import — the nightly import finishes",
            "smart_wait resolved: import finished",
        ),
    ]);
    let found = store
        .search(&search("are there still duplicate accession numbers", 0.0))
        .unwrap();
    assert_eq!(keys(&found.results)[0], "terminal:check", "{found:?}");
}

/// Everyday words for a setting or a symptom find what a task wrote down: Wi-Fi, dropping
/// connections, notifications, turning something off, a battery that drains.
#[test]
fn everyday_words_find_wi_fi_drops_notifications_and_switches() {
    let (_dir, store) = store_holding(&[
        document(
            "t-wifi",
            "Office Wi-Fi drops every afternoon",
            "moved the access points to channel 11",
            NOW,
        ),
        document(
            "t-sentry",
            "Cut the noise in the Sentry alerts",
            "alert rule only above 50 events an hour",
            NOW,
        ),
        document(
            "t-ssh",
            "Harden SSH on the bastion",
            "disabled password authentication and root login",
            NOW,
        ),
        document(
            "t-jwt",
            "Users get logged out every few minutes",
            "the refresh call raced with parallel requests",
            NOW,
        ),
        document(
            "t-battery",
            "MacBook battery drains overnight",
            "Power Nap woke it every 15 minutes",
            NOW,
        ),
    ]);
    for (question, answer) in [
        ("laptop loses charge while asleep", "t-battery"),
        ("people keep getting signed out", "t-jwt"),
        ("wifi keeps disconnecting", "t-wifi"),
        ("too many sentry notifications", "t-sentry"),
        ("turn off password logins on the bastion", "t-ssh"),
    ] {
        let found = store.search(&search(question, 0.0)).unwrap();
        assert_eq!(keys(&found.results)[..1], [answer], "{question}");
        assert!(!found.results[0].weak, "{question}: {:?}", found.results);
    }
}

/// A setting, a field or a class named in camel case is found by its words written plainly.
#[test]
fn an_identifier_in_camel_case_is_found_by_its_words() {
    let (_dir, store) = store_holding(&[
        document(
            "t-sshd",
            "Harden SSH on the bastion",
            "PasswordAuthentication no\nPermitRootLogin no\nAllowUsers deploy",
            NOW,
        ),
        document(
            "t-rollout",
            "Faster rollouts for the api",
            "maxSurge 50% and a readinessProbe on /healthz; HTTPServerError gone; an XMLParser",
            NOW,
        ),
    ]);
    for (question, answer) in [
        ("permit root login", "t-sshd"),
        ("max surge", "t-rollout"),
        ("readiness probe", "t-rollout"),
        ("http server error", "t-rollout"),
        ("xml parser", "t-rollout"),
    ] {
        let found = store.search(&search(question, 0.0)).unwrap();
        assert_eq!(keys(&found.results)[..1], [answer], "{question}");
        assert!(!found.results[0].weak, "{question}: {:?}", found.results);
    }
}

/// A word written with a diacritic and without it are one word, both ways, as the index's
/// tokenizer reads them: "bluthner" had found the record of a "Blüthner" and then counted
/// it as holding nothing.
#[test]
fn a_word_is_found_with_or_without_its_diacritic() {
    let (_dir, store) = store_holding(&[
        document(
            "piano",
            "Restoring the 1920s Blüthner grand",
            "new hammers and strings",
            NOW,
        ),
        document("cafe", "Menu for the cafe", "prices up by 5%", NOW),
    ]);
    for (question, answer) in [("bluthner", "piano"), ("the café menu", "cafe")] {
        let found = store.search(&search(question, 0.0)).unwrap().results;
        assert_eq!(keys(&found).first(), Some(&answer), "{question}");
        assert!(!found[0].weak, "{question}: {:?}", found[0]);
    }
}

/// "Is the cellar cold again?" asks for the state the wait on the cellar recorded as a
/// reading (11.6°C), which never says "cold": the word of the state counts half in deciding
/// weakness, as the word asking for a figure does; the thing asked about still counts whole.
#[test]
fn a_state_asked_as_it_stands_is_what_the_wait_read() {
    let wait = Document {
        source: Source::Wait,
        task_id: None,
        ..document(
            "wait:cellar",
            "shell:python sensors.py cellar --temp — the cellar is back under 13°C",
            "smart_wait resolved: cellar 11.6°C",
            NOW,
        )
    };
    let (_dir, store) = store_holding(&[wait]);
    let found = store
        .search(&search("is the cellar cold again", 0.0))
        .unwrap();
    assert_eq!(keys(&found.results), ["wait:cellar"]);
    assert!(!found.results[0].weak, "{found:?}");
    // The same word not asked as a state as it stands, and a thing nothing holds: weak.
    for question in ["cold cellar", "is the sauna cold again"] {
        let found = store.search(&search(question, 0.0)).unwrap();
        assert!(
            found.results.iter().all(|r| r.weak),
            "{question}: {found:?}"
        );
    }
}
