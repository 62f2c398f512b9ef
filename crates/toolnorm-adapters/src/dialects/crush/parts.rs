//! The parts of a Crush message, `{"type", "data"}` each: its calls and their results.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm::{JsonObject, Timestamp, meta};

use super::outcome::{Outcome, outcome};
use super::scan::ScannedPart;
use super::wire::{Part, ToolCall, ToolResult};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::borrowed::Text;
use crate::read::checked::{Checked, RAW_VALUE_TOKEN};
use crate::read::json;
use crate::read::partial_json::parse_partial;
use crate::track::{Ending, Facts, Sighting, arguments_from_text};

/// The raw item type of a call (`metadata.itemType`).
const ITEM_TYPE: &str = "tool_call";

/// The name a call is given when nothing says its tool.
const UNNAMED: &str = "tool";

/// The parts that carry nothing about a call.
pub(super) const KNOWN: &[&str] = &[
    "text",
    "reasoning",
    "image_url",
    "binary",
    "finish",
    "shell_command",
];

/// Where a message's parts are read.
pub(super) struct Context<'a> {
    /// Its line.
    pub line: u64,
    /// When it was written.
    pub at: Option<Timestamp>,
    /// The call that started its session, for a subagent's message.
    pub parent: Option<&'a str>,
}

/// A message's parts, in order: each read apart, and only a call's or a result's data.
pub(super) fn read(context: &Context<'_>, parts: &[&RawValue], facts: &mut Facts<'_>) {
    let line = context.line;
    for raw in parts {
        let part: Part<'_> = match serde_json::from_str(raw.get()) {
            Ok(part) => part,
            Err(error) => {
                facts.diagnostic(json::malformed(line, "a Crush message part", &error));
                continue;
            }
        };
        let data = part.data.map_or("null", RawValue::get);
        match part.kind.as_deref().unwrap_or_default() {
            "tool_call" => match serde_json::from_str::<ToolCall>(data) {
                Ok(call) => sighted(context, call, facts),
                Err(error) => facts.diagnostic(json::malformed(line, "a tool_call part", &error)),
            },
            "tool_result" => match serde_json::from_str::<ToolResult>(data) {
                Ok(result) => ended(context, result, facts),
                Err(error) => {
                    facts.diagnostic(json::malformed(line, "a tool_result part", &error));
                }
            },
            known if KNOWN.contains(&known) => {}
            other => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("a Crush message part of unknown type `{other}`"),
                ));
                // Nothing tool-like is dropped.
                let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(data) else {
                    continue;
                };
                if fields.contains_key("tool_call_id") {
                    if let Ok(result) = serde_json::from_value::<ToolResult>(Value::Object(fields))
                    {
                        ended(context, result, facts);
                    }
                } else if fields.contains_key("id")
                    && fields.contains_key("name")
                    && let Ok(call) = serde_json::from_value::<ToolCall>(Value::Object(fields))
                {
                    sighted(context, call, facts);
                }
            }
        }
    }
}

/// A message's parts read in the line's one scan, in order.
pub(super) fn read_scanned(context: &Context<'_>, parts: Vec<ScannedPart>, facts: &mut Facts<'_>) {
    for part in parts {
        match part {
            ScannedPart::Call(call) => sighted(context, call, facts),
            ScannedPart::Result(result) => ended(context, result, facts),
            ScannedPart::Quiet => {}
        }
    }
}

/// A `tool_call` part: its call starts (or, seen again, its input is the one it has now).
fn sighted(context: &Context<'_>, call: ToolCall, facts: &mut Facts<'_>) {
    let line = context.line;
    let Some(id) = call.id.filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Crush tool call without an id",
        ));
    };
    if !facts.is_open(&id) && facts.finished(&id).is_some() && !facts.is_other_sessions(&id) {
        return facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("tool call `{id}` again, after it ended"),
        ));
    }
    let name = call
        .name
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| {
            facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::MalformedEvent,
                format!("Crush tool call `{id}` names no tool"),
            ));
            UNNAMED.to_owned()
        });
    let text = call.input.unwrap_or_default();
    let input = match call.finished {
        true => arguments_from_text(line, "Crush", &id, text, facts),
        // Crush stopped while the model streamed the call: its input as far as it came.
        false => parse_partial(&text)
            .filter(Value::is_object)
            .unwrap_or_else(|| Value::Object(JsonObject::new())),
    };
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), ITEM_TYPE.into());
    if let Some(parent) = context.parent {
        metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
    }
    if call.provider_executed {
        metadata.insert("providerExecuted".into(), true.into());
    }
    let mut sighting = Sighting::new(id, name.clone(), input)
        .metadata(metadata)
        .at(context.at.clone());
    if let Some((server, tool)) = mcp_tool(&name) {
        sighting = sighting.mcp(server, tool);
    }
    facts.sighted(line, sighting);
}

/// An MCP server's tool as Crush names it, `mcp_<server>_<tool>`: (server, tool), split
/// as Crush's own UI splits it (the server is the word after `mcp_`).
pub(super) fn mcp_tool(name: &str) -> Option<(&str, &str)> {
    let (server, tool) = name.strip_prefix("mcp_")?.split_once('_')?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// A `tool_result` part: its call ends.
fn ended(context: &Context<'_>, result: ToolResult, facts: &mut Facts<'_>) {
    let line = context.line;
    let Some(id) = result.tool_call_id.clone().filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Crush tool result without the id of its call",
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
        let call = ToolCall {
            id: Some(id.clone()),
            name: result.name.clone(),
            ..ToolCall::default()
        };
        sighted(context, call, facts);
    }
    let ending = Ending::at(context.at.clone()).elapsed_ms(elapsed_ms(result.metadata.as_deref()));
    match outcome(result) {
        Outcome::Done(output) => facts.complete(line, &id, output, ending),
        Outcome::Failed(error) => facts.fail(line, &id, error, ending),
    }
}

/// How long a tool ran, from the metadata it gave Crush's UI: `start_time` and `end_time`
/// in milliseconds (`bash`'s).
fn elapsed_ms(metadata: Option<&str>) -> Option<u64> {
    let Times { start, end } = serde_json::from_str(metadata?).ok()?;
    end?.as_u64()?.checked_sub(start?.as_u64()?)
}

/// A metadata object's `start_time` and `end_time`, read as a `Value` reads the object
/// (a key given twice counts where it is last) without building its other values, which
/// may hold a command's whole output.
struct Times {
    start: Option<Value>,
    end: Option<Value>,
}

impl<'de> Deserialize<'de> for Times {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(TimesVisitor)
    }
}

struct TimesVisitor;

impl<'de> Visitor<'de> for TimesVisitor {
    type Value = Times;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Times, A::Error> {
        let mut times = Times {
            start: None,
            end: None,
        };
        let mut first = true;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if first && key == RAW_VALUE_TOKEN {
                return Err(de::Error::custom("a raw value token"));
            }
            first = false;
            match key.as_ref() {
                "start_time" => times.start = Some(map.next_value()?),
                "end_time" => times.end = Some(map.next_value()?),
                _ => map.next_value::<Checked>().map(drop)?,
            }
        }
        Ok(times)
    }
}

#[cfg(test)]
mod tests {
    use super::{elapsed_ms, mcp_tool};

    #[test]
    fn a_tools_times_say_how_long_it_ran() {
        let metadata = r#"{"start_time":1764921605000,"end_time":1764921606250,"output":""}"#;
        assert_eq!(elapsed_ms(Some(metadata)), Some(1250));
        assert_eq!(elapsed_ms(Some(r#"{"additions":1}"#)), None);
        assert_eq!(elapsed_ms(Some("not json")), None);
        // Read as a `Value` reads it: the last of a key given twice, anything but a
        // whole non-negative number none, a bad value elsewhere none either.
        let twice = r#"{"start_time":1,"end_time":5,"start_time":2,"output":{"a":[1e3]}}"#;
        assert_eq!(elapsed_ms(Some(twice)), Some(3));
        assert_eq!(elapsed_ms(Some(r#"{"start_time":1.0,"end_time":5}"#)), None);
        assert_eq!(elapsed_ms(Some(r#"{"start_time":-1,"end_time":5}"#)), None);
        assert_eq!(elapsed_ms(Some(r#"{"start_time":6,"end_time":5}"#)), None);
        assert_eq!(
            elapsed_ms(Some(r#"{"start_time":1,"end_time":5,"x":1e400}"#)),
            None
        );
        assert_eq!(elapsed_ms(Some(r#"[1,5]"#)), None);
        assert_eq!(elapsed_ms(None), None);
    }

    #[test]
    fn an_mcp_tool_is_split_as_crush_splits_it() {
        assert_eq!(
            mcp_tool("mcp_github_list_issues"),
            Some(("github", "list_issues"))
        );
        assert_eq!(mcp_tool("mcp_github"), None);
        assert_eq!(mcp_tool("view"), None);
    }
}
