//! How a Kimi call starts and ends, the same from the stream, the context file and the
//! wire log.
//!
//! A tool's result is a `ToolReturnValue`: `is_error`, `output` (text or content parts)
//! and `message` (for the model). The wire log keeps it whole; the stream and the context
//! file keep the message Kimi makes of it for the model: the `message` as a first text
//! part `<system>…</system>` (`<system>ERROR: …</system>` when `is_error`), then the output.
//! The output is the result's output, or its message when it has none.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm::{ErrorCode, JsonObject, Payload, Timestamp, ToolError, ToolKind, meta};

use super::wire::ToolCall;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::{Ending, Facts, Sighting, exit_error, text_error};

/// The raw item type of the calls (`metadata.itemType`).
const ITEM_TYPE: &str = "function";

/// How Kimi's `Shell` begins the message of a command that exited non-zero.
const EXITED: &str = "Command failed with exit code: ";

/// How Kimi begins the message of a call the user (or a hook) refused.
const REJECTED: &str = "The tool call is rejected by the user";

/// What Kimi says of a call a `PreToolUse` hook blocked without a reason of its own.
const HOOK_BLOCKED: &str = "Blocked by PreToolUse hook";

/// The message of an MCP tool's error result.
const MCP_ERROR: &str = "Tool returned an error.";

/// How the model's message marks what Kimi says about a result.
const SYSTEM_OPEN: &str = "<system>";
/// Its end.
const SYSTEM_CLOSE: &str = "</system>";
/// How that text begins for an error.
const ERROR_PREFIX: &str = "ERROR: ";

/// A call is seen (or seen again, its arguments fuller): under `parent` for a subagent's.
pub(super) fn sighted(
    line: u64,
    call: &ToolCall,
    parent: Option<&str>,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    let Some(id) = call.id.as_deref().filter(|id| !id.is_empty()) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            format!(
                "a `{}` tool call without an id",
                call.name.as_deref().unwrap_or("function")
            ),
        ));
    };
    let (input, unparsed) = call.input();
    if let Some(text) = unparsed
        && !facts.is_open(id)
        && facts.finished(id).is_none()
    {
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::MalformedEvent,
            format!("the arguments of call `{id}` are not a JSON object: {text}"),
        ));
    }
    let mut metadata = JsonObject::new();
    metadata.insert(meta::ITEM_TYPE.into(), ITEM_TYPE.into());
    if let Some(parent) = parent {
        metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.into());
    }
    let name = call.name.clone().unwrap_or_else(|| "tool".to_owned());
    facts.sighted(
        line,
        Sighting::new(id, name, input).metadata(metadata).at(at),
    );
}

/// A result for call `id`, whose call the lines read so far do not hold (a file joined
/// after it): the call is opened with an unknown tool, with a notice.
pub(super) fn open_unseen(
    line: u64,
    id: &str,
    parent: Option<&str>,
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    if facts.is_open(id) {
        return;
    }
    facts.diagnostic(Diagnostic::notice(
        line,
        DiagnosticKind::UnknownCall,
        format!("a result for call `{id}`, whose call the input does not hold"),
    ));
    let call = ToolCall {
        id: Some(id.to_owned()),
        name: None,
        arguments: None,
    };
    sighted(line, &call, parent, at, facts);
}

/// A result as the model's `tool` message gives it: its `content`, read as a value (what
/// [`from_raw_message`] must equal).
#[cfg(test)]
pub(super) fn from_message(content: &Value) -> (bool, String, Option<Payload>) {
    let (system, output) = split(content);
    classify((system, output.map(Payload::from)))
}

/// `from_message` of a `content` kept raw: text parts are read in place, anything
/// else (or a text that is no JSON: no content) as a value.
pub(super) fn from_raw_message(content: Option<&RawValue>) -> (bool, String, Option<Payload>) {
    let split = match content {
        Some(raw) => split_raw(raw).unwrap_or_else(|| {
            let (system, output) = split(&serde_json::from_str(raw.get()).unwrap_or_default());
            (system, output.map(Payload::from))
        }),
        None => (None, None),
    };
    classify(split)
}

/// Whether a result is an error, its message and its output, from its `<system>` note
/// and the rest of its content.
fn classify(
    (system, output): (Option<String>, Option<Payload>),
) -> (bool, String, Option<Payload>) {
    let system = system.unwrap_or_default();
    match system.strip_prefix(ERROR_PREFIX) {
        Some(message) => (true, message.to_owned(), output),
        // 0.x writes a failed command's note without `ERROR: ` (its wire log says
        // `is_error` all the same).
        None if system.starts_with(EXITED) => (true, system, output),
        None => {
            let output = output.or_else(|| (!system.is_empty()).then(|| system.clone().into()));
            (false, system, output)
        }
    }
}

/// A result as the wire log gives it: the `return_value` of a `ToolResult`.
pub(super) fn from_return_value(
    value: &Value,
    kept: Option<&Payload>,
) -> (bool, String, Option<Payload>) {
    let is_error = value.get("is_error").and_then(Value::as_bool) == Some(true);
    let message = value
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let output = match kept {
        // A string output kept as it came: an empty one is no output.
        Some(text) if text.is_string() => text
            .text_head(1)
            .is_some_and(|head| !head.is_empty())
            .then(|| text.clone()),
        Some(other) => output_of(Some(other.value())),
        None => output_of(value.get("output")),
    };
    let output = if is_error || output.is_some() || message.is_empty() {
        output
    } else {
        Some(Value::String(message.clone()).into())
    };
    (is_error, message, output)
}

/// The output a return value's `output` gives, read as a value.
fn output_of(output: Option<&Value>) -> Option<Payload> {
    let output = match output {
        Some(Value::String(text)) if !text.is_empty() => Some(Value::String(text.clone())),
        Some(parts @ Value::Array(_)) => split(parts).1,
        Some(part @ Value::Object(_)) => split(&Value::Array(vec![part.clone()])).1,
        _ => None,
    };
    output.map(Payload::from)
}

/// The end of call `id`: `is_error`, the result's `message` and its output.
pub(super) fn ended(
    line: u64,
    id: &str,
    (is_error, message, output): (bool, String, Option<Payload>),
    at: Option<Timestamp>,
    facts: &mut Facts<'_>,
) {
    let ending = Ending::at(at);
    if !is_error {
        return facts.complete(line, id, output, ending);
    }
    let shell = facts.kind(id) == Some(ToolKind::Bash);
    facts.fail(line, id, failure(&message, output, shell), ending);
}

/// The error of a failed call: Kimi's `message` and the output (`shell`: a `Shell` call).
pub(super) fn failure(message: &str, output: Option<Payload>, shell: bool) -> ToolError {
    let text = match &output {
        Some(output) => match output.text() {
            Some(text) => text.trim_end().to_owned(),
            None => output.to_json(),
        },
        None => String::new(),
    };
    if shell
        && let Some(code) = message
            .strip_prefix(EXITED)
            .and_then(|rest| rest.trim_end_matches('.').trim().parse::<i64>().ok())
    {
        return exit_error(code, text);
    }
    if message.starts_with(MCP_ERROR) {
        // Kimi's message only says that the tool failed: the output is the tool's error.
        let mut error = text_error(if text.is_empty() { message } else { &text });
        error.code = Some(ErrorCode::McpError);
        return error;
    }
    let mut error = text_error(message);
    if !text.is_empty() {
        error.details = Some(serde_json::json!({ "output": text }).into());
    }
    if message.starts_with(REJECTED) || message.starts_with(HOOK_BLOCKED) {
        error.code = Some(ErrorCode::PermissionDenied);
    } else if is_invalid_use(message) {
        error.code = Some(ErrorCode::InvalidToolUse);
    }
    error
}

/// Whether Kimi refused the call before running it: an unknown tool, or arguments that
/// are not JSON or do not match the tool's parameters.
fn is_invalid_use(message: &str) -> bool {
    (message.starts_with("Tool `") && message.contains("` not found"))
        || message.starts_with("Error parsing JSON arguments")
        || message.starts_with("Error validating JSON arguments")
}

/// A `tool` message's content: the text of its `<system>` part, and the rest (its text
/// joined, or the parts themselves when one is not text).
fn split(content: &Value) -> (Option<String>, Option<Value>) {
    match content {
        Value::String(text) => split_text(text),
        Value::Array(parts) => {
            let texts: Vec<Option<&str>> = parts.iter().map(part_text).collect();
            let (system, rest) = split_parts(&texts);
            let output = match joined(&texts, &rest) {
                Some(output) => output,
                None => Some(Value::Array(
                    rest.iter()
                        .filter_map(|&at| parts.get(at))
                        .cloned()
                        .collect(),
                )),
            };
            (system, output)
        }
        Value::Null => (None, None),
        other => (None, Some(other.clone())),
    }
}

/// [`split`] of a content kept raw, read in place when it is a string or a list of
/// parts whose rest is all text (one text kept as it came, several joined); `None` for
/// anything else (read as a value then).
fn split_raw(raw: &RawValue) -> Option<(Option<String>, Option<Payload>)> {
    /// A content part, as far as [`part_text`] reads it: its text left in the line.
    #[derive(Deserialize)]
    struct Part<'a> {
        #[serde(borrow, default, rename = "type")]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        text: Option<&'a RawValue>,
    }
    let text = raw.get();
    if text.starts_with('"') {
        let text: Payload = serde_json::from_str(text).ok()?;
        return Some(match kept_system(&text) {
            Some(system) => (Some(system), None),
            None => (
                None,
                text.text_head(1)
                    .is_some_and(|head| !head.is_empty())
                    .then_some(text),
            ),
        });
    }
    if !text.starts_with('[') {
        return None;
    }
    let parts: Vec<Part<'_>> = serde_json::from_str(text).ok()?;
    let mut texts = Vec::with_capacity(parts.len());
    let mut notes = Vec::with_capacity(parts.len());
    for part in &parts {
        let is_text = part.kind.as_deref() == Some("text");
        let text = part.text.filter(|text| text.get().starts_with('"'));
        // A text must read as a `String` reads it, else the content is read as a value:
        // a note is decoded, the rest's texts are when they are read below, any other
        // part's text here.
        let note = match text {
            Some(text) if is_text => raw_system(text)?,
            Some(text) => {
                serde_json::from_str::<Cow<'_, str>>(text.get()).ok()?;
                None
            }
            None if part.text.is_some_and(|text| text.get() != "null") => return None,
            None => None,
        };
        texts.push(text.filter(|_| is_text));
        notes.push(note);
    }
    let (system, rest) = split_notes(notes.into_iter());
    let rest: Vec<&RawValue> = rest
        .iter()
        .map(|&at| texts.get(at).copied().flatten())
        .collect::<Option<_>>()?;
    let output = match rest.as_slice() {
        [] => None,
        [one] => Some(serde_json::from_str::<Payload>(one.get()).ok()?),
        many => {
            let texts: Vec<Cow<'_, str>> = many
                .iter()
                .map(|text| serde_json::from_str::<Cow<'_, str>>(text.get()).ok())
                .collect::<Option<_>>()?;
            Some(Payload::from(texts.concat()))
        }
    };
    Some((system, output))
}

/// The note of a part's text (a JSON string) that is one `<system>…</system>`: `None`
/// when the text does not read as a string, `Some(None)` when it is no note (a text
/// that begins otherwise is not decoded here).
fn raw_system(text: &RawValue) -> Option<Option<String>> {
    let quoted = text.get();
    let plain = quoted.strip_prefix('"').unwrap_or(quoted);
    if !plain.starts_with('\\') && !plain.starts_with(SYSTEM_OPEN) {
        return Some(None);
    }
    let text = serde_json::from_str::<Cow<'_, str>>(quoted).ok()?;
    Some(system_of(&text))
}

/// The note of a kept text that is one `<system>…</system>` (only its beginning decoded
/// when it is not).
fn kept_system(text: &Payload) -> Option<String> {
    let head = text.text_head(SYSTEM_OPEN.len())?;
    if !head.starts_with(SYSTEM_OPEN) {
        return None;
    }
    system_of(&text.text()?)
}

/// The text of a content part, when it is a text part.
fn part_text(part: &Value) -> Option<&str> {
    (part.get("type").and_then(Value::as_str) == Some("text"))
        .then(|| part.get("text").and_then(Value::as_str))
        .flatten()
}

/// A string content: its `<system>` note, or its text.
fn split_text(text: &str) -> (Option<String>, Option<Value>) {
    match system_of(text) {
        Some(system) => (Some(system), None),
        None => (
            None,
            (!text.is_empty()).then(|| Value::String(text.to_owned())),
        ),
    }
}

/// The first `<system>` note among the parts' texts, and the places of the other parts.
fn split_parts(texts: &[Option<&str>]) -> (Option<String>, Vec<usize>) {
    split_notes(texts.iter().map(|text| text.and_then(system_of)))
}

/// The first of the parts' notes, and the places of the other parts.
fn split_notes(notes: impl Iterator<Item = Option<String>>) -> (Option<String>, Vec<usize>) {
    let mut system = None;
    let mut rest = Vec::new();
    for (at, note) in notes.enumerate() {
        match note {
            Some(found) if system.is_none() => system = Some(found),
            _ => rest.push(at),
        }
    }
    (system, rest)
}

/// The output of the parts at `rest` when they are all text: their text joined (`None`
/// inside when there are none); `None` when one is not text.
fn joined(texts: &[Option<&str>], rest: &[usize]) -> Option<Option<Value>> {
    let rest: Vec<&str> = rest
        .iter()
        .map(|&at| texts.get(at).copied().flatten())
        .collect::<Option<_>>()?;
    Some((!rest.is_empty()).then(|| Value::String(rest.concat())))
}

/// The note of a text that is one `<system>…</system>`.
fn system_of(text: &str) -> Option<String> {
    text.strip_prefix(SYSTEM_OPEN)
        .and_then(|rest| rest.strip_suffix(SYSTEM_CLOSE))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::{failure, from_message, from_raw_message, from_return_value};
    use serde_json::json;
    use toolnorm::ErrorCode;

    #[test]
    fn the_message_and_the_return_value_say_the_same() {
        let message = json!([
            {"type": "text", "text": "<system>ERROR: Command failed with exit code: 3.</system>"},
            {"type": "text", "text": "checking\ncheck failed\n"}
        ]);
        let value = json!({"is_error": true, "output": "checking\ncheck failed\n",
            "message": "Command failed with exit code: 3.", "display": []});
        assert_eq!(from_message(&message), from_return_value(&value, None));
        let ok = json!([{"type": "text", "text": "<system>Command executed successfully.</system>"},
            {"type": "text", "text": "hi\n"}]);
        assert_eq!(
            from_message(&ok),
            (
                false,
                "Command executed successfully.".into(),
                Some(json!("hi\n").into())
            )
        );
        let old = json!([{"type": "text", "text": "<system>Command failed with exit code: 3.</system>"},
            {"type": "text", "text": "checking\n"}]);
        assert_eq!(
            from_message(&old),
            from_return_value(
                &json!({"is_error": true, "output": "checking\n",
                "message": "Command failed with exit code: 3."}),
                None
            )
        );
        let only = json!("<system>File successfully overwritten.</system>");
        assert_eq!(
            from_message(&only).2,
            from_return_value(
                &json!({"is_error": false, "output": "",
                "message": "File successfully overwritten."}),
                None
            )
            .2
        );
    }

    #[test]
    fn failures_have_their_codes() {
        let exit = failure(
            "Command failed with exit code: 3.",
            Some(json!("checking\n").into()),
            true,
        );
        assert_eq!(exit.code, Some(ErrorCode::ExitCode));
        assert_eq!(
            exit.details.as_deref(),
            Some(&json!({"exitCode": 3, "output": "checking"}))
        );
        let rejected = failure(
            "The tool call is rejected by the user. Stop what you are doing.",
            None,
            true,
        );
        assert_eq!(rejected.code, Some(ErrorCode::PermissionDenied));
        assert_eq!(
            failure("Tool `Nope` not found", None, false).code,
            Some(ErrorCode::InvalidToolUse)
        );
        let mcp = failure(
            "Tool returned an error. The output may be error message or incomplete output",
            Some(json!("division by zero").into()),
            false,
        );
        assert_eq!(mcp.code, Some(ErrorCode::McpError));
        assert_eq!(mcp.message, "division by zero");
        assert_eq!(
            failure("Blocked by PreToolUse hook", None, true).code,
            Some(ErrorCode::PermissionDenied)
        );
        let missing = failure("`missing.txt` does not exist.", None, false);
        assert_eq!(missing.code, None);
        assert_eq!(missing.message, "`missing.txt` does not exist.");
    }

    #[test]
    fn a_raw_content_reads_as_its_value_does() {
        let contents = [
            r#""plain output""#,
            r#""<system>ERROR: boom</system>""#,
            r#""""#,
            r#"[]"#,
            r#"[{"type":"text","text":"<system>Command executed successfully.</system>"},{"type":"text","text":"a\n"},{"type":"text","text":"b"}]"#,
            r#"[{"type":"text","text":"<system>one</system>"},{"type":"text","text":"<system>two</system>"}]"#,
            r#"[{"type":"text","text":"<system>ERROR: failed</system>"}]"#,
            r#"[{"type":"text","text":"x","extra":1},{"text":"y","type":"text"}]"#,
            r#"[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"u"}}]"#,
            r#"[{"type":"text","text":null},{"type":"text"}]"#,
            r#"[{"type":"text","text":1}]"#,
            r#"[{"type":"text","type":"think","text":"x"}]"#,
            r#"["loose", {"type":"text","text":"x"}]"#,
            r#"[{"type":"text","text":"\u003csystem>note</system>"},{"type":"text","text":"a\tb"}]"#,
            r#"[{"type":"text","text":"<system>a</system>"},{"type":"text","text":"\u00e9"}]"#,
            r#"[{"type":"image","text":"x"},{"type":"text","text":"y"}]"#,
            r#"[{"type":"image","text":7},{"type":"text","text":"y"}]"#,
            r#"[{"type":"text","text":"<system>a</system>"},{"type":"text","text":"<system>b</system>"},{"type":"text","text":"c"}]"#,
            r#"{"type":"text","text":"an object"}"#,
            r#"null"#,
            r#"42"#,
        ];
        for content in contents {
            let raw = serde_json::value::RawValue::from_string(content.to_owned()).unwrap();
            let value: serde_json::Value = serde_json::from_str(content).unwrap();
            assert_eq!(
                from_raw_message(Some(&raw)),
                from_message(&value),
                "{content}"
            );
        }
        assert_eq!(
            from_raw_message(None),
            from_message(&serde_json::Value::Null)
        );
    }

    #[test]
    fn one_text_is_kept_as_it_came() {
        for content in [
            r#"[{"type":"text","text":"<system>Read.</system>"},{"type":"text","text":"a\tb"}]"#,
            r#""a\tb""#,
        ] {
            let raw = serde_json::value::RawValue::from_string(content.to_owned()).unwrap();
            let output = from_raw_message(Some(&raw)).2.unwrap();
            assert_eq!(output.raw_text(), Some(r#""a\tb""#), "{content}");
        }
    }
}
