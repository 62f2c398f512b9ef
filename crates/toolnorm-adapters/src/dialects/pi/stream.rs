//! Pi's `pi --mode json` events (`AgentSessionEvent`), one per line after the session
//! header.

use serde_json::Value;

use super::outcome::{ended, open_unseen, sighted};
use super::wire::{AssistantEvent, Line, Message, ToolCall, result_content, value_text};
use super::{DIALECT, header, timestamp};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::track::Facts;

/// The events that carry nothing about a call that another event does not say first:
/// the run's and turns' bounds (`turn_end` and `agent_end` repeat the turn's messages),
/// the prompt queue, compaction and the model request's retries.
const KNOWN: &[&str] = &[
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "queue_update",
    "compaction_start",
    "compaction_end",
    "auto_retry_start",
    "auto_retry_end",
];

/// Reads `pi --mode json` output.
#[derive(Debug, Default)]
pub struct PiStreamAdapter;

impl Adapter for PiStreamAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let event: Line<'_> = match json::parse_line(line, bytes, "not a Pi event") {
            Ok(event) => event,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        let kind = event.kind.clone().unwrap_or_default();
        match &*kind {
            "session" => header(&event, true, facts),
            "message_start" | "message_end" => message(line, event.message, facts),
            "message_update" => update(line, event.assistant_event, facts),
            "tool_execution_start" => execution_start(line, &event, facts),
            "tool_execution_update" => execution_update(line, &event, facts),
            "tool_execution_end" => execution_end(line, &event, facts),
            known if KNOWN.contains(&known) => {}
            other => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Pi event type `{other}`"),
                ));
                // Nothing tool-like is dropped: an event that names a call is read as the
                // execution event it looks like.
                if event.tool_call_id.is_some() && event.tool_name.is_some() {
                    if event.result.is_some() {
                        execution_end(line, &event, facts);
                    } else {
                        execution_start(line, &event, facts);
                    }
                } else if event.message.is_some() {
                    message(line, event.message, facts);
                }
            }
        }
    }
}

/// A message starts or ends: an assistant's calls are seen (whole at its end); a tool
/// result ends its call when no `tool_execution_end` did (a stream joined late).
fn message(line: u64, message: Option<Box<Message>>, facts: &mut Facts<'_>) {
    let Some(message) = message else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Pi message event without its message",
        ));
    };
    let at = timestamp(message.timestamp.as_ref());
    match message.role.as_deref() {
        Some("assistant") => {
            for call in message.into_tool_calls() {
                sighted(line, call, at.clone(), facts);
            }
        }
        Some("toolResult") => {
            let Some(id) = message.tool_call_id.as_deref() else {
                return facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    "a Pi tool result without its `toolCallId`",
                ));
            };
            // The tool_execution_end before it said it all.
            if facts.finished(id).is_some() && !facts.is_other_sessions(id) {
                return;
            }
            open_unseen(
                line,
                id,
                message.tool_name.as_deref(),
                None,
                at.clone(),
                facts,
            );
            ended(
                line,
                id,
                &message.content,
                message.is_error.unwrap_or(false),
                at,
                facts,
            );
        }
        // The prompt, and the coding agent's own messages (a `!` shell command the user
        // ran, extension messages, summaries): nothing the model called.
        _ => {}
    }
}

/// A `message_update`: a call's arguments as they stream in.
fn update(line: u64, event: Option<Box<AssistantEvent>>, facts: &mut Facts<'_>) {
    let Some(event) = event.map(|event| *event) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Pi message_update without its assistantMessageEvent",
        ));
    };
    match event.kind.as_deref() {
        Some("toolcall_start" | "toolcall_delta") => {
            let at = event
                .partial
                .as_ref()
                .and_then(|partial| timestamp(partial.timestamp.as_ref()));
            let block = event
                .partial
                .zip(event.content_index)
                .and_then(|(partial, index)| match partial.content.into_value() {
                    Value::Array(blocks) => blocks.into_iter().nth(index),
                    _ => None,
                })
                .and_then(ToolCall::take);
            if let Some(call) = block.filter(|call| call.id.is_some()) {
                sighted(line, call, at, facts);
            }
        }
        Some("toolcall_end") => {
            if let Some(call) = event.tool_call.and_then(ToolCall::take) {
                sighted(line, call, None, facts);
            }
        }
        // Text, thinking, and the message's own start and end.
        _ => {}
    }
}

/// The call id of an execution event, or its diagnostic.
fn call_id<'e>(line: u64, event: &'e Line<'_>, facts: &mut Facts<'_>) -> Option<&'e str> {
    let id = event.tool_call_id.as_deref().filter(|id| !id.is_empty());
    if id.is_none() {
        facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            format!(
                "a Pi `{}` event without its `toolCallId`",
                event.kind.as_deref().unwrap_or_default()
            ),
        ));
    }
    id
}

/// `tool_execution_start`: the call runs, with its final arguments.
fn execution_start(line: u64, event: &Line<'_>, facts: &mut Facts<'_>) {
    let Some(id) = call_id(line, event, facts) else {
        return;
    };
    let call = ToolCall {
        id: Some(id.to_owned()),
        name: event.tool_name.clone(),
        arguments: event
            .args
            .clone()
            .unwrap_or_else(|| Value::Object(serde_json::Map::new())),
    };
    sighted(line, call, None, facts);
    facts.running(line, id, None);
}

/// `tool_execution_update`: the output so far (Pi sends it whole each time).
fn execution_update(line: u64, event: &Line<'_>, facts: &mut Facts<'_>) {
    let Some(id) = call_id(line, event, facts) else {
        return;
    };
    if !facts.is_open(id) {
        if facts.finished(id).is_some() && !facts.is_other_sessions(id) {
            return facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownCall,
                format!("an update of call `{id}`, which has ended"),
            ));
        }
        // A stream joined while the call runs: the update says what the call is.
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("an update of call `{id}`, whose start the input does not hold"),
        ));
        execution_start(line, event, facts);
    }
    let text = event
        .partial_result
        .as_ref()
        .and_then(|result| value_text(result.get("content")?));
    if let Some(Value::String(text)) = text {
        facts.streamed_text(line, id, &text);
    }
}

/// `tool_execution_end`: the call's result.
fn execution_end(line: u64, event: &Line<'_>, facts: &mut Facts<'_>) {
    let Some(id) = call_id(line, event, facts) else {
        return;
    };
    if facts.finished(id).is_some() && !facts.is_other_sessions(id) && !facts.is_open(id) {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::Rejected,
            format!("a second result for call `{id}`"),
        ));
    }
    open_unseen(
        line,
        id,
        event.tool_name.as_deref(),
        event.args.as_ref(),
        None,
        facts,
    );
    let content = event
        .result
        .as_ref()
        .and_then(result_content)
        .unwrap_or_default();
    ended(
        line,
        id,
        &content,
        event.is_error.unwrap_or(false),
        None,
        facts,
    );
}
