//! `--format ai-sdk` and `--format ag-ui` as a user runs them, with and without `--sse`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative)
}

fn toolnorm(args: &[&str], input: &str) -> std::process::Output {
    Command::cargo_bin("toolnorm")
        .unwrap()
        .args(args)
        .arg(fixture(input))
        .output()
        .unwrap()
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The `data:` payloads of an SSE body, which must be nothing but `data: …` and blank
/// lines.
fn sse_payloads(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(text.ends_with("\n\n"), "{text}");
    text.split_terminator("\n\n")
        .map(|event| {
            event
                .strip_prefix("data: ")
                .unwrap_or_else(|| panic!("not a data line: {event}"))
                .to_owned()
        })
        .collect()
}

#[test]
fn sse_frames_the_same_values_and_ai_sdk_ends_with_done() {
    for (format, input) in [
        ("ai-sdk", "codex-app-server/edit-file.jsonl"),
        ("ag-ui", "claude-code/subagent.jsonl"),
    ] {
        let plain = toolnorm(&["normalize", "--format", format], input);
        let framed = toolnorm(&["normalize", "--format", format, "--sse"], input);
        assert!(plain.status.success() && framed.status.success());
        let values = lines(&plain.stdout);
        assert!(values.len() > 2, "{format}: {values:?}");
        let mut payloads = sse_payloads(&framed.stdout);
        if format == "ai-sdk" {
            assert_eq!(payloads.pop().as_deref(), Some("[DONE]"));
        }
        let framed: Vec<Value> = payloads
            .iter()
            .map(|payload| serde_json::from_str(payload).unwrap())
            .collect();
        assert_eq!(framed, values, "{format}");
    }
}

#[test]
fn every_call_of_the_parts_is_in_the_ui_streams() {
    let input = "claude-code/subagent.jsonl";
    let parts = lines(&toolnorm(&["normalize"], input).stdout);
    assert!(parts.len() >= 2);
    let chunks = lines(&toolnorm(&["normalize", "--format", "ai-sdk"], input).stdout);
    let events = lines(&toolnorm(&["normalize", "--format", "ag-ui"], input).stdout);
    for part in &parts {
        let id = &part["id"];
        assert!(
            chunks
                .iter()
                .any(|chunk| chunk["type"] == "tool-output-available"
                    && &chunk["toolCallId"] == id
                    && chunk["output"] == part["output"])
        );
        assert!(
            events
                .iter()
                .any(|event| event["type"] == "TOOL_CALL_RESULT" && &event["toolCallId"] == id)
        );
    }
    let thread: Vec<_> = lines(
        &toolnorm(
            &["normalize", "--format", "ag-ui", "--session-id", "th-9"],
            input,
        )
        .stdout,
    );
    assert_eq!(thread[0]["type"], "RUN_STARTED");
    assert_eq!(thread[0]["threadId"], "th-9");
}

#[test]
fn sse_with_another_format_is_a_usage_error() {
    let output = toolnorm(
        &["normalize", "--format", "parts", "--sse"],
        "claude-code/shell-ok.jsonl",
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("--sse frames only"), "{stderr}");
    assert!(output.stdout.is_empty());
}
