//! Cline CLI 3.x (the CLI built on `@cline/sdk`): its `--json` stream (`cline-sdk`) and
//! the session files it keeps (`cline-sdk-session`).
//!
//! The 3.x CLI is another program than 2.x (read by [`cline`](super::cline)): its model
//! calls tools natively, and `cline --json` prints the SDK's events, one a line, each in
//! an envelope with its time, `{"ts", "type": "agent_event" | "hook_event" |
//! "run_result", …}`:
//!
//! | line | canonical events |
//! | --- | --- |
//! | `agent_event` `content_start`, `contentType: "tool"` (`toolCallId`, `toolName`, `input`) | `toolCallStarted` |
//! | `agent_event` `content_update`, `contentType: "tool"` (`update`: a command's output chunk) | `toolCallRunning`, `outputAppended` |
//! | `agent_event` `content_end`, `contentType: "tool"` (`output`, `error`, `durationMs`) | `toolCallCompleted`, or `toolCallFailed` with `error` |
//! | `agent_event` `error` (`error.message`), `done` (`reason` `aborted`) | the open calls of an interrupted run fail |
//! | `agent_event` text, reasoning, `usage`, `iteration_*`, `notice`; `hook_event`; `run_result` | (known, nothing about tools) |
//!
//! The session file, `~/.cline/data/sessions/<id>/<id>.messages.json`, is one JSON
//! document, `{"version", "sessionId", "agent", "origin", "messages": […]}`, whose
//! messages are the model's (`tool_use` and `tool_result` content blocks, Anthropic's
//! shape). A subagent (`spawn_agent`) runs as an agent of its own: in the stream its
//! events come in `hook_event`s' agent and `agent_event`s whose `agentId` is not the
//! lead's, nested under the `spawn_agent` call.
//!
//! `@cline/sdk` publishes its types as TypeScript declarations (`AgentEvent`,
//! `ContentStartEvent`, …); the fields a call needs are read with serde structs of
//! their own ([`wire`]), named as the declarations name them.

use crate::Dialect;
use crate::dialects::Entry;
use crate::read::line_keys::LineKeys;

mod outcome;
pub(crate) mod session;
mod stream;
mod wire;

/// The dialect: the Cline 3.x CLI's `--json` stream.
pub(crate) const DIALECT: Dialect = Dialect::new("cline-sdk", "cline");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = (
    "src/dialects/cline_sdk/rules.toml",
    include_str!("rules.toml"),
);

impl Dialect {
    /// The Cline CLI 3.x `--json` stream (`@cline/sdk` agent events, one a line).
    pub const CLINE_SDK: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Cline CLI 3.x `--json` (`@cline/sdk` agent events)",
    feature: "cline-sdk",
    rules: RULES,
    claims,
    adapter: |_| Box::new(stream::ClineSdkAdapter::default()),
    read_ahead: None,
    recordings: &["cline-sdk"],
    agent_version: "",
    stores: &[],
};

/// Whether a line is one of the stream's envelopes, by the key each carries beside its
/// `ts`: an `agent_event`'s `event`, a `hook_event`'s `hookEventName`, the
/// `run_result`'s `finishReason`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if !keys.has("ts") || keys.has("method") || keys.has("id") {
        return false;
    }
    match keys.kind().as_deref() {
        Some("agent_event") => keys.has("event"),
        Some("hook_event") => keys.has("hookEventName"),
        Some("run_result") => keys.has("finishReason"),
        _ => false,
    }
}
