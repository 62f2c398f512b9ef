//! Kimi's conversation messages: `kimi --print --output-format stream-json` stdout and
//! a session's `context.jsonl`, one `kosong` message a line.

use serde_json::Value;

use super::DIALECT;
use super::outcome::{ended, from_raw_message, open_unseen, sighted};
use super::wire::{CallItem, Message, Written};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json::{self, OneScan};
use crate::track::Facts;
use serde_json::value::RawValue;

/// The roles that carry nothing about a call: the prompt, a system message, and the
/// context file's own records (the system prompt, checkpoints, token counts).
const KNOWN: &[&str] = &["user", "system", "_system_prompt", "_checkpoint", "_usage"];

/// The keys of the lines the stream prints that are no message: a notification
/// (`Notification`: `id`, `category`, `type`, `title`, `body`) and a plan shown
/// (`PlanDisplay`: `content`, `file_path`).
const NOT_MESSAGES: &[&str] = &["category", "file_path"];

/// Reads Kimi's stream-json output and context files.
#[derive(Debug, Default)]
pub struct KimiAdapter;

impl Adapter for KimiAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        // One scan, the calls read in place; a line one of whose calls does not read so
        // (or that does not read at all) is read again, each call apart, which leaves the
        // others and says what is wrong.
        match json::read_in_one_scan::<Message<'_, Written<'_>>, Message<'_, &RawValue>>(
            line,
            bytes,
            "not a Kimi message",
        ) {
            Ok(OneScan::InPlace(message)) => apply(line, bytes, message, facts),
            Ok(OneScan::Apart(message)) => apply(line, bytes, message, facts),
            Err(diagnostic) => facts.diagnostic(diagnostic),
        }
    }
}

/// A message's events.
fn apply<C: CallItem>(line: u64, bytes: &[u8], message: Message<'_, C>, facts: &mut Facts<'_>) {
    match message.role.as_deref() {
        Some("assistant") => {
            for call in message.tool_calls.into_iter().flatten() {
                match call.call() {
                    Some(call) => sighted(line, &call, None, None, facts),
                    None => facts.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        "a Kimi tool call without its `function`",
                    )),
                }
            }
        }
        Some("tool") => result(line, &message, facts),
        Some(known) if KNOWN.contains(&known) => {}
        Some(other) => facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            format!("unknown Kimi message role `{other}`"),
        )),
        None if is_not_message(bytes) => {}
        None => facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            "a Kimi line without a `role`",
        )),
    }
}

/// A `tool` message: the result of its call.
fn result<C>(line: u64, message: &Message<'_, C>, facts: &mut Facts<'_>) {
    let Some(id) = message.tool_call_id.as_deref().filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Kimi tool message without its `tool_call_id`",
        ));
    };
    if facts.finished(id).is_some() && !facts.is_open(id) {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::Rejected,
            format!("a second result for call `{id}`"),
        ));
    }
    open_unseen(line, id, None, None, facts);
    ended(line, id, from_raw_message(message.content), None, facts);
}

/// Whether a line without a `role` is one of the stream's other lines.
fn is_not_message(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes)
        .is_ok_and(|value| NOT_MESSAGES.iter().any(|key| value.get(key).is_some()))
}
