//! Recognising the dialect of a stream from its first lines.
//!
//! Each line is probed for a few top-level keys; the first line that belongs to exactly
//! one dialect decides. Lines that fit none (a JSON-RPC response, a blank or broken line)
//! are held and replayed once the dialect is known.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::Dialect;

/// How many lines are read, at most, before giving up on detection.
pub const DETECTION_WINDOW: usize = 32;

/// Just enough of a line to tell the dialects apart.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(borrow, rename = "type", default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(default)]
    properties: Option<IgnoredAny>,
    #[serde(default)]
    payload: Option<IgnoredAny>,
    #[serde(default, rename = "sessionID")]
    opencode_session: Option<IgnoredAny>,
}

/// The canonical event types.
const EVENT_TYPES: &[&str] = &[
    "toolCallStarted",
    "inputUpdated",
    "titleUpdated",
    "metadataMerged",
    "toolCallRunning",
    "outputAppended",
    "toolCallCompleted",
    "toolCallFailed",
];

/// Claude Code stream-json and transcript line types.
const CLAUDE_TYPES: &[&str] = &[
    "system",
    "assistant",
    "user",
    "result",
    "stream_event",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "last-prompt",
];

/// The dialect one line belongs to, if it says.
pub fn detect_line(bytes: &[u8]) -> Option<Dialect> {
    let probe: Probe<'_> = serde_json::from_slice(bytes).ok()?;
    if let Some(method) = probe.method.as_deref() {
        // JSON-RPC: ACP says `"jsonrpc": "2.0"` (methods `session/…`, `fs/…`,
        // `terminal/…`, `_…` extensions); the Codex app-server leaves it out, and its
        // methods are other `noun/verb` paths.
        if probe.jsonrpc.as_deref() == Some("2.0") {
            return Some(Dialect::Acp);
        }
        return (method.contains('/') && !method.starts_with("session/"))
            .then_some(Dialect::CodexAppServer);
    }
    if probe.payload.is_some() {
        return Some(Dialect::OpenCode);
    }
    let kind = probe.kind.as_deref()?;
    if EVENT_TYPES.contains(&kind) {
        return Some(Dialect::Events);
    }
    if probe.properties.is_some() && kind.contains('.') {
        return Some(Dialect::OpenCode);
    }
    if probe.opencode_session.is_some()
        && matches!(
            kind,
            "tool_use" | "step_start" | "step_finish" | "text" | "reasoning" | "error"
        )
    {
        return Some(Dialect::OpenCode);
    }
    if ["thread.", "turn.", "item."]
        .iter()
        .any(|prefix| kind.starts_with(prefix))
    {
        return Some(Dialect::CodexExec);
    }
    CLAUDE_TYPES.contains(&kind).then_some(Dialect::ClaudeCode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dialect_is_recognised() {
        let cases: &[(&str, Option<Dialect>)] = &[
            (
                r#"{"type":"toolCallRunning","id":"a"}"#,
                Some(Dialect::Events),
            ),
            (
                r#"{"type":"system","subtype":"init","cwd":"/w"}"#,
                Some(Dialect::ClaudeCode),
            ),
            (
                r#"{"parentUuid":null,"type":"user","message":{}}"#,
                Some(Dialect::ClaudeCode),
            ),
            (
                r#"{"type":"thread.started","thread_id":"t"}"#,
                Some(Dialect::CodexExec),
            ),
            (
                r#"{"method":"item/started","params":{}}"#,
                Some(Dialect::CodexAppServer),
            ),
            (r#"{"id":1,"result":{}}"#, None),
            (
                r#"{"id":"e","type":"message.part.updated","properties":{}}"#,
                Some(Dialect::OpenCode),
            ),
            (
                r#"{"directory":"/w","payload":{"type":"server.connected"}}"#,
                Some(Dialect::OpenCode),
            ),
            (
                r#"{"type":"step_start","timestamp":1,"sessionID":"s","part":{}}"#,
                Some(Dialect::OpenCode),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#,
                Some(Dialect::Acp),
            ),
            (
                r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}"#,
                Some(Dialect::Acp),
            ),
            (r#"{"method":"session/update","params":{}}"#, None),
            (
                r#"{"jsonrpc":"2.0","method":"_auth/status_update","params":{}}"#,
                Some(Dialect::Acp),
            ),
            (r#"{"type":"mystery"}"#, None),
            ("not json", None),
        ];
        for (line, expected) in cases {
            assert_eq!(detect_line(line.as_bytes()), *expected, "{line}");
        }
    }
}
