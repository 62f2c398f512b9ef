//! Qwen Code session files read like the live stream of the same session: each
//! `fixtures/qwen-code-session*/<scenario>.jsonl` is the session file the
//! `qwen -p … --output-format stream-json` run recorded in
//! `fixtures/qwen-code*/<scenario>.jsonl` wrote, and both give the same calls (ids,
//! names, kinds, titles, states, sessions, parents, and the error code wherever the
//! stream gives one).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use toolnorm::ToolState;
use toolnorm_adapters::{DiagnosticKind, Dialect};

/// The session fixture directories and the stream directory of the same runs.
const PAIRS: &[(&str, &str)] = &[
    ("qwen-code-session", "qwen-code"),
    ("qwen-code-session@0.15.10", "qwen-code@0.15.10"),
];

/// The session file knows more than the stream of how these calls ended: the error
/// code the stream leaves out (`(directory, scenario, call, code)`).
const CODES_ONLY_THE_FILE_KEEPS: &[(&str, &str, &str, &str)] = &[
    (
        "qwen-code-session",
        "read-missing.jsonl",
        "call_mock_1_1",
        "file_not_found",
    ),
    (
        "qwen-code-session",
        "shell-exit-3.jsonl",
        "call_mock_1_1",
        "exit_code",
    ),
    (
        "qwen-code-session@0.15.10",
        "read-missing.jsonl",
        "call_mock_1_1",
        "file_not_found",
    ),
    // Qwen Code 0.15 calls the command a success in both; only the text the model was
    // given (`Exit Code: 3`) tells, and the stream shows the command's output alone.
    (
        "qwen-code-session@0.15.10",
        "shell-exit-3.jsonl",
        "call_mock_1_1",
        "exit_code",
    ),
];

#[test]
fn every_session_file_gives_the_calls_of_its_live_stream() {
    let mut compared = 0;
    for (session_dir, stream_dir) in PAIRS {
        let entries = std::fs::read_dir(common::fixtures().join(session_dir)).unwrap();
        let mut names: Vec<String> = entries
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert!(names.len() >= 12, "{session_dir}: {names:?}");
        for name in names {
            let mut file =
                common::call_summaries(&common::fixture(&format!("{session_dir}/{name}")));
            let stream = common::call_summaries(&common::fixture(&format!("{stream_dir}/{name}")));
            assert!(!stream.is_empty(), "{stream_dir}/{name} has no call");
            for call in &mut file {
                let Some((.., code)) =
                    CODES_ONLY_THE_FILE_KEEPS.iter().find(|(dir, file, id, _)| {
                        dir == session_dir && *file == name && *id == call.id
                    })
                else {
                    continue;
                };
                assert_eq!(
                    call.error_code.as_deref(),
                    Some(*code),
                    "{session_dir}/{name}"
                );
                assert_eq!(call.state, ToolState::Error, "{session_dir}/{name}");
                // What the stream says of the same call.
                let theirs = stream.iter().find(|theirs| theirs.id == call.id).unwrap();
                assert_eq!(theirs.error_code, None, "{stream_dir}/{name}");
                call.error_code = None;
                call.state = theirs.state;
            }
            assert_eq!(
                file, stream,
                "{session_dir}/{name} against {stream_dir}/{name}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 24, "{compared} pairs");
}

#[test]
fn session_files_are_detected_and_not_taken_for_claude_code() {
    for dir in ["qwen-code-session", "qwen-code-session@0.15.10"] {
        let bytes = std::fs::read(common::fixtures().join(dir).join("shell-ok.jsonl")).unwrap();
        for line in bytes.split(|byte| *byte == b'\n').filter(|l| !l.is_empty()) {
            assert_eq!(
                toolnorm_adapters::detect_line(line),
                Some(Dialect::QWEN_CODE_SESSION),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}

/// A session record around `message` parts.
fn record(kind: &str, parts: serde_json::Value) -> serde_json::Value {
    json!({"uuid": "u", "parentUuid": null, "sessionId": "s1", "timestamp": "2026-01-01T00:00:00.000Z",
           "type": kind, "cwd": "/w", "version": "0.24.4",
           "message": {"role": if kind == "assistant" { "model" } else { "user" }, "parts": parts}})
}

#[test]
fn a_call_and_its_result_are_one_part_with_the_displayed_output() {
    let mut result = record(
        "tool_result",
        json!([{"functionResponse": {"id": "c1", "name": "run_shell_command",
               "response": {"output": "Command: ls\nOutput: a\nExit Code: 0"}}}]),
    );
    result["toolCallResult"] = json!({"callId": "c1", "status": "success",
        "resultDisplay": {"type": "shell_result", "text": "a", "exitCode": 0}});
    let parts = common::lines(
        Dialect::QWEN_CODE_SESSION,
        &[
            record("user", json!([{"text": "list"}])),
            record(
                "assistant",
                json!([{"text": "ok"}, {"functionCall": {"id": "c1", "name": "run_shell_command",
                       "args": {"command": "ls"}}},
                       {"functionCall": {"id": "c2", "name": "read_file",
                       "args": {"file_path": "/w/src/a.py"}}}]),
            ),
            result,
        ],
    );
    assert_eq!(parts.len(), 2, "{parts:#?}");
    // A call with no result yet stays started; paths are shown relative to `cwd`.
    assert_eq!(
        (parts[1].title.as_str(), parts[1].state),
        ("Reading src/a.py", ToolState::Started)
    );
    let part = &parts[0];
    assert_eq!((part.id.as_str(), part.title.as_str()), ("c1", "ls"));
    assert_eq!(part.state, ToolState::Complete);
    assert_eq!(part.output.as_deref(), Some(&json!("a")));
    let value = serde_json::to_value(part).unwrap();
    assert_eq!(value["kind"], "bash");
    assert_eq!(value["metadata"]["provider"], "qwen-code");
    assert_eq!(value["metadata"]["sessionId"], "s1");
}

#[test]
fn errors_carry_the_clis_error_type_and_mcp_tools_their_server() {
    let mut result = record(
        "tool_result",
        json!([{"functionResponse": {"id": "c1", "name": "mcp__toolbox__divide",
               "response": {"error": "MCP tool 'divide' reported tool error"}}}]),
    );
    result["toolCallResult"] =
        json!({"callId": "c1", "status": "error", "errorType": "mcp_tool_error"});
    let mut denied = record(
        "tool_result",
        json!([{"functionResponse": {"id": "c2", "name": "write_file",
               "response": {"error": "Execution denied"}}}]),
    );
    denied["toolCallResult"] =
        json!({"callId": "c2", "status": "error", "errorType": "execution_denied"});
    let parts = common::lines(
        Dialect::QWEN_CODE_SESSION,
        &[
            record(
                "assistant",
                json!([{"functionCall": {"id": "c1", "name": "mcp__toolbox__divide", "args": {"a": 1, "b": 0}}},
                       {"functionCall": {"id": "c2", "name": "write_file", "args": {"file_path": "/w/x", "content": ""}}}]),
            ),
            result,
            denied,
        ],
    );
    let values: Vec<serde_json::Value> = parts
        .iter()
        .map(|part| serde_json::to_value(part).unwrap())
        .collect();
    assert_eq!(values[0]["error"]["code"], "mcp_error");
    assert_eq!(
        values[0]["metadata"]["mcp"],
        json!({"server": "toolbox", "tool": "divide"})
    );
    assert_eq!(values[1]["error"]["code"], "permission_denied");
}

#[test]
fn a_result_without_its_call_opens_it_with_a_notice_and_odd_records_are_reported() {
    let mut result = record(
        "tool_result",
        json!([{"functionResponse": {"id": "gone", "name": "read_file", "response": {"output": "x"}}}]),
    );
    result["toolCallResult"] = json!({"callId": "gone", "status": "success", "resultDisplay": ""});
    let text: String = [
        result,
        record(
            "assistant",
            json!([{"functionCall": {"name": "glob", "args": {}}}]),
        ),
        json!({"uuid": "u", "sessionId": "s1", "type": "hologram", "systemPayload": {}}),
    ]
    .iter()
    .map(|line| format!("{line}\n"))
    .collect();
    let (parts, diagnostics) = common::normalize(text.as_bytes(), Some(Dialect::QWEN_CODE_SESSION));
    assert_eq!(parts.len(), 1, "{parts:#?}");
    assert_eq!(
        (parts[0].name.as_str(), parts[0].state),
        ("read_file", ToolState::Complete)
    );
    assert_eq!(parts[0].output.as_deref(), Some(&json!("x")));
    let kinds: Vec<(Option<u64>, DiagnosticKind)> = diagnostics
        .iter()
        .map(|diagnostic| (diagnostic.line, diagnostic.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            (Some(1), DiagnosticKind::UnknownCall),
            (Some(2), DiagnosticKind::MalformedEvent),
            (Some(3), DiagnosticKind::UnknownEvent)
        ],
        "{diagnostics:?}"
    );
}
