//! Kimi's records, as far as the tool calls need them: hand-written serde structs of the
//! fields read. Kimi publishes its types only as pydantic models (`kosong.message.Message`
//! for the conversation, `kimi_cli.wire.types` for the wire messages); no schema of them is
//! pinned. Every field is optional, so a record that lacks one still reads and the reader
//! says what is missing.

use std::borrow::Cow;

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm::Payload;

use super::wire_payload::PayloadApart;
use crate::read::checked::Checked;
use crate::read::json;

/// A conversation message (`kosong.message.Message`), as `--output-format stream-json`
/// prints it and `context.jsonl` stores it; `context.jsonl` also holds records of its own
/// whose `role` begins with `_` (`_checkpoint`, `_usage`, `_system_prompt`).
///
/// Its calls are read in place (`C` = [`Written`]) or each kept as its text in the line
/// (`C` = `&RawValue`) to be read apart, so that one call that does not read leaves the
/// others: a line is read the first way, and the second when that fails.
#[derive(Deserialize)]
pub(super) struct Message<'a, C> {
    /// `assistant`, `tool`, `user`, `system`, or one of the `_` records.
    #[serde(borrow, default)]
    pub role: Option<Cow<'a, str>>,
    /// Its text, or its content parts (`{type: "text", text}`, `think`, `image_url`, …),
    /// kept raw: only a `tool` message's is read.
    #[serde(borrow, default)]
    pub content: Option<&'a RawValue>,
    /// The calls of an assistant message.
    #[serde(default = "json::none")]
    pub tool_calls: Option<Vec<C>>,
    /// The call a `tool` message answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
}

/// One tool call, `{type: "function", id, function: {name, arguments}}`: the assistant's
/// `tool_calls` item, and the wire's `ToolCall` payload.
pub(super) struct ToolCall {
    /// The call id.
    pub id: Option<String>,
    /// The tool.
    pub name: Option<String>,
    /// Its arguments, a JSON text (as much as has arrived, when streamed).
    pub arguments: Option<String>,
}

/// A message's call as a line holds it: read in place, or its text, to read apart.
pub(super) trait CallItem {
    /// The call it describes, as [`ToolCall::of`] reads it; `None` without a `function`.
    fn call(self) -> Option<ToolCall>;
}

impl CallItem for Written<'_> {
    fn call(self) -> Option<ToolCall> {
        Some(ToolCall {
            id: self.id.map(Cow::into_owned),
            name: self.function.name.map(Cow::into_owned),
            arguments: self.function.arguments.map(Cow::into_owned),
        })
    }
}

impl CallItem for &RawValue {
    fn call(self) -> Option<ToolCall> {
        ToolCall::of_raw(self)
    }
}

/// A tool call as Kimi writes it, read in place: strings where [`ToolCall::of`] takes
/// strings. Any other shape does not read this way, and is read as a value.
#[derive(Deserialize)]
pub(super) struct Written<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: WrittenFunction<'a>,
}

#[derive(Deserialize)]
struct WrittenFunction<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
}

impl ToolCall {
    /// The call a raw `tool_calls` item describes, as [`of`](Self::of) reads it: in place
    /// when it is written as Kimi writes it, else through a value.
    pub fn of_raw(raw: &RawValue) -> Option<ToolCall> {
        match serde_json::from_str::<Written<'_>>(raw.get()) {
            Ok(written) => written.call(),
            Err(_) => ToolCall::of(&serde_json::from_str(raw.get()).ok()?),
        }
    }

    /// The call an object describes, when it has a `function`.
    pub fn of(value: &Value) -> Option<ToolCall> {
        let object = value.as_object()?;
        let function = object.get("function")?.as_object()?;
        let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
        Some(ToolCall {
            id: text(object.get("id")),
            name: text(function.get("name")),
            arguments: match function.get("arguments") {
                Some(Value::String(text)) => Some(text.clone()),
                Some(Value::Null) | None => None,
                Some(other) => Some(other.to_string()),
            },
        })
    }

    /// The arguments as JSON: the object they hold, or (arguments that are not whole JSON
    /// yet, or not an object) an empty object and the text as it is.
    pub fn input(&self) -> (Value, Option<&str>) {
        let text = self.arguments.as_deref().unwrap_or_default();
        if text.trim().is_empty() {
            return (Value::Object(serde_json::Map::new()), None);
        }
        match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => (value, None),
            _ => (Value::Object(serde_json::Map::new()), Some(text)),
        }
    }
}

/// One line of a session's `wire.jsonl`: its header (`{type: "metadata",
/// protocol_version}`) or a record (`{timestamp, message: {type, payload}}`); or one
/// message of `kimi --wire` (JSON-RPC 2.0: `{jsonrpc, method: "event" | "request", id,
/// params: {type, payload}}`).
#[derive(Deserialize)]
pub(super) struct WireLine<'a> {
    /// `metadata` for the header.
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    /// The header's wire protocol version.
    #[serde(default)]
    pub protocol_version: Option<String>,
    /// When the record was written, epoch seconds.
    #[serde(default)]
    pub timestamp: Option<Value>,
    /// The record's wire message (boxed: the line is returned by value through each step
    /// of its parse, and most lines have one).
    #[serde(default)]
    pub message: Option<Box<Envelope>>,
    /// The JSON-RPC method.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// The JSON-RPC message's wire message (boxed, as `message`).
    #[serde(default)]
    pub params: Option<Box<Value>>,
    /// A JSON-RPC response's result (known, nothing about calls).
    #[serde(default)]
    pub result: Option<Box<Value>>,
    /// A JSON-RPC error response.
    #[serde(default)]
    pub error: Option<Box<Value>>,
}

/// A wire message: `{type, payload}` (`WireMessageEnvelope`).
#[derive(Deserialize, Default)]
#[serde(from = "EnvelopeFields")]
pub(super) struct Envelope {
    /// The message type (`ToolCall`, `ToolResult`, `SubagentEvent`, …).
    pub kind: Option<String>,
    /// Its fields.
    pub payload: Value,
    /// A `ToolResult`'s output (`payload.return_value.output`), kept as the JSON text it
    /// came as and taken out of `payload`, when the envelope was read from a line.
    pub output: Option<Payload>,
}

/// An envelope's fields as a line holds them, read as a derived struct of the two reads
/// them (each optional, a field given twice an error, other keys read past), but for the
/// payload of a message that carries nothing a call needs ([`UNUSED`]): when its `type`
/// comes first, as Kimi writes it, that payload is checked as a value reads it and not
/// built (a `StatusUpdate`'s is most of a wire log).
struct EnvelopeFields {
    kind: Option<String>,
    payload: PayloadApart,
}

/// The wire messages that carry nothing a call needs, whose payload nothing reads.
pub(super) const UNUSED: &[&str] = &[
    "TurnBegin",
    "TurnEnd",
    "SteerInput",
    "StepBegin",
    "StepRetry",
    "ContentPart",
    "StatusUpdate",
    "CompactionBegin",
    "CompactionEnd",
    "MCPLoadingBegin",
    "MCPLoadingEnd",
    "HookTriggered",
    "HookResolved",
    "Notification",
    "PlanDisplay",
    "BtwBegin",
    "BtwEnd",
    "QuestionRequest",
    "QuestionResponse",
    "ToolCallRequest",
    "HookRequest",
    "HookResponse",
];

/// The envelope's fields, in order.
const ENVELOPE_FIELDS: &[&str] = &["type", "payload"];

impl<'de> Deserialize<'de> for EnvelopeFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("EnvelopeFields", ENVELOPE_FIELDS, EnvelopeVisitor)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = EnvelopeFields;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("struct EnvelopeFields")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EnvelopeFields, A::Error> {
        /// A key, matched as a derived struct matches it.
        #[derive(Deserialize)]
        #[serde(field_identifier)]
        enum Field {
            #[serde(rename = "type")]
            Type,
            #[serde(rename = "payload")]
            Payload,
            #[serde(other)]
            Other,
        }
        let (mut kind, mut payload) = (None::<Option<String>>, None::<PayloadApart>);
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Type if kind.is_some() => return Err(de::Error::duplicate_field("type")),
                Field::Type => kind = Some(map.next_value()?),
                Field::Payload if payload.is_some() => {
                    return Err(de::Error::duplicate_field("payload"));
                }
                Field::Payload => {
                    let unused = kind
                        .as_ref()
                        .and_then(Option::as_deref)
                        .is_some_and(|kind| UNUSED.contains(&kind));
                    payload = Some(match unused {
                        true => map
                            .next_value::<Checked>()
                            .map(|_| PayloadApart::default())?,
                        false => map.next_value()?,
                    });
                }
                Field::Other => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        Ok(EnvelopeFields {
            kind: kind.flatten(),
            payload: payload.unwrap_or_default(),
        })
    }

    /// The fields in their order, as a derived struct reads an array.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<EnvelopeFields, A::Error> {
        Ok(EnvelopeFields {
            kind: seq.next_element()?.flatten(),
            payload: seq.next_element()?.unwrap_or_default(),
        })
    }
}

impl From<EnvelopeFields> for Envelope {
    fn from(fields: EnvelopeFields) -> Envelope {
        let PayloadApart {
            value, mut kept, ..
        } = fields.payload;
        Envelope {
            kind: fields.kind,
            payload: value,
            output: kept.pop(),
        }
    }
}

impl Envelope {
    /// The envelope a JSON value holds (`params` of a JSON-RPC message, `event` of a
    /// `SubagentEvent`).
    pub fn of(value: &Value) -> Envelope {
        Envelope {
            kind: value.get("type").and_then(Value::as_str).map(str::to_owned),
            payload: value.get("payload").cloned().unwrap_or(Value::Null),
            output: None,
        }
    }

    /// A string field of the payload.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.payload.get(key).and_then(Value::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(call: Option<ToolCall>) -> Option<(Option<String>, Option<String>, Option<String>)> {
        call.map(|call| (call.id, call.name, call.arguments))
    }

    #[test]
    fn an_envelope_reads_as_a_derived_struct_of_values_reads_it() {
        /// The envelope's fields as serde derives their reading (as it was read before the
        /// unused payloads were left unbuilt).
        #[derive(Deserialize)]
        struct Derived {
            #[serde(rename = "type", default)]
            kind: Option<String>,
            #[serde(default)]
            payload: PayloadApart,
        }
        for text in [
            r#"{"type":"StatusUpdate","payload":{"context_usage":0.5,"token_usage":{"input":1}}}"#,
            r#"{"type":"StatusUpdate","payload":{"x":[[{"y":null}]]},"extra":[1e400]}"#,
            r#"{"payload":{"a":1},"type":"StatusUpdate"}"#,
            r#"{"type":"ToolCall","payload":{"id":"c1","function":{"name":"Shell"}}}"#,
            r#"{"type":"ToolResult","payload":{"tool_call_id":"c","return_value":{"output":"x\ny"}}}"#,
            r#"{"payload":{"id":"c2","function":{"name":"Shell"}},"type":"ToolCall"}"#,
            r#"{"type":"Stat\u0075sUpdate","payload":{"a":"\u00e9"}}"#,
            r#"{"type":null,"payload":{"a":1}}"#,
            r#"{"type":"StatusUpdate"}"#,
            r#"{"payload":[1,2]}"#,
            r#"{}"#,
            r#"["StatusUpdate",{"a":1}]"#,
            r#"["ToolCall",{"id":"c3"}]"#,
            r#"[]"#,
            // Refused both ways: a number out of range in a payload not built, a key
            // given twice, a type that is not a string, not an object.
            r#"{"type":"StatusUpdate","payload":{"x":1e400}}"#,
            r#"{"type":"StatusUpdate","payload":{"$serde_json::private::RawValue":"1"}}"#,
            r#"{"type":"StatusUpdate","type":"ToolCall","payload":{}}"#,
            r#"{"type":"StatusUpdate","payload":{},"payload":{}}"#,
            r#"{"type":7,"payload":{}}"#,
            r#"["StatusUpdate",{},3]"#,
            r#""StatusUpdate""#,
        ] {
            let read = serde_json::from_str::<Envelope>(text);
            let derived = serde_json::from_str::<Derived>(text);
            assert_eq!(read.is_ok(), derived.is_ok(), "{text}");
            let (Ok(read), Ok(derived)) = (read, derived) else {
                continue;
            };
            assert_eq!(read.kind, derived.kind, "{text}");
            // An unused payload is not built when the type comes before it.
            let unused = read
                .kind
                .as_deref()
                .is_some_and(|kind| UNUSED.contains(&kind));
            if !(unused && read.payload.is_null()) {
                assert_eq!(read.payload, derived.payload.value, "{text}");
            }
        }
        let status = r#"{"type":"StatusUpdate","payload":{"a":1}}"#;
        assert!(
            serde_json::from_str::<Envelope>(status)
                .unwrap()
                .payload
                .is_null()
        );
    }

    #[test]
    fn a_raw_tool_call_reads_as_its_value_does() {
        let shapes = [
            r#"{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}"#,
            r#"{"id":"c\u00e91","function":{"name":"Shell"}}"#,
            r#"{"id":null,"function":{"name":"Shell","arguments":null}}"#,
            r#"{"id":1,"function":{"name":"Shell","arguments":"{}"}}"#,
            r#"{"id":"c1","function":{"name":2,"arguments":{"a":1}}}"#,
            r#"{"id":"c1","id":"c2","function":{"name":"Shell"}}"#,
            r#"{"id":"c1","function":null}"#,
            r#"{"id":"c1"}"#,
            r#"["c1"]"#,
            r#""c1""#,
        ];
        for shape in shapes {
            let raw: &RawValue = serde_json::from_str(shape).unwrap();
            let value: Value = serde_json::from_str(shape).unwrap();
            assert_eq!(
                fields(ToolCall::of_raw(raw)),
                fields(ToolCall::of(&value)),
                "{shape}"
            );
        }
    }
}
