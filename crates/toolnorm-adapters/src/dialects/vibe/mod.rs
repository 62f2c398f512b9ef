//! Mistral Vibe (PyPI `mistral-vibe`, the `vibe` CLI): the session entries `vibe -p
//! --output streaming` prints (`vibe`), and its session journal files (`vibe-journal`,
//! `journal`).
//!
//! Vibe 3 runs a session in its local harness (`mistralai_vibe_local_harness`), whose
//! public history is a list of entries, each `{"type", "id", "sessionId", "turnId",
//! "inputEntryId", "relatedEntryId", "createdAt", "updatedAt", "generationStatus", …}`;
//! streaming output prints each once it is settled, one a line (a call once it ended). A
//! tool call is an `effect` entry, `id` `effect-<action id>`, as Vibe's client shows it
//! (`detail.kind` `shell`, `file_read`, `file_edit`, `file_search`, `todo`, `tool`, kept
//! as `metadata.itemType`; its input with camelCase keys, `filePath`):
//!
//! | entry | canonical events |
//! | --- | --- |
//! | `effect` (`detail: {kind, toolName, input}`), `state.status` `running` | `toolCallStarted`, `toolCallRunning` |
//! | `effect`, `state.status` `completed` (`output`: what the tool gave) | `toolCallCompleted`, or `toolCallFailed` when `display.success` is false (a command that exited non-zero: the entry says what it printed, not its status) |
//! | `effect`, `state.status` `failed` (`error: {code, message, details}`) | `toolCallFailed` (`outcome`: the code made canonical) |
//! | `effect`, `state.status` `skipped` (a hook skipped it) or `cancelled` (its turn was interrupted) | `toolCallFailed` (`permission_denied`, `interrupted`) |
//! | `message`, `reasoning`, `checkpoint`, `notice` | (known, nothing about tools) |
//!
//! An entry printed again once its call ended says nothing new. Built-in tools are named
//! as the harness runs them (`file_system.bash`, `file_system.read_file`, …, and
//! `agents.spawn` for a subagent, its `detail.kind` `subagent`; a `bash` call that runs
//! `grep` is shown as the tool `grep`); a tool a group provides is `<group>.<tool>`
//! (`vibe.todo`; an MCP server's tools are the group `mcp_<server>`, split into
//! `metadata.mcp`, and reached from a `run_typescript` program, which itself has no
//! entry). A call Vibe refused before it ran (arguments its tool does not take) has no
//! entry either: only the journal holds those. The approval an effect's state records
//! (`decision`, `approvalType`, `approvalSource`) is not read.
//!
//! Vibe publishes pydantic models only: the readers read the fields a call needs with
//! hand-written serde structs (`wire`), named as those models.

use crate::Dialect;
use crate::dialects::Entry;
use crate::read::line_keys::LineKeys;

mod entries;
pub(crate) mod journal;
mod outcome;
// The tests read every dialect's recordings: they run with all of them.
#[cfg(all(test, feature = "all-dialects"))]
mod tests;
mod wire;

use entries::VibeAdapter;

/// The dialect: Vibe's streaming output.
pub(crate) const DIALECT: Dialect = Dialect::new("vibe", "vibe");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = ("src/dialects/vibe/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Mistral Vibe `-p --output streaming` session entries.
    pub const VIBE: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Mistral Vibe `vibe -p --output streaming` session entries",
    feature: "vibe",
    rules: RULES,
    claims,
    adapter: |_| Box::new(VibeAdapter),
    // The streaming output (`fixtures/vibe/`) of the `-p` runs.
    read_ahead: None,
    recordings: &["vibe"],
    agent_version: "",
    stores: &[],
};

/// Whether a line is one of Vibe's history entries: an entry type, with the keys its
/// harness writes on every entry, which no other agent writes together
/// (`generationStatus`, beside `sessionId`, `turnId`, `createdAt` and `updatedAt`; its
/// `inputEntryId` and `relatedEntryId` are often `null`, which a claim does not see).
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    keys.kind()
        .is_some_and(|kind| ENTRY_TYPES.contains(&kind.as_ref()))
        && keys.has("generationStatus")
        && keys.has("sessionId")
        && keys.has("turnId")
        && keys.has("createdAt")
        && keys.has("updatedAt")
}

/// The types of the history's entries.
const ENTRY_TYPES: &[&str] = &["message", "reasoning", "effect", "checkpoint", "notice"];
