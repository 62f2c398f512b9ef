//! Vibe's claims and detection: its streaming output and its journal are each read as
//! their own dialect, no other dialect's recording is read as Vibe's, and every odd line
//! is told with its line.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use toolnorm::{ErrorCode, ToolState};

use crate::Dialect;
use crate::dialects::claim_checks::{self, EachLine, one_a_line, read};
use crate::dialects::detect_line;

/// A streamed effect entry of `status`, its `state` the rest.
fn effect(id: &str, tool: &str, state: &str) -> String {
    format!(
        r#"{{"id":"{id}","sessionId":"s","turnId":"t","inputEntryId":"u","createdAt":1,"updatedAt":2,"generationStatus":"completed","relatedEntryId":null,"type":"effect","title":"{tool}","detail":{{"kind":"tool","toolName":"{tool}","input":{{"command":"exit 3"}}}},"state":{state}}}"#
    )
}

/// A journal record of `kind` with `payload`.
fn record(sequence: u64, kind: &str, payload: &str) -> String {
    format!(
        r#"{{"payload":{payload},"previous_record_sha256":null,"record_sha256":"0","recovery_journal_record_version":1,"sequence":{sequence},"type":"{kind}"}}"#
    )
}

#[test]
fn each_vibe_line_kind_is_claimed_by_its_dialect() {
    let message = r#"{"id":"user-1","sessionId":"s","turnId":"t","inputEntryId":null,"createdAt":1,"updatedAt":1,"generationStatus":"completed","relatedEntryId":null,"type":"message","role":"user","content":[]}"#;
    assert_eq!(detect_line(message.as_bytes()), Some(Dialect::VIBE));
    let running = effect("effect-1", "file_system.bash", r#"{"status":"running"}"#);
    assert_eq!(detect_line(running.as_bytes()), Some(Dialect::VIBE));
    let journal = record(1, "command_reserved", "{}");
    assert_eq!(detect_line(journal.as_bytes()), Some(Dialect::VIBE_JOURNAL));
    let not_claimed = [
        // Without the harness's own keys: another agent's message.
        r#"{"id":"m","sessionId":"s","type":"message","role":"user","content":[]}"#,
        r#"{"type":"message","role":"assistant","content":"x","turnId":"t"}"#,
        // A record without its format version or its digest.
        r#"{"type":"core_input","sequence":1,"payload":{}}"#,
    ];
    for line in not_claimed {
        let claimant = detect_line(line.as_bytes());
        assert!(
            claimant != Some(Dialect::VIBE) && claimant != Some(Dialect::VIBE_JOURNAL),
            "{line}"
        );
    }
}

#[test]
fn every_vibe_recording_is_detected_as_its_own_dialect() {
    let seen =
        claim_checks::assert_recordings_detected_as(&["vibe"], Dialect::VIBE, EachLine::Claimed)
            + claim_checks::assert_recordings_detected_as(
                &["vibe-journal"],
                Dialect::VIBE_JOURNAL,
                EachLine::Claimed,
            );
    assert!(seen >= 10, "{seen} Vibe recordings");
}

#[test]
fn no_other_recording_is_detected_as_vibe() {
    claim_checks::assert_no_other_fixture_is(
        &["vibe", "vibe-journal"],
        &[Dialect::VIBE, Dialect::VIBE_JOURNAL],
    );
}

#[test]
fn odd_stream_entries_are_told_with_their_line() {
    let reading = read(
        Dialect::VIBE,
        &one_a_line(&[
            effect("effect-1", "file_system.bash", r#"{"status":"running"}"#),
            effect(
                "effect-1",
                "file_system.bash",
                r#"{"status":"completed","output":{"type":"success","content":[],"structured_content":{"command":"exit 3","stdout":"checking\n","stderr":"check failed\n","returncode":3}}}"#,
            ),
            // Printed again once ended: nothing new.
            effect("effect-1", "file_system.bash", r#"{"status":"completed"}"#),
            r#"{"type":"effect","state":{"status":"running"}}"#.to_owned(),
            r#"{"type":"effect","id":"effect-2","state":{"status":"dreaming"}}"#.to_owned(),
            r#"{"type":"hologram","id":"h"}"#.to_owned(),
            effect(
                "effect-3",
                "mcp_toolbox.divide",
                r#"{"status":"failed","error":{"code":"mcp_tool_error","message":"division by zero"}}"#,
            ),
            "not json".to_owned(),
        ]),
    );
    let (lines, parts) = (reading.lines(), reading.parts);
    // The effect without an id; the one naming no tool and of an unknown status (two);
    // the unknown entry; the line that is not JSON.
    assert_eq!(lines, [4, 5, 5, 6, 8]);
    assert_eq!(parts.len(), 3, "{parts:#?}");
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(error.code, Some(ErrorCode::ExitCode));
    assert_eq!(parts[1].id, "effect-2");
    assert_eq!(parts[1].state, ToolState::Started);
    assert_eq!(parts[2].name, "mcp_toolbox.divide");
    let error = parts[2].error.as_ref().unwrap();
    assert_eq!(error.code, Some(ErrorCode::McpError));
}

#[test]
fn odd_journal_records_are_told_with_their_line() {
    let completion = |parts: &str| {
        format!(
            r#"{{"action_id":"a1","state":"succeeded","result":{{"action_id":"a1","type":"completion_succeeded","result":{{"finish_reason":"tool_call","parts":{parts}}}}}}}"#
        )
    };
    let reading = read(
        Dialect::VIBE_JOURNAL,
        &one_a_line(&[
            record(
                1,
                "action_result",
                &completion(
                    r#"[{"type":"tool_call","id":"c1","name":"bash","arguments_json":"{\"command\":\"echo hi\",\"description\":\"x\"}"},{"type":"tool_call","id":"c2","name":"read_file","arguments_json":"{not json"},{"type":"tool_call","name":"bash"}]"#,
                ),
            ),
            record(
                2,
                "action_intent",
                r#"{"action_id":"a2","kind":"tool","request":{"type":"runtime_builtin_tool_call","action_id":"a2","turn_id":"t","call_id":"c2","call":{"type":"runtime_builtin","name":"file_system.read_file","arguments":{}}}}"#,
            ),
            record(
                3,
                "action_result",
                r#"{"action_id":"a2","state":"failed","result":{"type":"tool_failed","action_id":"a2","call_id":"c2","result":{"type":"failure","content":[],"error":{"code":"tool_failed","message":"File not found: /w/x","retryable":false}}}}"#,
            ),
            record(
                4,
                "action_result",
                r#"{"action_id":"a2","state":"failed","result":{"type":"tool_failed","action_id":"a2","call_id":"c2","result":{"type":"failure","error":{"code":"tool_failed","message":"again"}}}}"#,
            ),
            record(
                5,
                "action_intent",
                r#"{"action_id":"a3","kind":"completion","request":{"model_input":{"messages":{"type":"append","messages":[{"role":"tool","tool_call_id":"c1","name":"bash","outcome":"failure","content":[{"type":"text","text":"{\"result\":{\"type\":\"error\",\"error\":{\"name\":\"InvalidToolCall\",\"message\":\"'description' was unexpected\"}}}"}]}]}}}}"#,
            ),
            record(
                6,
                "action_result",
                r#"{"action_id":"a9","state":"succeeded","result":{"type":"tool_succeeded","action_id":"a9","call_id":"c9","result":{"type":"success","content":[{"type":"text","text":"orphan"}]}}}"#,
            ),
            record(7, "time_travel", "{}"),
            record(
                8,
                "action_intent",
                r#"{"action_id":"a4","kind":"tool","request":{}}"#,
            ),
            "{\"type\":".to_owned(),
        ]),
    );
    let (lines, parts) = (reading.lines(), reading.parts);
    // The arguments that are no JSON object and the call without an id (line 1), the
    // second result, the result of a call not held, the unknown record, the tool action
    // without its call, the cut line.
    assert_eq!(lines, [1, 1, 4, 6, 7, 8, 9]);
    assert_eq!(parts.len(), 3, "{parts:#?}");
    assert_eq!(parts[0].id, "c1");
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(error.code, Some(ErrorCode::InvalidToolUse));
    assert_eq!(parts[1].id, "c2");
    assert_eq!(parts[1].input, serde_json::json!("{not json"));
    assert_eq!(
        parts[1].error.as_ref().unwrap().message,
        "File not found: /w/x"
    );
    assert_eq!(parts[2].id, "c9");
    assert_eq!(
        parts[2].output.as_deref(),
        Some(&serde_json::json!("orphan"))
    );
}
