//! Kimi Code CLI (PyPI `kimi-cli`): its conversation messages, as `kimi --print
//! --output-format stream-json` prints them and a session's `context.jsonl` keeps them
//! (`kimi`, one dialect: the lines are the same `kosong` messages), and its wire messages,
//! as a session's `wire.jsonl` keeps them and `kimi --wire` sends them (`kimi-wire`,
//! `wire_log`).
//!
//! A message is OpenAI Chat Completions' shape: an assistant's `tool_calls`
//! (`{type: "function", id, function: {name, arguments}}`, the arguments a JSON text) and
//! a `tool` message per result (`tool_call_id`, `content`):
//!
//! | line | canonical events |
//! | --- | --- |
//! | `role: "assistant"` with `tool_calls` | `toolCallStarted` per call |
//! | `role: "tool"` (`tool_call_id`, `content`: `<system>…</system>`, then the output) | `toolCallCompleted`, or `toolCallFailed` when the `<system>` part says `ERROR: …` |
//! | `role: "user"`, `"system"`, an assistant's text | (known, nothing about tools) |
//! | `role: "_system_prompt"`, `"_checkpoint"`, `"_usage"` (context file) | (known, the context's own records) |
//! | a `Notification` or `PlanDisplay` the stream prints (no `role`) | (known, nothing about tools) |
//!
//! A `Shell` call that fails says `Command failed with exit code: N.` (`exit_code`); a call
//! the user refused says `The tool call is rejected by the user…`, and one a
//! `PreToolUse` hook blocked `Blocked by PreToolUse hook` or the hook's reason
//! (`permission_denied`, when the hook gave none); an MCP tool's error `Tool returned an error…` (`mcp_error`); an
//! unknown tool or arguments that do not parse or validate are `invalid_tool_use`. A
//! subagent's context file (`subagents/<agent>/context.jsonl`) holds its calls with no
//! link to the parent's call: the wire log's `SubagentEvent` has it.
//!
//! Kimi publishes its types as pydantic models only (`kosong.message.Message`,
//! `kimi_cli.wire.types`); no schema of them is pinned. The readers read the fields a call
//! needs with hand-written serde structs (`wire`), named as those models.

use crate::Dialect;
use crate::dialects::Entry;
use crate::read::line_keys::LineKeys;

mod messages;
mod outcome;
// The tests read every dialect's recordings: they run with all of them.
#[cfg(all(test, feature = "all-dialects"))]
mod tests;
mod wire;
pub(crate) mod wire_log;
mod wire_payload;

use messages::KimiAdapter;

/// The dialect: Kimi's conversation messages (stream-json and `context.jsonl`).
pub(crate) const DIALECT: Dialect = Dialect::new("kimi", "kimi");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = ("src/dialects/kimi/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Kimi `--print --output-format stream-json` messages and `context.jsonl` files.
    pub const KIMI: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Kimi Code CLI `--print --output-format stream-json` messages or `context.jsonl`",
    feature: "kimi",
    rules: RULES,
    claims,
    adapter: |_| Box::new(KimiAdapter),
    // The stream-json output (`fixtures/kimi/`) and the context files
    // (`fixtures/kimi-context/`) of the `--print` runs.
    read_ahead: None,
    recordings: &["kimi"],
    agent_version: "",
    // A session's calls are read from its wire log (`kimi-wire`), which says more of
    // them (times, approvals, subagents): the context file beside it is not listed again.
    stores: &[],
};

/// Whether a line is a Kimi message: one of the context file's own records (`role`
/// `_checkpoint`, `_usage`, `_system_prompt`), an assistant message whose `tool_calls`
/// Kimi wrote (each `{"type": "function", "id", …}`, `type` first), or a `tool` message
/// whose content begins with Kimi's `<system>` note, with none of the envelope keys other
/// dialects wrap their messages in (`type`, `id`, `timestamp`, `message`, `method`,
/// `payload`; a checkpoint has its `id`). Other agents print OpenAI messages too (Grok
/// CLI's headless output: its calls `{"id", "type", …}`, its results plain text): a plain
/// message is not claimed, and is read once a claimed line decided.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    let role = keys.str("role");
    let wrapped = |allowed: &str| {
        ["type", "id", "timestamp", "message", "method", "payload"]
            .iter()
            .any(|key| *key != allowed && keys.has(key))
    };
    let begins = |key: &str, prefixes: &[&str]| {
        keys.raw(key)
            .is_some_and(|raw| prefixes.iter().any(|prefix| begins_with(raw, prefix)))
    };
    match role.as_deref() {
        // `{"role": "_checkpoint", "id": 0}`: its id is the checkpoint's number.
        Some("_checkpoint") => keys.has("id") && !wrapped("id"),
        Some("_usage") => keys.has("token_count") && !wrapped(""),
        Some("_system_prompt") => keys.has("content") && !wrapped(""),
        Some("assistant") => keys.has("content") && !wrapped("") && begins("tool_calls", &[CALLS]),
        Some("tool") => {
            keys.has("tool_call_id") && !wrapped("") && begins("content", &SYSTEM_NOTES)
        }
        _ => false,
    }
}

/// How Kimi's `tool_calls` begin (whitespace aside).
const CALLS: &str = r#"[{"type":"function","id":"#;

/// How the content of Kimi's `tool` messages begins (whitespace aside): its note, as a
/// string or as the first text part.
const SYSTEM_NOTES: [&str; 2] = [r#""<system>"#, r#"[{"type":"text","text":"<system>"#];

/// Whether raw JSON text begins with `prefix`, whitespace aside.
fn begins_with(raw: &str, prefix: &str) -> bool {
    let mut text = raw.chars().filter(|c| !c.is_whitespace());
    prefix.chars().all(|expected| text.next() == Some(expected))
}
