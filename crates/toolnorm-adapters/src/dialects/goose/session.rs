//! Goose's session files, `~/.local/share/goose/sessions/<id>.jsonl`, as Goose wrote them
//! up to 1.9 (1.10 moved its sessions into the SQLite database `sessions.db` beside
//! them, and reads these files once to import them): the session's metadata on the
//! first line, then one `Message` a line (`save_messages_with_metadata` of
//! `crates/goose/src/session/storage.rs`). The CLI rebuilds each session of
//! `sessions.db` as these lines.
//!
//! | line | canonical events |
//! | --- | --- |
//! | `{"working_dir","description","schedule_id","message_count",…}` | (the session's working directory) |
//! | `{"id","role","created","content":[…],"metadata"}` | its content's tool items (`messages`) |

use super::messages;
use serde_json::value::RawValue;

use super::wire::{ContentItem, Item, SessionLine};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json::{self, OneScan};
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

/// The dialect: Goose's session files.
pub(crate) const DIALECT: Dialect = Dialect::new("goose-session", "goose");

impl Dialect {
    /// Goose's session files (`~/.local/share/goose/sessions/<id>.jsonl`, up to 1.9).
    pub const GOOSE_SESSION: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Goose session files (`~/.local/share/goose/sessions/<id>.jsonl`)",
    feature: "goose",
    rules: super::RULES,
    claims,
    adapter: |_| Box::new(GooseSessionAdapter),
    // Not recorded: `fixtures/goose-session/` holds a sample written from Goose's source.
    read_ahead: None,
    recordings: &[],
    agent_version: "",
    // Its session files up to 1.9, and the database 1.10 moved them into, whose sessions
    // the CLI rebuilds as these lines.
    stores: &[
        crate::Store::at(".local/share/goose", "sessions/*.jsonl")
            .or_env_subfolder("XDG_DATA_HOME", "goose"),
        crate::Store::at(".local/share/goose", "sessions/sessions.db")
            .or_env_subfolder("XDG_DATA_HOME", "goose"),
    ],
};

/// Whether a line is one of Goose's session lines, by the keys only Goose writes: the
/// metadata's `working_dir` with its `message_count` and `description`, or a bare
/// message (no `type`) with Goose's `created` and its visibility metadata
/// (`userVisible`).
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("type") {
        return false;
    }
    if keys.has("working_dir") {
        return keys.has("message_count") && keys.has("description");
    }
    keys.has("role")
        && keys.has("created")
        && keys.has("content")
        && keys
            .raw("metadata")
            .is_some_and(|raw| raw.starts_with(r#"{"userVisible":"#))
}

/// Reads Goose's session files.
#[derive(Debug, Default)]
pub struct GooseSessionAdapter;

impl Adapter for GooseSessionAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        match json::read_in_one_scan::<SessionLine<Item>, SessionLine<&RawValue>>(
            line,
            bytes,
            "not a Goose session line",
        ) {
            Ok(OneScan::InPlace(record)) => apply(line, record, facts),
            Ok(OneScan::Apart(record)) => apply(line, record, facts),
            Err(diagnostic) => facts.diagnostic(diagnostic),
        }
    }
}

/// A session file's line: a message's content items, or the session's metadata.
fn apply<C: ContentItem>(line: u64, record: SessionLine<C>, facts: &mut Facts<'_>) {
    if record.role.is_some() || record.content.is_some() {
        return messages::content(line, record.content, facts);
    }
    if record.message_count.is_some() || record.working_dir.is_some() {
        if let Some(cwd) = record.working_dir.filter(|cwd| !cwd.is_empty()) {
            facts.set_cwd(cwd);
        }
        return;
    }
    facts.diagnostic(Diagnostic::notice(
        line,
        DiagnosticKind::UnknownEvent,
        "a Goose session line that is neither the session's metadata nor a message",
    ));
}
