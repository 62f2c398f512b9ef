//! A `tool_result` block, read with its content kept as it came: a text result, which can
//! be the biggest thing in a stream, stays the JSON text it was in the line (shared with
//! the line when the line is long, see [`toolnorm::read_sharing`]), not a decoded copy.

use serde::de::Error;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use toolnorm::Payload;
use toolnorm_wire::claude_messages as wire;

/// A `tool_result` block: the generated `ToolResultBlockParam`'s fields, read with the
/// same types (so a block it refuses is refused here too), the content kept.
#[derive(Deserialize)]
pub(super) struct ToolResult {
    /// The call it answers.
    pub tool_use_id: String,
    /// Whether the call failed.
    pub is_error: Option<bool>,
    /// What the call gave.
    #[serde(default, deserialize_with = "content")]
    pub content: Option<Content>,
    #[serde(rename = "type")]
    _type: wire::ToolResultBlockParamType,
    #[serde(rename = "cache_control")]
    _cache_control: Option<wire::CacheControlEphemeral>,
    #[serde(rename = "toolset_name")]
    _toolset_name: Option<String>,
}

/// A result's content: a text, or content blocks.
pub(super) enum Content {
    /// A JSON string, kept as it came.
    Text(Payload),
    /// Content blocks, read by the generated type.
    Blocks(Vec<wire::ToolResultBlockParamContentArrayItem>),
}

impl Content {
    /// The call's output: the text as it came, the blocks as the generated type writes
    /// them.
    pub(super) fn into_output(self) -> Payload {
        match self {
            Content::Text(text) => text,
            Content::Blocks(blocks) => serde_json::to_value(&blocks).unwrap_or(Value::Null).into(),
        }
    }
}

/// The content as the generated type reads it (a string, else an array of blocks;
/// `null` is none), with the same error for anything else.
fn content<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Content>, D::Error> {
    let content = Payload::deserialize(deserializer)?;
    if content.is_null() {
        return Ok(None);
    }
    if content.is_string() {
        return Ok(Some(Content::Text(content)));
    }
    Vec::deserialize(content.value())
        .map(|blocks| Some(Content::Blocks(blocks)))
        .map_err(|_| {
            D::Error::custom(
                "data did not match any variant of untagged enum ToolResultBlockParamContent",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Reads `block` both ways: the generated type and this one.
    fn both(
        block: &str,
    ) -> (
        Result<wire::ToolResultBlockParam, String>,
        Result<ToolResult, String>,
    ) {
        (
            serde_json::from_str(block).map_err(|error| error.to_string()),
            serde_json::from_str(block).map_err(|error| error.to_string()),
        )
    }

    #[test]
    fn reads_what_the_generated_type_reads() {
        for block in [
            r#"{"type":"tool_result","tool_use_id":"t","content":"done"}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":"a\nb \u001b","is_error":true}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":null}"#,
            r#"{"type":"tool_result","tool_use_id":"t"}"#,
            r#"{"tool_use_id":"t","type":"tool_result","cache_control":{"type":"ephemeral"}}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":{"a":1}}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":[{"type":"nope"}]}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":3}"#,
            r#"{"type":"tool_result","content":"x"}"#,
            r#"{"type":"tool_use","tool_use_id":"t"}"#,
            r#"{"type":"tool_result","tool_use_id":"t","cache_control":7}"#,
            r#"{"type":"tool_result","tool_use_id":"t","is_error":"yes"}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":"a","content":"b"}"#,
        ] {
            match both(block) {
                (Ok(generated), Ok(read)) => {
                    assert_eq!(read.tool_use_id, generated.tool_use_id, "{block}");
                    assert_eq!(read.is_error, generated.is_error, "{block}");
                    let generated = generated.content.map(|content| match content {
                        wire::ToolResultBlockParamContent::String(text) => Value::String(text),
                        blocks => serde_json::to_value(&blocks).unwrap(),
                    });
                    let read = read
                        .content
                        .map(|content| content.into_output().into_value());
                    assert_eq!(read, generated, "{block}");
                }
                (Err(generated), Err(read)) => assert_eq!(read, generated, "{block}"),
                (generated, read) => panic!(
                    "{block}: generated {:?}, here {:?}",
                    generated.err(),
                    read.err()
                ),
            }
        }
    }

    #[test]
    fn a_text_result_is_kept_as_it_came() {
        let read: ToolResult =
            serde_json::from_str(r#"{"type":"tool_result","tool_use_id":"t","content":"a\tb"}"#)
                .unwrap();
        let output = read.content.map(Content::into_output).unwrap();
        assert_eq!(output.raw_text(), Some(r#""a\tb""#));
        assert_eq!(output, json!("a\tb"));
    }
}
