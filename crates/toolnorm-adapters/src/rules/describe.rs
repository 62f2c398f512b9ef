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
    rules.kind(&reference).unwrap_or_else(|| unruled_kind(tool))
}

/// The kind of a call no rule names one for.
fn unruled_kind(tool: Tool<'_>) -> ToolKind {
    if tool.server.is_some() {
        ToolKind::Mcp
    } else {
        ToolKind::Unknown
    }
}

/// [`kind`] and [`title`] of a call, its rules matched once.
pub fn kind_and_title(
    rules: &TitleRules,
    tool: Tool<'_>,
    input: &Value,
    cwd: Option<&str>,
    provided: Option<&str>,
) -> (ToolKind, String) {
    let (kind, title) = rules.kind_and_title(&reference(tool, input, cwd));
    (
        kind.unwrap_or_else(|| unruled_kind(tool)),
        title.unwrap_or_else(|| unruled_title(tool, provided)),
    )
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
        .unwrap_or_else(|| unruled_title(tool, provided))
}

/// The title of a call no rule's template titles: the provider's own, when it gave one;
/// otherwise the tool name as action text; otherwise the name itself.
fn unruled_title(tool: Tool<'_>, provided: Option<&str>) -> String {
    provided
        .filter(|title| !title.trim().is_empty())
        .map(str::to_owned)
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
