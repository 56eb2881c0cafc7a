//! Params of the task tools: task_register, task_update, task_plan_update, task_list,
//! task_thread, task_get.

use std::collections::BTreeSet;

use actors::CallError;
use actors::tasks::types::{
    Metadata, Plan, PlanChange, RegisterTask, TaskName, UpdateTask, bounded_text,
};
use serde::Deserialize;
use serde_json::Value;
use storage::{ListCursor, Status, StatusFilter, TaskId};

use super::{STATUS_HINT, limit, max_bytes, non_blank, optional_key, status, task_id};
use crate::tools::limits::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskRegisterParams {
    name: String,
    plan: Vec<String>,
    #[serde(default)]
    metadata: Option<Value>,
    #[serde(default)]
    session_key: Option<String>,
    #[serde(default)]
    agent_id: Option<String>,
    /// Set by clients that know the agent's session (`lookout mcp` under Claude Code), not
    /// by agents: it is not in the tool schema.
    #[serde(default)]
    origin: Option<OriginParams>,
}

/// Where a task is registered from: `{"session_id": "…", "cwd": "/abs/path"}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OriginParams {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

impl OriginParams {
    fn validate(self) -> Result<Option<storage::Origin>, CallError> {
        let origin = storage::Origin {
            session_id: optional_key("origin.session_id", self.session_id)?,
            cwd: self
                .cwd
                .map(|cwd| bounded_text("origin.cwd", &cwd, MAX_ORIGIN_CWD_CHARS))
                .transpose()?,
        };
        Ok((origin != storage::Origin::default()).then_some(origin))
    }
}

impl TaskRegisterParams {
    pub fn validate(self) -> Result<RegisterTask, CallError> {
        Ok(RegisterTask {
            name: TaskName::new(&self.name)?,
            plan: Plan::new(&self.plan)?,
            metadata: match &self.metadata {
                None => Metadata::empty(),
                // The strict function-tool form: the object written as a string of JSON.
                Some(Value::String(text)) if text.trim().is_empty() => Metadata::empty(),
                Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                    Ok(value) if value.is_object() => Metadata::new(&value)?,
                    _ => {
                        return Err(CallError::invalid(
                            "metadata is a string that does not hold a JSON object",
                            "pass an object, {\"repo\": \"coursefolio\"}, or (strict function \
                             tools) that object written as a string, \"{\\\"repo\\\": \\\"coursefolio\\\"}\"",
                        ));
                    }
                },
                Some(value) => Metadata::new(value)?,
            },
            session_key: optional_key("session_key", self.session_key)?,
            agent_id: optional_key("agent_id", self.agent_id)?,
            origin: self
                .origin
                .map(OriginParams::validate)
                .transpose()?
                .flatten(),
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskUpdateParams {
    task_id: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    plan: Option<Vec<String>>,
    #[serde(default)]
    plan_reason: Option<String>,
    #[serde(default)]
    completed_steps: Option<Vec<u32>>,
    #[serde(default)]
    current_step: Option<u32>,
    #[serde(default)]
    max_bytes: Option<u64>,
}

impl TaskUpdateParams {
    /// The task, the update, and the byte budget of the query answer.
    pub fn validate(self) -> Result<(TaskId, UpdateTask, usize), CallError> {
        let id = task_id(&self.task_id)?;
        if self.max_bytes.is_some() && self.query.is_none() {
            return Err(CallError::invalid(
                "max_bytes was given without query",
                "max_bytes sizes the answer to a query: pass query with it (\"where am I?\"), or leave max_bytes out",
            ));
        }
        let budget = max_bytes(self.max_bytes, DEFAULT_QUERY_BYTES, MAX_ANSWER_BYTES)?;
        if self.plan_reason.is_some() && self.plan.is_none() {
            return Err(CallError::invalid(
                "plan_reason was given without plan",
                "pass the new plan with it, or use task_plan_update(task_id, new_plan, reason)",
            ));
        }
        let request = UpdateTask {
            message: self
                .message
                .as_deref()
                .map(|m| non_blank("message", m, MAX_MESSAGE_CHARS))
                .transpose()?,
            query: self
                .query
                .as_deref()
                .map(|q| non_blank("query", q, MAX_QUERY_CHARS))
                .transpose()?,
            status: self.status.as_deref().map(status).transpose()?,
            plan: match self.plan {
                Some(steps) => Some(PlanChange {
                    new_plan: Plan::new(&steps)?,
                    reason: self
                        .plan_reason
                        .map(|r| bounded_text("plan_reason", &r, MAX_REASON_CHARS))
                        .transpose()?,
                }),
                None => None,
            },
            completed_steps: self
                .completed_steps
                .unwrap_or_default()
                .into_iter()
                .collect::<BTreeSet<u32>>(),
            current_step: self.current_step,
        };
        if !request.changes_something() && request.query.is_none() {
            return Err(CallError::invalid(
                "task_update needs at least one of message, query, status or plan",
                "report progress with message (\"Step 2 done — pushed v1.2.3\"), ask where you are with \
                 query (\"where am I?\"), or set status (\"completed\")",
            ));
        }
        Ok((id, request, budget))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskPlanUpdateParams {
    task_id: String,
    new_plan: Vec<String>,
    #[serde(default)]
    reason: Option<String>,
}

impl TaskPlanUpdateParams {
    pub fn validate(self) -> Result<(TaskId, PlanChange), CallError> {
        Ok((
            task_id(&self.task_id)?,
            PlanChange {
                new_plan: Plan::new(&self.new_plan)?,
                reason: self
                    .reason
                    .map(|r| bounded_text("reason", &r, MAX_REASON_CHARS))
                    .transpose()?,
            },
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskListParams {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    cursor: Option<String>,
    #[serde(default)]
    max_bytes: Option<u64>,
}

/// A validated `task_list`.
pub struct ListRequest {
    pub filter: StatusFilter,
    pub limit: usize,
    pub after: Option<ListCursor>,
    pub max_bytes: usize,
}

impl TaskListParams {
    pub fn validate(self) -> Result<ListRequest, CallError> {
        let after = match self.cursor.as_deref().map(str::trim) {
            None => None,
            Some(text) => Some(ListCursor::parse(text).ok_or_else(|| {
                CallError::invalid(
                    format!("cursor '{text}' is not one task_list gave"),
                    "pass the next_cursor of the previous task_list answer as it was, or leave cursor out for the first page",
                )
            })?),
        };
        let (filter, limit) = self.filter_and_limit()?;
        Ok(ListRequest {
            filter,
            limit,
            after,
            max_bytes: max_bytes(self.max_bytes, DEFAULT_READ_BYTES, MAX_ANSWER_BYTES)?,
        })
    }

    fn filter_and_limit(&self) -> Result<(StatusFilter, usize), CallError> {
        let filter = match self.status.as_deref().map(str::trim) {
            None => StatusFilter::Only(Status::Active),
            Some(text) if text.eq_ignore_ascii_case("all") => StatusFilter::All,
            Some(text) => StatusFilter::Only(Status::parse(text).ok_or_else(|| {
                CallError::invalid(
                    format!("invalid status '{text}'"),
                    format!("{STATUS_HINT}, or \"all\""),
                )
            })?),
        };
        Ok((filter, limit(self.limit, DEFAULT_LIST_LIMIT)?))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskThreadParams {
    task_id: String,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    before: Option<u64>,
    #[serde(default)]
    max_bytes: Option<u64>,
}

/// A validated `task_thread`.
pub struct ThreadRequest {
    pub task_id: TaskId,
    pub limit: usize,
    pub before: Option<u64>,
    pub max_bytes: usize,
}

impl TaskThreadParams {
    pub fn validate(self) -> Result<ThreadRequest, CallError> {
        Ok(ThreadRequest {
            task_id: task_id(&self.task_id)?,
            limit: limit(self.limit, DEFAULT_THREAD_LIMIT)?,
            before: match self.before {
                Some(0) => {
                    return Err(CallError::invalid(
                        "before is 0, which names no message",
                        "before is a message seq and seqs start at 1: pass the seq of the oldest \
                         message you have to page back, or leave before out for the newest",
                    ));
                }
                before => before,
            },
            max_bytes: max_bytes(self.max_bytes, DEFAULT_READ_BYTES, MAX_ANSWER_BYTES)?,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskGetParams {
    task_id: String,
    #[serde(default)]
    max_bytes: Option<u64>,
}

impl TaskGetParams {
    pub fn validate(self) -> Result<(TaskId, usize), CallError> {
        Ok((
            task_id(&self.task_id)?,
            max_bytes(self.max_bytes, DEFAULT_TASK_GET_BYTES, MAX_TASK_GET_BYTES)?,
        ))
    }
}
