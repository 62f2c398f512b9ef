//! Gemini CLI session files (`chats/session-*.jsonl`), read with the generated
//! `chatRecordingTypes` records: a metadata record, message records (appended again
//! each time they change), `$set` updates (which may replace the messages) and
//! `$rewindTo`; a whole `ConversationRecord` on one line is read as well.

use std::borrow::Cow;

use serde_json::{Map, Value};
use toolnorm::{JsonObject, Payload, Timestamp, meta};
use toolnorm_wire::gemini_session as wire;

use super::GeminiCliAdapter;
use super::outcome;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::{json, tolerant};
use crate::track::{Ending, Facts, Sighting};

/// A record without a `type`: the session's metadata, a `$set` or a `$rewindTo`.
pub(super) fn record(adapter: &GeminiCliAdapter, line: u64, text: &str, facts: &mut Facts<'_>) {
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Gemini CLI session record that is not an object",
        ));
    };
    if object.contains_key("$set") {
        match serde_json::from_str::<wire::MetadataUpdateRecord>(text) {
            Ok(update) => {
                for message in update.set.messages {
                    self::read_message(adapter, line, message, facts);
                }
            }
            Err(error) => facts.diagnostic(json::malformed(line, "$set record", &error)),
        }
    } else if object.contains_key("$rewindTo") {
        if let Err(error) = serde_json::from_str::<wire::RewindRecord>(text) {
            facts.diagnostic(json::malformed(line, "$rewindTo record", &error));
        }
    } else if object.contains_key("messages") {
        // A whole conversation on one line (the `.json` session files of earlier
        // versions, written as one JSON document).
        match serde_json::from_str::<wire::ConversationRecord>(text) {
            Ok(conversation) => {
                facts.begin_session(&conversation.session_id);
                for message in conversation.messages {
                    read_message(adapter, line, message, facts);
                }
            }
            Err(error) => facts.diagnostic(json::malformed(line, "conversation record", &error)),
        }
    } else if object.contains_key("projectHash") {
        match serde_json::from_str::<wire::PartialMetadataRecord>(text) {
            Ok(metadata) => facts.begin_session(&metadata.session_id),
            Err(error) => facts.diagnostic(json::malformed(line, "session metadata", &error)),
        }
    } else {
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            "a Gemini CLI session record of no known form",
        ));
    }
}

/// A message record (`user`, `gemini`, `info`, `error`, `warning`).
pub(super) fn message(adapter: &GeminiCliAdapter, line: u64, text: &str, facts: &mut Facts<'_>) {
    match serde_json::from_str::<wire::MessageRecord>(text) {
        Ok(message) => read_message(adapter, line, message, facts),
        Err(error) => match tool_calls_apart(text) {
            Some(calls) => {
                for read in calls {
                    match read {
                        Ok(call) => {
                            if let Some(notice) = call.notice(line, "a `toolCalls` entry") {
                                facts.diagnostic(notice);
                            }
                            tool_call(adapter, line, Call::from(call.value), facts);
                        }
                        Err(error) => {
                            facts.diagnostic(json::malformed(line, "a `toolCalls` entry", &error))
                        }
                    }
                }
            }
            None => facts.diagnostic(json::malformed(line, "message record", &error)),
        },
    }
}

/// The tool calls of a `gemini` message that does not read as its schema's record, each
/// read apart, a field the schema requires that it lacks filled in ([`tolerant`]): the
/// calls are what the reader needs of the message. `None` for a message of another type,
/// or without tool calls.
fn tool_calls_apart(
    text: &str,
) -> Option<Vec<Result<tolerant::Tolerated<wire::ToolCallRecord>, serde_json::Error>>> {
    let Ok(Value::Object(mut message)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    if message.get("type").and_then(Value::as_str) != Some("gemini") {
        return None;
    }
    let Some(Value::Array(calls)) = message.remove("toolCalls") else {
        return None;
    };
    (!calls.is_empty()).then(|| calls.into_iter().map(tolerant::from_value).collect())
}

fn read_message(
    adapter: &GeminiCliAdapter,
    line: u64,
    message: wire::MessageRecord,
    facts: &mut Facts<'_>,
) {
    if let wire::MessageRecord::Variant1 { tool_calls, .. } = message {
        for call in tool_calls {
            tool_call(adapter, line, Call::from(call), facts);
        }
    }
}

/// The fields of an entry of a message's `toolCalls` that say what the call did.
pub(super) struct Call<'a> {
    pub id: Cow<'a, str>,
    pub name: Cow<'a, str>,
    pub args: Map<String, Value>,
    /// `status`, when a string.
    pub status: Option<Cow<'a, str>>,
    pub timestamp: Cow<'a, str>,
    pub display_name: Option<Cow<'a, str>>,
    /// `resultDisplay`, when a string: kept as the JSON text it came as (it can be a
    /// huge output).
    pub result_display: Option<Payload>,
    /// The function response sent back to the model.
    pub result: Option<Value>,
}

impl From<wire::ToolCallRecord> for Call<'_> {
    fn from(call: wire::ToolCallRecord) -> Self {
        let text = |value: Value| match value {
            Value::String(text) => Some(Cow::Owned(text)),
            _ => None,
        };
        Call {
            id: call.id.into(),
            name: call.name.into(),
            args: call.args,
            status: text(call.status.0),
            timestamp: call.timestamp.into(),
            display_name: call.display_name.map(Cow::Owned),
            result_display: call
                .result_display
                .filter(|display| display.0.is_string())
                .map(|display| display.0.into()),
            result: call.result.map(|result| result.0),
        }
    }
}

/// The calls of a session file line read in one scan.
pub(super) fn calls(
    adapter: &GeminiCliAdapter,
    line: u64,
    calls: Vec<Call<'_>>,
    facts: &mut Facts<'_>,
) {
    for call in calls {
        tool_call(adapter, line, call, facts);
    }
}

/// One entry of a message's `toolCalls`: seen again in each later copy of the message.
fn tool_call(adapter: &GeminiCliAdapter, line: u64, call: Call<'_>, facts: &mut Facts<'_>) {
    // A copy of the message written after the call ended says nothing new.
    if facts.finished(&call.id).is_some() && !facts.is_other_sessions(&call.id) {
        return;
    }
    let status = call.status.unwrap_or_default();
    let at = Some(Timestamp::from(call.timestamp.into_owned()));
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), "toolCall".into());
    if let Some(display) = call.display_name {
        metadata.insert("displayName".into(), display.into_owned().into());
    }
    let mcp = adapter.split_mcp(&call.name, facts.is_builtin(&call.name));
    let id = call.id.as_ref();
    let mut sighting = Sighting::new(id, call.name, Value::Object(call.args))
        .metadata(metadata)
        .at(at.clone());
    sighting.mcp = mcp;
    facts.sighted(line, sighting);
    let display = call.result_display;
    let response = call.result.as_ref().and_then(response);
    match &*status {
        "success" => {
            let response = response.unwrap_or_default();
            // The exit status is only in what the model was told (`Exit Code: 3`).
            if let Some(code) = response.output.as_deref().and_then(outcome::exit_status) {
                let output = display.as_ref().and_then(Payload::text).unwrap_or_default();
                return facts.fail(line, id, outcome::exit(code, &output), Ending::at(at));
            }
            // An empty display says nothing: what the model was told is the output then.
            let output = display
                .filter(|display| display.text_head(1).is_some_and(|head| !head.is_empty()))
                .or_else(|| response.output.map(|output| Value::String(output).into()));
            facts.complete(line, id, output, Ending::at(at));
        }
        "error" | "cancelled" => {
            let response = response.unwrap_or_default();
            let display = display.as_ref().and_then(Payload::text);
            let message = response
                .error
                .or_else(|| display.clone().map(Cow::into_owned))
                .unwrap_or_default();
            // The record keeps no error type: the code comes from the message.
            let kind = if status == "cancelled" {
                "cancelled"
            } else {
                ""
            };
            let error = outcome::error(facts, id, kind, &message, display.as_deref());
            facts.fail(line, id, error, Ending::at(at));
        }
        "executing" => facts.running(line, id, at),
        // Validating, scheduled, awaiting approval: not started yet.
        _ => {}
    }
}

/// What a call's function response told the model.
#[derive(Default)]
struct Response {
    output: Option<String>,
    error: Option<String>,
}

/// The `response` of the first `functionResponse` part of a result.
fn response(result: &Value) -> Option<Response> {
    let parts = match result {
        Value::Array(parts) => parts.as_slice(),
        single => std::slice::from_ref(single),
    };
    let response = parts
        .iter()
        .find_map(|part| part.get("functionResponse"))?
        .get("response")?;
    let text = |key: &str| response.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Response {
        output: text("output"),
        error: text("error"),
    })
}
