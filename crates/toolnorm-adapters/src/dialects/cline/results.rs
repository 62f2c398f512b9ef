//! The tool results inside an `api_req_started` message.
//!
//! Cline writes no message for a tool's result: the result is the text it sends the
//! model next, which the `api_req_started` message that opens that request holds in
//! its `request` (`{"request": "…", "tokensIn": …}`). Each result there is a section
//! `[<tool> for '<target>'] Result:` (or `[<tool>] Result:`) at the start of a line,
//! followed by the result's text; the reminders Cline appends (`# task_progress …`) and
//! the `<environment_details>` block close the last section. The working directory is
//! named in the environment details (`# Current Working Directory (<path>) Files`).

use regex::Regex;
use serde_json::{Value, json};
use toolnorm::{ErrorCode, ToolError};

use crate::track::{exit_error, text_error};

/// One tool's result in a request's text.
#[derive(Debug, PartialEq)]
pub(super) struct Section<'a> {
    /// The model's name of the tool (`read_file`, `execute_command`, …).
    pub tool: &'a str,
    /// What the header names after `for` (a path, a command, a server), if anything.
    pub target: Option<&'a str>,
    /// The result's text.
    pub body: &'a str,
}

/// The section headers of a request's text.
fn header() -> Option<&'static Regex> {
    static HEADER: std::sync::LazyLock<Option<Regex>> = std::sync::LazyLock::new(|| {
        Regex::new(r"(?m)^\[([a-z][a-z0-9_]*)(?: for '((?s:.*?))')?\] Result:[ \t]*\r?\n?").ok()
    });
    HEADER.as_ref()
}

/// Where the appended reminders and environment details start, after a section's body.
const TAILS: &[&str] = &[
    "<environment_details>",
    "\n\n\n# task_progress",
    "\n\n# task_progress",
    "\n# TODO LIST",
];

/// The tools whose "result" is no call's: the task's answer, and the modes' replies.
const NOT_CALLS: &[&str] = &[
    "attempt_completion",
    "plan_mode_respond",
    "act_mode_respond",
];

/// The tool results of a request's text, in order.
pub(super) fn sections(request: &str) -> Vec<Section<'_>> {
    let Some(header) = header() else {
        return Vec::new();
    };
    let headers: Vec<_> = header.captures_iter(request).collect();
    let mut sections = Vec::new();
    for (index, captures) in headers.iter().enumerate() {
        let (Some(whole), Some(tool)) = (captures.get(0), captures.get(1)) else {
            continue;
        };
        let end = headers
            .get(index + 1)
            .and_then(|next| next.get(0))
            .map_or(request.len(), |next| next.start());
        let mut body = &request[whole.end()..end];
        if let Some(cut) = TAILS.iter().filter_map(|tail| body.find(tail)).min() {
            body = &body[..cut];
        }
        if NOT_CALLS.contains(&tool.as_str()) {
            continue;
        }
        sections.push(Section {
            tool: tool.as_str(),
            target: captures.get(2).map(|target| target.as_str()),
            body: body.trim_end(),
        });
    }
    sections
}

/// The argument a result header's target is, by the model's tool (Cline's
/// `toolDescription`): a path, a command, a server, a URL, a question, an action.
pub(super) fn target_key(tool: &str) -> &'static str {
    match tool {
        "execute_command" => "command",
        "use_mcp_tool" | "access_mcp_resource" => "server_name",
        "web_fetch" => "url",
        "web_search" => "query",
        "search_files" => "regex",
        "ask_followup_question" => "question",
        "browser_action" => "action",
        "use_skill" => "skill_name",
        _ => "path",
    }
}

/// The working directory the environment details name, if they do.
pub(super) fn cwd(request: &str) -> Option<&str> {
    let start =
        request.find("# Current Working Directory (")? + "# Current Working Directory (".len();
    let rest = &request[start..];
    let end = rest.find(") Files")?;
    Some(&rest[..end]).filter(|cwd| !cwd.is_empty() && !cwd.contains('\n'))
}

/// How a call ended, as its result's text says.
#[derive(Debug, PartialEq)]
pub(super) enum Outcome {
    /// It ran: its output.
    Complete(Value),
    /// It failed.
    Failed(ToolError),
}

/// The outcome a section's text gives its call.
pub(super) fn outcome(section: &Section<'_>) -> Outcome {
    let body = section.body.trim();
    if let Some(feedback) = body.strip_prefix("The user denied this operation") {
        let mut error =
            ToolError::new("The user denied this operation").with_code(ErrorCode::PermissionDenied);
        let feedback = feedback.trim_start_matches(['.', ' ']).trim();
        if !feedback.is_empty() {
            error = error.with_details(json!({ "output": feedback }));
        }
        return Outcome::Failed(error);
    }
    if let Some(rest) = body.strip_prefix("The tool execution failed with the following error:") {
        let inner = rest.trim();
        let inner = inner
            .strip_prefix("<error>")
            .map(|inner| inner.strip_suffix("</error>").unwrap_or(inner))
            .unwrap_or(inner);
        return Outcome::Failed(text_error(inner));
    }
    if body.starts_with("Error executing MCP tool:") {
        return Outcome::Failed(text_error(body).with_code(ErrorCode::McpError));
    }
    // An MCP tool's answer flagged `isError` is written `Error:` and its text.
    if section.tool == "use_mcp_tool"
        && let Some(text) = body.strip_prefix("Error:")
    {
        return Outcome::Failed(text_error(text).with_code(ErrorCode::McpError));
    }
    if section.tool == "execute_command" {
        return command(body);
    }
    Outcome::Complete(Value::String(body.to_owned()))
}

/// A command's result: `Command executed.` or `Command failed with exit code N.`, then
/// `Output:` and what it printed.
fn command(body: &str) -> Outcome {
    let (head, output) = match body.split_once("\nOutput:") {
        Some((head, output)) => (head, output.strip_prefix('\n').unwrap_or(output)),
        None => (body, ""),
    };
    if let Some(code) = head
        .strip_prefix("Command failed with exit code ")
        .and_then(|rest| rest.trim_end_matches('.').trim().parse::<i64>().ok())
    {
        return Outcome::Failed(exit_error(code, output));
    }
    if head.starts_with("Command executed") {
        return Outcome::Complete(Value::String(output.to_owned()));
    }
    Outcome::Complete(Value::String(body.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::{Outcome, Section, cwd, outcome, sections};

    #[test]
    fn sections_end_at_the_next_header_or_the_reminders() {
        let request = "[read_file for 'a.txt'] Result:\n1 | hi\n\n[execute_command for 'echo it's'] Result:\nCommand failed with exit code 3.\nOutput:\nhi\n\n\n# task_progress RECOMMENDED\n…\n<environment_details>\n# Current Working Directory (/w) Files\n</environment_details>";
        let found = sections(request);
        assert_eq!(
            found,
            [
                Section {
                    tool: "read_file",
                    target: Some("a.txt"),
                    body: "1 | hi"
                },
                Section {
                    tool: "execute_command",
                    target: Some("echo it's"),
                    body: "Command failed with exit code 3.\nOutput:\nhi"
                },
            ]
        );
        assert_eq!(cwd(request), Some("/w"));
        let Outcome::Failed(error) = outcome(&found[1]) else {
            panic!("a failed command")
        };
        assert_eq!(error.message, "Exit code 3");
    }

    #[test]
    fn the_answer_and_the_task_are_no_sections() {
        assert!(sections("<task>\nhi\n</task>").is_empty());
        assert!(sections("[attempt_completion] Result:\nok").is_empty());
        assert_eq!(cwd("no details"), None);
    }

    #[test]
    fn a_denial_and_a_tool_error_fail() {
        let denied = Section {
            tool: "read_file",
            target: None,
            body: "The user denied this operation.",
        };
        assert!(
            matches!(outcome(&denied), Outcome::Failed(error) if error.code.as_ref().map(|code| code.as_str()) == Some("permission_denied"))
        );
        let failed = Section {
            tool: "read_file",
            target: None,
            body: "The tool execution failed with the following error:\n<error>\nError reading file: File not found: /w/x\n</error>",
        };
        assert!(
            matches!(outcome(&failed), Outcome::Failed(error) if error.message == "Error reading file: File not found: /w/x")
        );
    }
}
