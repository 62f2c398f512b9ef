//! One scan of a line: the envelope, the message's tool blocks in their generated types and
//! the fields of the structured result and of the turn's end, all in one reading of the
//! line's bytes.
//!
//! It reads only the common shapes: a message whose content is an array of blocks each
//! starting with its `type` (as Claude Code writes them), of the types in
//! [`SCANNED_BLOCKS`], each readable as its generated type. Anything else (a prompt's
//! text, a server tool's blocks, a block of a new type, a block that does not read)
//! makes the scan give up, and the line is read as before, the envelope first and each
//! block after (`envelope`), which says what is wrong with it: the scan changes how
//! often the bytes are read, never what a line means.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm_wire::claude_messages as wire;

use super::envelope::{Block, Envelope, Scanned};
use super::result_block::ToolResult;
use super::tasks::Launch;
use super::{NON_TOOL_BLOCKS, TOOL_USE};
use crate::read::borrowed::Text;
use crate::read::json::give_up;
use crate::read::visit::visit_scalars_as;

/// The block types the scan reads: tool uses and results in their generated types, the
/// blocks that carry no call read past.
const SCANNED_BLOCKS: &[&str] = &[TOOL_USE, "tool_result"];

/// The line read in one scan, or `None` when it is not of the shapes the scan reads.
pub(super) fn scan(bytes: &[u8]) -> Option<Envelope<'_>> {
    crate::read::json::scan_line(bytes).map(Fields::into_envelope)
}

/// The envelope's fields (see [`Envelope`]), with the message, the structured result and
/// the turn's denials read in place.
#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    event: Option<&'a RawValue>,
    #[serde(borrow, default)]
    parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default, alias = "toolUseResult")]
    tool_use_result: Option<Structured>,
    #[serde(borrow, default)]
    tool_result_meta: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    claude_code_version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    qwen_code_version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "parentToolUseID")]
    progress_parent: Option<Cow<'a, str>>,
    #[serde(default, rename = "isSidechain")]
    is_sidechain: bool,
    #[serde(borrow, default, rename = "agentId")]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "sessionId")]
    transcript_session: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "permissionDecision")]
    permission_decision: Option<&'a RawValue>,
    /// `result`: the calls a permission check denied in the turn.
    #[serde(borrow, default)]
    permission_denials: Option<&'a RawValue>,
}

impl<'a> Fields<'a> {
    fn into_envelope(self) -> Envelope<'a> {
        Envelope {
            kind: self.kind,
            subtype: self.subtype,
            message: None,
            event: self.event,
            parent_tool_use_id: self.parent_tool_use_id,
            timestamp: self.timestamp,
            tool_use_result: None,
            tool_result_meta: self.tool_result_meta,
            tool_use_id: self.tool_use_id,
            cwd: self.cwd,
            session_id: self.session_id,
            claude_code_version: self.claude_code_version,
            qwen_code_version: self.qwen_code_version,
            version: self.version,
            data: self.data,
            progress_parent: self.progress_parent,
            is_sidechain: self.is_sidechain,
            agent_id: self.agent_id,
            transcript_session: self.transcript_session,
            permission_decision: self.permission_decision,
            scanned: Some(Scanned {
                blocks: self.message.map(|message| message.0),
                launch: self.tool_use_result.and_then(|result| result.0),
                permission_denials: self.permission_denials,
                event: None,
            }),
        }
    }
}

/// `message`: an object whose `content` is an array of blocks.
struct Message<'a>(Vec<Block<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Message<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let blocks: Vec<Block<'de>> = deserializer.deserialize_map(MessageVisitor)?;
        Ok(Message(blocks))
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Vec<Block<'de>>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut content = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if key == "content" {
                if content.is_some() {
                    return Err(give_up());
                }
                content = Some(map.next_value_seed(ContentSeed)?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        content.ok_or_else(give_up)
    }
}

/// `message.content`: an array of blocks, each read as its type says.
struct ContentSeed;

impl<'de> DeserializeSeed<'de> for ContentSeed {
    type Value = Vec<Block<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ContentSeed {
    type Value = Vec<Block<'de>>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an array of content blocks")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(block) = seq.next_element_seed(BlockSeed)? {
            blocks.push(block);
        }
        Ok(blocks)
    }
}

/// One content block, whose first key is its `type`.
struct BlockSeed;

impl<'de> DeserializeSeed<'de> for BlockSeed {
    type Value = Block<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BlockSeed {
    type Value = Block<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a content block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // The entries before `type`, kept raw: Claude Code writes a tool result's
        // `tool_use_id` first, and a stream written with sorted keys has `text` first.
        let mut before = Vec::new();
        let kind = loop {
            let Some(Text(key)) = map.next_key::<Text<'de>>()? else {
                return Err(give_up());
            };
            if key == "type" {
                break map.next_value::<Text<'de>>()?.0;
            }
            before.push((key, map.next_value::<&'de RawValue>()?));
        };
        if !SCANNED_BLOCKS.contains(&kind.as_ref()) {
            if !NON_TOOL_BLOCKS.contains(&kind.as_ref()) {
                return Err(give_up());
            }
            // Read past, as the field-by-field reading does: it takes a leading `type` as
            // it comes (the keys need no reading), and reads any other place of it as a
            // field, once.
            if before.is_empty() {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                return Ok(Block::Skipped);
            }
            while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                if key == "type" {
                    return Err(give_up());
                }
                map.next_value::<IgnoredAny>()?;
            }
            return Ok(Block::Skipped);
        }
        let tool_use = kind == TOOL_USE;
        let rest = MapAccessDeserializer::new(Replayed {
            kind: Some(kind),
            before: before.into_iter(),
            pending: None,
            map,
        });
        if tool_use {
            wire::BetaToolUseBlock::deserialize(rest).map(Block::ToolUse)
        } else {
            ToolResult::deserialize(rest).map(Block::ToolResult)
        }
    }
}

/// A block's entries with its `type` given back first (the generated types read it),
/// then the entries read before it, then the rest.
struct Replayed<'de, A> {
    kind: Option<Cow<'de, str>>,
    before: std::vec::IntoIter<(Cow<'de, str>, &'de RawValue)>,
    /// The value of the entry of `before` whose key was given last.
    pending: Option<&'de RawValue>,
    map: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replayed<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if self.kind.is_some() {
            return seed
                .deserialize(BorrowedStrDeserializer::new("type"))
                .map(Some);
        }
        match self.before.next() {
            Some((key, value)) => {
                self.pending = Some(value);
                text(seed, key).map(Some)
            }
            None => self.map.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        if let Some(kind) = self.kind.take() {
            return text(seed, kind);
        }
        match self.pending.take() {
            Some(value) => seed
                .deserialize(&mut serde_json::Deserializer::from_str(value.get()))
                .map_err(|_| give_up()),
            None => self.map.next_value_seed(seed),
        }
    }
}

/// A string given to `seed`, borrowed or owned as it was read.
fn text<'de, S: DeserializeSeed<'de>, E: de::Error>(
    seed: S,
    text: Cow<'de, str>,
) -> Result<S::Value, E> {
    match text {
        Cow::Borrowed(text) => seed.deserialize(BorrowedStrDeserializer::new(text)),
        Cow::Owned(text) => seed.deserialize(StringDeserializer::new(text)),
    }
}

/// `tool_use_result`, read only for what [`Launch`] keeps: the reading of the envelope's
/// raw value (`serde_json::from_str::<Launch>(…).ok()`), done in place. A value that is
/// not an object launched nothing; an array (which that reading could take for the
/// fields in order) makes the scan give up.
struct Structured(Option<Launch>);

impl<'de> Deserialize<'de> for Structured {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StructuredVisitor;
        impl<'de> Visitor<'de> for StructuredVisitor {
            type Value = Structured;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a structured result")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut status, mut agent_id) = (None, None);
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    let slot = match key.as_ref() {
                        "status" => &mut status,
                        "agentId" => &mut agent_id,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if slot.is_some() {
                        return Err(give_up());
                    }
                    *slot = Some(map.next_value::<Option<Value>>()?);
                }
                Ok(Structured(Some(Launch::of(
                    status.flatten(),
                    agent_id.flatten(),
                ))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
                Err(give_up())
            }
            visit_scalars_as!(Structured(None), str);
        }
        deserializer.deserialize_any(StructuredVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dialect;
    use crate::read::scan_check;

    #[test]
    fn the_scan_reads_every_recording_as_the_field_by_field_reading_does() {
        let files = scan_check::recordings_read_alike(Dialect::CLAUDE_CODE, |name| {
            name.starts_with("claude-code") && !name.contains("acp")
        });
        assert!(files > 50, "{files} recordings");
    }

    /// Qwen Code's stream-json is read by the same reader.
    #[cfg(feature = "qwen-code")]
    #[test]
    fn the_scan_reads_every_qwen_code_stream_as_the_field_by_field_reading_does() {
        let files = scan_check::recordings_read_alike(Dialect::QWEN_CODE, |name| {
            name == "qwen-code" || name.starts_with("qwen-code@")
        });
        assert!(files > 10, "{files} recordings");
    }

    fn scanned(line: &str) -> Option<Vec<&'static str>> {
        let line: &'static str = Box::leak(line.to_owned().into_boxed_str());
        let mut envelope = scan(line.as_bytes())?;
        let blocks = envelope.scanned.as_mut()?.blocks.take().unwrap_or_default();
        Some(
            blocks
                .iter()
                .map(|block| match block {
                    Block::ToolUse(_) => "tool_use",
                    Block::ToolResult(_) => "tool_result",
                    Block::Skipped => "skipped",
                    Block::Raw(..) => "raw",
                })
                .collect(),
        )
    }

    #[test]
    fn the_common_lines_are_read_in_one_scan() {
        assert_eq!(
            scanned(
                r#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"a"},
                {"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]}}"#
            ),
            Some(vec!["skipped", "tool_use"])
        );
        // Blocks whose type is not first: Claude Code writes a tool result's id first, and
        // a stream written with sorted keys has a text's `text` first.
        assert_eq!(
            scanned(
                r#"{"type":"user","message":{"content":[{"tool_use_id":"t","type":"tool_result",
                "content":"x"}]}}"#
            ),
            Some(vec!["tool_result"])
        );
        assert_eq!(
            scanned(
                r#"{"type":"assistant","message":{"content":[{"id":"t","input":{"a":[1]},
                "name":"B","type":"tool_use"}]}}"#
            ),
            Some(vec!["tool_use"])
        );
        assert_eq!(
            scanned(
                r#"{"type":"assistant","message":{"content":[{"text":"a","type":"text"},
                {"signature":"s","thinking":"t","type":"thinking"}]}}"#
            ),
            Some(vec!["skipped", "skipped"])
        );
        assert_eq!(
            scanned(
                r#"{"type":"user","message":{"content":[{"type":"tool_result",
                "tool_use_id":"t","content":"x"}]},"tool_use_result":{"stdout":"x"}}"#
            ),
            Some(vec!["tool_result"])
        );
        assert_eq!(
            scanned(r#"{"type":"result","subtype":"success","permission_denials":[]}"#),
            Some(vec![])
        );
    }

    #[test]
    fn other_shapes_are_left_to_the_field_by_field_reading() {
        for line in [
            // A prompt's text.
            r#"{"type":"user","message":{"content":"hi"}}"#,
            // A server tool's block, a block of a new type.
            r#"{"type":"assistant","message":{"content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"hologram"}]}}"#,
            // A block whose type is not first: of a new type, twice, not a string, missing.
            r#"{"type":"assistant","message":{"content":[{"text":"a","type":"hologram"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"text":"a","type":"text","type":"text"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"text":"a","type":1}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"text":"a"}]}}"#,
            // A tool block whose type is not first, with a second type or a bad field.
            r#"{"type":"user","message":{"content":[{"tool_use_id":"t","type":"tool_result","type":"tool_result"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"id":1,"type":"tool_use","name":"B","input":{}}]}}"#,
            // A block that does not read as its type, a message without content.
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"B"}]}}"#,
            r#"{"type":"assistant","message":{"id":"m"}}"#,
            // A structured result the field-by-field reading could take for its fields.
            r#"{"type":"user","message":{"content":[]},"tool_use_result":["async_launched","a"]}"#,
            // Not JSON.
            r#"{"type":"#,
        ] {
            assert!(scanned(line).is_none(), "{line}");
        }
    }
}
