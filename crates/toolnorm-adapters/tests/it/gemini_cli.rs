//! Gemini CLI: the session file of a run gives the calls its stream-json gave, and the
//! session records the stream-json alone cannot read.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolState};
use toolnorm_adapters::{DiagnosticKind, Dialect, Normalizer};

/// The scenarios recorded with both readings, in `dir` (`gemini-cli` or `gemini-cli@V`).
fn scenarios(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(common::fixtures().join(dir))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{dir}: {names:?}");
    names
}

/// The session file's directory beside a stream-json directory.
fn session_dir(dir: &str) -> String {
    match dir.split_once('@') {
        Some((_, version)) => format!("gemini-cli-session@{version}"),
        None => "gemini-cli-session".to_owned(),
    }
}

fn meta<'a>(part: &'a NormalizedToolPart, key: &str) -> Option<&'a Value> {
    part.metadata
        .as_ref()
        .and_then(|metadata| metadata.get(key))
}

fn error_code(part: &NormalizedToolPart) -> Option<String> {
    part.error
        .as_ref()
        .and_then(|error| error.code.as_ref())
        .map(|code| code.as_str().to_owned())
}

/// The codes of the contract, which both readings must agree on.
const SHARED_CODES: &[&str] = &["permission_denied", "mcp_error", "invalid_tool_use"];

fn equivalent(dir: &str) {
    for name in scenarios(dir) {
        let stream = common::fixture(&format!("{dir}/{name}"));
        let session = common::fixture(&format!("{}/{name}", session_dir(dir)));
        assert_eq!(stream.len(), session.len(), "{dir}/{name}");
        assert!(!stream.is_empty(), "{dir}/{name}");
        for (live, saved) in stream.iter().zip(&session) {
            let what = format!("{dir}/{name} {}", live.id);
            assert_eq!(
                (&live.id, &live.name, live.kind, &live.title, &live.input),
                (
                    &saved.id,
                    &saved.name,
                    saved.kind,
                    &saved.title,
                    &saved.input
                ),
                "{what}"
            );
            assert_eq!(meta(live, "sessionId"), meta(saved, "sessionId"), "{what}");
            assert_eq!(meta(live, "mcp"), meta(saved, "mcp"), "{what}");
            // A non-zero exit status is only in the session (what the model was told):
            // the stream reports the command as a success, with the same output.
            if saved.state == ToolState::Error && error_code(saved).as_deref() == Some("exit_code")
            {
                assert_eq!(live.state, ToolState::Complete, "{what}");
                let details = saved.error.as_ref().unwrap().details.as_ref().unwrap();
                assert_eq!(
                    Some(&details["output"]),
                    live.output.as_deref(),
                    "{what}: the same output"
                );
                continue;
            }
            assert_eq!(live.state, saved.state, "{what}");
            match (&live.error, &saved.error) {
                (Some(a), Some(b)) => {
                    assert_eq!(a.message, b.message, "{what}");
                    let code = error_code(live);
                    if code
                        .as_deref()
                        .is_some_and(|code| SHARED_CODES.contains(&code))
                    {
                        assert_eq!(code, error_code(saved), "{what}");
                    }
                }
                (None, None) => {}
                _ => panic!("{what}: one reading failed and the other did not"),
            }
            // The stream's output, when it has one, is what the session shows too.
            if let Some(Value::String(text)) = live.output.as_deref()
                && !text.is_empty()
            {
                assert_eq!(live.output, saved.output, "{what}");
            }
        }
    }
}

#[test]
fn the_session_file_gives_the_calls_of_the_stream() {
    equivalent("gemini-cli");
}

#[test]
fn the_session_file_gives_the_calls_of_the_stream_in_0_44() {
    equivalent("gemini-cli@0.44.0");
}

#[test]
fn errors_carry_the_shared_codes() {
    let code = |fixture: &str| {
        let parts = common::fixture(fixture);
        assert_eq!(parts.len(), 1, "{fixture}");
        error_code(&parts[0])
    };
    for dir in ["gemini-cli", "gemini-cli-session"] {
        assert_eq!(
            code(&format!("{dir}/permission-denied.jsonl")).as_deref(),
            Some("permission_denied"),
            "{dir}"
        );
        assert_eq!(
            code(&format!("{dir}/mcp-error.jsonl")).as_deref(),
            Some("mcp_error"),
            "{dir}"
        );
    }
    assert_eq!(
        code("gemini-cli/read-missing.jsonl").as_deref(),
        Some("file_not_found")
    );
    assert_eq!(
        code("gemini-cli-session/shell-exit-3.jsonl").as_deref(),
        Some("exit_code")
    );
    let exit = &common::fixture("gemini-cli-session/shell-exit-3.jsonl")[0];
    assert_eq!(
        exit.error.as_ref().unwrap().details.as_deref(),
        Some(&json!({"exitCode": 3, "output": "checking\ncheck failed"}))
    );
}

#[test]
fn mcp_tools_name_their_server() {
    let parts = common::fixture("gemini-cli/mcp-ok.jsonl");
    assert_eq!(
        meta(&parts[0], "mcp"),
        Some(&json!({"server": "toolbox", "tool": "echo"}))
    );
    assert_eq!(parts[0].kind, toolnorm::ToolKind::Mcp);
}

/// Session records with their message types and the stream's event types.
fn session(lines: &[Value]) -> (Vec<NormalizedToolPart>, Vec<toolnorm_adapters::Diagnostic>) {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    common::normalize(text.as_bytes(), Some(Dialect::GEMINI_CLI))
}

fn tool_call(status: &str) -> Value {
    json!({"id": "c1", "name": "read_file", "args": {"file_path": "/w/a.txt"}, "status": status,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "text"}}}]})
}

fn gemini_message(calls: Vec<Value>) -> Value {
    json!({"id": "m1", "timestamp": "2026-01-01T00:00:00.000Z", "type": "gemini", "content": "", "toolCalls": calls})
}

#[test]
fn a_message_written_again_after_its_call_ended_adds_nothing() {
    let metadata =
        json!({"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t"});
    let done = gemini_message(vec![tool_call("success")]);
    let (parts, diagnostics) = session(&[
        metadata,
        gemini_message(vec![tool_call("executing")]),
        done.clone(),
        done,
    ]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(parts[0].output.as_deref(), Some(&json!("text")));
}

#[test]
fn calls_in_a_set_record_and_a_whole_conversation_are_read() {
    let set = json!({"$set": {"messages": [gemini_message(vec![tool_call("success")])]}});
    let (parts, diagnostics) = session(&[set]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts.len(), 1);

    let whole = json!({"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t",
        "messages": [gemini_message(vec![tool_call("error")])]});
    let (parts, diagnostics) = session(&[whole]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].state, ToolState::Error);
    assert_eq!(meta(&parts[0], "sessionId"), Some(&json!("s")));
}

#[test]
fn an_unknown_type_is_a_notice_and_a_tool_shaped_one_still_a_call() {
    let lines = [
        json!({"type": "init", "timestamp": "t", "session_id": "s", "model": "m"}),
        json!({"type": "tool_progress", "timestamp": "t", "tool_id": "c9", "tool_name": "glob", "parameters": {"pattern": "*"}}),
        json!({"type": "heartbeat", "timestamp": "t"}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (parts, diagnostics) = common::run(
        Normalizer::builder().dialect(Dialect::GEMINI_CLI).build(),
        text.as_bytes(),
    );
    assert_eq!(parts.len(), 1);
    assert_eq!(
        (parts[0].id.as_str(), parts[0].name.as_str()),
        ("c9", "glob")
    );
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|d| d.kind == DiagnosticKind::UnknownEvent)
    );
}

#[test]
fn a_broken_tool_use_is_an_error_with_its_line() {
    let lines = [json!({"type": "tool_use", "timestamp": "t", "tool_id": "c1"})];
    let (parts, diagnostics) = session(&lines);
    assert!(parts.is_empty());
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].kind, DiagnosticKind::MalformedEvent);
    assert_eq!(diagnostics[0].line, Some(1));
}
