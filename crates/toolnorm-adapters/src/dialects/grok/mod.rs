//! Grok CLI (`@vibe-kit/grok-cli`): its headless output, `grok -p …`; and the chat
//! history files of Grok's `grok` CLI (`session`, the `grok-session` dialect).
//!
//! Headless mode runs the prompt to its end, then prints the run's messages in the
//! OpenAI Chat Completions form, one JSON object a line (`index.js` builds them from its
//! chat entries): the prompt, each assistant message with the calls it makes, each
//! call's result, and the answer. Nothing is printed while the run goes on, and the CLI
//! keeps no chat history on disk (0.0.34): these lines are all it writes.
//!
//! | message | canonical events |
//! | --- | --- |
//! | `{"role":"assistant","content","tool_calls":[{"id","type":"function","function":{"name","arguments"}}]}` | `toolCallStarted` for each call |
//! | `{"role":"tool","tool_call_id","content"}` | `toolCallCompleted`, or `toolCallFailed` when the text is one of the tool's error forms (`outcome`) |
//! | `{"role":"user"}`, `{"role":"assistant"}` without calls | (known, nothing about tools; an answer `Error: …` is a run that failed) |
//!
//! A result carries no error flag: a failure is told by the error forms of Grok CLI's
//! tools (`Command failed: …`, `File or directory not found: …`, `Unknown tool: …`),
//! and an MCP tool's own error (`isError`) cannot be told from an output. MCP tools are
//! named `mcp__<server>__<tool>`, split into `metadata.mcp`. Grok CLI's types are
//! TypeScript declarations (the OpenAI SDK's `ChatCompletionMessageParam`): the reader
//! reads the fields a call needs with serde structs of its own (`wire`).

use crate::Dialect;
use crate::dialects::Entry;
use crate::read::line_keys::LineKeys;

mod headless;
mod outcome;
pub(crate) mod session;
#[cfg(test)]
mod tests;
mod wire;

use headless::GrokHeadlessAdapter;

/// The dialect: Grok CLI's `grok -p` output.
pub(crate) const DIALECT: Dialect = Dialect::new("grok", "grok");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = ("src/dialects/grok/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Grok CLI `grok -p` messages.
    pub const GROK: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Grok CLI `grok -p` messages",
    feature: "grok",
    rules: RULES,
    claims,
    adapter: |_| Box::new(GrokHeadlessAdapter),
    read_ahead: None,
    recordings: &["grok"],
    agent_version: "",
    stores: &[],
};

/// The keys an OpenAI-style message of another agent carries beside those Grok CLI
/// prints (a type or id of its own, a name, reasoning, a timestamp, a wrapper).
const FOREIGN: &[&str] = &[
    "type",
    "id",
    "name",
    "message",
    "timestamp",
    "reasoning_content",
    "refusal",
    "function_call",
    "tool_call_id",
];

/// Whether a line is one of Grok CLI's headless messages, by what `index.js` prints for
/// an assistant message that makes calls and no other agent writes so: `role`
/// `assistant`, `content` a string (never a list of parts), and `tool_calls` whose items
/// are written `{"id", "type", "function"}`, in that order, with no other key on the
/// line. Prompts, answers and results (`role` `tool`) are plain Chat Completions
/// messages that other agents print too: they are read, not claimed.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.str("role").as_deref() != Some("assistant") || FOREIGN.iter().any(|key| keys.has(key)) {
        return false;
    }
    let content_is_text = keys.raw("content").is_some_and(|raw| raw.starts_with('"'));
    let calls_as_grok_writes_them = keys.raw("tool_calls").is_some_and(|raw| {
        raw.starts_with(r#"[{"id":"#) && raw.contains(r#","type":"function","function":{"name":"#)
    });
    content_is_text && calls_as_grok_writes_them
}
