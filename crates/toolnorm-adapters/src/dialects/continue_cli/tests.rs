//! Continue's claims and detection: every saved session recorded is read as its own, as
//! one line or indented as the CLI writes it, no other recording (nor Continue's session
//! index) is read as Continue's, and every odd record is told with its line.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::json;
use toolnorm::{ErrorCode, ToolState};

use crate::Dialect;
use crate::dialects::claim_checks::{self, EachLine, detected, read};
use crate::dialects::detect_line;

/// A saved session of these history items, on one line.
fn session(history: &str) -> String {
    format!(
        r#"{{"sessionId":"s-1","title":"Untitled Session","workspaceDirectory":"/w","history":[{history}]}}"#
    )
}

/// A call as an assistant message lists it (and a state repeats it).
fn call(id: &str, tool: &str, arguments: &str) -> String {
    format!(
        r#"{{"id":"{id}","type":"function","function":{{"name":"{tool}","arguments":{}}}}}"#,
        serde_json::to_string(arguments).unwrap()
    )
}

/// A call's state.
fn state(id: &str, tool: &str, status: &str, output: Option<&str>) -> String {
    let output = output.map_or(String::new(), |text| {
        format!(
            r#","output":[{{"content":{},"name":"Tool Result","description":"Tool execution result"}}]"#,
            serde_json::to_string(text).unwrap()
        )
    });
    format!(
        r#"{{"toolCallId":"{id}","toolCall":{},"status":"{status}","parsedArgs":{{}}{output}}}"#,
        call(id, tool, "{}")
    )
}

#[test]
fn a_saved_session_is_claimed_by_its_keys() {
    let line = session("");
    assert_eq!(
        detect_line(line.as_bytes()),
        Some(Dialect::CONTINUE_SESSION)
    );
    let not_claimed = [
        // The session index: an array.
        r#"[{"sessionId":"s-1","title":"t","dateCreated":"1","workspaceDirectory":"/w","messageCount":2}]"#,
        // One item of the index.
        r#"{"sessionId":"s-1","title":"t","dateCreated":"1","workspaceDirectory":"/w","messageCount":2}"#,
        // `cn -p --format json`'s answer.
        r#"{"response":"Done.","status":"success"}"#,
        // Another agent's record with a session id and a history.
        r#"{"type":"session","sessionId":"s-1","workspaceDirectory":"/w","history":[]}"#,
        r#"{"sessionId":"s-1","history":[]}"#,
        r#"{"sessionId":"s-1","workspaceDirectory":"/w","history":"none"}"#,
    ];
    for line in not_claimed {
        assert_ne!(
            detect_line(line.as_bytes()),
            Some(Dialect::CONTINUE_SESSION),
            "{line}"
        );
    }
}

#[test]
fn every_recording_is_detected_as_a_continue_session_one_line_or_indented() {
    let files = claim_checks::assert_recordings_detected_as(
        &["continue-session"],
        Dialect::CONTINUE_SESSION,
        EachLine::Claimed,
    );
    assert!(files >= 20, "{files} Continue recordings");
    for path in claim_checks::recordings_of(&["continue-session"]) {
        let text = std::fs::read_to_string(&path).unwrap();
        // As the CLI writes it: indented by two spaces (key order kept).
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let indented = serde_json::to_string_pretty(&value).unwrap();
        assert_eq!(
            detected(indented.as_bytes()),
            Some(Dialect::CONTINUE_SESSION),
            "{}",
            path.display()
        );
        let one_line = read(None, &text);
        let reading = read(None, &indented);
        assert!(
            reading.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            reading.diagnostics
        );
        assert!(
            one_line.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            one_line.diagnostics
        );
        assert!(!reading.parts.is_empty(), "{}", path.display());
        assert_eq!(reading.parts, one_line.parts, "{}", path.display());
    }
}

#[test]
fn no_other_recording_is_detected_as_continue() {
    claim_checks::assert_no_other_fixture_is(&["continue-session"], &[Dialect::CONTINUE_SESSION]);
}

#[test]
fn each_status_ends_its_call_as_continue_meant() {
    let calls = [
        ("c1", "Bash", "generated", None),
        ("c2", "Bash", "calling", None),
        ("c3", "Bash", "done", Some("hi\n")),
        (
            "c4",
            "Bash",
            "errored",
            Some("Error executing tool Bash: Error (exit code 3): check failed\n"),
        ),
        ("c5", "bash", "errored", Some("Tool bash not found")),
        (
            "c6",
            "Bash",
            "canceled",
            Some("Command blocked by security policy"),
        ),
        ("c7", "Bash", "canceled", Some("Permission denied by user")),
        ("c8", "Bash", "canceled", None),
    ];
    let listed: Vec<String> = calls
        .iter()
        .map(|(id, tool, _, _)| call(id, tool, r#"{"command":"x"}"#))
        .collect();
    let states: Vec<String> = calls
        .iter()
        .map(|(id, tool, status, output)| state(id, tool, status, *output))
        .collect();
    let item = format!(
        r#"{{"message":{{"role":"assistant","content":"","toolCalls":[{}]}},"contextItems":[],"toolCallStates":[{}]}}"#,
        listed.join(","),
        states.join(",")
    );
    let parts = read(Dialect::CONTINUE_SESSION, &session(&item)).clean_parts();
    let states: Vec<(&str, ToolState, Option<ErrorCode>)> = parts
        .iter()
        .map(|part| {
            (
                part.id.as_str(),
                part.state,
                part.error.as_ref().and_then(|error| error.code.clone()),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("c1", ToolState::Started, None),
            ("c2", ToolState::Running, None),
            ("c3", ToolState::Complete, None),
            ("c4", ToolState::Error, Some(ErrorCode::ExitCode)),
            ("c5", ToolState::Error, Some(ErrorCode::InvalidToolUse)),
            ("c6", ToolState::Error, Some(ErrorCode::PermissionDenied)),
            ("c7", ToolState::Error, Some(ErrorCode::UserRejected)),
            ("c8", ToolState::Error, Some(ErrorCode::Interrupted)),
        ]
    );
    assert_eq!(parts[0].input, json!({"command": "x"}));
    assert_eq!(parts[2].output.as_deref(), Some(&json!("hi\n")));
}

#[test]
fn every_odd_record_is_told_with_its_line() {
    let history = [
        // An unknown status: the call stays open (what it gave so far is streamed output).
        format!(
            r#"{{"message":{{"role":"assistant","content":"","toolCalls":[{}]}},"toolCallStates":[{}]}}"#,
            call("u1", "Bash", r#"{"command":"x"}"#),
            state("u1", "Bash", "paused", Some("half"))
        ),
        // A call without a state, and a state without a call.
        format!(
            r#"{{"message":{{"role":"assistant","content":"","toolCalls":[{}]}},"toolCallStates":[{}]}}"#,
            call("n1", "Read", r#"{"filepath":"a"}"#),
            state("o1", "Write", "done", Some("written"))
        ),
        // Arguments that are not JSON; a call without an id.
        format!(
            r#"{{"message":{{"role":"assistant","content":"","toolCalls":[{},{{"type":"function","function":{{"name":"Bash"}}}}]}},"toolCallStates":[{}]}}"#,
            call("m1", "Bash", "{not json"),
            state("m1", "Bash", "errored", Some("Tool Bash not found"))
        ),
        // An unknown role, a history item that is not one, and a tool message for a
        // call the session does not hold.
        r#"{"message":{"role":"developer","content":"?"}}"#.to_owned(),
        r#""not an item""#.to_owned(),
        r#"{"message":{"role":"tool","content":"orphan","toolCallId":"t9"}}"#.to_owned(),
    ]
    .join(",");
    let text = format!("{}\nnot json\n", session(&history));
    let reading = read(Dialect::CONTINUE_SESSION, &text);
    let (kinds, diagnostics, parts) = (reading.kinds(), reading.diagnostics, reading.parts);
    assert_eq!(
        kinds,
        [
            (1, "unknown-event"),
            (1, "unknown-call"),
            (1, "unknown-call"),
            (1, "malformed-event"),
            (1, "malformed-event"),
            (1, "unknown-event"),
            (1, "malformed-event"),
            (1, "unknown-call"),
            (2, "invalid-json"),
        ],
        "{diagnostics:?}"
    );
    let ids: Vec<(&str, ToolState)> = parts
        .iter()
        .map(|part| (part.id.as_str(), part.state))
        .collect();
    assert_eq!(
        ids,
        [
            ("u1", ToolState::Running),
            ("n1", ToolState::Started),
            ("o1", ToolState::Complete),
            ("m1", ToolState::Error),
            ("t9", ToolState::Complete),
        ]
    );
    assert_eq!(parts[2].name, "Write");
    assert_eq!(parts[3].input, json!("{not json"));
    assert_eq!(parts[4].output.as_deref(), Some(&json!("orphan")));
}

#[test]
fn an_ide_sessions_mcp_tool_is_named_by_its_server() {
    let mut mcp_state = state("p1", "echo", "done", Some("ping"));
    mcp_state.insert_str(
        mcp_state.len() - 1,
        r#","tool":{"uri":"mcp://toolbox-id/echo","group":"toolbox","originalFunctionName":"echo"}"#,
    );
    let item = format!(
        r#"{{"message":{{"role":"assistant","content":"","toolCalls":[{}]}},"toolCallStates":[{mcp_state}]}}"#,
        call("p1", "echo", r#"{"text":"ping"}"#)
    );
    let parts = read(Dialect::CONTINUE_SESSION, &session(&item)).clean_parts();
    let mcp = &parts[0].metadata.as_ref().expect("metadata")["mcp"];
    assert_eq!(mcp["server"], json!("toolbox"));
    assert_eq!(mcp["tool"], json!("echo"));
}
