//! `droid exec --output-format stream-json`: one event per line, read into [`Event`].

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::{JsonObject, Payload, Timestamp, ToolKind, meta};

use super::{DIALECT, outcome, split_mcp};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::track::{Ending, Facts, Sighting};

/// Event types that carry no call: the conversation's text, the run's end, its errors.
const KNOWN: &[&str] = &["message", "completion", "error"];

/// Reads `droid exec --output-format stream-json`.
#[derive(Debug, Default)]
pub struct DroidAdapter;

impl Adapter for DroidAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let event: Event<'_> = match json::parse_line(line, bytes, "not a Droid stream-json event")
        {
            Ok(event) => event,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        match event.kind.as_deref() {
            Some("system") => system(event, facts),
            Some("tool_call") => tool_call(line, event, facts),
            Some("tool_result") => tool_result(line, event, facts),
            Some(kind) if KNOWN.contains(&kind) => {}
            other => {
                let other = other.unwrap_or_default().to_owned();
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Droid stream-json event type `{other}`"),
                ));
                // Nothing tool-like is dropped: an event naming a tool and an id is a call.
                if event.tool_name.is_some() && event.id.is_some() {
                    tool_call(line, event, facts);
                }
            }
        }
    }
}

/// The fields of a stream-json event that say something about calls.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow, rename = "type", default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "toolName", default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "toolId", default)]
    tool_id: Option<Cow<'a, str>>,
    #[serde(default)]
    parameters: Option<Value>,
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
    /// The output, kept as the JSON text it came as (any value).
    #[serde(default)]
    value: Option<Payload>,
    #[serde(default)]
    error: Option<ErrorBody>,
}

/// A failed call's `error`.
#[derive(Deserialize)]
struct ErrorBody {
    #[serde(default)]
    message: Option<String>,
}

/// An epoch-milliseconds (or text) timestamp.
pub(super) fn timestamp(value: Option<&Value>) -> Option<Timestamp> {
    match value? {
        Value::Number(number) => Some(Timestamp::Epoch(number.clone())),
        Value::String(text) => Some(Timestamp::from(text.as_str())),
        _ => None,
    }
}

/// `system` `init`: the run's working directory and session.
fn system(event: Event<'_>, facts: &mut Facts<'_>) {
    if event.subtype.as_deref() != Some("init") {
        return;
    }
    if let Some(session) = event.session_id.as_deref() {
        facts.begin_session(session);
    }
    if let Some(cwd) = event.cwd {
        facts.set_cwd(cwd.into_owned());
    }
}

/// A call starts: its metadata and its MCP server and tool.
pub(super) fn sighting(
    id: String,
    name: String,
    input: Value,
    item_type: &str,
    at: Option<Timestamp>,
) -> Sighting {
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), item_type.into());
    let mcp = split_mcp(&name);
    let mut sighting = Sighting::new(id, name, input).metadata(metadata).at(at);
    sighting.mcp = mcp;
    sighting
}

fn tool_call(line: u64, event: Event<'_>, facts: &mut Facts<'_>) {
    let at = timestamp(event.timestamp.as_ref());
    let (Some(id), Some(name)) = (event.id, event.tool_name.or(event.tool_id)) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Droid tool_call without its `id` or `toolName`",
        ));
    };
    let input = event
        .parameters
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    facts.sighted(
        line,
        sighting(id.into_owned(), name.into_owned(), input, "tool_call", at),
    );
}

fn tool_result(line: u64, event: Event<'_>, facts: &mut Facts<'_>) {
    let Some(id) = event.id.as_deref() else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Droid tool_result without its `id`",
        ));
    };
    let ending = Ending::at(timestamp(event.timestamp.as_ref()));
    let failed = event.is_error.unwrap_or(false) || event.error.is_some();
    if !failed {
        return facts.complete(line, id, event.value, ending);
    }
    let text = event
        .error
        .and_then(|error| error.message)
        .or_else(|| {
            let value = event.value?;
            Some(match value.text() {
                Some(text) => text.into_owned(),
                None => value.to_json(),
            })
        })
        .unwrap_or_default();
    let is_mcp = facts.kind(id) == Some(ToolKind::Mcp)
        || event
            .tool_id
            .as_deref()
            .is_some_and(|tool| split_mcp(tool).is_some());
    facts.fail(line, id, outcome::error(&text, is_mcp), ending);
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde::Deserialize;
    use serde_json::Value;

    use super::{ErrorBody, Event};
    use crate::read::json::without_position;

    /// An event as it was read, its `value` a value.
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Decoded<'a> {
        #[serde(borrow, rename = "type", default)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        subtype: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        cwd: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        session_id: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        id: Option<Cow<'a, str>>,
        #[serde(borrow, rename = "toolName", default)]
        tool_name: Option<Cow<'a, str>>,
        #[serde(borrow, rename = "toolId", default)]
        tool_id: Option<Cow<'a, str>>,
        #[serde(default)]
        parameters: Option<Value>,
        #[serde(default)]
        timestamp: Option<Value>,
        #[serde(rename = "isError", default)]
        is_error: Option<bool>,
        #[serde(default)]
        value: Option<Value>,
        #[serde(default)]
        error: Option<ErrorBody>,
    }

    #[test]
    fn a_results_value_reads_as_a_value_field_reads_it() {
        let result = |value: &str| {
            format!(r#"{{"type":"tool_result","id":"c","isError":false,"value":{value}}}"#)
        };
        let mut events: Vec<String> = [
            r#""plain""#,
            r#""a\nb \u001b \"q\" \u00e9 \ud83d\ude00""#,
            r#""""#,
            "null",
            "7",
            "-1.5e3",
            "1e400",
            "true",
            r#"["x",{"a":1}]"#,
            r#"{ "b" : 1 , "a" : [ ] }"#,
            r#"{"a":1,"a":2}"#,
            r#""\ud800""#,
            r#""a","value":"b""#,
        ]
        .into_iter()
        .map(result)
        .collect();
        events.push(r#"{"type":"tool_result","id":"c"}"#.to_owned());
        events
            .push(r#"["tool_result",null,null,null,"c",null,null,null,null,false,"x"]"#.to_owned());
        for event in &events {
            let kept = serde_json::from_str::<Event<'_>>(event).map_err(|e| without_position(&e));
            let decoded =
                serde_json::from_str::<Decoded<'_>>(event).map_err(|e| without_position(&e));
            match (kept, decoded) {
                (Ok(kept), Ok(decoded)) => {
                    assert_eq!(kept.id, decoded.id, "{event}");
                    assert_eq!(kept.is_error, decoded.is_error, "{event}");
                    let value = kept.value.map(|value| value.into_value());
                    assert_eq!(value, decoded.value, "{event}");
                }
                (Err(kept), Err(decoded)) => assert_eq!(kept, decoded, "{event}"),
                (kept, decoded) => panic!("{event}: {:?} / {:?}", kept.err(), decoded.err()),
            }
        }
    }

    #[test]
    fn a_results_value_is_kept_as_it_came() {
        let event: Event<'_> = serde_json::from_str(r#"{"type":"tool_result","value":"a\tb"}"#)
            .unwrap_or_else(|error| panic!("{error}"));
        let value = event.value.and_then(|v| v.raw_text().map(str::to_owned));
        assert_eq!(value.as_deref(), Some(r#""a\tb""#));
    }
}
