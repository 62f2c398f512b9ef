//! Mistral Vibe's session journal: `~/.vibe/logs/session/unified/<session>/journal/<n>.jsonl`,
//! the records its local harness writes ahead of every step of a session, one a line
//! (`{"type", "sequence", "payload", "record_sha256", "previous_record_sha256",
//! "recovery_journal_record_version"}`).
//!
//! | record | canonical events |
//! | --- | --- |
//! | `action_result` of a completion (`completion_succeeded`, its `parts`' `tool_call`s: `id`, `name`, `arguments_json`) | `toolCallStarted` for each call the model made |
//! | `action_intent` of kind `tool` (`request.call_id`, `call`: a built-in's `name` or a group's `group_name`/`tool_name`) | `toolCallRunning` (a call no completion announced, one a `run_typescript` program makes, `typescript:<n>:<its call id>:…`, starts here, under that call) |
//! | `action_result` of a tool (`tool_succeeded`, `tool_failed`: `call_id`, `result`) | `toolCallCompleted`, or `toolCallFailed` (`outcome`) |
//! | `action_intent` of a completion whose input appends a `tool` message (`tool_call_id`, `outcome`) for a call no action ran | `toolCallFailed` (`invalid_tool_use` when Vibe refused its arguments), or `toolCallCompleted` |
//! | `command_reserved`, `core_input`, `projection_delta`, `projection_advanced`, `receipt_succeeded`, `receipt_failed`, `callback_registered`, `callback_resolved`, `process_*`, `session_relocated`; other kinds of intent and result | (known, nothing a call needs beyond the above) |
//!
//! The records carry no time of their own. The `projection_delta` records hold the
//! entries `vibe --output streaming` prints (the `vibe` dialect): the same calls, under
//! their effect ids; the journal's calls are read once, by the model's ids.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::{JsonObject, Payload as Text, meta};

use super::entries::{UNNAMED, sighted};
use super::outcome::{Outcome, failure, success, text_of, told_failure};
use super::wire::{ModelMessage, Part, Payload, Record, Request, ToolEvent, ToolRequest};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::apart::{ValueApart, one_text};
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::{Ending, Facts, arguments_from_text};

/// The dialect: Vibe's session journal, with Vibe's provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("vibe-journal", "vibe");

impl Dialect {
    /// Mistral Vibe's session journal (`~/.vibe/logs/session/unified/…/journal/*.jsonl`).
    pub const VIBE_JOURNAL: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Mistral Vibe session journal (`~/.vibe/logs/session/unified/…/journal/*.jsonl`)",
    feature: "vibe",
    rules: super::RULES,
    claims,
    adapter: |_| Box::<VibeJournalAdapter>::default(),
    // The journals of the `-p --output streaming` runs (`fixtures/vibe-journal/`).
    read_ahead: None,
    recordings: &["vibe"],
    agent_version: "",
    stores: &[crate::Store::at(
        ".vibe",
        "logs/session/unified/*/journal/*.jsonl",
    )],
};

/// The records that carry nothing a call needs.
const KNOWN: &[&str] = &[
    "command_reserved",
    "core_input",
    "projection_delta",
    "projection_advanced",
    "receipt_succeeded",
    "receipt_failed",
    "callback_registered",
    "callback_resolved",
    "process_operation_dispatched",
    "process_state_changed",
    "process_notification_submitted",
    "session_relocated",
];

/// Whether a line is a journal record: the keys every record has, and no other
/// dialect's record has together (its format version, its chain of digests).
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    keys.has("recovery_journal_record_version")
        && keys.has("record_sha256")
        && keys.has("sequence")
        && keys.has("payload")
}

/// Reads a session journal.
#[derive(Debug, Default)]
pub struct VibeJournalAdapter {
    /// The call each tool action runs, by action id.
    actions: HashMap<String, String>,
}

impl Adapter for VibeJournalAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let record: Record<'_> =
            match json::parse_line(line, bytes, "not a Mistral Vibe journal record") {
                Ok(record) => record,
                Err(diagnostic) => return facts.diagnostic(diagnostic),
            };
        let payload = record.payload.unwrap_or_default();
        match record.kind.as_deref() {
            Some("action_intent") => self.intent(line, payload, facts),
            Some("action_result") => self.result(line, payload, facts),
            Some(kind) if KNOWN.contains(&kind) => {}
            other => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!(
                    "a Mistral Vibe journal record of unknown type `{}`",
                    other.unwrap_or_default()
                ),
            )),
        }
    }
}

impl VibeJournalAdapter {
    /// An action about to run: a tool call runs; a model call's input tells the model how
    /// the calls no action ran ended.
    fn intent(&mut self, line: u64, payload: Payload, facts: &mut Facts<'_>) {
        match payload.kind.as_deref() {
            Some("tool") => {
                let request: ToolRequest = payload
                    .request
                    .and_then(|request| serde_json::from_value(request.value).ok())
                    .unwrap_or_default();
                let Some(call_id) = request.call_id.filter(|id| !id.is_empty()) else {
                    return facts.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        "a Mistral Vibe tool action without its `call_id`",
                    ));
                };
                if let Some(action) = payload.action_id {
                    self.actions.insert(action, call_id.clone());
                }
                if !facts.is_open(&call_id) && facts.finished(&call_id).is_none() {
                    // A call of a program (`run_typescript`): no completion announced it.
                    let call = request.call.unwrap_or_default();
                    let name = match (call.name, call.group_name, call.tool_name) {
                        (Some(name), _, _) if !name.is_empty() => name,
                        (_, Some(group), Some(tool)) => format!("{group}.{tool}"),
                        _ => UNNAMED.to_owned(),
                    };
                    let input = call
                        .arguments
                        .filter(|input| !input.is_null())
                        .unwrap_or_else(|| Value::Object(JsonObject::new()));
                    let mut metadata = item_type();
                    if let Some(parent) = program_of(&call_id)
                        .filter(|parent| facts.is_open(parent) || facts.finished(parent).is_some())
                    {
                        metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
                    }
                    sighted(line, call_id.clone(), name, input, metadata, None, facts);
                }
                if facts.is_open(&call_id) {
                    facts.running(line, &call_id, None);
                }
            }
            Some("completion") => told(line, payload.request, facts),
            _ => {}
        }
    }

    /// An action's result: a model call's completion announces its calls; a tool's ends
    /// its call.
    fn result(&mut self, line: u64, payload: Payload, facts: &mut Facts<'_>) {
        let result = payload.result.unwrap_or(Value::Null);
        let kind = result
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match kind.as_str() {
            "completion_succeeded" => announced(line, &result, facts),
            "tool_succeeded" | "tool_failed" => {
                let mut event: ToolEvent = serde_json::from_value(result).unwrap_or_default();
                let call_id = event
                    .call_id
                    .take()
                    .filter(|id| !id.is_empty())
                    .or_else(|| {
                        let action = payload.action_id.as_deref()?;
                        self.actions.get(action).cloned()
                    });
                let Some(call_id) = call_id else {
                    return facts.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        "a Mistral Vibe tool result without its `call_id`",
                    ));
                };
                tool_result(line, &call_id, event, facts);
            }
            _ => {}
        }
    }
}

/// The `run_typescript` call whose program made a call, as its id names it:
/// `typescript:<n>:<call id>:<step>:tool:<index>`.
fn program_of(call_id: &str) -> Option<&str> {
    let rest = call_id.strip_prefix("typescript:")?;
    let (_, rest) = rest.split_once(':')?;
    let (parent, _) = rest.split_once(':')?;
    Some(parent).filter(|parent| !parent.is_empty())
}

/// The raw item type of the calls (`metadata.itemType`): a completion's part type.
fn item_type() -> JsonObject {
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), "tool_call".into());
    metadata
}

/// A completion's `tool_call` parts: the calls the model made.
fn announced(line: u64, result: &Value, facts: &mut Facts<'_>) {
    let parts = result
        .get("result")
        .and_then(|result| result.get("parts"))
        .and_then(Value::as_array);
    for part in parts.into_iter().flatten() {
        let part: Part = serde_json::from_value(part.clone()).unwrap_or_default();
        if part.kind.as_deref() != Some("tool_call") {
            continue;
        }
        let Some(id) = part.id.filter(|id| !id.is_empty()) else {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a Mistral Vibe tool call without an id",
            ));
            continue;
        };
        let name = part
            .name
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!("Mistral Vibe tool call `{id}` names no tool"),
                ));
                UNNAMED.to_owned()
            });
        let input = arguments(line, &id, part.arguments_json, facts);
        sighted(line, id, name, input, item_type(), None, facts);
    }
}

/// A call's arguments: the JSON text the model sent, read; a text that is not a JSON
/// object is kept as it is, with a notice (Vibe then refuses the call).
fn arguments(line: u64, id: &str, text: Option<String>, facts: &mut Facts<'_>) -> Value {
    arguments_from_text(line, "Mistral Vibe", id, text.unwrap_or_default(), facts)
}

/// A tool's result ends its call.
fn tool_result(line: u64, call_id: &str, event: ToolEvent, facts: &mut Facts<'_>) {
    if !facts.is_open(call_id) {
        if facts.finished(call_id).is_some() && !facts.is_other_sessions(call_id) {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::Rejected,
                format!("a second result for call `{call_id}`"),
            ));
        }
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("a result for call `{call_id}`, whose call the input does not hold"),
        ));
        let input = Value::Object(JsonObject::new());
        sighted(
            line,
            call_id.to_owned(),
            UNNAMED.to_owned(),
            input,
            item_type(),
            None,
            facts,
        );
    }
    let result = event.result.unwrap_or_default();
    if event.kind.as_deref() == Some("tool_failed") {
        let error = failure(&result.error.unwrap_or_default());
        return facts.fail(line, call_id, error, Ending::at(None));
    }
    let text = text_of(result.content.as_ref());
    match success(result.structured_content, Some(text), result.content) {
        Outcome::Done(output) => facts.complete(line, call_id, output, Ending::at(None)),
        Outcome::Failed(error) => facts.fail(line, call_id, error, Ending::at(None)),
    }
}

/// A model call's input: its appended `tool` messages end the calls still open, which
/// no action ran (Vibe refused them before they ran). The messages of calls already
/// ended, and the history a `replace` repeats, say nothing new.
fn told(line: u64, request: Option<Request>, facts: &mut Facts<'_>) {
    for (message, text) in appended(request.unwrap_or_default()) {
        if message.role.as_deref() != Some("tool") {
            continue;
        }
        let Some(id) = message.tool_call_id.filter(|id| facts.is_open(id)) else {
            continue;
        };
        if message.outcome.as_deref() == Some("failure") {
            let text = text.text().unwrap_or_default();
            facts.fail(line, &id, told_failure(&text), Ending::at(None));
        } else {
            let output = text.text_head(1).is_some_and(|head| !head.is_empty());
            facts.complete(line, &id, output.then_some(text), Ending::at(None));
        }
    }
}

/// The messages a model call's input appends to the conversation (none when it replaces
/// it), each with what it told the model.
fn appended(request: Request) -> Vec<(ModelMessage, Text)> {
    let ValueApart { value, kept, .. } = request;
    let messages = value
        .get("model_input")
        .and_then(|input| input.get("messages"))
        .filter(|messages| messages.get("type").and_then(Value::as_str) == Some("append"))
        .and_then(|messages| messages.get("messages"))
        .and_then(Value::as_array);
    let mut texts = kept.into_iter();
    let mut appended = Vec::new();
    for message in messages.into_iter().flatten() {
        // The texts kept of this message's content blocks.
        let blocks: Vec<Text> = match message.get("content") {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|block| block.get("text").is_some())
                .filter_map(|_| texts.next())
                .collect(),
            _ => Vec::new(),
        };
        let message = ModelMessage::deserialize(message).unwrap_or_default();
        let text = told_text(message.content.as_ref(), &blocks);
        appended.push((message, text));
    }
    appended
}

/// What a message told the model: its content when a string, else its blocks' texts
/// (kept apart from `content`): one as it came, several joined.
fn told_text(content: Option<&Value>, blocks: &[Text]) -> Text {
    if let Some(Value::String(text)) = content {
        return Text::from(text.as_str());
    }
    one_text(blocks.iter().filter(|text| text.is_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_told_text_kept_apart_is_the_text_the_whole_value_gave() {
        let contents = [
            r#""a plain text""#,
            r#"[{"type": "text", "text": "a\nb"}]"#,
            r#"[{"type": "text", "text": "a"}, {"type": "image"}, {"text": "b"}]"#,
            r#"[{"text": 7}, "loose", [{"text": "nested"}], {"text": null}, {"text": "c"}]"#,
            r#"[{"text": "x", "text": "y"}]"#,
            "[]",
            "null",
            r#"{"text": "not a list"}"#,
        ];
        for content in contents {
            let request = format!(
                r#"{{"model_input": {{"messages": {{"type": "append", "messages": [{{"role": "user", "content": [{{"text": "before"}}]}}, {{"role": "tool", "tool_call_id": "c", "content": {content}}}, {{"role": "tool", "content": [{{"text": "after"}}]}}]}}}}}}"#
            );
            let kept = appended(serde_json::from_str(&request).unwrap());
            let whole: Value = serde_json::from_str(&request).unwrap();
            let told: Vec<String> = whole["model_input"]["messages"]["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|message| text_of(message.get("content")))
                .collect();
            let kept_texts: Vec<String> = kept
                .iter()
                .map(|(_, text)| text.text().unwrap_or_default().into_owned())
                .collect();
            assert_eq!(kept_texts, told, "{content}");
            assert_eq!(kept[1].0.tool_call_id.as_deref(), Some("c"));
        }
        // One text is told as it came.
        let request = r#"{"model_input": {"messages": {"type": "append", "messages": [{"role": "tool", "content": [{"type": "text", "text": "a\nb"}]}]}}}"#;
        let kept = appended(serde_json::from_str(request).unwrap());
        assert_eq!(kept[0].1.raw_text(), Some(r#""a\nb""#));
        // A replaced conversation appends nothing.
        let request = r#"{"model_input": {"messages": {"type": "replace", "messages": [{"role": "tool", "content": "x"}]}}}"#;
        assert!(appended(serde_json::from_str(request).unwrap()).is_empty());
    }
}
