//! Grok CLI's headless messages, as far as the tool calls need them: hand-written serde
//! structs of the fields read. `@vibe-kit/grok-cli` publishes TypeScript declarations
//! (`GrokMessage`, `GrokToolCall` of `dist/grok/client.d.ts`, the OpenAI SDK's
//! `ChatCompletionMessageParam`), and `grok -p` prints the OpenAI-compatible form its
//! `index.js` builds from its chat entries; no schema of them is pinned. Every field is
//! optional, so a message that lacks one still reads and the reader says what is missing.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::Payload;

/// One printed message: `{"role", "content", "tool_calls"?}` (user and assistant) or
/// `{"role": "tool", "tool_call_id", "content"}`.
#[derive(Deserialize)]
pub(super) struct Message<'a> {
    /// Who wrote it: `user`, `assistant` or `tool`.
    #[serde(borrow, default)]
    pub role: Option<Cow<'a, str>>,
    /// The text (a tool's result, for a `tool` message), kept as the JSON text it came
    /// as (any value, as a `Value` field reads it).
    #[serde(default)]
    pub content: Option<Payload>,
    /// The calls an assistant message makes.
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The call a `tool` message answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
}

/// One of an assistant message's `tool_calls`: `{"id", "type": "function", "function":
/// {"name", "arguments"}}`.
#[derive(Deserialize, Default)]
pub(super) struct ToolCall {
    /// The model's call id.
    #[serde(default)]
    pub id: Option<String>,
    /// The function called.
    #[serde(default)]
    pub function: Option<Function>,
}

/// A call's function: its name and its arguments, a JSON text as the model sent it.
#[derive(Deserialize, Default)]
pub(super) struct Function {
    /// The tool.
    #[serde(default)]
    pub name: Option<String>,
    /// The arguments, JSON text (an object already parsed is taken as it is).
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// One record of a chat history file (`chat_history.jsonl`): `system`, `user`,
/// `reasoning`, `assistant` (its `content` a string, its calls in `tool_calls`),
/// `tool_result` (`tool_call_id`, `content`) or `backend_tool_call` (a call the model's
/// server ran, in `kind`).
#[derive(Deserialize)]
pub(super) struct Record<'a> {
    /// The record type.
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    /// The text, or a `tool_result`'s output (a string, or content parts).
    #[serde(default)]
    pub content: Option<Value>,
    /// An assistant record's calls.
    #[serde(default)]
    pub tool_calls: Option<Vec<HistoryCall>>,
    /// The call a `tool_result` answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// The images a `tool_result` carries beside its text.
    #[serde(default)]
    pub images: Option<Value>,
    /// A `backend_tool_call`'s call.
    #[serde(rename = "kind", default)]
    pub backend: Option<BackendCall>,
}

/// One of an assistant record's `tool_calls`: `{"id", "name", "arguments"}`, flat.
#[derive(Deserialize, Default)]
pub(super) struct HistoryCall {
    /// The call id.
    #[serde(default)]
    pub id: Option<String>,
    /// The tool.
    #[serde(default)]
    pub name: Option<String>,
    /// The arguments, JSON text.
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// A `backend_tool_call`'s `kind`: `{"tool_type", "id", "status", "action"}`, a tool the
/// model's server ran (`web_search`: `action` `{"type": "search", "query", "sources"}`).
#[derive(Deserialize, Default)]
pub(super) struct BackendCall {
    /// The server-side tool (`web_search`).
    #[serde(default)]
    pub tool_type: Option<String>,
    /// The call id.
    #[serde(default)]
    pub id: Option<String>,
    /// `in_progress`, `completed`, `failed`, …
    #[serde(default)]
    pub status: Option<String>,
    /// What it did.
    #[serde(default)]
    pub action: Option<Value>,
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::Value;

    use super::Message;
    use crate::read::json::without_position;

    /// A message's `content` as a `Value` field reads it.
    #[derive(Deserialize)]
    struct Decoded {
        #[serde(default)]
        content: Option<Value>,
    }

    #[test]
    fn the_content_reads_as_a_value_field_reads_it() {
        for line in [
            r#"{"role":"tool","tool_call_id":"c","content":"plain"}"#,
            r#"{"role":"tool","tool_call_id":"c","content":"a\nb \u001b \"q\" \u00e9 \ud83d\ude00"}"#,
            r#"{"role":"tool","tool_call_id":"c","content":""}"#,
            r#"{"role":"tool","tool_call_id":"c","content":null}"#,
            r#"{"role":"tool","tool_call_id":"c"}"#,
            r#"{"role":"tool","tool_call_id":"c","content":7}"#,
            r#"{"role":"tool","tool_call_id":"c","content":-1.5e3}"#,
            r#"{"role":"tool","tool_call_id":"c","content":true}"#,
            r#"{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"x"}]}"#,
            r#"{"role":"tool","tool_call_id":"c","content":{ "b" : 1 , "a" : [ ] }}"#,
            r#"{"role":"tool","tool_call_id":"c","content":{"a":1,"a":2}}"#,
            r#"{"role":"tool","tool_call_id":"c","content":"\ud800"}"#,
            r#"{"role":"tool","tool_call_id":"c","content":"a","content":"b"}"#,
            r#"{"role":"tool","tool_call_id":"c","content":1e400}"#,
        ] {
            let kept = serde_json::from_str::<Message<'_>>(line).map_err(|e| without_position(&e));
            let decoded = serde_json::from_str::<Decoded>(line).map_err(|e| without_position(&e));
            match (kept, decoded) {
                (Ok(kept), Ok(decoded)) => {
                    assert_eq!(
                        kept.content.map(|c| c.into_value()),
                        decoded.content,
                        "{line}"
                    );
                }
                (Err(kept), Err(decoded)) => assert_eq!(kept, decoded, "{line}"),
                (kept, decoded) => panic!("{line}: {:?} / {:?}", kept.err(), decoded.err()),
            }
        }
    }

    #[test]
    fn a_text_content_is_kept_as_it_came() {
        let message: Message<'_> = serde_json::from_str(r#"{"role":"tool","content":"a\tb"}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        let content = message
            .content
            .and_then(|c| c.raw_text().map(str::to_owned));
        assert_eq!(content.as_deref(), Some(r#""a\tb""#));
    }
}
