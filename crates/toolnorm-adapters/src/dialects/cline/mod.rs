//! Cline (`cline`): the task folder's `ui_messages.json` (`cline-task`) and the
//! Cline CLI 2.x's `--json` stream (`cline-json`), both made of Cline's
//! `ClineMessage`s (`{ts, type: "say"|"ask", say|ask, text, partial, …}`).
//!
//! Cline writes a task to `~/.cline/data/tasks/<id>/` (the VS Code extension to its
//! global storage's `tasks/<id>/`): `ui_messages.json`, the messages the UI shows, as
//! one JSON array on one line, and `api_conversation_history.json`, the model's
//! messages. `cline --json` (2.x) prints the same messages as they are completed, one
//! a line, after a `{"type":"task_started","taskId":…}` line. Both are read by one
//! reader ([`messages`]); the tool results are in the text of the `api_req_started`
//! message of the next request ([`results`]). Kilo Code and Roo Code, which grew out
//! of Cline, write task folders of the same shape.
//!
//! The messages' types are Cline's TypeScript interfaces (`ClineMessage`,
//! `ClineSayTool`, `ClineAskUseMcpServer` in `src/shared/ExtensionMessage.ts`), which
//! no package publishes: the fields a call needs are read with serde structs of their
//! own. The call ids are the messages' `ts` numbers.

use crate::Dialect;
use crate::adapter::Adapter;
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

pub(crate) mod messages;
mod results;
pub(crate) mod task;

use messages::{Message, Messages};

/// The dialect of the CLI's `--json` stream.
pub(crate) const DIALECT: Dialect = Dialect::new("cline-json", "cline");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) =
    ("src/dialects/cline/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// The Cline CLI 2.x `--json` stream (`ClineMessage`s, one a line).
    pub const CLINE_JSON: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Cline CLI 2.x `--json` (Cline's UI messages, one a line)",
    feature: "cline",
    rules: RULES,
    claims,
    adapter: |_| Box::new(ClineAdapter::new(DIALECT)),
    read_ahead: None,
    recordings: &["cline-json"],
    agent_version: "",
    stores: &[],
};

/// Whether a line is a `ClineMessage` (`ts`, and `type` `say` or `ask` with the key of
/// that name), or the CLI's `task_started` line.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.is_array_head() && is_message(keys)
        || keys.kind().as_deref() == Some("task_started")
            && keys.has("taskId")
            && !keys.has("method")
}

/// Whether an object is a `ClineMessage`.
pub(crate) fn is_message(keys: &LineKeys<'_>) -> bool {
    !keys.has("method")
        && keys.has("ts")
        && match keys.kind().as_deref() {
            Some("say") => keys.has("say"),
            Some("ask") => keys.has("ask"),
            _ => false,
        }
}

/// Reads `ClineMessage`s one a line (the CLI's stream).
pub struct ClineAdapter {
    dialect: Dialect,
    messages: Messages,
}

impl ClineAdapter {
    /// An adapter whose calls belong to `dialect` (Cline's, or a fork's).
    pub(crate) fn new(dialect: Dialect) -> Self {
        ClineAdapter {
            dialect,
            messages: Messages::default(),
        }
    }
}

impl Adapter for ClineAdapter {
    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        #[derive(serde::Deserialize)]
        struct Started<'a> {
            #[serde(borrow, rename = "taskId")]
            task_id: std::borrow::Cow<'a, str>,
        }
        if LineKeys::of(bytes).is_some_and(|keys| keys.kind().as_deref() == Some("task_started")) {
            match json::parse_line::<Started<'_>>(line, bytes, "not a Cline task_started line") {
                Ok(started) => {
                    // A new run: its messages' times may repeat another run's.
                    self.messages = Messages::default();
                    facts.begin_session(&started.task_id);
                }
                Err(diagnostic) => facts.diagnostic(diagnostic),
            }
            return;
        }
        match json::parse_line::<Message<'_>>(line, bytes, "not a Cline message") {
            Ok(message) => self.messages.message(line, message, facts),
            Err(diagnostic) => facts.diagnostic(diagnostic),
        }
    }
}
