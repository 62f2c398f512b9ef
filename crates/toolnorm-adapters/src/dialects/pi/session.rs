//! Pi session files, `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<session>.jsonl`.
//!
//! The file begins with the session header (`type: "session"`, `version`, `id`, `cwd`);
//! every other line is an entry of the session tree (`id`, `parentId`, `timestamp`):
//!
//! | entry | canonical events |
//! | --- | --- |
//! | `message`, `role: "assistant"`, `toolCall` content blocks | `toolCallStarted` |
//! | `message`, `role: "toolResult"` (`toolCallId`, `isError`) | `toolCallCompleted`, or `toolCallFailed` when `isError` |
//! | `message` of another role (`user`, `bashExecution`, `custom`, `branchSummary`, `compactionSummary`) | (known, nothing the model called) |
//! | `model_change`, `thinking_level_change`, `compaction`, `branch_summary`, `custom`, `custom_message`, `label`, `session_info` | (known, nothing about tools) |
//!
//! A session branches in place: an entry's `parentId` names an earlier entry, and a new
//! branch continues from there, in the same file. Every branch is read, each call where
//! its entries are: a call whose result never came (the branch was left, or the run
//! stopped) stays `started`. The output is the result's text, as the stream's
//! `tool_execution_end` gives it, so a run reads the same from its stream and its file.

use super::outcome::{ended, open_unseen, sighted};
use super::wire::Line;
use super::{header, timestamp};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

/// The dialect: Pi's session files, with Pi's provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("pi-session", "pi");

impl Dialect {
    /// Pi's session files (`~/.pi/agent/sessions/<cwd>/<timestamp>_<session>.jsonl`).
    pub const PI_SESSION: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Pi session file (`~/.pi/agent/sessions/…/*.jsonl`)",
    feature: "pi",
    rules: super::RULES,
    claims,
    adapter: |_| Box::new(PiSessionAdapter),
    // The session files the `--mode json` runs wrote (`fixtures/pi-session/`).
    read_ahead: None,
    recordings: &["pi"],
    agent_version: "",
    stores: &[crate::Store::at(".pi/agent", "sessions/**/*.jsonl")],
};

/// The entry types that carry nothing about tools.
const KNOWN: &[&str] = &[
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];

/// Whether a line is a Pi session entry: a `message` entry (a short `id`, a `timestamp` and
/// a message with a `role`), or one of its other entries by the key only it has. The
/// header is the stream's too and is claimed by neither: the next line decides.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("method") || keys.has("payload") || keys.has("sessionId") {
        return false;
    }
    // Pi's entry ids are short hex (`a1b2c3d4`); Factory Droid's records, in the same
    // envelope, have UUIDs and `context-…` ids.
    let entry = keys.str("id").is_some_and(|id| !id.contains('-')) && keys.has("timestamp");
    entry
        && match keys.kind().as_deref() {
            Some("message") => keys.object_has("message", "role"),
            Some("model_change") => keys.has("modelId"),
            Some("thinking_level_change") => keys.has("thinkingLevel"),
            Some("compaction") => keys.has("firstKeptEntryId"),
            Some("branch_summary") => keys.has("fromId"),
            Some("custom" | "custom_message") => keys.has("customType"),
            Some("label") => keys.has("targetId"),
            Some("session_info") => keys.has("parentId"),
            _ => false,
        }
}

/// Reads Pi session files.
#[derive(Debug, Default)]
pub struct PiSessionAdapter;

impl Adapter for PiSessionAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let entry: Line<'_> = match json::parse_line(line, bytes, "not a Pi session entry") {
            Ok(entry) => entry,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        let kind = entry.kind.clone().unwrap_or_default();
        match &*kind {
            "session" => header(&entry, false, facts),
            "message" => message(line, entry, facts),
            known if KNOWN.contains(&known) => {}
            other => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Pi session entry type `{other}`"),
                ));
                // An entry that holds a message is read as one: its calls are not lost.
                if entry.message.is_some() {
                    message(line, entry, facts);
                }
            }
        }
    }
}

/// A `message` entry: an assistant's calls start, a tool result ends its call.
fn message(line: u64, entry: Line<'_>, facts: &mut Facts<'_>) {
    let at = timestamp(entry.timestamp.as_ref());
    let Some(message) = entry.message else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Pi message entry without its message",
        ));
    };
    match message.role.as_deref() {
        Some("assistant") => {
            for call in message.into_tool_calls() {
                sighted(line, call, at.clone(), facts);
            }
        }
        Some("toolResult") => {
            let Some(id) = message.tool_call_id.as_deref().filter(|id| !id.is_empty()) else {
                return facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    "a Pi tool result without its `toolCallId`",
                ));
            };
            if facts.finished(id).is_some() && !facts.is_other_sessions(id) && !facts.is_open(id) {
                return facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::Rejected,
                    format!("a second result for call `{id}`"),
                ));
            }
            open_unseen(
                line,
                id,
                message.tool_name.as_deref(),
                None,
                at.clone(),
                facts,
            );
            ended(
                line,
                id,
                &message.content,
                message.is_error.unwrap_or(false),
                at,
                facts,
            );
        }
        Some("user" | "bashExecution" | "custom" | "branchSummary" | "compactionSummary") => {}
        other => facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            format!(
                "a Pi message of unknown role `{}`",
                other.unwrap_or_default()
            ),
        )),
    }
}
