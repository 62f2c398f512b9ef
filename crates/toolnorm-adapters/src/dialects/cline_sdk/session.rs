//! The session file of the Cline CLI 3.x, `~/.cline/data/sessions/<id>/<id>.messages.json`:
//! one JSON document (on one line, or indented as the CLI writes it), the session's
//! model messages with their `tool_use` and `tool_result` blocks.
//!
//! A subagent's session is a file of its own (`<lead session>__<agent id>`), whose
//! `origin.parentThreadId` names its parent's session and whose first message is the
//! task the parent's `spawn_agent` call gave it: read after its parent's file, its calls
//! are nested under that call.

use std::collections::HashMap;

use serde_json::Value;
use toolnorm::Timestamp;

use super::outcome::{Seen, ended, sighted};
use super::wire::{Block, Message, SessionFile};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::{Ending, Facts};

/// The dialect: a Cline 3.x session's `<id>.messages.json`.
pub(crate) const DIALECT: Dialect = Dialect::new("cline-sdk-session", "cline");

impl Dialect {
    /// A Cline CLI 3.x session file, `sessions/<id>/<id>.messages.json`.
    pub const CLINE_SDK_SESSION: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Cline CLI 3.x session file (`sessions/<id>/<id>.messages.json`)",
    feature: "cline-sdk",
    rules: super::RULES,
    claims,
    adapter: |_| Box::new(SessionAdapter::default()),
    // The session files the `--json` runs wrote (`fixtures/cline-sdk-session/`).
    read_ahead: None,
    recordings: &["cline-sdk"],
    agent_version: "",
    stores: &[crate::Store::at(
        ".cline/data",
        "sessions/*/*.messages.json",
    )],
};

/// Whether a line is a session's messages document: its `sessionId`, `agent` (`lead`
/// or `subagent`) and `messages`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    keys.has("sessionId") && keys.has("messages") && keys.has("agent") && !keys.has("type")
}

/// Reads session files, one document a line.
#[derive(Debug, Default)]
pub struct SessionAdapter {
    /// The `spawn_agent` calls read so far, by their session and the task they gave.
    spawns: HashMap<(String, String), String>,
}

impl Adapter for SessionAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let file: SessionFile = match json::parse_line(line, bytes, "not a Cline session file") {
            Ok(file) => file,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        let session = file.session_id.clone().unwrap_or_default();
        if session.is_empty() {
            facts.begin_unnamed_session();
        } else {
            facts.begin_session(&session);
        }
        let parent = self.parent_of(&file);
        for (index, message) in file.messages.iter().enumerate() {
            match serde_json::from_value::<Message>(message.clone()) {
                Ok(message) => self.message(line, &session, &message, parent.as_deref(), facts),
                Err(error) => facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!(
                        "message {index}: not a Cline session message: {}",
                        json::without_position(&error)
                    ),
                )),
            }
        }
    }
}

impl SessionAdapter {
    /// The `spawn_agent` call a subagent's file answers: its parent session's call that
    /// gave the task its first message holds.
    fn parent_of(&self, file: &SessionFile) -> Option<String> {
        let parent_session = file.origin.as_ref()?.parent_thread_id.clone()?;
        let first = file.messages.first()?;
        let task = first_text(first.get("content")?)?;
        self.spawns.get(&(parent_session, task)).cloned()
    }

    /// A message: an assistant's `tool_use` blocks start calls, a user's `tool_result`
    /// blocks end them.
    fn message(
        &mut self,
        line: u64,
        session: &str,
        message: &Message,
        parent: Option<&str>,
        facts: &mut Facts<'_>,
    ) {
        let Value::Array(blocks) = &message.content else {
            return;
        };
        let at = message.ts.clone().and_then(|ts| match ts {
            Value::Number(number) => Some(Timestamp::Epoch(number)),
            Value::String(text) => Some(Timestamp::from(text.as_str())),
            _ => None,
        });
        for block in blocks {
            let block = match serde_json::from_value::<Block>(block.clone()) {
                Ok(block) => block,
                Err(error) => {
                    facts.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        format!(
                            "not a Cline content block: {}",
                            json::without_position(&error)
                        ),
                    ));
                    continue;
                }
            };
            match (message.role.as_deref(), block.kind.as_deref()) {
                (Some("assistant"), Some("tool_use")) => {
                    let id = block.id.as_deref().unwrap_or_default();
                    if block.name.as_deref() == Some("spawn_agent")
                        && let Some(task) = block
                            .input
                            .as_ref()
                            .and_then(|input| input.get("task"))
                            .and_then(Value::as_str)
                    {
                        self.spawns
                            .insert((session.to_owned(), task.to_owned()), id.to_owned());
                    }
                    let seen = Seen {
                        id,
                        tool: block.name.as_deref(),
                        input: block.input.as_ref(),
                        at: at.clone(),
                        parent,
                    };
                    sighted(line, seen, facts);
                }
                (_, Some("tool_result")) => result(line, &block, at.clone(), parent, facts),
                _ => {}
            }
        }
    }
}

/// A `tool_result` block ends its call (opened from the block, with a notice, when the
/// file does not hold the call).
fn result(
    line: u64,
    block: &Block,
    at: Option<Timestamp>,
    parent: Option<&str>,
    facts: &mut Facts<'_>,
) {
    let Some(id) = block.tool_use_id.as_deref().filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Cline tool_result without its `tool_use_id`",
        ));
    };
    if !facts.is_open(id) {
        if facts.finished(id).is_some() && !facts.is_other_sessions(id) {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::Rejected,
                format!("a second result for call `{id}`"),
            ));
        }
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("a result for call `{id}`, whose call the file does not hold"),
        ));
        let seen = Seen {
            id,
            tool: block.name.as_deref(),
            input: None,
            at: at.clone(),
            parent,
        };
        sighted(line, seen, facts);
    }
    ended(
        line,
        id,
        &block.content,
        None,
        block.is_error.unwrap_or(false),
        Ending::at(at),
        facts,
    );
}

/// The text of a message's first text block (or of its content, when it is text).
fn first_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => blocks
            .iter()
            .find(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .and_then(|block| block.get("text")?.as_str())
            .map(str::to_owned),
        _ => None,
    }
}
