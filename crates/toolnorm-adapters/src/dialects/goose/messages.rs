//! The content of Goose's messages, which its stream-json output and its session files
//! both carry: the tool items of a `Message`.
//!
//! | content item | canonical events |
//! | --- | --- |
//! | `{"type":"toolRequest","id","toolCall":{"status":"success","value":{"name","arguments"}}}` | `toolCallStarted` (`<extension>__<tool>` split into `metadata.mcp`) |
//! | `{"type":"frontendToolRequest","id","toolCall"}` | the same: a tool the client runs |
//! | `{"type":"toolResponse","id","toolResult":{"status","value"|"error"}}` | `toolCallCompleted` / `toolCallFailed` (`outcome`) |
//! | `{"type":"toolConfirmationRequest","id","toolName","arguments","prompt"}`, `{"type":"actionRequired","data":{"actionType":"toolConfirmation",…}}` | `approvalRequested` |
//! | `text`, `image`, `thinking`, `redactedThinking`, `systemNotification`, `contextLengthExceeded`, `summarizationRequested`, `conversationCompacted`; an elicitation | (known, nothing about tools) |
//!
//! A request whose `toolCall` is an error (the model's call could not be read) still
//! starts its call, unnamed: Goose answers it with an error response.

use serde_json::Value;
use toolnorm::{ApprovalRequested, JsonObject, meta};

use super::outcome::{Outcome, outcome};
use super::wire::{Call, ContentItem, Item};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::rules::mcp;
use crate::track::{Ending, Facts, Sighting};

/// The raw item type of a model's call (`metadata.itemType`).
const REQUEST: &str = "toolRequest";

/// The name a call is given when nothing says its tool.
const UNNAMED: &str = "tool";

/// The content items that carry nothing about a call.
const KNOWN: &[&str] = &[
    "text",
    "image",
    "thinking",
    "redactedThinking",
    "systemNotification",
    "contextLengthExceeded",
    "summarizationRequested",
    "conversationCompacted",
];

/// A message's content items, read in order.
pub(super) fn content<C: ContentItem>(line: u64, items: Option<Vec<C>>, facts: &mut Facts<'_>) {
    for item in items.unwrap_or_default() {
        let item: Item = match item.read() {
            Ok(item) => item,
            Err(error) => {
                facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!(
                        "a Goose content item that does not read: {}",
                        json::without_position(&error)
                    ),
                ));
                continue;
            }
        };
        let kind = item.kind.clone().unwrap_or_default();
        match &*kind {
            "toolRequest" | "frontendToolRequest" => request(line, item, facts),
            "toolResponse" => response(line, item, facts),
            "toolConfirmationRequest" => {
                confirmation(
                    line,
                    item.id,
                    item.tool_name,
                    item.arguments,
                    item.prompt,
                    facts,
                );
            }
            "actionRequired" => action(line, item.data, facts),
            known if KNOWN.contains(&known) => {}
            other => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("a Goose content item of unknown type `{other}`"),
                ));
                // Nothing tool-like is dropped.
                if item.tool_result.is_some() {
                    response(line, item, facts);
                } else if item.tool_call.is_some() {
                    request(line, item, facts);
                }
            }
        }
    }
}

/// A call's id, or an error saying that `what` has none.
fn id_of(line: u64, id: Option<String>, what: &str, facts: &mut Facts<'_>) -> Option<String> {
    let id = id.filter(|id| !id.is_empty());
    if id.is_none() {
        facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            format!("a Goose {what} without an id"),
        ));
    }
    id
}

/// Whether call `id` ended already (a notice then says so, and nothing is applied).
fn ended(line: u64, id: &str, what: &str, facts: &mut Facts<'_>) -> bool {
    let ended = !facts.is_open(id) && facts.finished(id).is_some() && !facts.is_other_sessions(id);
    if ended {
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("{what} for call `{id}`, which has ended"),
        ));
    }
    ended
}

/// A `toolRequest` (or `frontendToolRequest`): its call starts.
fn request(line: u64, item: Item, facts: &mut Facts<'_>) {
    let item_type = item.kind.unwrap_or_else(|| REQUEST.to_owned());
    let Some(id) = id_of(line, item.id, "tool request", facts) else {
        return;
    };
    if ended(line, &id, "a second request", facts) {
        return;
    }
    let envelope = item.tool_call.unwrap_or_default();
    if envelope.status.as_deref() == Some("error") {
        // The model's call could not be read: Goose answers it with an error response,
        // which ends it.
        return sighted(
            line,
            id,
            UNNAMED.to_owned(),
            Value::Object(JsonObject::new()),
            &item_type,
            facts,
        );
    }
    let call: Call = envelope
        .value
        .and_then(|value| serde_json::from_value(value).ok())
        .unwrap_or_default();
    let name = call
        .name
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| {
            facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::MalformedEvent,
                format!("Goose tool request `{id}` names no tool"),
            ));
            UNNAMED.to_owned()
        });
    let input = match call.arguments {
        None | Some(Value::Null) => Value::Object(JsonObject::new()),
        Some(arguments) => arguments,
    };
    sighted(line, id, name, input, &item_type, facts);
}

/// A call starts: an extension's tool, `<extension>__<tool>`, with its extension as the
/// MCP server (Goose's extensions are MCP servers, its built-in `developer` too).
fn sighted(
    line: u64,
    id: String,
    name: String,
    input: Value,
    item_type: &str,
    facts: &mut Facts<'_>,
) {
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), item_type.into());
    let split =
        mcp::split_server_tool(&name).map(|split| (split.server.to_owned(), split.tool.to_owned()));
    let mut sighting = Sighting::new(id, name, input).metadata(metadata);
    if let Some((server, tool)) = split {
        sighting = sighting.mcp(server, tool);
    }
    facts.sighted(line, sighting);
}

/// A `toolResponse`: its call ends.
fn response(line: u64, item: Item, facts: &mut Facts<'_>) {
    let Some(id) = id_of(line, item.id, "tool response", facts) else {
        return;
    };
    if !facts.is_open(&id) {
        if ended(line, &id, "a second response", facts) {
            return;
        }
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("a response for call `{id}`, whose request the input does not hold"),
        ));
        sighted(
            line,
            id.clone(),
            UNNAMED.to_owned(),
            Value::Object(JsonObject::new()),
            REQUEST,
            facts,
        );
    }
    let envelope = item.tool_result.unwrap_or_default();
    match outcome(envelope.status.as_deref(), envelope.value, envelope.error) {
        Outcome::Completed(output) => facts.complete(line, &id, output, Ending::at(None)),
        Outcome::Failed(error) => facts.fail(line, &id, error, Ending::at(None)),
    }
}

/// A request to confirm call `id` before it runs: the call's approval is asked (the call
/// starts from the request's own tool and arguments when no `toolRequest` did).
fn confirmation(
    line: u64,
    id: Option<String>,
    tool: Option<String>,
    arguments: Option<Value>,
    prompt: Option<String>,
    facts: &mut Facts<'_>,
) {
    let Some(id) = id_of(line, id, "tool confirmation request", facts) else {
        return;
    };
    if ended(line, &id, "a confirmation request", facts) {
        return;
    }
    if !facts.is_open(&id) {
        let name = tool
            .filter(|tool| !tool.is_empty())
            .unwrap_or_else(|| UNNAMED.to_owned());
        let input = arguments
            .filter(Value::is_object)
            .unwrap_or_else(|| Value::Object(JsonObject::new()));
        sighted(line, id.clone(), name, input, REQUEST, facts);
    }
    facts.approval_requested(
        line,
        ApprovalRequested {
            id,
            reason: prompt.filter(|prompt| !prompt.is_empty()),
            options: Vec::new(),
            risk: None,
            at: None,
        },
    );
}

/// An `actionRequired` item: a tool confirmation (an approval), or an elicitation (a
/// question of an extension's, not a call).
fn action(line: u64, data: Option<Value>, facts: &mut Facts<'_>) {
    let data = data.unwrap_or_default();
    let text = |key: &str| data.get(key).and_then(Value::as_str).map(str::to_owned);
    match data.get("actionType").and_then(Value::as_str) {
        Some("toolConfirmation") => confirmation(
            line,
            text("id"),
            text("toolName"),
            data.get("arguments").cloned(),
            text("prompt"),
            facts,
        ),
        Some("elicitation" | "elicitationResponse") => {}
        other => facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            format!(
                "a Goose action of unknown type `{}`",
                other.unwrap_or_default()
            ),
        )),
    }
}
