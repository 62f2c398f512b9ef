//! How a `completed` `tool_call` ended: its `result` is `success`, `failure`, `error` or
//! `rejected`, each an object of the tool's own fields.
//!
//! | result | part |
//! | --- | --- |
//! | `success` of a shell call, `exitCode` 0 | complete, output its interleaved output (else stdout, then stderr) |
//! | `success` or `failure` of a shell call, `exitCode` N ≠ 0 | error `Exit code N`, code `exit_code` |
//! | `success` of a read | complete, output the file's `content` |
//! | `success` of an MCP call | complete, output its content's text; `isError` fails it with `mcp_error` |
//! | `success` of any other tool | complete, output the `success` object |
//! | `failure` / `error` | error with its `message` (or `error` text) |
//! | `rejected` | error with its `reason`, code `permission_denied` |
//! | none | complete, no output |

use serde_json::{Map, Value};
use toolnorm::{ErrorCode, Payload, ToolError};

use super::payload::{Call, Timing};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::kept_object::{KeptObject, kept_items};
use crate::track::{Ending, Facts};
use crate::track::{MCP_TOOL_FAILED, exit_error, text_error};

/// Applies the end of call `id`.
pub(super) fn apply(line: u64, id: &str, call: &Call<'_>, timing: Timing, facts: &mut Facts<'_>) {
    let ending = || Ending::at(timing.completed()).elapsed_ms(timing.elapsed_ms());
    let Some(result) = call.result else {
        return facts.complete(line, id, None::<Payload>, ending());
    };
    let Some(object) = KeptObject::of(result) else {
        // A bare value: the result as the provider gave it.
        return facts.complete(line, id, Some(result.clone()), ending());
    };
    let shell = call.key == "shellToolCall";
    if let Some(success) = object.get("success") {
        match success_outcome(call, shell, success) {
            Ok(output) => facts.complete(line, id, output, ending()),
            Err(error) => facts.fail(line, id, error, ending()),
        }
    } else if let Some(rejected) = object.get("rejected") {
        let reason = message(rejected.value(), &["reason", "message"]);
        let mut error = ToolError::new(reason.unwrap_or("The call was rejected"))
            .with_code(ErrorCode::PermissionDenied);
        error.details = Some(rejected.clone());
        facts.fail(line, id, error, ending());
    } else if let Some(failure) = object.get("failure").or_else(|| object.get("error")) {
        let fields = KeptObject::of(failure).unwrap_or_default();
        let error = match shell.then(|| exit_code(&fields)).flatten() {
            Some(code) if code != 0 => exit_error(code, shell_text(&fields).into_value()),
            _ => {
                let mut error = match failure.text() {
                    Some(text) => text_error(&text),
                    None => text_error(
                        message(
                            failure.value(),
                            &["message", "error", "errorMessage", "stderr"],
                        )
                        .unwrap_or("the tool failed"),
                    ),
                };
                if error.details.is_none() && failure.is_object() {
                    error.details = Some(failure.clone());
                }
                error
            }
        };
        facts.fail(line, id, error, ending());
    } else {
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            format!(
                "Cursor CLI `{}` result with none of `success`, `failure`, `error`, `rejected`: kept as its output",
                call.name
            ),
        ));
        facts.complete(line, id, Some(result.clone()), ending());
    }
}

/// The output of a `success`, or the error it still is (a non-zero exit, an MCP error).
fn success_outcome(
    call: &Call<'_>,
    shell: bool,
    success: &Payload,
) -> Result<Option<Payload>, ToolError> {
    if shell {
        let fields = KeptObject::of(success).unwrap_or_default();
        return match exit_code(&fields) {
            Some(code) if code != 0 => Err(exit_error(code, shell_text(&fields).into_value())),
            _ => Ok(Some(shell_text(&fields))),
        };
    }
    match call.key {
        "readToolCall" => Ok(Some(
            KeptObject::of(success)
                .and_then(|fields| fields.get("content").cloned())
                .unwrap_or_else(|| success.clone()),
        )),
        "mcpToolCall" => {
            let fields = KeptObject::of(success).unwrap_or_default();
            let text = mcp_text(&fields);
            let is_error = fields
                .get("isError")
                .and_then(|flag| flag.value().as_bool());
            if is_error == Some(true) {
                let mut error = match &text {
                    Some(text) => text_error(&text.text().unwrap_or_default()),
                    None => ToolError::new(MCP_TOOL_FAILED),
                };
                error.code = Some(ErrorCode::McpError);
                return Err(error);
            }
            Ok(Some(text.unwrap_or_else(|| success.clone())))
        }
        _ => Ok(Some(success.clone())),
    }
}

/// A shell result's exit status.
fn exit_code(result: &KeptObject) -> Option<i64> {
    result
        .get("exitCode")
        .and_then(|code| code.value().as_i64())
}

/// A shell result's output: its interleaved output, else stdout then stderr, kept as it
/// came when it is one field.
fn shell_text(result: &KeptObject) -> Payload {
    let field = |key: &str| {
        result
            .get(key)
            .filter(|text| text.text_head(1).is_some_and(|head| !head.is_empty()))
    };
    if let Some(interleaved) = field("interleavedOutput") {
        return interleaved.clone();
    }
    match (field("stdout"), field("stderr")) {
        (Some(out), Some(err)) => {
            let (out, err) = (
                out.text().unwrap_or_default(),
                err.text().unwrap_or_default(),
            );
            let gap = if out.ends_with('\n') { "" } else { "\n" };
            Payload::from(format!("{out}{gap}{err}"))
        }
        (Some(text), None) | (None, Some(text)) => text.clone(),
        (None, None) => Payload::from(String::new()),
    }
}

/// An MCP result's text: the `text` of each content item, joined (one item's kept as it
/// came).
fn mcp_text(success: &KeptObject) -> Option<Payload> {
    let items = kept_items(success.get("content")?)?;
    let texts: Vec<Payload> = items
        .iter()
        .filter_map(|item| {
            let text = KeptObject::of(item)?.get("text")?.clone();
            if text.is_string() {
                return Some(text);
            }
            KeptObject::of(&text)?
                .get("text")
                .filter(|text| text.is_string())
                .cloned()
        })
        .collect();
    match texts.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        many => {
            let texts: Vec<_> = many.iter().filter_map(Payload::text).collect();
            Some(Payload::from(texts.join("\n")))
        }
    }
}

/// The first of `keys` that holds non-empty text.
fn message<'v>(value: &'v Value, keys: &[&str]) -> Option<&'v str> {
    let object: &Map<String, Value> = value.as_object()?;
    keys.iter().find_map(|key| match object.get(*key) {
        Some(Value::String(text)) if !text.trim().is_empty() => Some(text.as_str()),
        Some(Value::Object(inner)) => inner
            .get("message")
            .and_then(Value::as_str)
            .filter(|text| !text.trim().is_empty()),
        _ => None,
    })
}
