//! How an ACP call ended, in toolnorm's terms: the shared error codes for other agents'
//! failures, and the truncation flags of toolnorm's own frames.

use serde_json::Value;
use toolnorm::ErrorCode;
use toolnorm::meta;
use toolnorm::{JsonObject, Payload, ToolError, ToolKind};

use super::seen::Seen;
use crate::acp::ToolnormMeta;
use crate::track::text_error;

/// The core's truncation flags, when the emitter cut `rawOutput`.
pub(super) fn truncation_flags(toolnorm: Option<&ToolnormMeta>) -> Option<JsonObject> {
    let cut = toolnorm?.truncated.as_ref()?.raw_output?;
    let mut flags = JsonObject::new();
    flags.insert(meta::OUTPUT_TRUNCATED.into(), Value::Bool(true));
    flags.insert(meta::OUTPUT_TOTAL_BYTES.into(), cut.total_bytes.into());
    flags.insert(meta::OUTPUT_CAP_BYTES.into(), cut.cap_bytes.into());
    Some(flags)
}

/// A shell command reported with a non-zero exit status (OpenCode's
/// `rawOutput.metadata.exit`, or an `exitCode` / `exit_code` field): `exit_code`, as
/// every adapter reports it. The output is `output`, else Codex's ACP adapter's
/// `aggregated_output`, else the text content.
pub(super) fn exit_error(output: Option<&Payload>, seen: &Seen) -> Option<ToolError> {
    // Only an object holds an exit status (a text output is not parsed).
    let output = output.filter(|output| output.is_object())?;
    let code = [
        output
            .get("metadata")
            .and_then(|metadata| metadata.get("exit")),
        output.get("exitCode"),
        output.get("exit_code"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_i64)
    .filter(|code| *code != 0)?;
    let text = ["output", "aggregated_output"]
        .iter()
        .find_map(|key| output.get(key)?.as_str())
        .map(str::to_owned)
        .or_else(|| seen.text())
        .unwrap_or_default();
    Some(crate::track::exit_error(code, text))
}

/// Text without the Markdown code fence an agent wrapped it in (Claude Code's adapter
/// shows results as ```` ``` ```` blocks).
fn unfenced(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return text;
    };
    let body = rest.split_once('\n').map_or("", |(_, body)| body);
    body.strip_suffix("```").unwrap_or(body)
}

/// The error of a foreign failed call: a text `rawOutput` (or its `error`/`message`, or
/// the text content) as message, `rawOutput` as details; a shell command's `Exit code N`
/// is `exit_code` (so is a failed command whose `rawOutput` holds its non-zero exit
/// status, as Codex's ACP adapter sends it, whatever kind the command was given), a
/// refused permission `permission_denied`, a failed MCP tool `mcp_error`.
pub(super) fn foreign_error(seen: &Seen, kind: ToolKind) -> ToolError {
    let raw = seen.raw_output.as_ref();
    if let Some(error) = exit_error(raw, seen) {
        return error;
    }
    let raw_text = raw.and_then(|raw| match raw.text() {
        Some(text) => Some(text.into_owned()),
        None => ["error", "message"]
            .iter()
            .find_map(|key| Some(raw.get(key)?.as_str()?.to_owned())),
    });
    let text = raw_text
        .or_else(|| seen.text().map(|text| unfenced(&text).to_owned()))
        .unwrap_or_default();
    if kind == ToolKind::Bash
        && let Some(error) = crate::track::exit_code_error(&text)
    {
        return error;
    }
    // Claude Code's "refused to run" wrapper, as its ACP adapter forwards it.
    let (text, invalid) = match crate::track::tool_use_error(&text) {
        Some(inner) => (inner.to_owned(), true),
        None => (text, false),
    };
    let mut error = text_error(&text);
    if invalid {
        error.code = Some(ErrorCode::InvalidToolUse);
    // OpenCode's refusal texts, and Claude Code's ACP adapter's.
    } else if crate::track::is_refusal(text.trim())
        || text.starts_with("User refused permission")
        || refused_by_policy(&text)
    {
        error.code = Some(ErrorCode::PermissionDenied);
    } else if kind == ToolKind::Mcp {
        error.code = Some(ErrorCode::McpError);
    }
    // A text `rawOutput` is the message (and `details.output` when longer) already.
    if let Some(raw) = raw.filter(|raw| !raw.is_null() && !raw.is_string()) {
        error.details = Some(raw.clone());
    }
    error
}

/// Gemini CLI's (and its forks') text for a call a policy rule refused: `Tool execution
/// for "Shell" denied by policy.` (`Tool execution denied by policy…` in older releases).
fn refused_by_policy(text: &str) -> bool {
    let text = text.trim();
    text.starts_with("Tool execution") && text.contains("denied by policy")
}
