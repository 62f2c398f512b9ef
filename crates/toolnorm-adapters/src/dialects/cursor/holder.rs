//! A line's `tool_call` object, read with its payload's `result` kept as the JSON text it
//! came as: a result, which can be the biggest thing in a stream, stays the text it was in
//! the line (shared with the line when the line is long, see [`toolnorm::read_sharing`]),
//! not a decoded copy.
//!
//! Read as a `Value` map would read it: its keys in order, a key written twice in the
//! place of the first with the value of the last; the values this reader never looks at
//! (a payload key's value that is not an object) are still read as values, so a line is
//! refused as before.

use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use toolnorm::Payload;

use super::payload::NOT_PAYLOAD;
use crate::read::visit::visit_scalars_as;

/// A line's `tool_call`: an object, or any other value.
pub(super) enum ToolCallField {
    /// An object.
    Object(Holder),
    /// Anything else (`null` is no field).
    Other,
}

/// A `tool_call` object.
#[derive(Default)]
pub(super) struct Holder {
    entries: Vec<(String, Entry)>,
}

/// A value of the `tool_call` object.
pub(super) enum Entry {
    /// The value of one of [`NOT_PAYLOAD`]'s keys.
    Value(Value),
    /// An object under any other key: a payload.
    Body(Box<Body>),
    /// Anything else under any other key (never read).
    Other,
}

/// A payload object: the fields of it that the reader reads.
#[derive(Default)]
pub(super) struct Body {
    /// `args`.
    pub args: Option<Value>,
    /// `result`, kept as it came.
    pub result: Option<Payload>,
    /// `description`.
    pub description: Option<Value>,
    /// `name` (a `function` payload's tool).
    pub name: Option<Value>,
    /// `arguments` (a `function` payload's input, JSON text).
    pub arguments: Option<Value>,
}

impl Holder {
    /// The value of one of [`NOT_PAYLOAD`]'s keys.
    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find_map(|(name, entry)| match entry {
            Entry::Value(value) if name == key => Some(value),
            _ => None,
        })
    }

    /// Its keys and values, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.entries
            .iter()
            .map(|(key, entry)| (key.as_str(), entry))
    }

    /// Sets `key`: in the place of the key when it is there already.
    fn insert(&mut self, key: String, entry: Entry) {
        match self.entries.iter_mut().find(|(name, _)| *name == key) {
            Some((_, held)) => *held = entry,
            None => self.entries.push((key, entry)),
        }
    }
}

impl<'de> Deserialize<'de> for ToolCallField {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(HolderVisitor)
    }
}

/// Reads a `tool_call`: an object into a [`Holder`], anything else as a value.
struct HolderVisitor;

impl<'de> Visitor<'de> for HolderVisitor {
    type Value = ToolCallField;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ToolCallField, A::Error> {
        let mut holder = Holder::default();
        while let Some(key) = map.next_key::<String>()? {
            let entry = if NOT_PAYLOAD.contains(&key.as_str()) {
                Entry::Value(map.next_value()?)
            } else {
                map.next_value_seed(EntrySeed)?
            };
            holder.insert(key, entry);
        }
        Ok(ToolCallField::Object(holder))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ToolCallField, A::Error> {
        drain(seq).map(|()| ToolCallField::Other)
    }

    visit_scalars_as!(ToolCallField::Other, str);
}

/// Reads the elements of an array as values (so that what a value refuses is refused).
fn drain<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Value>()?.is_some() {}
    Ok(())
}

/// Reads a value under a payload key: an object into a [`Body`].
struct EntrySeed;

impl<'de> DeserializeSeed<'de> for EntrySeed {
    type Value = Entry;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Entry, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed {
    type Value = Entry;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        let mut body = Body::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "args" => body.args = Some(map.next_value()?),
                "result" => body.result = Some(map.next_value()?),
                "description" => body.description = Some(map.next_value()?),
                "name" => body.name = Some(map.next_value()?),
                "arguments" => body.arguments = Some(map.next_value()?),
                _ => {
                    map.next_value::<Value>()?;
                }
            }
        }
        Ok(Entry::Body(Box::new(body)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Entry, A::Error> {
        drain(seq).map(|()| Entry::Other)
    }

    visit_scalars_as!(Entry::Other, str);
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;
    use crate::read::json::same_error;
    use crate::read::json::without_position;

    /// A line read the way it was before: its `tool_call` as a value.
    #[derive(Deserialize)]
    struct AsValue {
        #[serde(default)]
        tool_call: Option<Value>,
    }

    /// A line read with a [`Holder`].
    #[derive(Deserialize)]
    struct AsHolder {
        #[serde(default)]
        tool_call: Option<ToolCallField>,
    }

    /// The payload a `tool_call` value holds, picked as it was from a value.
    fn picked(holder: &Map<String, Value>) -> Option<(&str, &Map<String, Value>)> {
        holder
            .iter()
            .find(|(key, value)| key.ends_with("ToolCall") && value.is_object())
            .or_else(|| {
                holder
                    .iter()
                    .find(|(key, value)| !NOT_PAYLOAD.contains(&key.as_str()) && value.is_object())
            })
            .and_then(|(key, value)| Some((key.as_str(), value.as_object()?)))
    }

    /// What a reading gives: the payload's key and fields, the bookkeeping keys' values.
    type Read = Option<(Option<(String, [Option<Value>; 5])>, Vec<Option<Value>>)>;

    fn as_value(line: &str) -> Result<Read, String> {
        let read: AsValue = serde_json::from_str(line).map_err(|e| without_position(&e))?;
        Ok(read.tool_call.and_then(|call| {
            let holder = call.as_object()?;
            let body = picked(holder).map(|(key, body)| {
                let field = |name: &str| body.get(name).cloned();
                let fields = ["args", "result", "description", "name", "arguments"].map(field);
                (key.to_owned(), fields)
            });
            Some((
                body,
                NOT_PAYLOAD
                    .iter()
                    .map(|key| holder.get(*key).cloned())
                    .collect(),
            ))
        }))
    }

    fn as_holder(line: &str) -> Result<Read, String> {
        let read: AsHolder = serde_json::from_str(line).map_err(|e| without_position(&e))?;
        Ok(read.tool_call.and_then(|call| {
            let ToolCallField::Object(holder) = call else {
                return None;
            };
            let bodies = || {
                holder.iter().filter_map(|(key, entry)| match entry {
                    Entry::Body(body) => Some((key, &**body)),
                    _ => None,
                })
            };
            let body = bodies()
                .find(|(key, _)| key.ends_with("ToolCall"))
                .or_else(|| bodies().find(|(key, _)| !NOT_PAYLOAD.contains(key)))
                .map(|(key, body)| {
                    let result = body.result.as_ref().map(|result| result.value().clone());
                    let fields = [
                        body.args.clone(),
                        result,
                        body.description.clone(),
                        body.name.clone(),
                        body.arguments.clone(),
                    ];
                    (key.to_owned(), fields)
                });
            Some((
                body,
                NOT_PAYLOAD
                    .iter()
                    .map(|key| holder.get(key).cloned())
                    .collect(),
            ))
        }))
    }

    #[test]
    fn reads_what_a_value_reads() {
        let calls = [
            r#"{"shellToolCall":{"args":{"command":"ls"},"result":{"success":{"exitCode":0,"stdout":"a\n"}}},"toolCallId":"t","startedAtMs":"1","completedAtMs":"2"}"#,
            r#"{"readToolCall":{"args":{},"result":{"success":{"content":"a\n\u00e9 \ud83d\ude00 \"q\""}}}}"#,
            r#"{"readToolCall":{"args":{},"result":{"success":{"content":"\ud800"}}}}"#,
            r#"{"readToolCall":{"args":{},"result":{"success":{"content":"\u0041\/"}}}}"#,
            r#"{"readToolCall":{"args":{},"result":1e400}}"#,
            r#"{"readToolCall":{"args":{},"result":null}}"#,
            r#"{"readToolCall":{"args":{}}}"#,
            r#"{"readToolCall":{"args":{},"result":{ "success" : { "content" : "x" , "n" : 1.50 } }}}"#,
            r#"{"readToolCall":{"args":{},"result":{"success":{"a":1,"a":2}}}}"#,
            r#"{"aToolCall":{"args":{}},"aToolCall":{"args":{"b":1}}}"#,
            r#"{"aToolCall":{"result":"x","result":["y"],"description":"d","description":7}}"#,
            r#"{"shellToolCall":"x","otherToolCall":{"args":{}},"toolCallId":"t"}"#,
            r#"{"toolCallId":"t","function":{"name":"f","arguments":"{\"a\":1}"}}"#,
            r#"{"toolCallId":{"x":1},"startedAtMs":12,"hookAdditionalContexts":[1e400]}"#,
            r#"{"aToolCall":{"args":{},"other":1e400}}"#,
            r#"{"aToolCall":[1e400]}"#,
            r#"{"aToolCall":[{"a":"\ud800"}],"bToolCall":{}}"#,
            r#"{"aToolCall":{"args":{"x":"\ud800"}}}"#,
            r#"{"aToolCall":{"args":{},"result":"x"},"toolCallId":"a","toolCallId":"b"}"#,
            r#"{"aToolCall":{"args":{},"result":"x"},"b":{"args":{}}}"#,
            r#"{"b":{"args":{}},"c":{"args":{"c":1}}}"#,
            r#"{}"#,
            r#"[1,{"a":2}]"#,
            r#""x""#,
            r#"null"#,
            r#"7"#,
            r#"true"#,
            r#"{"aToolCall":{"args":}}"#,
            r#"{"aToolCall":{"args":{},"result":[1,]}}"#,
        ];
        for call in calls {
            let line = format!(r#"{{"type":"tool_call","tool_call":{call}}}"#);
            match (as_holder(&line), as_value(&line)) {
                (Err(now), Err(before)) => {
                    assert!(same_error(&now, &before), "{line}: {now} / {before}");
                }
                (now, before) => assert_eq!(now, before, "{line}"),
            }
        }
        assert_eq!(as_holder("{}"), Ok(None));
    }

    #[test]
    fn a_result_is_kept_as_it_came() {
        let line = r#"{"tool_call":{"readToolCall":{"result":{"success":{"content":"a\tb"}}}}}"#;
        let Some(ToolCallField::Object(holder)) =
            serde_json::from_str::<AsHolder>(line).unwrap().tool_call
        else {
            panic!("no holder")
        };
        let Some((_, Entry::Body(body))) = holder.iter().next() else {
            panic!("no payload")
        };
        assert_eq!(
            body.result.as_ref().and_then(Payload::raw_text),
            Some(r#"{"success":{"content":"a\tb"}}"#)
        );
    }
}
