//! Grok's files are detected as its own, and its claims take no other agent's lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::dialects::claim_checks::{self, EachLine, read};
use crate::{Dialect, detect_line};

/// A chat history's `system` record, which Claude Code claims (every `system` line):
/// detection puts Claude Code on trial, which understands none of the lines, and goes on.
fn claude_codes_system_record(line: &[u8]) -> bool {
    line.starts_with(br#"{"type":"system","#)
}

#[test]
fn detection_picks_grok_for_every_recording() {
    // Each line is the dialect's or claimed by nobody, but that `system` record.
    let lines = EachLine::ClaimedByNoOther {
        exempt: claude_codes_system_record,
    };
    let files = claim_checks::assert_recordings_detected_as(&["grok"], Dialect::GROK, lines);
    assert!(files >= 10, "{files} Grok recordings");
    let sessions = claim_checks::assert_recordings_detected_as(
        &["grok-session"],
        Dialect::GROK_SESSION,
        lines,
    );
    assert!(sessions > 0);
}

#[test]
fn the_claim_is_grok_clis_assistant_message_only() {
    let grok = r#"{"role":"assistant","content":"Using tools to help you...","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}"#;
    assert_eq!(detect_line(grok.as_bytes()), Some(Dialect::GROK));
    let not_claimed = [
        // Prompts, answers and results: every Chat Completions client prints them so.
        r#"{"role":"user","content":"Do the task."}"#,
        r#"{"role":"assistant","content":"Done."}"#,
        r#"{"role":"tool","tool_call_id":"c1","content":"ok"}"#,
        // Content as a list of parts, the items' keys in another order, another key.
        r#"{"role":"assistant","content":[],"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}"#,
        r#"{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"c1","function":{"name":"bash","arguments":"{}"}}]}"#,
        r#"{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}],"reasoning_content":"x"}"#,
        r#"{"type":"message","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}"#,
    ];
    for line in not_claimed {
        assert_ne!(detect_line(line.as_bytes()), Some(Dialect::GROK), "{line}");
    }
}

#[test]
fn the_chat_history_claims_its_own_records() {
    let claimed = [
        r#"{"type":"backend_tool_call","kind":{"tool_type":"web_search","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}}"#,
        r#"{"type":"tool_result","tool_call_id":"call_1","content":"ok"}"#,
        r#"{"type":"assistant","content":"x","tool_calls":[{"id":"call_1","name":"read_file","arguments":"{}"}],"model_id":"m"}"#,
        r#"{"type":"user","content":[{"type":"text","text":"x"}],"prompt_index":0}"#,
    ];
    for line in claimed {
        assert_eq!(
            detect_line(line.as_bytes()),
            Some(Dialect::GROK_SESSION),
            "{line}"
        );
    }
    let not_claimed = [
        r#"{"type":"system","content":"You are Grok"}"#,
        r#"{"type":"reasoning","id":"rs_1","summary":[]}"#,
        r#"{"type":"user","content":"hello"}"#,
        r#"{"type":"tool_result","tool_id":"t","status":"success","output":"ok"}"#,
    ];
    for line in not_claimed {
        assert_ne!(
            detect_line(line.as_bytes()),
            Some(Dialect::GROK_SESSION),
            "{line}"
        );
    }
}

#[test]
fn every_odd_headless_line_is_told_with_its_line() {
    let input = [
        r#"{"role":"user","content":"go"}"#,
        r#"{"role":"assistant","content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{not json"}},{"type":"function","function":{"name":"bash"}}]}"#,
        r#"{"role":"tool","tool_call_id":"c1","content":"Tool execution error: Unexpected token"}"#,
        r#"{"role":"tool","tool_call_id":"c1","content":"again"}"#,
        r#"{"role":"tool","content":"no id"}"#,
        r#"{"role":"tool","tool_call_id":"c9","content":"orphan"}"#,
        r#"{"role":"developer","content":"?"}"#,
        "not json",
    ]
    .join("\n");
    let reading = read(Dialect::GROK, &input);
    let (kinds, diagnostics, parts) = (reading.kinds(), reading.diagnostics, reading.parts);
    assert_eq!(
        kinds,
        [
            (2, "malformed-event"),
            (2, "malformed-event"),
            (4, "rejected"),
            (5, "malformed-event"),
            (6, "unknown-call"),
            (7, "unknown-event"),
            (8, "invalid-json"),
        ],
        "{diagnostics:?}"
    );
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].id, "c1");
    assert_eq!(parts[0].input, serde_json::json!("{not json"));
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(error.code, Some(toolnorm::ErrorCode::InvalidToolUse));
    assert_eq!(parts[1].id, "c9");
    assert_eq!(
        parts[1].output.as_deref(),
        Some(&serde_json::json!("orphan"))
    );
}

#[test]
fn every_odd_history_record_is_told_with_its_line() {
    let input = [
        r#"{"type":"backend_tool_call","kind":{"tool_type":"web_search","id":"ws_1","status":"in_progress","action":{"type":"search","query":"q"}}}"#,
        r#"{"type":"backend_tool_call","kind":{"tool_type":"web_search","status":"completed"}}"#,
        r#"{"type":"assistant","content":"x","tool_calls":[{"id":"c1","arguments":"{}"}]}"#,
        r#"{"type":"tool_result","content":"no id"}"#,
        r#"{"type":"compaction","summary":"?"}"#,
        r#"{"type":"tool_result","tool_call_id":"c2","content":[{"type":"text","text":"seen"}],"images":[{"type":"image","url":"x"}]}"#,
    ]
    .join("\n");
    let reading = read(Dialect::GROK_SESSION, &input);
    let (kinds, diagnostics, parts) = (reading.kinds(), reading.diagnostics, reading.parts);
    assert_eq!(
        kinds,
        [
            (2, "malformed-event"),
            (3, "malformed-event"),
            (4, "malformed-event"),
            (5, "unknown-event"),
            (6, "unknown-call"),
        ],
        "{diagnostics:?}"
    );
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].id, "ws_1");
    assert_eq!(parts[0].state, toolnorm::ToolState::Running);
    assert_eq!(
        parts[1].output.as_deref(),
        Some(&serde_json::json!({"text": "seen", "images": [{"type": "image", "url": "x"}]}))
    );
}
