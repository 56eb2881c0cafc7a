//! Function tools: the catalogue as other APIs' tool definitions, and their tool calls in
//! and tool outputs out, so a runtime that drives its own model loop can wire lookout in.
//!
//! Shapes (all generated from `tools/catalogue/`, nothing maintained by hand):
//! - OpenAI Chat Completions: `{"type":"function","function":{"name","description","parameters","strict"}}`;
//!   a call is a `tool_calls[]` entry, answered by a `{"role":"tool","tool_call_id","content"}` message.
//! - OpenAI Responses / OpenResponses: `{"type":"function","name","description","parameters","strict"}`
//!   (`--strict`: the strict form of every schema, from `strict_schema.rs`);
//!   a call is a `function_call` item, answered by a `function_call_output` item.
//! - Anthropic Messages: `{"name","description","input_schema"}`; a call is a `tool_use`
//!   block, answered by a `tool_result` block.
//! - MCP: `{"tools":[{"name","description","inputSchema"}]}`, as `tools/list` returns it.
//!
//! Outputs carry the daemon's result as a JSON string, or `{"error":{"code","message","hint"}}`.

use serde_json::{Map, Value, json};

use crate::jsonrpc::RpcError;
use crate::tools::catalogue::{self, Tool};
use crate::tools::strict_schema::strict_parameters;

/// An API whose tool definitions `lookout tools --format` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ToolFormat {
    /// OpenAI Chat Completions `tools`
    #[value(name = "openai")]
    OpenAi,
    /// OpenAI Responses API and OpenResponses (OpenClaw's /v1/responses) `tools`
    #[value(name = "openresponses")]
    OpenResponses,
    /// Anthropic Messages API `tools`
    #[value(name = "anthropic")]
    Anthropic,
    /// MCP `tools/list` result
    #[value(name = "mcp")]
    Mcp,
}

/// Every catalogue tool as `format`'s tool definitions. `strict` (OpenAI formats only) gives
/// each its strict form (`strict_schema`) and `"strict": true`; OpenAI definitions always
/// say which they are, since the SDKs' types require the field.
pub fn tool_definitions(format: ToolFormat, strict: bool) -> Result<Value, String> {
    let tools = catalogue::tools();
    let parameters = |tool: &Tool| {
        let schema = (tool.input_schema)();
        if strict {
            strict_parameters(&schema)
        } else {
            schema
        }
    };
    if strict && matches!(format, ToolFormat::Anthropic | ToolFormat::Mcp) {
        return Err(
            "--strict is OpenAI's strict function calling: use it with --format openai or \
             --format openresponses"
                .to_owned(),
        );
    }
    Ok(match format {
        ToolFormat::OpenAi => Value::Array(
            tools
                .map(|tool| {
                    json!({"type": "function", "function": {
                        "name": tool.name(), "description": tool.description,
                        "parameters": parameters(tool), "strict": strict
                    }})
                })
                .collect(),
        ),
        ToolFormat::OpenResponses => Value::Array(
            tools
                .map(|tool| {
                    json!({"type": "function", "name": tool.name(), "description": tool.description,
                           "parameters": parameters(tool), "strict": strict})
                })
                .collect(),
        ),
        ToolFormat::Anthropic => Value::Array(
            tools
                .map(|tool| {
                    json!({"name": tool.name(), "description": tool.description,
                           "input_schema": parameters(tool)})
                })
                .collect(),
        ),
        ToolFormat::Mcp => json!({"tools": tools.map(Tool::to_json).collect::<Vec<_>>()}),
    })
}

/// Which API a tool call came from, with the id its answer must carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallOrigin {
    /// A Responses `function_call` item.
    Responses { call_id: String },
    /// A Chat Completions `tool_calls[]` entry.
    ChatCompletions { id: String },
    /// An Anthropic `tool_use` content block.
    AnthropicToolUse { id: String },
}

/// A tool call read from one of the shapes above.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionCall {
    pub origin: CallOrigin,
    pub name: String,
    pub arguments: Map<String, Value>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FunctionCallError {
    #[error(
        "not a tool call: expected a Responses function_call item \
         {{\"type\":\"function_call\",\"call_id\",\"name\",\"arguments\"}}, a Chat Completions \
         tool_calls[] entry {{\"id\",\"type\":\"function\",\"function\":{{\"name\",\"arguments\"}}}} \
         or an Anthropic tool_use block {{\"type\":\"tool_use\",\"id\",\"name\",\"input\"}}"
    )]
    UnknownShape,
    #[error(
        "the {shape} has no string \"{field}\"; copy the item exactly as the model produced it"
    )]
    MissingField {
        shape: &'static str,
        field: &'static str,
    },
    /// The call's envelope was read (so it can still be answered), its arguments not.
    #[error(
        "the arguments of {name} are not a JSON object ({reason}); they must encode the tool's parameters, e.g. {{\"task_id\":\"t-7k2m9q\"}}"
    )]
    BadArguments {
        origin: CallOrigin,
        name: String,
        reason: String,
    },
}

impl FunctionCallError {
    /// The answer a model gets for a call whose arguments could not be read: the error, what
    /// was wrong, and the signature it should have used. `None` when there is no call id to
    /// answer.
    pub fn answer(&self) -> Option<Value> {
        let FunctionCallError::BadArguments {
            origin,
            name,
            reason,
        } = self
        else {
            return None;
        };
        let hint = match catalogue::find(name) {
            Some(tool) => format!(
                "send the arguments as one JSON object with the tool's parameters: {}",
                tool.signature()
            ),
            None => format!(
                "'{name}' is not a lookout tool; call one of {}",
                catalogue::tools()
                    .map(|tool| tool.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let error = RpcError::new(
            crate::jsonrpc::codes::INVALID_PARAMS,
            format!("the arguments of {name} are not a JSON object ({reason})"),
            hint,
        );
        Some(origin.output(&Err(error)))
    }
}

impl FunctionCall {
    pub fn parse(item: &Value) -> Result<FunctionCall, FunctionCallError> {
        let text = |value: &Value, shape: &'static str, field: &'static str| {
            value[field]
                .as_str()
                .map(str::to_owned)
                .ok_or(FunctionCallError::MissingField { shape, field })
        };
        let (origin, name, raw) = if item["type"] == "function_call" {
            let shape = "function_call item";
            let call_id = text(item, shape, "call_id")?;
            let name = text(item, shape, "name")?;
            (CallOrigin::Responses { call_id }, name, &item["arguments"])
        } else if item["type"] == "tool_use" {
            let shape = "tool_use block";
            let id = text(item, shape, "id")?;
            let name = text(item, shape, "name")?;
            (CallOrigin::AnthropicToolUse { id }, name, &item["input"])
        } else if item["function"].is_object()
            && matches!(item["type"].as_str(), None | Some("function"))
        {
            let shape = "tool_calls[] entry";
            let id = text(item, shape, "id")?;
            let name = text(&item["function"], shape, "name")?;
            (
                CallOrigin::ChatCompletions { id },
                name,
                &item["function"]["arguments"],
            )
        } else {
            return Err(FunctionCallError::UnknownShape);
        };
        match arguments_of(raw) {
            Ok(arguments) => Ok(FunctionCall {
                origin,
                name,
                arguments,
            }),
            Err(reason) => Err(FunctionCallError::BadArguments {
                origin,
                name,
                reason,
            }),
        }
    }

    /// The item that answers this call in its own API, carrying `outcome`.
    pub fn output(&self, outcome: &Result<Value, RpcError>) -> Value {
        self.origin.output(outcome)
    }
}

impl CallOrigin {
    /// The item that answers a call from here, carrying `outcome`.
    pub fn output(&self, outcome: &Result<Value, RpcError>) -> Value {
        let content = match outcome {
            Ok(result) => result.to_string(),
            Err(error) => error_payload(error).to_string(),
        };
        match self {
            CallOrigin::Responses { call_id } => {
                json!({"type": "function_call_output", "call_id": call_id, "output": content})
            }
            CallOrigin::ChatCompletions { id } => {
                json!({"role": "tool", "tool_call_id": id, "content": content})
            }
            CallOrigin::AnthropicToolUse { id } => {
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": id, "content": content});
                if outcome.is_err() {
                    block["is_error"] = json!(true);
                }
                block
            }
        }
    }
}

/// `{"error":{"code","message","hint"}}`: what a tool output says when the call failed.
pub fn error_payload(error: &RpcError) -> Value {
    json!({"error": {"code": error.code, "message": error.message, "hint": error.hint}})
}

/// Arguments arrive as a JSON string (OpenAI) or an object (Anthropic; tolerated for both);
/// what was wrong with them otherwise.
fn arguments_of(raw: &Value) -> Result<Map<String, Value>, String> {
    let parsed = match raw {
        Value::Null => return Ok(Map::new()),
        Value::String(text) if text.trim().is_empty() => return Ok(Map::new()),
        Value::String(text) => serde_json::from_str(text).map_err(|e| e.to_string())?,
        other => other.clone(),
    };
    match parsed {
        Value::Object(map) => Ok(map),
        other => Err(format!(
            "got {}",
            actors::words::shorten(&other.to_string(), 80)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(tools: &Value, pointer: &str) -> Vec<String> {
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool.pointer(pointer).unwrap().as_str().unwrap().to_owned())
            .collect()
    }

    fn catalogue_names() -> Vec<String> {
        catalogue::tools().map(|t| t.name().to_owned()).collect()
    }

    #[test]
    fn chat_completions_tools_nest_the_function() {
        let tools = tool_definitions(ToolFormat::OpenAi, false).unwrap();
        assert_eq!(names(&tools, "/function/name"), catalogue_names());
        let first = &tools[0];
        assert_eq!(first["type"], "function");
        let register = catalogue::find("task_register").unwrap();
        assert_eq!(first["function"]["description"], register.description);
        assert_eq!(first["function"]["parameters"], (register.input_schema)());
        assert_eq!(first.as_object().unwrap().len(), 2);
    }

    #[test]
    fn responses_tools_are_flat() {
        let tools = tool_definitions(ToolFormat::OpenResponses, false).unwrap();
        assert_eq!(names(&tools, "/name"), catalogue_names());
        for tool in tools.as_array().unwrap() {
            let keys: Vec<&str> = tool
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(
                keys,
                ["type", "name", "description", "parameters", "strict"]
            );
            assert_eq!(tool["type"], "function");
            assert_eq!(tool["parameters"]["type"], "object");
        }
    }

    #[test]
    fn anthropic_tools_use_input_schema() {
        let tools = tool_definitions(ToolFormat::Anthropic, false).unwrap();
        assert_eq!(names(&tools, "/name"), catalogue_names());
        for tool in tools.as_array().unwrap() {
            let keys: Vec<&str> = tool
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, ["name", "description", "input_schema"]);
        }
    }

    #[test]
    fn mcp_tools_are_a_tools_list_result() {
        let listed = tool_definitions(ToolFormat::Mcp, false).unwrap();
        let tools = &listed["tools"];
        assert_eq!(names(tools, "/name"), catalogue_names());
        assert_eq!(
            tools[1],
            catalogue::find("task_update").unwrap().to_json(),
            "the same objects tools.list serves"
        );
    }

    #[test]
    fn a_responses_function_call_is_answered_by_a_function_call_output() {
        let call = FunctionCall::parse(&json!({
            "type": "function_call", "id": "fc_1", "call_id": "call_abc", "name": "task_list",
            "arguments": "{\"status\":\"all\"}"
        }))
        .unwrap();
        assert_eq!(
            call.origin,
            CallOrigin::Responses {
                call_id: "call_abc".into()
            }
        );
        assert_eq!(call.name, "task_list");
        assert_eq!(
            Value::Object(call.arguments.clone()),
            json!({"status": "all"})
        );
        let output = call.output(&Ok(json!({"tasks": [], "message": "No tasks."})));
        assert_eq!(
            output,
            json!({"type": "function_call_output", "call_id": "call_abc",
                   "output": "{\"tasks\":[],\"message\":\"No tasks.\"}"})
        );
    }

    #[test]
    fn a_chat_completions_tool_call_is_answered_by_a_tool_message() {
        let call = FunctionCall::parse(&json!({
            "id": "call_9", "type": "function",
            "function": {"name": "task_thread", "arguments": "{\"task_id\":\"t-1\"}"}
        }))
        .unwrap();
        assert_eq!(
            call.origin,
            CallOrigin::ChatCompletions {
                id: "call_9".into()
            }
        );
        let error = RpcError::new(-32001, "no task with id 't-1'", "list tasks with task_list");
        let output = call.output(&Err(error));
        assert_eq!(output["role"], "tool");
        assert_eq!(output["tool_call_id"], "call_9");
        let content: Value = serde_json::from_str(output["content"].as_str().unwrap()).unwrap();
        assert_eq!(
            content,
            json!({"error": {"code": -32001, "message": "no task with id 't-1'", "hint": "list tasks with task_list"}})
        );
    }

    #[test]
    fn an_anthropic_tool_use_is_answered_by_a_tool_result() {
        let call = FunctionCall::parse(&json!({
            "type": "tool_use", "id": "toolu_1", "name": "task_list", "input": {}
        }))
        .unwrap();
        assert!(call.arguments.is_empty());
        let ok = call.output(&Ok(json!({"message": "No tasks."})));
        assert_eq!(
            ok,
            json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"message\":\"No tasks.\"}"})
        );
        let failed = call.output(&Err(RpcError::new(-32003, "down", "retry")));
        assert_eq!(failed["is_error"], true);
    }

    #[test]
    fn malformed_calls_say_what_shape_was_expected() {
        assert_eq!(
            FunctionCall::parse(&json!({"name": "task_list"})),
            Err(FunctionCallError::UnknownShape)
        );
        assert_eq!(
            FunctionCall::parse(
                &json!({"type": "function_call", "name": "task_list", "arguments": "{}"})
            ),
            Err(FunctionCallError::MissingField {
                shape: "function_call item",
                field: "call_id"
            })
        );
        let error = FunctionCall::parse(&json!({
            "type": "function_call", "call_id": "c", "name": "task_list", "arguments": "[1]"
        }))
        .unwrap_err();
        assert!(error.to_string().contains("not a JSON object"), "{error}");
        let empty = FunctionCall::parse(&json!({
            "id": "c", "function": {"name": "task_list", "arguments": ""}
        }))
        .unwrap();
        assert!(empty.arguments.is_empty());
    }
}
