//! Qwen Code session files, `~/.qwen/projects/<project>/chats/<session>.jsonl`.
//!
//! Each line is a record in Claude Code's transcript envelope (`uuid`, `parentUuid`,
//! `sessionId`, `timestamp`, `type`, `cwd`, `version`) around Gemini's content
//! (`message.parts`):
//!
//! | record | canonical events |
//! | --- | --- |
//! | `assistant` with `functionCall` parts | `toolCallStarted` |
//! | `tool_result` with `functionResponse` parts and `toolCallResult` | `toolCallCompleted`, or `toolCallFailed` when the result is an error |
//! | `user`, `system` (`ui_telemetry`, `attribution_snapshot`, `chat_compression`, …) | (known, nothing about tools) |
//!
//! The output is what the CLI's stream-json shows of the same result (the function
//! response's `error`, else the displayed text, else the response's `output`), so a
//! session reads the same from its file and from `qwen -p … --output-format
//! stream-json`. Errors carry Qwen Code's `errorType` (a Gemini CLI `ToolErrorType`)
//! as the shared codes where there is one; a shell command whose result says
//! `Exit Code: N` fails with code `exit_code`, also where the CLI called it a success
//! (0.15).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::{ErrorCode, JsonObject, Timestamp, ToolError, ToolKind, meta};

use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::rules::mcp;
use crate::track::{Ending, Facts, Sighting, exit_error, text_error};

/// The dialect: Qwen Code's session files, with Qwen Code's provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("qwen-code-session", "qwen-code");

impl Dialect {
    /// Qwen Code's session files (`~/.qwen/projects/<project>/chats/<session>.jsonl`).
    pub const QWEN_CODE_SESSION: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Qwen Code session file (`~/.qwen/projects/…/chats/*.jsonl`)",
    feature: "qwen-code",
    rules: super::RULES,
    claims,
    adapter: |_| Box::new(QwenSessionAdapter),
    // The session files the stream-json runs wrote (`fixtures/qwen-code-session/`).
    read_ahead: None,
    recordings: &["qwen-code"],
    agent_version: "",
    stores: &[crate::Store::at(".qwen", "projects/*/chats/*.jsonl")],
};

/// The raw item type of the calls (`metadata.itemType`).
const ITEM_TYPE: &str = "functionCall";

/// Whether a line is a Qwen Code session record: a message whose `message` holds
/// `parts`, a `tool_result` record, or a `system` record with its `systemPayload`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.has("method")
        && !keys.has("payload")
        && match keys.kind().as_deref() {
            Some("user" | "assistant") => keys.object_has("message", "parts"),
            Some("tool_result") => {
                keys.has("toolCallResult") || keys.object_has("message", "parts")
            }
            Some("system") => keys.has("systemPayload"),
            _ => false,
        }
}

/// Reads Qwen Code session files.
#[derive(Debug, Default)]
pub struct QwenSessionAdapter;

impl Adapter for QwenSessionAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let record: Record<'_> =
            match json::parse_line(line, bytes, "not a Qwen Code session record") {
                Ok(record) => record,
                Err(diagnostic) => return facts.diagnostic(diagnostic),
            };
        if let Some(session) = record.session_id.as_deref() {
            facts.session(session);
        }
        if let Some(cwd) = record.cwd.as_deref()
            && facts.cwd() != Some(cwd)
        {
            facts.set_cwd(cwd);
        }
        let at = record.timestamp.as_deref().map(Timestamp::from);
        match record.kind.as_deref() {
            Some("assistant") => {
                for call in record.calls() {
                    sighted(line, call, at.clone(), facts);
                }
            }
            Some("tool_result") => tool_result(line, record, at, facts),
            // The user's turns and the CLI's own records carry nothing about tools.
            Some("user" | "system") => {}
            other => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!(
                    "unknown Qwen Code session record type `{}`",
                    other.unwrap_or_default()
                ),
            )),
        }
    }
}

/// A session record: the envelope and the fields a tool call needs.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow, rename = "type", default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "sessionId", default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default)]
    message: Option<Content>,
    #[serde(rename = "toolCallResult", default)]
    tool_call_result: Option<ToolCallResult>,
}

/// Gemini's `Content`: a role and its parts.
#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    parts: Vec<Part>,
}

/// One part of a message; text, thoughts and media parts are not about tools.
#[derive(Deserialize)]
struct Part {
    #[serde(rename = "functionCall", default)]
    function_call: Option<FunctionCall>,
    #[serde(rename = "functionResponse", default)]
    function_response: Option<FunctionResponse>,
}

/// The model's call of a tool.
#[derive(Deserialize)]
struct FunctionCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    args: Value,
}

/// What the tool's run told the model.
#[derive(Deserialize)]
struct FunctionResponse {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    response: Value,
}

/// The CLI's own account of the result.
#[derive(Deserialize)]
struct ToolCallResult {
    #[serde(rename = "callId", default)]
    call_id: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(rename = "resultDisplay", default)]
    result_display: Value,
    #[serde(rename = "errorType", default)]
    error_type: Option<String>,
}

impl Record<'_> {
    /// The function calls of the record's message.
    fn calls(self) -> impl Iterator<Item = FunctionCall> {
        self.message
            .into_iter()
            .flat_map(|content| content.parts)
            .filter_map(|part| part.function_call)
    }
}

/// A function call: the call starts (an MCP tool is named `mcp__server__tool`).
fn sighted(line: u64, call: FunctionCall, at: Option<Timestamp>, facts: &mut Facts<'_>) {
    let Some(id) = call.id else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            format!("a `{}` function call without an id", call.name),
        ));
    };
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), ITEM_TYPE.into());
    let mut sighting = Sighting::new(id, call.name, call.args)
        .metadata(metadata)
        .at(at);
    sighting.mcp = mcp::split_double_underscore(&sighting.name)
        .map(|split| (split.server.to_owned(), split.tool.to_owned()));
    facts.sighted(line, sighting);
}

/// A `tool_result` record: each function response ends its call.
fn tool_result(line: u64, record: Record<'_>, at: Option<Timestamp>, facts: &mut Facts<'_>) {
    let result = record.tool_call_result;
    let responses: Vec<FunctionResponse> = record
        .message
        .into_iter()
        .flat_map(|content| content.parts)
        .filter_map(|part| part.function_response)
        .collect();
    if responses.is_empty() {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Qwen Code tool result without a function response",
        ));
    }
    for response in responses {
        // `toolCallResult` is the CLI's account of the record's one call.
        let own = result
            .as_ref()
            .filter(|result| result.call_id.is_none() || result.call_id == response.id);
        let Some(id) = response
            .id
            .clone()
            .or_else(|| own.and_then(|result| result.call_id.clone()))
        else {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a Qwen Code function response without an id",
            ));
            continue;
        };
        ended(line, &id, &response, own, at.clone(), facts);
    }
}

/// The end of call `id`: complete with its output, or failed.
fn ended(
    line: u64,
    id: &str,
    response: &FunctionResponse,
    result: Option<&ToolCallResult>,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    if facts.finished(id).is_some() && !facts.is_other_sessions(id) {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::Rejected,
            format!("a second result for call `{id}`"),
        ));
    }
    if !facts.is_open(id) {
        // A file that starts after the call: the response names the tool.
        let name = response.name.clone().unwrap_or_else(|| "tool".to_owned());
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("a result for call `{id}`, whose call the file does not hold"),
        ));
        sighted(
            line,
            FunctionCall {
                id: Some(id.to_owned()),
                name,
                args: Value::Object(JsonObject::new()),
            },
            at.clone(),
            facts,
        );
    }
    let text = |key: &str| match response.response.get(key) {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    let display = result.and_then(|result| display_text(&result.result_display));
    let status = result.and_then(|result| result.status.as_deref());
    let error_type = result.and_then(|result| result.error_type.as_deref());
    let shell = facts.kind(id) == Some(ToolKind::Bash);
    let output_text = text("output");
    let exit = shell
        .then(|| exit_status(output_text.as_deref().or(display.as_deref())?))
        .flatten();
    let ending = Ending::at(at);
    if let Some(message) = text("error") {
        let mut error = text_error(&message);
        error.code = code(error_type, &message, facts.kind(id) == Some(ToolKind::Mcp));
        if let Some(code) = exit {
            error = exit_error(code, message);
        }
        return facts.fail(line, id, error, ending);
    }
    if let Some(code) = exit {
        // Qwen Code 0.15 reports a command's exit status 3 as a success.
        let output = display
            .filter(|text| !text.trim().is_empty())
            .or(output_text);
        return facts.fail(
            line,
            id,
            exit_error(code, output.unwrap_or_default()),
            ending,
        );
    }
    if matches!(status, Some("error" | "cancelled")) {
        let message = display.clone().or(output_text).unwrap_or_default();
        let mut error: ToolError = text_error(&message);
        error.code = code(
            error_type.or(status.filter(|status| *status == "cancelled")),
            &message,
            facts.kind(id) == Some(ToolKind::Mcp),
        );
        return facts.fail(line, id, error, ending);
    }
    let output = display
        .filter(|text| !text.trim().is_empty())
        .or(output_text)
        .or_else(|| response.response.get("content").map(Value::to_string));
    facts.complete(line, id, output.map(Value::String), ending);
}

/// The text the CLI displays for a result, as its stream-json shows it: a string, a
/// shell result's `text`, an MCP app's `fallbackText`.
fn display_text(display: &Value) -> Option<String> {
    match display {
        Value::String(text) => Some(text.clone()),
        Value::Object(object) => {
            let key = match object.get("type").and_then(Value::as_str) {
                Some("shell_result") => "text",
                Some("mcp_app") => "fallbackText",
                _ => return None,
            };
            object.get(key).and_then(Value::as_str).map(str::to_owned)
        }
        _ => None,
    }
}

/// A shell command's exit status, from the text Qwen Code gives the model
/// (`Exit Code: 3`), when it is not 0.
fn exit_status(text: &str) -> Option<i64> {
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

/// The code of an error of `kind` (Qwen Code's `errorType`, a Gemini CLI
/// `ToolErrorType`) with `message`.
fn code(kind: Option<&str>, message: &str, is_mcp: bool) -> Option<ErrorCode> {
    Some(match kind.unwrap_or_default() {
        "execution_denied" | "policy_violation" | "permission_denied" => {
            ErrorCode::PermissionDenied
        }
        "mcp_tool_error" => ErrorCode::McpError,
        "invalid_tool_params" | "tool_not_registered" => ErrorCode::InvalidToolUse,
        _ if is_mcp => ErrorCode::McpError,
        "" if message.starts_with("Tool \"") && message.contains("\" not found") => {
            ErrorCode::InvalidToolUse
        }
        "" => return None,
        other => ErrorCode::Other(other.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::{display_text, exit_status};
    use serde_json::json;

    #[test]
    fn the_displayed_text_is_the_streams() {
        assert_eq!(display_text(&json!("hi")).as_deref(), Some("hi"));
        assert_eq!(
            display_text(&json!({"type": "shell_result", "text": "out", "output": "o"})).as_deref(),
            Some("out")
        );
        assert_eq!(
            display_text(&json!({"type": "todo_list", "todos": []})),
            None
        );
        assert_eq!(exit_status("Output: x\nExit Code: 3\nSignal: 0"), Some(3));
        assert_eq!(exit_status("Exit Code: 0"), None);
    }
}
