//! Kind and title of a tool call, from the rules, with the fallbacks every adapter shares.

use serde_json::Value;
use toolnorm::ToolKind;

use crate::rules::{TitleRules, ToolRef, action_text};

/// Who a call's tool is.
#[derive(Debug, Clone, Copy)]
pub struct Tool<'a> {
    /// The provider.
    pub provider: &'a str,
    /// The tool's own name, without the MCP server.
    pub bare: &'a str,
    /// The MCP server, for MCP tools.
    pub server: Option<&'a str>,
}

/// The kind of a call: the first rule that names one; otherwise `mcp` for MCP tools and
/// `unknown` for anything else.
pub fn kind(rules: &TitleRules, tool: Tool<'_>, input: &Value) -> ToolKind {
    let reference = reference(tool, input, None);
    rules.kind(&reference).unwrap_or(if tool.server.is_some() {
        ToolKind::Mcp
    } else {
        ToolKind::Unknown
    })
}

/// The title of a call: the first rule whose template resolves; otherwise the provider's
/// own title, when it gave one; otherwise the tool name as action text
/// (`create_issue` → `Creating issue`); otherwise the name itself.
pub fn title(
    rules: &TitleRules,
    tool: Tool<'_>,
    input: &Value,
    cwd: Option<&str>,
    provided: Option<&str>,
) -> String {
    rules
        .title(&reference(tool, input, cwd))
        .or_else(|| {
            provided
                .filter(|title| !title.trim().is_empty())
                .map(str::to_owned)
        })
        .or_else(|| action_text(tool.bare))
        .unwrap_or_else(|| tool.bare.to_owned())
}

fn reference<'a>(tool: Tool<'a>, input: &'a Value, cwd: Option<&'a str>) -> ToolRef<'a> {
    ToolRef {
        provider: tool.provider,
        tool: tool.bare,
        server: tool.server,
        input,
        cwd,
    }
}
