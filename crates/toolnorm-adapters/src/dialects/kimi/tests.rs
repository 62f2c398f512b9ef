//! Kimi's claims and detection: each of its file kinds is read as its own dialect, never
//! as another's (a wire log once read as `codex exec`), and no other dialect's recording
//! is read as Kimi's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::Dialect;
use crate::dialects::claim_checks::{self, EachLine, TextRead, one_a_line, read};
use crate::dialects::detect_line;

/// What claims a Grok CLI message: Grok's dialect, when it is built.
#[cfg(feature = "grok")]
const GROK: Option<Dialect> = Some(Dialect::GROK);
#[cfg(not(feature = "grok"))]
const GROK: Option<Dialect> = None;

#[test]
fn each_kimi_line_kind_is_claimed_by_its_dialect() {
    let cases: &[(&str, Option<Dialect>)] = &[
        (r#"{"role": "_checkpoint", "id": 0}"#, Some(Dialect::KIMI)),
        (
            r#"{"role": "_usage", "token_count": 100}"#,
            Some(Dialect::KIMI),
        ),
        (
            r#"{"role": "_system_prompt", "content": "You are Kimi"}"#,
            Some(Dialect::KIMI),
        ),
        (
            r#"{"role":"assistant","content":"x","tool_calls":[{"type":"function","id":"c","function":{"name":"Shell","arguments":"{}"}}]}"#,
            Some(Dialect::KIMI),
        ),
        (
            r#"{"role":"tool","content":"<system>ok</system>","tool_call_id":"c"}"#,
            Some(Dialect::KIMI),
        ),
        (
            r#"{"role":"tool","content":[{"type": "text", "text": "<system>ERROR: no</system>"}],"tool_call_id":"c"}"#,
            Some(Dialect::KIMI),
        ),
        // A plain text message says nothing of its own: read once a claimed line decided.
        (r#"{"role":"assistant","content":"done"}"#, None),
        // Grok CLI's headless messages: its calls begin with their id (Grok's own claim
        // when its dialect is built), its results are plain text.
        (
            r#"{"role":"assistant","content":"x","tool_calls":[{"id":"c","type":"function","function":{"name":"read","arguments":"{}"}}]}"#,
            GROK,
        ),
        (
            r#"{"role":"tool","tool_call_id":"c","content":"Unknown tool: read"}"#,
            None,
        ),
        (
            r#"{"type": "metadata", "protocol_version": "1.10"}"#,
            Some(Dialect::KIMI_WIRE),
        ),
        (
            r#"{"timestamp": 1.5, "message": {"type": "TurnBegin", "payload": {"user_input": "hi"}}}"#,
            Some(Dialect::KIMI_WIRE),
        ),
        (
            r#"{"timestamp": 1.5, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "c", "function": {"name": "Shell", "arguments": "{}"}}}}"#,
            Some(Dialect::KIMI_WIRE),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolResult","payload":{"tool_call_id":"c","return_value":{"is_error":false}}}}"#,
            Some(Dialect::KIMI_WIRE),
        ),
        // Codex's rollout: `timestamp`, `type` and `payload`, no `message`.
        (
            r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s"}}"#,
            Some(Dialect::CODEX_ROLLOUT),
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(detect_line(line.as_bytes()), *expected, "{line}");
    }
}

#[test]
fn every_kimi_recording_is_detected_as_its_own_dialect() {
    let seen = claim_checks::assert_recordings_detected_as(
        &["kimi", "kimi-context"],
        Dialect::KIMI,
        EachLine::Unchecked,
    ) + claim_checks::assert_recordings_detected_as(
        &["kimi-wire"],
        Dialect::KIMI_WIRE,
        EachLine::Unchecked,
    );
    assert!(seen >= 30, "{seen} Kimi recordings");
}

#[test]
fn no_other_recording_is_detected_as_kimi() {
    claim_checks::assert_no_other_fixture_is(
        &["kimi", "kimi-context", "kimi-wire", "kimi-rpc"],
        &[Dialect::KIMI, Dialect::KIMI_WIRE],
    );
}

#[test]
fn wire_arguments_streamed_in_pieces_give_the_whole_input() {
    let TextRead {
        parts, diagnostics, ..
    } = read(
        Dialect::KIMI_WIRE,
        &one_a_line(&[
            r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolCall","payload":{"type":"function","id":"c","function":{"name":"Shell","arguments":""}}}}"#,
            r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolCallPart","payload":{"arguments_part":"{\"command\":\"ec"}}}"#,
            r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolCallPart","payload":{"arguments_part":"ho hi\"}"}}}"#,
            r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolResult","payload":{"tool_call_id":"c","return_value":{"is_error":false,"output":"hi\n","message":""}}}}"#,
            r#"{"jsonrpc":"2.0","id":"2","result":{"status":"finished"}}"#,
        ]),
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].input, serde_json::json!({"command": "echo hi"}));
    assert_eq!(parts[0].output.as_deref(), Some(&serde_json::json!("hi\n")));
}

#[test]
fn odd_wire_lines_are_told_with_their_line() {
    let TextRead {
        parts, diagnostics, ..
    } = read(
        Dialect::KIMI_WIRE,
        &one_a_line(&[
            r#"{"type": "metadata", "protocol_version": "1.10"}"#,
            r#"{"timestamp": 1.5, "message": {"type": "ToolCallPart", "payload": {"arguments_part": "{"}}}"#,
            r#"{"timestamp": 1.5, "message": {"type": "ToolResult", "payload": {"tool_call_id": "x", "return_value": {"is_error": true, "message": "Tool `Nope` not found"}}}}"#,
            r#"{"timestamp": 1.5, "message": {"type": "Brand-new", "payload": {}}}"#,
            r#"{"timestamp": 1.5, "message": {"type": "ToolResult", "payload": {}}}"#,
            "not json",
        ]),
    );
    let lines: Vec<Option<u64>> = diagnostics
        .iter()
        .map(|diagnostic| diagnostic.line)
        .collect();
    assert_eq!(
        lines,
        [Some(2), Some(3), Some(4), Some(5), Some(6)],
        "{diagnostics:?}"
    );
    assert_eq!(parts.len(), 1);
    assert_eq!(
        parts[0].error.as_ref().and_then(|error| error.code.clone()),
        Some(toolnorm::ErrorCode::InvalidToolUse)
    );
}

#[test]
fn odd_messages_are_told_with_their_line() {
    let TextRead {
        parts, diagnostics, ..
    } = read(
        Dialect::KIMI,
        &one_a_line(&[
            r#"{"role":"assistant","content":[],"tool_calls":[{"type":"function","id":"c","function":{"name":"Shell","arguments":"{\"command\":"}}]}"#,
            r#"{"role":"tool","content":"<system>ERROR: Command failed with exit code: 2.</system>","tool_call_id":"c"}"#,
            r#"{"role":"tool","content":"again","tool_call_id":"c"}"#,
            r#"{"role":"narrator","content":"?"}"#,
            r#"{"role":"assistant","content":[],"tool_calls":[{"type":"function"}]}"#,
            r#"{"category":"task","type":"done","title":"t","body":"b"}"#,
        ]),
    );
    let lines: Vec<Option<u64>> = diagnostics
        .iter()
        .map(|diagnostic| diagnostic.line)
        .collect();
    // The arguments that are no JSON object, the second result, the unknown role, the
    // call without its function; the notification is known.
    assert_eq!(
        lines,
        [Some(1), Some(3), Some(4), Some(5)],
        "{diagnostics:?}"
    );
    assert_eq!(parts.len(), 1);
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(error.code, Some(toolnorm::ErrorCode::ExitCode));
}

#[test]
fn calls_read_in_one_scan_read_as_call_by_call() {
    use crate::read::scan_check;
    let recorded = scan_check::recordings_read_alike(Dialect::KIMI, |name| {
        name.starts_with("kimi") && !name.starts_with("kimi-wire") && !name.starts_with("kimi-rpc")
    });
    assert!(recorded >= 3, "{recorded} files");
    let call = |id: &str| {
        format!(
            r#"{{"type":"function","id":"{id}","function":{{"name":"Shell","arguments":"{{\"command\":\"ls\"}}"}}}}"#
        )
    };
    let assistant =
        |calls: &str| format!(r#"{{"role":"assistant","content":"x","tool_calls":[{calls}]}}"#);
    let lines = [
        assistant(&call("c1")),
        assistant(&format!("{},{}", call("c2"), call("c3"))),
        // A call that does not read in place (arguments not a string, an id that is a
        // number, no `function`, a key twice, not an object) and one that does beside it.
        assistant(&format!(
            r#"{{"type":"function","id":"c4","function":{{"name":"Shell","arguments":{{"command":"ls"}}}}}},{}"#,
            call("c5")
        )),
        assistant(&format!(
            r#"{{"id":6,"function":{{"name":"Shell"}}}},{}"#,
            call("c7")
        )),
        assistant(&format!(r#"{{"type":"function","id":"c8"}},{}"#, call("c9"))),
        assistant(&format!(
            r#"{{"id":"c10","id":"c11","function":{{"name":"Shell"}}}},{}"#,
            call("c12")
        )),
        assistant(&format!(r#"7,{}"#, call("c13"))),
        r#"{"role":"assistant","content":"x","tool_calls":null}"#.to_owned(),
        r#"{"role":"assistant","content":"x","tool_calls":{"id":"c14"}}"#.to_owned(),
        r#"{"role":"tool","content":"<system>Command executed successfully.</system>","tool_call_id":"c1"}"#.to_owned(),
        r#"{"role":"tool","content":"done","tool_call_id":"c2","tool_calls":[7]}"#.to_owned(),
        r#"{"role":"assistant","content":"x","tool_calls":["#.to_owned(),
    ];
    let stream = lines.join("\n");
    let steps = scan_check::read_alike(Dialect::KIMI, stream.as_bytes(), "the stream");
    let told = |what: &str| scan_check::told(&steps, what);
    assert!(
        told("toolCallStarted") >= 9 && told("without its `function`") >= 1,
        "{steps:#?}"
    );
}
