//! How a Goose tool result ends its call.
//!
//! A `toolResponse` says `{"status": "error", "error"}` when the call could not be made
//! or the tool failed with an MCP error (the error written `<JSON-RPC code>: <message>`,
//! rmcp's `ErrorData`), and `{"status": "success", "value"}` otherwise: the value is the
//! MCP result (`{"content", "isError"}`, since 1.10) or its content list alone (up to
//! 1.9). A tool that answers `isError` failed. The agent answers for a call it did not
//! run with a success of its own text: the user declined it (`DECLINED_RESPONSE` of
//! `crates/goose/src/agents/tool_execution.rs`), or chat mode skipped it
//! (`CHAT_MODE_TOOL_SKIPPED_RESPONSE`).

use serde_json::Value;
use toolnorm::{ErrorCode, Payload, ToolError};

use super::result_value::{self, ResultValue};
use crate::read::apart::one_text;

use crate::track::{MCP_TOOL_FAILED, text_error};

/// How the agent's answer begins when the user declined the call.
const DECLINED: &str = "The user has declined to run this tool.";

/// How the agent's answer begins when chat mode skipped the call.
const SKIPPED: &str = "Let the user know the tool call was skipped in goose chat mode.";

/// The error of the CLI's own cancellation (the user answered `Cancel`).
const CANCELLED: &str = "Tool call cancelled by user";

/// How the error of a call the model wrote as invalid JSON begins (the providers'
/// formats, `crates/goose/src/providers/formats/`).
const UNREADABLE: &str = "Could not interpret tool use parameters";

/// How a result ends its call.
pub(super) enum Outcome {
    /// The call completed with this output.
    Completed(Option<Payload>),
    /// The call failed.
    Failed(ToolError),
}

/// The outcome of a `toolResponse`'s `{"status", "value", "error"}`.
pub(super) fn outcome(
    status: Option<&str>,
    value: Option<ResultValue>,
    error: Option<Value>,
) -> Outcome {
    if status == Some("error") {
        let text = match error {
            Some(Value::String(text)) => text,
            Some(other) => other.to_string(),
            None => String::new(),
        };
        return Outcome::Failed(rpc_error(&text));
    }
    let ResultValue { value, kept, .. } = value.unwrap_or_default();
    let texts = Some(kept);
    // The content and, when they are its items', the texts kept apart.
    let (content, texts, is_error) = match value {
        // Up to 1.9: the content list alone.
        Value::Array(items) => (Some(Value::Array(items)), texts, false),
        // Since 1.10: an MCP `CallToolResult`.
        Value::Object(mut result) => {
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            let content = result.remove("content");
            let structured = result.remove("structuredContent");
            match content.filter(|c| !is_empty_list(c)) {
                Some(content) => (Some(content), texts, is_error),
                None => (structured, None, is_error),
            }
        }
        Value::Null => (None, None, false),
        other => (Some(other), None, false),
    };
    let text = content
        .as_ref()
        .and_then(Value::as_array)
        .and_then(|items| text_for_the_model(&result_value::items(items, texts.as_deref())));
    if is_error {
        let error = match text.as_ref().and_then(Payload::text) {
            Some(text) => text_error(&text),
            None => ToolError::new(MCP_TOOL_FAILED),
        };
        return Outcome::Failed(error.with_code(ErrorCode::McpError));
    }
    if let Some(text) = &text {
        if begins_with(text, DECLINED) {
            return Outcome::Failed(
                ToolError::new(DECLINED.trim_end_matches('.'))
                    .with_code(ErrorCode::UserRejected)
                    .with_details(serde_json::json!({ "output": text.value() })),
            );
        }
        if begins_with(text, SKIPPED) {
            return Outcome::Failed(
                ToolError::new("the tool call was skipped in chat mode")
                    .with_code(ErrorCode::PermissionDenied),
            );
        }
    }
    Outcome::Completed(
        text.or_else(|| {
            content.map(|content| Payload::from(result_value::restore(content, texts)))
        }),
    )
}

/// Whether a text begins with `opening`, told from its beginning alone.
fn begins_with(text: &Payload, opening: &str) -> bool {
    text.text_head(opening.len())
        .is_some_and(|head| head.starts_with(opening))
}

/// An error written `<code>: <message>` (rmcp's `ErrorData`; up to 1.9 some tools wrote
/// their message alone): the message, its JSON-RPC code in `details.errorCode`.
fn rpc_error(text: &str) -> ToolError {
    let (code, message) = match text.split_once(": ") {
        Some((code, message)) if code.parse::<i64>().is_ok() => (code.parse::<i64>().ok(), message),
        _ => (None, text),
    };
    let mut error = text_error(message);
    if message.trim_start().starts_with(CANCELLED) {
        error = error.with_code(ErrorCode::UserRejected);
    } else if message.trim_start().starts_with(UNREADABLE) {
        error = error.with_code(ErrorCode::InvalidToolUse);
    }
    if let Some(code) = code {
        let mut details = match error.details.take().map(Payload::into_value) {
            Some(Value::Object(details)) => details,
            _ => serde_json::Map::new(),
        };
        details.insert("errorCode".into(), code.into());
        error.details = Some(Value::Object(details).into());
    }
    error
}

fn is_empty_list(value: &Value) -> bool {
    value.as_array().is_some_and(Vec::is_empty)
}

/// The text of a content list as the model read it: its `text` items meant for the
/// assistant (no `annotations.audience`, or one that names `assistant`); Goose's
/// developer tools write a second text for the user beside it. When every text is for
/// the user, those. One text is the output as it came; several are joined.
fn text_for_the_model(items: &[(&Value, Option<Payload>)]) -> Option<Payload> {
    let texts = |for_the_model: bool| -> Vec<&Payload> {
        items
            .iter()
            .filter(|(item, _)| item.get("type").and_then(Value::as_str) == Some("text"))
            .filter(|(item, _)| !for_the_model || is_for_the_model(item))
            .filter_map(|(_, text)| text.as_ref().filter(|text| text.is_string()))
            .collect()
    };
    let mut chosen = texts(true);
    if chosen.is_empty() {
        chosen = texts(false);
    }
    (!chosen.is_empty()).then(|| one_text(chosen))
}

fn is_for_the_model(item: &Value) -> bool {
    match item
        .pointer("/annotations/audience")
        .and_then(Value::as_array)
    {
        Some(audience) => audience.iter().any(|who| who.as_str() == Some("assistant")),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    /// A result's value read as the reader reads it, its texts kept apart.
    fn kept(value: Value) -> ResultValue {
        serde_json::from_str(&value.to_string()).unwrap()
    }

    fn failed(outcome: Outcome) -> ToolError {
        match outcome {
            Outcome::Failed(error) => error,
            Outcome::Completed(output) => panic!("completed with {output:?}"),
        }
    }

    fn completed(outcome: Outcome) -> Option<Value> {
        match outcome {
            Outcome::Completed(output) => output.map(Payload::into_value),
            Outcome::Failed(error) => panic!("failed with {error:?}"),
        }
    }

    #[test]
    fn the_text_for_the_model_is_the_output_in_both_forms() {
        let items = json!([
            {"type": "text", "text": "a.txt", "annotations": {"audience": ["assistant"]}},
            {"type": "text", "text": "a.txt (for people)", "annotations": {"audience": ["user"], "priority": 0.0}}
        ]);
        let old = completed(outcome(Some("success"), Some(kept(items.clone())), None));
        assert_eq!(old, Some(json!("a.txt")));
        let new = json!({"content": items, "isError": false});
        assert_eq!(
            completed(outcome(Some("success"), Some(kept(new)), None)),
            Some(json!("a.txt"))
        );
        let user_only =
            json!([{"type": "text", "text": "shown", "annotations": {"audience": ["user"]}}]);
        assert_eq!(
            completed(outcome(Some("success"), Some(kept(user_only)), None)),
            Some(json!("shown"))
        );
        let image = json!([{"type": "image", "data": "AA==", "mimeType": "image/png"}]);
        assert_eq!(
            completed(outcome(Some("success"), Some(kept(image.clone())), None)),
            Some(image)
        );
        let structured = json!({"content": [], "structuredContent": {"n": 1}});
        assert_eq!(
            completed(outcome(Some("success"), Some(kept(structured)), None)),
            Some(json!({"n": 1}))
        );
        assert_eq!(completed(outcome(None, None, None)), None);
    }

    #[test]
    fn errors_lose_their_json_rpc_code_to_the_details() {
        let error = failed(outcome(
            Some("error"),
            None,
            Some(json!(
                "-32603: The path '/x' does not exist or is not accessible."
            )),
        ));
        assert_eq!(
            error.message,
            "The path '/x' does not exist or is not accessible."
        );
        assert_eq!(
            error.details.as_deref(),
            Some(&json!({"errorCode": -32603}))
        );
        let error = failed(outcome(
            Some("error"),
            None,
            Some(json!("-32600: Tool call cancelled by user")),
        ));
        assert_eq!(error.code, Some(ErrorCode::UserRejected));
        let error = failed(outcome(
            Some("error"),
            None,
            Some(json!(
                "-32602: Could not interpret tool use parameters for id c1: EOF"
            )),
        ));
        assert_eq!(error.code, Some(ErrorCode::InvalidToolUse));
        let error = failed(outcome(
            Some("error"),
            None,
            Some(json!("Execution failed: boom")),
        ));
        assert_eq!(error.message, "Execution failed: boom");
        assert_eq!(error.details, None);
        let error = failed(outcome(Some("error"), None, None));
        assert_eq!(error.message, "the tool failed");
    }

    #[test]
    fn the_agents_own_answers_and_is_error_are_failures() {
        let declined = json!({"content": [{"type": "text", "text": "The user has declined to run this tool. DO NOT attempt to call this tool again."}]});
        assert_eq!(
            failed(outcome(Some("success"), Some(kept(declined)), None)).code,
            Some(ErrorCode::UserRejected)
        );
        let skipped = json!([{"type": "text", "text": "Let the user know the tool call was skipped in goose chat mode. DO NOT apologize."}]);
        assert_eq!(
            failed(outcome(Some("success"), Some(kept(skipped)), None)).code,
            Some(ErrorCode::PermissionDenied)
        );
        let is_error =
            json!({"content": [{"type": "text", "text": "division by zero"}], "isError": true});
        let error = failed(outcome(Some("success"), Some(kept(is_error)), None));
        assert_eq!(
            (error.message.as_str(), error.code),
            ("division by zero", Some(ErrorCode::McpError))
        );
        let bare = json!({"content": [], "isError": true});
        assert_eq!(
            failed(outcome(Some("success"), Some(kept(bare)), None)).message,
            MCP_TOOL_FAILED
        );
    }

    /// What an outcome says, to compare.
    fn said(outcome: Outcome) -> Result<Option<Value>, ToolError> {
        match outcome {
            Outcome::Completed(output) => Ok(output.map(Payload::into_value)),
            Outcome::Failed(error) => Err(error),
        }
    }

    #[test]
    fn a_result_with_its_texts_kept_as_they_came_ends_a_call_as_one_read_from_a_value() {
        for value in [
            r#"{"content": [{"type": "text", "text": "a\nb"}], "isError": false}"#,
            r#"{"content": [{"type": "text", "text": "x", "annotations": {"audience": ["user"]}}, {"type": "text", "text": "y"}]}"#,
            r#"{"content": [{"type": "text", "text": "u1", "annotations": {"audience": ["user"]}}, {"type": "text", "text": "u2", "annotations": {"audience": ["user"]}}]}"#,
            r#"{"content": [{"type": "image", "data": "AA==", "text": 7}, {"type": "text", "text": null}, {"text": "no type"}]}"#,
            r#"{"content": [{"type": "text", "text": "a", "text": "b"}], "content": [{"type": "text", "text": "c"}]}"#,
            r#"{"content": [{"type": "text", "text": "boom"}], "isError": true}"#,
            r#"{"content": [], "structuredContent": {"text": "s"}}"#,
            r#"{"content": "a string", "isError": false}"#,
            r#"{"content": [{"type": "text", "text": "The user has declined to run this tool. No."}]}"#,
            r#"[{"type": "text", "text": "old"}, "loose", [{"text": "nested"}]]"#,
            r#"[{"type": "text", "text": "Let the user know the tool call was skipped in goose chat mode."}]"#,
            r#""a bare string""#,
            "3.5",
            "null",
        ] {
            let kept: ResultValue = serde_json::from_str(value).unwrap();
            // Read from a value: its texts kept as values, not as the text they came as.
            let whole: Value = serde_json::from_str(value).unwrap();
            let whole = ResultValue::deserialize(whole).unwrap();
            assert_eq!(
                said(outcome(Some("success"), Some(kept), None)),
                said(outcome(Some("success"), Some(whole), None)),
                "{value}"
            );
        }
        // One text is the output as it came.
        let kept: ResultValue =
            serde_json::from_str(r#"{"content": [{"type": "text", "text": "a\nb"}]}"#).unwrap();
        let Outcome::Completed(Some(output)) = outcome(Some("success"), Some(kept), None) else {
            panic!("not completed");
        };
        assert_eq!(output.raw_text(), Some(r#""a\nb""#));
    }
}
