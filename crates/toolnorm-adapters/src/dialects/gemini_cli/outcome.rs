//! How a Gemini CLI call ended: its error, with the shared codes.

use toolnorm::{ErrorCode, ToolError, ToolKind};

use crate::track::{Facts, exit_error, text_error};

/// The error of a failed call: `kind` is Gemini CLI's `ToolErrorType` (`file_not_found`,
/// `mcp_tool_error`, `policy_violation`, …), `message` its text, `output` what the
/// stream showed of it.
pub(super) fn error(
    facts: &Facts<'_>,
    id: &str,
    kind: &str,
    message: &str,
    output: Option<&str>,
) -> ToolError {
    let mut error = text_error(if message.is_empty() {
        output.unwrap_or_default()
    } else {
        message
    });
    let is_mcp = facts.kind(id) == Some(ToolKind::Mcp);
    error.code = code(kind, message, is_mcp);
    error
}

/// The code of an error of `kind` (empty when the record keeps none) with `message`.
fn code(kind: &str, message: &str, is_mcp: bool) -> Option<ErrorCode> {
    Some(match kind {
        "policy_violation" | "permission_denied" => ErrorCode::PermissionDenied,
        "mcp_tool_error" => ErrorCode::McpError,
        "invalid_tool_params" | "tool_not_registered" => ErrorCode::InvalidToolUse,
        _ if is_mcp => ErrorCode::McpError,
        "" if message.starts_with("Tool execution denied by policy") => ErrorCode::PermissionDenied,
        "" if message.starts_with("Tool \"") && message.contains("\" not found") => {
            ErrorCode::InvalidToolUse
        }
        "" => return None,
        other => ErrorCode::Other(other.to_owned()),
    })
}

/// A shell command's exit status, from the text Gemini CLI gives the model
/// (`Exit Code: 3`), when it is not 0.
pub(super) fn exit_status(text: &str) -> Option<i64> {
    text.lines().find_map(|line| {
        let code: i64 = line
            .trim()
            .strip_prefix("Exit Code: ")?
            .trim()
            .parse()
            .ok()?;
        (code != 0).then_some(code)
    })
}

/// The error of a shell command that exited with `code`.
pub(super) fn exit(code: i64, output: &str) -> ToolError {
    exit_error(code, output)
}
