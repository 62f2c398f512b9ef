//! Tool-use blocks (`tool_use`, `server_tool_use`, `mcp_tool_use`, and the types this
//! version does not know) as one call, and what the tracker hears of it.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::{JsonObject, meta};
use toolnorm_wire::claude_messages as wire;

use super::envelope::Envelope;
use crate::rules::mcp;
use crate::track::Sighting;

pub(super) const TOOL_USE: &str = "tool_use";
pub(super) const SERVER_TOOL_USE: &str = "server_tool_use";
pub(super) const MCP_TOOL_USE: &str = "mcp_tool_use";

/// What a tool-use block (`tool_use`, `server_tool_use`, `mcp_tool_use`) says of its
/// call, whole in a message or starting to stream.
pub(super) struct ToolUse {
    pub(super) id: String,
    pub(super) name: String,
    /// The MCP server and bare tool name, when the block names the server.
    pub(super) mcp: Option<(String, String)>,
    pub(super) input: Value,
    /// The block's type (`metadata.itemType`).
    pub(super) item_type: Cow<'static, str>,
    /// Who invoked the tool, when not the model directly (a server tool: code
    /// execution calling tools): `metadata.caller`.
    pub(super) caller: Option<Value>,
}

/// The key of a call's `metadata` that holds its block's `caller`.
const CALLER: &str = "caller";

/// A tool-use block's `caller`, when it is not the model itself (`{"type": "direct"}`).
fn indirect_caller(caller: Option<Value>) -> Option<Value> {
    caller.filter(|caller| {
        !caller.is_null() && caller.get("type").and_then(Value::as_str) != Some("direct")
    })
}

/// Content block types that carry no tool call.
pub(super) const NON_TOOL_BLOCKS: &[&str] = &[
    "text",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "container_upload",
    "compaction",
    "tool_result",
];

/// A tool-use block of a type this version does not know: what identifies a call.
#[derive(Deserialize)]
pub(super) struct OtherToolUse {
    id: String,
    name: String,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    caller: Option<Value>,
}

/// A server tool's result block of a type this version does not know.
#[derive(Deserialize)]
pub(super) struct OtherToolResult {
    pub(super) tool_use_id: String,
    #[serde(default)]
    pub(super) content: Value,
}

impl ToolUse {
    /// A tool-use block of type `item_type` that this version does not know.
    pub(super) fn other(block: OtherToolUse, item_type: &str) -> Self {
        ToolUse {
            id: block.id,
            name: block.name,
            mcp: None,
            input: block.input,
            item_type: Cow::Owned(item_type.to_owned()),
            caller: indirect_caller(block.caller),
        }
    }
}

impl From<wire::BetaToolUseBlock> for ToolUse {
    fn from(block: wire::BetaToolUseBlock) -> Self {
        ToolUse {
            id: block.id,
            name: block.name,
            mcp: None,
            input: block.input,
            item_type: Cow::Borrowed(TOOL_USE),
            caller: indirect_caller(
                block
                    .caller
                    .and_then(|caller| serde_json::to_value(caller).ok()),
            ),
        }
    }
}

impl From<wire::BetaServerToolUseBlock> for ToolUse {
    fn from(block: wire::BetaServerToolUseBlock) -> Self {
        ToolUse {
            id: block.id,
            // The API's own name for the server tool (`web_search`).
            name: block.name.to_string(),
            mcp: None,
            input: Value::Object(block.input),
            item_type: Cow::Borrowed(SERVER_TOOL_USE),
            caller: indirect_caller(
                block
                    .caller
                    .and_then(|caller| serde_json::to_value(caller).ok()),
            ),
        }
    }
}

impl From<wire::BetaMcpToolUseBlock> for ToolUse {
    fn from(block: wire::BetaMcpToolUseBlock) -> Self {
        ToolUse {
            mcp: Some((block.server_name, block.name.clone())),
            id: block.id,
            name: block.name,
            input: block.input,
            item_type: Cow::Borrowed(MCP_TOOL_USE),
            caller: None,
        }
    }
}

impl ToolUse {
    /// The call as the tracker hears of it: what the block says, and what the line's
    /// envelope says (the subagent it runs in, when it was seen). A tool named
    /// `mcp__server__tool` is that server's.
    pub(super) fn sighting(self, envelope: &Envelope<'_>) -> Sighting {
        let mcp = self.mcp.or_else(|| {
            mcp::split_double_underscore(&self.name)
                .map(|split| (split.server.to_owned(), split.tool.to_owned()))
        });
        let mut metadata = JsonObject::new();
        if let Some(parent) = envelope.parent() {
            metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
        }
        if let Some(agent) = envelope.sidechain_agent() {
            metadata.insert(meta::AGENT_ID.into(), agent.into());
        }
        metadata.insert(meta::ITEM_TYPE.into(), self.item_type.as_ref().into());
        if let Some(caller) = self.caller {
            metadata.insert(CALLER.into(), caller);
        }
        Sighting {
            mcp,
            metadata,
            at: envelope.at(),
            ..Sighting::new(self.id, self.name, self.input)
        }
    }
}
