//! The fields of Copilot CLI's session events that the reader needs, named as in
//! `@github/copilot-sdk`'s `session-events.schema.json` (`SessionEvent` and the `data`
//! of each event type). Fields the reader does not use are not declared (serde skips
//! them), so a newer CLI's additions read as before.

use serde::Deserialize;
use serde_json::Value;

/// One line: a session event, or the printed stream's closing `result` line.
#[derive(Debug, Deserialize)]
pub(super) struct Event {
    /// The event type (`tool.execution_start`, …).
    #[serde(rename = "type")]
    pub kind: String,
    /// When the event was made (ISO 8601).
    #[serde(default)]
    pub timestamp: Option<String>,
    /// The subagent whose event it is (absent for the main agent's).
    #[serde(rename = "agentId", default)]
    pub agent_id: Option<String>,
    /// The event's data, read per type.
    #[serde(default)]
    pub data: Value,
}

/// `session.start` and `session.resume`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct SessionData {
    /// The session (`session.start` only).
    #[serde(rename = "sessionId", default)]
    pub session_id: Option<String>,
    /// Where the session runs.
    #[serde(default)]
    pub context: Option<SessionContext>,
}

/// The working context of a session.
#[derive(Debug, Default, Deserialize)]
pub(super) struct SessionContext {
    /// The working directory.
    #[serde(default)]
    pub cwd: Option<String>,
}

/// `assistant.tool_call_delta`: a piece of a call's arguments as the model streams them.
#[derive(Debug, Deserialize)]
pub(super) struct ToolCallDelta {
    /// The call.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: String,
    /// The tool.
    #[serde(rename = "toolName", default)]
    pub tool_name: Option<String>,
    /// The piece of the arguments' JSON text.
    #[serde(rename = "inputDelta", default)]
    pub input_delta: String,
}

/// `assistant.message`: the model's answer, with the calls it requested.
#[derive(Debug, Default, Deserialize)]
pub(super) struct AssistantMessage {
    /// The calls.
    #[serde(rename = "toolRequests", default)]
    pub tool_requests: Vec<ToolRequest>,
    /// The `task` call whose subagent answered.
    #[serde(rename = "parentToolCallId", default)]
    pub parent_tool_call_id: Option<String>,
}

/// One call of an `assistant.message`.
#[derive(Debug, Deserialize)]
pub(super) struct ToolRequest {
    /// The call.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Value,
    /// The MCP server of an MCP tool.
    #[serde(rename = "mcpServerName", default)]
    pub mcp_server_name: Option<String>,
    /// The MCP tool's own name.
    #[serde(rename = "mcpToolName", default)]
    pub mcp_tool_name: Option<String>,
}

/// `tool.execution_start`: the CLI runs a call.
#[derive(Debug, Deserialize)]
pub(super) struct ExecutionStart {
    /// The call.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: String,
    /// The tool.
    #[serde(rename = "toolName")]
    pub tool_name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Value,
    /// The MCP server of an MCP tool.
    #[serde(rename = "mcpServerName", default)]
    pub mcp_server_name: Option<String>,
    /// The MCP tool's own name.
    #[serde(rename = "mcpToolName", default)]
    pub mcp_tool_name: Option<String>,
    /// The `task` call whose subagent runs it.
    #[serde(rename = "parentToolCallId", default)]
    pub parent_tool_call_id: Option<String>,
}

/// `tool.execution_partial_result`: the output of a running call so far.
#[derive(Debug, Deserialize)]
pub(super) struct PartialResult {
    /// The call.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: String,
    /// Its output so far.
    #[serde(rename = "partialOutput", default)]
    pub partial_output: String,
}

/// `tool.execution_complete`: a call ended.
#[derive(Debug, Deserialize)]
pub(super) struct ExecutionComplete {
    /// The call.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: String,
    /// Whether it succeeded.
    pub success: bool,
    /// What it gave the model.
    #[serde(default)]
    pub result: Option<ToolResult>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<ToolFailure>,
    /// A shell command's exit status.
    #[serde(rename = "shellExecution", default)]
    pub shell_execution: Option<ShellExecution>,
    /// The `task` call whose subagent ran it.
    #[serde(rename = "parentToolCallId", default)]
    pub parent_tool_call_id: Option<String>,
}

/// The result of a call.
#[derive(Debug, Deserialize)]
pub(super) struct ToolResult {
    /// The text the model was given.
    #[serde(default)]
    pub content: Option<String>,
}

/// A call's failure.
#[derive(Debug, Deserialize)]
pub(super) struct ToolFailure {
    /// What went wrong.
    #[serde(default)]
    pub message: Option<String>,
    /// The CLI's code (`failure`, `denied`, `rejected`, …).
    #[serde(default)]
    pub code: Option<String>,
}

/// How a shell command ended.
#[derive(Debug, Deserialize)]
pub(super) struct ShellExecution {
    /// Its exit status.
    #[serde(rename = "exitCode", default)]
    pub exit_code: Option<i64>,
}

/// `subagent.started`: the subagent of a `task` call.
#[derive(Debug, Deserialize)]
pub(super) struct SubagentStarted {
    /// The `task` call.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: String,
    /// The agent.
    #[serde(rename = "agentName", default)]
    pub agent_name: Option<String>,
}
