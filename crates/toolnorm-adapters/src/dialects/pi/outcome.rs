//! How a Pi tool result ends its call, the same from the stream and the session file.

use serde_json::Value;
use toolnorm::{ErrorCode, JsonObject, Payload, Timestamp, ToolError, ToolKind, meta};

use super::wire::{ToolCall, result_text};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::{Ending, Facts, Sighting, exit_error, text_error};

/// The raw item type of the calls (`metadata.itemType`).
const ITEM_TYPE: &str = "toolCall";

/// How Pi's `bash` ends the text of a command that exited with a non-zero status.
const EXITED: &str = "Command exited with code ";

/// How Pi's `bash` ends the text of a command it aborted (the run was interrupted).
const ABORTED: &str = "Command aborted";

/// The reason Pi gives for a call an extension's `tool_call` handler blocked without
/// one of its own (a permission gate).
const BLOCKED: &str = "Tool execution was blocked";

/// A `toolCall` block: the call starts, or is seen again with fuller arguments.
pub(super) fn sighted(line: u64, call: ToolCall, at: Option<Timestamp>, facts: &mut Facts<'_>) {
    let Some(id) = call.id.filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            format!(
                "a `{}` tool call without an id",
                call.name.as_deref().unwrap_or("toolCall")
            ),
        ));
    };
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), ITEM_TYPE.into());
    let name = call.name.unwrap_or_else(|| "tool".to_owned());
    facts.sighted(
        line,
        Sighting::new(id, name, call.arguments)
            .metadata(metadata)
            .at(at),
    );
}

/// A result for call `id`, whose call the lines read so far do not hold (a file or a
/// stream joined after it): the call is opened from what the result says, with a notice.
pub(super) fn open_unseen(
    line: u64,
    id: &str,
    tool: Option<&str>,
    args: Option<&Value>,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    if facts.is_open(id) {
        return;
    }
    facts.diagnostic(Diagnostic::notice(
        line,
        DiagnosticKind::UnknownCall,
        format!("a result for call `{id}`, whose call the input does not hold"),
    ));
    let call = ToolCall {
        id: Some(id.to_owned()),
        name: tool.map(str::to_owned),
        arguments: args
            .cloned()
            .unwrap_or_else(|| Value::Object(JsonObject::new())),
    };
    sighted(line, call, at, facts);
}

/// The end of call `id`: `content` is the result's content blocks, `is_error` Pi's flag.
pub(super) fn ended(
    line: u64,
    id: &str,
    content: &Payload,
    is_error: bool,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    let output = result_text(content);
    let ending = Ending::at(at);
    if !is_error {
        return facts.complete(line, id, output, ending);
    }
    let text = match &output {
        Some(output) if output.is_string() => output.text().unwrap_or_default().into_owned(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let shell = facts.kind(id) == Some(ToolKind::Bash);
    facts.fail(line, id, failure(&text, shell), ending);
}

/// The error of a failed call whose result says `text` (`shell`: a `bash` call).
pub(super) fn failure(text: &str, shell: bool) -> ToolError {
    let trimmed = text.trim_end();
    if shell {
        // The output, then a blank line and the status, as `bash` writes them.
        let (output, status) = match trimmed.rsplit_once('\n') {
            Some((output, status)) => (output.trim_end(), status.trim()),
            None => ("", trimmed.trim()),
        };
        if let Some(code) = status
            .strip_prefix(EXITED)
            .and_then(|code| code.trim().parse::<i64>().ok())
        {
            return exit_error(code, output);
        }
        if status == ABORTED {
            let mut error = ToolError::new(ABORTED);
            error.code = Some(ErrorCode::Other("interrupted".to_owned()));
            if !output.is_empty() {
                error.details = Some(serde_json::json!({ "output": output }).into());
            }
            return error;
        }
    }
    let mut error = text_error(text);
    let first = trimmed.trim_start();
    if first.starts_with(BLOCKED) {
        error.code = Some(ErrorCode::PermissionDenied);
    } else if is_invalid_use(first) {
        error.code = Some(ErrorCode::InvalidToolUse);
    }
    error
}

/// Whether Pi refused the call before running it: an unknown tool (`Tool x not found`,
/// `Tool "x" not found`) or arguments that do not match its schema.
fn is_invalid_use(text: &str) -> bool {
    (text.starts_with("Tool ")
        && text
            .lines()
            .next()
            .is_some_and(|l| l.ends_with(" not found")))
        || text.starts_with("Validation failed for tool ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::failure;
    use serde_json::json;
    use toolnorm::ErrorCode;

    #[test]
    fn a_commands_status_is_its_exit_code() {
        let error = failure(
            "checking\ncheck failed\n\n\nCommand exited with code 3",
            true,
        );
        assert_eq!(error.message, "Exit code 3");
        assert_eq!(error.code, Some(ErrorCode::ExitCode));
        assert_eq!(
            error.details.as_deref(),
            Some(&json!({"exitCode": 3, "output": "checking\ncheck failed"}))
        );
        let aborted = failure("started\n\nCommand aborted", true);
        assert_eq!(aborted.code, Some(ErrorCode::Other("interrupted".into())));
        assert_eq!(
            aborted.details.as_deref(),
            Some(&json!({"output": "started"}))
        );
        assert_eq!(
            failure("Command exited with code 2", true).details,
            Some(toolnorm::Payload::from(
                json!({"exitCode": 2, "output": ""})
            ))
        );
    }

    #[test]
    fn refusals_and_unknown_tools_have_their_codes() {
        assert_eq!(
            failure("Tool execution was blocked", true).code,
            Some(ErrorCode::PermissionDenied)
        );
        assert_eq!(
            failure("Tool nope not found", false).code,
            Some(ErrorCode::InvalidToolUse)
        );
        assert_eq!(
            failure(
                "Validation failed for tool \"read\":\n- path: missing",
                false
            )
            .code,
            Some(ErrorCode::InvalidToolUse)
        );
        let missing = failure("ENOENT: no such file or directory, access '/w/x'", false);
        assert_eq!(missing.code, None);
        assert_eq!(
            missing.message,
            "ENOENT: no such file or directory, access '/w/x'"
        );
    }
}
