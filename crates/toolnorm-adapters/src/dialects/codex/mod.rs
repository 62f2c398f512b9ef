//! Codex: the app-server v2 protocol (`codex app-server`, JSON-RPC lines),
//! `codex exec --json` (`item.started|updated|completed`), and the rollout files the CLI
//! writes under `$CODEX_HOME/sessions/` ([`rollout`]).
//!
//! Both dialects describe tool calls as thread items that start and complete with their
//! whole state. Each item becomes `ItemFacts` (what the item says, whatever the dialect,
//! in [`items`]); the tracker turns the facts into canonical events, with the kind and
//! title from `rules.toml`.
//!
//! | dialect | line | canonical events |
//! | --- | --- | --- |
//! | app-server | `item/started` of a tool item | `toolCallStarted`, `toolCallRunning` |
//! | app-server | `item/completed` of a tool item | `inputUpdated` (+ `titleUpdated`) when its input changed; `toolCallCompleted` or `toolCallFailed` (started and running first, if never seen) |
//! | app-server | `item/started` of a `subAgentActivity` `started` | `toolCallStarted`, `toolCallRunning`: the agent's call |
//! | app-server | `item/completed` of a `subAgentActivity` `completed` / `interrupted` | `toolCallCompleted` / `toolCallFailed` of the call that started that agent thread |
//! | app-server | `item/commandExecution/outputDelta`, `item/fileChange/outputDelta` | `outputAppended` |
//! | app-server | `item/mcpToolCall/progress` | `metadataMerged` (`progress`) |
//! | app-server | `item/commandExecution/terminalInteraction` | `metadataMerged` (`terminalInput`: each `{stdin, processId}` so far) |
//! | app-server | `item/<type>/requestApproval`, `execCommandApproval`, `applyPatchApproval` (`availableDecisions` as options) | `approvalRequested` |
//! | app-server | the client's response `{decision}`, when the stream holds it | `approvalResolved` (`decidedBy: user`, the decision's scope) |
//! | app-server | `serverRequest/resolved` | none: the decision came with the response, or the item's end settles it |
//! | app-server | `thread/started` | none: its `cwd` is the session's, for relative paths in titles; a child thread (`parentThreadId`) whose parent thread has one open spawn call is that call's |
//! | app-server | `item/completed` of a `spawnAgent` collab call | as any tool item, and `metadataMerged` (`parentToolCallId`) of the open calls already seen in the threads it names as receivers |
//! | app-server | turns, messages, reasoning, account and status methods; responses | none |
//! | exec | `item.started` of a tool item | `toolCallStarted`, `toolCallRunning` |
//! | exec | `item.updated` of a tool item | `inputUpdated` (+ `titleUpdated`) when its input changed |
//! | exec | `item.completed` of a tool item | as `item.updated`, then `toolCallCompleted` or `toolCallFailed` |
//! | exec | `thread.started`, `turn.*`, `error` | none |
//! | both | items that are no tool call (messages, reasoning, …) | none |
//! | both | any other method or event type | an `unknown-event` diagnostic |
//!
//! | item (exec spelling) | name | input | output / error |
//! | --- | --- | --- | --- |
//! | commandExecution (command_execution) | `commandExecution` | `command`, `cwd` | `aggregatedOutput`; non-zero exit → `exit_code`; declined → `permission_denied` |
//! | fileChange (file_change) | `fileChange` | `changes` (path, kind) | `changes` with diffs; declined → `permission_denied` |
//! | mcpToolCall (mcp_tool_call) | the MCP tool | `arguments` | `result`; `error.message` |
//! | dynamicToolCall | the tool | `arguments` | `contentItems`; `success: false` |
//! | webSearch (web_search) | `webSearch` | `query`, `action` | `results` |
//! | collabAgentToolCall (collab_tool_call) | the collab tool (`spawnAgent`, `wait`, …) | `prompt`, receivers | `agentsStates` |
//! | subAgentActivity `started` | `subAgentActivity` | agent path and thread | finished by the activity `completed` of the same agent thread |
//! | imageView | `imageView` | `path` | none |
//! | todo_list (exec only) | `todo_list` | `items` | none |
//!
//! Calls made inside a subagent thread carry `metadata.parentToolCallId`: the call that
//! started that thread ([`threads`]: a call of a thread that said it is a subagent's ends
//! once that call is known, or at the end of the stream). Approval requests and the
//! decisions on them are the call's approval (`metadata.approval`).
//!
//! An item of a known type that lacks a field its schema requires is read with that
//! field's empty value and a notice naming it (`read::tolerant`); one that does not read
//! even so (a missing `status`) is read by its id and type, with a notice.
//!
//! Code mode (`[features] code_mode`): the model's `exec` script and its `wait` for a
//! script cell are recorded only in rollout files; the app-server and `codex exec` show
//! the tools the script called as items of their own (ids `exec-<uuid>`), with nothing
//! naming the script, so they carry no parent.
//!
//! | rollout call | name | kind and title | metadata |
//! | --- | --- | --- | --- |
//! | `custom_tool_call` `exec` | `exec` | the first tool the script calls (`ls src (+2 more)`), else `unknown` `Running a script` | `scriptCalls` (`{tool, arguments}` as written), `cellId` once its result names the cell |
//! | `function_call` `wait` with `cell_id` | `wait` | `unknown` `Waiting for script cell N` | `cellId`, `cellCallId` (the `exec` that started the cell) |
//! | `function_call` `wait` of the collaboration tools | `wait` | `subagent` `Waiting for agents` | |
//! | `function_call` `write_stdin` | `write_stdin` | `bash` `Sending input to session N` / `Polling session N` | |
//!
//! The modules: [`items`] (what the dialects share: item facts, outcomes), [`threads`]
//! (the subagent threads), [`code_mode`] (a script's calls, read without running it, and
//! its cells), [`app_server`] (the JSON-RPC adapter: methods, approvals, deltas;
//! its thread items in `app_server::thread_items`), [`exec`] (the `codex exec --json`
//! adapter), [`rollout`] (the rollout file adapter, whose calls take the app-server's
//! names).

pub(crate) mod app_server;
mod code_mode;
pub(crate) mod exec;
mod items;
pub(crate) mod rollout;
mod threads;

use crate::read::line_keys::LineKeys;

/// The rules file of the three Codex dialects (the kind and title of each of its tools),
/// as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) =
    ("src/dialects/codex/rules.toml", include_str!("rules.toml"));

/// Whether a line is the Codex app-server's: JSON-RPC without `"jsonrpc"`, whose method
/// is a `noun/verb` path other than ACP's `session/…`.
pub(crate) fn claims_app_server(keys: &LineKeys<'_>) -> bool {
    keys.str("jsonrpc").as_deref() != Some("2.0")
        && keys
            .str("method")
            .as_deref()
            .is_some_and(|method| method.contains('/') && !method.starts_with("session/"))
}

/// Whether a line is `codex exec --json`'s: a `thread.*`, `turn.*` or `item.*` event.
pub(crate) fn claims_exec(keys: &LineKeys<'_>) -> bool {
    !keys.has("method")
        && !keys.has("payload")
        && !keys.has("properties")
        && keys.kind().as_deref().is_some_and(|kind| {
            ["thread.", "turn.", "item."]
                .iter()
                .any(|prefix| kind.starts_with(prefix))
        })
}
