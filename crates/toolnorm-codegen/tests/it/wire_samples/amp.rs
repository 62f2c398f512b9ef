//! Amp's `--stream-json` (`amp -x … --stream-json`) against its own SDK's types
//! (`StreamMessage` of `@sourcegraph/amp-sdk`, `toolnorm_wire::amp_messages`).
//!
//! The `amp` dialect is read by Claude Code's reader; these checks are the drift guard
//! between the recordings and the pinned declarations: every line parses into the
//! member of `StreamMessage` its `type` (and `subtype`) names, and the tool data of each
//! line (its message's content blocks) survives the round trip through that member's
//! type. The fields the SDK requires of an assistant message and no recorded version
//! sends (`id`, `model`, `stop_sequence`) are made optional by the source's steps.

use serde_json::Value;
use std::collections::BTreeMap;
use toolnorm_wire::amp_messages as am;

use super::{of_source, recorded_lines, require_lossless, round_trip};

/// The member a parsed line landed in.
fn variant(message: &am::StreamMessage) -> &'static str {
    match message {
        am::StreamMessage::SystemMessage(_) => "system",
        am::StreamMessage::AssistantMessage(_) => "assistant",
        am::StreamMessage::UserMessage(_) => "user",
        am::StreamMessage::ResultMessage(_) | am::StreamMessage::ErrorResultMessage(_) => "result",
    }
}

/// One line: the union member its tag names, with its content blocks whole. Returns
/// whether the line carried a tool call or result.
fn check(line: &Value) -> Result<bool, String> {
    let kind = line.get("type").and_then(Value::as_str).unwrap_or_default();
    let message: am::StreamMessage =
        serde_json::from_value(line.clone()).map_err(|e| format!("StreamMessage: {e}"))?;
    if variant(&message) != kind {
        return Err(format!(
            "StreamMessage: a `{kind}` line parsed as `{}`",
            variant(&message)
        ));
    }
    let back = match kind {
        "assistant" => round_trip::<am::AssistantMessage>(kind, line)?,
        "user" => round_trip::<am::UserMessage>(kind, line)?,
        _ => return Ok(false),
    };
    require_lossless(kind, line, &back, "/message/content")?;
    let tool = line
        .pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|block| {
            matches!(
                block.get("type").and_then(Value::as_str),
                Some("tool_use" | "tool_result")
            )
        });
    Ok(tool)
}

/// Every line of every Amp recording parses into the member of `StreamMessage` its type
/// names, its tool blocks whole.
#[test]
fn every_amp_recording_parses_as_its_sdk_message() {
    let mut failures = Vec::new();
    let lines = recorded_lines(|name| of_source(name, "amp"), &mut failures);
    assert!(
        lines.iter().any(|(at, _)| at.contains("/fixtures/amp/")),
        "no fixtures/amp recordings"
    );
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    let mut tool_lines = 0;
    for (at, value) in lines {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        *types.entry(kind.to_owned()).or_default() += 1;
        match check(&value) {
            Ok(true) => tool_lines += 1,
            Ok(false) => {}
            Err(e) => failures.push(format!("{at}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for kind in ["system", "assistant", "user", "result"] {
        assert!(types.contains_key(kind), "no `{kind}` line in {types:?}");
    }
    assert!(tool_lines >= 20, "{tool_lines} lines with tool data");
}
