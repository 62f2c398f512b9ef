//! OpenHands' events, as far as the tool calls need them: hand-written serde structs of
//! the fields read. OpenHands publishes Python dataclasses only (`openhands/events/`,
//! serialized by `event_to_dict` of `openhands/events/serialization/event.py`); no schema
//! of them is pinned. Every field is optional, so an event that lacks one still reads and
//! the reader says what is missing.

use serde::Deserialize;
use serde_json::{Number, Value};
use toolnorm::Timestamp;

/// One event: an action (`action`, its `args`) or an observation (`observation`, its
/// `content`, `extras` and `cause`), with its `id`, `timestamp` and `source`.
#[derive(Deserialize, Default)]
pub(super) struct Event {
    /// Its number in the session's stream (`events/<id>.json`).
    #[serde(default)]
    pub id: Option<Number>,
    /// When it happened: ISO 8601, without a zone (the machine's local time).
    #[serde(default)]
    pub timestamp: Option<Timestamp>,
    /// An action's type (`run`, `read`, `edit`, `message`, …).
    #[serde(default)]
    pub action: Option<String>,
    /// An action's fields (`command`, `path`, …).
    #[serde(default)]
    pub args: Option<Value>,
    /// An observation's type (`run`, `read`, `error`, `user_rejected`, …).
    #[serde(default)]
    pub observation: Option<String>,
    /// The action an observation answers: its event `id`.
    #[serde(default)]
    pub cause: Option<Number>,
    /// An observation's text (a command's output, a file's lines, an error's message).
    #[serde(default)]
    pub content: Option<Value>,
    /// An observation's fields (`metadata.exit_code` of a command, `path`, …).
    #[serde(default)]
    pub extras: Option<Value>,
    /// The model's function call an action runs, and the observation that answers it.
    #[serde(default)]
    pub tool_call_metadata: Option<Value>,
}

/// An event's `tool_call_metadata`: `{function_name, tool_call_id, model_response,
/// total_calls_in_response}` (the model's whole response, kept on each call it made).
#[derive(Deserialize, Default)]
pub(super) struct ToolCallMetadata {
    /// The function the model called (`execute_bash`, `str_replace_editor`, an MCP tool).
    #[serde(default)]
    pub function_name: Option<String>,
    /// The model's id of the call.
    #[serde(default)]
    pub tool_call_id: Option<String>,
}

impl Event {
    /// The event's `tool_call_metadata`, read: `Err` with what is wrong when it is there
    /// but not the object OpenHands writes.
    pub(super) fn metadata(&self) -> Result<Option<ToolCallMetadata>, String> {
        let Some(value) = &self.tool_call_metadata else {
            return Ok(None);
        };
        let metadata = ToolCallMetadata::deserialize(value)
            .map_err(|error| format!("its `tool_call_metadata` is not OpenHands': {error}"))?;
        match metadata.tool_call_id.as_deref() {
            Some(id) if !id.is_empty() => Ok(Some(metadata)),
            _ => Err("its `tool_call_metadata` names no `tool_call_id`".to_owned()),
        }
    }

    /// An `args` or `extras` field that is a string.
    pub(super) fn field<'a>(fields: Option<&'a Value>, key: &str) -> Option<&'a str> {
        fields?.get(key)?.as_str()
    }
}
