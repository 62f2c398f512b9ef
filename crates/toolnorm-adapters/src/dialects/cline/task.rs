//! Cline's task folder: `tasks/<id>/ui_messages.json`, one JSON array of the task's
//! `ClineMessage`s on one line, read message by message as the CLI's `--json` stream
//! is (see [`messages`](super::messages)). A file is known for a task's by its first
//! message, a `ClineMessage` at the head of an array.

use serde_json::value::RawValue;

use super::messages::{Message, Messages};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

/// The dialect: Cline's `ui_messages.json`.
pub(crate) const DIALECT: Dialect = Dialect::new("cline-task", "cline");

impl Dialect {
    /// Cline's task folder, `tasks/<id>/ui_messages.json`.
    pub const CLINE_TASK: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Cline task folder (`tasks/<id>/ui_messages.json`)",
    feature: "cline",
    rules: super::RULES,
    claims,
    adapter: |_| Box::new(TaskAdapter::new(DIALECT)),
    // The task folders the `--json` runs wrote (`fixtures/cline-task/`).
    read_ahead: None,
    recordings: &["cline-json"],
    agent_version: "",
    stores: &[crate::Store::at(".cline/data", "tasks/*/ui_messages.json")],
};

/// Whether a line is a task's messages: an array whose first item is a `ClineMessage`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    keys.is_array_head() && super::is_message(keys)
}

/// Reads `ui_messages.json` files (a line each).
pub struct TaskAdapter {
    dialect: Dialect,
    messages: Messages,
}

impl TaskAdapter {
    /// An adapter whose calls belong to `dialect` (Cline's, or a fork's).
    pub(crate) fn new(dialect: Dialect) -> Self {
        TaskAdapter {
            dialect,
            messages: Messages::default(),
        }
    }
}

impl Adapter for TaskAdapter {
    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let items: Vec<&RawValue> =
            match json::parse_line(line, bytes, "not a Cline task's messages") {
                Ok(items) => items,
                Err(diagnostic) => return facts.diagnostic(diagnostic),
            };
        // A new file is a new task: its calls are its own, in a session named by the
        // time of its first message (the file names no task id).
        self.messages = Messages::default();
        if let Some(first) = items.first().and_then(|item| {
            serde_json::from_str::<Message<'_>>(item.get())
                .ok()
                .and_then(|message| message.ts)
        }) {
            facts.begin_session(&first.to_string());
        }
        for (index, item) in items.into_iter().enumerate() {
            match serde_json::from_str::<Message<'_>>(item.get()) {
                Ok(message) => self.messages.message(line, message, facts),
                Err(error) => facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!(
                        "message {index}: not a Cline message: {}",
                        json::without_position(&error)
                    ),
                )),
            }
        }
    }
}
