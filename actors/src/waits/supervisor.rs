//! The Waits supervisor: one WaitActor per live wait.
//!
//! At start it resumes every wait that was watching when the daemon stopped (one whose
//! deadline passed meanwhile times out at once and says so). The resumes run in the wait
//! actors, after the tree has started: the daemon serves at once, however many waits there
//! are to settle, and a call for a wait is answered once that wait has resumed (its actor
//! reads its mailbox in order). It routes requests by wait id,
//! starts an actor to revive an ended wait, answers for ended waits from storage, and restarts
//! a WaitActor that panics from its stored record.

use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use storage::{Counter, Store, WaitId};

use crate::directory::Directory;
use crate::error::CallError;
use crate::faults::ActorKind;
use crate::keyed::{KeyedChildren, Route};
use crate::policy::{Decision, RestartHistory, RestartPolicy};
use crate::registry;
use crate::waits::actor::{WaitActor, WaitArgs, WaitMsg, not_found};
use crate::waits::feed::FeedStats;
use crate::waits::types::{NewWait, WaitSettings, WaitUpdate, WaitView};

/// How long a request for a wait waits for its actor.
pub const WAIT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long `wait_status` waits for each live wait.
const STATUS_TIMEOUT: Duration = Duration::from_secs(5);

type ViewReply = RpcReplyPort<Result<WaitView, CallError>>;

pub enum WaitsMsg {
    Create(NewWait, ViewReply),
    Update(WaitId, WaitUpdate, ViewReply),
    Cancel(WaitId, Option<String>, ViewReply),
    /// One wait (live or ended), or every live wait.
    Status(
        Option<WaitId>,
        RpcReplyPort<Result<Vec<WaitView>, CallError>>,
    ),
    /// From a WaitActor whose wait ended or never began.
    Retire(WaitId, ActorId),
    Stats(RpcReplyPort<WaitsStats>),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaitsStats {
    pub live_waits: usize,
    pub wait_actor_failures: u64,
    /// Targets watched now (waits on one target share its feed) and their captures.
    pub feeds: FeedStats,
}

pub struct WaitsSupervisor;

pub struct WaitsArgs {
    pub directory: Directory,
    pub settings: Arc<WaitSettings>,
    pub policy: RestartPolicy,
}

pub struct WaitsState {
    directory: Directory,
    settings: Arc<WaitSettings>,
    policy: RestartPolicy,
    history: RestartHistory,
    next_sequence: u64,
    /// Where this database's ids start (`Counter::IdSeed`).
    id_seed: u64,
    children: KeyedChildren<WaitId, WaitMsg>,
    failures: u64,
}

impl Actor for WaitsSupervisor {
    type Msg = WaitsMsg;
    type State = WaitsState;
    type Arguments = WaitsArgs;

    /// Starts an actor for every wait that was watching and tells it to resume; the tree
    /// answers meanwhile (those whose deadline passed time out as their actors get to it).
    async fn pre_start(
        &self,
        myself: ActorRef<WaitsMsg>,
        args: WaitsArgs,
    ) -> Result<WaitsState, ActorProcessingErr> {
        let registry = args.directory.registry()?;
        let (last, id_seed) = registry::read(&registry, |store: &Store| {
            Ok((
                store.counter(Counter::WaitSequence)?,
                store.counter(Counter::IdSeed)?,
            ))
        })
        .await?;
        let live = registry::read(&registry, |store: &Store| store.live_waits()).await?;
        let mut state = WaitsState {
            directory: args.directory,
            settings: args.settings,
            policy: args.policy,
            history: RestartHistory::default(),
            next_sequence: last + 1,
            id_seed,
            children: KeyedChildren::default(),
            failures: 0,
        };
        if !live.is_empty() {
            tracing::info!(waits = live.len(), "resuming the waits that were watching");
        }
        for record in live {
            match spawn_child(&myself, &mut state, record.id.clone()).await {
                Ok(child) => {
                    let _ = child.cast(WaitMsg::Resume(None));
                }
                Err(error) => tracing::error!(wait = %record.id, %error, "cannot resume a wait"),
            }
        }
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<WaitsMsg>,
        msg: WaitsMsg,
        state: &mut WaitsState,
    ) -> Result<(), ActorProcessingErr> {
        state.directory.faults().check(ActorKind::Waits);
        match msg {
            WaitsMsg::Create(new, reply) => {
                if let Err(error) = room_for_one_more(state) {
                    let _ = reply.send(Err(error));
                    return Ok(());
                }
                let sequence = state.next_sequence;
                state.next_sequence += 1;
                let id =
                    WaitId::from_sequence(storage::model::seeded_wait(sequence, state.id_seed));
                match spawn_child(&myself, state, id).await {
                    Ok(child) => {
                        let _ = child.cast(WaitMsg::Create(new, sequence, reply));
                    }
                    Err(error) => {
                        let _ = reply.send(Err(error));
                    }
                }
            }
            WaitsMsg::Update(id, update, reply) => {
                deliver(&myself, state, id, WaitMsg::Update(update, reply)).await
            }
            WaitsMsg::Cancel(id, reason, reply) => {
                deliver(&myself, state, id, WaitMsg::Cancel(reason, reply)).await
            }
            WaitsMsg::Status(Some(id), reply) => {
                let forwarded = WaitMsg::Status(status_port(
                    reply,
                    state.directory.clone(),
                    state.settings.clone(),
                    id.clone(),
                ));
                deliver(&myself, state, id, forwarded).await;
            }
            WaitsMsg::Status(None, reply) => {
                let live: Vec<ActorRef<WaitMsg>> = state
                    .children
                    .live()
                    .map(|(_, child)| child.clone())
                    .collect();
                tokio::spawn(async move {
                    let mut views = Vec::with_capacity(live.len());
                    for child in live {
                        if let Ok(ractor::rpc::CallResult::Success(view)) =
                            child.call(WaitMsg::Status, Some(STATUS_TIMEOUT)).await
                            && view.record.is_live()
                        {
                            views.push(view);
                        }
                    }
                    views.sort_by_key(|view| view.record.created_at);
                    let _ = reply.send(Ok(views));
                });
            }
            WaitsMsg::Retire(id, actor) => state.children.retire(&id, actor),
            WaitsMsg::Stats(reply) => {
                let _ = reply.send(WaitsStats {
                    live_waits: state.children.len(),
                    wait_actor_failures: state.failures,
                    feeds: state.settings.feeds.stats(),
                });
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<WaitsMsg>,
        event: SupervisionEvent,
        state: &mut WaitsState,
    ) -> Result<(), ActorProcessingErr> {
        match event {
            SupervisionEvent::ActorTerminated(cell, _, _) => {
                if let Some((id, held)) = state.children.gone(cell.get_id()) {
                    for msg in held {
                        deliver(&myself, state, id.clone(), msg).await;
                    }
                }
            }
            SupervisionEvent::ActorFailed(cell, error) => {
                let Some((id, held)) = state.children.gone(cell.get_id()) else {
                    return Ok(());
                };
                tracing::error!(wait = %id, %error, "wait actor failed; resuming it from storage");
                state.failures += 1;
                if let Decision::GiveUp { failures, window } = state
                    .policy
                    .on_failure(&mut state.history, state.directory.now().as_millis())
                {
                    return Err(format!(
                        "{failures} wait actor failures within {}s; giving up",
                        window.as_secs()
                    )
                    .into());
                }
                // A wait that was watching goes on from its stored record.
                if let Ok(child) = spawn_child(&myself, state, id.clone()).await {
                    let _ = child.cast(WaitMsg::Resume(None));
                }
                for msg in held {
                    deliver(&myself, state, id.clone(), msg).await;
                }
            }
            SupervisionEvent::ActorStarted(_) | SupervisionEvent::ProcessGroupChanged(_) => {}
        }
        Ok(())
    }
}

/// Routes a request to the wait's actor. A wait with no actor has ended (or never was):
/// `Update` starts one to revive it; `Cancel` and `Status` are answered from storage.
/// Whether one more wait may watch: at most `[wait] max_live_waits` do at once.
fn room_for_one_more(state: &WaitsState) -> Result<(), CallError> {
    let max = state.settings.max_live;
    if state.children.len() < max {
        return Ok(());
    }
    Err(CallError::conflict(
        format!("{max} waits are watching already, as many as this daemon keeps at once"),
        "cancel waits you no longer need (wait_status with no wait_id lists them; wait_cancel \
         ends one), or raise [wait] max_live_waits in the config",
    ))
}

async fn deliver(myself: &ActorRef<WaitsMsg>, state: &mut WaitsState, id: WaitId, msg: WaitMsg) {
    let Route::Spawn(msg) = state.children.route(&id, msg) else {
        return;
    };
    match msg {
        WaitMsg::Update(_, reply) if let Err(error) = room_for_one_more(state) => {
            let _ = reply.send(Err(error));
        }
        WaitMsg::Update(update, reply) => match spawn_child(myself, state, id).await {
            Ok(child) => {
                let _ = child.cast(WaitMsg::Revive(update, reply));
            }
            Err(error) => {
                let _ = reply.send(Err(error));
            }
        },
        WaitMsg::Cancel(_, reply) => {
            let directory = state.directory.clone();
            let settings = state.settings.clone();
            tokio::spawn(async move {
                let outcome = stored_view(&directory, &settings, &id)
                    .await
                    .map(|mut view| {
                        view.message = format!(
                            "Wait {id} had already ended ({}); nothing to cancel.",
                            view.record.state.as_str()
                        );
                        view
                    });
                let _ = reply.send(outcome);
            });
        }
        WaitMsg::Status(reply) => {
            // The port was built by `status_port`: dropping it answers from storage.
            drop(reply);
        }
        // Only the messages above are routed by id.
        _ => {}
    }
}

/// A status port that, if no live actor answers it, answers from storage instead.
fn status_port(
    reply: RpcReplyPort<Result<Vec<WaitView>, CallError>>,
    directory: Directory,
    settings: Arc<WaitSettings>,
    id: WaitId,
) -> RpcReplyPort<WaitView> {
    let (port, answered) = tokio::sync::oneshot::channel::<WaitView>();
    tokio::spawn(async move {
        let outcome = match answered.await {
            Ok(view) => Ok(vec![view]),
            Err(_) => stored_view(&directory, &settings, &id)
                .await
                .map(|view| vec![view]),
        };
        let _ = reply.send(outcome);
    });
    port.into()
}

async fn stored_view(
    directory: &Directory,
    settings: &WaitSettings,
    id: &WaitId,
) -> Result<WaitView, CallError> {
    let lookup = id.clone();
    let found = registry::read(&directory.registry()?, move |store: &Store| {
        store.wait(&lookup)
    })
    .await?;
    let record = found.ok_or_else(|| not_found(id))?;
    Ok(WaitView {
        reading: settings.reading_view(&record),
        record,
        now: directory.now(),
        message: String::new(),
    })
}

async fn spawn_child(
    myself: &ActorRef<WaitsMsg>,
    state: &mut WaitsState,
    id: WaitId,
) -> Result<ActorRef<WaitMsg>, CallError> {
    let args = WaitArgs {
        id: id.clone(),
        directory: state.directory.clone(),
        settings: state.settings.clone(),
    };
    let (child, _) = Actor::spawn_linked(None, WaitActor, args, myself.get_cell())
        .await
        .map_err(|error| {
            CallError::internal(
                format!("cannot start the wait actor: {error}"),
                "retry the call",
            )
        })?;
    state.children.insert(id, child.clone());
    Ok(child)
}
