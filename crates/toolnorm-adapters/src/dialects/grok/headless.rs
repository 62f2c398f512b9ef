//! Grok CLI's `grok -p` output: one OpenAI-style message a line.

use serde_json::Value;
use toolnorm::{JsonObject, meta};

use super::DIALECT;
use super::outcome::failure;
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
fn result(line: u64, id: Option<String>, content: Option<Value>, facts: &mut Facts<'_>) {
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
    let text = match content {
        Some(Value::String(text)) => Some(text),
        None | Some(Value::Null) => None,
        Some(other) => Some(other.to_string()),
    };
    let tool = facts.name(&id).unwrap_or(UNNAMED).to_owned();
    match text.as_deref().and_then(|text| failure(&tool, text)) {
        Some(error) => facts.fail(line, &id, error, Ending::at(None)),
        None => facts.complete(line, &id, text.map(Value::String), Ending::at(None)),
    }
}
