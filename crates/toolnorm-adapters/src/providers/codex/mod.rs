//! Codex: the app-server v2 protocol (`codex app-server`, JSON-RPC lines) and
//! `codex exec --json` (`item.started|updated|completed`).
//!
//! Both dialects describe tool calls as thread items that start and complete with their
//! whole state. Each item becomes [`ItemFacts`] (what the item says, whatever the
//! dialect); the adapters turn facts into canonical events.
//!
//! | item | name | input | output / error |
//! | --- | --- | --- | --- |
//! | commandExecution | `commandExecution` | `command`, `cwd` | `aggregatedOutput`; non-zero exit → `exit_code`; declined → `permission_denied` |
//! | fileChange | `fileChange` | `changes` (path, kind) | `changes` with diffs; declined → `permission_denied` |
//! | mcpToolCall | the MCP tool | `arguments` | `result`; `error.message` |
//! | dynamicToolCall | the tool | `arguments` | `contentItems`; `success: false` |
//! | webSearch | `webSearch` | `query`, `action` | `results` |
//! | collabAgentToolCall | the collab tool (`spawnAgent`, `wait`, …) | `prompt`, receivers | `agentsStates` |
//! | subAgentActivity `started` | `subAgentActivity` | agent path and thread | finished by the activity `completed` of the same agent thread |
//!
//! Calls made inside a subagent thread carry `metadata.parentToolCallId`: the call that
//! started that thread. Approval requests and their resolution go to `metadata.approval`.

mod app_server;
mod exec;
mod items;

pub(crate) use app_server::CodexAppServerAdapter;
pub(crate) use exec::CodexExecAdapter;

use crate::read::probe::Probe;

/// Whether a line is the Codex app-server's: JSON-RPC without `"jsonrpc"`, whose method
/// is a `noun/verb` path other than ACP's `session/…`.
pub(crate) fn claims_app_server(probe: &Probe<'_>) -> bool {
    probe.jsonrpc.as_deref() != Some("2.0")
        && probe
            .method
            .as_deref()
            .is_some_and(|method| method.contains('/') && !method.starts_with("session/"))
}

/// Whether a line is `codex exec --json`'s: a `thread.*`, `turn.*` or `item.*` event.
pub(crate) fn claims_exec(probe: &Probe<'_>) -> bool {
    probe.method.is_none()
        && probe.payload.is_none()
        && probe.properties.is_none()
        && probe.kind().is_some_and(|kind| {
            ["thread.", "turn.", "item."]
                .iter()
                .any(|prefix| kind.starts_with(prefix))
        })
}
