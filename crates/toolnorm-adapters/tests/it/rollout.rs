//! Codex rollout files read like the live stream of the same session: each
//! `fixtures/codex-rollout*/<scenario>.jsonl` was written by the `codex app-server` run
//! recorded in `fixtures/codex-app-server*/<scenario>.jsonl`, and both give the same calls
//! (ids, names, kinds, titles, states, sessions, parents).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use toolnorm::ToolState;
use toolnorm_adapters::Dialect;

/// The rollout fixture directories and the stream directory of the same runs.
const PAIRS: &[(&str, &str)] = &[
    ("codex-rollout", "codex-app-server"),
    ("codex-rollout@0.142.0", "codex-app-server@0.142.0"),
];

/// The scenarios where the stream stops before the CLI records how a call ended: the
/// interrupted command is still running when `codex app-server` reports the turn
/// interrupted, and the rollout records its end after that (`aborted by user`).
const ENDED_AFTER_THE_STREAM: &[&str] = &["interrupted.jsonl"];

/// The scenarios where the rollout records calls the stream does not show: code mode's
/// `exec` and `wait` (the stream shows only the tools the script called; 0.142's rollout
/// leaves out the script's commands).
const SCRIPTS: &[&str] = &["code-mode.jsonl"];

/// The scenarios where the stream holds the client's answer that refused a call (the user
/// declined it: `user_rejected`) and the rollout only the refusal (`permission_denied`).
const DECLINED_BY_THE_CLIENT: &[&str] = &["permission-denied.jsonl"];

#[test]
fn every_rollout_gives_the_calls_of_its_live_stream() {
    let mut compared = 0;
    for (rollout_dir, stream_dir) in PAIRS {
        let entries = std::fs::read_dir(common::fixtures().join(rollout_dir)).unwrap();
        let mut names: Vec<String> = entries
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert!(names.len() >= 13, "{rollout_dir}: {names:?}");
        for name in names {
            let rollout =
                common::call_summaries(&common::fixture(&format!("{rollout_dir}/{name}")));
            let stream = common::call_summaries(&common::fixture(&format!("{stream_dir}/{name}")));
            assert!(!stream.is_empty(), "{stream_dir}/{name} has no call");
            if ENDED_AFTER_THE_STREAM.contains(&name.as_str()) {
                let ids = |calls: &[common::CallSummary]| {
                    calls.iter().map(|c| c.id.clone()).collect::<Vec<_>>()
                };
                assert_eq!(ids(&rollout), ids(&stream), "{rollout_dir}/{name}");
                for (rollout, stream) in rollout.iter().zip(&stream) {
                    assert_eq!(stream.state, ToolState::Running, "{stream_dir}/{name}");
                    assert_eq!(rollout.state, ToolState::Error, "{rollout_dir}/{name}");
                    assert_eq!(rollout.error_code.as_deref(), Some("interrupted"));
                    assert_eq!(
                        (&rollout.kind, &rollout.title),
                        (&stream.kind, &stream.title)
                    );
                }
            } else if SCRIPTS.contains(&name.as_str()) {
                let (scripts, tools): (Vec<_>, Vec<_>) = rollout
                    .iter()
                    .partition(|call| call.name == "exec" || call.name == "wait");
                assert_eq!(scripts.len(), 2, "{rollout_dir}/{name}: {scripts:?}");
                assert!(tools.len() >= 2, "{rollout_dir}/{name}: {tools:?}");
                for call in tools {
                    assert!(stream.contains(call), "{rollout_dir}/{name}: {call:?}");
                }
            } else if DECLINED_BY_THE_CLIENT.contains(&name.as_str()) {
                let codes = |calls: &[common::CallSummary]| {
                    calls
                        .iter()
                        .map(|call| call.error_code.clone())
                        .collect::<Vec<_>>()
                };
                assert!(
                    codes(&rollout)
                        .iter()
                        .all(|code| code.as_deref() == Some("permission_denied"))
                );
                assert!(
                    codes(&stream)
                        .iter()
                        .all(|code| code.as_deref() == Some("user_rejected"))
                );
                let unsigned = |calls: Vec<common::CallSummary>| {
                    calls
                        .into_iter()
                        .map(|call| common::CallSummary {
                            error_code: None,
                            ..call
                        })
                        .collect::<Vec<_>>()
                };
                assert_eq!(unsigned(rollout), unsigned(stream), "{rollout_dir}/{name}");
            } else {
                assert_eq!(
                    rollout, stream,
                    "{rollout_dir}/{name} against {stream_dir}/{name}"
                );
            }
            compared += 1;
        }
    }
    assert!(compared >= 28, "{compared} pairs");
}

#[test]
fn a_call_told_three_times_is_one_part() {
    // The model's call, the CLI's end event, then the result the model was given.
    let parts = common::lines(
        Dialect::CODEX_ROLLOUT,
        &[
            json!({"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s1", "cwd": "/w"}}),
            json!({"timestamp": "2026-01-01T00:00:01.000Z", "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"ls\"],\"workdir\":\"/w\"}", "call_id": "c1"}}),
            json!({"timestamp": "2026-01-01T00:00:02.000Z", "type": "event_msg", "payload": {"type": "exec_command_begin", "call_id": "c1", "command": ["bash", "-lc", "ls"], "cwd": "/w"}}),
            json!({"timestamp": "2026-01-01T00:00:03.000Z", "type": "event_msg", "payload": {"type": "exec_command_end", "call_id": "c1", "command": ["bash", "-lc", "ls"], "cwd": "/w", "exit_code": 2, "aggregated_output": "nope\n"}}),
            json!({"timestamp": "2026-01-01T00:00:04.000Z", "type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": "Exit code: 2\nOutput:\nnope\n"}}),
        ],
    );
    assert_eq!(parts.len(), 1, "{parts:#?}");
    let part = &parts[0];
    assert_eq!((part.id.as_str(), part.title.as_str()), ("c1", "ls"));
    assert_eq!(part.state, ToolState::Error);
    let value = serde_json::to_value(part).unwrap();
    assert_eq!(value["error"]["code"], "exit_code");
    assert_eq!(value["kind"], "bash");
}

#[test]
fn a_result_alone_ends_its_call_and_one_without_a_call_is_a_notice() {
    let parts = common::lines(
        Dialect::CODEX_ROLLOUT,
        &[
            json!({"timestamp": "t0", "type": "response_item", "payload": {"type": "local_shell_call", "call_id": "c1", "status": "completed", "action": {"type": "exec", "command": ["echo", "hi there"]}}}),
            json!({"timestamp": "t1", "type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": "Process exited with code 0\nOutput:\nhi there\n"}}),
            json!({"timestamp": "t2", "type": "response_item", "payload": {"type": "web_search_call", "id": "ws1", "status": "completed", "action": {"type": "search", "query": "rust"}}}),
        ],
    );
    let got: Vec<(&str, &str, ToolState)> = parts
        .iter()
        .map(|part| (part.id.as_str(), part.title.as_str(), part.state))
        .collect();
    assert_eq!(
        got,
        [
            ("c1", "echo 'hi there'", ToolState::Complete),
            ("ws1", "Searching rust", ToolState::Complete)
        ]
    );
    assert_eq!(parts[0].output.as_deref(), Some(&json!("hi there\n")));

    let text = "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"gone\",\"output\":\"x\"}}\n";
    let (parts, diagnostics) = common::normalize(text.as_bytes(), Some(Dialect::CODEX_ROLLOUT));
    assert!(parts.is_empty());
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert!(diagnostics[0].message.contains("gone"), "{diagnostics:?}");
}

#[test]
fn unknown_lines_are_notices_and_unknown_calls_still_parts() {
    let text = [
        json!({"timestamp": "t", "type": "brand_new_line", "payload": {}}),
        json!({"timestamp": "t", "type": "event_msg", "payload": {"type": "brand_new_event"}}),
        json!({"timestamp": "t", "type": "response_item", "payload": {"type": "hologram_call", "call_id": "h1", "beam": 3}}),
    ]
    .iter()
    .map(|line| format!("{line}\n"))
    .collect::<String>();
    let (parts, diagnostics) = common::normalize(text.as_bytes(), Some(Dialect::CODEX_ROLLOUT));
    assert_eq!(diagnostics.len(), 3, "{diagnostics:?}");
    assert_eq!(parts.len(), 1);
    assert_eq!(
        (parts[0].id.as_str(), parts[0].name.as_str()),
        ("h1", "hologram_call")
    );
    assert_eq!(parts[0].state, ToolState::Running);
}

#[test]
fn rollout_files_are_detected_and_not_taken_for_opencode() {
    let bytes = std::fs::read(common::fixtures().join("codex-rollout/shell-ok.jsonl")).unwrap();
    let first = bytes.split(|byte| *byte == b'\n').next().unwrap();
    assert_eq!(
        toolnorm_adapters::detect_line(first),
        Some(Dialect::CODEX_ROLLOUT)
    );
}
