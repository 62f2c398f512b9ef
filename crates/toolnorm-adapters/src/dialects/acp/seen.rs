//! One sight of an ACP tool call, as a `tool_call`, a `tool_call_update` or the call of a
//! permission request carries it, and what is read from it.

use serde::Deserialize;
use serde_json::{Map, Value};
use toolnorm::meta;
use toolnorm::{JsonObject, Payload};
use toolnorm_wire::acp;

use crate::acp::{META_KEY, ToolnormMeta};

/// One sight of a call, from `tool_call`, `tool_call_update` or a permission request.
pub(super) struct Seen {
    pub id: String,
    pub session: Option<Value>,
    pub title: Option<String>,
    pub kind: Option<acp::ToolKind>,
    pub status: Option<acp::ToolCallStatus>,
    pub name: Option<String>,
    pub raw_input: Option<Value>,
    /// `rawOutput`, kept as the JSON text it came as.
    pub raw_output: Option<Payload>,
    /// The `locations`, as sent.
    pub locations: Option<Value>,
    /// The content blocks, as sent (already checked against the schema's types).
    pub content: Option<Vec<Value>>,
    pub meta: Option<Map<String, Value>>,
    /// `_meta.toolnorm`, when a toolnorm emitter wrote the frame.
    toolnorm: Option<ToolnormMeta>,
    /// Read from a `tool_call_update` (or a permission request), not a `tool_call`.
    pub update: bool,
}

/// The fields of a sight taken as sent rather than as the schema's types read them.
pub(super) struct Raw {
    /// `rawInput`, a present `null` included.
    pub raw_input: Option<Value>,
    /// `rawOutput`, a present `null` included, kept as the JSON text it came as.
    pub raw_output: Option<Payload>,
    pub locations: Option<Value>,
    /// `content`, when an array.
    pub content: Option<Vec<Value>>,
}

impl Raw {
    /// The fields of `raw`, the object the call was read from.
    pub(super) fn of(raw: &Value) -> Self {
        Raw {
            raw_input: raw.get("rawInput").cloned(),
            raw_output: raw.get("rawOutput").cloned().map(Payload::from),
            locations: raw.get("locations").cloned(),
            content: raw.get("content").and_then(Value::as_array).cloned(),
        }
    }
}

impl Seen {
    /// `raw` holds the fields as sent: `rawInput`/`rawOutput` from it, so that a present
    /// `null` stays a value.
    pub(super) fn from_call(call: acp::ToolCall, raw: Raw, session: Option<Value>) -> Self {
        Seen {
            id: call.tool_call_id.0,
            session,
            title: Some(call.title),
            kind: call.kind,
            status: call.status,
            name: call.name,
            raw_input: raw.raw_input,
            raw_output: raw.raw_output,
            locations: raw.locations,
            content: raw.content,
            toolnorm: toolnorm_meta(call.meta.as_ref()),
            meta: call.meta,
            update: false,
        }
    }

    /// A sight from a `tool_call_update` or a permission request.
    pub(super) fn from_update(
        update: acp::ToolCallUpdate,
        raw: Raw,
        session: Option<Value>,
    ) -> Self {
        Seen {
            id: update.tool_call_id.0,
            session,
            title: update.title,
            kind: update.kind,
            status: update.status,
            name: update.name,
            raw_input: raw.raw_input,
            raw_output: raw.raw_output,
            locations: raw.locations,
            content: raw.content,
            toolnorm: toolnorm_meta(update.meta.as_ref()),
            meta: update.meta,
            update: true,
        }
    }

    /// `_meta.toolnorm`, when a toolnorm emitter wrote the frame.
    pub(super) fn toolnorm(&self) -> Option<&ToolnormMeta> {
        self.toolnorm.as_ref()
    }

    /// The text blocks of the content, joined by newlines.
    pub(super) fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .content
            .iter()
            .flatten()
            .filter(|content| content.get("type").and_then(Value::as_str) == Some("content"))
            .filter_map(|content| {
                let block = content.get("content")?;
                (block.get("type")?.as_str()? == "text").then_some(block.get("text")?.as_str()?)
            })
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }

    /// Whether the content has diffs, all of new files.
    pub(super) fn only_new_files(&self) -> bool {
        let mut diffs = self
            .content
            .iter()
            .flatten()
            .filter(|content| content.get("type").and_then(Value::as_str) == Some("diff"))
            .map(|diff| diff.get("oldText").is_none_or(Value::is_null));
        diffs.next().is_some_and(|new| new && diffs.all(|new| new))
    }

    /// The tool name of a foreign call: `name`, else a `toolName` (or `tool_name`) the agent
    /// put at the top of its `_meta` (Qwen Code) or in a namespace of its own (Claude
    /// Code's ACP adapter: `_meta.claudeCode.toolName`).
    pub(super) fn foreign_name(&self) -> Option<String> {
        let named = |object: &Map<String, Value>| {
            TOOL_NAME_KEYS
                .iter()
                .find_map(|key| object.get(*key)?.as_str())
                .filter(|name| !name.trim().is_empty())
                .map(str::to_owned)
        };
        self.name.clone().or_else(|| {
            let meta = self.meta.as_ref()?;
            named(meta).or_else(|| meta.values().filter_map(Value::as_object).find_map(named))
        })
    }
}

/// The `_meta` keys under which agents name their tool.
const TOOL_NAME_KEYS: &[&str] = &["toolName", "tool_name"];

/// The `_meta` keys under which agents name the call a call was made inside (a
/// subagent's).
const PARENT_KEYS: &[&str] = &["parentToolUseId", "parentToolCallId"];

/// Metadata of a call from an agent that did not send `_meta.toolnorm`.
pub(super) fn foreign_metadata(seen: &Seen) -> JsonObject {
    let mut metadata = JsonObject::new();
    metadata.insert(meta::PROVIDER.into(), "acp".into());
    if let Some(session) = &seen.session {
        metadata.insert(meta::SESSION_ID.into(), session.clone());
    }
    if let Some(kind) = seen.kind {
        metadata.insert(meta::ACP_KIND.into(), kind.to_string().into());
    }
    if let Some(meta) = seen.meta.as_ref().filter(|meta| !meta.is_empty()) {
        metadata.insert(meta::ACP_META.into(), Value::Object(meta.clone()));
        // A call made inside a subagent: at the top of `_meta` (Qwen Code:
        // `parentToolCallId`) or in the agent's namespace (Claude Code's adapter:
        // `parentToolUseId`).
        let parent_in = |object: &Map<String, Value>| {
            PARENT_KEYS
                .iter()
                .find_map(|key| object.get(*key)?.as_str())
                .map(str::to_owned)
        };
        let parent = parent_in(meta).or_else(|| {
            meta.values()
                .filter_map(Value::as_object)
                .find_map(parent_in)
        });
        if let Some(parent) = parent {
            metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
        }
    }
    metadata
}

/// The server and tool of an MCP tool name: `mcp__server__tool`, `<server>_<tool>` with a
/// configured server, `mcp_<server>_<tool>` (Gemini CLI's form), else split at the first
/// `_`.
pub(super) fn mcp_name(name: &str, servers: &[String]) -> Option<(String, String)> {
    // A title (words with spaces) is not a tool name: it is never split.
    if name.contains(char::is_whitespace) {
        return None;
    }
    if let Some(split) = crate::rules::mcp::split_double_underscore(name)
        .or_else(|| crate::rules::mcp::split_server_prefix(name, servers))
    {
        return Some((split.server.to_owned(), split.tool.to_owned()));
    }
    let name = name
        .strip_prefix("mcp_")
        .filter(|rest| rest.contains('_'))
        .unwrap_or(name);
    if let Some(split) = crate::rules::mcp::split_server_prefix(name, servers) {
        return Some((split.server.to_owned(), split.tool.to_owned()));
    }
    let (server, tool) = name.split_once('_')?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

/// The server and tool of an MCP call whose `rawInput` names them, as Codex's ACP
/// adapter sends it (`{"server", "tool", "arguments"}`, titled `Tool: server/tool`).
pub(super) fn mcp_input(seen: &Seen) -> Option<(String, String)> {
    let input = seen.raw_input.as_ref()?.as_object()?;
    let server = input.get("server")?.as_str()?;
    let tool = input.get("tool")?.as_str()?;
    let shaped = input.contains_key("arguments")
        || seen
            .title
            .as_deref()
            .is_some_and(|title| title == format!("Tool: {server}/{tool}"));
    (shaped && !server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

/// `_meta.toolnorm` of a frame's `_meta`.
fn toolnorm_meta(meta: Option<&Map<String, Value>>) -> Option<ToolnormMeta> {
    ToolnormMeta::deserialize(meta?.get(META_KEY)?).ok()
}

/// Whether the agent's own `_meta` marks the call as an MCP tool call (for example
/// `is_mcp_tool_call: true` in some agent's namespace): that wins over the ACP kind.
pub(super) fn marked_mcp(seen: &Seen) -> bool {
    seen.meta
        .iter()
        .flat_map(|meta| meta.values())
        .any(|namespace| {
            ["is_mcp_tool_call", "isMcpToolCall", "mcp"]
                .iter()
                .any(|key| namespace.get(key).and_then(Value::as_bool) == Some(true))
        })
}
