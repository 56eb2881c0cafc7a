//! `lookout mcp`: a stdio MCP server for Claude Code, OpenClaw and other MCP clients.
//!
//! Its tools are exactly the catalogue (`tools/catalogue/`: the names, descriptions and JSON
//! Schemas `tools.list` serves); each call is forwarded to the daemon over its socket, one
//! connection per call, so a restarted daemon is picked up without restarting this bridge.
//! It never starts a daemon itself. stdout is the MCP transport: logs go to stderr only.
//! It is also a Claude Code channel (`channel.rs`): the wakes of its session are pushed to
//! the client.

pub mod channel;

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actors::locks::lock;
use anyhow::Context;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    ExperimentalCapabilities, Implementation, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::{Notify, mpsc};

use crate::client::Client;
use crate::jsonrpc::RpcError;
use crate::tools::catalogue;
use crate::tools::export::error_payload;
use crate::tools::spine::Method;
use channel::{Identity, Ownership};

/// What the MCP client is told about this server when it connects, before how wakes come.
pub(crate) const INSTRUCTIONS: &str = "lookout keeps a durable memory of your long tasks and waits \
    for you. Register multi-step work with task_register, report each step with task_update as you \
    finish it, set the status when you are done, and after a context compaction call task_update \
    with a query such as \"where am I?\" to get your place back. Never sleep or poll to wait: \
    smart_wait watches a target (pty:<session_id>, tmux:<pane>, file:<absolute path>) until the \
    text quoted in wake_when appears and wakes you; wait_update revives or extends a wait after \
    a wake. Run long commands with term_start, then smart_wait on pty:<session_id>.";

/// How the session's wakes reach it, which the bridge is told by its launcher.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum WakePath {
    /// Pushed by this bridge as `notifications/claude/channel`, for clients that show them;
    /// others run `lookout wait` in the background.
    #[default]
    Channel,
    /// Printed by `lookout monitor`, which the client runs beside the bridge (the Claude Code
    /// plugin): the bridge pushes nothing, so no wake arrives twice.
    Monitor,
}

impl WakePath {
    /// The instructions' last sentence: how a wake arrives and what to do meanwhile.
    fn instructions(self) -> String {
        let arrival = match self {
            WakePath::Channel => {
                "A wake arrives as a <channel source=\"lookout\"> message when your client \
                 shows this server's channel; otherwise run `lookout wait <wait_id>` as a \
                 background command and read its output when it ends."
            }
            WakePath::Monitor => {
                "Wakes arrive on their own as events of lookout's monitor, each with the wake \
                 text: after smart_wait, end your turn; never run `lookout wait` or poll."
            }
        };
        format!("{INSTRUCTIONS} {arrival}")
    }
}

/// The MCP server: the catalogue's tools, forwarded to the daemon on `socket`, and the
/// session's wakes pushed back.
pub struct McpBridge {
    socket: PathBuf,
    wakes: WakePath,
    ownership: Arc<Mutex<Ownership>>,
    /// Events to push to the client as channel messages.
    pushes: mpsc::UnboundedSender<Value>,
}

impl McpBridge {
    pub fn new(
        socket: PathBuf,
        wakes: WakePath,
        ownership: Arc<Mutex<Ownership>>,
        pushes: mpsc::UnboundedSender<Value>,
    ) -> Self {
        Self {
            socket,
            wakes,
            ownership,
            pushes,
        }
    }

    /// Runs one tool call against the daemon and turns the outcome into an MCP result:
    /// the daemon's JSON result, or a tool error carrying its message and hint.
    pub async fn forward(&self, tool: Method, mut arguments: Value) -> CallToolResult {
        let name = tool.name();
        let identity = lock(&self.ownership).identity().clone();
        if tool == Method::TaskRegister
            && arguments.get("origin").is_none()
            && let Some(origin) = identity.origin()
        {
            arguments["origin"] = origin;
        }
        // What this session makes carries its key, so the session's monitor knows its wakes
        // (a task's waits inherit it).
        if matches!(tool, Method::TaskRegister | Method::SmartWait)
            && arguments.get("session_key").is_none_or(Value::is_null)
            && let Some(key) = identity.stamped_key()
        {
            arguments["session_key"] = Value::String(key);
        }
        let outcome = async {
            let mut client = Client::connect(&self.socket).await?;
            client.call(name, arguments).await
        }
        .await;
        match outcome {
            Ok(Ok(result)) => {
                for event in lock(&self.ownership).note_result(tool, &result) {
                    let _ = self.pushes.send(event);
                }
                CallToolResult::structured(result)
            }
            Ok(Err(error)) => tool_error(&error),
            Err(client_error) => {
                tracing::warn!(error = %client_error, tool = name, "cannot reach the daemon");
                let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
                    "error: {client_error}"
                ))]);
                result.structured_content =
                    Some(serde_json::json!({"error": {"message": client_error.to_string()}}));
                result
            }
        }
    }
}

/// A daemon error as an MCP tool error (`isError: true`): the text says what went wrong and
/// how to fix the call; the structured content keeps the code, message and hint apart.
fn tool_error(error: &RpcError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "error: {}\nhint: {}",
        error.message, error.hint
    ))]);
    result.structured_content = Some(error_payload(error));
    result
}

/// The catalogue as MCP tools: each tool's `tools/list` entry as `Tool::to_json` writes it
/// (name, title, description, schemas, annotations), so the bridge and `tools --format mcp`
/// cannot differ.
pub fn tools() -> Vec<Tool> {
    catalogue::tools()
        .map(|tool| {
            serde_json::from_value(tool.to_json())
                .unwrap_or_else(|error| unreachable!("{} is an MCP tool: {error}", tool.name()))
        })
        .collect()
}

impl ServerHandler for McpBridge {
    /// The revisions with an `initialize` handshake only. From 2026-07-28 on a session has no
    /// path for unsolicited notifications, and Claude Code drops channel messages on it. Claude
    /// Code opens with `server/discover` naming 2026-07-28; refused with these revisions
    /// (`-32022`), it falls back to `initialize` with 2025-11-25.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(
            &ProtocolVersion::LATEST_WITH_INITIALIZE,
        ))
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = match self.wakes {
            WakePath::Channel => ServerCapabilities::builder()
                .enable_tools()
                .enable_experimental_with(ExperimentalCapabilities::from([(
                    channel::CAPABILITY.to_owned(),
                    serde_json::Map::new(),
                )]))
                .build(),
            WakePath::Monitor => ServerCapabilities::builder().enable_tools().build(),
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("lookout", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.wakes.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = Method::named(&request.name).filter(|method| method.is_tool()) else {
            let known: Vec<&str> = catalogue::tools().map(|t| t.name()).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool '{}'; the tools are {}",
                    request.name,
                    known.join(", ")
                ),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        Ok(self.forward(tool, arguments).await.into())
    }
}

/// How long the bridge waits for its wake subscription before serving anyway.
const FIRST_SUBSCRIPTION_WAIT: Duration = Duration::from_secs(2);

/// Serves MCP on stdin/stdout until the client closes stdin, pushing the session's wakes
/// when they come this way.
pub async fn serve_stdio(
    socket: PathBuf,
    identity: Identity,
    wakes: WakePath,
) -> anyhow::Result<()> {
    tracing::info!(socket = %socket.display(), ?identity, ?wakes, "lookout MCP server on stdio");
    let ownership = Arc::new(Mutex::new(Ownership::new(identity)));
    let (pushes, to_push) = mpsc::unbounded_channel();
    if wakes == WakePath::Channel {
        // Listen before serving, so a wait made by the first call cannot end unheard; a
        // daemon that is not up yet is picked up whenever it starts.
        let subscribed = Arc::new(Notify::new());
        let first_subscription = subscribed.notified();
        tokio::spawn(channel::follow(
            socket.clone(),
            ownership.clone(),
            pushes.clone(),
            subscribed.clone(),
        ));
        let _ = tokio::time::timeout(FIRST_SUBSCRIPTION_WAIT, first_subscription).await;
    }
    let running = McpBridge::new(socket, wakes, ownership, pushes)
        .serve(rmcp::transport::stdio())
        .await
        .context("the MCP client did not complete the initialize handshake")?;
    if wakes == WakePath::Channel {
        tokio::spawn(channel::push(running.peer().clone(), to_push));
    }
    let reason = running
        .waiting()
        .await
        .context("the MCP server task failed")?;
    tracing::info!(?reason, "MCP client disconnected");
    Ok(())
}
