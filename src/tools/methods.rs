//! Method dispatch: a method name and its params in, a JSON result or an `RpcError` out.
//!
//! Shared by the socket server and the harness (the MCP bridge and `call --function-call`
//! reach it through the socket), so every way in reaches the same code with the same
//! validation.

use std::sync::Arc;

use actors::Tree;
use recall::edit_distance;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::jsonrpc::{RpcError, codes};
use crate::tools::catalogue;
use crate::tools::params::{
    MemoryRecallParams, RecallForgetParams, RecallPauseParams, SmartWaitParams, TaskGetParams,
    TaskListParams, TaskPlanUpdateParams, TaskRegisterParams, TaskThreadParams, TaskUpdateParams,
    WaitCancelParams, WaitStatusParams, WaitUpdateParams, decode,
};
use crate::tools::params::{TermReadParams, TermSendParams, TermStartParams, TermStopParams};
use crate::tools::spine::Method;
use crate::tools::wire;
use crate::tools::wire::status::DaemonInfo;

pub struct Methods {
    tree: Arc<Tree>,
    info: DaemonInfo,
}

impl Methods {
    pub fn new(tree: Arc<Tree>, info: DaemonInfo) -> Self {
        Self { tree, info }
    }

    pub fn tree(&self) -> &Arc<Tree> {
        &self.tree
    }

    /// Answers the method called `name`: an unknown name is refused with the closest one.
    pub async fn call(&self, name: &str, params: Value) -> Result<Output, RpcError> {
        let method = Method::named(name).ok_or_else(|| unknown_method(name))?;
        self.answer(method, params).await
    }

    /// One arm per method of the spine, so a method without a handler does not build.
    pub async fn answer(&self, method: Method, params: Value) -> Result<Output, RpcError> {
        let tree = &self.tree;
        let value = match method {
            Method::TaskRegister => {
                let request = decode::<TaskRegisterParams>(method, params)?.validate()?;
                Ok(wire::registered(&tree.register_task(request).await?))
            }
            Method::TaskUpdate => {
                let (id, request, max_bytes) =
                    decode::<TaskUpdateParams>(method, params)?.validate()?;
                Ok(wire::updated(
                    &tree.update_task(id, request).await?,
                    max_bytes,
                ))
            }
            Method::TaskPlanUpdate => {
                let (id, change) = decode::<TaskPlanUpdateParams>(method, params)?.validate()?;
                Ok(wire::plan_updated(&tree.revise_plan(id, change).await?))
            }
            Method::TaskList => {
                let request = decode::<TaskListParams>(method, params)?.validate()?;
                let listing = tree
                    .list_tasks(request.filter.clone(), request.limit, request.after)
                    .await?;
                Ok(wire::task_list(
                    &listing,
                    &request.filter,
                    request.limit,
                    request.max_bytes,
                ))
            }
            Method::TaskThread => {
                let request = decode::<TaskThreadParams>(method, params)?.validate()?;
                let page = tree
                    .thread(request.task_id, request.limit, request.before)
                    .await?;
                Ok(wire::thread(&page, request.max_bytes))
            }
            Method::TaskGet => {
                let (id, max_bytes) = decode::<TaskGetParams>(method, params)?.validate()?;
                Ok(wire::task_detail(&tree.task_detail(id).await?, max_bytes))
            }
            Method::MemoryRecall => {
                let request = decode::<MemoryRecallParams>(method, params)?.validate()?;
                // The recorder's state (what the message says of screen history) is asked
                // beside the search, not after it.
                let (answer, recorder) =
                    tokio::join!(tree.recall(request.clone()), tree.recorder_status());
                let written = wire::recalled(&answer?, &request, recorder.ok().as_ref());
                return Ok(Output::Written(written));
            }
            Method::SmartWait => {
                let new = decode::<SmartWaitParams>(method, params)?.validate()?;
                Ok(wire::wait_created(&tree.smart_wait(new).await?))
            }
            Method::WaitUpdate => {
                let (id, update) = decode::<WaitUpdateParams>(method, params)?.validate()?;
                if update.wake_when.is_none()
                    && update.timeout_s.is_none()
                    && update.message.is_none()
                {
                    // Nothing to change: fine for an ended wait (revive it as it was), not for a live one.
                    let current = tree.wait_status(Some(id.clone())).await?;
                    if current.first().is_some_and(|view| view.record.is_live()) {
                        return Err(RpcError::invalid_params(
                            "wait_update needs wake_when, timeout or message for a wait that is still watching",
                            "give a new wake_when or timeout, or use wait_status to see how the wait is doing",
                        ));
                    }
                }
                Ok(wire::wait_changed(&tree.wait_update(id, update).await?))
            }
            Method::WaitCancel => {
                let (id, reason) = decode::<WaitCancelParams>(method, params)?.validate()?;
                Ok(wire::wait_changed(&tree.wait_cancel(id, reason).await?))
            }
            Method::WaitStatus => {
                let request = decode::<WaitStatusParams>(method, params)?.validate()?;
                match request.wait_id {
                    Some(id) => {
                        let views = tree.wait_status(Some(id)).await?;
                        Ok(wire::wait_status(
                            views.first().expect("a wait's status has the wait"),
                            request.max_bytes,
                        ))
                    }
                    None => {
                        let mut views = tree.wait_status(None).await?;
                        if let Some(task) = &request.task_id {
                            views.retain(|view| view.record.task_id.as_ref() == Some(task));
                        }
                        Ok(wire::wait_list(
                            &views,
                            request.task_id.as_ref(),
                            request.max_bytes,
                        ))
                    }
                }
            }
            Method::TermStart => {
                let request = decode::<TermStartParams>(method, params)?.validate()?;
                Ok(wire::term_started(&tree.start_terminal(request).await?))
            }
            Method::TermSend => {
                let (id, input) = decode::<TermSendParams>(method, params)?.validate()?;
                Ok(wire::term_sent(&tree.send_to_terminal(id, input).await?))
            }
            Method::TermRead => {
                let (id, lines) = decode::<TermReadParams>(method, params)?.validate()?;
                Ok(wire::term_read(&tree.read_terminal(id, lines).await?))
            }
            Method::TermStop => {
                let (id, signal) = decode::<TermStopParams>(method, params)?.validate()?;
                Ok(wire::term_stopped(&tree.stop_terminal(id, signal).await?))
            }
            Method::ToolsList => {
                no_params(method, &params)?;
                Ok(catalogue::listing())
            }
            Method::DaemonStatus => {
                no_params(method, &params)?;
                let status = tree.status().await?;
                Ok(wire::status::daemon_status(
                    &status,
                    &self.info,
                    tree.directory().now(),
                ))
            }
            Method::RecallPause => {
                let duration = decode::<RecallPauseParams>(method, params)?.validate()?;
                Ok(wire::recorder_changed(
                    &tree.pause_recorder(duration).await?,
                ))
            }
            Method::RecallResume => {
                no_params(method, &params)?;
                Ok(wire::recorder_changed(&tree.resume_recorder().await?))
            }
            Method::RecallForget => {
                let filter = decode::<RecallForgetParams>(method, params)?
                    .validate(tree.directory().now())?;
                Ok(wire::forgotten(tree.forget(filter).await?))
            }
            Method::EventsSubscribe => Err(RpcError::invalid_params(
                "events.subscribe streams events on the connection that calls it",
                "call it on a Unix-socket connection to the daemon (e.g. `lookout events`) and keep reading that connection",
            )),
        };
        value.map(Output::Value)
    }
}

/// A method's result: a JSON value, or the JSON text of one written straight from what the
/// tree answered (`memory_recall`, whose results built as a value first cost more than the
/// rest of the call).
#[derive(Debug)]
pub enum Output {
    Value(Value),
    Written(Box<RawValue>),
}

impl Output {
    /// The result as a value (a written one is read back).
    pub fn into_value(self) -> Value {
        match self {
            Output::Value(value) => value,
            Output::Written(text) => {
                serde_json::from_str(text.get()).expect("a written result is JSON")
            }
        }
    }
}

impl Serialize for Output {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Output::Value(value) => value.serialize(serializer),
            Output::Written(text) => text.serialize(serializer),
        }
    }
}

pub fn no_params(method: Method, params: &Value) -> Result<(), RpcError> {
    match params.as_object() {
        Some(object) if object.is_empty() => Ok(()),
        _ => Err(RpcError::invalid_params(
            format!("{method} takes no params"),
            "send params: {} or leave them out",
        )),
    }
}

fn unknown_method(method: &str) -> RpcError {
    let known: Vec<&str> = Method::ALL.iter().map(|method| method.name()).collect();
    let suggestion = known
        .iter()
        .map(|name| (edit_distance(method, name), *name))
        .filter(|(distance, _)| *distance <= 3)
        .min()
        .map(|(_, name)| format!("did you mean {name}? "))
        .unwrap_or_default();
    RpcError::new(
        codes::METHOD_NOT_FOUND,
        format!("unknown method '{method}'"),
        format!("{suggestion}known methods: {}", known.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_methods_suggest_the_closest_one() {
        let error = unknown_method("task_regster");
        assert_eq!(error.code, codes::METHOD_NOT_FOUND);
        assert!(
            error.hint.starts_with("did you mean task_register?"),
            "{}",
            error.hint
        );
        assert!(!unknown_method("frobnicate").hint.contains("did you mean"));
    }
}
