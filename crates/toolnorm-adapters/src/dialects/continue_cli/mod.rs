//! Continue's CLI (`@continuedev/cli`, the `cn` command): the sessions it saves,
//! `~/.continue/sessions/<session>.json` (the `continue-session` dialect).
//!
//! `cn -p` prints the final answer only, as text or, with `--format json` (the only
//! format it takes), as one `{"response", "status"}` object: no tool event. What it
//! saves of a session is one indented JSON document, `{sessionId, title,
//! workspaceDirectory, history, usage}` (1.5.11 writes no `usage`), which `cn -p` saves
//! when its run ends, read whole (the pipeline joins an indented document into one
//! line). Its `history` holds `ChatHistoryItem`s, `{message, contextItems,
//! toolCallStates?}`: an assistant message lists the calls it makes (`toolCalls`, the
//! Chat Completions shape), and its `toolCallStates` say where each stands and what it
//! gave:
//!
//! | `toolCallStates[].status` | canonical events |
//! | --- | --- |
//! | (the message's `toolCalls`) | `toolCallStarted` for each call, its input the `arguments` read |
//! | `generating`, `generated` | (the call stays open: its arguments stream, or it waits to run) |
//! | `calling` | `toolCallRunning` |
//! | `done` | `toolCallCompleted`, the `output` items' text as its output |
//! | `errored` | `toolCallFailed`: `Tool <name> not found` is `invalid_tool_use`, `Bash`'s `Error (exit code N): <stderr>` an `exit_code` error (`outcome`) |
//! | `canceled` | `toolCallFailed`: `Permission denied by user` is `user_rejected`, `Command blocked by security policy` `permission_denied`, anything else `interrupted` |
//! | `user`, `system`, `thinking` messages | (known, nothing about tools) |
//!
//! A `tool` message (the model's view of a result, which the CLI does not save but an
//! older history may hold) completes a call its state left open. An MCP server's tool is
//! named by its own name (`echo`): the CLI's sessions do not say which tools are MCP
//! tools; the IDE extension's keep the tool in the state (`tool.uri`
//! `mcp://<server>/<tool>`), which is read into `metadata.mcp`. The sessions index,
//! `sessions.json` beside them (an array of `{sessionId, title, dateCreated,
//! workspaceDirectory}`), holds no call: no dialect claims it. Continue's types are
//! TypeScript declarations: the reader reads the fields a call needs with serde structs
//! of its own (`wire`).

use crate::Dialect;
use crate::dialects::Entry;
use crate::read::line_keys::LineKeys;

mod outcome;
mod session;
// The tests read every dialect's recordings: they run with all of them.
#[cfg(all(test, feature = "all-dialects"))]
mod tests;
mod wire;

use session::ContinueSessionAdapter;

/// The dialect: Continue's saved sessions.
pub(crate) const DIALECT: Dialect = Dialect::new("continue-session", "continue");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = (
    "src/dialects/continue_cli/rules.toml",
    include_str!("rules.toml"),
);

impl Dialect {
    /// Continue CLI saved sessions (`~/.continue/sessions/<session>.json`).
    pub const CONTINUE_SESSION: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Continue CLI saved session (`~/.continue/sessions/<session>.json`)",
    feature: "continue-cli",
    rules: RULES,
    claims,
    adapter: |_| Box::new(ContinueSessionAdapter),
    // The sessions the `cn -p` runs saved (`fixtures/continue-session/`).
    read_ahead: None,
    recordings: &["continue-session"],
    agent_version: "",
    // The session files are named by their UUID; `sessions.json`, the index beside
    // them, is not one (the glob's `-` leaves it out).
    stores: &[crate::Store::at(".continue", "sessions/*-*.json").or_env("CONTINUE_GLOBAL_DIR")],
};

/// Whether a line is a saved session, by the keys Continue's `Session` has together and
/// no other agent's document does: `sessionId`, `workspaceDirectory` and `history`, with
/// no `type`, `role` or `message` beside them.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.has("type")
        && !keys.has("role")
        && !keys.has("message")
        && keys.has("sessionId")
        && keys.has("workspaceDirectory")
        && keys.raw("history").is_some_and(|raw| raw.starts_with('['))
}
