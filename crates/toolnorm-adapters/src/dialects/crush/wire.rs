//! Crush's rows, as far as the tool calls need them: hand-written serde structs of the
//! fields read. Crush is written in Go and publishes no schema of its store; these follow
//! its tables (`internal/db/migrations/*.sql`) and the parts of a message
//! (`internal/message/content.go`: `marshalParts` writes each part as
//! `{"type", "data"}`). Every field is optional, so a row that lacks one still reads and
//! the reader says what is missing.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm::Payload;

use crate::read::kept_string;

/// One line: a `sessions` row or a `messages` row, each a JSON object of its columns;
/// its parts read as `P` ([`Parts`], or all of them in the line's one scan).
#[derive(Deserialize, Default)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub(super) struct Row<P> {
    /// The session's or the message's id.
    #[serde(default)]
    pub id: Option<String>,
    /// A message's session.
    #[serde(default)]
    pub session_id: Option<String>,
    /// A message's role: `user`, `assistant`, `tool`, `system`.
    #[serde(default)]
    pub role: Option<String>,
    /// A message's parts: a JSON array of `{"type", "data"}`, or its JSON text as the
    /// column holds it (what `sqlite3 -json` prints).
    #[serde(default)]
    pub parts: Option<P>,
    /// When the message was written (Crush writes seconds where its schema says
    /// milliseconds).
    #[serde(default)]
    pub created_at: Option<i64>,
    /// A session's parent: the session whose call started it (a subagent's).
    #[serde(default)]
    pub parent_session_id: Option<String>,
    /// A session's message count, which only a `sessions` row has.
    #[serde(default)]
    pub message_count: Option<Value>,
    /// A session's title.
    #[serde(default)]
    pub title: Option<String>,
}

/// A message's `parts` as the line holds them: the list, each part kept raw and read
/// apart (so that one part that does not read leaves the others), or the list's JSON text.
pub(super) enum Parts<'a> {
    /// The parts.
    List(Vec<&'a RawValue>),
    /// The parts' JSON text.
    Text(String),
    /// Neither: what the line holds instead.
    Other(&'static str),
}

impl<'de: 'a, 'a> Deserialize<'de> for Parts<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PartsVisitor(std::marker::PhantomData))
    }
}

/// Reads [`Parts`] in the one pass over the line.
struct PartsVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> serde::de::Visitor<'de> for PartsVisitor<'a> {
    type Value = Parts<'a>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a list of parts, or its JSON text")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(4));
        while let Some(part) = seq.next_element()? {
            parts.push(part);
        }
        Ok(Parts::List(parts))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Parts::Text(text.to_owned()))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(Parts::Other("an object"))
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Parts::Other("a boolean"))
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Parts::Other("a number"))
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Parts::Other("a number"))
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Parts::Other("a number"))
    }
}

/// One part of a message: its `type` and its `data`, kept raw (only a call's or a
/// result's is read).
#[derive(Deserialize, Default)]
pub(super) struct Part<'a> {
    /// `reasoning`, `text`, `image_url`, `binary`, `tool_call`, `tool_result`, `finish`,
    /// `shell_command`.
    #[serde(rename = "type", default, borrow)]
    pub kind: Option<Cow<'a, str>>,
    /// The part itself.
    #[serde(default, borrow)]
    pub data: Option<&'a RawValue>,
}

/// A `tool_call` part (`ToolCall`): the model's call, as it streams in and once whole.
#[derive(Deserialize, Default)]
pub(super) struct ToolCall {
    /// The call's id (the model's).
    #[serde(default)]
    pub id: Option<String>,
    /// The tool's name (`mcp_<server>_<tool>` for an MCP server's).
    #[serde(default)]
    pub name: Option<String>,
    /// The arguments' JSON text, empty while they stream in.
    #[serde(default)]
    pub input: Option<String>,
    /// Whether the model's provider ran the tool itself (a server-side web search).
    #[serde(default)]
    pub provider_executed: bool,
    /// Whether the call is whole (its input streamed in); a call Crush cut short is made
    /// `finished` with input `{}`.
    #[serde(default)]
    pub finished: bool,
}

/// A `tool_result` part (`ToolResult`), alone in a `tool` message.
#[derive(Deserialize, Default)]
pub(super) struct ToolResult {
    /// The call it answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// The tool's name.
    #[serde(default)]
    pub name: Option<String>,
    /// The result's text (the error's, when `is_error`): a JSON string, kept as it came.
    #[serde(default, deserialize_with = "kept_string::optional")]
    pub content: Option<Payload>,
    /// Media the tool returned, base64.
    #[serde(default)]
    pub data: Option<String>,
    /// The media's type.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// The tool's metadata for Crush's UI, JSON text.
    #[serde(default)]
    pub metadata: Option<String>,
    /// Whether the call failed.
    #[serde(default)]
    pub is_error: bool,
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::Value;

    use crate::read::json::without_position;

    /// The part read, its text kept.
    type Kept = super::ToolResult;

    /// A `tool_result` part as it was read with its text decoded (named as the type is,
    /// for the same error texts).
    #[derive(Deserialize)]
    struct ToolResult {
        #[serde(default)]
        tool_call_id: Option<String>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        content: Option<String>,
        #[serde(default)]
        data: Option<String>,
        #[serde(default)]
        mime_type: Option<String>,
        #[serde(default)]
        metadata: Option<String>,
        #[serde(default)]
        is_error: bool,
    }

    #[test]
    fn a_results_text_reads_as_a_string_field_reads_it() {
        for data in [
            r#"{"tool_call_id":"c","content":"plain"}"#,
            r#"{"tool_call_id":"c","content":"a\nb \u001b \"q\" \u00e9 \ud83d\ude00"}"#,
            r#"{"tool_call_id":"c","content":""}"#,
            r#"{"tool_call_id":"c","content":null,"is_error":true}"#,
            r#"{"tool_call_id":"c"}"#,
            r#"{"tool_call_id":"c","content":7}"#,
            r#"{"tool_call_id":"c","content":-1.5}"#,
            r#"{"tool_call_id":"c","content":false}"#,
            r#"{"tool_call_id":"c","content":["x"]}"#,
            r#"{"tool_call_id":"c","content":{"text":"x"}}"#,
            r#"{"tool_call_id":"c","content":"\ud800"}"#,
            r#"{"tool_call_id":"c","content":"a","content":"b"}"#,
            r#"{"tool_call_id":"c","content":"a","is_error":"yes"}"#,
            r#"["c","t","text"]"#,
            r#"["c","t",7]"#,
            r#"null"#,
        ] {
            let kept = serde_json::from_str::<Kept>(data).map_err(|e| without_position(&e));
            let decoded =
                serde_json::from_str::<ToolResult>(data).map_err(|e| without_position(&e));
            match (kept, decoded) {
                (Ok(kept), Ok(decoded)) => {
                    assert_eq!(kept.tool_call_id, decoded.tool_call_id, "{data}");
                    assert_eq!(kept.name, decoded.name, "{data}");
                    assert_eq!(kept.data, decoded.data, "{data}");
                    assert_eq!(kept.mime_type, decoded.mime_type, "{data}");
                    assert_eq!(kept.metadata, decoded.metadata, "{data}");
                    assert_eq!(kept.is_error, decoded.is_error, "{data}");
                    let content = kept.content.map(|content| content.into_value());
                    assert_eq!(content, decoded.content.map(Value::String), "{data}");
                }
                (Err(kept), Err(decoded)) => assert_eq!(kept, decoded, "{data}"),
                (kept, decoded) => panic!("{data}: {:?} / {:?}", kept.err(), decoded.err()),
            }
            // Read from a value, as a part of an unknown type is.
            let Ok(value) = serde_json::from_str::<Value>(data) else {
                continue;
            };
            let kept = serde_json::from_value::<Kept>(value.clone()).map_err(|e| e.to_string());
            let decoded = serde_json::from_value::<ToolResult>(value).map_err(|e| e.to_string());
            match (kept, decoded) {
                (Ok(kept), Ok(decoded)) => {
                    let content = kept.content.map(|content| content.into_value());
                    assert_eq!(content, decoded.content.map(Value::String), "{data}");
                }
                (Err(kept), Err(decoded)) => assert_eq!(kept, decoded, "{data}"),
                (kept, decoded) => panic!("{data}: {:?} / {:?}", kept.err(), decoded.err()),
            }
        }
    }

    #[test]
    fn a_results_text_is_kept_as_it_came() {
        let result: Kept =
            serde_json::from_str(r#"{"content":"a\tb"}"#).unwrap_or_else(|error| panic!("{error}"));
        let content = result.content.and_then(|c| c.raw_text().map(str::to_owned));
        assert_eq!(content.as_deref(), Some(r#""a\tb""#));
    }
}
