//! `gemini -p … --output-format stream-json` events, read with the generated
//! `JsonStreamEvent` types.

use serde::de::DeserializeOwned;
use serde_json::Value;
use toolnorm::{JsonObject, Timestamp, meta};
use toolnorm_wire::gemini_stream as wire;

use super::GeminiCliAdapter;
use super::outcome;
use crate::read::json;
use crate::track::{Ending, Facts, Sighting};

/// Reads one stream-json event of type `kind`.
pub(super) fn event(
    adapter: &GeminiCliAdapter,
    line: u64,
    kind: &str,
    text: &str,
    facts: &mut Facts<'_>,
) {
    match kind {
        "init" => {
            if let Some(init) = parse::<wire::InitEvent>(line, text, "init event", facts) {
                facts.begin_session(&init.session_id);
            }
        }
        "tool_use" => {
            if let Some(call) = parse::<wire::ToolUseEvent>(line, text, "tool_use event", facts) {
                tool_use(adapter, line, call, facts);
            }
        }
        "tool_result" => {
            if let Some(result) =
                parse::<wire::ToolResultEvent>(line, text, "tool_result event", facts)
            {
                tool_result(line, result, facts);
            }
        }
        // Text, warnings and the run's result carry no call; they are checked against
        // their types all the same.
        "message" => {
            parse::<wire::MessageEvent>(line, text, "message event", facts);
        }
        "error" => {
            parse::<wire::ErrorEvent>(line, text, "error event", facts);
        }
        _ => {
            parse::<wire::ResultEvent>(line, text, "result event", facts);
        }
    }
}

/// Reads `text` as `T`, or reports why it is not one.
fn parse<T: DeserializeOwned>(
    line: u64,
    text: &str,
    what: &str,
    facts: &mut Facts<'_>,
) -> Option<T> {
    match serde_json::from_str(text) {
        Ok(value) => Some(value),
        Err(error) => {
            facts.diagnostic(json::malformed(line, what, &error));
            None
        }
    }
}

fn tool_use(
    adapter: &GeminiCliAdapter,
    line: u64,
    call: wire::ToolUseEvent,
    facts: &mut Facts<'_>,
) {
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), "tool_use".into());
    let mut sighting = Sighting::new(
        call.tool_id.clone(),
        call.tool_name.clone(),
        Value::Object(call.parameters),
    )
    .metadata(metadata)
    .at(Some(Timestamp::from(call.timestamp)));
    sighting.mcp = adapter.split_mcp(&call.tool_name, facts.is_builtin(&call.tool_name));
    facts.sighted(line, sighting);
}

fn tool_result(line: u64, result: wire::ToolResultEvent, facts: &mut Facts<'_>) {
    let id = result.tool_id.as_str();
    let ending = Ending::at(Some(Timestamp::from(result.timestamp)));
    // The CLI writes `success` for a cancelled call, with its error.
    match (result.status, result.error) {
        (wire::ToolResultEventStatus::Success, None) => {
            facts.complete(line, id, result.output.map(Value::String), ending);
        }
        (_, error) => {
            let (kind, message) = error
                .map(|error| (error.type_, error.message))
                .unwrap_or_default();
            let error = outcome::error(facts, id, &kind, &message, result.output.as_deref());
            facts.fail(line, id, error, ending);
        }
    }
}
