//! How a Mistral Vibe tool result ends its call.
//!
//! A result is `success` or `failure`. A failure carries the tool's error (`code`,
//! `message`): `tool_failed` for a tool that could not do its work (a file not found),
//! `tool_denied` and `approval_required` for a call the approval policy or the user
//! refused, `mcp_tool_error` for an MCP tool's own error. A `bash` command that exits
//! with a non-zero status is a success whose structured output holds its `returncode`:
//! it fails the call with `exit_code`. A call the model made with arguments the tool does
//! not take never runs: the model is told so in a `tool` message whose text is
//! `{"result": {"type": "error", "error": {"name": "InvalidToolCall", …}}}`.

use serde_json::Value;
use toolnorm::{ErrorCode, ToolError};

use super::wire::ProtocolError;
use crate::track::{exit_error, text_error};

/// The message of a call whose turn was interrupted while it ran.
const ACTION_CANCELLED: &str = "Action cancelled";

/// How a result ends its call.
pub(super) enum Outcome {
    /// Completed, with this output.
    Done(Option<Value>),
    /// Failed.
    Failed(ToolError),
}

/// A successful result's outcome: its structured output when it has one, else its text,
/// else its content blocks; a command that exited non-zero fails.
pub(super) fn success(
    structured: Option<Value>,
    text: Option<String>,
    content: Option<Value>,
) -> Outcome {
    if let Some(error) = structured.as_ref().and_then(exit_status) {
        return Outcome::Failed(error);
    }
    let output = match (structured, text, content) {
        (Some(structured), _, _) if !structured.is_null() => Some(structured),
        (_, Some(text), _) if !text.is_empty() => Some(Value::String(text)),
        (_, _, Some(Value::Array(blocks))) if !blocks.is_empty() => Some(Value::Array(blocks)),
        _ => None,
    };
    Outcome::Done(output)
}

/// The `exit_code` error of a bash result (`command`, `stdout`, `stderr`, `returncode`)
/// whose command exited non-zero: its output is what it printed, stdout then stderr.
fn exit_status(structured: &Value) -> Option<ToolError> {
    let code = structured.get("returncode")?.as_i64()?;
    if code == 0 || structured.get("stdout").is_none() {
        return None;
    }
    let printed: Vec<&str> = ["stdout", "stderr"]
        .iter()
        .filter_map(|key| structured.get(key).and_then(Value::as_str))
        .map(str::trim_end)
        .filter(|text| !text.is_empty())
        .collect();
    Some(exit_error(code, printed.join("\n")))
}

/// A failed result's error: its message, and the canonical code of Vibe's.
pub(super) fn failure(error: &ProtocolError) -> ToolError {
    let message = error
        .message
        .as_deref()
        .filter(|message| !message.trim().is_empty())
        .unwrap_or("the tool failed");
    let mut tool_error = ToolError::new(message);
    if let Some(details) = error.details.clone().filter(|details| !details.is_null()) {
        tool_error.details = Some(details.into());
    }
    // A call its turn's interruption cancelled (`effect_recovery_failed`).
    tool_error.code = if message == ACTION_CANCELLED {
        Some(ErrorCode::Interrupted)
    } else {
        error
            .code
            .as_deref()
            .and_then(|code| canonical_code(code, message))
    };
    tool_error
}

/// The canonical code of a Vibe error code; `None` for a tool that failed at its work.
fn canonical_code(code: &str, message: &str) -> Option<ErrorCode> {
    Some(match code {
        "tool_failed" => return None,
        // Refused by the user asked, or by the approval policy (or with nobody to ask).
        "tool_denied" if message.contains("approval callback") => ErrorCode::UserRejected,
        "tool_denied" | "approval_required" | "tool_skipped" => ErrorCode::PermissionDenied,
        "mcp_tool_error"
        | "mcp_invalid_result"
        | "connector_tool_error"
        | "connector_invalid_result" => ErrorCode::McpError,
        "deprecated_tool" | "unsupported_action" => ErrorCode::InvalidToolUse,
        "subagent_interrupted" => ErrorCode::Interrupted,
        other => ErrorCode::from(other),
    })
}

/// The error of a `tool` message that tells the model its call failed (a call no action
/// ran: arguments the tool does not take, a tool it does not have): the JSON text
/// `{"result": {"type": "error", "error": {"name", "message"}}}`, or any other text.
pub(super) fn told_failure(text: &str) -> ToolError {
    let told: Option<Value> = serde_json::from_str(text).ok();
    let error = told
        .as_ref()
        .and_then(|told| told.get("result"))
        .and_then(|result| result.get("error"));
    let Some(error) = error else {
        return program_failure(text).unwrap_or_else(|| text_error(text));
    };
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the tool call failed");
    let mut tool_error = ToolError::new(message);
    tool_error.code = match error.get("name").and_then(Value::as_str) {
        Some("InvalidToolCall" | "UnknownTool" | "ToolNotFound") => Some(ErrorCode::InvalidToolUse),
        Some(name) => Some(ErrorCode::from(name)),
        None => None,
    };
    tool_error
}

/// A `run_typescript` program that threw: `run_typescript failed: {"name", "message",
/// "stack", …}` on the first line (the calls it made listed after), its message the
/// error's, the whole error its details.
fn program_failure(text: &str) -> Option<ToolError> {
    let (_, thrown) = text.lines().next()?.split_once(" failed: ")?;
    let thrown: Value = serde_json::from_str(thrown).ok()?;
    let message = thrown.get("message")?.as_str()?;
    let mut error = ToolError::new(message);
    error.details = Some(thrown.clone().into());
    Some(error)
}

/// The text of content blocks (`[{"type": "text", "text"}]`), or of a plain string.
pub(super) fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use serde_json::json;
    use toolnorm::ErrorCode;

    use super::{Outcome, ProtocolError, failure, success, told_failure};

    #[test]
    fn a_command_that_exits_non_zero_fails_with_its_status() {
        let bash = json!({"command": "exit 3", "stdout": "checking\n", "stderr": "check failed\n", "returncode": 3, "was_truncated": false});
        let Outcome::Failed(error) = success(Some(bash), None, None) else {
            panic!("a success");
        };
        assert_eq!(error.code, Some(ErrorCode::ExitCode));
        assert_eq!(
            error.details.as_deref(),
            Some(&json!({"exitCode": 3, "output": "checking\ncheck failed"}))
        );
        let ok = json!({"command": "true", "stdout": "", "stderr": "", "returncode": 0});
        assert!(matches!(
            success(Some(ok), None, None),
            Outcome::Done(Some(_))
        ));
        assert!(matches!(
            success(None, Some("done".into()), None),
            Outcome::Done(Some(_))
        ));
        assert!(matches!(success(None, None, None), Outcome::Done(None)));
    }

    #[test]
    fn vibes_error_codes_are_canonical() {
        let error = |code: &str, message: &str| {
            failure(&ProtocolError {
                code: Some(code.into()),
                message: Some(message.into()),
                details: None,
            })
        };
        assert_eq!(error("tool_failed", "File not found").code, None);
        assert_eq!(
            error("tool_denied", "Tool execution denied by approval policy").code,
            Some(ErrorCode::PermissionDenied)
        );
        assert_eq!(
            error("tool_denied", "Tool execution denied by approval callback").code,
            Some(ErrorCode::UserRejected)
        );
        assert_eq!(
            error("mcp_tool_error", "division by zero").code,
            Some(ErrorCode::McpError)
        );
        assert_eq!(
            error("model_refused", "no").code,
            Some(ErrorCode::Other("model_refused".into()))
        );
        assert_eq!(error("tool_failed", " ").message, "the tool failed");
        assert_eq!(
            error("effect_recovery_failed", "Action cancelled").code,
            Some(ErrorCode::Interrupted)
        );
    }

    #[test]
    fn a_call_vibe_did_not_run_is_invalid() {
        let told = r#"{"result":{"type":"error","error":{"name":"InvalidToolCall","message":"tool arguments do not satisfy the declared input schema"}}}"#;
        let error = told_failure(told);
        assert_eq!(error.code, Some(ErrorCode::InvalidToolUse));
        assert_eq!(
            error.message,
            "tool arguments do not satisfy the declared input schema"
        );
        assert_eq!(told_failure("no such tool").message, "no such tool");
        let thrown = told_failure(
            "run_typescript failed: {\"name\":\"ToolError\",\"message\":\"division by zero\"}\nCalls, in order:\ntools.mcp_toolbox.divide 1: failed",
        );
        assert_eq!(thrown.message, "division by zero");
        assert_eq!(thrown.code, None);
    }
}
