//! How a Cline 3.x call starts and ends, the same from the stream and the session file.
//!
//! A tool's output has one of a few shapes: the batch tools (`run_commands`,
//! `read_files`, `search_codebase`, `fetch_web_content`) answer with one
//! `{query, result, error?, success}` item per request, `editor` with one such item, an
//! MCP tool with its `{content, isError}`, `spawn_agent` with the subagent's
//! `{text, finishReason, …}`, and a call refused before it ran with `{error}`.

use std::borrow::Cow;

use serde_json::Value;
use toolnorm::{ErrorCode, JsonObject, Payload, Timestamp, ToolError, meta};

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::kept_object::{KeptObject, kept_items};
use crate::track::{Ending, Facts, Sighting, exit_error, text_error};

/// The raw item type of the calls (`metadata.itemType`).
const ITEM_TYPE: &str = "tool";

/// How `run_commands` says a command exited with a non-zero status.
const EXITED: &str = "Command exited with code ";

/// How `run_commands` says a command was stopped (the run was cancelled).
const ABORTED: &str = "Command was aborted";

/// A call is seen: its tool and input, the subagent call it runs under.
pub(super) struct Seen<'a> {
    /// The call id.
    pub id: &'a str,
    /// The tool.
    pub tool: Option<&'a str>,
    /// Its input.
    pub input: Option<&'a Value>,
    /// When.
    pub at: Option<Timestamp>,
    /// The `spawn_agent` call whose subagent made it.
    pub parent: Option<&'a str>,
}

/// A call starts (or is seen again): MCP tools (`<server>__<tool>`) split, nested under
/// the subagent call that made it.
pub(super) fn sighted(line: u64, seen: Seen<'_>, facts: &mut Facts<'_>) {
    if seen.id.is_empty() {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            format!(
                "a `{}` tool call without an id",
                seen.tool.unwrap_or("tool")
            ),
        ));
    }
    let name = seen.tool.unwrap_or("tool");
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), ITEM_TYPE.into());
    if let Some(parent) = seen.parent {
        metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
    }
    let input = seen
        .input
        .cloned()
        .unwrap_or_else(|| Value::Object(JsonObject::new()));
    let mut sighting = Sighting::new(seen.id, name, input)
        .metadata(metadata)
        .at(seen.at);
    if let Some(split) = crate::rules::mcp::split_server_tool(name) {
        sighting = sighting.mcp(split.server, split.tool);
    }
    facts.sighted(line, sighting);
}

/// The end of call `id`: its output (kept as it came), the stream's `error` (a call that
/// failed or was refused), the session's `is_error` flag.
pub(super) fn ended(
    line: u64,
    id: &str,
    output: &Payload,
    error: Option<&Value>,
    is_error: bool,
    ending: Ending,
    facts: &mut Facts<'_>,
) {
    // The session file keeps a structured output as JSON text.
    let parsed = output
        .text_head(1)
        .filter(|head| head.starts_with(['{', '[']))
        .and_then(|_| serde_json::from_str::<Payload>(&output.text()?).ok());
    let output = parsed.as_ref().unwrap_or(output);
    let mcp = facts
        .name(id)
        .is_some_and(|name| crate::rules::mcp::split_server_tool(name).is_some());
    match outcome(output, error, is_error, mcp) {
        Ok(output) => facts.complete(line, id, output, ending),
        Err(error) => facts.fail(line, id, error, ending),
    }
}

/// What an output says: the call's output, or its error.
fn outcome(
    output: &Payload,
    error: Option<&Value>,
    is_error: bool,
    mcp: bool,
) -> Result<Option<Payload>, ToolError> {
    if let Some(error) = error.filter(|error| !error.is_null()) {
        return Err(refusal(&error_text(error)));
    }
    let object = KeptObject::of(output);
    if let Some(items) = kept_items(output) {
        let items: Option<Vec<KeptObject>> = items
            .iter()
            .map(|item| KeptObject::of(item).filter(is_item))
            .collect();
        if let Some(items) = items {
            if let Some(failed) = items.iter().find(|item| failed(item)) {
                return Err(item_error(failed));
            }
            return Ok(Some(match items.as_slice() {
                [one] => item_result(one),
                _ => output.clone(),
            }));
        }
    }
    match object {
        Some(object) if is_item(&object) => {
            if failed(&object) {
                return Err(item_error(&object));
            }
            Ok(object.get("result").cloned())
        }
        Some(object) if object.contains_key("content") && object.contains_key("isError") => {
            let text = content_text(object.get("content").unwrap_or(&Payload::NULL));
            let flagged = object
                .get("isError")
                .and_then(|flag| flag.value().as_bool());
            if flagged == Some(true) || is_error {
                let text = text.text().unwrap_or_default();
                let message = if text.trim().is_empty() {
                    crate::track::MCP_TOOL_FAILED
                } else {
                    &text
                };
                return Err(text_error(message).with_code(ErrorCode::McpError));
            }
            Ok(Some(text))
        }
        Some(object) if object.len() == 1 && object.contains_key("error") => Err(refusal(
            &error_text(object.get("error").map_or(&Value::Null, Payload::value)),
        )),
        Some(object) if object.contains_key("finishReason") => {
            let text = object.get("text").cloned();
            let reason = object.get("finishReason").map(Payload::value);
            match reason.and_then(Value::as_str) {
                Some("completed") | None if !is_error => Ok(text),
                reason => {
                    let message = text
                        .as_ref()
                        .and_then(Payload::text)
                        .filter(|text| !text.trim().is_empty())
                        .map(Cow::into_owned)
                        .unwrap_or_else(|| {
                            format!("the subagent ended: {}", reason.unwrap_or("error"))
                        });
                    Err(text_error(&message))
                }
            }
        }
        _ if is_error => {
            let text = match output.text() {
                Some(text) => text.into_owned(),
                None if output.is_null() => String::new(),
                None => output.to_json(),
            };
            let error = text_error(&text);
            Err(if mcp {
                error.with_code(ErrorCode::McpError)
            } else {
                error
            })
        }
        _ if output.is_null() => Ok(None),
        _ => Ok(Some(output.clone())),
    }
}

/// Whether an object is one request's result: `{query, result, success}`.
fn is_item(object: &KeptObject) -> bool {
    object.contains_key("query") && object.contains_key("success")
}

/// Whether a request failed.
fn failed(item: &KeptObject) -> bool {
    item.get("success").and_then(|flag| flag.value().as_bool()) == Some(false)
}

/// A request's result, kept as it came.
fn item_result(item: &KeptObject) -> Payload {
    item.get("result").cloned().unwrap_or(Payload::NULL)
}

/// The error of a failed request: a command's exit status, a command stopped, or the
/// request's error text.
fn item_error(item: &KeptObject) -> ToolError {
    let text = |key: &str| item.get(key).and_then(Payload::text).unwrap_or_default();
    let (error, result) = (text("error"), text("result"));
    let (error, result) = (error.as_ref(), result.as_ref());
    if let Some(code) = error
        .strip_prefix(EXITED)
        .and_then(|code| code.trim().parse::<i64>().ok())
    {
        // The result begins with the status in brackets, then the output.
        let output = result
            .strip_prefix(&format!("[{error}]"))
            .map_or(result, |rest| rest.strip_prefix('\n').unwrap_or(rest));
        return exit_error(code, output);
    }
    if error.ends_with(ABORTED) {
        let mut stopped = ToolError::new(error);
        stopped.code = Some(ErrorCode::Other("interrupted".to_owned()));
        if !result.is_empty() {
            stopped.details = Some(serde_json::json!({ "output": result }).into());
        }
        return stopped;
    }
    if error.is_empty() {
        return text_error(result);
    }
    text_error(error)
}

/// The text of an error: a string (itself JSON text `{"error": …}` in the stream's
/// `content_end`), or an object's `error` or `message`.
fn error_text(error: &Value) -> String {
    match error {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object
                .get("error")
                .or_else(|| object.get("message"))
                .and_then(Value::as_str)
                .map_or_else(|| text.clone(), str::to_owned),
            _ => text.clone(),
        },
        Value::Object(object) => object
            .get("error")
            .or_else(|| object.get("message"))
            .map_or_else(|| error.to_string(), error_text),
        other => other.to_string(),
    }
}

/// The error of a call the CLI refused before running it: a tool that needs an approval
/// nobody can give (`permission_denied`), a tool the model may not call or input its
/// schema refuses (`invalid_tool_use`), or another failure.
fn refusal(text: &str) -> ToolError {
    let error = text_error(text);
    if text.contains("requires approval")
        || text.contains("was denied")
        || text.contains("rejected by the user")
    {
        error.with_code(ErrorCode::PermissionDenied)
    } else if text.contains("AI_NoSuchToolError")
        || text.contains("AI_InvalidToolInputError")
        || text.contains("unavailable tool")
    {
        error.with_code(ErrorCode::InvalidToolUse)
    } else {
        error
    }
}

/// The text of MCP content blocks: a text kept as it came, the text blocks' texts
/// joined (one block's kept as it came).
fn content_text(content: &Payload) -> Payload {
    if content.is_string() {
        return content.clone();
    }
    let Some(blocks) = kept_items(content) else {
        return Payload::from(String::new());
    };
    let texts: Vec<Payload> = blocks
        .iter()
        .filter_map(|block| KeptObject::of(block)?.get("text").cloned())
        .filter(Payload::is_string)
        .collect();
    match texts.as_slice() {
        [one] => one.clone(),
        many => {
            let texts: Vec<Cow<'_, str>> = many.iter().filter_map(Payload::text).collect();
            Payload::from(texts.join("\n"))
        }
    }
}
