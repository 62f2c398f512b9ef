//! Cursor CLI: `cursor-agent -p --output-format stream-json` (the `agent` command).
//!
//! Cursor publishes no types for this stream and its CLI is not on a registry toolnorm can
//! reach: the reader follows the documented format (cursor.com/docs/cli/reference/output-format)
//! and the public captures under `fixtures/cursor/` (their provenance names each source).
//! A call is a pair of `tool_call` lines sharing a `call_id`: `subtype` `started`, then
//! `completed`. The `tool_call` object holds one typed payload, keyed
//! `<name>ToolCall` (`shellToolCall`, `readToolCall`, `editToolCall`, …), with the call's
//! `args` and, once completed, its `result`: `success`, `failure`, `error` or `rejected`.
//!
//! | line | canonical events | module |
//! | --- | --- | --- |
//! | `system` `init` | a new session (`session_id`), remembers `cwd` | |
//! | `tool_call` `started` | `toolCallStarted` (name: the payload key without `ToolCall`; an `mcpToolCall` is named by its `toolName`, with `metadata.mcp`; a `function` payload by its `name`) | `payload` |
//! | `tool_call` `completed`, `result.success` | `toolCallCompleted` (a shell call that exited non-zero fails with `exit_code`) | `outcome` |
//! | `tool_call` `completed`, `result.failure` / `error` | `toolCallFailed` (`exit_code` for a shell's exit status) | `outcome` |
//! | `tool_call` `completed`, `result.rejected` | `toolCallFailed` with `permission_denied` | `outcome` |
//! | `user`, `assistant`, `thinking`, `result`, `connection`, `retry` | (skipped: no call) | |
//!
//! Timing: `startedAtMs` and `completedAtMs` (epoch milliseconds written as strings) give
//! the start, the end and the elapsed time. A `completed` line whose `started` line was
//! not seen (a stream joined late) opens its call from the payload it repeats.

use serde::Deserialize;
use serde_json::Value;

use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;
use holder::ToolCallField;

mod holder;
mod outcome;
mod payload;

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("cursor", "cursor");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) =
    ("src/dialects/cursor/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Cursor CLI `--output-format stream-json`.
    pub const CURSOR: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Cursor CLI stream-json (built from public samples)",
    feature: "cursor",
    rules: RULES,
    claims,
    adapter: |_| Box::new(CursorAdapter),
    // No CLI to record: the fixtures are public samples.
    read_ahead: None,
    recordings: &[],
    agent_version: "",
    stores: &[],
};

/// The line types only Cursor writes.
const OWN_TYPES: &[&str] = &["tool_call", "thinking", "connection", "retry"];

/// Whether a line is Cursor's, on evidence only Cursor writes: a `tool_call`, `thinking`,
/// `connection` or `retry` line; a line with its `model_call_id` or `timestamp_ms`; the
/// `system` `init` line that names `apiKeySource` but lists no `tools` (Claude Code's
/// lists them); a `result` with its `request_id`; a `user` or `assistant` message with a
/// `session_id` but none of the keys Claude Code (`uuid`, `parent_tool_use_id`) or Amp
/// (its `T-` thread ids) write, and an assistant `message` without the API's `id`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("method") || keys.has("payload") || keys.has("uuid") {
        return false;
    }
    let Some(kind) = keys.kind() else {
        return false;
    };
    if kind == "tool_call" {
        // Factory Droid writes `tool_call` lines too, with neither key.
        return keys.has("call_id") || keys.has("subtype");
    }
    if OWN_TYPES.contains(&kind.as_ref()) {
        return keys.has("session_id") || keys.has("call_id") || keys.has("subtype");
    }
    if !matches!(kind.as_ref(), "system" | "user" | "assistant" | "result") {
        return false;
    }
    if keys.has("model_call_id") || keys.has("timestamp_ms") {
        return true;
    }
    if keys
        .str("session_id")
        .is_some_and(|session| session.starts_with("T-"))
    {
        return false;
    }
    match kind.as_ref() {
        "system" => keys.has("apiKeySource") && keys.has("permissionMode") && !keys.has("tools"),
        "result" => keys.has("request_id") && keys.has("duration_api_ms"),
        _ => {
            keys.has("session_id")
                && keys.has("message")
                && !keys.has("parent_tool_use_id")
                && !keys.object_has("message", "id")
                && !keys.object_has("message", "parts")
        }
    }
}

/// Reads Cursor CLI stream-json.
pub struct CursorAdapter;

/// The keys of a line that say what it is.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    subtype: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    tool_call: Option<ToolCallField>,
    #[serde(default)]
    timestamp_ms: Option<u64>,
}

/// The line types that carry no call.
const NO_CALL: &[&str] = &[
    "user",
    "assistant",
    "thinking",
    "result",
    "connection",
    "retry",
];

impl Adapter for CursorAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let mut envelope: Envelope<'_> =
            match json::parse_line(line, bytes, "not a Cursor CLI event") {
                Ok(envelope) => envelope,
                Err(diagnostic) => return facts.diagnostic(diagnostic),
            };
        let kind = envelope.kind.take();
        match kind.as_deref() {
            Some("system") => {
                if envelope.subtype.as_deref() == Some("init") {
                    if let Some(session) = &envelope.session_id {
                        facts.begin_session(session);
                    }
                    if let Some(cwd) = envelope.cwd {
                        facts.set_cwd(cwd);
                    }
                }
            }
            Some("tool_call") => tool_call(line, envelope, facts),
            Some(kind) if NO_CALL.contains(&kind) => {}
            other => {
                let what = other.map_or_else(
                    || "a Cursor CLI line without a `type`".to_owned(),
                    |kind| format!("unknown Cursor CLI event type `{kind}`"),
                );
                facts.diagnostic(Diagnostic::notice(line, DiagnosticKind::UnknownEvent, what));
                // Nothing tool-like is dropped: a line with a call id and a payload is
                // read as a `tool_call`.
                if envelope.call_id.is_some() && envelope.tool_call.is_some() {
                    tool_call(line, envelope, facts);
                }
            }
        }
    }
}

/// A `tool_call` line: its call starts, or ends.
fn tool_call(line: u64, envelope: Envelope<'_>, facts: &mut Facts<'_>) {
    let Some(ToolCallField::Object(holder)) = envelope.tool_call else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "Cursor CLI tool_call event: no `tool_call` object",
        ));
    };
    let Some(call) = payload::read(&holder) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "Cursor CLI tool_call event: no `…ToolCall` payload in `tool_call`",
        ));
    };
    let id = envelope.call_id.or_else(|| {
        holder
            .get("toolCallId")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let Some(id) = id else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            format!(
                "Cursor CLI tool_call event: the `{}` call has no `call_id`",
                call.name
            ),
        ));
    };
    let timing = payload::Timing::of(&holder, envelope.timestamp_ms);
    match envelope.subtype.as_deref() {
        Some("started") => {
            facts.sighted(line, call.sighting(&id, timing.started()));
        }
        Some("completed") => {
            if !facts.is_open(&id) && facts.finished(&id).is_none() {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!(
                        "Cursor CLI `{}` call `{id}` completed without its start: opened from its completion",
                        call.name
                    ),
                ));
                facts.sighted(line, call.sighting(&id, timing.started()));
            }
            outcome::apply(line, &id, &call, timing, facts);
        }
        other => {
            // An update this reader does not know still shows its call.
            facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!(
                    "Cursor CLI tool_call event with subtype `{}`: read as a sighting of its call",
                    other.unwrap_or("")
                ),
            ));
            facts.sighted(line, call.sighting(&id, timing.started()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::claim_checks;
    use toolnorm::{ToolKind, ToolState};

    fn read(text: &str) -> (Vec<toolnorm::NormalizedToolPart>, Vec<Diagnostic>) {
        let reading = claim_checks::read(DIALECT, text);
        (reading.parts, reading.diagnostics)
    }

    #[test]
    fn an_unknown_payload_is_still_a_call() {
        let (parts, diagnostics) = read(concat!(
            r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"someFutureToolCall":{"args":{"x":1}}},"session_id":"s"}"#,
            "\n",
            r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"someFutureToolCall":{"args":{"x":1},"result":{"success":{"y":2}}}},"session_id":"s"}"#,
            "\n",
        ));
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].name, "someFuture");
        assert_eq!(parts[0].kind, ToolKind::Unknown);
        assert_eq!(parts[0].state, ToolState::Complete);
        assert_eq!(
            parts[0].output.as_deref(),
            Some(&serde_json::json!({"y": 2}))
        );
    }

    #[test]
    fn lines_without_a_call_id_or_payload_are_errors_and_unknown_types_notices() {
        let (parts, diagnostics) = read(concat!(
            r#"{"type":"tool_call","subtype":"started","tool_call":{"readToolCall":{"args":{"path":"a"}}},"session_id":"s"}"#,
            "\n",
            r#"{"type":"tool_call","subtype":"started","call_id":"c2","tool_call":{},"session_id":"s"}"#,
            "\n",
            r#"{"type":"interaction_query","subtype":"request","session_id":"s"}"#,
            "\n",
            "not json\n",
        ));
        assert!(parts.is_empty(), "{parts:?}");
        let lines: Vec<(Option<u64>, bool)> = diagnostics
            .iter()
            .map(|diagnostic| (diagnostic.line, diagnostic.is_error()))
            .collect();
        assert_eq!(
            lines,
            [
                (Some(1), true),
                (Some(2), true),
                (Some(3), false),
                (Some(4), true)
            ]
        );
    }

    #[test]
    fn a_shell_success_with_a_non_zero_exit_fails() {
        let (parts, _) = read(concat!(
            r#"{"type":"tool_call","subtype":"completed","call_id":"c3","tool_call":{"shellToolCall":{"args":{"command":"false"},"result":{"success":{"exitCode":2,"stdout":"","stderr":"no"}}}},"session_id":"s"}"#,
            "\n",
        ));
        let error = parts[0].error.as_ref().unwrap();
        assert_eq!(error.message, "Exit code 2");
        assert_eq!(
            error.code.as_ref().map(|code| code.as_str()),
            Some("exit_code")
        );
    }

    #[test]
    fn claude_codes_and_amps_lines_are_not_cursors() {
        for line in [
            r#"{"type":"system","subtype":"init","apiKeySource":"none","cwd":"/w","session_id":"s","tools":["Bash"],"permissionMode":"default","uuid":"u"}"#,
            r#"{"type":"user","message":{"role":"user","content":[]},"parent_tool_use_id":"p","session_id":"s","uuid":"u"}"#,
            r#"{"type":"user","message":{"role":"user","content":[]},"session_id":"T-01a23b47-667c-70cc-b630-c7749aeedb07"}"#,
            r#"{"type":"result","subtype":"success","session_id":"s","num_turns":1,"uuid":"u"}"#,
        ] {
            let keys = LineKeys::of(line.as_bytes()).unwrap();
            assert!(!claims(&keys), "{line}");
        }
    }
}
