//! Droid's session files, `~/.factory/sessions/<cwd>/<session>.jsonl`.
//!
//! The first record opens the session (`session_start`: its `id`, `cwd`, `title`); each
//! `message` record holds one message of the conversation in Anthropic's shape
//! (`message.role`, `message.content` blocks), with `id`, `parentId` and an ISO
//! `timestamp`:
//!
//! | record | canonical events |
//! | --- | --- |
//! | `session_start` | (begins the session, remembers `cwd`; a subagent's names the call that started it, `callingToolUseId`) |
//! | `message` with `role: assistant` and `tool_use` blocks | `toolCallStarted` |
//! | `message` with `role: user` and `tool_result` blocks | `toolCallCompleted`, or `toolCallFailed` when `is_error` |
//! | `message` with text only, `agent_turn_outcome`, `compaction` | (known, nothing about tools) |
//!
//! A result's text is the one the stream-json shows for the same call (`value`, or
//! `error.message` when it failed), so a run reads the same from its session file and
//! from its stream; errors are classified by the same `outcome`. A subagent's session
//! file is a session of its own whose `session_start` names the session and the `Task`
//! call that started it (`callingSessionId`, `callingToolUseId`): its calls carry
//! `metadata.parentToolCallId`, appended after its parent's file or read alone.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use toolnorm::{Payload, Timestamp, ToolKind, meta};

use super::session_content::{Block, Content};
use super::stream::sighting;
use super::{RULES, outcome, split_mcp};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::{Ending, Facts};

/// The dialect: Droid's session files, with Droid's provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("droid-session", "droid");

impl Dialect {
    /// Factory Droid's session files (`~/.factory/sessions/<cwd>/<session>.jsonl`).
    pub const DROID_SESSION: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Factory Droid session file (`~/.factory/sessions/…/*.jsonl`)",
    feature: "droid",
    rules: RULES,
    claims,
    adapter: |_| Box::new(DroidSessionAdapter::default()),
    // The session files the stream-json runs wrote (`fixtures/droid-session/`).
    read_ahead: None,
    recordings: &["droid"],
    agent_version: "",
    stores: &[crate::Store::at(".factory", "sessions/**/*.jsonl")],
};

/// Record types that carry no call: the outcome of a turn, a compaction.
const KNOWN: &[&str] = &["agent_turn_outcome", "compaction"];

/// Whether a line is a Droid session record: its `session_start`, an
/// `agent_turn_outcome` (with its `turnId`), or a `message` record whose message only
/// Droid writes so (its `modelId` or `interactionMode`, Anthropic `tool_use` /
/// `tool_result` blocks, or an id of the `context-` messages Droid adds).
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("method") || keys.has("payload") {
        return false;
    }
    match keys.kind().as_deref() {
        Some("session_start") => keys.has("id") && !keys.has("session_id"),
        Some("agent_turn_outcome") => keys.has("turnId"),
        Some("message") => {
            keys.has("id")
                && (keys.str("id").is_some_and(|id| id.starts_with("context-"))
                    || keys.raw("message").is_some_and(is_droid_message))
        }
        _ => false,
    }
}

/// Whether a record's `message` is one Droid writes: its model or interaction mode, or
/// Anthropic's `tool_use` / `tool_result` blocks in its content.
fn is_droid_message(raw: &str) -> bool {
    /// What a message holds that tells.
    #[derive(Deserialize)]
    struct Shape<'a> {
        #[serde(rename = "modelId", default)]
        model_id: Option<IgnoredAny>,
        #[serde(rename = "interactionMode", default)]
        interaction_mode: Option<IgnoredAny>,
        #[serde(borrow, default)]
        content: Option<Vec<BlockType<'a>>>,
    }
    /// A block's type.
    #[derive(Deserialize)]
    struct BlockType<'a> {
        #[serde(borrow, rename = "type", default)]
        kind: Option<Cow<'a, str>>,
    }
    serde_json::from_str::<Shape<'_>>(raw).is_ok_and(|shape| {
        shape.model_id.is_some()
            || shape.interaction_mode.is_some()
            || shape.content.is_some_and(|blocks| {
                blocks
                    .iter()
                    .any(|block| matches!(block.kind.as_deref(), Some("tool_use" | "tool_result")))
            })
    })
}

/// Reads Droid session files.
#[derive(Debug, Default)]
pub struct DroidSessionAdapter {
    /// The call that started the session being read, for a subagent's session.
    parent: Option<String>,
}

impl Adapter for DroidSessionAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let record: Record<'_> = match json::parse_line(line, bytes, "not a Droid session record") {
            Ok(record) => record,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        match record.kind.as_deref() {
            Some("session_start") => {
                if let Some(id) = record.id.as_deref() {
                    facts.begin_session(id);
                }
                if let Some(cwd) = record.cwd {
                    facts.set_cwd(cwd.into_owned());
                }
                self.parent = record.calling_tool_use_id.map(Cow::into_owned);
            }
            Some("message") => message(line, record, self.parent.as_deref(), facts),
            Some(kind) if KNOWN.contains(&kind) => {}
            other => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!(
                    "unknown Droid session record type `{}`",
                    other.unwrap_or_default()
                ),
            )),
        }
    }
}

/// A session record: the envelope and the fields a tool call needs.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow, rename = "type", default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "callingToolUseId", default)]
    calling_tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    message: Option<Message>,
}

/// One message of the conversation.
#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Content,
}

/// A `tool_use` block: the model calls a tool.
#[derive(Deserialize)]
struct ToolUse {
    id: String,
    name: String,
    #[serde(default)]
    input: Value,
}

/// A `tool_result` block: what the tool's run told the model (its `content` kept apart).
#[derive(Deserialize)]
struct ToolResult {
    tool_use_id: String,
    #[serde(default)]
    is_error: bool,
}

fn message(line: u64, record: Record<'_>, parent: Option<&str>, facts: &mut Facts<'_>) {
    let at = record.timestamp.as_deref().map(Timestamp::from);
    let Some(Message {
        content: Content(blocks),
    }) = record.message
    else {
        return;
    };
    for Block { fields, content } in blocks {
        match fields.get("type").and_then(Value::as_str) {
            Some("tool_use") => match serde_json::from_value::<ToolUse>(Value::Object(fields)) {
                Ok(call) => {
                    let mut sighting =
                        sighting(call.id, call.name, call.input, "tool_use", at.clone());
                    if let Some(parent) = parent {
                        sighting
                            .metadata
                            .insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
                    }
                    facts.sighted(line, sighting);
                }
                Err(error) => facts.diagnostic(json::malformed(line, "a tool_use block", &error)),
            },
            Some("tool_result") => {
                match serde_json::from_value::<ToolResult>(Value::Object(fields)) {
                    Ok(result) => {
                        let content = content.unwrap_or(Payload::NULL);
                        tool_result(line, result, content, at.clone(), facts);
                    }
                    Err(error) => {
                        facts.diagnostic(json::malformed(line, "a tool_result block", &error));
                    }
                }
            }
            // Text, thinking and images are not about tools.
            _ => {}
        }
    }
}

/// A result ends its call: completed, or failed with the error its text says.
fn tool_result(
    line: u64,
    result: ToolResult,
    content: Payload,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    let id = result.tool_use_id.as_str();
    let ending = Ending::at(at);
    if !result.is_error {
        return facts.complete(line, id, Some(content), ending);
    }
    let text = result_text(&content);
    let is_mcp = facts.kind(id) == Some(ToolKind::Mcp)
        || facts.name(id).is_some_and(|name| split_mcp(name).is_some());
    facts.fail(line, id, outcome::error(&text, is_mcp), ending);
}

/// The text of a result's content: a string, or its text blocks joined.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}
