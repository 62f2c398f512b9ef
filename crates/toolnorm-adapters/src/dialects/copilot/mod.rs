//! GitHub Copilot CLI (`@github/copilot`): the session events it prints with
//! `copilot -p … --output-format json`, and the session event log it writes,
//! `~/.copilot/session-state/<session>/events.jsonl`.
//!
//! Both are JSON lines of the same session events (`@github/copilot-sdk`'s
//! `SessionEvent`: `type`, `id`, `timestamp`, `parentId` naming the event before, `data`,
//! and `agentId` on a subagent's events). The printed stream holds the events marked
//! `ephemeral` too (message and tool-call deltas, partial results, shell output) and ends
//! with a `result` line (`sessionId`, `exitCode`, `usage`); the log holds the others, and
//! `session.start` first. One reader reads both, so a run reads the same from its stream
//! and from its log.
//!
//! | event | canonical events |
//! | --- | --- |
//! | `assistant.tool_call_delta` (stream) | a built-in tool's `toolCallStarted`, then `inputUpdated` as the arguments stream in (another tool's call opens at its `assistant.message`, which names its MCP server, or at the end of a stream that stops before it) |
//! | `assistant.message` with `toolRequests` | `toolCallStarted` (or `inputUpdated`) with the whole arguments |
//! | `tool.execution_start` | `toolCallStarted` (or `inputUpdated`), `toolCallRunning` |
//! | `tool.execution_partial_result` (stream) | `outputAppended`: what `partialOutput`, the output so far, adds |
//! | `tool.execution_complete`, `success: true` | `toolCallCompleted` with `result.content`; `toolCallFailed` (`exit_code`) when `shellExecution.exitCode` is not 0 |
//! | `tool.execution_complete`, `success: false` | `toolCallFailed` with `error.message`; `error.code` `denied` is `permission_denied`, `rejected` `user_rejected`, a failed MCP call `mcp_error` |
//! | `abort` | `toolCallFailed` (`interrupted`) of every call still open |
//! | `subagent.started` | `metadataMerged` (`agentId`) on its `task` call |
//! | `session.start`, `session.resume` | the session (`metadata.sessionId`) and its working directory |
//! | `result` (stream) | the end of a run: the events after it are another run's, numbered as a session of their own (streams concatenated reuse call ids) |
//! | every other event (`user.message`, `assistant.turn_start`, `session.*`, `model.*`, `permission.*`, `subagent.*`, …) | (known, nothing about tools) |
//!
//! A subagent's calls carry `parentToolCallId` in their `data`: it becomes
//! `metadata.parentToolCallId`. MCP calls name their server and tool in `mcpServerName`
//! and `mcpToolName`: `metadata.mcp`. An event of a type this reader does not know is a
//! notice; one that names a call (`toolCallId` and `toolName`) still opens it.
//!
//! The reader uses serde structs of the fields it needs, named as in
//! `@github/copilot-sdk`'s session event declarations. Those declarations are pinned and
//! generated (`toolnorm_wire::copilot_events`, the tool events of `SessionEvent`), and
//! the codegen's `wire_samples` parses every tool event of every recording into them
//! whole: the drift guard between what the CLI sends and what the SDK declares.

use crate::Dialect;
use crate::adapter::Adapter;
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

mod apply;
mod events;
mod known;

use events::Event;

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("copilot", "copilot");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = (
    "src/dialects/copilot/rules.toml",
    include_str!("rules.toml"),
);

impl Dialect {
    /// GitHub Copilot CLI `--output-format json`, and its session event logs.
    pub const COPILOT: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "GitHub Copilot CLI JSON output or session events (`~/.copilot/session-state/*/events.jsonl`)",
    feature: "copilot",
    rules: RULES,
    claims,
    adapter: |_| Box::new(CopilotAdapter::default()),
    read_ahead: None,
    recordings: &["copilot"],
    agent_version: "",
    stores: &[crate::Store::at(".copilot", "session-state/*/events.jsonl")],
};

/// Whether a line is a Copilot CLI session event: a `type`, `id`, `timestamp`, `data` and
/// the `parentId` that chains the events; or the `result` line that ends the printed
/// stream (`sessionId`, `exitCode`, `usage`).
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("method") || keys.has("payload") || !keys.has("timestamp") {
        return false;
    }
    match keys.kind().as_deref() {
        Some("result") => keys.has("sessionId") && keys.has("exitCode") && keys.has("usage"),
        Some(_) => keys.has("id") && keys.has("parentId") && keys.has("data"),
        None => false,
    }
}

/// Reads Copilot CLI session events.
#[derive(Debug, Default)]
pub struct CopilotAdapter {
    /// The tool and the arguments streamed so far of each call whose
    /// `assistant.tool_call_delta`s are being read.
    streamed_input: foldhash::HashMap<String, Pending>,
    /// The calls opened and not yet ended, in the order they opened (ended by an `abort`).
    open_calls: Vec<String>,
    /// Whether the last event was a stream's `result`: an event after it is the next
    /// run's (streams concatenated), whose calls may reuse the ids of this one's.
    after_result: bool,
}

/// A call whose arguments are being streamed.
#[derive(Debug)]
struct Pending {
    /// The tool.
    name: String,
    /// The arguments' JSON text so far.
    text: String,
    /// The line of its first piece, and when that was.
    line: u64,
    at: Option<toolnorm::Timestamp>,
}

impl CopilotAdapter {
    /// Remembers that call `id` is open.
    fn open(&mut self, id: &str) {
        if !self.open_calls.iter().any(|open| open == id) {
            self.open_calls.push(id.to_owned());
        }
    }
}

impl Adapter for CopilotAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let event: Event = match json::parse_line(line, bytes, "not a Copilot CLI session event") {
            Ok(event) => event,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        apply::event(self, line, event, facts);
    }

    fn finish(&mut self, facts: &mut Facts<'_>) {
        apply::streamed_only(self, facts);
    }
}
