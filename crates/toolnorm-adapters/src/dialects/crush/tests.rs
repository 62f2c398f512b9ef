//! Crush's rows are detected as its own, its claims take no other agent's lines, its
//! subagents' calls are told under the call that started them, and its odd rows are told
//! with their lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use toolnorm::{ErrorCode, ToolState, meta};

use crate::dialects::claim_checks::{self, EachLine, fixtures};
use crate::{Dialect, detect_line};

/// A part's metadata entry `key` (null when it has none).
fn meta_of(part: &toolnorm::NormalizedToolPart, key: &str) -> Value {
    part.metadata
        .as_ref()
        .and_then(|metadata| metadata.get(key))
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn the_sample_is_detected_as_crush_line_by_line() {
    let files =
        claim_checks::assert_recordings_detected_as(&["crush"], Dialect::CRUSH, EachLine::Claimed);
    assert!(files > 0);
}

#[test]
fn no_other_fixture_is_detected_as_crush() {
    let read = claim_checks::assert_no_other_fixture_is(&["crush"], &[Dialect::CRUSH]);
    assert!(read > 100, "{read}");
}

#[test]
fn the_claims_are_crushs_columns_only() {
    let not_claimed = [
        // A row with a `type` is another agent's event.
        r#"{"type":"message","session_id":"s","role":"user","parts":[],"finished_at":null}"#,
        // A message without Crush's times; a session without its token counts and cost.
        r#"{"id":"m","session_id":"s","role":"user","parts":[],"finished_at":1}"#,
        r#"{"id":"s","parent_session_id":null,"title":"t","message_count":1}"#,
        // OpenCode's message of its export: `info` and `parts`.
        r#"{"info":{"id":"m","sessionID":"s","role":"user"},"parts":[]}"#,
    ];
    for line in not_claimed {
        assert_ne!(detect_line(line.as_bytes()), Some(Dialect::CRUSH), "{line}");
    }
}

/// The sample's parts, by id.
fn sample_parts() -> Vec<toolnorm::NormalizedToolPart> {
    let text = std::fs::read_to_string(fixtures().join("crush/session.jsonl")).unwrap();
    claim_checks::read(Dialect::CRUSH, &text).clean_parts()
}

#[test]
fn a_subagents_calls_are_told_under_the_call_that_started_it() {
    let parts = sample_parts();
    let by_id = |id: &str| parts.iter().find(|part| part.id == id).unwrap();
    let agent = by_id("call_agent_1");
    assert_eq!(agent.state, ToolState::Complete);
    assert_eq!(
        meta_of(agent, meta::CHILD_SESSION_ID),
        "a1b2c3d4-0000-4000-8000-000000000009$$call_agent_1"
    );
    let glob = by_id("call_glob_1");
    assert_eq!(meta_of(glob, meta::PARENT_TOOL_CALL_ID), "call_agent_1");
    assert_eq!(
        meta_of(glob, meta::SESSION_ID),
        meta_of(agent, meta::CHILD_SESSION_ID)
    );
    assert!(meta_of(by_id("call_view_1"), meta::PARENT_TOOL_CALL_ID).is_null());
}

#[test]
fn each_ending_is_told_as_crush_meant_it() {
    let parts = sample_parts();
    let code = |id: &str| {
        let part = parts.iter().find(|part| part.id == id).unwrap();
        part.error.as_ref().and_then(|error| error.code.clone())
    };
    assert_eq!(code("call_write_1"), Some(ErrorCode::UserRejected));
    assert_eq!(code("call_bash_2"), Some(ErrorCode::Interrupted));
    assert_eq!(code("call_mcp_1"), Some(ErrorCode::McpError));
    let bash = parts.iter().find(|part| part.id == "call_bash_1").unwrap();
    // A command that exited non-zero is no error for Crush.
    assert_eq!(bash.state, ToolState::Complete);
    assert_eq!(
        bash.timing.as_ref().and_then(|timing| timing.elapsed_ms),
        Some(1000)
    );
    let mcp = parts.iter().find(|part| part.id == "call_mcp_1").unwrap();
    assert_eq!(meta_of(mcp, meta::MCP)[meta::MCP_SERVER], "github");
    assert_eq!(meta_of(mcp, meta::MCP)[meta::MCP_TOOL], "list_issues");
    assert_eq!(parts.len(), 10);
}

/// A `messages` row of session `s` with these parts.
fn message(parts: &str) -> String {
    format!(
        r#"{{"id":"m","session_id":"s","role":"assistant","parts":{parts},"model":null,"created_at":1764921600,"updated_at":1764921600,"finished_at":null}}"#
    )
}

#[test]
fn every_odd_row_is_told_with_its_line() {
    let input = [
        // 1: a call without an id, one that names no tool, one whose input is no object.
        message(
            r#"[{"type":"tool_call","data":{"name":"bash","input":"{}","finished":true}},{"type":"tool_call","data":{"id":"c1","input":"{}","finished":true}},{"type":"tool_call","data":{"id":"c2","name":"bash","input":"ls -la","finished":true}}]"#,
        ),
        // 2: c1's result, then a second one.
        message(r#"[{"type":"tool_result","data":{"tool_call_id":"c1","content":"ok"}}]"#),
        message(r#"[{"type":"tool_result","data":{"tool_call_id":"c1","content":"ok"}}]"#),
        // 4: a result whose call the input does not hold; one without its call's id.
        message(
            r#"[{"type":"tool_result","data":{"tool_call_id":"c9","name":"view","content":"x","is_error":true}},{"type":"tool_result","data":{"content":"x"}}]"#,
        ),
        // 5: a part of an unknown type that carries a call; a part that does not read.
        message(r#"[{"type":"server_tool_call","data":{"id":"c3","name":"web_search","input":"{}"}},7]"#),
        // 6: parts as the column's JSON text, and parts that do not read.
        message(r#""[{\"type\":\"tool_call\",\"data\":{\"id\":\"c4\",\"name\":\"view\",\"input\":\"{\\\"file_path\\\":\\\"a\\\"}\",\"finished\":true}}]""#),
        message(r#""[{not json""#),
        // 8: a call cut short while it streamed: its input as far as it came.
        message(r#"[{"type":"tool_call","data":{"id":"c5","name":"view","input":"{\"file_path\":\"/a/b","finished":false}}]"#),
        // 9: a row that is neither; not JSON.
        r#"{"id":"x","session_id":"s","parts_count":3}"#.to_owned(),
        "not json".to_owned(),
        // 11: parts that are neither a list nor its text.
        message(r#"{"type":"tool_call"}"#),
    ]
    .join("\n");
    let reading = claim_checks::read(Dialect::CRUSH, &input);
    let (lines, parts) = (reading.kinds(), reading.parts);
    assert_eq!(
        lines,
        [
            (1, "malformed-event"),
            (1, "malformed-event"),
            (1, "malformed-event"),
            (3, "rejected"),
            (4, "unknown-call"),
            (4, "malformed-event"),
            (5, "unknown-event"),
            (5, "malformed-event"),
            (7, "malformed-event"),
            (9, "unknown-event"),
            (10, "invalid-json"),
            (11, "malformed-event"),
        ]
    );
    let input_of = |id: &str| -> Value {
        parts
            .iter()
            .find(|part| part.id == id)
            .map(|part| part.input.clone())
            .unwrap()
            .into()
    };
    assert_eq!(input_of("c2"), "ls -la");
    assert_eq!(input_of("c4")["file_path"], "a");
    assert_eq!(input_of("c5")["file_path"], "/a/b");
    assert_eq!(
        parts.iter().find(|part| part.id == "c1").unwrap().name,
        "tool"
    );
    let c9 = parts.iter().find(|part| part.id == "c9").unwrap();
    assert_eq!((c9.name.as_str(), c9.state), ("view", ToolState::Error));
    assert_eq!(
        parts.iter().find(|part| part.id == "c3").unwrap().name,
        "web_search"
    );
}
