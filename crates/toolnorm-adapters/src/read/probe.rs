//! [`Probe`]: just enough of a line to tell the dialects apart.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;

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
    /// Whether `message` is there (Claude Code's message envelope).
    #[serde(default)]
    pub message: Option<IgnoredAny>,
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
    /// Whether `$rewindTo` is there (a Gemini CLI session rewind).
    #[serde(default, rename = "$rewindTo")]
    pub rewind_to: Option<IgnoredAny>,
}

impl<'a> Probe<'a> {
    /// The probe of a line, when it is a JSON object.
    pub fn of(bytes: &'a [u8]) -> Option<Self> {
        serde_json::from_slice(bytes).ok()
    }

    /// `type`, when the line has one.
    pub fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }
}
