//! How a Droid call ended: its error, with the shared codes. The stream's
//! `tool_result.error.message` and the session file's `tool_result` text are the same
//! text, so both readings give the same error.
//!
//! | text (after `Error: `) | code |
//! | --- | --- |
//! | `Command failed (exit code: N)` | `exit_code`, `details.exitCode` N and the output |
//! | `Exec ended early: insufficient permission to proceed…` | `permission_denied` |
//! | `Tool X is not permitted in this exec session…` | `permission_denied` |
//! | `This command is blocked by your organization's security policy…` (`commandBlocklist`) | `permission_denied` |
//! | `Not found: X…`, `… call rejected: missing required parameters…` | `invalid_tool_use` |
//! | `Command terminated by signal: SIGTERM` (the run was interrupted) | `interrupted`, the output in `details` |
//! | any error of an MCP tool | `mcp_error` |
//! | any other | none: the text's first line is the message |

use toolnorm::{ErrorCode, ToolError};

use crate::track::{exit_error, text_error};

/// What the CLI appends to a command's output: `[Process exited with code N]`.
const EXITED: &str = "[Process exited with code ";

/// The error of a failed call from the text the CLI gave the model; `is_mcp` for a call
/// of an MCP tool.
pub(super) fn error(text: &str, is_mcp: bool) -> ToolError {
    // Over JSON-RPC an MCP tool's error comes prefixed twice (`Error: Error: …`).
    let mut bare = text.trim();
    while let Some(rest) = bare.strip_prefix("Error: ") {
        bare = rest;
    }
    if let Some(code) = exit_status(bare) {
        let output = bare.split_once('\n').map_or("", |(_, rest)| rest);
        return exit_error(code, without_exit_line(output));
    }
    let mut error = text_error(bare);
    error.code = if bare.starts_with("Command terminated by signal") {
        Some(ErrorCode::Other("interrupted".to_owned()))
    } else if is_permission_refusal(bare) {
        Some(ErrorCode::PermissionDenied)
    } else if is_mcp {
        Some(ErrorCode::McpError)
    } else if bare.starts_with("Not found: ") || bare.contains(" call rejected: missing required") {
        Some(ErrorCode::InvalidToolUse)
    } else {
        None
    };
    error
}

/// The exit status of `Command failed (exit code: N)`, the first line of a failed
/// command's text.
fn exit_status(text: &str) -> Option<i64> {
    let first = text.lines().next()?;
    let rest = first.trim().strip_prefix("Command failed (exit code: ")?;
    rest.strip_suffix(')')?.trim().parse().ok()
}

/// A command's output without the CLI's closing `[Process exited with code N]` line.
fn without_exit_line(output: &str) -> String {
    let trimmed = output.trim_end();
    match trimmed.rfind(EXITED) {
        Some(at) if trimmed.ends_with(']') => trimmed[..at].trim_end().to_owned(),
        _ => trimmed.to_owned(),
    }
}

/// Whether the text says the exec session's autonomy level refused the call.
fn is_permission_refusal(text: &str) -> bool {
    text.starts_with("Exec ended early: insufficient permission")
        || text.starts_with("This command is blocked by your organization's security policy")
        || (text.starts_with("Tool ") && text.contains(" is not permitted in this exec session"))
}

#[cfg(test)]
mod tests {
    use super::error;
    use serde_json::json;
    use toolnorm::ErrorCode;

    #[test]
    fn a_failed_command_fails_with_its_exit_code_and_output() {
        let error = error(
            "Error: Command failed (exit code: 3)\noops\n\n\n[Process exited with code 3]",
            false,
        );
        assert_eq!(error.message, "Exit code 3");
        assert_eq!(error.code, Some(ErrorCode::ExitCode));
        assert_eq!(
            error.details.as_deref(),
            Some(&json!({"exitCode": 3, "output": "oops"}))
        );
    }

    #[test]
    fn refusals_unknown_tools_and_mcp_errors_have_their_codes() {
        let refused = error(
            "Error: Exec ended early: insufficient permission to proceed. Re-run with --auto medium.",
            false,
        );
        assert_eq!(refused.code, Some(ErrorCode::PermissionDenied));
        let not_permitted = error(
            "Error: Tool Create is not permitted in this exec session. Available tools: Read.",
            false,
        );
        assert_eq!(not_permitted.code, Some(ErrorCode::PermissionDenied));
        let unknown = error(
            "Error: Not found: Nonexistent. Only request exact names.",
            false,
        );
        assert_eq!(unknown.code, Some(ErrorCode::InvalidToolUse));
        let mcp = error("Error: division by zero", true);
        assert_eq!(mcp.code, Some(ErrorCode::McpError));
        assert_eq!(mcp.message, "division by zero");
        let interrupted = error(
            "Error: Command terminated by signal: SIGTERM\nstarted\n",
            false,
        );
        assert_eq!(
            interrupted.code,
            Some(ErrorCode::Other("interrupted".to_owned()))
        );
        assert_eq!(interrupted.message, "Command terminated by signal: SIGTERM");
        let plain = error("Error: Error reading file: ENOENT", false);
        assert_eq!(plain.code, None);
        assert_eq!(plain.message, "Error reading file: ENOENT");
    }
}
