//! A Droid session message's `content`, read in one pass: each block's `type` and the
//! fields a call or a result needs, a result's `content` kept as the JSON text it came
//! as (shared with a long line), not decoded into a copy: a result's output can be the
//! biggest thing in a session file.
//!
//! Read as a `Value` would read it: every other value is still read as a value, so a line
//! is refused as before; a key given twice counts where it is last. One difference: a
//! block whose first key is serde_json's raw value token, which `Value` reads as the JSON
//! text of its string, is refused (no agent writes that key).

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use toolnorm::Payload;

use crate::read::borrowed::Text;
use crate::read::checked::{Checked, KeptValue, RAW_VALUE_TOKEN};
use crate::read::visit::visit_scalars_as;

/// A message's `content`: its blocks when it is an array (anything but an object in it
/// left out), else nothing.
#[derive(Default)]
pub(super) struct Content(pub Vec<Block>);

/// A content block, as far as a call or a result needs it.
pub(super) struct Block {
    /// Its `type`, `id`, `name`, `input`, `tool_use_id` and `is_error`, as a `Value` map
    /// holds them (each in the place it first came, with its last value).
    pub fields: Map<String, Value>,
    /// Its `content` (a result's output), kept.
    pub content: Option<Payload>,
}

/// The keys of a block that are read.
const FIELDS: [&str; 6] = ["type", "id", "name", "input", "tool_use_id", "is_error"];

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    visit_scalars_as!(Content::default(), str);

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element::<MaybeBlock>()? {
            blocks.extend(block.0);
        }
        Ok(Content(blocks))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Content, A::Error> {
        checked_map(map).map(|()| Content::default())
    }
}

/// An element of the content: a block when it is an object.
struct MaybeBlock(Option<Block>);

impl<'de> Deserialize<'de> for MaybeBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BlockVisitor)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = MaybeBlock;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    visit_scalars_as!(MaybeBlock(None), str);

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MaybeBlock, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(MaybeBlock(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MaybeBlock, A::Error> {
        let mut block = Block {
            fields: Map::new(),
            content: None,
        };
        let mut first = true;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if first && key == RAW_VALUE_TOKEN {
                return Err(serde::de::Error::custom("a raw value token"));
            }
            first = false;
            if key == "content" {
                block.content = Some(map.next_value::<KeptValue>()?.0);
            } else if FIELDS.contains(&key.as_ref()) {
                block.fields.insert(key.into_owned(), map.next_value()?);
            } else {
                map.next_value::<Checked>()?;
            }
        }
        Ok(MaybeBlock(Some(block)))
    }
}

/// Reads the entries of a map as values (so that what a value refuses is refused).
fn checked_map<'de, A: MapAccess<'de>>(map: A) -> Result<(), A::Error> {
    Checked::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::json::same_error;
    use crate::read::json::without_position;

    /// A message read with its content as a value (as the reader read it before).
    #[derive(Deserialize)]
    struct AsValue {
        #[serde(default)]
        content: Value,
    }

    /// A message read with its content read in one pass.
    #[derive(Deserialize)]
    struct AsBlocks {
        #[serde(default)]
        content: Content,
    }

    /// What a reading gives of each block that is an object: its read fields, its
    /// `content`.
    type Read = Vec<(Map<String, Value>, Option<Value>)>;

    fn as_value(message: &str) -> Result<Read, String> {
        let read: AsValue = serde_json::from_str(message).map_err(|e| without_position(&e))?;
        let Value::Array(blocks) = read.content else {
            return Ok(Vec::new());
        };
        Ok(blocks
            .into_iter()
            .filter_map(|block| match block {
                Value::Object(mut block) => {
                    let content = block.remove("content");
                    block.retain(|key, _| FIELDS.contains(&key.as_str()));
                    Some((block, content))
                }
                _ => None,
            })
            .collect())
    }

    fn as_blocks(message: &str) -> Result<Read, String> {
        let read: AsBlocks = serde_json::from_str(message).map_err(|e| without_position(&e))?;
        Ok(read
            .content
            .0
            .into_iter()
            .map(|block| (block.fields, block.content.map(Payload::into_value)))
            .collect())
    }

    #[test]
    fn reads_what_the_value_reading_reads() {
        for message in [
            r#"{"content":[{"type":"tool_use","id":"c1","name":"Read","input":{"path":"a"}}]}"#,
            r#"{"content":[{"type":"tool_result","tool_use_id":"c1","content":"a\nb \u00e9","is_error":false}]}"#,
            r#"{"content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"x"}]}]}"#,
            r#"{"content":[{"type":"text","text":"hi"},"loose",1,null,[{"type":"tool_use"}],{"id":"x"}]}"#,
            r#"{"content":[{"id":"a","type":"tool_use","id":"b","name":7,"extra":{"deep":[1,2]}}]}"#,
            r#"{"content":[{"type":"tool_result","content":"a","content":{"b":null},"tool_use_id":"c"}]}"#,
            r#"{"content":[{"\u0074ype":"tool_use","id":"c2","name":"n"}]}"#,
            r#"{"content":[{"type":"tool_use","extra":1e400}]}"#,
            r#"{"content":[{"type":"tool_result","content":1e400}]}"#,
            r#"{"content":[{"type":"tool_result","content":"\ud800"}]}"#,
            r#"{"content":{"type":"tool_use","bad":1e400}}"#,
            r#"{"content":"text"}"#,
            r#"{"content":null}"#,
            r#"{}"#,
            r#"{"content":[{"type":"tool_result","content":"x"}"#,
        ] {
            match (as_blocks(message), as_value(message)) {
                (Err(now), Err(before)) => assert!(same_error(&now, &before), "{message}"),
                (now, before) => assert_eq!(now, before, "{message}"),
            }
        }
        // serde_json's raw value token first in a block, or in a result's content: refused
        // (a `Value` refuses the first two, with another message, and reads the others).
        for block in [
            r#"{"$serde_json::private::RawValue":"[1","type":"x"}"#,
            r#"{"type":"tool_result","content":{"$serde_json::private::RawValue":"[1"}}"#,
            r#"{"$serde_json::private::RawValue":"{}"}"#,
            r#"{"type":"tool_result","content":{"$serde_json::private::RawValue":"{}"}}"#,
        ] {
            let message = format!(r#"{{"content":[{block}]}}"#);
            assert_eq!(
                as_blocks(&message),
                Err("a raw value token".to_owned()),
                "{block}"
            );
        }
    }
}
