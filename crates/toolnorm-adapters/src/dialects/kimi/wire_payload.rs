//! A wire message's `payload`, read as a value but for a `ToolResult`'s output
//! (`return_value.output`), which is kept apart as the JSON text it came as (shared with
//! a long line): an output can be the biggest thing in a wire log.
//!
//! Read as a `Value` reads it: every other value is a value, a key given twice counts in
//! the place it first came with its last value, so a line is read and refused as before.
//! One difference: a map whose first key is serde_json's raw value token, which `Value`
//! reads as the JSON text of its string, is refused (no agent writes that key).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use toolnorm::Payload;

use crate::read::checked::{KeptValue, RAW_VALUE_TOKEN};

/// A payload: its value, without the output when the output was kept.
#[derive(Default)]
pub(super) struct PayloadApart {
    /// The payload (`return_value.output` taken out when kept).
    pub value: Value,
    /// `return_value.output`, kept.
    pub output: Option<Payload>,
}

impl<'de> Deserialize<'de> for PayloadApart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (value, output) = Apart(&["return_value", "output"]).deserialize(deserializer)?;
        Ok(PayloadApart { value, output })
    }
}

/// Reads a value with the value at `path` (keys of nested objects, at least one) kept
/// apart.
struct Apart(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Apart {
    type Value = (Value, Option<Payload>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Apart {
    type Value = (Value, Option<Payload>);

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Self::Value, E> {
        Ok((Value::from(value), None))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        Ok((Value::from(value), None))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        Ok((Value::from(value), None))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        Ok((Value::from(value), None))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        Ok((Value::from(value), None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok((Value::Null, None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok((Value::Array(items), None))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Some((&key, rest)) = self.0.split_first() else {
            return Err(de::Error::custom("no key to keep apart"));
        };
        let (mut object, mut apart) = (Map::new(), None);
        let mut first = true;
        while let Some(name) = map.next_key::<String>()? {
            if first && name == RAW_VALUE_TOKEN {
                return Err(de::Error::custom("a raw value token"));
            }
            first = false;
            if name != key {
                object.insert(name, map.next_value()?);
            } else if rest.is_empty() {
                // Kept apart; a key given twice keeps the last, in the first's place.
                apart = Some(map.next_value::<KeptValue>()?.0);
                object.shift_remove(&name);
            } else {
                let (value, kept) = map.next_value_seed(Apart(rest))?;
                object.insert(name, value);
                apart = kept;
            }
        }
        Ok((Value::Object(object), apart))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::json::{same_error, without_position};

    /// A payload read with its output apart, the output put back where it was.
    fn apart(text: &str) -> Result<Value, String> {
        let read: PayloadApart = serde_json::from_str(text).map_err(|e| without_position(&e))?;
        let mut value = read.value;
        if let Some(output) = read.output {
            value["return_value"]["output"] = output.into_value();
        }
        Ok(value)
    }

    fn whole(text: &str) -> Result<Value, String> {
        serde_json::from_str(text).map_err(|e| without_position(&e))
    }

    #[test]
    fn reads_what_a_value_reads() {
        for text in [
            r#"{"tool_call_id": "c1", "return_value": {"is_error": false, "output": "a\nb \u00e9", "message": "m"}}"#,
            r#"{"tool_call_id":"c1","return_value":{"output":[{"type":"text","text":"x"}],"is_error":true}}"#,
            r#"{"return_value": {"output": null}}"#,
            r#"{"return_value": {"output": "a", "output": "b"}}"#,
            r#"{"return_value": {"output": "a"}, "return_value": {"is_error": true}}"#,
            r#"{"return_value": {"output": "a"}, "return_value": {"output": 7}}"#,
            r#"{"return_value": "not an object", "x": [1, 2.5, -3, true, null, {"y": {}}]}"#,
            r#"{"return_value": [{"output": "in a list"}]}"#,
            r#"{"output": "not in a return value"}"#,
            r#"{"return_value": {"output": 1e400}}"#,
            r#"{"return_value": {"output": "\ud800"}}"#,
            r#"{"return_value": {"other": 1e400}}"#,
            r#"{"return_value": {"output": "a",}}"#,
            r#"[1, {"return_value": {"output": "x"}}]"#,
            r#""text""#,
            "3.5",
            "null",
        ] {
            match (apart(text), whole(text)) {
                (Err(now), Err(before)) => {
                    assert!(same_error(&now, &before), "{text}: {now} / {before}")
                }
                (now, before) => assert_eq!(now, before, "{text}"),
            }
        }
        let kept: PayloadApart =
            serde_json::from_str(r#"{"return_value": {"output": "a\nb"}}"#).unwrap();
        assert_eq!(kept.output.unwrap().raw_text(), Some(r#""a\nb""#));
        // serde_json's raw value token first in an object: refused.
        for text in [
            r#"{"$serde_json::private::RawValue": "{}"}"#,
            r#"{"return_value": {"$serde_json::private::RawValue": "{}"}}"#,
        ] {
            assert!(apart(text).is_err(), "{text}");
        }
    }

    #[test]
    fn a_kept_output_ends_a_call_as_the_value_did() {
        use super::super::outcome::from_return_value;
        for return_value in [
            r#"{"is_error": false, "output": "a\nb", "message": "m"}"#,
            r#"{"is_error": false, "output": "", "message": "File written."}"#,
            r#"{"is_error": true, "output": "", "message": "failed"}"#,
            r#"{"is_error": true, "output": "checking\n", "message": "Command failed with exit code: 3."}"#,
            r#"{"is_error": false, "output": [{"type": "text", "text": "<system>ok</system>"}, {"type": "text", "text": "x"}]}"#,
            r#"{"is_error": false, "output": {"type": "text", "text": "one"}}"#,
            r#"{"is_error": false, "output": null, "message": "nothing"}"#,
            r#"{"is_error": false, "output": 7}"#,
            r#"{"is_error": false}"#,
        ] {
            let text = format!(r#"{{"tool_call_id": "c", "return_value": {return_value}}}"#);
            let read: PayloadApart = serde_json::from_str(&text).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                from_return_value(&read.value["return_value"], read.output.as_ref()),
                from_return_value(&value["return_value"], None),
                "{return_value}"
            );
        }
    }
}
