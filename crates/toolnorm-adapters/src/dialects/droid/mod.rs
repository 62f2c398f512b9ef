//! Factory Droid (`@factory/cli`, the `droid` binary): the events of `droid exec
//! --output-format stream-json`, and the session files it writes under
//! `~/.factory/sessions/<cwd>/<session>.jsonl` (`session`), and its JSON-RPC protocol,
//! `--output-format stream-jsonrpc` (`rpc`).
//!
//! | stream-json line | canonical events | module |
//! | --- | --- | --- |
//! | `system` `init` | (remembers `cwd`, begins the session) | `stream` |
//! | `tool_call` (`id`, `toolName`, `parameters`) | `toolCallStarted` | `stream` |
//! | `tool_result` with `isError: false` and its `value` | `toolCallCompleted` | `stream` |
//! | `tool_result` with `isError: true` and its `error.message` | `toolCallFailed` | `stream`, `outcome` |
//! | `message`, `completion`, `error` | (known, nothing about tools) | `stream` |
//!
//! Droid names an MCP tool `<server>___<tool>` (three underscores): such a call carries
//! `metadata.mcp`. Errors: a command that exited with a non-zero status (`Command
//! failed (exit code: N)`) fails with code `exit_code` and `details.exitCode`; a call
//! the exec session's autonomy level refuses (`insufficient permission to proceed`, `Tool
//! X is not permitted in this exec session`) with `permission_denied`; a call of an
//! unknown tool or with missing parameters with `invalid_tool_use`; a failed MCP call
//! with `mcp_error` (`outcome` has the table). A `Task` call (a subagent) launched in the
//! background completes when the CLI answers that it started; its own calls are in its
//! own session file.
//!
//! Droid publishes no types for these lines: they are read with serde structs of the
//! fields a call needs, written from what the CLI writes (`fixtures/droid/`). A line of
//! a type neither read nor known is a notice; one that names a `toolName` and an `id` is
//! still read as a call.

use crate::Dialect;
use crate::dialects::Entry;
use crate::read::line_keys::LineKeys;

mod outcome;
pub(crate) mod rpc;
pub(crate) mod session;
mod session_content;
mod stream;

pub use stream::DroidAdapter;

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("droid", "droid");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) =
    ("src/dialects/droid/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Factory Droid `droid exec --output-format stream-json`.
    pub const DROID: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Factory Droid `droid exec` stream-json",
    feature: "droid",
    rules: RULES,
    claims,
    adapter: |_| Box::new(DroidAdapter),
    read_ahead: None,
    recordings: &["droid"],
    agent_version: "",
    stores: &[],
};

/// Whether a line is a `droid exec` stream-json event, by the keys only Droid writes:
/// its `init` names the `reasoning_effort`, a `message` its `text` and `session_id`, a
/// `tool_call` its `toolName`/`toolId` (camelCase, no `call_id`), a `tool_result` its
/// `toolId` or `isError`, a `completion` its `finalText` or `numTurns`, an `error` its
/// `source` and `session_id`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("method") || keys.has("jsonrpc") || keys.has("message") {
        return false;
    }
    match keys.kind().as_deref() {
        Some("system") => {
            keys.str("subtype").as_deref() == Some("init")
                && keys.has("reasoning_effort")
                && keys.has("session_id")
        }
        Some("message") => keys.has("text") && keys.has("role") && keys.has("session_id"),
        Some("tool_call") => {
            (keys.has("toolName") || keys.has("toolId"))
                && !keys.has("call_id")
                && !keys.has("subtype")
        }
        Some("tool_result") => keys.has("toolId") || keys.has("isError"),
        Some("completion") => keys.has("finalText") || keys.has("numTurns"),
        Some("error") => keys.has("source") && keys.has("session_id"),
        _ => false,
    }
}

/// The MCP server and tool of a tool name Droid gives an MCP tool, `<server>___<tool>`.
pub(crate) fn split_mcp(name: &str) -> Option<(String, String)> {
    let (server, tool) = name.split_once("___")?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::split_mcp;

    #[test]
    fn mcp_tools_are_named_with_three_underscores() {
        assert_eq!(
            split_mcp("toolbox___echo"),
            Some(("toolbox".to_owned(), "echo".to_owned()))
        );
        assert_eq!(split_mcp("Execute"), None);
        assert_eq!(split_mcp("___echo"), None);
        assert_eq!(split_mcp("toolbox___"), None);
    }
}
