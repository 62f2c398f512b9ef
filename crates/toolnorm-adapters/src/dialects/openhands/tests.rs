//! OpenHands' claims and detection: its trajectories and stored events are read as its
//! own, no other dialect's recording is, and every odd event is told with its line.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use toolnorm::{ErrorCode, ToolKind, ToolState};

use crate::Dialect;
use crate::dialects::claim_checks::{self, EachLine, one_a_line};
use crate::dialects::detect_line;

/// An action event with `tool_call_metadata` naming call `call` of function `function`.
fn action(id: u64, action: &str, function: &str, call: &str, args: &str) -> String {
    format!(
        r#"{{"id":{id},"timestamp":"2025-01-27T22:45:13.764487","source":"agent","message":"","action":"{action}","tool_call_metadata":{{"function_name":"{function}","tool_call_id":"{call}","model_response":{{}},"total_calls_in_response":1}},"args":{args},"timeout":120}}"#
    )
}

/// An observation event caused by event `cause`.
fn observation(id: u64, cause: u64, observation: &str, content: &str, extras: &str) -> String {
    format!(
        r#"{{"id":{id},"timestamp":"2025-01-27T22:45:14.000000","source":"agent","message":"","cause":{cause},"observation":"{observation}","content":{content},"extras":{extras}}}"#
    )
}

#[test]
fn each_openhands_event_kind_is_claimed_by_its_dialect() {
    let claimed = [
        action(3, "run", "execute_bash", "c1", r#"{"command":"ls"}"#),
        observation(4, 3, "run", r#""out""#, "{}"),
        r#"{"id":0,"source":"user","message":"hi","action":"message","args":{"content":"hi"}}"#
            .to_owned(),
        r#"{"id":1,"source":"environment","message":"","observation":"agent_state_changed","content":"","extras":{"agent_state":"running"}}"#.to_owned(),
        format!("[{}]", action(3, "run", "execute_bash", "c1", "{}")),
    ];
    for line in &claimed {
        assert_eq!(
            detect_line(line.as_bytes()),
            Some(Dialect::OPENHANDS),
            "{line}"
        );
    }
    let not_claimed = [
        // No `source`: not an event OpenHands writes.
        r#"{"action":"run","args":{}}"#,
        // A type of another agent's.
        r#"{"type":"action","source":"agent","action":"run","args":{}}"#,
        // An observation without its extras.
        r#"{"source":"agent","observation":"run","content":""}"#,
        "[]",
    ];
    for line in not_claimed {
        assert_ne!(
            detect_line(line.as_bytes()),
            Some(Dialect::OPENHANDS),
            "{line}"
        );
    }
}

/// The fixture folders of OpenHands' files read as [`Dialect::OPENHANDS`].
const OPENHANDS_FOLDERS: &[&str] = &["openhands"];
/// The fixture folders of OpenHands' files read as [`Dialect::OPENHANDS_SDK`].
const SDK_FOLDERS: &[&str] = &["openhands-cli", "openhands-events"];

#[test]
fn every_openhands_file_is_detected_as_its_own_dialect() {
    let seen = claim_checks::assert_recordings_detected_as(
        OPENHANDS_FOLDERS,
        Dialect::OPENHANDS,
        EachLine::Unchecked,
    ) + claim_checks::assert_recordings_detected_as(
        SDK_FOLDERS,
        Dialect::OPENHANDS_SDK,
        EachLine::Unchecked,
    );
    assert!(seen >= 4, "{seen} OpenHands files");
}

#[test]
fn no_other_file_is_detected_as_openhands() {
    claim_checks::assert_no_other_fixture_is(
        &[OPENHANDS_FOLDERS, SDK_FOLDERS].concat(),
        &[Dialect::OPENHANDS, Dialect::OPENHANDS_SDK],
    );
}

/// `text` read as OpenHands': the final parts and each diagnostic's line.
fn read(text: &str) -> (Vec<toolnorm::NormalizedToolPart>, Vec<u64>) {
    let reading = claim_checks::read(Dialect::OPENHANDS, text);
    let lines = reading.lines();
    (reading.parts, lines)
}

#[test]
fn stored_events_one_a_line_end_their_calls() {
    let (parts, diagnostics) = read(&one_a_line(&[
        action(2, "run", "execute_bash", "c1", r#"{"command":"exit 3"}"#),
        observation(
            3,
            2,
            "run",
            r#""failing\n[The command completed with exit code 3.]""#,
            r#"{"command":"exit 3","metadata":{"exit_code":3}}"#,
        ),
        action(
            4,
            "call_tool_mcp",
            "divide",
            "c2",
            r#"{"name":"divide","arguments":{"a":1,"b":0}}"#,
        ),
        observation(
            5,
            4,
            "mcp",
            r#""{\"content\":[{\"type\":\"text\",\"text\":\"division by zero\"}],\"isError\":true}""#,
            r#"{"name":"divide","arguments":{"a":1,"b":0}}"#,
        ),
        action(
            6,
            "edit",
            "str_replace_editor",
            "c3",
            r#"{"path":"/w/a.txt","command":"str_replace","old_str":"a","new_str":"b"}"#,
        ),
        observation(
            7,
            6,
            "user_rejected",
            r#""Action has been rejected by the user!""#,
            "{}",
        ),
        // A command the user ran: no call of the model's, named by its event id.
        r#"{"id":8,"source":"user","message":"","action":"run","args":{"command":"pwd"}}"#
            .to_owned(),
        observation(9, 8, "run", r#""/w""#, r#"{"metadata":{"exit_code":0}}"#),
        action(
            10,
            "read",
            "str_replace_editor",
            "c4",
            r#"{"path":"/w/missing.txt"}"#,
        ),
        observation(
            11,
            10,
            "error",
            r#""Invalid `path` parameter: /w/missing.txt does not exist.""#,
            r#"{"error_id":""}"#,
        ),
        action(
            12,
            "run",
            "execute_bash",
            "c5",
            r#"{"command":"python3 -m http.server"}"#,
        ),
        observation(
            13,
            12,
            "run",
            r#""[The command has no new output after 30 seconds.]""#,
            r#"{"metadata":{"exit_code":-1}}"#,
        ),
        action(
            14,
            "finish",
            "finish",
            "c6",
            r#"{"outputs":{},"final_thought":"Done."}"#,
        ),
    ]));
    assert_eq!(diagnostics, Vec::<u64>::new());
    assert_eq!(parts.len(), 7, "{parts:#?}");
    assert_eq!(parts[0].kind, ToolKind::Bash);
    assert_eq!(parts[0].title, "exit 3");
    assert_eq!(
        parts[0].error.as_ref().unwrap().code,
        Some(ErrorCode::ExitCode)
    );
    assert_eq!(parts[1].name, "divide");
    assert_eq!(parts[1].kind, ToolKind::Mcp);
    let error = parts[1].error.as_ref().unwrap();
    assert_eq!(
        (error.code.clone(), error.message.as_str()),
        (Some(ErrorCode::McpError), "division by zero")
    );
    assert_eq!(parts[2].kind, ToolKind::FileEdit);
    let error = parts[2].error.as_ref().unwrap();
    assert_eq!(error.code, Some(ErrorCode::UserRejected));
    assert_eq!((parts[3].id.as_str(), parts[3].name.as_str()), ("8", "run"));
    assert_eq!(parts[3].state, ToolState::Complete);
    assert_eq!(parts[4].kind, ToolKind::FileRead);
    assert_eq!(parts[4].state, ToolState::Error);
    // No exit code yet (`-1`): the command still ran when OpenHands stopped waiting.
    assert_eq!(parts[5].state, ToolState::Complete);
    assert_eq!(parts[6].name, "finish");
    assert_eq!(
        parts[6].output.as_deref(),
        Some(&serde_json::json!("Done."))
    );
}

#[test]
fn an_indented_trajectory_is_one_document() {
    let trajectory = format!(
        "[\n    {},\n    {}\n]",
        action(
            3,
            "write",
            "str_replace_editor",
            "c1",
            r#"{"path":"/w/a.txt","command":"create","file_text":"a"}"#
        ),
        observation(
            4,
            3,
            "edit",
            r#""File created successfully at: /w/a.txt""#,
            "{}"
        ),
    );
    let (parts, diagnostics) = read(&trajectory);
    assert_eq!(diagnostics, Vec::<u64>::new());
    assert_eq!(parts.len(), 1, "{parts:#?}");
    assert_eq!(parts[0].kind, ToolKind::FileWrite);
    assert_eq!(parts[0].state, ToolState::Complete);
}

#[test]
fn odd_events_are_told_with_their_line() {
    let (parts, diagnostics) = read(&one_a_line(&[
        // 1: an observation of an action the input does not hold, named by its call.
        r#"{"id":4,"source":"agent","cause":3,"observation":"run","content":"hi","extras":{"metadata":{"exit_code":0}},"tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"c0"}}"#
            .to_owned(),
        // 2: an action never observed.
        action(5, "run", "execute_bash", "c1", r#"{"command":"sleep 100"}"#),
        // 3: metadata that is not OpenHands' (no call id): the action is still a call,
        // by its event id.
        r#"{"id":6,"source":"agent","action":"read","args":{"path":"/w/a"},"tool_call_metadata":{"function_name":"str_replace_editor"}}"#.to_owned(),
        // 4: its observation.
        observation(7, 6, "read", r#""a""#, "{}"),
        // 5: a second observation of it.
        observation(8, 6, "read", r#""a""#, "{}"),
        // 6: an action of an unknown type, from the model: still a call.
        action(9, "teleport", "teleport", "c2", "{}"),
        // 7: an observation of an unknown type that no call caused.
        r#"{"id":10,"source":"environment","observation":"hologram","content":"","extras":{}}"#.to_owned(),
        // 8: an event that is neither.
        r#"{"id":11,"source":"agent","message":"?"}"#.to_owned(),
        // 9: an observation of an action the input holds that is no call: known.
        r#"{"id":12,"source":"user","action":"message","args":{"content":"hi"}}"#.to_owned(),
        observation(13, 12, "null", r#""""#, "{}"),
        // 11: an agent's error no action caused: known.
        r#"{"id":14,"source":"agent","observation":"error","content":"LLM failed","extras":{}}"#.to_owned(),
        // 12: an event that is not an object of OpenHands'.
        r#"{"id":"x","source":"agent","action":7,"args":{}}"#.to_owned(),
        // 13: a line cut short.
        r#"{"id":15,"source":"#.to_owned(),
    ]));
    assert_eq!(diagnostics, [1, 3, 5, 6, 7, 8, 12, 13]);
    assert_eq!(parts.len(), 4, "{parts:#?}");
    assert_eq!(parts[0].id, "c0");
    assert_eq!(parts[0].name, "execute_bash");
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(parts[1].id, "c1");
    assert_eq!(parts[1].state, ToolState::Started);
    assert_eq!(parts[2].id, "6");
    assert_eq!(parts[2].state, ToolState::Complete);
    assert_eq!(parts[3].name, "teleport");
    assert_eq!(parts[3].state, ToolState::Started);
}

#[test]
fn a_trajectory_item_that_is_no_event_is_told_by_its_place() {
    let (parts, diagnostics) = read(&format!(
        "[{},7,{}]\n",
        action(3, "run", "execute_bash", "c1", r#"{"command":"ls"}"#),
        observation(4, 3, "run", r#""a""#, r#"{"metadata":{"exit_code":0}}"#),
    ));
    assert_eq!(diagnostics, [1]);
    assert_eq!(parts.len(), 1, "{parts:#?}");
    assert_eq!(parts[0].state, ToolState::Complete);
}

/// An SDK event of class `kind` with these fields.
fn sdk(kind: &str, fields: &str) -> String {
    format!(
        r#"{{"id":"e-{kind}","timestamp":"2026-01-01T00:00:00.000000","source":"agent",{fields}"kind":"{kind}"}}"#
    )
}

#[test]
fn each_sdk_event_kind_is_claimed_by_its_dialect() {
    for line in [
        sdk(
            "ActionEvent",
            r#""tool_name":"terminal","tool_call_id":"c1","action":{"command":"ls","kind":"TerminalAction"},"#,
        ),
        sdk(
            "ObservationEvent",
            r#""tool_call_id":"c1","observation":{"content":[],"kind":"TerminalObservation"},"#,
        ),
        sdk("MessageEvent", ""),
    ] {
        assert_eq!(
            detect_line(line.as_bytes()),
            Some(Dialect::OPENHANDS_SDK),
            "{line}"
        );
    }
    for line in [
        r#"{"kind":"ActionEvent","source":"agent"}"#.to_owned(),
        sdk("Hologram", ""),
    ] {
        assert_ne!(
            detect_line(line.as_bytes()),
            Some(Dialect::OPENHANDS_SDK),
            "{line}"
        );
    }
}

#[test]
fn odd_sdk_events_are_told_with_their_line() {
    let text = one_a_line(&[
        // 1, 2: a command that exited 3.
        sdk(
            "ActionEvent",
            r#""tool_name":"terminal","tool_call_id":"c1","summary":"Run it","action":{"command":"false","kind":"TerminalAction"},"#,
        ),
        sdk(
            "ObservationEvent",
            r#""tool_name":"terminal","tool_call_id":"c1","observation":{"content":[{"type":"text","text":"no"}],"is_error":true,"exit_code":3,"kind":"TerminalObservation"},"#,
        ),
        // 3: a second observation of it.
        sdk(
            "ObservationEvent",
            r#""tool_name":"terminal","tool_call_id":"c1","observation":{"content":[],"kind":"TerminalObservation"},"#,
        ),
        // 4: an agent error for a call no action announced.
        sdk(
            "AgentErrorEvent",
            r##""tool_name":"nope","tool_call_id":"c2","error":"Tool 'nope' not found.","##,
        ),
        // 5, 6: a call the user rejected.
        sdk(
            "ActionEvent",
            r#""tool_name":"file_editor","tool_call_id":"c3","action":{"command":"create","path":"/w/a","kind":"FileEditorAction"},"#,
        ),
        sdk(
            "UserRejectObservation",
            r#""tool_name":"file_editor","tool_call_id":"c3","rejection_reason":"No.","rejection_source":"user","#,
        ),
        // 7, 8: an MCP tool's call, interrupted.
        sdk(
            "ActionEvent",
            r#""tool_name":"echo","tool_call_id":"c4","action":{"data":{"text":"hi"},"kind":"MCPToolAction"},"#,
        ),
        sdk("InterruptEvent", ""),
        // 9: an action without its call id; 10: an unknown event; 11: a cut line.
        sdk("ActionEvent", r#""tool_name":"terminal","#),
        sdk("Hologram", ""),
        r#"{"kind":"#.to_owned(),
    ]);
    let reading = claim_checks::read(Dialect::OPENHANDS_SDK, &text);
    let (diagnostics, parts) = (reading.lines(), reading.parts);
    assert_eq!(diagnostics, [3, 4, 9, 10, 11]);
    assert_eq!(parts.len(), 4, "{parts:#?}");
    assert_eq!(parts[0].title, "false");
    assert_eq!(
        parts[0].error.as_ref().unwrap().code,
        Some(ErrorCode::ExitCode)
    );
    assert_eq!(parts[1].id, "c2");
    assert_eq!(parts[1].state, ToolState::Error);
    assert_eq!(parts[2].kind, ToolKind::FileWrite);
    assert_eq!(
        parts[2].error.as_ref().unwrap().code,
        Some(ErrorCode::UserRejected)
    );
    assert_eq!(parts[3].kind, ToolKind::Mcp);
    assert_eq!(parts[3].input, serde_json::json!({"text": "hi"}));
    assert_eq!(
        parts[3].error.as_ref().unwrap().code,
        Some(ErrorCode::Interrupted)
    );
}
