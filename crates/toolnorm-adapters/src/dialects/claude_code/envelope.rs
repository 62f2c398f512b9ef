//! The envelope of a Claude Code line, and the reading of a message's content blocks.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use toolnorm::Timestamp;

use toolnorm_wire::claude_messages as wire;

use super::result_block::ToolResult;
use super::stream::ReadEvent;
use super::tasks::Launch;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::read::visit::visit_scalars_as;
use crate::track::Facts;

/// The envelope of every line: just enough to dispatch; the payloads are read with the
/// generated wire types.
#[derive(Deserialize)]
pub(super) struct Envelope<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub event: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default, alias = "toolUseResult")]
    pub tool_use_result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub tool_result_meta: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub cwd: Option<Cow<'a, str>>,
    /// Stream-json: the session of the line.
    #[serde(borrow, default)]
    pub session_id: Option<Cow<'a, str>>,
    /// Stream-json's `system` `init`: the version of Claude Code.
    #[serde(borrow, default)]
    pub claude_code_version: Option<Cow<'a, str>>,
    /// Qwen Code's `system` `init`: its version.
    #[serde(borrow, default)]
    pub qwen_code_version: Option<Cow<'a, str>>,
    /// Transcripts: the version of Claude Code that wrote the line.
    #[serde(borrow, default)]
    pub version: Option<Cow<'a, str>>,
    /// Transcripts' `progress` lines: what progressed.
    #[serde(borrow, default)]
    pub data: Option<&'a RawValue>,
    /// Transcripts' `progress` lines: the call the progress belongs to.
    #[serde(borrow, default, rename = "parentToolUseID")]
    pub progress_parent: Option<Cow<'a, str>>,
    /// Transcripts: the line is a subagent's (a sidechain of the session).
    #[serde(default, rename = "isSidechain")]
    pub is_sidechain: bool,
    /// Transcripts: the subagent a sidechain line belongs to.
    #[serde(borrow, default, rename = "agentId")]
    pub agent_id: Option<Cow<'a, str>>,
    /// Transcripts: the session of the line.
    #[serde(borrow, default, rename = "sessionId")]
    pub transcript_session: Option<Cow<'a, str>>,
    /// Transcripts: how the permission check decided (`{"decision": "reject", …}`).
    #[serde(borrow, default, rename = "permissionDecision")]
    pub permission_decision: Option<&'a RawValue>,
    /// What the one scan of the line read in place of `message` and `tool_use_result`
    /// (see `scan`); `None` when the line was read field by field.
    #[serde(skip)]
    pub scanned: Option<Scanned<'a>>,
}

/// What the one scan of a line read beside the envelope.
pub(super) struct Scanned<'a> {
    /// The message's content blocks (`None`: the line has no message).
    pub blocks: Option<Vec<Block<'a>>>,
    /// What the structured result (`tool_use_result`) says of a launched subagent.
    pub launch: Option<Launch>,
    /// `result`: the turn's `permission_denials`.
    pub permission_denials: Option<&'a RawValue>,
    /// `stream_event`: its event, when read ahead with the line.
    pub event: Option<ReadEvent<'a>>,
}

/// A content block of a message.
pub(super) enum Block<'a> {
    /// A `tool_use` block, read by the one scan of the line.
    ToolUse(wire::BetaToolUseBlock),
    /// A `tool_result` block, read by the one scan of the line.
    ToolResult(ToolResult),
    /// A block that carries no call, read past by the one scan of the line.
    Skipped,
    /// A block still raw, with its type.
    Raw(Cow<'a, str>, &'a RawValue),
}

impl<'a> Envelope<'a> {
    /// When the line was written, if it says.
    pub fn at(&self) -> Option<Timestamp> {
        self.timestamp
            .as_deref()
            .map(|text| Timestamp::Text(text.to_owned()))
    }

    /// The subagent call the line belongs to, if any.
    pub fn parent(&self) -> Option<&str> {
        self.parent_tool_use_id.as_deref()
    }

    /// The subagent a transcript's sidechain line belongs to.
    pub fn sidechain_agent(&self) -> Option<&str> {
        self.agent_id.as_deref().filter(|_| self.is_sidechain)
    }

    /// The content blocks of `message`: those the one scan of the line read, else each
    /// still raw, with its type; none (and a diagnostic) when the line has no message or
    /// its content cannot be read, and a block without a type is reported and skipped.
    pub fn blocks(&mut self, line: u64, out: &mut Facts<'_>) -> Vec<Block<'a>> {
        if let Some(blocks) = self
            .scanned
            .as_mut()
            .and_then(|scanned| scanned.blocks.take())
        {
            return blocks;
        }
        let mut typed = Vec::new();
        for block in self.raw_blocks(line, out) {
            match block_type(block) {
                Ok(kind) => typed.push(Block::Raw(kind, block)),
                Err(error) => out.diagnostic(json::malformed(line, "content block", &error)),
            }
        }
        typed
    }

    /// What the structured result (`tool_use_result`) says of a launched subagent.
    pub fn launch(&self) -> Option<Launch> {
        match &self.scanned {
            Some(scanned) => scanned.launch.clone(),
            None => self
                .tool_use_result
                .and_then(|raw| serde_json::from_str::<Launch>(raw.get()).ok()),
        }
    }

    /// The content blocks of `message`, each still raw.
    fn raw_blocks(&self, line: u64, out: &mut Facts<'_>) -> Vec<&'a RawValue> {
        let Some(message) = self.message else {
            out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a message without `message`",
            ));
            return Vec::new();
        };
        match serde_json::from_str::<Content<'_>>(message.get()) {
            Ok(Content {
                content: Blocks(blocks),
            }) => blocks,
            Err(error) => {
                out.diagnostic(json::malformed(line, "message content", &error));
                Vec::new()
            }
        }
    }
}

/// A content block's `type`, to pick the generated type to read it with.
#[derive(Deserialize)]
struct BlockType<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
}

/// A message's content blocks, each still raw, in one reading of the message.
#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow)]
    content: Blocks<'a>,
}

/// `message.content`: an array of blocks; anything else (a prompt's plain text) has none.
struct Blocks<'a>(Vec<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Blocks<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Blocks<'de>;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("message content")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(Blocks(blocks))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Blocks(Vec::new()))
            }
            visit_scalars_as!(Blocks(Vec::new()), str);
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// A content block's `type` (or a stream event's): read from the block's first key when
/// it is there, else by reading the block.
pub(super) fn block_type(block: &RawValue) -> Result<Cow<'_, str>, serde_json::Error> {
    match json::leading_type(block.get().as_bytes()) {
        Some(kind) => Ok(Cow::Borrowed(kind)),
        None => serde_json::from_str::<BlockType<'_>>(block.get()).map(|block| block.kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(message: &str) -> Vec<String> {
        let Content {
            content: Blocks(blocks),
        } = serde_json::from_str(message).unwrap();
        blocks.iter().map(|block| block.get().to_owned()).collect()
    }

    #[test]
    fn content_is_an_array_of_blocks_or_none() {
        assert_eq!(
            content(r#"{"content":[{"type":"text","text":"a"},{"type":"tool_use"}]}"#),
            [r#"{"type":"text","text":"a"}"#, r#"{"type":"tool_use"}"#]
        );
        for other in [r#""a prompt""#, "{}", "1", "true", "null"] {
            assert!(
                content(&format!(r#"{{"content":{other}}}"#)).is_empty(),
                "{other}"
            );
        }
    }

    #[test]
    fn the_block_type_is_read_wherever_it_is() {
        let first: &RawValue = serde_json::from_str(r#"{"type":"tool_use","id":"a"}"#).unwrap();
        assert_eq!(block_type(first).unwrap(), "tool_use");
        let later: &RawValue = serde_json::from_str(r#"{"id":"a","type":"tool_result"}"#).unwrap();
        assert_eq!(block_type(later).unwrap(), "tool_result");
        let none: &RawValue = serde_json::from_str(r#"{"id":"a"}"#).unwrap();
        assert!(block_type(none).is_err());
    }
}
