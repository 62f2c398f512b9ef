//! A `toolResponse`'s `value`, read as a value but for its content items' `text`, each
//! kept apart as the JSON text it came as ([`Apart`], shared with a long line): a
//! tool's output can be the biggest thing in a line, and Goose's `--output-format json`
//! prints a whole run on one.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use toolnorm::Payload;

use crate::read::apart::{Apart, Step};

/// The content items' texts in an MCP `CallToolResult` (since 1.10).
const IN_RESULT: &[Step] = &[Step::Key("content"), Step::Each, Step::Marked("text")];

/// The content items' texts in a content list alone (up to 1.9).
const IN_LIST: &[Step] = &[Step::Each, Step::Marked("text")];

/// A result's value: the value, each content item's `text` replaced by `null`, and the
/// texts kept, in order (one for each content item with a `text`).
#[derive(Default, Debug)]
pub(super) struct ResultValue {
    /// The value, its content items' texts `null`.
    pub value: Value,
    /// The texts taken out, in order; none when the value was read whole (its texts in
    /// it).
    pub texts: Option<Vec<Payload>>,
}

impl ResultValue {
    /// A value read whole, its texts in it.
    #[cfg(test)]
    pub fn whole(value: Value) -> Self {
        ResultValue { value, texts: None }
    }

    /// The content items of `content` (the value's content list), each with its text:
    /// the one kept, or its own.
    pub fn items<'v>(
        content: &'v [Value],
        texts: Option<&'v [Payload]>,
    ) -> Vec<(&'v Value, Option<Payload>)> {
        let mut kept = texts.map(<[Payload]>::iter);
        content
            .iter()
            .map(|item| {
                let text = item.get("text").and_then(|own| match kept.as_mut() {
                    Some(kept) => kept.next().cloned(),
                    None => Some(Payload::from(own.clone())),
                });
                (item, text)
            })
            .collect()
    }

    /// The content list given back its texts, as it was read.
    pub fn restore(content: Value, texts: Option<Vec<Payload>>) -> Value {
        let (mut items, texts) = match (content, texts) {
            (Value::Array(items), Some(texts)) => (items, texts),
            (content, _) => return content,
        };
        let mut texts = texts.into_iter();
        for item in &mut items {
            if let Some(text) = item.get_mut("text") {
                *text = texts.next().map(Payload::into_value).unwrap_or(Value::Null);
            }
        }
        Value::Array(items)
    }
}

impl<'de> Deserialize<'de> for ResultValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (value, texts) = deserializer.deserialize_any(ResultVisitor)?;
        Ok(ResultValue {
            value,
            texts: Some(texts),
        })
    }
}

/// Reads a result's value with the texts of the content items of its shape apart.
struct ResultVisitor;

impl<'de> Visitor<'de> for ResultVisitor {
    type Value = (Value, Vec<Payload>);

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Self::Value, E> {
        Apart(IN_LIST).visit_bool(value)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        Apart(IN_LIST).visit_i64(value)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        Apart(IN_LIST).visit_u64(value)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        Apart(IN_LIST).visit_f64(value)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        Apart(IN_LIST).visit_str(value)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Apart(IN_LIST).visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Apart(IN_LIST).visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Apart(IN_RESULT).visit_map(map)
    }
}
