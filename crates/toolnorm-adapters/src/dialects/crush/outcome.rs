//! How a Crush tool result ends its call.
//!
//! A result is its text (`content`), with media (`data`, `mime_type`) for a tool that
//! returned an image, and `is_error` when the call failed. Crush says why in the text:
//! `User denied permission` for a call the user refused, `Error: user cancelled
//! assistant tool calling` for a call of a turn the user cancelled, `Tool call failed:
//! arguments were not valid JSON…` for a call whose arguments did not read; any other
//! text is the tool's own error (`mcp_error` for an MCP server's tool). A `bash` command that exits non-zero is not an error for
//! Crush (its text ends `Exit code N`): the call completes with that text.

use serde_json::json;
use toolnorm::{ErrorCode, Payload, ToolError};

use super::wire::ToolResult;
use crate::track::text_error;

/// What Crush answers for a call the user refused (`NewPermissionDeniedResponse`).
const DENIED: &str = "User denied permission";

/// What Crush answers for each call of a turn the user cancelled.
const CANCELLED: &str = "Error: user cancelled assistant tool calling";

/// How Crush begins its answer to a call whose arguments were not JSON.
const INVALID_ARGUMENTS: &str = "Tool call failed: arguments were not valid JSON";

/// How a result ends its call.
pub(super) enum Outcome {
    /// Completed, with this output.
    Done(Option<Payload>),
    /// Failed.
    Failed(ToolError),
}

/// The outcome of `result`.
pub(super) fn outcome(result: ToolResult) -> Outcome {
    // A text kept as it came: read whole only for an error or beside media.
    let content = result.content.filter(|content| !is_empty(content));
    let text = || content.as_ref().and_then(Payload::text).unwrap_or_default();
    if result.is_error {
        let mcp = result
            .name
            .as_deref()
            .is_some_and(|name| super::parts::mcp_tool(name).is_some());
        return Outcome::Failed(error(&text(), mcp));
    }
    let media = result.data.filter(|data| !data.is_empty());
    Outcome::Done(match media {
        Some(data) => Some(
            json!([
                { "type": "text", "text": text() },
                { "type": "image", "data": data, "mimeType": result.mime_type.unwrap_or_default() },
            ])
            .into(),
        ),
        None => content,
    })
}

/// Whether a result's text is empty (read without decoding it).
fn is_empty(content: &Payload) -> bool {
    content.text_head(1).is_none_or(|head| head.is_empty())
}

/// The error a failed result's text says (of an MCP server's tool when `mcp`).
fn error(text: &str, mcp: bool) -> ToolError {
    let trimmed = text.trim();
    let error = text_error(text);
    if trimmed == DENIED {
        error.with_code(ErrorCode::UserRejected)
    } else if trimmed.starts_with(CANCELLED) {
        error.with_code(ErrorCode::Interrupted)
    } else if trimmed.starts_with(INVALID_ARGUMENTS) {
        error.with_code(ErrorCode::InvalidToolUse)
    } else if mcp {
        error.with_code(ErrorCode::McpError)
    } else {
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(content: &str) -> ToolError {
        let result = ToolResult {
            content: Some(content.into()),
            is_error: true,
            ..ToolResult::default()
        };
        match outcome(result) {
            Outcome::Failed(error) => error,
            Outcome::Done(output) => panic!("completed with {output:?}"),
        }
    }

    #[test]
    fn each_failure_is_told_by_its_text() {
        assert_eq!(
            failed("User denied permission").code,
            Some(ErrorCode::UserRejected)
        );
        assert_eq!(
            failed("Error: user cancelled assistant tool calling").code,
            Some(ErrorCode::Interrupted)
        );
        let invalid = failed(
            "Tool call failed: arguments were not valid JSON. Please check your tool call \
             format and try again.",
        );
        assert_eq!(invalid.code, Some(ErrorCode::InvalidToolUse));
        let other = failed("file not found: a.txt\nmore");
        assert_eq!(
            (other.message.as_str(), other.code),
            ("file not found: a.txt", None)
        );
        let mcp = outcome(ToolResult {
            name: Some("mcp_github_list_issues".to_owned()),
            content: Some("rate limited".into()),
            is_error: true,
            ..ToolResult::default()
        });
        assert!(matches!(mcp, Outcome::Failed(error) if error.code == Some(ErrorCode::McpError)));
    }

    #[test]
    fn a_result_with_media_is_its_text_and_its_image() {
        let result = ToolResult {
            content: Some("Loaded image/png content".into()),
            data: Some("aGk=".to_owned()),
            mime_type: Some("image/png".to_owned()),
            ..ToolResult::default()
        };
        let Outcome::Done(Some(output)) = outcome(result) else {
            panic!("no output");
        };
        assert_eq!(output[1]["mimeType"], "image/png");
        let empty = outcome(ToolResult::default());
        assert!(matches!(empty, Outcome::Done(None)));
    }
}
