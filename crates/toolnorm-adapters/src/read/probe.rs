//! [`Probe`]: just enough of a line to tell the dialects apart.

use std::borrow::Cow;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// The few top-level keys of a line that say which dialect it is in. Each provider
/// module says, from a probe, whether a line is one of its own.
#[derive(Deserialize)]
pub struct Probe<'a> {
    /// `type`.
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    /// `method` (JSON-RPC).
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// `jsonrpc` (JSON-RPC 2.0 says so; the Codex app-server leaves it out).
    #[serde(borrow, default)]
    pub jsonrpc: Option<Cow<'a, str>>,
    /// Whether `properties` is there.
    #[serde(default)]
    pub properties: Option<IgnoredAny>,
    /// Whether `payload` is there.
    #[serde(default)]
    pub payload: Option<IgnoredAny>,
    /// Whether `sessionID` is there.
    #[serde(default, rename = "sessionID")]
    pub session_id: Option<IgnoredAny>,
    /// Whether `message` is there (Claude Code's message envelope), and whether it holds
    /// `parts` (Qwen Code's session records: Gemini's content in that envelope).
    #[serde(default)]
    pub message: Option<Message>,
    /// Whether `subtype` is there.
    #[serde(default)]
    pub subtype: Option<IgnoredAny>,
    /// Whether `timestamp` is there.
    #[serde(default)]
    pub timestamp: Option<IgnoredAny>,
    /// Whether `projectHash` is there (Gemini CLI session metadata).
    #[serde(default, rename = "projectHash")]
    pub project_hash: Option<IgnoredAny>,
    /// Whether `$set` is there (a Gemini CLI session update).
    #[serde(default, rename = "$set")]
    pub set: Option<IgnoredAny>,
    /// Whether `qwen_code_version` is there (Qwen Code's `system` `init` line).
    #[serde(default)]
    pub qwen_code_version: Option<IgnoredAny>,
    /// Whether `info` is there (an OpenCode export's session).
    #[serde(default)]
    pub info: Option<IgnoredAny>,
    /// Whether `messages` is there (an OpenCode export's messages).
    #[serde(default)]
    pub messages: Option<IgnoredAny>,
    /// Whether `systemPayload` is there (a Qwen Code session's `system` record).
    #[serde(default, rename = "systemPayload")]
    pub system_payload: Option<IgnoredAny>,
    /// Whether `toolCallResult` is there (a Qwen Code session's `tool_result` record).
    #[serde(default, rename = "toolCallResult")]
    pub tool_call_result: Option<IgnoredAny>,
    /// Whether `$rewindTo` is there (a Gemini CLI session rewind).
    #[serde(default, rename = "$rewindTo")]
    pub rewind_to: Option<IgnoredAny>,
}

/// What the probe sees of a line's `message`: any JSON value, and whether it is an
/// object with a `parts` key (its values are skipped, as [`IgnoredAny`] skips them).
#[derive(Debug, Default, Clone, Copy)]
pub struct Message {
    /// Whether `message` is an object with `parts`.
    pub parts: bool,
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

/// Reads any value as a [`Message`].
struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut parts = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            parts |= key == "parts";
            map.next_value::<IgnoredAny>()?;
        }
        Ok(Message { parts })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Message, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Message::default())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Message, E> {
        Ok(Message::default())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Message, E> {
        Ok(Message::default())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Message, E> {
        Ok(Message::default())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Message, E> {
        Ok(Message::default())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Message, E> {
        Ok(Message::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Message, E> {
        Ok(Message::default())
    }
}

impl<'a> Probe<'a> {
    /// The probe of a line, when it is a JSON object.
    pub fn of(bytes: &'a [u8]) -> Option<Self> {
        serde_json::from_slice(bytes).ok()
    }

    /// Whether `message` is an object with `parts` (Gemini's content shape).
    pub fn message_has_parts(&self) -> bool {
        self.message.is_some_and(|message| message.parts)
    }

    /// `type`, when the line has one.
    pub fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }
}
