//! The content of a message that is not a tool result, read as far as its calls need it:
//! each `toolCall` block's `type`, `id`, `name` and `arguments`, the rest (any other
//! block, its text, its thinking, an image's data) read past without being built, so
//! that an assistant's long text costs a scan, not a copy.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::read::visit::visit_scalars_as;

/// A content read for its calls: an array of blocks, each a `toolCall` block's object of
/// the keys such a block has (or `null` for any other block), at its place in the array;
/// anything but an array `null`. [`ToolCall::take`](super::wire::ToolCall::take)
/// finds the same calls, at the same indexes, in it as in the content read whole.
pub(super) struct CallBlocks(pub Value);

impl<'de> Deserialize<'de> for CallBlocks {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Blocks).map(CallBlocks)
    }
}

/// Reads the content: an array's blocks, or `null` for anything else.
struct Blocks;

/// Reads one block: the keys of a call of a `toolCall` object, or `null` for anything
/// else.
struct Block;

/// Whether a block's `type` is `toolCall`, read from any value without building it.
struct IsCall(bool);

impl<'de> Deserialize<'de> for IsCall {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IsCallVisitor).map(IsCall)
    }
}

/// Reads a `type`: `true` for the string `toolCall`, `false` for anything else.
struct IsCallVisitor;

impl<'de> Visitor<'de> for IsCallVisitor {
    type Value = bool;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any value")
    }

    visit_scalars_as!(false);

    fn visit_str<E: serde::de::Error>(self, kind: &str) -> Result<bool, E> {
        Ok(kind == CALL_TYPE)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
}

/// The `type` of a call's block.
const CALL_TYPE: &str = "toolCall";

/// What a block reads as.
struct BlockValue(Value);

impl<'de> Deserialize<'de> for BlockValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Block).map(BlockValue)
    }
}

/// The keys of a `toolCall` block.
#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Type,
    Id,
    Name,
    Arguments,
    #[serde(other)]
    Other,
}

impl<'de> Visitor<'de> for Blocks {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any value")
    }

    visit_scalars_as!(Value::Null, str);

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut blocks = Vec::new();
        while let Some(BlockValue(block)) = seq.next_element()? {
            blocks.push(block);
        }
        Ok(Value::Array(blocks))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }
}

impl<'de> Visitor<'de> for Block {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any value")
    }

    visit_scalars_as!(Value::Null, str);

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // A key given twice counts where it is last, as in a value read whole; the
        // object is built only for a call's block (most blocks are text or thinking).
        let mut call = false;
        let (mut id, mut name, mut arguments) = (None, None, None);
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Type => call = map.next_value::<IsCall>()?.0,
                Key::Id => id = Some(map.next_value::<Value>()?),
                Key::Name => name = Some(map.next_value()?),
                Key::Arguments => arguments = Some(map.next_value()?),
                Key::Other => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        if !call {
            return Ok(Value::Null);
        }
        let mut block = Map::new();
        block.insert("type".to_owned(), Value::from(CALL_TYPE));
        for (key, value) in [("id", id), ("name", name), ("arguments", arguments)] {
            if let Some(value) = value {
                block.insert(key.to_owned(), value);
            }
        }
        Ok(Value::Object(block))
    }
}

#[cfg(test)]
mod tests {
    use super::super::wire::ToolCall;
    use super::*;
    use serde_json::json;

    /// The calls `ToolCall::take` finds in a content, with their indexes.
    fn calls(content: &Value) -> Vec<(usize, Option<String>, Option<String>, Value)> {
        content
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .filter_map(|(index, block)| {
                ToolCall::take(block.clone())
                    .map(|call| (index, call.id, call.name, call.arguments))
            })
            .collect()
    }

    #[test]
    fn the_calls_are_those_of_the_content_read_whole() {
        for content in [
            r#"[{"type":"text","text":"a\nb"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}]"#,
            r#"[{"type":"thinking","thinking":"x","thinkingSignature":"s"},{"type":"toolCall","id":"c2","name":"bash","arguments":{"command":"ls"}},{"type":"toolCall","id":"c3","name":"edit"}]"#,
            r#"[{"id":"c4","name":"read","arguments":{},"type":"toolCall"}]"#,
            r#"[{"type":"text","type":"toolCall","id":"c5","name":"x"}]"#,
            r#"[{"type":"toolCall","id":"c6","id":"c7","name":null,"arguments":[1]}]"#,
            r#"[{"type":"toolCall","id":7,"name":"n","arguments":"{\"a\":1}"}]"#,
            r#"["loose",1,null,[{"type":"toolCall","id":"nested"}],{"type":"toolCall","id":"c8"}]"#,
            r#"[{"type":"image","data":"eA==","mimeType":"image/png"},{"type":"toolCall","id":"c9","name":"n","arguments":{"deep":[[[{"a":null}]]]}}]"#,
            r#"[{"type":"toolCall","id":"c10","extra":{"type":"text"},"name":"n"}]"#,
            r#"[{"type":"toolCall","type":"text","id":"c11","name":"n"},{"type":["toolCall"],"id":"c12"}]"#,
            r#"[{"type":{"toolCall":1},"id":"c13"},{"type":null,"id":"c14"},{"type":"toolCall","id":"c15","name":"n","arguments":null}]"#,
            r#"[{"type":"tool\u0043all","id":"c16","name":"escaped"}]"#,
            r#"{"type":"toolCall","id":"not-in-an-array"}"#,
            r#""a text""#,
            r#"[]"#,
            r#"null"#,
            r#"3.5"#,
        ] {
            let whole: Value = serde_json::from_str(content).unwrap();
            let CallBlocks(read) = serde_json::from_str(content).unwrap();
            assert_eq!(calls(&read), calls(&whole), "{content}");
            assert_eq!(
                read.as_array().map(Vec::len),
                whole.as_array().map(Vec::len),
                "{content}"
            );
        }
    }

    #[test]
    fn a_number_out_of_range_where_no_call_is_read_keeps_the_calls() {
        // Read whole, the content would be refused for a number no `f64` holds; read
        // for its calls, that number is read past like any field the calls do not use
        // (as the line's other fields always were), and the call is kept.
        let content =
            r#"[{"type":"text","n":1e400},{"type":"toolCall","id":"c1","name":"n","big":-1e999}]"#;
        assert!(serde_json::from_str::<Value>(content).is_err());
        let CallBlocks(read) = serde_json::from_str(content).unwrap();
        assert_eq!(
            calls(&read),
            [(1, Some("c1".to_owned()), Some("n".to_owned()), json!({}))]
        );
        // In a field a call is read from, it is refused as before.
        let in_arguments = r#"[{"type":"toolCall","id":"c1","arguments":{"n":1e400}}]"#;
        assert!(serde_json::from_str::<CallBlocks>(in_arguments).is_err());
    }
}
