//! How a Grok CLI tool result ends its call.
//!
//! The headless messages carry no error flag: a `tool` message's `content` is the tool's
//! output when it succeeded, and its error text when it failed (`result.error`, or
//! `Error` when the tool gave none). Grok CLI's own tools write their errors in a few
//! fixed forms, which [`failure`] knows, per tool; any other text is an output. An MCP
//! tool that answers `isError` is told by its own text only, which no form fits: such a
//! call ends `complete` with that text (only `MCP tool error`, the text of an error
//! without one, and `MCP tool execution error: …`, a call the client could not make, are
//! failures).

use toolnorm::{ErrorCode, ToolError};

use crate::track::text_error;

/// An error form: the text an error begins with, and its code.
type Form = (&'static str, Option<ErrorCode>);

/// How every tool's result begins when the agent could not run the call: arguments that
/// are not JSON (`Tool execution error: …`) or a tool it does not have.
const AGENT_ERRORS: &[Form] = &[
    ("Unknown tool: ", Some(ErrorCode::InvalidToolUse)),
    ("Tool execution error: ", Some(ErrorCode::InvalidToolUse)),
];

/// The error forms of each built-in tool (`dist/tools/*.js` of the pinned version): the
/// text an error begins with, and its code. The refusals (`… cancelled by user`, the
/// confirmation's `User rejected: …`) only happen in interactive mode, whose confirmation
/// `grok -p` turns off.
const TOOL_ERRORS: &[(&str, &[Form])] = &[
    (
        "bash",
        &[
            ("Command failed: ", None),
            ("Cannot change directory: ", None),
            (
                "Command execution cancelled by user",
                Some(ErrorCode::UserRejected),
            ),
        ],
    ),
    (
        "view_file",
        &[
            ("File or directory not found: ", None),
            ("Error viewing ", None),
        ],
    ),
    (
        "create_file",
        &[
            ("Error creating ", None),
            (
                "File creation cancelled by user",
                Some(ErrorCode::UserRejected),
            ),
        ],
    ),
    (
        "str_replace_editor",
        &[
            ("File not found: ", None),
            ("String not found in file", None),
            ("Error replacing text in ", None),
            ("File edit cancelled by user", Some(ErrorCode::UserRejected)),
        ],
    ),
    (
        "edit_file",
        &[
            ("Morph Fast Apply not available", None),
            ("File not found: ", None),
            ("Error ", None),
        ],
    ),
    ("search", &[("Search error: ", None)]),
    (
        "create_todo_list",
        &[
            ("Each todo must have ", Some(ErrorCode::InvalidToolUse)),
            ("Invalid status: ", Some(ErrorCode::InvalidToolUse)),
            ("Invalid priority: ", Some(ErrorCode::InvalidToolUse)),
            ("Error creating todo list: ", None),
        ],
    ),
    (
        "update_todo_list",
        &[
            ("Todo with id ", None),
            ("Invalid status: ", Some(ErrorCode::InvalidToolUse)),
            ("Invalid priority: ", Some(ErrorCode::InvalidToolUse)),
            ("Error updating todo list: ", None),
        ],
    ),
];

/// The text an MCP tool's error has when the server gave none.
const MCP_NO_TEXT: &str = "MCP tool error";

/// How the agent says an MCP call could not be made.
const MCP_FAILED: &str = "MCP tool execution error: ";

/// How `bash` begins the error of a command that failed (it then repeats Node's error
/// message, which begins so too: `Command failed: <command>`, then the command's stderr).
const COMMAND_FAILED: &str = "Command failed: ";

/// The text a failed tool's result has when it gave no error.
const NO_ERROR_TEXT: &str = "Error";

/// How many bytes of a result's beginning tell whether it is a failure: more than any
/// form is long, so that a text [`failure`] reads as an output reads so by its head alone,
/// and a head shorter than this is the whole text.
pub(super) const FORM_HEAD: usize = 64;

/// The error a result's `text` tells for a call of `tool`, or `None` when it is an
/// output.
pub(super) fn failure(tool: &str, text: &str) -> Option<ToolError> {
    if text == NO_ERROR_TEXT {
        return Some(ToolError::new("the tool failed"));
    }
    if tool.starts_with("mcp__") {
        if text == MCP_NO_TEXT || text.starts_with(MCP_FAILED) {
            return Some(text_error(text).with_code(ErrorCode::McpError));
        }
        return None;
    }
    let own = TOOL_ERRORS
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, forms)| *forms)
        .unwrap_or_default();
    let (_, code) = AGENT_ERRORS
        .iter()
        .chain(own)
        .find(|(prefix, _)| text.starts_with(prefix))?;
    let mut error = match text.strip_prefix(COMMAND_FAILED) {
        Some(node) if tool == "bash" && node.starts_with(COMMAND_FAILED) => command_failed(node),
        _ => text_error(text),
    };
    error.code = code.clone();
    Some(error)
}

/// A failed command's error from Node's message: `Command failed: <command>` (the
/// message), then the command's stderr (`details.output`). Node's message gives no exit
/// status, and the command's stdout is not in it.
fn command_failed(node: &str) -> ToolError {
    let (first, stderr) = node.split_once('\n').unwrap_or((node, ""));
    let mut error = ToolError::new(first.trim_end());
    let stderr = stderr.trim_end();
    if !stderr.is_empty() {
        error.details = Some(serde_json::json!({ "output": stderr }).into());
    }
    error
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::{
        AGENT_ERRORS, COMMAND_FAILED, FORM_HEAD, MCP_FAILED, MCP_NO_TEXT, NO_ERROR_TEXT,
        TOOL_ERRORS, failure,
    };
    use serde_json::json;
    use toolnorm::ErrorCode;

    #[test]
    fn each_tools_error_forms_are_failures() {
        let error = failure(
            "bash",
            "Command failed: Command failed: exit 3\ncheck failed\n",
        )
        .unwrap();
        assert_eq!(error.message, "Command failed: exit 3");
        assert_eq!(error.code, None);
        assert_eq!(
            error.details.as_deref(),
            Some(&json!({"output": "check failed"}))
        );
        let no_stderr = failure("bash", "Command failed: Command failed: false\n").unwrap();
        assert_eq!(no_stderr.message, "Command failed: false");
        assert_eq!(no_stderr.details, None);
        assert!(failure("view_file", "File or directory not found: /w/x").is_some());
        assert_eq!(
            failure("view_file", "Unknown tool: view_file")
                .unwrap()
                .code,
            Some(ErrorCode::InvalidToolUse)
        );
        assert_eq!(
            failure("update_todo_list", "Invalid status: x. Must be pending")
                .unwrap()
                .code,
            Some(ErrorCode::InvalidToolUse)
        );
        assert_eq!(failure("bash", "Error").unwrap().message, "the tool failed");
    }

    #[test]
    fn outputs_and_other_tools_forms_are_not() {
        assert!(failure("bash", "hello from the shell").is_none());
        // A text in another tool's error form is an output.
        assert!(failure("view_file", "Command failed: no").is_none());
        assert!(failure("bash", "File not found: x").is_none());
        assert!(failure("mcp__toolbox__divide", "Error: division by zero").is_none());
        assert_eq!(
            failure("mcp__toolbox__echo", "MCP tool execution error: closed")
                .unwrap()
                .code,
            Some(ErrorCode::McpError)
        );
    }

    #[test]
    fn every_form_is_shorter_than_the_head_that_tells_it() {
        let forms = TOOL_ERRORS
            .iter()
            .flat_map(|(_, forms)| forms.iter())
            .chain(AGENT_ERRORS)
            .map(|(form, _)| *form);
        let longest = forms
            .chain([MCP_NO_TEXT, MCP_FAILED, NO_ERROR_TEXT, COMMAND_FAILED])
            .map(str::len)
            .max()
            .unwrap();
        assert!(longest < FORM_HEAD, "{longest}");
    }
}
