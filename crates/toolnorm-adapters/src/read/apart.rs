//! A JSON value read as `serde_json::Value` reads it, but for the values at one path
//! (one for an object, one for an array), kept apart as the JSON text they came as (shared with a long line, see
//! [`toolnorm::read_sharing`]): for a record whose output lies deep in it, where a reader
//! otherwise reads the record as a value and the output with it, decoded into a copy.
//!
//! Every other value is read as a value, a key given twice counts in the place it first
//! came with its last value, so a line is read and refused as a `Value` reading reads and
//! refuses it. One difference: a map whose first key is serde_json's raw value token,
//! which `Value` reads as the JSON text of its string, is refused (no agent writes that
//! key).

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use toolnorm::Payload;

use super::checked::{KeptValue, RAW_VALUE_TOKEN};

/// One step of a path into a value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    /// The value of a key of an object.
    Key(&'static str),
    /// As the last step: the value of a key of an object, kept apart with `null` left in
    /// its place, so that the value still shows which objects had the key (and each kept
    /// value is that of the n-th object with a `null` there).
    Marked(&'static str),
    /// Each element of an array.
    Each,
}

/// Where the values kept apart lie in a value: a path in a value that is an object
/// (beginning with a key) and one in a value that is an array (beginning with
/// [`Step::Each`]), for a value that comes in either shape; a value of the other shape,
/// or a scalar, is read whole.
pub(crate) trait KeptAt {
    /// The path in an object.
    const IN_OBJECT: &'static [Step] = &[];
    /// The path in an array.
    const IN_ARRAY: &'static [Step] = &[];
}

/// A value read with the values at `P`'s paths kept apart (see [`Apart`]).
pub(crate) struct ValueApart<P> {
    /// The value, without the values kept (or with `null` in their place).
    pub value: Value,
    /// The values kept, in the order they came.
    pub kept: Vec<Payload>,
    at: PhantomData<P>,
}

impl<P> Default for ValueApart<P> {
    fn default() -> Self {
        ValueApart {
            value: Value::Null,
            kept: Vec::new(),
            at: PhantomData,
        }
    }
}

impl<P> fmt::Debug for ValueApart<P> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ValueApart")
            .field("value", &self.value)
            .field("kept", &self.kept)
            .finish()
    }
}

impl<'de, P: KeptAt> Deserialize<'de> for ValueApart<P> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (value, kept) = Apart::by_shape(P::IN_OBJECT, P::IN_ARRAY).deserialize(deserializer)?;
        Ok(ValueApart {
            value,
            kept,
            at: PhantomData,
        })
    }
}

/// Texts told as one: one text as it came (its JSON text kept), several joined by a
/// newline (the strings among them), none the empty text.
pub(crate) fn one_text<'p>(texts: impl IntoIterator<Item = &'p Payload>) -> Payload {
    let texts: Vec<&Payload> = texts.into_iter().collect();
    match texts.as_slice() {
        [one] => (*one).clone(),
        many => Payload::from(
            many.iter()
                .filter_map(|text| text.text())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

/// Reads a value with the values at a path (at least one step) kept apart, taken out of
/// the value; what it gives is the value and the values kept, in the order they came
/// (at most one per element of an array the path goes through).
#[derive(Clone, Copy)]
pub(crate) struct Apart {
    /// The path when the value is an object.
    in_object: &'static [Step],
    /// The path when the value is an array.
    in_array: &'static [Step],
}

impl Apart {
    /// The values at `path`.
    pub(crate) fn along(path: &'static [Step]) -> Self {
        Apart::by_shape(path, path)
    }

    /// The values at `in_object` in an object, at `in_array` in an array.
    pub(crate) fn by_shape(in_object: &'static [Step], in_array: &'static [Step]) -> Self {
        Apart {
            in_object,
            in_array,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Apart {
    type Value = (Value, Vec<Payload>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Apart {
    type Value = (Value, Vec<Payload>);

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Self::Value, E> {
        Ok((Value::from(value), Vec::new()))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        Ok((Value::from(value), Vec::new()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        Ok((Value::from(value), Vec::new()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        Ok((Value::from(value), Vec::new()))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        Ok((Value::from(value), Vec::new()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok((Value::Null, Vec::new()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let (mut items, mut kept) = (Vec::new(), Vec::new());
        match self.in_array.split_first() {
            Some((Step::Each, rest)) if !rest.is_empty() => {
                while let Some((item, apart)) = seq.next_element_seed(Apart::along(rest))? {
                    items.push(item);
                    kept.extend(apart);
                }
            }
            _ => {
                while let Some(item) = seq.next_element::<Value>()? {
                    items.push(item);
                }
            }
        }
        Ok((Value::Array(items), kept))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let key = match self.in_object.split_first() {
            Some((Step::Key(key) | Step::Marked(key), rest)) => Some((*key, rest)),
            _ => None,
        };
        let marked = matches!(self.in_object, [Step::Marked(_)]);
        let (mut object, mut kept) = (Map::new(), Vec::new());
        let mut first = true;
        while let Some(name) = map.next_key::<String>()? {
            if first && name == RAW_VALUE_TOKEN {
                return Err(de::Error::custom("a raw value token"));
            }
            first = false;
            match key {
                Some((key, [])) if name == key => {
                    // Kept apart; a key given twice keeps the last, in the first's place.
                    kept = vec![map.next_value::<KeptValue>()?.0];
                    match marked {
                        true => object.insert(name, Value::Null),
                        false => object.shift_remove(&name),
                    };
                }
                Some((key, rest)) if name == key => {
                    let (value, apart) = map.next_value_seed(Apart::along(rest))?;
                    object.insert(name, value);
                    kept = apart;
                }
                _ => {
                    object.insert(name, map.next_value()?);
                }
            }
        }
        Ok((Value::Object(object), kept))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::read::json::{same_error, without_position};

    /// A value read with the values at a path apart: `paths.0` in an object, `paths.1`
    /// in an array.
    fn apart(paths: Paths, text: &str) -> Result<(Value, Vec<Value>), String> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let (value, kept) = Apart::by_shape(paths.0, paths.1)
            .deserialize(&mut deserializer)
            .and_then(|read| deserializer.end().map(|()| read))
            .map_err(|e| without_position(&e))?;
        Ok((value, kept.into_iter().map(Payload::into_value).collect()))
    }

    /// The same read as a value, the values at the path taken out by hand.
    fn whole(paths: Paths, text: &str) -> Result<(Value, Vec<Value>), String> {
        fn take(value: &mut Value, path: &[Step], kept: &mut Vec<Value>) {
            match (path.split_first(), value) {
                (Some((Step::Key(key), [])), Value::Object(object)) => {
                    kept.extend(object.shift_remove(*key));
                }
                (Some((Step::Marked(key), [])), Value::Object(object)) => {
                    if let Some(value) = object.get_mut(*key) {
                        kept.push(value.take());
                    }
                }
                (Some((Step::Key(key), rest)), Value::Object(object)) => {
                    if let Some(value) = object.get_mut(*key) {
                        take(value, rest, kept);
                    }
                }
                (Some((Step::Each, rest)), Value::Array(items)) if !rest.is_empty() => {
                    for item in items {
                        take(item, rest, kept);
                    }
                }
                _ => {}
            }
        }
        let mut value: Value = serde_json::from_str(text).map_err(|e| without_position(&e))?;
        let mut kept = Vec::new();
        let path = match value {
            Value::Array(_) => paths.1,
            _ => paths.0,
        };
        take(&mut value, path, &mut kept);
        Ok((value, kept))
    }

    /// A path in an object and one in an array.
    type Paths = (&'static [Step], &'static [Step]);

    const OUTPUT: Paths = along(&[Step::Key("return_value"), Step::Key("output")]);
    const TEXTS: Paths = along(&[Step::Key("content"), Step::Each, Step::Key("text")]);
    const MARKED: Paths = along(&[Step::Key("content"), Step::Each, Step::Marked("text")]);
    /// Texts in a result object's content list, or in a bare content list.
    const BY_SHAPE: Paths = (
        &[Step::Key("content"), Step::Each, Step::Marked("text")],
        &[Step::Each, Step::Marked("text")],
    );

    const fn along(path: &'static [Step]) -> Paths {
        (path, path)
    }

    #[test]
    fn reads_what_a_value_reads() {
        for (path, text) in [
            (
                OUTPUT,
                r#"{"tool_call_id": "c1", "return_value": {"is_error": false, "output": "a\nb \u00e9", "message": "m"}}"#,
            ),
            (
                OUTPUT,
                r#"{"return_value":{"output":[{"type":"text","text":"x"}],"is_error":true}}"#,
            ),
            (OUTPUT, r#"{"return_value": {"output": null}}"#),
            (
                OUTPUT,
                r#"{"return_value": {"output": "a", "output": "b"}}"#,
            ),
            (
                OUTPUT,
                r#"{"return_value": {"output": "a"}, "return_value": {"is_error": true}}"#,
            ),
            (
                OUTPUT,
                r#"{"return_value": {"output": "a"}, "return_value": {"output": 7}}"#,
            ),
            (
                OUTPUT,
                r#"{"return_value": "not an object", "x": [1, 2.5, -3, true, null, {"y": {}}]}"#,
            ),
            (OUTPUT, r#"{"return_value": [{"output": "in a list"}]}"#),
            (OUTPUT, r#"{"output": "not in a return value"}"#),
            (OUTPUT, r#"{"return_value": {"output": 1e400}}"#),
            (OUTPUT, r#"{"return_value": {"output": "\ud800"}}"#),
            (OUTPUT, r#"{"return_value": {"other": 1e400}}"#),
            (OUTPUT, r#"{"return_value": {"output": "a",}}"#),
            (OUTPUT, r#"[1, {"return_value": {"output": "x"}}]"#),
            (OUTPUT, r#""text""#),
            (OUTPUT, "3.5"),
            (OUTPUT, "null"),
            (
                TEXTS,
                r#"{"content": [{"type": "text", "text": "a\nb"}, {"type": "image"}, {"text": 7}, "loose", [{"text": "nested"}]], "is_error": false}"#,
            ),
            (
                TEXTS,
                r#"{"content": [{"text": "a", "text": "b"}], "content": [{"text": "c"}]}"#,
            ),
            (
                TEXTS,
                r#"{"content": [{"text": "a"}], "content": "a string"}"#,
            ),
            (TEXTS, r#"{"content": {"text": "not in a list"}}"#),
            (TEXTS, r#"{"content": [{"text": "a"}, {"text": 1e400}]}"#),
            (TEXTS, r#"{"content": [{"text": "a"} {"text": "b"}]}"#),
            (TEXTS, r#"{"content": []}"#),
            (
                MARKED,
                r#"{"content": [{"type": "text", "text": "a\nb", "x": 1}, {"type": "image"}, {"text": null}, {"text": 7}, "loose"]}"#,
            ),
            (
                MARKED,
                r#"{"content": [{"text": "a", "y": 2, "text": "b"}], "content": [{"text": "c"}]}"#,
            ),
            (MARKED, r#"{"content": [{"text": 1e400}]}"#),
            (
                BY_SHAPE,
                r#"{"content": [{"type": "text", "text": "a"}, {"text": null}], "isError": false}"#,
            ),
            (
                BY_SHAPE,
                r#"[{"type": "text", "text": "a"}, "loose", [{"text": "nested"}], {"text": 7}]"#,
            ),
            (BY_SHAPE, r#"[{"text": "a", "text": "b"}, {"text": 1e400}]"#),
            (BY_SHAPE, r#"{"text": "not in content"}"#),
            (BY_SHAPE, r#""a string""#),
            (BY_SHAPE, "null"),
        ] {
            match (apart(path, text), whole(path, text)) {
                (Err(now), Err(before)) => {
                    assert!(same_error(&now, &before), "{text}: {now} / {before}")
                }
                (now, before) => assert_eq!(now, before, "{text}"),
            }
        }
        let (_, kept) = apart(OUTPUT, r#"{"return_value": {"output": "a\nb"}}"#).unwrap();
        assert_eq!(kept, [json!("a\nb")]);
        // serde_json's raw value token first in an object: refused.
        for text in [
            r#"{"$serde_json::private::RawValue": "{}"}"#,
            r#"{"return_value": {"$serde_json::private::RawValue": "{}"}}"#,
            r#"{"content": [{"$serde_json::private::RawValue": "{}"}]}"#,
        ] {
            let path = if text.contains("content") {
                TEXTS
            } else {
                OUTPUT
            };
            assert!(apart(path, text).is_err(), "{text}");
        }
    }

    #[test]
    fn texts_are_told_as_one() {
        let texts: Vec<Payload> = ["\"a\\nb\"", "\"c\"", "7"]
            .iter()
            .map(|text| serde_json::from_str::<KeptValue>(text).unwrap().0)
            .collect();
        assert_eq!(one_text(&texts[..1]).raw_text(), Some("\"a\\nb\""));
        assert_eq!(one_text(&texts[..2]).into_value(), json!("a\nb\nc"));
        assert_eq!(one_text(&texts).into_value(), json!("a\nb\nc"));
        assert_eq!(one_text(&[]).into_value(), json!(""));
    }

    #[test]
    fn a_kept_string_stays_the_text_it_came_as() {
        let text = r#"{"content": [{"type": "text", "text": "a\nb"}]}"#;
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let (_, kept) = Apart::along(TEXTS.0)
            .deserialize(&mut deserializer)
            .unwrap();
        assert_eq!(kept[0].raw_text(), Some(r#""a\nb""#));
    }
}
