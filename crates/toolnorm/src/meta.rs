//! The metadata keys toolnorm writes: the shared vocabulary of a part's `metadata`.
//!
//! `metadata` keeps provider detail that a UI may use without widening the part's shape
//! (contract rule 8). These are its top-level keys; a provider's adapter writes only those
//! that apply, and a key absent means the provider did not say. Values are JSON as noted.
//!
//! ```
//! use serde_json::json;
//! use toolnorm::{JsonObject, meta};
//!
//! let mut metadata = JsonObject::new();
//! metadata.insert(meta::PROVIDER.into(), json!("claude-code"));
//! metadata.insert(meta::MCP.into(), json!({ meta::MCP_SERVER: "amalgm", meta::MCP_TOOL: "browser_snapshot" }));
//! assert_eq!(serde_json::to_string(&metadata)?, r#"{"provider":"claude-code","mcp":{"server":"amalgm","tool":"browser_snapshot"}}"#);
//! # Ok::<(), serde_json::Error>(())
//! ```

// Where a call came from.

/// The provider whose stream the call came from: `"claude-code"`, `"codex"`, `"opencode"`, `"acp"`.
pub const PROVIDER: &str = "provider";
/// The provider's raw type of the item that carried the call (`"tool_use"`, `"mcpToolCall"`, `"tool"`, …).
pub const ITEM_TYPE: &str = "itemType";
/// The provider session the call belongs to (Claude Code's session, a `codex exec`
/// thread, ACP's `sessionId`), when the stream says.
pub const SESSION_ID: &str = "sessionId";
/// The provider's own call id, when it repeats one of an earlier session of the stream
/// and the part's id was made unique (`<id>~<n>`, `n` the session's number in the
/// stream).
pub const RAW_ID: &str = "rawId";
/// OpenCode: the id of the message part that carries the call.
pub const PART_ID: &str = "partId";
/// A tool served by an MCP server: an object with [`MCP_SERVER`] and [`MCP_TOOL`].
pub const MCP: &str = "mcp";
/// Field of [`MCP`]: the MCP server's name.
pub const MCP_SERVER: &str = "server";
/// Field of [`MCP`]: the tool's name on that server, without the server prefix.
pub const MCP_TOOL: &str = "tool";
/// Codex dynamic tool call: the namespace the tool was called in (`"mcp__<server>"`, …).
pub const NAMESPACE: &str = "namespace";

// Subagents and the calls made inside them.

/// The id of the call inside which this call was made (a subagent's task, an agent call).
pub const PARENT_TOOL_CALL_ID: &str = "parentToolCallId";
/// OpenCode `task`: the session the subagent runs in.
pub const CHILD_SESSION_ID: &str = "childSessionId";
/// Claude Code transcripts: the subagent a sidechain call was made in (the spawning
/// call's `metadata.task.taskId`), kept also when the spawning call is not yet known.
pub const AGENT_ID: &str = "agentId";
/// Codex subagent activity: the thread the subagent runs in.
pub const CHILD_THREAD_ID: &str = "childThreadId";
/// Codex agent call: the thread that made the call.
pub const SENDER_THREAD_ID: &str = "senderThreadId";
/// Claude Code task of a subagent call: an object (`taskId`, `description`, `status`, …).
pub const TASK: &str = "task";

// Scripts that call tools (Codex code mode).

/// Codex code mode `exec`: the tool calls its script makes, as written, each
/// `{tool, arguments}` (the arguments a literal says; a value the script computes is
/// `{"$expr": "<its source text>"}`).
pub const SCRIPT_CALLS: &str = "scriptCalls";
/// Codex code mode: the script cell an `exec` call started (when its result says), or the
/// cell a `wait` call waits for.
pub const CELL_ID: &str = "cellId";
/// Codex code mode `wait`: the id of the `exec` call that started the cell it waits for.
pub const CELL_CALL_ID: &str = "cellCallId";

// What the call did, and who allowed it.

/// Codex `webSearch`: the action object (`{"type": "search" | "openPage" | "findInPage", …}`).
pub const ACTION: &str = "action";
/// Codex MCP tool call: the last progress message the server sent.
pub const PROGRESS: &str = "progress";
/// The call's approval, for every provider that asks: the typed
/// [`Approval`](crate::Approval) (`status`, `requestedAt`, `resolvedAt`, `decidedBy`,
/// `scope`, `reason`, `options`, `risk`, `optionId`, `feedback`), set by the
/// `approvalRequested` and `approvalResolved` events.
pub const APPROVAL: &str = "approval";
/// A `question` call's questions: a list of the typed [`Question`](crate::Question)
/// (`question`, `header`, `options`, `multiSelect`, and the `answer` once given), read
/// from the call's input and, when it ends, its output.
pub const QUESTIONS: &str = "questions";
/// Codex command: what was written to its terminal while it ran, in order, each
/// `{stdin, processId}` (`stdin` empty when the terminal was only polled).
pub const TERMINAL_INPUT: &str = "terminalInput";
/// OpenCode: the files attached to a result, each `{id, mime, filename?, url?}`.
pub const ATTACHMENTS: &str = "attachments";

// Calls from an ACP agent other than toolnorm.

/// ACP: the `kind` the agent gave the call (`"execute"`, `"read"`, …).
pub const ACP_KIND: &str = "acpKind";
/// ACP: the `_meta` object the agent sent with the call, as it was.
pub const ACP_META: &str = "acpMeta";

// Streamed output.

/// A running call's partial output so far, as a string (only while `running`).
pub const PARTIAL_OUTPUT: &str = "partialOutput";
/// `true` when the output went past the cap and only its start was kept.
pub const OUTPUT_TRUNCATED: &str = "outputTruncated";
/// With [`OUTPUT_TRUNCATED`]: how many bytes of output were received in all.
pub const OUTPUT_TOTAL_BYTES: &str = "outputTotalBytes";
/// With [`OUTPUT_TRUNCATED`]: the cap in bytes.
pub const OUTPUT_CAP_BYTES: &str = "outputCapBytes";

/// The keys toolnorm writes in a failed call's `error.details` (not in `metadata`).
pub mod details {
    /// A command's non-zero exit status (with code [`ErrorCode::ExitCode`](crate::ErrorCode::ExitCode)).
    pub const EXIT_CODE: &str = "exitCode";
    /// What the command or tool wrote before it failed.
    pub const OUTPUT: &str = "output";
    /// The output streamed before a call failed with no details of its own.
    pub const PARTIAL_OUTPUT: &str = "partialOutput";
}

// Redaction.

/// How many secrets were replaced by `[REDACTED:<kind>]` in the events of the call (a
/// secret in the input and again in the title counts twice).
pub const REDACTIONS: &str = "redactions";
