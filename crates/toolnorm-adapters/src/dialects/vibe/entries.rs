//! Mistral Vibe's `vibe -p --output streaming` output: one public history entry a line.

use serde_json::{Number, Value};
use toolnorm::{ErrorCode, JsonObject, Payload, Timestamp, ToolError, meta};

use super::DIALECT;
use super::outcome::{Outcome, failure, success};
use super::wire::{Entry, State};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::read::kept_object::KeptObject;
use crate::track::{Ending, Facts, Sighting};

/// The entries that carry nothing about tools.
const KNOWN: &[&str] = &["message", "reasoning", "checkpoint", "notice"];

/// The name a call is given when its entry does not say its tool.
pub(super) const UNNAMED: &str = "tool";

/// Reads `vibe -p --output streaming` output.
#[derive(Debug, Default)]
pub struct VibeAdapter;

impl Adapter for VibeAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let mut entry: Entry<'_> = match json::parse_line(line, bytes, "not a Mistral Vibe entry") {
            Ok(entry) => entry,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        let kind = entry.kind.take();
        match kind.as_deref() {
            Some("effect") => effect(line, entry, facts),
            Some(kind) if KNOWN.contains(&kind) => {}
            other => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!(
                    "a Mistral Vibe entry of unknown type `{}`",
                    other.unwrap_or_default()
                ),
            )),
        }
    }
}

/// An `effect` entry: a tool call, printed as it runs or once it ended.
fn effect(line: u64, entry: Entry<'_>, facts: &mut Facts<'_>) {
    let Some(id) = entry.id.filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Mistral Vibe effect without an id",
        ));
    };
    if facts.finished(&id).is_some() && !facts.is_open(&id) {
        // The same call printed again once it ended: nothing new.
        return;
    }
    let mut detail = entry.detail.unwrap_or_default();
    let item_type = detail.kind.take();
    let fresh = !facts.is_open(&id);
    if fresh {
        let name = detail
            .tool_name
            .or(entry.title)
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!("Mistral Vibe effect `{id}` names no tool"),
                ));
                UNNAMED.to_owned()
            });
        let mut metadata = JsonObject::new();
        metadata.insert(
            meta::ITEM_TYPE.into(),
            item_type.as_deref().unwrap_or("tool").into(),
        );
        if let Some(child) = detail.child_session_id {
            metadata.insert(meta::CHILD_SESSION_ID.into(), child.into());
        }
        let input = detail
            .input
            .filter(|input| !input.is_null())
            .unwrap_or_else(|| Value::Object(JsonObject::new()));
        sighted(
            line,
            id.clone(),
            name,
            input,
            metadata,
            epoch(entry.created_at),
            facts,
        );
    }
    let at = epoch(entry.updated_at);
    let mut state = entry.state.unwrap_or_default();
    let status = state.status.take();
    match status.as_deref() {
        Some("running") => {
            if fresh {
                facts.running(line, &id, at);
            }
        }
        Some("completed") => ended(line, &id, item_type.as_deref(), state, at, facts),
        Some("failed") => {
            let error = failure(&state.error.unwrap_or_default());
            facts.fail(line, &id, error, Ending::at(at));
        }
        Some("skipped") => {
            let error = ToolError::new(reason(&state, "the call was skipped"))
                .with_code(ErrorCode::PermissionDenied);
            facts.fail(line, &id, error, Ending::at(at));
        }
        Some("cancelled") => {
            let error = ToolError::new(reason(&state, "the call was cancelled"))
                .with_code(ErrorCode::Interrupted);
            facts.fail(line, &id, error, Ending::at(at));
        }
        other => facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::MalformedEvent,
            format!(
                "Mistral Vibe effect `{id}` has an unknown status `{}`",
                other.unwrap_or_default()
            ),
        )),
    }
}

/// A completed effect: its result's output. A command that exited non-zero is
/// `completed` with `display.success` false: it fails (streaming output does not say its
/// status, only what it printed).
fn ended(
    line: u64,
    id: &str,
    kind: Option<&str>,
    state: State,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    let failed = state.display.as_ref().and_then(|display| display.success) == Some(false);
    let text = state.output_text.filter(|text| !text.is_empty());
    if failed {
        let printed = text.as_deref().unwrap_or_default().trim_end();
        let mut error = ToolError::new(if kind == Some("shell") {
            "the command exited with a non-zero status"
        } else {
            "the tool failed"
        });
        if !printed.is_empty() {
            error.details = Some(serde_json::json!({ "output": printed }).into());
        }
        return facts.fail(line, id, error, Ending::at(at));
    }
    let own = state.output.as_ref().and_then(own_success);
    let output = match (state.output, own) {
        // A tool's own result (`{"type": "success", "content", "structured_content"?}`).
        (_, Some(fields)) => {
            let field = |key: &str| fields.get(key).cloned().map(Payload::into_value);
            let (structured, content) = (field("structured_content"), field("content"));
            match success(structured, text, content) {
                Outcome::Done(output) => output.map(Payload::from),
                Outcome::Failed(error) => return facts.fail(line, id, error, Ending::at(at)),
            }
        }
        // What the client made of a built-in's result (`stdout`, `stderr`; `filePath`,
        // `content`; …), kept as it came.
        (Some(output), None) if !output.is_null() => Some(output),
        _ => text.map(Payload::from),
    };
    facts.complete(line, id, output, Ending::at(at));
}

/// The fields of a tool's own result: an object whose `type` is `success`.
fn own_success(result: &Payload) -> Option<KeptObject> {
    KeptObject::of(result).filter(|fields| {
        fields
            .get("type")
            .is_some_and(|kind| *kind == Value::from("success"))
    })
}

/// Why a call did not run, as its state says.
fn reason(state: &State, otherwise: &str) -> String {
    state
        .reason
        .clone()
        .filter(|reason| !reason.is_empty())
        .unwrap_or_else(|| otherwise.to_owned())
}

/// An epoch-millisecond time.
pub(super) fn epoch(number: Option<Number>) -> Option<Timestamp> {
    number.map(Timestamp::Epoch)
}

/// A call starts: an MCP tool's (`mcp_<server>.<tool>`, as Vibe names the group of a
/// server's tools) with its server and tool.
pub(super) fn sighted(
    line: u64,
    id: String,
    name: String,
    input: Value,
    metadata: JsonObject,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    let split = name
        .strip_prefix("mcp_")
        .and_then(|rest| rest.split_once('.'))
        .map(|(server, tool)| (server.to_owned(), tool.to_owned()));
    let mut sighting = Sighting::new(id, name, input).metadata(metadata).at(at);
    if let Some((server, tool)) = split {
        sighting = sighting.mcp(server, tool);
    }
    facts.sighted(line, sighting);
}
