//! Cline CLI 3.x: a run reads the same from its `--json` stream and from the session files
//! it wrote; subagents nest by the agent an event names; an aborted run ends its calls.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use crate::common;

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolState};
use toolnorm_adapters::Dialect;

/// What a call came to: its name, state, error code and parent.
fn outcome(part: &NormalizedToolPart) -> (String, ToolState, Option<String>, Option<Value>) {
    (
        part.name.clone(),
        part.state,
        part.error
            .as_ref()
            .and_then(|error| error.code.as_ref())
            .map(|code| code.as_str().to_owned()),
        part.metadata
            .as_ref()
            .and_then(|m| m.get("parentToolCallId"))
            .cloned(),
    )
}

#[test]
fn every_run_reads_the_same_from_its_stream_and_its_session_files() {
    for version in ["", "@3.0.57"] {
        let streams = common::recordings(&format!("cline-sdk{version}"));
        assert!(streams.len() >= 14, "cline-sdk{version}: {}", streams.len());
        for (name, _) in streams {
            let stream = common::fixture(&format!("cline-sdk{version}/{name}"));
            let session = common::fixture(&format!("cline-sdk-session{version}/{name}"));
            let by_id = |parts: &[NormalizedToolPart]| -> BTreeMap<String, _> {
                parts
                    .iter()
                    .map(|part| (part.id.clone(), outcome(part)))
                    .collect()
            };
            let (stream, session) = (by_id(&stream), by_id(&session));
            assert_eq!(
                stream.keys().collect::<Vec<_>>(),
                session.keys().collect::<Vec<_>>(),
                "{version} {name}"
            );
            for (id, seen) in &stream {
                // The stream of an interrupted run ends with its command running; the
                // session file has the command's aborted result.
                if seen.1 == ToolState::Running {
                    assert_eq!(session[id].1, ToolState::Error, "{version} {name} {id}");
                    continue;
                }
                assert_eq!(seen, &session[id], "{version} {name} {id}");
            }
        }
    }
}

/// A `content_start` of a call, as an agent event of the stream.
fn start(id: &str, tool: &str, input: Value, agent: Option<(&str, Option<&str>)>) -> Value {
    let mut event = json!({"type": "content_start", "contentType": "tool",
        "toolName": tool, "toolCallId": id, "input": input});
    if let Some((agent, parent)) = agent {
        event["agentId"] = json!(agent);
        event["parentAgentId"] = json!(parent);
    }
    json!({"ts": "2026-01-01T00:00:00.000Z", "type": "agent_event", "event": event})
}

#[test]
fn an_event_that_names_its_agent_nests_a_subagents_call_without_hooks() {
    let lines = [
        start(
            "spawn",
            "spawn_agent",
            json!({"systemPrompt": "p", "task": "count"}),
            Some(("lead", None)),
        ),
        start(
            "child",
            "run_commands",
            json!({"commands": ["ls"]}),
            Some(("helper", Some("lead"))),
        ),
        start(
            "later",
            "read_files",
            json!({"files": [{"path": "/a"}]}),
            Some(("lead", None)),
        ),
    ];
    let (parts, diagnostics) = common::shown_lines(Dialect::CLINE_SDK, &lines);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let parent = |id: &str| {
        parts.iter().find(|part| part.id == id).and_then(|part| {
            part.metadata
                .as_ref()
                .and_then(|m| m.get("parentToolCallId"))
                .cloned()
        })
    };
    assert_eq!(parent("child"), Some(json!("spawn")));
    assert_eq!(parent("later"), None);
    assert_eq!(parent("spawn"), None);
}

#[test]
fn an_aborted_run_ends_its_open_calls_as_interrupted() {
    let lines = [
        start("c1", "run_commands", json!({"commands": ["sleep 9"]}), None),
        json!({"ts": "2026-01-01T00:00:01.000Z", "type": "agent_event",
            "event": {"type": "done", "reason": "aborted", "text": "", "iterations": 1}}),
    ];
    let (parts, diagnostics) = common::shown_lines(Dialect::CLINE_SDK, &lines);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts[0].state, ToolState::Error);
    assert_eq!(
        parts[0]
            .error
            .as_ref()
            .and_then(|e| e.code.as_ref())
            .map(|c| c.as_str()),
        Some("interrupted")
    );
    // A run that completes leaves a call without a result as it was.
    let lines = [
        start("c1", "run_commands", json!({"commands": ["sleep 9"]}), None),
        json!({"ts": "2026-01-01T00:00:01.000Z", "type": "agent_event",
            "event": {"type": "done", "reason": "completed", "text": "", "iterations": 1}}),
    ];
    let (parts, _) = common::shown_lines(Dialect::CLINE_SDK, &lines);
    assert_eq!(parts[0].state, ToolState::Started);
}

#[test]
fn a_session_file_reads_the_same_indented_as_the_cli_writes_it() {
    let line = std::fs::read_to_string(common::fixtures().join("cline-sdk-session/subagent.jsonl"))
        .unwrap();
    let mut indented = String::new();
    for document in line.lines() {
        let value: Value = serde_json::from_str(document).unwrap();
        indented.push_str(&serde_json::to_string_pretty(&value).unwrap());
        indented.push('\n');
    }
    let (whole, diagnostics) = common::normalize(line.as_bytes(), None);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let (pretty, diagnostics) = common::normalize(indented.as_bytes(), None);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let outcomes = |parts: &[NormalizedToolPart]| parts.iter().map(outcome).collect::<Vec<_>>();
    assert_eq!(outcomes(&whole), outcomes(&pretty));
    assert_eq!(whole.len(), 2);
}
