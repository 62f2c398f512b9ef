//! The reader of a saved Continue session: one document, its history item by item.

use serde_json::Value;
use toolnorm::{JsonObject, meta};

use super::DIALECT;
use super::outcome::{Status, canceled, errored};
use super::wire::{Function, HistoryItem, Message, Session, Tool, ToolCall, ToolCallState};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::track::{Ending, Facts, Sighting, arguments_from_text, content_text};

/// The raw item type of the calls (`metadata.itemType`): a Chat Completions tool call's
/// `type`.
const ITEM_TYPE: &str = "function";

/// The name a call is given when nothing that opens it says its tool.
const UNNAMED: &str = "tool";

/// The roles of the messages that carry nothing about a call.
const KNOWN_ROLES: &[&str] = &["user", "system", "thinking"];

/// Reads saved Continue sessions, a document a line (an indented one is joined first).
#[derive(Debug, Default)]
pub struct ContinueSessionAdapter;

impl Adapter for ContinueSessionAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let session: Session<'_> =
            match json::parse_line(line, bytes, "not a saved Continue session") {
                Ok(session) => session,
                Err(diagnostic) => return facts.diagnostic(diagnostic),
            };
        // A document is a whole session: its calls are its own.
        match session.session_id.as_deref().filter(|id| !id.is_empty()) {
            Some(id) => facts.begin_session(id),
            None => facts.begin_unnamed_session(),
        }
        if let Some(cwd) = session.workspace_directory.filter(|cwd| !cwd.is_empty()) {
            facts.set_cwd(cwd);
        }
        for (index, item) in session.history.into_iter().enumerate() {
            match serde_json::from_str::<HistoryItem>(item.get()) {
                Ok(item) => history_item(line, index, item, facts),
                Err(error) => facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!(
                        "history item {index}: not a Continue history item: {}",
                        json::without_position(&error)
                    ),
                )),
            }
        }
    }
}

/// One history item: an assistant message's calls and their states, a tool message's
/// result; the other messages are known.
fn history_item(line: u64, index: usize, item: HistoryItem, facts: &mut Facts<'_>) {
    let message = item.message.unwrap_or(Message {
        role: None,
        content: None,
        tool_calls: None,
        tool_call_id: None,
    });
    let role = message.role.clone().unwrap_or_default();
    let tool_like = message.tool_calls.is_some() || item.tool_call_states.is_some();
    match role.as_str() {
        "assistant" => {}
        "tool" => return tool_message(line, index, message, facts),
        known if KNOWN_ROLES.contains(&known) => {}
        other => facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            format!("history item {index}: unknown Continue message role `{other}`"),
        )),
    }
    if !tool_like {
        return;
    }
    // Nothing tool-like is dropped: any message's calls are read as an assistant's.
    let mut states = item.tool_call_states.unwrap_or_default();
    // Every call the message makes starts before any ends (they run side by side).
    let mut listed = Vec::new();
    for call in message.tool_calls.unwrap_or_default() {
        let Some(id) = call.id.clone().filter(|id| !id.is_empty()) else {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("history item {index}: a Continue tool call without an id"),
            ));
            continue;
        };
        let state = states
            .iter()
            .position(|state| state.tool_call_id.as_deref() == Some(id.as_str()))
            .map(|at| states.remove(at));
        sighted(line, &id, &call, state.as_ref(), facts);
        match state {
            Some(state) => listed.push((id, state)),
            None => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownCall,
                format!(
                    "history item {index}: Continue tool call `{id}` has no state: it stays open"
                ),
            )),
        }
    }
    for (id, state) in listed {
        apply(line, &id, state, facts);
    }
    // States whose call the message does not list: the call each names is read from it.
    for mut state in states {
        let id = state
            .tool_call_id
            .clone()
            .or_else(|| state.tool_call.as_ref().and_then(|call| call.id.clone()))
            .filter(|id| !id.is_empty());
        let Some(id) = id else {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("history item {index}: a Continue tool call state without a call id"),
            ));
            continue;
        };
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!(
                "history item {index}: a state for Continue tool call `{id}`, which its message does not list"
            ),
        ));
        let call = state.tool_call.take().unwrap_or_default();
        sighted(line, &id, &call, Some(&state), facts);
        apply(line, &id, state, facts);
    }
}

/// A call starts: its tool and input from the message's call, or from its state's.
fn sighted(
    line: u64,
    id: &str,
    call: &ToolCall,
    state: Option<&ToolCallState>,
    facts: &mut Facts<'_>,
) {
    let function = call.function.as_ref().or_else(|| {
        state
            .and_then(|state| state.tool_call.as_ref())
            .and_then(|call| call.function.as_ref())
    });
    let name = function
        .and_then(|function| function.name.clone())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("Continue tool call `{id}` names no tool"),
            ));
            UNNAMED.to_owned()
        });
    let input = arguments(
        line,
        id,
        function.and_then(|function| function.arguments.clone()),
        state.and_then(|state| state.parsed_args.clone()),
        facts,
    );
    let mut metadata = JsonObject::new();
    metadata.insert(
        meta::ITEM_TYPE.into(),
        call.kind
            .clone()
            .unwrap_or_else(|| ITEM_TYPE.to_owned())
            .into(),
    );
    let mut sighting = Sighting::new(id, name.clone(), input).metadata(metadata);
    if let Some((server, tool)) = state
        .and_then(|state| state.tool.as_ref())
        .and_then(|tool| mcp_tool(tool, &name))
    {
        sighting = sighting.mcp(server, tool);
    }
    facts.sighted(line, sighting);
}

/// A call's input: the JSON text the model sent, read. A text that is not a JSON object
/// is told in a notice, and the state's `parsedArgs` (what Continue read of it, `{}`
/// when nothing) is the input when it holds something, else the text as it is.
fn arguments(
    line: u64,
    id: &str,
    arguments: Option<Value>,
    parsed: Option<Value>,
    facts: &mut Facts<'_>,
) -> Value {
    let parsed = parsed.filter(|parsed| parsed.as_object().is_some_and(|o| !o.is_empty()));
    match arguments {
        None | Some(Value::Null) => parsed.unwrap_or_else(|| Value::Object(JsonObject::new())),
        Some(Value::String(text)) if text.trim().is_empty() => {
            parsed.unwrap_or_else(|| Value::Object(JsonObject::new()))
        }
        Some(Value::String(text)) => match arguments_from_text(line, "Continue", id, text, facts) {
            Value::String(text) => parsed.unwrap_or(Value::String(text)),
            object => object,
        },
        Some(other) => other,
    }
}

/// An MCP server's tool, as the IDE extension's sessions keep it (`tool.uri`
/// `mcp://<server>/<tool>`, the server's name in `group`): (server, tool).
fn mcp_tool(tool: &Tool, name: &str) -> Option<(String, String)> {
    let rest = tool.uri.as_deref()?.strip_prefix("mcp://")?;
    let (server_id, tool_name) = rest.split_once('/').unwrap_or((rest, name));
    let server = tool
        .group
        .clone()
        .filter(|group| !group.is_empty())
        .unwrap_or_else(|| server_id.to_owned());
    let tool_name = tool
        .original_function_name
        .clone()
        .filter(|tool| !tool.is_empty())
        .unwrap_or_else(|| tool_name.to_owned());
    Some((server, tool_name))
}

/// Where a call's state leaves it.
fn apply(line: u64, id: &str, state: ToolCallState, facts: &mut Facts<'_>) {
    let text = output_text(state.output.as_deref());
    let tool = facts.name(id).unwrap_or(UNNAMED).to_owned();
    match Status::of(state.status.as_deref()) {
        Status::Pending => {}
        Status::Calling => facts.running(line, id, None),
        Status::Done => facts.complete(line, id, text.map(Value::String), Ending::at(None)),
        Status::Errored => facts.fail(line, id, errored(&tool, text.as_deref()), Ending::at(None)),
        Status::Canceled => facts.fail(line, id, canceled(text.as_deref()), Ending::at(None)),
        Status::Unknown(status) => {
            facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!(
                    "Continue tool call `{id}` has the unknown status `{status}`: it stays open"
                ),
            ));
            if let Some(text) = text {
                facts.output(line, id, &text);
            }
        }
    }
}

/// The text of a call's output items, one after the other.
fn output_text(items: Option<&[super::wire::ContextItem]>) -> Option<String> {
    let texts: Vec<String> = items?
        .iter()
        .filter_map(|item| item.content.as_ref().and_then(content_text))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// A `tool` message (the model's view of a result): its call's output when the call's
/// state did not end it.
fn tool_message(line: u64, index: usize, message: Message, facts: &mut Facts<'_>) {
    let Some(id) = message.tool_call_id.filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            format!("history item {index}: a Continue tool message without its `toolCallId`"),
        ));
    };
    if facts.finished(&id).is_some() && !facts.is_other_sessions(&id) {
        // Its state ended the call already.
        return;
    }
    if !facts.is_open(&id) {
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!(
                "history item {index}: a result for Continue tool call `{id}`, whose call the session does not hold"
            ),
        ));
        // The message names no tool: the call is the unnamed tool's.
        let unnamed = ToolCall {
            function: Some(Function {
                name: Some(UNNAMED.to_owned()),
                arguments: None,
            }),
            ..ToolCall::default()
        };
        sighted(line, &id, &unnamed, None, facts);
    }
    let text = message.content.as_ref().and_then(content_text);
    facts.complete(line, &id, text.map(Value::String), Ending::at(None));
}
