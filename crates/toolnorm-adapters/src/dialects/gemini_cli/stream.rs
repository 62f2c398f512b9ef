//! `gemini -p … --output-format stream-json` events, read with the generated
//! `JsonStreamEvent` types (or in one scan, `stream_scan`) into [`Event`].

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use toolnorm::{JsonObject, Payload, Timestamp, meta};
use toolnorm_wire::gemini_stream as wire;

use super::GeminiCliAdapter;
use super::outcome;
use crate::diagnostic::Diagnostic;
use crate::read::{json, tolerant};
use crate::track::{Ending, Facts, Sighting};

/// What a stream-json event says about the calls.
pub(super) enum Event<'a> {
    /// `init`: the session begins.
    Init { session_id: Cow<'a, str> },
    /// `tool_use`: a call.
    ToolUse(ToolUse<'a>),
    /// `tool_result`: a call's end.
    ToolResult(ToolResult<'a>),
    /// Text, warnings and the run's result: checked against their types, no call.
    NoCall,
}

/// The fields of a `tool_use` event.
pub(super) struct ToolUse<'a> {
    pub tool_id: Cow<'a, str>,
    pub tool_name: Cow<'a, str>,
    pub parameters: Map<String, Value>,
    pub timestamp: Cow<'a, str>,
}

/// The fields of a `tool_result` event.
pub(super) struct ToolResult<'a> {
    pub tool_id: Cow<'a, str>,
    pub timestamp: Cow<'a, str>,
    pub success: bool,
    /// A JSON string.
    pub output: Option<Payload>,
    pub error: Option<wire::ToolResultEventError>,
}

/// Reads one stream-json event of type `kind` with its generated type, and applies it.
pub(super) fn event(
    adapter: &GeminiCliAdapter,
    line: u64,
    kind: &str,
    text: &str,
    facts: &mut Facts<'_>,
) {
    let event = match kind {
        "init" => {
            parse::<wire::InitEvent>(line, text, "init event", facts).map(|init| Event::Init {
                session_id: init.session_id.into(),
            })
        }
        "tool_use" => {
            parse::<wire::ToolUseEvent>(line, text, "tool_use event", facts).map(|call| {
                Event::ToolUse(ToolUse {
                    tool_id: call.tool_id.into(),
                    tool_name: call.tool_name.into(),
                    parameters: call.parameters,
                    timestamp: call.timestamp.into(),
                })
            })
        }
        "tool_result" => parse::<wire::ToolResultEvent>(line, text, "tool_result event", facts)
            .map(|result| {
                Event::ToolResult(ToolResult {
                    tool_id: result.tool_id.into(),
                    timestamp: result.timestamp.into(),
                    success: result.status == wire::ToolResultEventStatus::Success,
                    output: result.output.map(Payload::from),
                    error: result.error,
                })
            }),
        "message" => checked::<wire::MessageEvent>(line, text, "message event", facts),
        "error" => checked::<wire::ErrorEvent>(line, text, "error event", facts),
        _ => checked::<wire::ResultEvent>(line, text, "result event", facts),
    };
    if let Some(event) = event {
        apply(adapter, line, event, facts);
    }
}

/// Reads `text` as `T`, or reports why it is not one. A field the schema requires that
/// the event lacks is filled in, with a notice naming it ([`tolerant`]).
fn parse<T: DeserializeOwned>(
    line: u64,
    text: &str,
    what: &str,
    facts: &mut Facts<'_>,
) -> Option<T> {
    match tolerant::from_str(text) {
        Ok(read) => {
            if let Some(notice) = read.notice(line, what) {
                facts.diagnostic(notice);
            }
            Some(read.value)
        }
        Err(error) => {
            facts.diagnostic(json::malformed(line, what, &error));
            None
        }
    }
}

/// An event that carries no call, checked against its type: one that does not read as
/// it even with its missing fields filled in is a notice (nothing is lost).
fn checked<T: DeserializeOwned>(
    line: u64,
    text: &str,
    what: &str,
    facts: &mut Facts<'_>,
) -> Option<Event<'static>> {
    match tolerant::from_str::<T>(text) {
        Ok(read) => {
            if let Some(notice) = read.notice(line, what) {
                facts.diagnostic(notice);
            }
        }
        Err(error) => {
            let diagnostic = json::malformed(line, what, &error);
            facts.diagnostic(Diagnostic::notice(
                line,
                diagnostic.kind,
                format!("{}; it carries no call", diagnostic.message),
            ));
        }
    }
    Some(Event::NoCall)
}

/// Applies one event.
pub(super) fn apply(
    adapter: &GeminiCliAdapter,
    line: u64,
    event: Event<'_>,
    facts: &mut Facts<'_>,
) {
    match event {
        Event::Init { session_id } => facts.begin_session(&session_id),
        Event::ToolUse(call) => tool_use(adapter, line, call, facts),
        Event::ToolResult(result) => tool_result(line, result, facts),
        Event::NoCall => {}
    }
}

fn tool_use(adapter: &GeminiCliAdapter, line: u64, call: ToolUse<'_>, facts: &mut Facts<'_>) {
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), "tool_use".into());
    let mcp = adapter.split_mcp(&call.tool_name, facts.is_builtin(&call.tool_name));
    let mut sighting = Sighting::new(call.tool_id, call.tool_name, Value::Object(call.parameters))
        .metadata(metadata)
        .at(Some(Timestamp::from(call.timestamp.into_owned())));
    sighting.mcp = mcp;
    facts.sighted(line, sighting);
}

fn tool_result(line: u64, result: ToolResult<'_>, facts: &mut Facts<'_>) {
    let id = result.tool_id.as_ref();
    let ending = Ending::at(Some(Timestamp::from(result.timestamp.into_owned())));
    // The CLI writes `success` for a cancelled call, with its error.
    match (result.success, result.error) {
        (true, None) => {
            facts.complete(line, id, result.output, ending);
        }
        (_, error) => {
            let (kind, message) = error
                .map(|error| (error.type_, error.message))
                .unwrap_or_default();
            let output = result.output.as_ref().and_then(Payload::text);
            let error = outcome::error(facts, id, &kind, &message, output.as_deref());
            facts.fail(line, id, error, ending);
        }
    }
}
