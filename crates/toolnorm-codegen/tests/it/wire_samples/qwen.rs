//! Qwen Code's stream-json (`qwen -p … --output-format stream-json`) against its own
//! SDK's types (`SDKMessage` of `@qwen-code/sdk`, `toolnorm_wire::qwen_messages`).
//!
//! The `qwen-code` dialect is read by Claude Code's reader; these checks are the drift
//! guard between the recordings and the pinned schema: every line parses into the
//! member of `SDKMessage` its `type` names, and the whole line survives the round trip
//! through that member's type (the schema declares every field the CLI sends).

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolnorm_wire::qwen_messages as qm;

use super::{Check, Outcome, of_source, recorded_lines, require_lossless, round_trip};

/// Content blocks that carry a tool call or its result.
const TOOL_BLOCKS: &[&str] = &["tool_use", "tool_result"];

/// The `SDKMessage` member a parsed line landed in, by its `type` tag.
fn variant(message: &qm::SdkMessage) -> &'static str {
    match message {
        qm::SdkMessage::SystemMessage(_) => "system",
        qm::SdkMessage::AssistantMessage(_) => "assistant",
        qm::SdkMessage::PartialAssistantMessage(_) => "stream_event",
        qm::SdkMessage::UserMessage(_) => "user",
        qm::SdkMessage::ResultMessage(_) => "result",
    }
}

/// Whether a line's `message.content` holds a tool call or result.
fn has_tool_block(line: &Value) -> bool {
    line.pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|block| TOOL_BLOCKS.contains(&block.get("type").and_then(Value::as_str).unwrap_or("")))
}

/// Parses a line as `T` and requires the whole line back: the schema declares every
/// field the CLI sends.
fn whole<T: DeserializeOwned + Serialize>(kind: &str, line: &Value) -> Result<(), String> {
    let back = round_trip::<T>(kind, line)?;
    require_lossless(kind, line, &back, "")
}

/// One stream-json line: the union member its tag names, then its own type, whole.
pub(super) fn check(line: &Value) -> Check {
    let kind = line.get("type").and_then(Value::as_str).unwrap_or_default();
    let message: qm::SdkMessage =
        serde_json::from_value(line.clone()).map_err(|e| format!("SDKMessage: {e}"))?;
    if variant(&message) != kind {
        return Err(format!(
            "SDKMessage: a `{kind}` line parsed as `{}`",
            variant(&message)
        ));
    }
    let tool = |saw: bool| if saw { Outcome::Tool } else { Outcome::Other };
    match kind {
        "assistant" => {
            whole::<qm::SdkAssistantMessage>(kind, line).map(|()| tool(has_tool_block(line)))
        }
        "user" => whole::<qm::SdkUserMessage>(kind, line).map(|()| tool(has_tool_block(line))),
        "stream_event" => {
            whole::<qm::SdkPartialAssistantMessage>(kind, line)?;
            let block = line
                .pointer("/event/content_block/type")
                .or_else(|| line.pointer("/event/delta/type"))
                .and_then(Value::as_str);
            Ok(tool(matches!(block, Some("tool_use" | "input_json_delta"))))
        }
        "result" => {
            whole::<qm::SdkResultMessage>(kind, line)?;
            let denied = line
                .get("permission_denials")
                .and_then(Value::as_array)
                .is_some_and(|denials| !denials.is_empty());
            Ok(tool(denied))
        }
        "system" => whole::<qm::SdkSystemMessage>(kind, line).map(|()| Outcome::Other),
        _ => Ok(Outcome::Skipped),
    }
}

/// Every line of every Qwen Code stream recording, of every message type, parses into
/// the generated type its `type` names, whole.
#[test]
fn every_qwen_code_recording_parses_as_its_sdk_message() {
    let mut failures = Vec::new();
    let lines = recorded_lines(|name| of_source(name, "qwen-code"), &mut failures);
    assert!(
        lines
            .iter()
            .any(|(at, _)| at.contains("/fixtures/qwen-code/")),
        "no fixtures/qwen-code recordings"
    );
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    let mut tool_lines = 0;
    for (at, value) in lines {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        *types.entry(kind.to_owned()).or_default() += 1;
        match check(&value) {
            Ok(Outcome::Tool) => tool_lines += 1,
            Ok(Outcome::Other) => {}
            Ok(Outcome::Skipped) => failures.push(format!("{at}: no type for `{kind}`")),
            Err(e) => failures.push(format!("{at}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for kind in ["system", "assistant", "user", "result", "stream_event"] {
        assert!(types.contains_key(kind), "no `{kind}` line in {types:?}");
    }
    assert!(tool_lines >= 20, "{tool_lines} lines with tool data");
}

/// The union is untagged: a tool call lands in the tool-use block, its result in the
/// tool-result block, the goal state the CLI sends in the patched member.
#[test]
fn qwen_code_blocks_land_in_their_variant() -> Result<(), String> {
    let assistant: qm::SdkAssistantMessage = serde_json::from_value(serde_json::json!({
        "type": "assistant", "uuid": "u1", "session_id": "s", "parent_tool_use_id": null,
        "message": {"id": "m", "type": "message", "role": "assistant", "model": "q",
            "content": [{"type": "tool_use", "id": "call_1", "name": "read_file",
                "input": {"absolute_path": "/a"}}],
            "usage": {"input_tokens": 1, "output_tokens": 2}}
    }))
    .map_err(|e| e.to_string())?;
    assert!(matches!(
        assistant.message.content.as_slice(),
        [qm::ContentBlock::ToolUseBlock(block)] if block.id == "call_1"
    ));
    let user: qm::SdkUserMessage = serde_json::from_value(serde_json::json!({
        "type": "user", "session_id": "s", "parent_tool_use_id": null,
        "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "call_1", "is_error": true, "content": "no such file"}]}
    }))
    .map_err(|e| e.to_string())?;
    let qm::ApiUserMessageContent::Array(blocks) = &user.message.content else {
        return Err("user content is not blocks".into());
    };
    assert!(matches!(
        blocks.as_slice(),
        [qm::ContentBlock::ToolResultBlock(block)] if block.is_error == Some(true)
    ));
    let goal: qm::SdkPartialAssistantMessage = serde_json::from_value(serde_json::json!({
        "type": "stream_event", "uuid": "u2", "session_id": "s", "parent_tool_use_id": null,
        "event": {"type": "goal_state", "goal_state": {"v": 2, "goal": null}}
    }))
    .map_err(|e| e.to_string())?;
    assert!(matches!(
        goal.event,
        qm::StreamEvent::GoalStateStreamEvent(_)
    ));
    Ok(())
}
