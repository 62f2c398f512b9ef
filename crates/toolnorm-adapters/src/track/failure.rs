//! Failure classification shared by every provider: the same failure gets the same
//! error, whichever dialect reported it.

use serde_json::Value;
use toolnorm::ErrorCode;
use toolnorm::ToolError;

/// A command that exited with a non-zero `code`: message `Exit code N`, code `exit_code`,
/// and `details` `{exitCode, output}`, the same in every adapter.
pub fn exit_error(code: i64, output: impl Into<Value>) -> ToolError {
    ToolError::new(format!("Exit code {code}"))
        .with_code(ErrorCode::ExitCode)
        .with_details(serde_json::json!({ "exitCode": code, "output": output.into() }))
}

/// A failed command reported as text, `Exit code 3\n<output>` (Claude Code's `Bash`, and
/// agents speaking ACP): its [`exit_error`].
pub fn exit_code_error(text: &str) -> Option<ToolError> {
    let rest = text.trim_start().strip_prefix("Exit code ")?;
    let (number, output) = rest.split_once('\n').unwrap_or((rest, ""));
    let code: i64 = number.trim().parse().ok()?;
    Some(exit_error(code, output))
}

/// The message of a tool error given as text: its first non-empty line; the whole text
/// goes to `details.output` when there is more than that line.
pub fn text_error(text: &str) -> ToolError {
    let trimmed = text.trim();
    let first = trimmed.lines().next().unwrap_or_default().trim();
    let message = if first.is_empty() {
        "the tool failed"
    } else {
        first
    };
    let mut error = ToolError::new(message);
    if trimmed.len() > first.len() {
        error.details = Some(serde_json::json!({ "output": trimmed }).into());
    }
    error
}

/// Whether an error says a permission rule or the user refused the call. OpenCode 1.1
/// writes its tool errors as `Error: <message>` (fixtures/opencode-serve@1.1.53/).
pub fn is_refusal(error: &str) -> bool {
    let error = error.strip_prefix("Error: ").unwrap_or(error);
    error.starts_with(
        "The user has specified a rule which prevents you from using this specific tool call",
    ) || error.starts_with("The user rejected permission to use this specific tool call")
        || error.starts_with(USER_DECLINED)
}

/// Whether a failed call's text is Claude Code's own permission check refusing it, as the
/// versions that announce no `permission_denied` write it: `This command requires
/// approval`, or `rm in '…' was blocked. For security, Claude Code may only …`.
pub fn is_permission_check(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("This command requires approval")
        || (text.contains(" was blocked. For security, ") && text.contains("Claude Code may only"))
}

/// The message of a failed MCP tool call that says nothing of why.
pub const MCP_TOOL_FAILED: &str = "the MCP tool failed";

/// How Claude Code (and the agents built on it) says the user declined a call.
pub const USER_DECLINED: &str = "The user doesn't want to proceed with this tool use";

/// The message inside Claude Code's `<tool_use_error>…</tool_use_error>` (a call the CLI
/// refused to run: unknown tool, invalid input), in its own streams and as its ACP adapter
/// forwards it.
pub fn tool_use_error(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix("<tool_use_error>")?;
    let inner = inner.strip_suffix("</tool_use_error>").unwrap_or(inner);
    Some(inner.strip_prefix("Error: ").unwrap_or(inner))
}

#[cfg(test)]
mod tests {

    #[test]
    fn claude_codes_own_permission_checks_are_refusals() {
        assert!(is_permission_check("This command requires approval"));
        assert!(is_permission_check(
            "rm in '/w/a' was blocked. For security, Claude Code may only remove files from the allowed working directories for this session: '/w'."
        ));
        assert!(!is_permission_check("Exit code 1\nrm: cannot remove"));
        assert!(!is_permission_check("the path was blocked by a firewall"));
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn exit_codes_are_read_from_bash_errors() {
        let error = exit_code_error("Exit code 3\nchecking\ncheck failed").unwrap();
        assert_eq!(error.message, "Exit code 3");
        assert_eq!(error.code, Some(ErrorCode::ExitCode));
        assert_eq!(
            error.details.as_deref(),
            Some(&json!({"exitCode": 3, "output": "checking\ncheck failed"}))
        );
        assert!(exit_code_error("File does not exist.").is_none());
    }

    #[test]
    fn refusals_are_read_with_or_without_opencode_1_1_error_prefix() {
        let rule =
            "The user has specified a rule which prevents you from using this specific tool call.";
        assert!(is_refusal(rule));
        assert!(is_refusal(&format!("Error: {rule}")));
        assert!(!is_refusal("Error: File not found: /workspace/missing.txt"));
    }
}
