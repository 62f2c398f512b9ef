//! Kimi's records, as far as the tool calls need them: hand-written serde structs of the
//! fields read. Kimi publishes its types only as pydantic models (`kosong.message.Message`
//! for the conversation, `kimi_cli.wire.types` for the wire messages); no schema of them is
//! pinned. Every field is optional, so a record that lacks one still reads and the reader
//! says what is missing.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

/// A conversation message (`kosong.message.Message`), as `--output-format stream-json`
/// prints it and `context.jsonl` stores it; `context.jsonl` also holds records of its own
/// whose `role` begins with `_` (`_checkpoint`, `_usage`, `_system_prompt`).
#[derive(Deserialize)]
pub(super) struct Message<'a> {
    /// `assistant`, `tool`, `user`, `system`, or one of the `_` records.
    #[serde(borrow, default)]
    pub role: Option<Cow<'a, str>>,
    /// Its text, or its content parts (`{type: "text", text}`, `think`, `image_url`, …).
    #[serde(default)]
    pub content: Value,
    /// The calls of an assistant message.
    #[serde(default)]
    pub tool_calls: Option<Vec<Value>>,
    /// The call a `tool` message answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
}

/// One tool call, `{type: "function", id, function: {name, arguments}}`: the assistant's
/// `tool_calls` item, and the wire's `ToolCall` payload.
pub(super) struct ToolCall {
    /// The call id.
    pub id: Option<String>,
    /// The tool.
    pub name: Option<String>,
    /// Its arguments, a JSON text (as much as has arrived, when streamed).
    pub arguments: Option<String>,
}

impl ToolCall {
    /// The call an object describes, when it has a `function`.
    pub fn of(value: &Value) -> Option<ToolCall> {
        let object = value.as_object()?;
        let function = object.get("function")?.as_object()?;
        let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
        Some(ToolCall {
            id: text(object.get("id")),
            name: text(function.get("name")),
            arguments: match function.get("arguments") {
                Some(Value::String(text)) => Some(text.clone()),
                Some(Value::Null) | None => None,
                Some(other) => Some(other.to_string()),
            },
        })
    }

    /// The arguments as JSON: the object they hold, or (arguments that are not whole JSON
    /// yet, or not an object) an empty object and the text as it is.
    pub fn input(&self) -> (Value, Option<&str>) {
        let text = self.arguments.as_deref().unwrap_or_default();
        if text.trim().is_empty() {
            return (Value::Object(serde_json::Map::new()), None);
        }
        match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => (value, None),
            _ => (Value::Object(serde_json::Map::new()), Some(text)),
        }
    }
}

/// One line of a session's `wire.jsonl`: its header (`{type: "metadata",
/// protocol_version}`) or a record (`{timestamp, message: {type, payload}}`); or one
/// message of `kimi --wire` (JSON-RPC 2.0: `{jsonrpc, method: "event" | "request", id,
/// params: {type, payload}}`).
#[derive(Deserialize)]
pub(super) struct WireLine<'a> {
    /// `metadata` for the header.
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    /// The header's wire protocol version.
    #[serde(default)]
    pub protocol_version: Option<String>,
    /// When the record was written, epoch seconds.
    #[serde(default)]
    pub timestamp: Option<Value>,
    /// The record's wire message.
    #[serde(default)]
    pub message: Option<Envelope>,
    /// The JSON-RPC method.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// The JSON-RPC message's wire message.
    #[serde(default)]
    pub params: Option<Value>,
    /// A JSON-RPC response's result (known, nothing about calls).
    #[serde(default)]
    pub result: Option<Value>,
    /// A JSON-RPC error response.
    #[serde(default)]
    pub error: Option<Value>,
}

/// A wire message: `{type, payload}` (`WireMessageEnvelope`).
#[derive(Deserialize, Default)]
pub(super) struct Envelope {
    /// The message type (`ToolCall`, `ToolResult`, `SubagentEvent`, …).
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Its fields.
    #[serde(default)]
    pub payload: Value,
}

impl Envelope {
    /// The envelope a JSON value holds (`params` of a JSON-RPC message, `event` of a
    /// `SubagentEvent`).
    pub fn of(value: &Value) -> Envelope {
        Envelope {
            kind: value.get("type").and_then(Value::as_str).map(str::to_owned),
            payload: value.get("payload").cloned().unwrap_or(Value::Null),
        }
    }

    /// A string field of the payload.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.payload.get(key).and_then(Value::as_str)
    }
}
