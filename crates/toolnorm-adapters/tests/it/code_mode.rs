//! Codex code mode: a script's `exec` call is titled by the tools it calls and keeps
//! them in its metadata, a `wait` for its cell continues it (not a subagent wait), and
//! the live streams, which show only the tools the script called, show each once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolState};
use toolnorm_adapters::Dialect;

const ROLLOUTS: [&str; 2] = [
    "codex-rollout/code-mode.jsonl",
    "codex-rollout@0.142.0/code-mode.jsonl",
];

fn metadata(part: &NormalizedToolPart) -> Value {
    serde_json::to_value(part).unwrap()["metadata"].clone()
}

fn only<'p>(parts: &'p [NormalizedToolPart], name: &str) -> &'p NormalizedToolPart {
    let found: Vec<&NormalizedToolPart> = parts.iter().filter(|part| part.name == name).collect();
    assert_eq!(found.len(), 1, "{name}: {parts:#?}");
    found[0]
}

#[test]
fn a_script_takes_the_kind_and_title_of_the_tools_it_calls() {
    for fixture in ROLLOUTS {
        let parts = common::fixture(fixture);
        let exec = only(&parts, "exec");
        let value = serde_json::to_value(exec).unwrap();
        assert_eq!(
            (value["kind"].as_str(), exec.title.as_str(), exec.state),
            (Some("bash"), "ls src (+3 more)", ToolState::Complete),
            "{fixture}"
        );
        let meta = metadata(exec);
        let tools: Vec<&str> = meta["scriptCalls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| call["tool"].as_str().unwrap())
            .collect();
        assert_eq!(
            tools,
            [
                "exec_command",
                "apply_patch",
                "mcp__toolbox__echo",
                "exec_command"
            ],
            "{fixture}"
        );
        assert_eq!(meta["scriptCalls"][0]["arguments"]["cmd"], "ls src");
        assert_eq!(meta["cellId"], "1", "{fixture}");

        let wait = only(&parts, "wait");
        let value = serde_json::to_value(wait).unwrap();
        assert_eq!(
            (value["kind"].as_str(), wait.title.as_str(), wait.state),
            (
                Some("unknown"),
                "Waiting for script cell 1",
                ToolState::Complete
            ),
            "{fixture}"
        );
        let meta = metadata(wait);
        assert_eq!(meta["cellId"], "1", "{fixture}");
        assert_eq!(meta["cellCallId"], json!(exec.id), "{fixture}");
    }
}

#[test]
fn the_live_streams_show_each_tool_the_script_called_once() {
    for fixture in [
        "codex-app-server/code-mode.jsonl",
        "codex-app-server@0.142.0/code-mode.jsonl",
        "codex-exec/code-mode.jsonl",
        "codex-exec@0.142.0/code-mode.jsonl",
    ] {
        let parts = common::fixture(fixture);
        let names: Vec<&str> = parts.iter().map(|part| part.name.as_str()).collect();
        assert_eq!(
            names,
            ["commandExecution", "fileChange", "echo", "commandExecution"],
            "{fixture}"
        );
    }
    // Codex's ACP adapter names its calls by their titles; the script's four, each once.
    let parts = common::fixture("codex-acp/code-mode.jsonl");
    let kinds: Vec<Value> = parts
        .iter()
        .map(|part| serde_json::to_value(part).unwrap()["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        [
            json!("file_read"),
            json!("file_edit"),
            json!("mcp"),
            json!("bash")
        ]
    );
    assert!(parts.iter().all(|part| part.id.starts_with("exec-")));
}

fn rollout(payloads: &[Value]) -> Vec<NormalizedToolPart> {
    let mut lines = vec![
        json!({"timestamp": "t", "type": "session_meta", "payload": {"id": "s1", "cwd": "/w"}}),
    ];
    lines.extend(
        payloads
            .iter()
            .map(|payload| json!({"timestamp": "t", "type": "response_item", "payload": payload})),
    );
    common::lines(Dialect::CODEX_ROLLOUT, &lines)
}

#[test]
fn a_script_that_calls_no_tool_or_fails_keeps_its_call() {
    let parts = rollout(&[
        json!({"type": "custom_tool_call", "call_id": "e1", "name": "exec", "input": "text(`{}`); // tools.exec_command({cmd: 'no'})"}),
        json!({"type": "custom_tool_call_output", "call_id": "e1", "output": [{"type": "input_text", "text": "Script failed\nWall time 0.1 seconds\nOutput:\n"}, {"type": "input_text", "text": "Script error:\nReferenceError: x is not defined"}]}),
    ]);
    let exec = only(&parts, "exec");
    assert_eq!(
        (exec.title.as_str(), exec.state),
        ("Running a script", ToolState::Error)
    );
    let value = serde_json::to_value(exec).unwrap();
    assert_eq!(value["kind"], "unknown");
    assert_eq!(
        value["error"]["message"],
        "ReferenceError: x is not defined"
    );
    assert!(metadata(exec).get("scriptCalls").is_none());
}

#[test]
fn a_wait_for_agents_stays_a_subagent_wait() {
    let parts = rollout(&[
        json!({"type": "function_call", "call_id": "w1", "name": "wait", "arguments": "{\"targets\":[\"a\"],\"timeout_ms\":1000}"}),
        json!({"type": "function_call", "call_id": "w2", "name": "wait", "arguments": "{\"cell_id\":\"4\"}"}),
    ]);
    let got: Vec<(&str, Value, &str)> = parts
        .iter()
        .map(|part| {
            let value = serde_json::to_value(part).unwrap();
            (part.id.as_str(), value["kind"].clone(), part.title.as_str())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("w1", json!("subagent"), "Waiting for agents"),
            ("w2", json!("unknown"), "Waiting for script cell 4"),
        ]
    );
    // No result said which `exec` started cell 4: no link is guessed.
    assert!(metadata(&parts[1]).get("cellCallId").is_none());
    assert_eq!(metadata(&parts[1])["cellId"], "4");
}

#[test]
fn write_stdin_sends_input_to_a_running_command_or_polls_it() {
    let parts = rollout(&[
        json!({"type": "function_call", "call_id": "i1", "name": "write_stdin", "arguments": "{\"session_id\":5,\"chars\":\"y\\n\"}"}),
        json!({"type": "function_call", "call_id": "i2", "name": "write_stdin", "arguments": "{\"session_id\":5,\"chars\":\"\",\"yield_time_ms\":1000}"}),
    ]);
    let got: Vec<(Value, &str)> = parts
        .iter()
        .map(|part| {
            (
                serde_json::to_value(part).unwrap()["kind"].clone(),
                part.title.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (json!("bash"), "Sending input to session 5"),
            (json!("bash"), "Polling session 5"),
        ]
    );
}

#[test]
fn a_message_the_script_sends_is_output_not_its_end() {
    let parts = rollout(&[
        json!({"type": "custom_tool_call", "call_id": "e1", "name": "exec", "input": "notify('halfway'); await tools.exec_command({cmd: 'make'});"}),
        json!({"type": "custom_tool_call_output", "call_id": "e1", "name": "exec", "output": "halfway"}),
        json!({"type": "custom_tool_call_output", "call_id": "e1", "output": "Script completed\nWall time 2.0 seconds\nOutput:\n"}),
    ]);
    let exec = only(&parts, "exec");
    assert_eq!(
        (
            exec.title.as_str(),
            exec.state,
            exec.output.as_deref().cloned()
        ),
        ("make", ToolState::Complete, Some(json!("")))
    );
}
