//! Continue's saved session, as far as the tool calls need it: hand-written serde structs
//! of the fields read, named as Continue's TypeScript declarations (`core/index.d.ts`:
//! `Session`, `ChatHistoryItem`, `ChatMessage`, `ToolCallState`). `@continuedev/cli`
//! publishes no schema of them.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// A saved session, `~/.continue/sessions/<sessionId>.json`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Session<'a> {
    /// The session's id (the file's name).
    #[serde(default)]
    pub session_id: Option<String>,
    /// The folder the session ran in.
    #[serde(default)]
    pub workspace_directory: Option<String>,
    /// Its items, each read on its own (one that does not read is told, not fatal).
    #[serde(borrow, default)]
    pub history: Vec<&'a RawValue>,
}

/// One `ChatHistoryItem`: a message, and the states of the calls an assistant message
/// makes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct HistoryItem {
    /// The message.
    #[serde(default)]
    pub message: Option<Message>,
    /// Each call's state (`ToolCallState`), on the assistant message that makes them.
    #[serde(default)]
    pub tool_call_states: Option<Vec<ToolCallState>>,
}

/// A `ChatMessage`: its role, and the calls an assistant message makes (or, for a `tool`
/// message, the call whose result it is).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Message {
    /// `user`, `assistant`, `thinking`, `system` or `tool`.
    #[serde(default)]
    pub role: Option<String>,
    /// Its text, or its parts.
    #[serde(default)]
    pub content: Option<Value>,
    /// An assistant message's calls, as the model gave them.
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// A `tool` message's call.
    #[serde(default)]
    pub tool_call_id: Option<String>,
}

/// A call, in the Chat Completions shape (`ToolCall`, `ToolCallDelta`).
#[derive(Debug, Default, Deserialize)]
pub(super) struct ToolCall {
    /// The call's id.
    #[serde(default)]
    pub id: Option<String>,
    /// `function`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// The tool and its arguments.
    #[serde(default)]
    pub function: Option<Function>,
}

/// A call's tool and arguments.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Function {
    /// The tool's name.
    #[serde(default)]
    pub name: Option<String>,
    /// The arguments as the model sent them: a JSON text.
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// A `ToolCallState`: where a call stands, and what it gave.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolCallState {
    /// The call's id.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// The call again, as the assistant message has it.
    #[serde(default)]
    pub tool_call: Option<ToolCall>,
    /// `generating`, `generated`, `calling`, `done`, `errored` or `canceled`.
    #[serde(default)]
    pub status: Option<String>,
    /// The arguments, read (an object; `{}` when they did not read).
    #[serde(default)]
    pub parsed_args: Option<Value>,
    /// What the call gave (`ContextItem`s: `{content, name, description}`).
    #[serde(default)]
    pub output: Option<Vec<ContextItem>>,
    /// The tool, when the client kept it (the IDE extension's sessions): an MCP tool's
    /// `uri` is `mcp://…`.
    #[serde(default)]
    pub tool: Option<Tool>,
}

/// One item of a call's output.
#[derive(Debug, Deserialize)]
pub(super) struct ContextItem {
    /// Its text.
    #[serde(default)]
    pub content: Option<Value>,
}

/// The tool a state names (`Tool` of `core/index.d.ts`, the fields read).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Tool {
    /// Where the tool comes from: `mcp://<server>/<tool>` for an MCP server's.
    #[serde(default)]
    pub uri: Option<String>,
    /// The MCP server's name, for an MCP server's tool.
    #[serde(default)]
    pub group: Option<String>,
    /// The MCP tool's own name (the call's may be prefixed).
    #[serde(default)]
    pub original_function_name: Option<String>,
}
