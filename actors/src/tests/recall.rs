//! `memory_recall` beside the Recall actor: an index that holds everything recorded is
//! searched on the caller's task, even while the actor is stuck; one that is behind (a
//! commit since its catch-up, a document sent to it but not yet indexed) is never searched
//! there, so an answer never misses what was just recorded.

use std::time::Duration;

use recall::{Document, Source};

use super::{boot, deploy_request, note};
use crate::faults::ActorKind;
use crate::recall::{RecallAnswer, RecallRequest};
use crate::tasks::types::TaskName;
use crate::tree::Tree;

fn asking(query: &str) -> RecallRequest {
    RecallRequest {
        query: query.into(),
        limit: 3,
        recency_bias: 0.0,
        task_id: None,
        source: None,
    }
}

fn titles(answer: &RecallAnswer) -> Vec<&str> {
    answer
        .results
        .iter()
        .map(|ranked| ranked.document.title.as_str())
        .collect()
}

/// Far less than the actor's call timeout (a minute): an answer within it did not wait
/// for the wedged actor.
const BESIDE_THE_ACTOR: Duration = Duration::from_secs(20);

/// Asks `query` while the Recall actor is wedged; the answer once it is released, checking
/// that it did not come before (it needed the actor).
async fn asked_through_the_wedged_actor(tree: &Tree, query: &str) -> RecallAnswer {
    let mut asked = std::pin::pin!(tree.recall(asking(query)));
    let early = tokio::time::timeout(Duration::from_millis(300), &mut asked).await;
    assert!(
        early.is_err(),
        "answered from an index that was behind: {early:?}"
    );
    tree.faults().release();
    asked.await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_current_index_is_searched_beside_the_actor_and_one_behind_through_it() {
    let fixture = boot().await;
    let tree = &fixture.tree;
    tree.register_task(deploy_request()).await.unwrap();
    // The first search catches up through the actor.
    let first = tree.recall(asking("deploy coursefolio")).await.unwrap();
    assert_eq!(titles(&first), ["Deploy coursefolio to production"]);

    // Caught up: a wedged actor does not hold the search up.
    tree.faults().wedge(ActorKind::Recall);
    let beside = tokio::time::timeout(BESIDE_THE_ACTOR, tree.recall(asking("coursefolio")))
        .await
        .expect("answered beside the wedged actor")
        .unwrap();
    assert_eq!(titles(&beside), ["Deploy coursefolio to production"]);
    assert_eq!(beside.indexed[0], (Source::Task, 1));

    // A commit since: the search waits for the actor to catch up, and finds what it added.
    let mut renewal = deploy_request();
    renewal.name = TaskName::new("Renew the TLS certificate").unwrap();
    let renew = tree.register_task(renewal).await.unwrap().id;
    tree.update_task(renew, note("certbot renewed it"))
        .await
        .unwrap();
    let behind = asked_through_the_wedged_actor(tree, "certbot").await;
    assert_eq!(titles(&behind), ["Renew the TLS certificate"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_sent_to_the_index_is_found_by_the_next_search() {
    let fixture = boot().await;
    let tree = &fixture.tree;
    tree.recall(asking("anything")).await.unwrap();
    tree.faults().wedge(ActorKind::Recall);
    let session = Document {
        key: "term:s-1".into(),
        source: Source::Terminal,
        task_id: None,
        title: "make widgets".into(),
        body: "error: widget 7 is bent".into(),
        start_ms: 1,
        end_ms: 2,
        steps: Vec::new(),
        summary: "a session".into(),
        app: None,
        step: None,
        frames: Vec::new(),
    };
    crate::recall::put(tree.directory(), vec![session]);
    let found = asked_through_the_wedged_actor(tree, "bent widget").await;
    assert_eq!(titles(&found), ["make widgets"]);
    // Indexed: the next search runs beside the actor again.
    tree.faults().wedge(ActorKind::Recall);
    let beside = tokio::time::timeout(BESIDE_THE_ACTOR, tree.recall(asking("widget")))
        .await
        .expect("answered beside the wedged actor")
        .unwrap();
    assert_eq!(titles(&beside), ["make widgets"]);
    tree.faults().release();
}
