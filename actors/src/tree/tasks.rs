//! The Tree's task calls: registering, updating and revising through the Tasks supervisor,
//! and the reads (a listing, one task whole, its thread) straight from the Registry, each
//! with what still runs for the task (its live waits and the sessions started for it).

use ractor::RpcReplyPort;
use storage::{EventRecord, ListCursor, StatusFilter, Store, TaskId, TaskRecord, WaitRecord};

use super::Tree;
use crate::error::{CallError, from_call};
use crate::registry;
use crate::tasks::actor::not_found;
use crate::tasks::types::{
    Inventory, PlanChange, PlanUpdated, RegisterTask, RunningSession, TaskDetail, TaskListing,
    TaskUpdated, ThreadPage, UpdateTask,
};
use crate::tasks::{TASK_CALL_TIMEOUT, TaskMsg, TasksMsg};

/// The newest events an inventory looks through for wakes not taken.
const RECENT_EVENTS: usize = 500;

impl Tree {
    pub async fn register_task(&self, request: RegisterTask) -> Result<TaskRecord, CallError> {
        self.ask_tasks(|reply| TasksMsg::Register(request, reply))
            .await
    }

    /// `task_update`; a query's answer carries what still runs for the task.
    pub async fn update_task(
        &self,
        id: TaskId,
        request: UpdateTask,
    ) -> Result<TaskUpdated, CallError> {
        let lookup = id.clone();
        let mut updated = self
            .ask_tasks(|reply| TasksMsg::Forward(id, TaskMsg::Update(request, reply)))
            .await;
        if let Ok(TaskUpdated {
            report: Some(report),
            ..
        }) = &mut updated
        {
            // Before the call counts: the wakes it is told of were not taken until now.
            report.inventory = self.inventory(&lookup).await?;
        }
        self.took(lookup.as_str());
        updated
    }

    pub async fn revise_plan(
        &self,
        id: TaskId,
        change: PlanChange,
    ) -> Result<PlanUpdated, CallError> {
        self.ask_tasks(|reply| TasksMsg::Forward(id, TaskMsg::RevisePlan(change, reply)))
            .await
    }

    /// Sends a request built around a reply port to the Tasks supervisor and waits for the
    /// answer of whichever actor serves it.
    pub(super) async fn ask_tasks<T: Send + 'static>(
        &self,
        request: impl FnOnce(RpcReplyPort<Result<T, CallError>>) -> TasksMsg,
    ) -> Result<T, CallError> {
        let outcome = self
            .directory
            .tasks()?
            .call(request, Some(TASK_CALL_TIMEOUT))
            .await;
        from_call("task actor", TASK_CALL_TIMEOUT, outcome)
    }

    /// Up to `limit` tasks of the filter's statuses, most recently updated first, from
    /// where the page `after` stopped.
    pub async fn list_tasks(
        &self,
        filter: StatusFilter,
        limit: usize,
        after: Option<ListCursor>,
    ) -> Result<TaskListing, CallError> {
        let page = registry::read(&self.directory.registry()?, move |store: &Store| {
            store.list_tasks_after(&filter, limit, after.as_ref())
        })
        .await?;
        Ok(TaskListing {
            tasks: page.tasks,
            more: page.more,
        })
    }

    /// One task whole: its record, its plan revisions and the waits it launched.
    pub async fn task_detail(&self, id: TaskId) -> Result<TaskDetail, CallError> {
        let lookup = id.clone();
        let found = registry::read(&self.directory.registry()?, move |store: &Store| {
            let Some(task) = store.task(&lookup)? else {
                return Ok(None);
            };
            let revisions = store.plan_revisions(&lookup)?;
            let waits = store.waits_of_task(&lookup)?;
            let events = store.recent_events(RECENT_EVENTS)?;
            let detail = TaskDetail {
                task,
                revisions,
                waits,
                inventory: Inventory::default(),
            };
            Ok(Some((detail, events)))
        })
        .await?;
        let (mut detail, events) = found.ok_or_else(|| not_found(&id))?;
        let live = detail.waits.iter().filter(|wait| wait.is_live()).cloned();
        detail.inventory = self.inventory_with(&id, live.collect(), &events);
        self.took(id.as_str());
        Ok(detail)
    }

    /// What still runs for a task: its waits still watching and its running sessions.
    pub async fn inventory(&self, id: &TaskId) -> Result<Inventory, CallError> {
        let lookup = id.clone();
        let (waits, events) = registry::read(&self.directory.registry()?, move |store: &Store| {
            Ok((
                store.waits_of_task(&lookup)?,
                store.recent_events(RECENT_EVENTS)?,
            ))
        })
        .await?;
        let live = waits.into_iter().filter(WaitRecord::is_live).collect();
        Ok(self.inventory_with(id, live, &events))
    }

    fn inventory_with(
        &self,
        id: &TaskId,
        mut waits: Vec<WaitRecord>,
        events: &[EventRecord],
    ) -> Inventory {
        waits.sort_by_key(|wait| wait.created_at);
        let of_task: Vec<EventRecord> = events
            .iter()
            .filter(|event| event.task_id.as_ref() == Some(id))
            .cloned()
            .collect();
        let mut wakes: Vec<EventRecord> = self
            .attention
            .not_taken(&of_task)
            .into_iter()
            .cloned()
            .collect();
        wakes.reverse();
        let sessions = self
            .terminal_sessions
            .running_for(id)
            .into_iter()
            .map(|session| RunningSession {
                id: session.id.to_string(),
                command: session.command.clone(),
                step: session.link.as_ref().and_then(|link| link.step),
                started_at: session.started_at,
                last_line: session.snapshot(0).last_line(),
            })
            .collect();
        Inventory {
            waits,
            sessions,
            wakes,
            at: self.directory.now(),
        }
    }

    /// Up to `limit` messages before seq `before` (newest when `None`), oldest first.
    pub async fn thread(
        &self,
        id: TaskId,
        limit: usize,
        before: Option<u64>,
    ) -> Result<ThreadPage, CallError> {
        let lookup = id.clone();
        let (task, messages) = registry::read(&self.directory.registry()?, move |store: &Store| {
            let Some(task) = store.task(&lookup)? else {
                return Ok((None, Vec::new()));
            };
            let messages = store.thread(&lookup, before, limit)?;
            Ok((Some(task), messages))
        })
        .await?;
        let task = task.ok_or_else(|| not_found(&id))?;
        Ok(ThreadPage {
            task_id: id,
            messages,
            total: task.last_seq,
        })
    }
}
