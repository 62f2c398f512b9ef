//! How a Continue call's state ends it: its `status` (`ToolStatus` of `core/index.d.ts`),
//! and, for a failed one, the error its output text tells.
//!
//! Continue writes a failure as text only (the output's `content`), in a few fixed forms
//! (`extensions/cli/src/stream/`): a call it could not run (`Tool <name> not found`, its
//! preprocessing's error), a tool that threw (`Error executing tool <name>: <error>`,
//! which for `Bash` is `Error (exit code N): <stderr>` when the command exited non-zero
//! and wrote to stderr), a refusal (`canceled`: `Permission denied by user`, or `Command
//! blocked by security policy` when a policy refused it, as the headless mode does with a
//! tool that asks or is excluded), or an interrupted call (`canceled` with any other
//! text).

use toolnorm::{ErrorCode, ToolError};

use crate::track::{exit_error, text_error};

/// Where a call stands, as its state's `status` says.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Status<'a> {
    /// `generating` (its arguments still streaming) or `generated` (waiting to run, or
    /// for approval): the call is open.
    Pending,
    /// `calling`: it runs.
    Calling,
    /// `done`: it ended with an output.
    Done,
    /// `errored`: it failed.
    Errored,
    /// `canceled`: refused, or interrupted.
    Canceled,
    /// A status Continue does not write (or no status).
    Unknown(&'a str),
}

impl<'a> Status<'a> {
    /// The status a state's `status` names.
    pub(super) fn of(status: Option<&'a str>) -> Status<'a> {
        match status {
            Some("generating" | "generated") => Status::Pending,
            Some("calling") => Status::Calling,
            Some("done") => Status::Done,
            Some("errored") => Status::Errored,
            Some("canceled") => Status::Canceled,
            Some(other) => Status::Unknown(other),
            None => Status::Unknown(""),
        }
    }
}

/// How Continue says a tool it does not have was called.
const NOT_FOUND: (&str, &str) = ("Tool ", " not found");

/// How Continue begins the error of a tool that threw.
const EXECUTION_ERROR: &str = "Error executing tool ";

/// How `Bash` begins the error of a command that exited non-zero with stderr.
const EXIT_ERROR: &str = "Error (exit code ";

/// How Continue says the user refused a call.
const USER_DENIED: &str = "Permission denied by user";

/// How Continue says a policy refused a call.
const POLICY_BLOCKED: &str = "Command blocked by security policy";

/// The error of an `errored` call of `tool`, from its output text.
pub(super) fn errored(tool: &str, text: Option<&str>) -> ToolError {
    let Some(text) = text.map(str::trim).filter(|text| !text.is_empty()) else {
        return ToolError::new("the tool failed");
    };
    if text.starts_with(NOT_FOUND.0) && text.ends_with(NOT_FOUND.1) {
        return text_error(text).with_code(ErrorCode::InvalidToolUse);
    }
    let thrown = text
        .strip_prefix(EXECUTION_ERROR)
        .and_then(|rest| rest.strip_prefix(tool))
        .and_then(|rest| rest.strip_prefix(": "));
    match thrown {
        Some(thrown) => exit_failure(thrown).unwrap_or_else(|| text_error(thrown)),
        None => text_error(text),
    }
}

/// `Error (exit code N): <stderr>`: the command's exit error, its stderr as the output.
fn exit_failure(text: &str) -> Option<ToolError> {
    let rest = text.strip_prefix(EXIT_ERROR)?;
    let (number, stderr) = rest.split_once("): ")?;
    let code: i64 = number.parse().ok()?;
    Some(exit_error(code, stderr.trim_end()))
}

/// The error of a `canceled` call, from its output text.
pub(super) fn canceled(text: Option<&str>) -> ToolError {
    let text = text.map(str::trim).unwrap_or_default();
    if text.starts_with(USER_DENIED) {
        return ToolError::new(text).with_code(ErrorCode::UserRejected);
    }
    if text.starts_with(POLICY_BLOCKED) {
        return ToolError::new(text).with_code(ErrorCode::PermissionDenied);
    }
    let message = if text.is_empty() {
        "the call was canceled"
    } else {
        text
    };
    text_error(message).with_code(ErrorCode::Interrupted)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::{Status, canceled, errored};
    use serde_json::json;
    use toolnorm::ErrorCode;

    #[test]
    fn every_status_continue_writes_is_known() {
        for (status, want) in [
            ("generating", Status::Pending),
            ("generated", Status::Pending),
            ("calling", Status::Calling),
            ("done", Status::Done),
            ("errored", Status::Errored),
            ("canceled", Status::Canceled),
            ("cancelled", Status::Unknown("cancelled")),
        ] {
            assert_eq!(Status::of(Some(status)), want);
        }
        assert_eq!(Status::of(None), Status::Unknown(""));
    }

    #[test]
    fn errors_take_the_canonical_codes() {
        let exit = errored(
            "Bash",
            Some("Error executing tool Bash: Error (exit code 3): check failed\n"),
        );
        assert_eq!(exit.code, Some(ErrorCode::ExitCode));
        assert_eq!(exit.message, "Exit code 3");
        assert_eq!(
            exit.details.as_deref(),
            Some(&json!({"exitCode": 3, "output": "check failed"}))
        );
        let missing = errored("bash", Some("Tool bash not found"));
        assert_eq!(missing.code, Some(ErrorCode::InvalidToolUse));
        let read = errored(
            "Read",
            Some("Error executing tool Read: File does not exist: x"),
        );
        assert_eq!(
            (read.message.as_str(), read.code),
            ("File does not exist: x", None)
        );
        // Another tool's wrapper is the text itself.
        let other = errored("Read", Some("Error executing tool Bash: boom"));
        assert_eq!(other.message, "Error executing tool Bash: boom");
        assert_eq!(errored("Read", None).message, "the tool failed");
        assert_eq!(
            canceled(Some("Permission denied by user")).code,
            Some(ErrorCode::UserRejected)
        );
        assert_eq!(
            canceled(Some("Command blocked by security policy")).code,
            Some(ErrorCode::PermissionDenied)
        );
        assert_eq!(canceled(None).code, Some(ErrorCode::Interrupted));
    }
}
