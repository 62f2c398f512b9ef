//! Goose's messages, as far as the tool calls need them: hand-written serde structs of the
//! fields read. Goose is written in Rust and publishes no schema of what it writes; these
//! follow its `Message` and `MessageContent` (`crates/goose/src/conversation/message.rs`,
//! camelCase, content items tagged by `type`), the `status`/`value`/`error` envelope its
//! `tool_result_serde` writes around a call and a result, the session file's first line
//! (`SessionMetadata` of `crates/goose/src/session/storage.rs`, 1.9) and the lines of
//! `goose run --output-format stream-json` (`StreamEvent` of
//! `crates/goose-cli/src/session/mod.rs`, 1.20). Every field is optional, so a record
//! that lacks one still reads and the reader says what is missing.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::result_value::ResultValue;
use crate::read::json;

/// One `Message`: `{"id", "role", "created", "content": [items], "metadata"}`; its
/// content is all the reader needs. Each item is an [`Item`] read in place, or (`C` =
/// `&RawValue`) its text in the line, read apart, so that one item that does not read
/// leaves the others: a line is read the first way, and the second when that fails.
#[derive(Deserialize, Default)]
pub(super) struct Message<C> {
    /// Its content items, each tagged by `type`.
    #[serde(default = "json::none")]
    pub content: Option<Vec<C>>,
}

/// A content item as a line holds it: read in place, or its text, to read apart.
pub(super) trait ContentItem {
    /// The item, or why it does not read.
    fn read(self) -> Result<Item, serde_json::Error>;
}

impl ContentItem for Item {
    fn read(self) -> Result<Item, serde_json::Error> {
        Ok(self)
    }
}

impl ContentItem for &RawValue {
    /// One that does not read as an [`Item`] (a key written twice, say) is read through
    /// a value, as items always were, so that it reads, or fails, the same.
    fn read(self) -> Result<Item, serde_json::Error> {
        let text = self.get();
        serde_json::from_str(text)
            .or_else(|_| serde_json::from_str::<Value>(text).and_then(serde_json::from_value))
    }
}

/// One content item, whichever its `type`: the fields of the tool items
/// (`toolRequest`, `toolResponse`, `frontendToolRequest`, `toolConfirmationRequest`,
/// `actionRequired`).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct Item {
    /// `text`, `toolRequest`, `toolResponse`, …
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// The call's id (the model's), on every tool item.
    #[serde(default)]
    pub id: Option<String>,
    /// A request's call: `{"status": "success", "value": {"name", "arguments"}}`, or
    /// `{"status": "error", "error"}` when the model's call could not be read.
    #[serde(default)]
    pub tool_call: Option<Envelope>,
    /// A response's result: `{"status": "success", "value"}` (a list of content items
    /// up to 1.9, an MCP `CallToolResult` `{"content", "isError"}` since), or
    /// `{"status": "error", "error"}`; its content items' texts kept as they came.
    #[serde(default)]
    pub tool_result: Option<Envelope<ResultValue>>,
    /// A confirmation request's tool.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// A confirmation request's arguments.
    #[serde(default)]
    pub arguments: Option<Value>,
    /// A confirmation request's question.
    #[serde(default)]
    pub prompt: Option<String>,
    /// An `actionRequired` item's action: `{"actionType": "toolConfirmation", "id",
    /// "toolName", "arguments", "prompt"}`, or an elicitation.
    #[serde(default)]
    pub data: Option<Value>,
}

/// The envelope Goose writes around a call or a result (`tool_result_serde`).
#[derive(Deserialize, Default)]
pub(super) struct Envelope<V = Value> {
    /// `success` or `error`.
    #[serde(default)]
    pub status: Option<String>,
    /// What succeeded.
    #[serde(default)]
    pub value: Option<V>,
    /// The error, as text (an MCP `ErrorData` written `<code>: <message>`).
    #[serde(default)]
    pub error: Option<Value>,
}

/// A call: `{"name", "arguments"}`.
#[derive(Deserialize, Default)]
pub(super) struct Call {
    /// The tool, `<extension>__<tool>` (`developer__shell`) or a platform tool's own
    /// name (`subagent`).
    #[serde(default)]
    pub name: Option<String>,
    /// Its arguments: an object (or `null`).
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// One line of `goose run --output-format stream-json`: `{"type": "message",
/// "message"}`, `{"type": "notification", "extension_id", …}`, `{"type":
/// "model_change", "model", "mode"}`, `{"type": "error", "error"}` or `{"type":
/// "complete", "total_tokens"}`; or the one document of `--output-format json`,
/// `{"messages", "metadata": {"total_tokens", "status"}}` (`JsonOutput`).
#[derive(Deserialize, Default)]
pub(super) struct StreamLine<C> {
    /// The event's type (none in the `json` document).
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// A `message` event's message.
    #[serde(default = "json::none")]
    pub message: Option<Message<C>>,
    /// The `json` document's messages: the session's, the prompt first.
    #[serde(default = "json::none")]
    pub messages: Option<Vec<Message<C>>>,
}

/// A session file's line: its first, the session's metadata (`{"working_dir",
/// "description", "schedule_id", "message_count", …}`), or a [`Message`].
#[derive(Deserialize, Default)]
pub(super) struct SessionLine<C> {
    /// The metadata's working directory.
    #[serde(default)]
    pub working_dir: Option<String>,
    /// The metadata's message count (what tells it from a message).
    #[serde(default)]
    pub message_count: Option<Value>,
    /// A message's role.
    #[serde(default)]
    pub role: Option<String>,
    /// A message's content items, as [`Message`] reads them.
    #[serde(default = "json::none")]
    pub content: Option<Vec<C>>,
}
