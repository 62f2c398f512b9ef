//! Mistral Vibe's lines, as far as the tool calls need them: hand-written serde structs
//! of the fields read. Vibe publishes pydantic models only (its local harness's
//! `session_protocol.py` and `protocol.py`, the entries built in `vibe/_projection.py`, the
//! journal records of `vibe/_storage.py`); no schema of them is pinned. Every field is
//! optional, so a line that lacks one still reads and the reader says what is missing.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Number, Value};

use crate::read::apart::{KeptAt, Step, ValueApart};

/// One entry of a session's public history, as `vibe -p --output streaming` prints it:
/// `message`, `reasoning`, `effect` (a tool call), `checkpoint` or `notice`, each with its
/// `id`, `sessionId`, `turnId` and times.
#[derive(Deserialize)]
pub(super) struct Entry<'a> {
    /// The entry type.
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    /// The entry id (`effect-<action id>` for a tool call).
    #[serde(default)]
    pub id: Option<String>,
    /// When the entry was made, epoch milliseconds.
    #[serde(rename = "createdAt", default)]
    pub created_at: Option<Number>,
    /// When it last changed, epoch milliseconds.
    #[serde(rename = "updatedAt", default)]
    pub updated_at: Option<Number>,
    /// An effect's title: the tool's name.
    #[serde(default)]
    pub title: Option<String>,
    /// An effect's call: what it runs, with what input.
    #[serde(default)]
    pub detail: Option<Detail>,
    /// An effect's state: `running`, or how it ended.
    #[serde(default)]
    pub state: Option<State>,
}

/// An effect's `detail`: `{"kind", "toolName", "input", "display"}` (a subagent's with its
/// `agentName` and `childSessionId`). Streaming output shows a built-in's call as the
/// client presents it: `kind` `shell`, `file_read`, `file_write`, `file_edit`,
/// `file_search`, `todo` (or `tool`), and its input with camelCase keys (`filePath`).
#[derive(Deserialize, Default)]
pub(super) struct Detail {
    /// What the call is: `shell`, `file_read`, …, `tool`, `subagent`.
    #[serde(default)]
    pub kind: Option<String>,
    /// The tool: a built-in's name (`file_system.bash`), or `<group>.<tool>` for a tool a
    /// group provides (`vibe.todo`, `mcp_<server>.<tool>`).
    #[serde(rename = "toolName", default)]
    pub tool_name: Option<String>,
    /// The call's arguments.
    #[serde(default)]
    pub input: Option<Value>,
    /// A subagent's session, once it started.
    #[serde(rename = "childSessionId", default)]
    pub child_session_id: Option<String>,
}

/// An effect's `state`: `{"status", "outputText", "output"?, "error"?, "reason"?}`.
#[derive(Deserialize, Default)]
pub(super) struct State {
    /// `running`, `completed`, `failed`, `skipped` or `cancelled`.
    #[serde(default)]
    pub status: Option<String>,
    /// A finished call's result, as the tool gave it (`{"type": "success", "content",
    /// "structured_content"?}`), kept as the JSON text it came as.
    #[serde(default)]
    pub output: Option<toolnorm::Payload>,
    /// The text of the result's content.
    #[serde(rename = "outputText", default)]
    pub output_text: Option<String>,
    /// A failed call's error.
    #[serde(default)]
    pub error: Option<ProtocolError>,
    /// Why a skipped or cancelled call did not run.
    #[serde(default)]
    pub reason: Option<String>,
    /// How the client shows the outcome: `success` is false for a command that exited
    /// non-zero, whose state is `completed` all the same.
    #[serde(default)]
    pub display: Option<Display>,
}

/// An effect state's `display`: `{"success", "verb", "message", …}`.
#[derive(Deserialize, Default)]
pub(super) struct Display {
    /// Whether the call did what it was asked.
    #[serde(default)]
    pub success: Option<bool>,
}

/// A tool's error: `{"code", "message", "retryable"?, "details"?}`.
#[derive(Deserialize, Default, Clone)]
pub(super) struct ProtocolError {
    /// `tool_failed`, `tool_denied`, `mcp_tool_error`, …
    #[serde(default)]
    pub code: Option<String>,
    /// What went wrong.
    #[serde(default)]
    pub message: Option<String>,
    /// More of it, when the tool gave some.
    #[serde(default)]
    pub details: Option<Value>,
}

/// One record of a session journal (`journal/<n>.jsonl`): `{"type", "sequence",
/// "payload", "record_sha256", "previous_record_sha256",
/// "recovery_journal_record_version"}`.
#[derive(Deserialize)]
pub(super) struct Record<'a> {
    /// The record type (`core_input`, `action_intent`, `action_result`, …).
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    /// What it records.
    #[serde(default)]
    pub payload: Option<Payload>,
}

/// The payload fields the calls need: an action's id, kind, request and result.
#[derive(Deserialize, Default)]
pub(super) struct Payload {
    /// The action an intent or result is about.
    #[serde(default)]
    pub action_id: Option<String>,
    /// An intent's kind: `completion`, `tool`, `hook`, `process`, …
    #[serde(default)]
    pub kind: Option<String>,
    /// An intent's request: the model call, or the tool call to run.
    #[serde(default)]
    pub request: Option<Request>,
    /// A result: the event the action gave.
    #[serde(default)]
    pub result: Option<Value>,
}

/// An intent's request, read as a value but for the text of each block of a model call's
/// messages, kept apart as the JSON text it came as with `null` left in its place: a
/// tool's output, told to the model, can be the biggest thing in a line.
pub(super) type Request = ValueApart<MessageTexts>;

/// Where a model call's messages' block texts lie in a request.
pub(super) struct MessageTexts;

impl KeptAt for MessageTexts {
    const IN_OBJECT: &'static [Step] = &[
        Step::Key("model_input"),
        Step::Key("messages"),
        Step::Key("messages"),
        Step::Each,
        Step::Key("content"),
        Step::Each,
        Step::Marked("text"),
    ];
}

/// A tool action's request (`runtime_builtin_tool_call`: `call: {"name", "arguments"}`;
/// `provided_tool_call`: `call: {"group_name", "tool_name", "arguments"}`).
#[derive(Deserialize, Default)]
pub(super) struct ToolRequest {
    /// The model's call id.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The call.
    #[serde(default)]
    pub call: Option<ToolCall>,
}

/// The call of a tool action.
#[derive(Deserialize, Default)]
pub(super) struct ToolCall {
    /// A built-in's name (`file_system.bash`).
    #[serde(default)]
    pub name: Option<String>,
    /// A provided tool's group (`vibe`, `mcp_<server>`).
    #[serde(default)]
    pub group_name: Option<String>,
    /// A provided tool's name in its group.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// The arguments.
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// A tool action's result: `{"type": "tool_succeeded" | "tool_failed", "action_id",
/// "call_id", "result": {"type": "success" | "failure", "content", "structured_content"?,
/// "error"?}}`.
#[derive(Deserialize, Default)]
pub(super) struct ToolEvent {
    /// `tool_succeeded` or `tool_failed`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// The model's call id.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The tool's result.
    #[serde(default)]
    pub result: Option<ToolResult>,
}

/// A tool's result.
#[derive(Deserialize, Default)]
pub(super) struct ToolResult {
    /// Content blocks (`{"type": "text", "text"}`, …).
    #[serde(default)]
    pub content: Option<Value>,
    /// The tool's structured output (bash: `command`, `stdout`, `stderr`, `returncode`).
    #[serde(default)]
    pub structured_content: Option<Value>,
    /// A failure's error.
    #[serde(default)]
    pub error: Option<ProtocolError>,
}

/// A completion's part: `{"type": "tool_call", "id", "name", "arguments_json"}` (or text,
/// reasoning).
#[derive(Deserialize, Default)]
pub(super) struct Part {
    /// `tool_call`, `text`, `reasoning`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// The model's call id.
    #[serde(default)]
    pub id: Option<String>,
    /// The tool, as the model named it (`bash`).
    #[serde(default)]
    pub name: Option<String>,
    /// The arguments, JSON text as the model sent them.
    #[serde(default)]
    pub arguments_json: Option<String>,
}

/// A message of a model call's input: the `tool` messages end the calls no action ran.
#[derive(Deserialize, Default)]
pub(super) struct ModelMessage {
    /// `system`, `user`, `assistant` or `tool`.
    #[serde(default)]
    pub role: Option<String>,
    /// The call a `tool` message answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// `success` or `failure`.
    #[serde(default)]
    pub outcome: Option<String>,
    /// What the model is told: a text, or blocks whose texts are read apart (see
    /// `journal::told`).
    #[serde(default)]
    pub content: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::json::same_error;
    use crate::read::json::without_position;

    /// A state's output as it was read before: a value.
    #[derive(Deserialize)]
    struct AsValue {
        #[serde(default)]
        output: Option<Value>,
    }

    #[test]
    fn an_output_reads_as_a_value_reads() {
        for output in [
            r#"{"filePath":"a","content":"a\n\u00e9 \ud83d\ude00 \"q\""}"#,
            r#""\ud800""#,
            r#""\u0041\/""#,
            r#"{ "type" : "success" , "content" : [ ] , "n" : 1.50 }"#,
            r#"{"content":"a","content":"b"}"#,
            "1e400",
            "-0",
            "[]",
            "null",
            "true",
            r#"[1,]"#,
        ] {
            let state = format!(r#"{{"status":"completed","output":{output}}}"#);
            let now = serde_json::from_str::<State>(&state).map_err(|e| without_position(&e));
            let before = serde_json::from_str::<AsValue>(&state).map_err(|e| without_position(&e));
            match (now, before) {
                (Ok(now), Ok(before)) => {
                    assert_eq!(
                        now.output.map(toolnorm::Payload::into_value),
                        before.output,
                        "{state}"
                    );
                }
                (Err(now), Err(before)) => {
                    assert!(same_error(&now, &before), "{state}: {now} / {before}");
                }
                (now, before) => panic!("{state}: {:?} / {:?}", now.err(), before.err()),
            }
        }
    }

    #[test]
    fn an_output_is_kept_as_it_came() {
        let state: State = serde_json::from_str(r#"{"output":{"content":"a\tb"}}"#).unwrap();
        assert_eq!(
            state.output.as_ref().and_then(toolnorm::Payload::raw_text),
            Some(r#"{"content":"a\tb"}"#)
        );
    }
}
