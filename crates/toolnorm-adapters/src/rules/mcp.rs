//! MCP tool names: telling the server and the tool apart in each provider's naming form.

/// A tool name split into its MCP server and bare tool name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpName<'a> {
    /// The MCP server.
    pub server: &'a str,
    /// The tool, without the server.
    pub tool: &'a str,
}

/// Claude Code's form, `mcp__<server>__<tool>`, and the Codex namespace form
/// `mcp__<server>` (with the tool given apart).
pub fn split_double_underscore(name: &str) -> Option<McpName<'_>> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some(McpName { server, tool })
}

/// Cline 3.x's form, `<server>__<tool>` (its own tools have no double underscore).
pub fn split_server_tool(name: &str) -> Option<McpName<'_>> {
    if let Some(split) = split_double_underscore(name) {
        return Some(split);
    }
    let (server, tool) = name.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some(McpName { server, tool })
}

/// OpenCode's form, `<server>_<tool>`, given the configured server names. The longest
/// matching server wins, so `a_b_tool` with servers `a` and `a_b` is server `a_b`.
pub fn split_server_prefix<'a>(name: &'a str, servers: &[String]) -> Option<McpName<'a>> {
    servers
        .iter()
        .filter_map(|server| {
            let tool = name.strip_prefix(server.as_str())?.strip_prefix('_')?;
            (!tool.is_empty()).then_some(McpName {
                server: &name[..server.len()],
                tool,
            })
        })
        .max_by_key(|split| split.server.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_tool_form() {
        assert_eq!(
            split_server_tool("toolbox__echo"),
            Some(McpName {
                server: "toolbox",
                tool: "echo"
            })
        );
        assert_eq!(
            split_server_tool("mcp__toolbox__echo"),
            Some(McpName {
                server: "toolbox",
                tool: "echo"
            })
        );
        assert_eq!(split_server_tool("run_commands"), None);
        assert_eq!(split_server_tool("__echo"), None);
        assert_eq!(split_server_tool("toolbox__"), None);
    }

    #[test]
    fn claude_form() {
        assert_eq!(
            split_double_underscore("mcp__amalgm__artifacts_register"),
            Some(McpName {
                server: "amalgm",
                tool: "artifacts_register"
            })
        );
        assert_eq!(split_double_underscore("mcp__x"), None);
        assert_eq!(split_double_underscore("Bash"), None);
        assert_eq!(split_double_underscore("mcp____t"), None);
    }

    #[test]
    fn opencode_form() {
        let servers = vec!["amalgm".to_owned(), "a".to_owned(), "a_b".to_owned()];
        assert_eq!(
            split_server_prefix("amalgm_browser_tabs_new", &servers),
            Some(McpName {
                server: "amalgm",
                tool: "browser_tabs_new"
            })
        );
        assert_eq!(
            split_server_prefix("a_b_tool", &servers).map(|n| n.server),
            Some("a_b")
        );
        assert_eq!(split_server_prefix("bash", &servers), None);
        assert_eq!(split_server_prefix("amalgm_", &servers), None);
    }
}
