//! A known item that lacks a field its schema requires still gives its call, with a
//! notice naming the field; an empty object written `[]` reads as `{}`. Each line is a
//! recorded one (`fixtures/…`) with the field taken out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::ToolState;
use toolnorm_adapters::{Dialect, Severity};

/// `value` without the field at `pointer` (`/a/b`).
fn without(mut value: Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    value
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .unwrap()
        .remove(key)
        .unwrap();
    value
}

/// One notice that names `field`, and nothing else.
fn one_notice_naming(diagnostics: &[(Severity, String)], field: &str) {
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].0, Severity::Notice, "{diagnostics:?}");
    assert!(diagnostics[0].1.contains(field), "{diagnostics:?}");
}

/// `fixtures/codex-app-server/shell-ok.jsonl`, its `item/completed`.
fn app_server_command() -> Value {
    json!({"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call_mock_1_1","pluginId":null,"scriptPath":null,"command":"/bin/bash -lc 'echo hello from the shell'","cwd":"/workspace","processId":"4242","source":"unifiedExecStartup","status":"completed","commandActions":[{"type":"unknown","command":"echo hello from the shell"}],"aggregatedOutput":"hello from the shell\n","exitCode":0,"durationMs":100,"startedAtMs":1767225710000i64,"completedAtMs":1767225720000i64},"threadId":"00000000-0000-4000-8000-000000000002","turnId":"00000000-0000-4000-8000-000000000003","contentTokenCount":null,"completedAtMs":1767225720000i64},"emittedAtMs":1767225720001i64})
}

#[test]
fn a_codex_command_without_its_command_actions_is_still_its_call() {
    let (whole, diagnostics) =
        common::shown_lines(Dialect::CODEX_APP_SERVER, &[app_server_command()]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    for missing in ["/params/item/commandActions", "/params/item/cwd"] {
        let line = without(app_server_command(), missing);
        let (parts, diagnostics) = common::shown_lines(Dialect::CODEX_APP_SERVER, &[line]);
        assert_eq!(parts.len(), 1, "{missing}: {diagnostics:?}");
        let field = missing.rsplit('/').next().unwrap();
        one_notice_naming(&diagnostics, &format!("`item.{field}`"));
        assert_eq!(parts[0].state, ToolState::Complete);
        assert_eq!(parts[0].output, whole[0].output);
        assert_eq!(parts[0].title, whole[0].title);
    }
}

#[test]
fn a_codex_exec_command_without_its_output_is_still_its_call() {
    // `fixtures/codex-exec/shell-ok.jsonl`.
    let line = json!({"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'echo hello from the shell'","aggregated_output":"hello from the shell\n","exit_code":0,"status":"completed"}});
    let (parts, diagnostics) = common::shown_lines(
        Dialect::CODEX_EXEC,
        &[without(line, "/item/aggregated_output")],
    );
    assert_eq!(parts.len(), 1, "{diagnostics:?}");
    one_notice_naming(&diagnostics, "`aggregated_output`");
    assert_eq!(
        (parts[0].id.as_str(), parts[0].state),
        ("item_0", ToolState::Complete)
    );
}

/// `fixtures/codex-rollout/web-search.jsonl`: a web search the CLI's event tells of, then
/// the model's `web_search_call` of it.
fn rollout_search() -> [Value; 2] {
    [
        json!({"timestamp":"2026-01-01T00:01:50.000Z","ordinal":11,"type":"event_msg","payload":{"type":"item_completed","thread_id":"00000000-0000-4000-8000-000000000002","turn_id":"00000000-0000-4000-8000-000000000003","item":{"type":"WebSearch","id":"ws_mock_1_1","query":"toolnorm test page","action":{"type":"search","query":"toolnorm test page"}},"started_at_ms":1767225710000i64,"completed_at_ms":1767225710000i64}}),
        json!({"timestamp":"2026-01-01T00:02:00.000Z","ordinal":12,"type":"response_item","payload":{"type":"web_search_call","id":"ws_mock_1_1","status":"completed","action":{"type":"search","query":"toolnorm test page"}}}),
    ]
}

#[test]
fn a_rollout_web_search_without_an_id_gets_one_from_its_line() {
    let [_, call] = rollout_search();
    let call = without(call, "/payload/id");
    let lines = [call.clone(), call];
    let (parts, diagnostics) = common::shown_lines(Dialect::CODEX_ROLLOUT, &lines);
    let ids: Vec<&str> = parts.iter().map(|part| part.id.as_str()).collect();
    assert_eq!(ids, ["web_search_call@1", "web_search_call@2"]);
    assert!(parts.iter().all(|part| part.state == ToolState::Complete));
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|(severity, message)| *severity == Severity::Notice
                && message.contains("without an id")),
        "{diagnostics:?}"
    );
    // Read again: the same ids.
    let (again, _) = common::shown_lines(Dialect::CODEX_ROLLOUT, &lines);
    assert_eq!(again, parts);
}

#[test]
fn a_rollout_web_search_without_an_id_after_its_event_is_that_call() {
    let [event, call] = rollout_search();
    let (parts, diagnostics) = common::shown_lines(
        Dialect::CODEX_ROLLOUT,
        &[event, without(call, "/payload/id")],
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let ids: Vec<&str> = parts.iter().map(|part| part.id.as_str()).collect();
    assert_eq!(ids, ["ws_mock_1_1"]);
}

/// `fixtures/gemini-cli/shell-ok.jsonl`'s `result`.
fn gemini_result() -> Value {
    json!({"type":"result","timestamp":"2026-01-01T00:01:40.000Z","status":"success","stats":{"total_tokens":360,"input_tokens":300,"output_tokens":60,"cached":0,"input":300,"duration_ms":100,"tool_calls":2,"models":{"gemini-2.5-pro":{"total_tokens":360,"input_tokens":300,"output_tokens":60,"cached":0,"input":300}}}})
}

#[test]
fn gemini_events_without_a_required_field_are_notices() {
    let (_, diagnostics) = common::shown_lines(
        Dialect::GEMINI_CLI,
        &[without(gemini_result(), "/stats/cached")],
    );
    one_notice_naming(&diagnostics, "`stats.cached`");
    // An error event without its severity (an enum: not made up) carries no call.
    let error = json!({"type":"error","timestamp":"2026-01-01T00:01:40.000Z","message":"quota"});
    let (_, diagnostics) = common::shown_lines(Dialect::GEMINI_CLI, &[error]);
    one_notice_naming(&diagnostics, "`severity`");
    // A call without its tool's name is not made up: an error.
    let call = json!({"type": "tool_use", "timestamp": "t", "tool_id": "c1", "parameters": {}});
    let (parts, diagnostics) = common::shown_lines(Dialect::GEMINI_CLI, &[call]);
    assert!(parts.is_empty());
    assert_eq!(diagnostics[0].0, Severity::Error, "{diagnostics:?}");
}

#[test]
fn a_gemini_session_call_without_a_required_field_is_still_its_call() {
    // `fixtures/gemini-cli-session/read-file.jsonl`, its `gemini` message.
    let message = json!({"id":"00000000-0000-4000-8000-000000000003","timestamp":"2026-01-01T00:01:00.000Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":100,"output":20,"cached":0,"thoughts":0,"tool":0,"total":120},"model":"gemini-2.5-pro","toolCalls":[{"id":"read_file__call_mock_1_1","name":"read_file","args":{"file_path":"/workspace/notes.txt"},"result":[{"functionResponse":{"id":"read_file__call_mock_1_1","name":"read_file","response":{"output":"alpha\nbeta\ngamma\n"}}}],"status":"success","timestamp":"2026-01-01T00:01:01.000Z","resultDisplay":"","description":"notes.txt","displayName":"ReadFile","renderOutputAsMarkdown":true}]});
    let (whole, diagnostics) =
        common::shown_lines(Dialect::GEMINI_CLI, std::slice::from_ref(&message));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(whole.len(), 1);
    let (parts, diagnostics) = common::shown_lines(
        Dialect::GEMINI_CLI,
        &[without(message, "/toolCalls/0/timestamp")],
    );
    assert_eq!(parts.len(), 1, "{diagnostics:?}");
    one_notice_naming(&diagnostics, "`timestamp`");
    assert_eq!(parts[0].id, "read_file__call_mock_1_1");
}

/// `fixtures/opencode-run/read-file.jsonl`'s tool part, its input `[]` as a Lua or PHP
/// encoder writes an empty object.
#[test]
fn an_opencode_empty_object_written_as_an_array_is_an_object() {
    let line = json!({"type":"tool_use","timestamp":1767225610002i64,"sessionID":"ses_00000000000000000000000001","part":{"type":"tool","tool":"read","callID":"call_mock_1_1","state":{"status":"completed","input":[],"output":"alpha","metadata":[],"title":"workspace/notes.txt","time":{"start":1767225610000i64,"end":1767225610001i64}},"metadata":[],"id":"prt_00000000000000000000000002","sessionID":"ses_00000000000000000000000001","messageID":"msg_00000000000000000000000001"}});
    let (parts, diagnostics) = common::shown_lines(Dialect::OPENCODE, std::slice::from_ref(&line));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].input, json!({}));
    assert_eq!(parts[0].state, ToolState::Complete);
    // A missing field of the state is filled in and told.
    let (parts, diagnostics) =
        common::shown_lines(Dialect::OPENCODE, &[without(line, "/part/state/title")]);
    assert_eq!(parts.len(), 1, "{diagnostics:?}");
    one_notice_naming(&diagnostics, "`state.title`");
}
