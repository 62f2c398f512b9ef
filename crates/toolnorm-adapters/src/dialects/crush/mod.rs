//! Crush (charmbracelet/crush): the sessions of its store, `crush.db` (SQLite, in the
//! project's `.crush/`), which the CLI rebuilds as lines, each a row of its tables as a
//! JSON object of its columns (`sqlite_stores/crush.rs` of the command): a session's
//! `sessions` row, then its `messages` rows, a subagent's session and messages among them
//! in the order written. `crush run` prints the answer's text only, and Crush writes no
//! session file: the store is where its calls are.
//!
//! | line | canonical events |
//! | --- | --- |
//! | a `sessions` row (`id`, `parent_session_id`, `title`, `message_count`, …) | (the session; a subagent's, `<message>$$<call>` under its parent, names the call that started it: `metadataMerged` `childSessionId` on that call) |
//! | a `messages` row with a `tool_call` part `{id, name, input, finished}` | `toolCallStarted` (`mcp_<server>_<tool>` split into `metadata.mcp`; a subagent's call with `metadata.parentToolCallId`) |
//! | a `messages` row with a `tool_result` part `{tool_call_id, content, is_error, …}` | `toolCallCompleted` / `toolCallFailed` (`outcome`) |
//! | other parts: `text`, `reasoning`, `image_url`, `binary`, `finish`, `shell_command` | (known, nothing about tools) |
//!
//! Crush keeps one row per message and rewrites it as the message grows: a row holds the
//! message as it last was, so each call is seen once, whole (or, when Crush stopped while
//! the model streamed it, with the input it had). Its calls' ids are the model's.

use foldhash::HashMap;

use serde_json::value::RawValue;
use toolnorm::{JsonObject, Timestamp, meta};

use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

mod outcome;
mod parts;
mod scan;
#[cfg(test)]
mod tests;
mod wire;

use scan::Scanned;
use wire::{Parts, Row};

/// The dialect: the rows of Crush's `crush.db`.
pub(crate) const DIALECT: Dialect = Dialect::new("crush", "crush");

impl Dialect {
    /// Crush's sessions, as the rows of its `crush.db`.
    pub const CRUSH: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Crush sessions: the rows of its `crush.db` (`toolnorm` reads the database)",
    feature: "crush",
    rules: ("src/dialects/crush/rules.toml", include_str!("rules.toml")),
    claims,
    adapter: |_| Box::new(CrushAdapter::default()),
    // Not recorded: Crush's package installs by downloading from outside the registries;
    // its database is built in the command's tests from the pinned schema.
    read_ahead: None,
    recordings: &[],
    agent_version: "",
    // Its database is in each project's data directory (`.crush/crush.db`), not under
    // the home folder: it is named on the command line.
    stores: &[],
};

/// Whether a line is one of Crush's rows, by the columns (never null) only its tables have
/// together: a message's `session_id`, `role`, `parts`, `created_at` and `updated_at`, or
/// a session's `title`, `message_count`, `prompt_tokens`, `completion_tokens` and `cost`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("type") {
        return false;
    }
    let message = keys.has("session_id")
        && keys.has("role")
        && keys.has("parts")
        && keys.has("created_at")
        && keys.has("updated_at");
    let session = keys.has("title")
        && keys.has("message_count")
        && keys.has("prompt_tokens")
        && keys.has("completion_tokens")
        && keys.has("cost");
    message || session
}

/// Reads the rows of Crush's sessions.
#[derive(Debug, Default)]
pub struct CrushAdapter {
    /// Each subagent's session and the call that started it (from its id,
    /// `<message>$$<call>`).
    parents: HashMap<String, String>,
}

impl Adapter for CrushAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        if let Some(row) = scan::scan(bytes) {
            return self.row(line, row, facts);
        }
        match json::parse_line::<Row<Parts<'_>>>(line, bytes, "not a row of Crush's store") {
            Ok(row) => self.row(line, row, facts),
            Err(diagnostic) => facts.diagnostic(diagnostic),
        }
    }
}

impl CrushAdapter {
    /// A row, its parts read in one scan or field by field.
    fn row<P: MessageParts>(&mut self, line: u64, row: Row<P>, facts: &mut Facts<'_>) {
        if row.parts.is_some() || row.role.is_some() {
            return self.message(line, row, facts);
        }
        if row.message_count.is_some() || row.title.is_some() {
            return self.session(line, row, facts);
        }
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            "a Crush row that is neither a session nor a message",
        ));
    }

    /// A `sessions` row: a subagent's names the call that started it, which learns the
    /// session's id.
    fn session<P>(&mut self, line: u64, row: Row<P>, facts: &mut Facts<'_>) {
        let Some(id) = row.id.filter(|id| !id.is_empty()) else {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a Crush session without an id",
            ));
        };
        let has_parent = row
            .parent_session_id
            .is_some_and(|parent| !parent.is_empty());
        // Crush names a subagent's session `<message id>$$<call id>`.
        let Some((_, call)) = id.split_once("$$").filter(|_| has_parent) else {
            return;
        };
        let call = call.to_owned();
        if facts.is_open(&call) {
            let mut metadata = JsonObject::new();
            metadata.insert(meta::CHILD_SESSION_ID.into(), id.as_str().into());
            facts.merge_metadata(line, &call, metadata);
        }
        self.parents.insert(id, call);
    }

    /// A `messages` row: its parts, read in order, in its session.
    fn message<P: MessageParts>(&mut self, line: u64, row: Row<P>, facts: &mut Facts<'_>) {
        let session = row.session_id.unwrap_or_default();
        if !session.is_empty() {
            facts.session(&session);
        }
        let Some(parts) = row.parts else { return };
        let context = parts::Context {
            line,
            at: row.created_at.map(epoch),
            parent: self.parents.get(&session).map(String::as_str),
        };
        parts.read(&context, facts);
    }
}

/// A message's parts as a row was read: each kept raw ([`Parts`]) or each read in the
/// line's one scan ([`Scanned`]).
trait MessageParts {
    /// Reads the parts, in order, into `facts`.
    fn read(self, context: &parts::Context<'_>, facts: &mut Facts<'_>);
}

impl MessageParts for Scanned {
    fn read(self, context: &parts::Context<'_>, facts: &mut Facts<'_>) {
        parts::read_scanned(context, self.0, facts);
    }
}

impl MessageParts for Parts<'_> {
    fn read(self, context: &parts::Context<'_>, facts: &mut Facts<'_>) {
        let text;
        let parts: Vec<&RawValue> = match self {
            Parts::List(parts) => parts,
            // As the column holds it: the parts' JSON text.
            Parts::Text(json) => {
                text = json;
                match serde_json::from_str(&text) {
                    Ok(parts) => parts,
                    Err(error) => {
                        return facts.diagnostic(Diagnostic::at(
                            context.line,
                            DiagnosticKind::MalformedEvent,
                            format!(
                                "a Crush message whose parts' text does not read: {}",
                                json::without_position(&error)
                            ),
                        ));
                    }
                }
            }
            Parts::Other(what) => {
                return facts.diagnostic(Diagnostic::at(
                    context.line,
                    DiagnosticKind::MalformedEvent,
                    format!("a Crush message whose parts are {what}, not a list"),
                ));
            }
        };
        parts::read(context, &parts, facts);
    }
}

/// A time Crush wrote: epoch seconds (its columns say milliseconds; a value that large
/// is taken as such).
fn epoch(time: i64) -> Timestamp {
    let time = time.max(0) as u64;
    match time < 100_000_000_000 {
        true => Timestamp::from(time.saturating_mul(1000)),
        false => Timestamp::from(time),
    }
}
