//! The chat history files of Grok's `grok` CLI,
//! `~/.grok/sessions/<cwd, percent-encoded>/<session>/chat_history.jsonl`: one record a
//! line, typed.
//!
//! | record | canonical events |
//! | --- | --- |
//! | `{"type":"assistant","content","tool_calls":[{"id","name","arguments"}],"model_id"}` | `toolCallStarted` for each call |
//! | `{"type":"tool_result","tool_call_id","content","images"?}` | `toolCallCompleted` (the record carries no error flag) |
//! | `{"type":"backend_tool_call","kind":{"tool_type","id","status","action"}}` | a call the model's server ran (`web_search`): `toolCallStarted`, then `toolCallCompleted` with `action.sources` when its `status` is `completed`, `toolCallFailed` when `failed` |
//! | `system`, `user`, `reasoning` | (known, nothing about tools) |
//!
//! An assistant record's `raw_output` repeats its server-side calls as the API gave
//! them (`web_search_call`); they are read from their `backend_tool_call` records.

use serde_json::Value;
use toolnorm::{JsonObject, ToolError};

use super::headless::{arguments, sighted};
use super::wire::{BackendCall, HistoryCall, Record};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::{Ending, Facts, content_text};

/// The dialect: Grok's chat history files.
pub(crate) const DIALECT: Dialect = Dialect::new("grok-session", "grok");

impl Dialect {
    /// Grok's chat history files (`~/.grok/sessions/<cwd>/<session>/chat_history.jsonl`).
    pub const GROK_SESSION: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Grok chat history (`~/.grok/sessions/…/chat_history.jsonl`)",
    feature: "grok",
    rules: super::RULES,
    claims,
    adapter: |_| Box::new(GrokSessionAdapter),
    // Not recorded: `fixtures/grok-session/` holds a sample written from the format.
    read_ahead: None,
    recordings: &[],
    agent_version: "",
    stores: &[crate::Store::at(".grok", "sessions/**/chat_history.jsonl")],
};

/// The raw item type of an assistant record's calls (`metadata.itemType`).
const TOOL_CALL: &str = "tool_call";

/// The raw item type of a call the model's server ran.
const BACKEND: &str = "backend_tool_call";

/// The records that carry nothing about a call.
const KNOWN: &[&str] = &["system", "user", "reasoning"];

/// Whether a line is a chat history record, by the keys its types carry that no other
/// agent's records do: a `backend_tool_call`'s `kind` with its `tool_type`, a
/// `tool_result`'s `tool_call_id` (with no message around it), an assistant record's
/// flat `tool_calls` or `model_id`, a user record's `prompt_index` or `synthetic_reason`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("message") || keys.has("role") || keys.has("payload") || keys.has("id") {
        return false;
    }
    match keys.kind().as_deref() {
        Some("backend_tool_call") => keys.object_has("kind", "tool_type"),
        Some("tool_result") => keys.has("tool_call_id") && keys.has("content"),
        Some("assistant") => {
            keys.has("model_id")
                || keys.raw("tool_calls").is_some_and(|raw| {
                    raw.starts_with(r#"[{"id":"#) && !raw.contains(r#""function":"#)
                })
        }
        Some("user") => keys.has("prompt_index") || keys.has("synthetic_reason"),
        _ => false,
    }
}

/// Reads Grok's chat history files.
#[derive(Debug, Default)]
pub struct GrokSessionAdapter;

impl Adapter for GrokSessionAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let record: Record<'_> = match json::parse_line(line, bytes, "not a Grok chat record") {
            Ok(record) => record,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        let kind = record.kind.clone().unwrap_or_default();
        match &*kind {
            "assistant" => calls(line, record.tool_calls, facts),
            "tool_result" => result(line, record, facts),
            "backend_tool_call" => backend(line, record.backend, facts),
            known if KNOWN.contains(&known) => {}
            other => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Grok chat record type `{other}`"),
                ));
                // Nothing tool-like is dropped.
                if record.tool_call_id.is_some() {
                    result(line, record, facts);
                } else {
                    calls(line, record.tool_calls, facts);
                }
            }
        }
    }
}

/// An assistant record's calls: each starts.
fn calls(line: u64, calls: Option<Vec<HistoryCall>>, facts: &mut Facts<'_>) {
    for call in calls.unwrap_or_default() {
        let Some(id) = call.id.filter(|id| !id.is_empty()) else {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a Grok tool call without an id",
            ));
            continue;
        };
        let Some(name) = call.name.filter(|name| !name.is_empty()) else {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("Grok tool call `{id}` names no tool"),
            ));
            continue;
        };
        let input = arguments(line, &id, call.arguments, facts);
        sighted(line, id, name, input, TOOL_CALL, facts);
    }
}

/// A `tool_result`: its call's output (the text, or the text of its parts; its images,
/// when it has any, beside it).
fn result(line: u64, record: Record<'_>, facts: &mut Facts<'_>) {
    let Some(id) = record.tool_call_id.filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Grok tool_result without its `tool_call_id`",
        ));
    };
    if !facts.is_open(&id) {
        if facts.finished(&id).is_some() && !facts.is_other_sessions(&id) {
            // A server-side call's result told again: its `backend_tool_call` ended it.
            return facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownCall,
                format!("a second result for call `{id}`, which has ended"),
            ));
        }
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("a result for call `{id}`, whose call the input does not hold"),
        ));
        sighted(
            line,
            id.clone(),
            "tool".to_owned(),
            Value::Object(JsonObject::new()),
            TOOL_CALL,
            facts,
        );
    }
    let text = record.content.as_ref().and_then(content_text);
    let output = match record.images.filter(|images| !images.is_null()) {
        Some(images) => {
            let mut output = JsonObject::new();
            if let Some(text) = text {
                output.insert("text".into(), Value::String(text));
            }
            output.insert("images".into(), images);
            Some(Value::Object(output))
        }
        None => text.map(Value::String),
    };
    facts.complete(line, &id, output, Ending::at(None));
}

/// A `backend_tool_call`: a call the model's server ran, whole in one record.
fn backend(line: u64, call: Option<BackendCall>, facts: &mut Facts<'_>) {
    let call = call.unwrap_or_default();
    let Some(id) = call.id.filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Grok backend_tool_call without its `kind.id`",
        ));
    };
    let name = call.tool_type.unwrap_or_else(|| "backend_tool".to_owned());
    let mut action = match call.action {
        Some(Value::Object(action)) => action,
        _ => JsonObject::new(),
    };
    let sources = action.remove("sources");
    if facts.finished(&id).is_some() && !facts.is_other_sessions(&id) {
        return facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("server-side call `{id}` told again"),
        ));
    }
    sighted(
        line,
        id.clone(),
        name,
        Value::Object(action),
        BACKEND,
        facts,
    );
    match call.status.as_deref() {
        Some("completed") => facts.complete(line, &id, sources, Ending::at(None)),
        Some("failed") => facts.fail(
            line,
            &id,
            ToolError::new("the server-side call failed"),
            Ending::at(None),
        ),
        _ => facts.running(line, &id, None),
    }
}
