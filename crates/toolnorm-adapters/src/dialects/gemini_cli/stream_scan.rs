//! One scan of a stream-json line: the keys that route it and the fields of its event,
//! read together, strings borrowed from the line.
//!
//! It reads every field any event type has, each as its generated type reads it (an enum
//! as a string of its values), and the keys that route a line, so that a line it reads is
//! one the envelope and the event's generated type both read, to the same values.
//! Anything else (a line without a string `type`, a type that is not a stream event's, a
//! field missing or of another type even where the event's type would ignore it, an
//! `error` with an `id`, a line that is not JSON) makes the scan give up, and the line is
//! read as before, the envelope first and the event after, which says what is wrong with
//! it: the scan changes how often the bytes are read, never what a line means.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};
use toolnorm::Payload;
use toolnorm_wire::gemini_stream as wire;

use super::stream::{Event, ToolResult, ToolUse};
use super::stream_checked::{AnyText, Stats};
use crate::read::borrowed::Text;

/// The event of a stream-json line read in one scan, or `None` when it is not of the
/// shapes the scan reads.
pub(super) fn scan(text: &str) -> Option<Event<'_>> {
    #[cfg(test)]
    if crate::read::scan_check::field_by_field() {
        return None;
    }
    serde_json::from_str::<Fields<'_>>(text).ok()?.into_event()
}

/// The fields of every stream-json event type, and the envelope's.
#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(borrow, rename = "type")]
    kind: Text<'a>,
    // The envelope's: an `error` with an `id` is a session file's message.
    #[serde(default)]
    id: Option<IgnoredAny>,
    #[serde(default, rename = "toolCalls")]
    _tool_calls: Option<IgnoredAny>,
    #[serde(borrow, default)]
    timestamp: Option<Text<'a>>,
    // `init`.
    #[serde(borrow, default)]
    session_id: Option<Text<'a>>,
    #[serde(default)]
    model: Option<AnyText>,
    // `message`.
    #[serde(default)]
    content: Option<AnyText>,
    #[serde(default, rename = "delta")]
    _delta: Option<bool>,
    #[serde(borrow, default)]
    role: Option<Text<'a>>,
    // `tool_use` and `tool_result`.
    #[serde(borrow, default)]
    tool_id: Option<Text<'a>>,
    #[serde(borrow, default)]
    tool_name: Option<Text<'a>>,
    #[serde(default)]
    // Boxed, as the error below: most lines have neither, and the fields are moved whole.
    parameters: Option<Box<Map<String, Value>>>,
    // `tool_result` and `result` (whose status and error read alike).
    #[serde(borrow, default)]
    status: Option<Text<'a>>,
    /// Kept as the JSON text it came as (a string, else the scan gives up).
    #[serde(default)]
    output: Option<Payload>,
    #[serde(default)]
    error: Option<Box<wire::ToolResultEventError>>,
    #[serde(default, rename = "stats")]
    _stats: Option<Stats>,
    // `error`.
    #[serde(default)]
    message: Option<AnyText>,
    #[serde(borrow, default)]
    severity: Option<Text<'a>>,
}

/// The values of a `tool_result`'s or a `result`'s `status`.
const STATUSES: &[&str] = &["success", "error"];

/// The value of an enum field when it is one of `values` (the generated enum's).
fn one_of<'a>(Text(value): Text<'a>, values: &[&str]) -> Option<Cow<'a, str>> {
    values.contains(&value.as_ref()).then_some(value)
}

impl<'a> Fields<'a> {
    /// The event, when the line has every field its type requires.
    fn into_event(self) -> Option<Event<'a>> {
        let timestamp = self.timestamp?.0;
        Some(match self.kind.0.as_ref() {
            "init" => {
                self.model?;
                Event::Init {
                    session_id: self.session_id?.0,
                }
            }
            "message" => {
                self.content?;
                one_of(self.role?, &["user", "assistant"])?;
                Event::NoCall
            }
            "tool_use" => Event::ToolUse(ToolUse {
                tool_id: self.tool_id?.0,
                tool_name: self.tool_name?.0,
                parameters: *self.parameters?,
                timestamp,
            }),
            "tool_result" => Event::ToolResult(ToolResult {
                tool_id: self.tool_id?.0,
                timestamp,
                success: one_of(self.status?, STATUSES)? == "success",
                output: match self.output {
                    Some(output) if !output.is_string() => return None,
                    output => output,
                },
                error: self.error.map(|error| *error),
            }),
            "error" if self.id.is_none() => {
                self.message?;
                one_of(self.severity?, &["warning", "error"])?;
                Event::NoCall
            }
            "result" => {
                one_of(self.status?, STATUSES)?;
                Event::NoCall
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::Dialect;
    use crate::read::scan_check;

    #[test]
    fn the_scan_reads_every_recording_as_the_field_by_field_reading_does() {
        // The stream-json runs of every recorded version (`gemini-cli@0.44.0` too).
        let files = scan_check::recordings_read_alike(Dialect::GEMINI_CLI, |name| {
            name.starts_with("gemini-cli") && !name.starts_with("gemini-cli-session")
        });
        assert!(files >= 28, "{files} recordings");
    }

    #[test]
    fn odd_lines_read_as_the_field_by_field_reading_reads_them() {
        let deep = format!(
            r#"{{"type":"tool_use","timestamp":"t","tool_id":"deep","tool_name":"b","parameters":{{"a":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let lines = [
            r#"{"type":"init","timestamp":"t","session_id":"s","model":"m"}"#,
            r#"{"type":"init","timestamp":"t","session_id":"s"}"#,
            r#"{"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"a","parameters":{"command":"ls"}}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"a","status":"success","output":"x"}"#,
            // Duplicate keys: the type, an id, a routing key, a payload.
            r#"{"type":"tool_use","type":"tool_use","timestamp":"t","tool_name":"b","tool_id":"d1","parameters":{}}"#,
            r#"{"type":"tool_use","timestamp":"t","tool_name":"b","tool_id":"d2","tool_id":"d3","parameters":{}}"#,
            r#"{"type":"tool_use","timestamp":"t","tool_name":"b","tool_id":"d4","parameters":{},"parameters":{}}"#,
            r#"{"type":"message","timestamp":"t","role":"user","content":"a","id":1,"id":2}"#,
            r#"{"type":"message","timestamp":"t","role":"user","content":"a","toolCalls":1,"toolCalls":2}"#,
            r#"{"type":"message","timestamp":"t","role":"user","content":"a","x":1,"x":2}"#,
            // Null and string payloads.
            r#"{"type":"tool_use","timestamp":"t","tool_name":"b","tool_id":"n1","parameters":null}"#,
            r#"{"type":"tool_use","timestamp":"t","tool_name":"b","tool_id":"n2","parameters":"x"}"#,
            r#"{"type":"tool_use","timestamp":"t","tool_name":"b","tool_id":"n3","parameters":{"a":null}}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n3","status":"success","output":null}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n3","status":"success","output":7}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n3","status":"success","output":{"a":"b"}}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n3","status":"success","output":["x"]}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n3","status":"error","output":"a\nb","error":{"type":"x","message":""}}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n3","status":"success","output":"\ud800"}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n3","status":"success","output":"a","output":"b"}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n1","status":"error","error":null}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"n2","status":"success","error":"x"}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"a","status":"success","error":{"type":"cancelled","message":"no"}}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"a","status":"cancelled"}"#,
            r#"{"type":"tool_result","timestamp":null,"tool_id":"a","status":"success"}"#,
            &deep,
            // Unknown event types, a missing, null or numeric type, fields another type
            // reads differently.
            r#"{"type":"hologram","timestamp":"t","tool_id":"h","tool_name":"b","parameters":{}}"#,
            r#"{"type":"hologram","timestamp":"t","toolCalls":[]}"#,
            r#"{"type":"hologram","timestamp":"t"}"#,
            r#"{"timestamp":"t","tool_id":"h","tool_name":"b","parameters":{}}"#,
            r#"{"type":null,"timestamp":"t"}"#,
            r#"{"type":3,"timestamp":"t"}"#,
            r#"{"type":"message","timestamp":"t","role":"user","content":"a","status":"weird"}"#,
            r#"{"type":"message","timestamp":"t","role":"robot","content":"a"}"#,
            r#"{"type":"message","timestamp":"t","role":"user","content":null}"#,
            r#"{"type":"message","timestamp":"t","role":"user","content":"a","extra":1e400}"#,
            // An error event, and a session file's error message (with an id).
            r#"{"type":"error","timestamp":"t","message":"m","severity":"warning"}"#,
            r#"{"type":"error","timestamp":"t","message":"m","severity":"warning","id":null}"#,
            r#"{"type":"error","timestamp":"t","message":"m","severity":"warning","id":"e"}"#,
            r#"{"type":"error","id":"e","timestamp":"t","content":"m"}"#,
            r#"{"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":1}}"#,
            r#"{"type":"result","timestamp":"t","status":"error","error":{"type":"x","message":"y"}}"#,
            // Escaped keys and types, unicode escapes.
            r#"{"type":"tool\u005fuse","timestamp":"t","tool_name":"b","tool_id":"e1","parameters":{}}"#,
            r#"{"type":"tool_use","timestamp":"t","tool\u005fname":"b","tool_id":"e2","parameters":{}}"#,
            r#"{"type":"tool_use","timestamp":"t\u00e9","tool_name":"mcp_s\u005ft","tool_id":"\ud83d\ude00","parameters":{"\u0061":"\u00e9"}}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"\ud83d\ude00","status":"success","output":"\u00e9\n"}"#,
            r#"{"type":"tool_use","timestamp":"t","tool_name":"b","tool_id":"\ud800","parameters":{}}"#,
            // Cut JSON, trailing bytes, not an object.
            r#"{"type":"tool_use","timestamp":"t","tool_name":"b","tool_id":"#,
            r#"{"type":"message","timestamp":"t","role":"user","content":"a"} x"#,
            "[]",
            r#""tool_use""#,
            "",
        ];
        let text = lines.join("\n");
        scan_check::read_alike(Dialect::GEMINI_CLI, text.as_bytes(), "the lines above");
    }

    #[test]
    fn the_common_lines_are_read_in_one_scan() {
        let line = r#"{"type":"tool_use","timestamp":"t","tool_name":"read_file","tool_id":"a","parameters":{"file_path":"x"}}"#;
        assert!(matches!(
            scan(line),
            Some(Event::ToolUse(ToolUse {
                tool_id: Cow::Borrowed("a"),
                tool_name: Cow::Borrowed("read_file"),
                ..
            }))
        ));
        let line = r#"{"type":"tool_result","timestamp":"t","tool_id":"a","status":"success","output":"x"}"#;
        assert!(matches!(
            scan(line),
            Some(Event::ToolResult(ToolResult {
                output: Some(ref output),
                ..
            })) if output.raw_text() == Some("\"x\"")
        ));
        for line in [
            r#"{"type":"init","timestamp":"t","session_id":"s","model":"m"}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":1,"input_tokens":1,"output_tokens":0,"cached":0,"input":1,"duration_ms":5,"tool_calls":0,"models":{}}}"#,
        ] {
            assert!(scan(line).is_some(), "{line}");
        }
        let line = r#"{"type":"error","timestamp":"t","message":"m","severity":"error","id":"e"}"#;
        assert!(scan(line).is_none());
    }
}
