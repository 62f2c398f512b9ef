//! What the two UI stream formats (`ai-sdk`, `ag-ui`) share: the `toolnorm` object that
//! carries the contract fields the protocols have no field for, how a call is grouped
//! with its session, and the argument text of a partial input.

use serde::Serialize;
use serde_json::{Map, Value, json};
use toolnorm::{ErrorCode, JsonObject, NormalizedToolPart, Timing, ToolError, ToolKind, ToolState};

/// The key under which both formats carry [`UiMeta`] (`toolMetadata.toolnorm` in the
/// AI SDK chunks, `metadata.toolnorm` in AG-UI events), as `_meta.toolnorm` in ACP.
pub const UI_META_KEY: &str = "toolnorm";

/// The contract fields a UI protocol has no field for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UiMeta {
    /// The part's `kind`.
    pub kind: ToolKind,
    /// The part's `title` (AG-UI has no field for it; the AI SDK chunks carry it as
    /// `title` and leave this out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The part's `state` (AG-UI only: its events say no more than started, arguments
    /// complete, result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<ToolState>,
    /// The part's `error`: message, code and details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// The part's `timing`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// The part's `metadata`, without the streamed-output keys of a running call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

impl UiMeta {
    /// The fields of `part`; `title` and `state` only when `with_title_and_state`.
    pub fn of(part: &NormalizedToolPart, with_title_and_state: bool) -> UiMeta {
        let metadata = part.metadata.as_ref().map(|metadata| {
            let mut metadata = metadata.clone();
            for key in STREAMED_KEYS {
                metadata.remove(*key);
            }
            metadata
        });
        UiMeta {
            kind: part.kind,
            title: with_title_and_state.then(|| part.title.clone()),
            state: with_title_and_state.then_some(part.state),
            error: part.error.clone(),
            timing: part.timing.clone().filter(|timing| !timing.is_empty()),
            metadata: metadata.filter(|metadata| !metadata.is_empty()),
        }
    }

    /// `{"toolnorm": {…}}`.
    pub fn wrapped(&self) -> Value {
        let mut object = Map::new();
        object.insert(UI_META_KEY.into(), json!(self));
        Value::Object(object)
    }
}

/// Metadata keys the core derives from the streamed output of a running call; left out
/// (the output itself travels with the result).
const STREAMED_KEYS: &[&str] = &[
    toolnorm::meta::PARTIAL_OUTPUT,
    toolnorm::meta::OUTPUT_TRUNCATED,
    toolnorm::meta::OUTPUT_TOTAL_BYTES,
    toolnorm::meta::OUTPUT_CAP_BYTES,
];

/// Whether a failed call was refused rather than run: a permission check or the user
/// said no (`permission_denied`, `user_rejected`).
pub fn is_denial(part: &NormalizedToolPart) -> bool {
    part.state == ToolState::Error
        && part.error.as_ref().is_some_and(|error| {
            matches!(
                error.code,
                Some(ErrorCode::PermissionDenied | ErrorCode::UserRejected)
            )
        })
}

/// The part's session (`metadata.sessionId`), if it names one.
pub fn session_of(part: &NormalizedToolPart) -> Option<&str> {
    part.metadata
        .as_ref()?
        .get(toolnorm::meta::SESSION_ID)?
        .as_str()
}

/// The call that spawned this one (`metadata.parentToolCallId`), if any.
pub fn parent_of(part: &NormalizedToolPart) -> Option<&str> {
    part.metadata
        .as_ref()?
        .get(toolnorm::meta::PARENT_TOOL_CALL_ID)?
        .as_str()
}

/// The argument text of an input that may still grow: its JSON without the closing
/// brackets at the end, so that a later input with more keys or items extends it. A
/// partial-JSON parser (the AI SDK's) reads it back as the input itself.
pub fn open_json(input: &Value) -> String {
    let text = input.to_string();
    text.trim_end_matches(['}', ']']).to_owned()
}

/// The text a result shows: a string output as it is, anything else as JSON; nothing
/// for a missing or `null` output.
pub fn output_text(output: Option<&Value>) -> String {
    match output {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// Frames a JSON line as a server-sent event (`data: …` and a blank line).
pub fn sse(line: &str) -> String {
    format!("data: {line}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_json_is_extended_by_a_grown_input() {
        let small = open_json(&json!({"command": "ls"}));
        let grown = open_json(&json!({"command": "ls", "cwd": "/tmp"}));
        assert_eq!(small, r#"{"command":"ls""#);
        assert!(grown.starts_with(&small));
        assert_eq!(open_json(&json!({"a": "}"})), r#"{"a":"}""#);
        assert_eq!(open_json(&json!([[1], {}])), "[[1],{");
        assert_eq!(open_json(&json!("text")), r#""text""#);
    }
}
