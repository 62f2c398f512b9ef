//! Pi's records, as far as the tool calls need them: hand-written serde structs of
//! the fields read (Pi publishes its types only as TypeScript declarations,
//! `AgentSessionEvent` of `@mariozechner/pi-coding-agent` and `AgentMessage` of
//! `@mariozechner/pi-ai`; no schema of them is pinned). Every field is optional, so a
//! record that lacks one still reads and the reader says what is missing.

use std::borrow::Cow;

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use toolnorm::Payload;

use super::call_blocks::CallBlocks;
use crate::read::visit::visit_scalars_as;

/// One line: a `--mode json` event, or a session file entry (both begin with the
/// session header, `type: "session"`).
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    /// The event or entry type.
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    /// The session's id (header), or the entry's id (session file).
    #[serde(default)]
    pub id: Option<String>,
    /// The entry's time, ISO 8601 (session file and header).
    #[serde(default)]
    pub timestamp: Option<Value>,
    /// The working directory (header).
    #[serde(default)]
    pub cwd: Option<String>,
    /// The message of `message_*`/`turn_end` events and `message` entries.
    #[serde(default)]
    pub message: Option<Box<Message>>,
    /// The call of a `tool_execution_*` event.
    #[serde(rename = "toolCallId", default)]
    pub tool_call_id: Option<String>,
    /// Its tool.
    #[serde(rename = "toolName", default)]
    pub tool_name: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Option<Value>,
    /// The output so far (`tool_execution_update`).
    #[serde(rename = "partialResult", default)]
    pub partial_result: Option<Value>,
    /// The result (`tool_execution_end`), kept as the JSON text it came as.
    #[serde(default)]
    pub result: Option<Payload>,
    /// Whether the result is an error (`tool_execution_end`).
    #[serde(rename = "isError", default)]
    pub is_error: Option<bool>,
    /// The streaming event of a `message_update`.
    #[serde(rename = "assistantMessageEvent", default)]
    pub assistant_event: Option<Box<AssistantEvent>>,
}

/// An `AgentMessage`: a user, assistant or tool result message, or one of the coding
/// agent's own (`bashExecution`, `custom`, `branchSummary`, `compactionSummary`).
///
/// Read as a derived struct of these fields reads it (every field optional, a field given
/// twice an error, other keys read past), but for its `content`: a tool result's (or a
/// message's whose `role` is not known yet) is kept as the JSON text it came as, so that
/// its output stays in the line; any other message's is read for its calls only
/// ([`CallBlocks`]: each block's call keys, its text read past).
#[derive(Default)]
pub(super) struct Message {
    /// Who wrote it.
    pub role: Option<String>,
    /// Its content blocks (a string for some user messages).
    pub content: Payload,
    /// The call a `toolResult` answers.
    pub tool_call_id: Option<String>,
    /// The tool of a `toolResult`.
    pub tool_name: Option<String>,
    /// Whether a `toolResult` is an error.
    pub is_error: Option<bool>,
    /// When the message was made, epoch milliseconds.
    pub timestamp: Option<Value>,
}

/// A [`Message`]'s fields, as written.
const MESSAGE_FIELDS: [&str; 6] = [
    "role",
    "content",
    "toolCallId",
    "toolName",
    "isError",
    "timestamp",
];

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("Message", &MESSAGE_FIELDS, MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("struct Message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        /// A key, matched as a derived struct matches it.
        #[derive(Deserialize, Clone, Copy)]
        #[serde(field_identifier)]
        enum Field {
            #[serde(rename = "role")]
            Role,
            #[serde(rename = "content")]
            Content,
            #[serde(rename = "toolCallId")]
            ToolCallId,
            #[serde(rename = "toolName")]
            ToolName,
            #[serde(rename = "isError")]
            IsError,
            #[serde(rename = "timestamp")]
            Timestamp,
            #[serde(other)]
            Other,
        }
        let mut message = Message::default();
        let mut given = [false; MESSAGE_FIELDS.len()];
        while let Some(field) = map.next_key::<Field>()? {
            if let Field::Other = field {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            // The fields are in the order of their names.
            let (Some(given), Some(name)) = (
                given.get_mut(field as usize),
                MESSAGE_FIELDS.get(field as usize),
            ) else {
                continue;
            };
            if std::mem::replace(given, true) {
                return Err(de::Error::duplicate_field(name));
            }
            match field {
                Field::Role => message.role = map.next_value()?,
                Field::Content => {
                    let result = message
                        .role
                        .as_deref()
                        .is_none_or(|role| role == "toolResult");
                    message.content = match result {
                        true => map.next_value()?,
                        false => map.next_value::<CallBlocks>()?.0.into(),
                    };
                }
                Field::ToolCallId => message.tool_call_id = map.next_value()?,
                Field::ToolName => message.tool_name = map.next_value()?,
                Field::IsError => message.is_error = map.next_value()?,
                Field::Timestamp => message.timestamp = map.next_value()?,
                Field::Other => {}
            }
        }
        Ok(message)
    }

    /// The fields in their order, as a derived struct reads an array.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Message, A::Error> {
        Ok(Message {
            role: seq.next_element()?.flatten(),
            content: seq.next_element()?.unwrap_or_default(),
            tool_call_id: seq.next_element()?.flatten(),
            tool_name: seq.next_element()?.flatten(),
            is_error: seq.next_element()?.flatten(),
            timestamp: seq.next_element()?.flatten(),
        })
    }
}

/// A `message_update`'s `AssistantMessageEvent`.
#[derive(Deserialize)]
pub(super) struct AssistantEvent {
    /// `text_delta`, `toolcall_start`, `toolcall_delta`, `toolcall_end`, …
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// The index of the content block it is about.
    #[serde(rename = "contentIndex", default)]
    pub content_index: Option<usize>,
    /// The assistant message so far.
    #[serde(default)]
    pub partial: Option<Box<Message>>,
    /// The finished call (`toolcall_end`).
    #[serde(rename = "toolCall", default)]
    pub tool_call: Option<Value>,
}

/// A `toolCall` content block: `{type, id, name, arguments}`.
pub(super) struct ToolCall {
    /// The call id.
    pub id: Option<String>,
    /// The tool.
    pub name: Option<String>,
    /// Its arguments (streamed: as much as has arrived).
    pub arguments: Value,
}

impl ToolCall {
    /// The block when it is a `toolCall`, its arguments moved out of it.
    pub fn take(block: Value) -> Option<ToolCall> {
        let Value::Object(object) = block else {
            return None;
        };
        let text = |value: Value| match value {
            Value::String(text) => Some(text),
            _ => None,
        };
        // One pass over the block's few keys, rather than a hashed lookup for each.
        let (mut call, mut id, mut name, mut arguments) = (false, None, None, None);
        for (key, value) in object {
            match key.as_str() {
                "type" => call = value.as_str() == Some("toolCall"),
                "id" => id = text(value),
                "name" => name = text(value),
                "arguments" => arguments = Some(value),
                _ => {}
            }
        }
        call.then(|| ToolCall {
            id,
            name,
            arguments: arguments.unwrap_or_else(|| Value::Object(serde_json::Map::new())),
        })
    }
}

impl Message {
    /// The `toolCall` blocks of an assistant message, taken out of it.
    pub fn into_tool_calls(self) -> impl Iterator<Item = ToolCall> {
        let blocks = match self.content.into_value() {
            Value::Array(blocks) => blocks,
            _ => Vec::new(),
        };
        blocks.into_iter().filter_map(ToolCall::take)
    }
}

/// The `content` of a `tool_execution_end`'s result.
pub(super) fn result_content(result: &Payload) -> Option<Payload> {
    #[derive(Deserialize)]
    struct Result {
        #[serde(default)]
        content: Option<Payload>,
    }
    if let Some(text) = result.raw_text().filter(|text| text.starts_with('{'))
        && let Ok(result) = serde_json::from_str::<Result>(text)
    {
        return result.content;
    }
    // Built from a value, or a key given twice (the last one counts).
    result.get("content").cloned().map(Payload::from)
}

/// The text of a tool result's `content` (its text blocks, joined), or the content
/// itself when it holds no text block (an image). The one text block of a result kept
/// as it came stays so (a huge output is not copied).
pub(super) fn result_text(content: &Payload) -> Option<Payload> {
    if content.is_null() {
        return None;
    }
    if content.is_string() {
        return Some(content.clone());
    }
    match text_blocks(content) {
        Some((0, _)) => None,
        Some((_, texts)) if texts.is_empty() => Some(content.clone()),
        Some((_, mut texts)) if texts.len() == 1 => texts.pop(),
        Some((_, texts)) => {
            let joined: String = texts.iter().filter_map(|text| text.text()).collect();
            Some(joined.into())
        }
        None => value_text(content.value()).map(Payload::from),
    }
}

/// The blocks of a content kept as its text, counted, and the texts of its `text`
/// blocks, read in one pass; `None` when it is not so kept, not an array, or has a block
/// this reading does not take as the value reading does (a key given twice, a `type`
/// that is not a string): the value reading reads it then.
fn text_blocks(content: &Payload) -> Option<(usize, Vec<Payload>)> {
    let blocks: Vec<TextOf> = serde_json::from_str(content.raw_text()?).ok()?;
    let count = blocks.len();
    Some((
        count,
        blocks.into_iter().filter_map(|block| block.0).collect(),
    ))
}

/// A content block as far as its text goes: a `text` block's text (a string), else none.
struct TextOf(Option<Payload>);

impl<'de> Deserialize<'de> for TextOf {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextOfVisitor)
    }
}

struct TextOfVisitor;

impl<'de> Visitor<'de> for TextOfVisitor {
    type Value = TextOf;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a content block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TextOf, A::Error> {
        let (mut kind, mut text) = (None::<Option<Cow<'de, str>>>, None::<Payload>);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "type" if kind.is_none() => kind = Some(map.next_value()?),
                "text" if text.is_none() => text = Some(map.next_value()?),
                "type" | "text" => return Err(de::Error::custom("a key given twice")),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let is_text = kind.flatten().as_deref() == Some("text");
        Ok(TextOf(text.filter(|text| is_text && text.is_string())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TextOf, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(TextOf(None))
    }

    visit_scalars_as!(TextOf(None), str);
}

/// [`result_text`] of a content read as a value (a streamed partial result).
pub(super) fn value_text(content: &Value) -> Option<Value> {
    match content {
        Value::Null => None,
        Value::String(text) => Some(Value::String(text.clone())),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            if texts.is_empty() {
                (!blocks.is_empty()).then(|| content.clone())
            } else {
                Some(Value::String(texts.concat()))
            }
        }
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_content_reads_as_its_value() {
        for content in [
            r#"null"#,
            r#""plain \"text\"""#,
            r#"[]"#,
            r#"[{"type":"text","text":"one\n"}]"#,
            r#"[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":"b\u00e9"}]"#,
            r#"[{"type":"image","data":"x","mimeType":"image/png"}]"#,
            r#"[{"type":"text","text":7},{"type":"text"},{"type":"text","text":null}]"#,
            r#"[{"type":"text","text":"a","text":"b"}]"#,
            r#"[{"type":3,"text":"a"}]"#,
            r#"["loose",1,null,{"type":"text","text":"x"}]"#,
            r#"{"type":"text","text":"an object"}"#,
            r#"42"#,
        ] {
            // Kept as its text, or (`\u00e9`, not as serde_json writes it) as its value.
            let kept: Payload = serde_json::from_str(content).unwrap();
            let value: Value = serde_json::from_str(content).unwrap();
            assert_eq!(
                result_text(&kept).map(Payload::into_value),
                value_text(&value),
                "{content}"
            );
        }
    }

    /// The message as a derived struct of its fields reads it.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Derived {
        #[serde(default)]
        role: Option<String>,
        #[serde(default)]
        content: Value,
        #[serde(rename = "toolCallId", default)]
        tool_call_id: Option<String>,
        #[serde(rename = "toolName", default)]
        tool_name: Option<String>,
        #[serde(rename = "isError", default)]
        is_error: Option<bool>,
        #[serde(default)]
        timestamp: Option<Value>,
    }

    #[test]
    fn a_message_reads_as_a_derived_struct_reads_it() {
        for message in [
            r#"{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":1}"#,
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"read","arguments":{}}],"api":"x"}"#,
            r#"{"content":"first","role":"user"}"#,
            r#"{"role":"user","content":null,"timestamp":"t"}"#,
            r#"{}"#,
            r#"{"role":"toolResult","role":"user"}"#,
            r#"{"content":1,"content":2}"#,
            r#"{"role":"assistant","content":[]}"#,
            r#"{"role":"assistant","content":[{"type":"text","text":"a\nb"},{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"}}]}"#,
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t"},"x",{"name":"n","type":"toolCall","id":"d"}],"stopReason":"toolUse"}"#,
            r#"{"role":"user","content":"text"}"#,
            r#"{"role":7}"#,
            r#"{"role":null,"isError":"no"}"#,
            r#"["toolResult",[{"type":"text","text":"x"}],"c","read",true,5]"#,
            r#"["user"]"#,
            r#"["user","a","c","t",false,1,"extra"]"#,
            r#""a message""#,
        ] {
            let read = serde_json::from_str::<Message>(message).map(|message| Derived {
                role: message.role,
                content: message.content.into_value(),
                tool_call_id: message.tool_call_id,
                tool_name: message.tool_name,
                is_error: message.is_error,
                timestamp: message.timestamp,
            });
            let derived = serde_json::from_str::<Derived>(message);
            match (read, derived) {
                (Ok(mut read), Ok(mut derived)) => {
                    // Another message's content is read for its calls only.
                    if derived
                        .role
                        .as_deref()
                        .is_some_and(|role| role != "toolResult")
                    {
                        let calls = |content: &Value| {
                            let calls = content.as_array().into_iter().flatten();
                            calls
                                .map(|block| {
                                    ToolCall::take(block.clone())
                                        .map(|call| (call.id, call.name, call.arguments))
                                })
                                .collect::<Vec<_>>()
                        };
                        assert_eq!(calls(&read.content), calls(&derived.content), "{message}");
                        (read.content, derived.content) = (Value::Null, Value::Null);
                    }
                    assert_eq!(read, derived, "{message}")
                }
                (Err(read), Err(derived)) => {
                    let derived = derived.to_string().replace("Derived", "Message");
                    assert_eq!(read.to_string(), derived, "{message}")
                }
                (read, derived) => panic!("{message}: {read:?} / {derived:?}"),
            }
        }
    }

    #[test]
    fn one_text_block_is_kept_as_it_came() {
        let kept: Payload = serde_json::from_str(r#"[{"type":"text","text":"a\tb"}]"#).unwrap();
        let text = result_text(&kept).unwrap();
        assert_eq!(text.raw_text(), Some(r#""a\tb""#));
    }

    #[test]
    fn a_result_gives_its_content() {
        for (result, content) in [
            (r#"{"content":[1],"details":{}}"#, Some(r#"[1]"#)),
            (r#"{"content":null}"#, None),
            (r#"{"details":{}}"#, None),
            (r#"{"content":"a","content":"b"}"#, Some(r#""b""#)),
            (r#""text""#, None),
        ] {
            let result: Payload = serde_json::from_str(result).unwrap();
            let content = content.map(|text| serde_json::from_str::<Value>(text).unwrap());
            assert_eq!(result_content(&result).map(Payload::into_value), content);
        }
    }
}
