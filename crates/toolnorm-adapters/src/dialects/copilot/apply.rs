//! What each Copilot CLI session event says about its calls (the table of the module's
//! doc).

use serde::de::DeserializeOwned;
use serde_json::Value;
use toolnorm::{ErrorCode, JsonObject, Timestamp, ToolError, ToolKind, meta};

use super::events::{
    AssistantMessage, Event, ExecutionComplete, ExecutionStart, PartialResult, SessionData,
    SubagentStarted, ToolCallDelta,
};
use super::known::SKIPPED;
use super::{CopilotAdapter, Pending};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::partial_json::parse_partial;
use crate::track::{Ending, Facts, Sighting, exit_error, text_error};

/// Applies one event.
pub(super) fn event(adapter: &mut CopilotAdapter, line: u64, event: Event, facts: &mut Facts<'_>) {
    let at = event.timestamp.as_deref().map(Timestamp::from);
    // A run's stream ends with its `result`, the only line that names its session: what
    // follows is another run, numbered as a session of its own.
    if event.kind == "result" {
        adapter.after_result = true;
    } else if std::mem::take(&mut adapter.after_result) {
        facts.begin_unnamed_session();
    }
    match event.kind.as_str() {
        "session.start" | "session.resume" => {
            if let Some(data) = data::<SessionData>(line, &event, facts) {
                if let Some(session) = data.session_id.as_deref() {
                    facts.session(session);
                }
                if let Some(cwd) = data.context.and_then(|context| context.cwd)
                    && facts.cwd() != Some(cwd.as_str())
                {
                    facts.set_cwd(cwd);
                }
            }
        }
        "assistant.tool_call_delta" => {
            if let Some(delta) = data::<ToolCallDelta>(line, &event, facts) {
                tool_call_delta(adapter, line, delta, at, facts);
            }
        }
        "assistant.message" => {
            if let Some(message) = data::<AssistantMessage>(line, &event, facts) {
                for request in message.tool_requests {
                    adapter.streamed_input.remove(&request.tool_call_id);
                    let sighting = sighting(
                        request.tool_call_id,
                        request.name,
                        request.arguments,
                        request.mcp_server_name.zip(request.mcp_tool_name),
                        message.parent_tool_call_id.as_deref(),
                    );
                    adapter.open(&sighting.id);
                    facts.sighted(line, sighting.at(at.clone()));
                }
            }
        }
        "tool.execution_start" => {
            if let Some(start) = data::<ExecutionStart>(line, &event, facts) {
                adapter.streamed_input.remove(&start.tool_call_id);
                let id = start.tool_call_id.clone();
                let sighting = sighting(
                    start.tool_call_id,
                    start.tool_name,
                    start.arguments,
                    start.mcp_server_name.zip(start.mcp_tool_name),
                    start.parent_tool_call_id.as_deref(),
                );
                adapter.open(&id);
                facts.sighted(line, sighting.at(at.clone()));
                facts.running(line, &id, at);
            }
        }
        "tool.execution_partial_result" => {
            if let Some(partial) = data::<PartialResult>(line, &event, facts) {
                partial_result(line, &partial, facts);
            }
        }
        "tool.execution_complete" => {
            if let Some(complete) = data::<ExecutionComplete>(line, &event, facts) {
                adapter.streamed_input.remove(&complete.tool_call_id);
                adapter
                    .open_calls
                    .retain(|open| *open != complete.tool_call_id);
                completed(line, complete, at, facts);
            }
        }
        "subagent.started" => {
            if let Some(started) = data::<SubagentStarted>(line, &event, facts) {
                let mut metadata = JsonObject::new();
                if let Some(agent) = event.agent_id.clone() {
                    metadata.insert(meta::AGENT_ID.into(), agent.into());
                }
                if let Some(name) = started.agent_name {
                    metadata.insert("agentName".into(), name.into());
                }
                if !metadata.is_empty() {
                    facts.merge_metadata(line, &started.tool_call_id, metadata);
                }
            }
        }
        "abort" => aborted(adapter, line, &event, at, facts),
        kind if SKIPPED.binary_search(&kind).is_ok() => {}
        kind => unknown(line, kind, &event, at, facts),
    }
}

/// The event's `data` read as `T`; an event whose data does not read is an error naming
/// the event type.
fn data<T: DeserializeOwned>(line: u64, event: &Event, facts: &mut Facts<'_>) -> Option<T> {
    match T::deserialize(&event.data) {
        Ok(data) => Some(data),
        Err(error) => {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("a Copilot CLI `{}` event: {error}", event.kind),
            ));
            None
        }
    }
}

/// A call as an event names it: its arguments, MCP server and tool, and parent call.
fn sighting(
    id: String,
    name: String,
    arguments: Value,
    mcp: Option<(String, String)>,
    parent: Option<&str>,
) -> Sighting {
    let input = match arguments {
        Value::Null => Value::Object(JsonObject::new()),
        other => other,
    };
    let mut metadata = JsonObject::new();
    if let Some(parent) = parent {
        metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
    }
    let mut sighting = Sighting::new(id, name, input).metadata(metadata);
    if let Some((server, tool)) = mcp {
        sighting = sighting.mcp(server, tool);
    }
    sighting
}

/// A piece of a call's arguments: a built-in tool's call opens at its first piece, and its
/// input grows with each (as far as the JSON so far reads). Another tool (an MCP tool,
/// whose server the pieces do not name) waits for the `assistant.message` that names it
/// whole; a stream that ends before it opens the call then (`CopilotAdapter::finish`).
fn tool_call_delta(
    adapter: &mut CopilotAdapter,
    line: u64,
    delta: ToolCallDelta,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    let id = delta.tool_call_id;
    // A piece of a call that ended (a stream that repeats one) changes nothing; an id of
    // another run's call is a call of this run's.
    if facts.finished(&id).is_some() && !facts.is_open(&id) && !facts.is_other_sessions(&id) {
        return;
    }
    let pending = adapter
        .streamed_input
        .entry(id.clone())
        .or_insert_with(|| Pending {
            name: delta.tool_name.clone().unwrap_or_else(|| "tool".to_owned()),
            text: String::new(),
            line,
            at: at.clone(),
        });
    pending.text.push_str(&delta.input_delta);
    let input = parse_partial(&pending.text);
    if facts.is_open(&id) {
        if let Some(input) = input {
            facts.update_input(line, &id, input, None);
        }
        return;
    }
    if !facts.is_builtin(&pending.name) {
        return;
    }
    let name = pending.name.clone();
    let input = input.unwrap_or_else(|| Value::Object(JsonObject::new()));
    adapter.open(&id);
    facts.sighted(line, Sighting::new(id, name, input).at(at));
}

/// The calls whose arguments were streamed and that nothing named whole before the stream
/// ended: opened with the arguments streamed.
pub(super) fn streamed_only(adapter: &mut CopilotAdapter, facts: &mut Facts<'_>) {
    let mut pending: Vec<(String, Pending)> = adapter.streamed_input.drain().collect();
    pending.sort_by_key(|(_, pending)| pending.line);
    for (id, pending) in pending {
        if facts.is_open(&id) || facts.finished(&id).is_some() {
            continue;
        }
        let input =
            parse_partial(&pending.text).unwrap_or_else(|| Value::Object(JsonObject::new()));
        facts.sighted(
            pending.line,
            Sighting::new(id, pending.name, input).at(pending.at),
        );
    }
}

/// The output so far of a running call: what it adds to the output streamed already.
fn partial_result(line: u64, partial: &PartialResult, facts: &mut Facts<'_>) {
    let id = partial.tool_call_id.as_str();
    if !facts.is_open(id) {
        return facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("a partial result for call `{id}`, which is not running"),
        ));
    }
    let streamed = usize::try_from(facts.streamed(id)).unwrap_or(usize::MAX);
    let text = partial.partial_output.as_str();
    // The output so far repeats what was streamed, then adds to it.
    if let Some(added) = text.get(streamed..).filter(|added| !added.is_empty()) {
        facts.output(line, id, added);
    }
}

/// A call ended: complete with what it gave the model, or failed.
fn completed(line: u64, complete: ExecutionComplete, at: Option<Timestamp>, facts: &mut Facts<'_>) {
    let id = complete.tool_call_id.clone();
    if facts.finished(&id).is_some() && !facts.is_open(&id) {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::Rejected,
            format!("a second result for call `{id}`"),
        ));
    }
    if !facts.is_open(&id) {
        // A log or stream that starts after the call: the end names no tool.
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("a result for call `{id}`, whose start the file does not hold"),
        ));
        let mut metadata = JsonObject::new();
        if let Some(parent) = complete.parent_tool_call_id.as_deref() {
            metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
        }
        let sighting = Sighting::new(id.clone(), "tool", Value::Object(JsonObject::new()))
            .metadata(metadata)
            .at(at.clone());
        facts.sighted(line, sighting);
    }
    let content = complete.result.and_then(|result| result.content);
    let ending = Ending::at(at);
    if !complete.success {
        let failure = complete.error;
        let message = failure
            .as_ref()
            .and_then(|failure| failure.message.clone())
            .or(content)
            .unwrap_or_default();
        let mut error = text_error(&message);
        error.code = code(
            failure.and_then(|failure| failure.code).as_deref(),
            facts.kind(&id) == Some(ToolKind::Mcp),
        );
        return facts.fail(line, &id, error, ending);
    }
    let exit = complete
        .shell_execution
        .and_then(|shell| shell.exit_code)
        .filter(|code| *code != 0);
    if let Some(code) = exit {
        return facts.fail(
            line,
            &id,
            exit_error(code, content.unwrap_or_default()),
            ending,
        );
    }
    facts.complete(line, &id, content.map(Value::String), ending);
}

/// The shared code of a failure the CLI gave `code`.
fn code(code: Option<&str>, is_mcp: bool) -> Option<ErrorCode> {
    Some(match code.unwrap_or_default() {
        "denied" => ErrorCode::PermissionDenied,
        "rejected" => ErrorCode::UserRejected,
        _ if is_mcp => ErrorCode::McpError,
        "" | "failure" => return None,
        other => ErrorCode::Other(other.to_owned()),
    })
}

/// `abort`: the turn was stopped; the calls still open end, interrupted (the stream's
/// `agent.interrupted` names them too, but the session log has only the `abort`).
fn aborted(
    adapter: &mut CopilotAdapter,
    line: u64,
    event: &Event,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    let reason = event.data.get("reason").and_then(Value::as_str);
    let message = match reason {
        Some(reason) => format!("aborted ({reason})"),
        None => "aborted".to_owned(),
    };
    for id in std::mem::take(&mut adapter.open_calls) {
        if facts.is_open(&id) {
            let error =
                ToolError::new(message.clone()).with_code(ErrorCode::Other("interrupted".into()));
            facts.fail(line, &id, error, Ending::at(at.clone()));
        }
    }
}

/// An event of a type the reader does not know: a notice; one that names a call and its
/// tool still opens the call.
fn unknown(line: u64, kind: &str, event: &Event, at: Option<Timestamp>, facts: &mut Facts<'_>) {
    facts.diagnostic(Diagnostic::notice(
        line,
        DiagnosticKind::UnknownEvent,
        format!("unknown Copilot CLI event type `{kind}`"),
    ));
    let text = |key: &str| {
        event
            .data
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if let (Some(id), Some(name)) = (
        text("toolCallId"),
        text("toolName").or_else(|| text("name")),
    ) && !facts.is_open(&id)
        && facts.finished(&id).is_none()
    {
        let input = event
            .data
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| Value::Object(JsonObject::new()));
        let sighting = sighting(id, name, input, None, text("parentToolCallId").as_deref());
        facts.sighted(line, sighting.at(at));
    }
}

#[cfg(test)]
mod tests {
    use super::code;
    use toolnorm::ErrorCode;

    #[test]
    fn the_cli_codes_are_the_shared_ones() {
        assert_eq!(
            code(Some("denied"), false),
            Some(ErrorCode::PermissionDenied)
        );
        assert_eq!(code(Some("rejected"), false), Some(ErrorCode::UserRejected));
        assert_eq!(code(Some("failure"), true), Some(ErrorCode::McpError));
        assert_eq!(code(Some("failure"), false), None);
        assert_eq!(code(None, false), None);
        assert_eq!(
            code(Some("timeout"), false),
            Some(ErrorCode::Other("timeout".into()))
        );
    }
}
