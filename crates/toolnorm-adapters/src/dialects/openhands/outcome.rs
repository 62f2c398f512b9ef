//! How an observation ends the call of the action it answers.
//!
//! | observation | the call |
//! | --- | --- |
//! | `run` (`extras.metadata.exit_code`; `extras.exit_code` before 0.2x) | completed with the output, failed with `exit_code` when the command exited non-zero; `-1` (OpenHands' "no exit code": a command still running when it stopped waiting, or one it could not read) completes |
//! | `error` (an `ErrorObservation`: the runtime's or the agent's error, in `content`) | failed |
//! | `user_rejected` (a `UserRejectObservation`: confirmation mode refused it) | failed, `user_rejected` |
//! | `mcp` (`content`: the MCP `CallToolResult` as JSON) | completed with the result, failed with `mcp_error` when it says `isError` |
//! | `browse` with `extras.error` true | failed |
//! | `delegate` (`extras.outputs`: what the subagent gave back) | completed with its outputs |
//! | any other (`read`, `write`, `edit`, `run_ipython`, `browse`, `think`, `task_tracking`, `download`, `null`, …) | completed with `content` |

use serde_json::Value;
use toolnorm::{ErrorCode, Timestamp};

use super::wire::Event;
use crate::track::{Ending, Facts, exit_error, text_error};

/// OpenHands' exit code of a command whose exit it does not know.
const NO_EXIT_CODE: i64 = -1;

/// Ends call `id` as observation `event` of type `kind` says.
pub(super) fn end(line: u64, id: &str, kind: &str, event: &Event, facts: &mut Facts<'_>) {
    let at: Option<Timestamp> = event.timestamp.clone();
    let ending = Ending::at(at);
    let text = content_text(event.content.as_ref());
    let extras = event.extras.as_ref();
    match kind {
        "run" => match exit_code(extras) {
            Some(code) if code != 0 && code != NO_EXIT_CODE => {
                facts.fail(line, id, exit_error(code, text), ending);
            }
            _ => facts.complete(line, id, output(text), ending),
        },
        "error" => facts.fail(
            line,
            id,
            text_error(or_else(&text, "the tool failed")),
            ending,
        ),
        "user_rejected" => {
            let mut error = text_error(or_else(&text, "the user rejected the action"));
            error.code = Some(ErrorCode::UserRejected);
            facts.fail(line, id, error, ending);
        }
        "mcp" => mcp_result(line, id, text, ending, facts),
        "browse" if extras.and_then(|extras| extras.get("error")) == Some(&Value::Bool(true)) => {
            facts.fail(
                line,
                id,
                text_error(or_else(&text, "the page failed")),
                ending,
            );
        }
        "delegate" => {
            let outputs = extras
                .and_then(|extras| extras.get("outputs"))
                .filter(|outputs| !is_empty(outputs))
                .cloned();
            facts.complete(line, id, outputs.or_else(|| output(text)), ending);
        }
        _ => facts.complete(line, id, output(text), ending),
    }
}

/// An MCP tool's result: OpenHands keeps the server's `CallToolResult` as JSON text.
fn mcp_result(line: u64, id: &str, text: String, ending: Ending, facts: &mut Facts<'_>) {
    let Ok(result) = serde_json::from_str::<Value>(&text) else {
        return facts.complete(line, id, output(text), ending);
    };
    if result.get("isError") != Some(&Value::Bool(true)) {
        return facts.complete(line, id, Some(result), ending);
    }
    let said: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    let said = said.join("\n");
    let mut error = text_error(or_else(&said, "the MCP tool failed"));
    error.code = Some(ErrorCode::McpError);
    facts.fail(line, id, error, ending);
}

/// A command's exit code: `extras.metadata.exit_code`, or `extras.exit_code` as versions
/// before the command metadata wrote it.
fn exit_code(extras: Option<&Value>) -> Option<i64> {
    let extras = extras?;
    extras
        .get("metadata")
        .and_then(|metadata| metadata.get("exit_code"))
        .or_else(|| extras.get("exit_code"))
        .and_then(Value::as_i64)
}

/// An observation's `content` as text (it is always a string in OpenHands' events; any
/// other value is kept as its JSON).
fn content_text(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// The output a call completes with: its text, unless there is none.
fn output(text: String) -> Option<Value> {
    (!text.is_empty()).then_some(Value::String(text))
}

/// `text`, or `otherwise` when it is blank.
fn or_else<'a>(text: &'a str, otherwise: &'a str) -> &'a str {
    if text.trim().is_empty() {
        otherwise
    } else {
        text
    }
}

/// Whether a value says nothing (`null`, `""`, `{}`, `[]`).
pub(super) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Object(object) => object.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}
