//! Amp (`@ampcode/cli`, formerly `@sourcegraph/amp`): `amp -x … --stream-json`.
//!
//! Amp writes Claude Code's stream shape (`system` `init`, `user` and `assistant`
//! messages with `tool_use` and `tool_result` blocks, a `result` line), the shape its SDK
//! (`@sourcegraph/amp-sdk`, `StreamMessage`, pinned and generated as
//! `toolnorm_wire::amp_messages`, which every recording is checked against) types, so its
//! stream is read by Claude Code's reader; what differs is its tools (`Bash`, `Read`, `create_file`, `edit_file`, `glob`,
//! `Grep`, `todo_write`, `Task`, `oracle`, …), titled by `rules.toml`. Its `Bash` answers
//! `{"output":…,"exitCode":N}` without `is_error`: a non-zero `exitCode` fails the call
//! with `exit_code`, as in Claude Code.
//!
//! A call its permission rules refused (`Tool execution rejected by user: Rejected by
//! user permissions rule N: …`) fails with `permission_denied`, one the user rejected
//! with `user_rejected`. A subagent's (`Task`) calls carry `parent_tool_use_id`, read
//! as `metadata.parentToolCallId`; MCP tools are `mcp__<server>__<tool>`.
//!
//! Every line Amp writes names its thread in `session_id`, an id `T-<uuid>`: that is
//! the evidence its `claims` reads (Claude Code's session ids are bare UUIDs, and Claude
//! Code's `claims` leaves `T-` lines alone).

use crate::Dialect;
use crate::dialects::Entry;
use crate::dialects::claude_code::ClaudeCodeAdapter;
use crate::read::line_keys::LineKeys;

/// The dialect: Amp's stream-json, with its own provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("amp", "amp");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = ("src/dialects/amp/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Amp `--stream-json` (Claude Code's shape, Amp's tools).
    pub const AMP: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Amp stream-json",
    feature: "amp",
    rules: RULES,
    claims,
    adapter: |_| Box::new(ClaudeCodeAdapter::for_dialect(DIALECT)),
    read_ahead: None,
    recordings: &["amp"],
    agent_version: "",
    stores: &[],
};

/// The line types of Amp's stream.
const LINE_TYPES: &[&str] = &["system", "user", "assistant", "result"];

/// Whether a line is Amp's own: a stream line whose `session_id` is an Amp thread id
/// (`T-…`).
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.has("method")
        && !keys.has("uuid")
        && keys
            .kind()
            .is_some_and(|kind| LINE_TYPES.contains(&kind.as_ref()))
        && keys.str("session_id").is_some_and(|id| is_thread_id(&id))
}

/// Whether `id` is an Amp thread id: `T-` and a UUID.
pub(crate) fn is_thread_id(id: &str) -> bool {
    id.strip_prefix("T-").is_some_and(|uuid| {
        uuid.len() == 36 && uuid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
    })
}
