//! GitHub Copilot CLI's events (its `--output-format json` stream and its session's
//! `events.jsonl`) against its own SDK's types (the tool events of `SessionEvent` in
//! `@github/copilot-sdk`, `toolnorm_wire::copilot_events`).
//!
//! The `copilot` dialect reads the fields it needs with serde structs of its own, named
//! as these types name them; this is the drift guard between the recordings and the
//! pinned declarations: every tool event of every recording parses into the generated
//! type of its `type`, and survives the round trip through it whole (the declarations
//! name every field the CLI sends).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use toolnorm_wire::copilot_events as ce;

use super::{of_source, recorded_lines, require_lossless, round_trip};

/// Parses a line as `T` and requires the whole line back.
fn whole<T: DeserializeOwned + Serialize>(kind: &str, line: &Value) -> Result<(), String> {
    let back = round_trip::<T>(kind, line)?;
    require_lossless(kind, line, &back, "")
}

/// One event: a tool event parsed whole into its type (`true`); any other event is not
/// among the generated roots (`false`).
fn check(line: &Value) -> Result<bool, String> {
    let kind = line.get("type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "assistant.tool_call_delta" => whole::<ce::AssistantToolCallDeltaEvent>(kind, line),
        "assistant.message" => whole::<ce::AssistantMessageEvent>(kind, line),
        "tool.execution_start" => whole::<ce::ToolExecutionStartEvent>(kind, line),
        "tool.execution_partial_result" => whole::<ce::ToolExecutionPartialResultEvent>(kind, line),
        "tool.execution_progress" => whole::<ce::ToolExecutionProgressEvent>(kind, line),
        "tool.execution_complete" => whole::<ce::ToolExecutionCompleteEvent>(kind, line),
        "subagent.started" => whole::<ce::SubagentStartedEvent>(kind, line),
        "subagent.completed" => whole::<ce::SubagentCompletedEvent>(kind, line),
        "subagent.failed" => whole::<ce::SubagentFailedEvent>(kind, line),
        _ => return Ok(false),
    }
    .map(|()| true)
}

/// Every tool event of every Copilot recording parses into the generated type its
/// `type` names, whole.
#[test]
fn every_copilot_tool_event_parses_as_its_sdk_type() {
    let mut failures = Vec::new();
    let lines = recorded_lines(
        |name| of_source(name, "copilot") || of_source(name, "copilot-session"),
        &mut failures,
    );
    assert!(
        lines
            .iter()
            .any(|(at, _)| at.contains("/fixtures/copilot/")),
        "no fixtures/copilot recordings"
    );
    let mut checked: BTreeMap<String, usize> = BTreeMap::new();
    for (at, value) in lines {
        match check(&value) {
            Ok(true) => {
                let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
                *checked.entry(kind.to_owned()).or_default() += 1;
            }
            Ok(false) => {}
            Err(e) => failures.push(format!("{at}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for kind in [
        "assistant.message",
        "tool.execution_start",
        "tool.execution_complete",
        "subagent.started",
        "subagent.completed",
    ] {
        assert!(
            checked.contains_key(kind),
            "no `{kind}` event in {checked:?}"
        );
    }
}
