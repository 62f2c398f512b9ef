//! A run that ends interrupted with calls no result answered: its calls fail, as
//! `interrupted`, and only its own (a stream that interleaves sessions keeps the others).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::ToolState;
use toolnorm_adapters::Dialect;

/// An Amp line of thread `thread`.
fn amp(thread: &str, mut line: Value) -> Value {
    line["session_id"] = json!(format!("T-{thread}"));
    line
}

/// A `Bash` call `id` of thread `thread`, left without a result.
fn bash(thread: &str, id: &str) -> Value {
    amp(
        thread,
        json!({"type": "assistant", "message": {"type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"cmd": "sleep 30"}}]}}),
    )
}

#[test]
fn an_interrupted_run_fails_its_open_calls_and_no_other_sessions() {
    let lines = [
        amp(
            "a",
            json!({"type": "system", "subtype": "init", "cwd": "/w", "tools": []}),
        ),
        bash("a", "toolu_a"),
        amp(
            "b",
            json!({"type": "system", "subtype": "init", "cwd": "/w", "tools": []}),
        ),
        bash("b", "toolu_b"),
        amp(
            "a",
            json!({"type": "result", "subtype": "error_during_execution", "is_error": true,
                "error": "User cancelled (SIGINT/SIGTERM)", "num_turns": 1, "duration_ms": 1}),
        ),
    ];
    let (parts, diagnostics) = common::shown_lines(Dialect::AMP, &lines);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts.len(), 2, "{parts:?}");
    let (a, b) = (&parts[0], &parts[1]);
    assert_eq!(a.state, ToolState::Error);
    let error = a.error.as_ref().unwrap();
    assert_eq!(error.message, "User cancelled (SIGINT/SIGTERM)");
    assert_eq!(
        error.code.as_ref().map(|code| code.as_str()),
        Some("interrupted")
    );
    assert_eq!(b.state, ToolState::Started, "{b:?}");
}

#[test]
fn a_run_that_succeeds_leaves_a_call_without_its_result_as_it_was() {
    // Its result is not in the stream (an older Amp's subagent calls): nothing says how
    // it ended, so nothing is made up.
    let lines = [
        bash("a", "toolu_a"),
        amp(
            "a",
            json!({"type": "result", "subtype": "success", "is_error": false, "result": "ok",
                "num_turns": 1, "duration_ms": 1}),
        ),
    ];
    let (parts, diagnostics) = common::shown_lines(Dialect::AMP, &lines);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts[0].state, ToolState::Started);
}
