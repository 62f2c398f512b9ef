//! GitHub Copilot CLI: the session event log of a run gives the calls its printed JSON
//! stream gave; a stream or log joined late still opens the calls it sees ending; an
//! event type the reader does not know still becomes a call when it names one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use toolnorm::ToolState;
use toolnorm_adapters::{Dialect, Severity};

/// The recordings of a fixture directory, by name.
fn names(dir: &str) -> Vec<String> {
    let names: Vec<String> = common::recordings(dir)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert!(names.len() >= 10, "{dir}: {names:?}");
    names
}

/// The session log's directory beside a stream's (`copilot` or `copilot@V`).
fn session_dir(dir: &str) -> String {
    match dir.split_once('@') {
        Some((_, version)) => format!("copilot-session@{version}"),
        None => "copilot-session".to_owned(),
    }
}

fn stream_and_log_agree(dir: &str) {
    for name in names(dir) {
        let stream = common::fixture(&format!("{dir}/{name}"));
        let log = common::fixture(&format!("{}/{name}", session_dir(dir)));
        assert!(!stream.is_empty(), "{dir}/{name}");
        let mut live = common::call_summaries(&stream);
        let mut saved = common::call_summaries(&log);
        // The printed stream does not name its session (only its last line does).
        for call in live.iter_mut().chain(saved.iter_mut()) {
            call.session = None;
        }
        assert_eq!(live, saved, "{dir}/{name}");
        for (live, saved) in stream.iter().zip(&log) {
            assert_eq!(live.input, saved.input, "{dir}/{name} {}", live.id);
            assert_eq!(live.output, saved.output, "{dir}/{name} {}", live.id);
        }
    }
}

#[test]
fn the_session_log_gives_the_calls_of_the_stream() {
    stream_and_log_agree("copilot");
    stream_and_log_agree("copilot@1.0.82");
}

#[test]
fn the_session_log_names_its_session_and_the_subagents_calls_their_parent() {
    let parts = common::fixture("copilot-session/subagent.jsonl");
    let task = parts.iter().find(|part| part.name == "task").unwrap();
    for part in &parts {
        let metadata = part.metadata.as_ref().unwrap();
        assert!(metadata["sessionId"].is_string(), "{}", part.id);
        if part.id != task.id {
            assert_eq!(
                metadata["parentToolCallId"],
                task.id.as_str(),
                "{}",
                part.id
            );
        }
    }
    assert!(parts.len() >= 2);
}

#[test]
fn failures_get_the_shared_codes() {
    let code = |relative: &str| {
        let parts = common::fixture(relative);
        parts[0]
            .error
            .as_ref()
            .and_then(|error| error.code.as_ref())
            .map(|code| code.as_str().to_owned())
    };
    for dir in ["copilot", "copilot-session"] {
        assert_eq!(
            code(&format!("{dir}/shell-exit-3.jsonl")).as_deref(),
            Some("exit_code")
        );
        assert_eq!(
            code(&format!("{dir}/permission-denied.jsonl")).as_deref(),
            Some("permission_denied")
        );
        assert_eq!(
            code(&format!("{dir}/mcp-error.jsonl")).as_deref(),
            Some("mcp_error")
        );
        assert_eq!(
            code(&format!("{dir}/interrupted.jsonl")).as_deref(),
            Some("interrupted")
        );
    }
}

#[test]
fn a_log_joined_after_a_call_started_opens_it_from_its_end() {
    let text =
        std::fs::read_to_string(common::fixtures().join("copilot-session/shell-ok.jsonl")).unwrap();
    let start = text.find(r#""type":"tool.execution_complete""#).unwrap();
    let start = text[..start].rfind('\n').map_or(0, |newline| newline + 1);
    let (parts, diagnostics) = common::shown(Dialect::COPILOT, &text[start..]);
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Notice),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let whole = common::fixture("copilot-session/shell-ok.jsonl");
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].id, whole[0].id);
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(parts[0].output, whole[0].output);
}

#[test]
fn a_stream_joined_while_the_arguments_stream_opens_the_call() {
    let text =
        std::fs::read_to_string(common::fixtures().join("copilot/partial-input.jsonl")).unwrap();
    // From the second piece of the arguments on.
    let first = text.find(r#""type":"assistant.tool_call_delta""#).unwrap();
    let second = first + text[first..].find('\n').unwrap() + 1;
    let (parts, diagnostics) = common::shown(Dialect::COPILOT, &text[second..]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let whole = common::fixture("copilot/partial-input.jsonl");
    assert_eq!(parts.len(), whole.len());
    assert_eq!(parts[0].id, whole[0].id);
    assert_eq!(parts[0].input, whole[0].input);
    assert_eq!(parts[0].state, whole[0].state);
}

#[test]
fn an_unknown_event_that_names_a_call_opens_it() {
    let event = |kind: &str, data: serde_json::Value| json!({"type": kind, "data": data, "id": "e1", "timestamp": "2026-01-01T00:00:00.000Z", "parentId": null});
    let (parts, diagnostics) = common::shown_lines(
        Dialect::COPILOT,
        &[
            event(
                "tool.execution_queued",
                json!({"toolCallId": "c1", "toolName": "bash", "arguments": {"command": "ls"}}),
            ),
            event(
                "tool.execution_complete",
                json!({"toolCallId": "c1", "success": true, "result": {"content": "a\n"}}),
            ),
            event("session.something_new", json!({})),
        ],
    );
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|(severity, message)| *severity == Severity::Notice
                && message.contains("unknown Copilot CLI event type")),
        "{diagnostics:?}"
    );
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].name, "bash");
    assert_eq!(parts[0].title, "ls");
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(parts[0].output.as_deref(), Some(&json!("a\n")));
}

#[test]
fn an_event_whose_data_does_not_read_is_an_error_with_its_line() {
    let (parts, diagnostics) = common::shown_lines(
        Dialect::COPILOT,
        &[
            json!({"type": "tool.execution_start", "data": {"toolCallId": 3}, "id": "e1", "timestamp": "2026-01-01T00:00:00.000Z", "parentId": null}),
        ],
    );
    assert!(parts.is_empty());
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].0, Severity::Error);
    assert!(
        diagnostics[0].1.contains("line 1") && diagnostics[0].1.contains("tool.execution_start"),
        "{diagnostics:?}"
    );
}
