//! Qwen Code (`@qwen-code/qwen-code`): its `--output-format stream-json`, and the
//! session files it writes (`session`).
//!
//! Qwen Code writes Claude Code's stream shape (`system`/`assistant`/`user`/`result`
//! lines, `tool_use` and `tool_result` blocks, `stream_event` with
//! `--include-partial-messages`), so its stream is read by Claude Code's reader; what
//! differs is its tools (`read_file`, `edit`, `run_shell_command`, …), titled by
//! `rules.toml`. A stream is known for Qwen Code's by its `init` line, which
//! names `qwen_code_version`; a stream joined after that line reads as Claude Code's.

use crate::Dialect;
use crate::dialects::Entry;
use crate::dialects::claude_code::ClaudeCodeAdapter;
use crate::read::line_keys::LineKeys;

pub(crate) mod session;

/// The dialect: Qwen Code's stream-json, with its own provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("qwen-code", "qwen-code");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = (
    "src/dialects/qwen_code/rules.toml",
    include_str!("rules.toml"),
);

impl Dialect {
    /// Qwen Code `--output-format stream-json` (Claude Code's shape, Qwen Code's tools).
    pub const QWEN_CODE: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Qwen Code stream-json",
    feature: "qwen-code",
    rules: RULES,
    claims,
    adapter: |_| Box::new(ClaudeCodeAdapter::for_dialect(DIALECT)),
    read_ahead: Some(crate::dialects::claude_code::READ_AHEAD),
    recordings: &["qwen-code"],
    agent_version: "`qwen_code_version` of `system` `init`",
    stores: &[],
};

/// Whether a line is Qwen Code's own: its `system` `init` line.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.has("method") && keys.kind().as_deref() == Some("system") && keys.has("qwen_code_version")
}
