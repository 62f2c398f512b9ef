//! Pi's records, as far as the tool calls need them: hand-written serde structs of
//! the fields read (Pi publishes its types only as TypeScript declarations,
//! `AgentSessionEvent` of `@mariozechner/pi-coding-agent` and `AgentMessage` of
//! `@mariozechner/pi-ai`; no schema of them is pinned). Every field is optional, so a
//! record that lacks one still reads and the reader says what is missing.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

/// One line: a `--mode json` event, or a session file entry (both begin with the
/// session header, `type: "session"`).
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    /// The event or entry type.
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    /// The session's id (header), or the entry's id (session file).
    #[serde(default)]
    pub id: Option<String>,
    /// The entry's time, ISO 8601 (session file and header).
    #[serde(default)]
    pub timestamp: Option<Value>,
    /// The working directory (header).
    #[serde(default)]
    pub cwd: Option<String>,
    /// The message of `message_*`/`turn_end` events and `message` entries.
    #[serde(default)]
    pub message: Option<Message>,
    /// The call of a `tool_execution_*` event.
    #[serde(rename = "toolCallId", default)]
    pub tool_call_id: Option<String>,
    /// Its tool.
    #[serde(rename = "toolName", default)]
    pub tool_name: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Option<Value>,
    /// The output so far (`tool_execution_update`).
    #[serde(rename = "partialResult", default)]
    pub partial_result: Option<Value>,
    /// The result (`tool_execution_end`).
    #[serde(default)]
    pub result: Option<Value>,
    /// Whether the result is an error (`tool_execution_end`).
    #[serde(rename = "isError", default)]
    pub is_error: Option<bool>,
    /// The streaming event of a `message_update`.
    #[serde(rename = "assistantMessageEvent", default)]
    pub assistant_event: Option<AssistantEvent>,
}

/// An `AgentMessage`: a user, assistant or tool result message, or one of the coding
/// agent's own (`bashExecution`, `custom`, `branchSummary`, `compactionSummary`).
#[derive(Deserialize, Default)]
pub(super) struct Message {
    /// Who wrote it.
    #[serde(default)]
    pub role: Option<String>,
    /// Its content blocks (a string for some user messages).
    #[serde(default)]
    pub content: Value,
    /// The call a `toolResult` answers.
    #[serde(rename = "toolCallId", default)]
    pub tool_call_id: Option<String>,
    /// The tool of a `toolResult`.
    #[serde(rename = "toolName", default)]
    pub tool_name: Option<String>,
    /// Whether a `toolResult` is an error.
    #[serde(rename = "isError", default)]
    pub is_error: Option<bool>,
    /// When the message was made, epoch milliseconds.
    #[serde(default)]
    pub timestamp: Option<Value>,
}

/// A `message_update`'s `AssistantMessageEvent`.
#[derive(Deserialize)]
pub(super) struct AssistantEvent {
    /// `text_delta`, `toolcall_start`, `toolcall_delta`, `toolcall_end`, …
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// The index of the content block it is about.
    #[serde(rename = "contentIndex", default)]
    pub content_index: Option<usize>,
    /// The assistant message so far.
    #[serde(default)]
    pub partial: Option<Message>,
    /// The finished call (`toolcall_end`).
    #[serde(rename = "toolCall", default)]
    pub tool_call: Option<Value>,
}

/// A `toolCall` content block: `{type, id, name, arguments}`.
pub(super) struct ToolCall {
    /// The call id.
    pub id: Option<String>,
    /// The tool.
    pub name: Option<String>,
    /// Its arguments (streamed: as much as has arrived).
    pub arguments: Value,
}

impl ToolCall {
    /// The block when it is a `toolCall`.
    pub fn of(block: &Value) -> Option<ToolCall> {
        let object = block.as_object()?;
        if object.get("type").and_then(Value::as_str) != Some("toolCall") {
            return None;
        }
        let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(ToolCall {
            id: text("id"),
            name: text("name"),
            arguments: object
                .get("arguments")
                .cloned()
                .unwrap_or_else(|| Value::Object(serde_json::Map::new())),
        })
    }
}

impl Message {
    /// The `toolCall` blocks of an assistant message.
    pub fn tool_calls(&self) -> impl Iterator<Item = ToolCall> + '_ {
        self.content
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(ToolCall::of)
    }
}

/// The text of a tool result's `content` (its text blocks, joined), or the content
/// itself when it holds no text block (an image).
pub(super) fn result_text(content: &Value) -> Option<Value> {
    match content {
        Value::Null => None,
        Value::String(text) => Some(Value::String(text.clone())),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            if texts.is_empty() {
                (!blocks.is_empty()).then(|| content.clone())
            } else {
                Some(Value::String(texts.concat()))
            }
        }
        other => Some(other.clone()),
    }
}
