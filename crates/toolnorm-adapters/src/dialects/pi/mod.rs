//! Pi (`@mariozechner/pi-coding-agent`): its headless JSON stream (`pi --mode json`),
//! and the session files it writes (`session`).
//!
//! Both begin with the session header, `{"type":"session","version":3,"id","timestamp",
//! "cwd"}`, which neither dialect claims (it is the same line in both): the lines after
//! it decide. In the stream a call is told three times over: the assistant message's
//! `toolCall` content block (`id`, `name`, `arguments`), streamed by `message_update`
//! events and whole in `message_end`; the execution events, keyed by `toolCallId`; and
//! the `toolResult` message that answers the model:
//!
//! | event | canonical events |
//! | --- | --- |
//! | `message_update` (`toolcall_start`, `toolcall_delta`, `toolcall_end`) | `toolCallStarted`, then `inputUpdated` as the arguments stream in |
//! | `message_start` / `message_end`, `role: "assistant"` | `toolCallStarted` (or its final input) |
//! | `tool_execution_start` | `toolCallRunning` |
//! | `tool_execution_update` (`partialResult`, the output so far) | `outputAppended` |
//! | `tool_execution_end` (`result`, `isError`) | `toolCallCompleted`, or `toolCallFailed` when `isError` |
//! | `message_start` / `message_end`, `role: "toolResult"` | (the result again; it ends the call only when no `tool_execution_end` did) |
//! | `agent_start`, `agent_end`, `turn_start`, `turn_end`, `queue_update`, `compaction_*`, `auto_retry_*` | (known, nothing about tools) |
//!
//! A failed `bash` call's text ends in `Command exited with code N` (`exit_code`) or
//! `Command aborted` (`interrupted`); a call an extension blocked without a reason of its
//! own says `Tool execution was blocked` (`permission_denied`); an unknown tool or
//! arguments its schema refuses are `invalid_tool_use`. Pi has no MCP client and no
//! subagents: its tools are the built-in ones of `rules.toml` and those extensions add.
//!
//! Pi publishes its types as TypeScript declarations (`AgentSessionEvent`, `FileEntry`),
//! pinned and generated as `toolnorm_wire::pi_events` and `toolnorm_wire::pi_session`,
//! which the codegen's `wire_samples` holds every recording to. The readers read the
//! fields a call needs with serde structs of their own (`wire`), named as those types.

use serde_json::Value;
use toolnorm::Timestamp;

use crate::Dialect;
use crate::dialects::Entry;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

mod call_blocks;
mod outcome;
pub(crate) mod session;
mod stream;
mod wire;

use stream::PiStreamAdapter;

/// The dialect: Pi's `--mode json` stream.
pub(crate) const DIALECT: Dialect = Dialect::new("pi", "pi");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = ("src/dialects/pi/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Pi `--mode json` events.
    pub const PI: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Pi `--mode json` events",
    feature: "pi",
    rules: RULES,
    claims,
    adapter: |_| Box::new(PiStreamAdapter),
    read_ahead: None,
    recordings: &["pi"],
    agent_version: "",
    stores: &[],
};

/// Whether a line is a Pi event, by the key each type carries: a message event's
/// message with its `role` and `timestamp`, `message_update`'s `assistantMessageEvent`,
/// an execution event's `toolCallId` and `toolName`, `turn_end`'s `toolResults`,
/// `agent_end`'s `messages`. `agent_start` and `turn_start` carry nothing but their type
/// and are read, not claimed.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("method") || keys.has("payload") || keys.has("id") || keys.has("sessionID") {
        return false;
    }
    match keys.kind().as_deref() {
        Some("message_start" | "message_end") => {
            keys.object_has("message", "role") && keys.object_has("message", "timestamp")
        }
        Some("message_update") => keys.has("assistantMessageEvent"),
        Some("tool_execution_start" | "tool_execution_update" | "tool_execution_end") => {
            keys.has("toolCallId") && keys.has("toolName")
        }
        Some("turn_end") => keys.has("toolResults"),
        Some("agent_end") => keys.has("messages"),
        Some("auto_retry_start") => keys.has("maxAttempts"),
        Some("queue_update") => keys.has("steering") && keys.has("followUp"),
        _ => false,
    }
}

/// The session header: the session (a new run of it, in a stream) and its directory.
fn header(line: &wire::Line<'_>, run: bool, facts: &mut Facts<'_>) {
    if let Some(id) = line.id.as_deref() {
        if run {
            facts.begin_session(id);
        } else {
            facts.session(id);
        }
    }
    if let Some(cwd) = line.cwd.as_deref()
        && facts.cwd() != Some(cwd)
    {
        facts.set_cwd(cwd);
    }
}

/// A record's time: an ISO string (entries) or epoch milliseconds (messages).
fn timestamp(value: Option<&Value>) -> Option<Timestamp> {
    match value? {
        Value::String(text) => Some(Timestamp::from(text.as_str())),
        Value::Number(number) => Some(Timestamp::Epoch(number.clone())),
        _ => None,
    }
}
