//! Grok CLI's `grok -p` output: one OpenAI-style message a line.

use serde_json::Value;
use toolnorm::{JsonObject, Payload, ToolError, meta};

use super::DIALECT;
use super::outcome::{FORM_HEAD, failure};
use super::wire::{Message, ToolCall};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::rules::mcp;
use crate::track::{Ending, Facts, Sighting, arguments_from_text};

/// The raw item type of the calls (`metadata.itemType`): a Chat Completions tool call's
/// `type`.
const ITEM_TYPE: &str = "function";

/// The name a call is given when the result that opens it does not say its tool.
const UNNAMED: &str = "tool";

/// Reads `grok -p` output.
#[derive(Debug, Default)]
pub struct GrokHeadlessAdapter;

impl Adapter for GrokHeadlessAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let message: Message<'_> = match json::parse_line(line, bytes, "not a Grok CLI message") {
            Ok(message) => message,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        match message.role.as_deref() {
            Some("assistant") => calls(line, message.tool_calls, facts),
            Some("tool") => result(line, message.tool_call_id, message.content, facts),
            // The prompt.
            Some("user") => {}
            other => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!(
                        "a Grok CLI message of unknown role `{}`",
                        other.unwrap_or_default()
                    ),
                ));
                // Nothing tool-like is dropped: what names a call is read as such.
                if message.tool_call_id.is_some() {
                    result(line, message.tool_call_id, message.content, facts);
                } else {
                    calls(line, message.tool_calls, facts);
                }
            }
        }
    }
}

/// An assistant message's calls: each starts.
fn calls(line: u64, calls: Option<Vec<ToolCall>>, facts: &mut Facts<'_>) {
    for call in calls.unwrap_or_default() {
        let Some(id) = call.id.filter(|id| !id.is_empty()) else {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a Grok CLI tool call without an id",
            ));
            continue;
        };
        let function = call.function.unwrap_or_default();
        let name = function
            .name
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!("Grok CLI tool call `{id}` names no function"),
                ));
                UNNAMED.to_owned()
            });
        let input = arguments(line, &id, function.arguments, facts);
        sighted(line, id, name, input, ITEM_TYPE, facts);
    }
}

/// A call's arguments: the JSON text the model sent, read; a text that is not a JSON
/// object is kept as it is, with a notice (Grok CLI then fails the call,
/// `Tool execution error: …`).
pub(super) fn arguments(
    line: u64,
    id: &str,
    arguments: Option<Value>,
    facts: &mut Facts<'_>,
) -> Value {
    match arguments {
        None | Some(Value::Null) => Value::Object(JsonObject::new()),
        Some(Value::String(text)) => arguments_from_text(line, "Grok CLI", id, text, facts),
        Some(other) => other,
    }
}

/// A call starts (an MCP tool's, `mcp__<server>__<tool>`, with its server and tool), its
/// raw record's type `item_type`.
pub(super) fn sighted(
    line: u64,
    id: String,
    name: String,
    input: Value,
    item_type: &str,
    facts: &mut Facts<'_>,
) {
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), item_type.into());
    let split = mcp::split_double_underscore(&name)
        .map(|split| (split.server.to_owned(), split.tool.to_owned()));
    let mut sighting = Sighting::new(id, name, input).metadata(metadata);
    if let Some((server, tool)) = split {
        sighting = sighting.mcp(server, tool);
    }
    facts.sighted(line, sighting);
}

/// A `tool` message: its call's result.
fn result(line: u64, id: Option<String>, content: Option<Payload>, facts: &mut Facts<'_>) {
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Grok CLI tool message without its `tool_call_id`",
        ));
    };
    if !facts.is_open(&id) {
        if facts.finished(&id).is_some() && !facts.is_other_sessions(&id) {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::Rejected,
                format!("a second result for call `{id}`"),
            ));
        }
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("a result for call `{id}`, whose call the input does not hold"),
        ));
        sighted(
            line,
            id.clone(),
            UNNAMED.to_owned(),
            Value::Object(JsonObject::new()),
            ITEM_TYPE,
            facts,
        );
    }
    let tool = facts.name(&id).unwrap_or(UNNAMED).to_owned();
    let output = match content.filter(|content| !content.is_null()) {
        // Not a string: its JSON text is the output.
        Some(other) if !other.is_string() => Some(Payload::from(other.to_json())),
        output => output,
    };
    match output.as_ref().and_then(|output| failed(&tool, output)) {
        Some(error) => facts.fail(line, &id, error, Ending::at(None)),
        None => facts.complete(line, &id, output, Ending::at(None)),
    }
}

/// The error a result's text tells for a call of `tool`, or `None` when it is an output:
/// told by the text's beginning (a possibly huge output is not decoded for it), the whole
/// text read only for a failure's message.
fn failed(tool: &str, output: &Payload) -> Option<ToolError> {
    let head = output.text_head(FORM_HEAD)?;
    failure(tool, &head)?;
    failure(tool, &output.text()?)
}

#[cfg(test)]
mod tests {
    use toolnorm::Payload;

    use super::failed;
    use crate::dialects::grok::outcome::failure;

    #[test]
    fn a_result_fails_by_its_head_as_by_its_whole_text() {
        let long = "x".repeat(200);
        let texts = [
            "Error".to_owned(),
            "Error ".to_owned(),
            "Errors".to_owned(),
            "MCP tool error".to_owned(),
            "MCP tool error!".to_owned(),
            "MCP tool execution error: closed".to_owned(),
            "Command failed: Command failed: exit 3\ncheck failed\n".to_owned(),
            format!("Command failed: Command failed: exit 3\n{long}"),
            format!("Command\n\"failed\": {long}"),
            format!("\u{e9}\u{e9}\u{e9}Unknown tool: {long}"),
            format!("Unknown tool: {long}"),
            format!("Tool execution error: \u{1b}{long}"),
            format!("File or directory not found: {long}"),
            format!("{long}Error"),
            "hello".to_owned(),
            String::new(),
        ];
        for tool in ["bash", "view_file", "edit_file", "mcp__s__t"] {
            for text in &texts {
                let json = serde_json::to_string(text).unwrap_or_default();
                let kept = Payload::from_json(&json).unwrap_or_else(|e| panic!("{e}"));
                assert!(kept.raw_text().is_some(), "{json}");
                assert_eq!(failed(tool, &kept), failure(tool, text), "{tool} {json}");
                assert_eq!(
                    failed(tool, &Payload::from(text.as_str())),
                    failure(tool, text)
                );
            }
        }
    }
}
