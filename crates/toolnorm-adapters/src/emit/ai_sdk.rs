//! Parts to the AI SDK's UI message stream (`ai` 7): the chunks `useChat` and
//! `readUIMessageStream` fold into a message's `dynamic-tool` parts.
//!
//! Per call, from successive snapshots of its part:
//!
//! | part | chunks |
//! | --- | --- |
//! | first seen | `tool-input-start` (`dynamic: true`, `toolName`, `title`, `toolMetadata`) |
//! | `started`, input grew | `tool-input-delta` with the new argument text (a changed title, metadata or an input that does not extend the text sent restarts it: `tool-input-start`, then the whole text) |
//! | `running` (or terminal), input, title or metadata new | `tool-input-available` |
//! | `complete` | `tool-output-available` with `output` |
//! | `error`, refused (`permission_denied`, `user_rejected`) | `tool-input-available` carrying the error in `toolMetadata`, then `tool-output-denied` |
//! | `error`, otherwise | `tool-output-error` with `errorText` = `error.message` |
//!
//! Whatever the chunks have no field for (kind, error code and details, timing,
//! metadata) travels in `toolMetadata.toolnorm` (see [`UiMeta`]), sent whole with every
//! chunk that has the field.
//!
//! Calls are grouped into assistant messages, one per session: a `start` chunk
//! (`messageId` = the part's `metadata.sessionId`, or the configured session id) opens
//! it, a `finish` chunk closes it when the next session begins or the stream ends. A
//! subagent's calls (`metadata.parentToolCallId`) go to the message of the call that
//! spawned them. When a session comes back after another one, its calls continue in a
//! new message (`<session>~<n>`), re-opened there with `tool-input-start`.

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use toolnorm::{NormalizedToolPart, ToolKind, ToolState};

use super::ui::{UiMeta, is_denial, open_json, parent_of, session_of};

/// What a call looks like in the stream, as last sent.
#[derive(Debug)]
struct Sent {
    /// The message (stretch) the call was opened in.
    stretch: u64,
    /// The argument text sent while the input streams.
    text: String,
    /// The input, title and `toolMetadata` of the last `tool-input-*` chunk.
    input: Option<Value>,
    title: String,
    meta: Value,
    /// Whether `tool-input-available` was sent (the input is complete).
    available: bool,
}

/// Turns part snapshots into AI SDK UI message chunks.
///
/// ```
/// use toolnorm::{Completion, ToolCall, ToolKind};
/// use toolnorm_adapters::AiSdkEmitter;
///
/// let mut emitter = AiSdkEmitter::new("session-1");
/// let call = ToolCall::start("t1", "Bash", ToolKind::Bash).with_title("ls");
/// let chunks = emitter.part(&call.to_part());
/// assert_eq!(chunks[0]["type"], "start");
/// assert_eq!(chunks[1]["type"], "tool-input-start");
/// let done = call.complete(Completion::with_output("a.txt".into()));
/// let chunks = emitter.part(&done.to_part());
/// assert_eq!(chunks.last().unwrap()["type"], "tool-output-available");
/// assert_eq!(emitter.finish()[0]["type"], "finish");
/// ```
#[derive(Debug)]
pub struct AiSdkEmitter {
    session_id: String,
    /// The open message: its session key and stretch number.
    current: Option<(String, u64)>,
    stretches: u64,
    /// How many messages each session key had.
    seen: HashMap<String, u64>,
    /// Open calls.
    calls: HashMap<String, Sent>,
    /// The session key of each subagent call, for its children.
    subagents: HashMap<String, String>,
}

impl AiSdkEmitter {
    /// An emitter whose calls without a `metadata.sessionId` belong to `session_id`.
    pub fn new(session_id: impl Into<String>) -> Self {
        AiSdkEmitter {
            session_id: session_id.into(),
            current: None,
            stretches: 0,
            seen: HashMap::new(),
            calls: HashMap::new(),
            subagents: HashMap::new(),
        }
    }

    /// The chunks for a new snapshot of `part` (none when nothing the stream shows
    /// changed). Feed it the changes the normalizer reports, in order.
    pub fn part(&mut self, part: &NormalizedToolPart) -> Vec<Value> {
        let mut chunks = Vec::new();
        let key = self.key(part);
        if part.kind == ToolKind::Subagent {
            self.subagents.insert(part.id.clone(), key.clone());
        }
        let stretch = self.enter(&key, &mut chunks);
        let id = part.id.as_str();
        let meta = UiMeta::of(part, false).wrapped();
        let fresh = self
            .calls
            .get(id)
            .is_none_or(|sent| sent.stretch != stretch);
        if fresh {
            chunks.push(input_start(part, &meta));
            self.calls.insert(
                id.to_owned(),
                Sent {
                    stretch,
                    text: String::new(),
                    input: None,
                    title: part.title.clone(),
                    meta: meta.clone(),
                    available: false,
                },
            );
        }
        let Some(sent) = self.calls.get_mut(id) else {
            return chunks;
        };
        if part.state == ToolState::Started && !sent.available {
            stream_input(part, &meta, sent, &mut chunks);
        } else {
            let changed = !sent.available
                || sent.input.as_ref() != Some(&part.input)
                || sent.title != part.title
                || (!part.state.is_terminal() || is_denial(part)) && sent.meta != meta;
            if changed {
                chunks.push(input_available(part, &meta));
                sent.available = true;
                sent.input = Some(part.input.clone());
                sent.title = part.title.clone();
                sent.meta = meta.clone();
            }
        }
        match part.state {
            ToolState::Complete => {
                let mut chunk = tool_chunk("tool-output-available", id);
                if let Some(output) = &part.output {
                    chunk.insert("output".into(), output.clone());
                }
                chunk.insert("dynamic".into(), true.into());
                chunk.insert("toolMetadata".into(), meta);
                chunks.push(Value::Object(chunk));
            }
            ToolState::Error if is_denial(part) => {
                chunks.push(Value::Object(tool_chunk("tool-output-denied", id)));
            }
            ToolState::Error => {
                let mut chunk = tool_chunk("tool-output-error", id);
                let message = part.error.as_ref().map(|error| error.message.clone());
                chunk.insert("errorText".into(), message.unwrap_or_default().into());
                chunk.insert("dynamic".into(), true.into());
                chunk.insert("toolMetadata".into(), meta);
                chunks.push(Value::Object(chunk));
            }
            ToolState::Started | ToolState::Running => {}
        }
        if part.state.is_terminal() {
            self.calls.remove(id);
        }
        chunks
    }

    /// The chunks that end the stream: `finish` of the open message.
    pub fn finish(&mut self) -> Vec<Value> {
        match self.current.take() {
            Some(_) => vec![json!({ "type": "finish" })],
            None => Vec::new(),
        }
    }

    /// The session key of a part: its parent subagent's, its own session's, or the
    /// configured one.
    fn key(&self, part: &NormalizedToolPart) -> String {
        if let Some(key) = parent_of(part).and_then(|parent| self.subagents.get(parent)) {
            return key.clone();
        }
        if let Some(sent) = self.calls.get(&part.id)
            && let Some((key, stretch)) = &self.current
            && sent.stretch == *stretch
        {
            return key.clone();
        }
        session_of(part).unwrap_or(&self.session_id).to_owned()
    }

    /// Makes `key`'s message the open one (closing another, opening a new one) and
    /// returns its stretch number.
    fn enter(&mut self, key: &str, chunks: &mut Vec<Value>) -> u64 {
        if let Some((open, stretch)) = &self.current
            && open == key
        {
            return *stretch;
        }
        chunks.extend(self.finish());
        self.stretches += 1;
        let count = self.seen.entry(key.to_owned()).or_insert(0);
        *count += 1;
        let message_id = match *count {
            1 => key.to_owned(),
            n => format!("{key}~{n}"),
        };
        chunks.push(json!({ "type": "start", "messageId": message_id }));
        self.current = Some((key.to_owned(), self.stretches));
        self.stretches
    }
}

fn tool_chunk(kind: &str, id: &str) -> Map<String, Value> {
    let mut chunk = Map::new();
    chunk.insert("type".into(), kind.into());
    chunk.insert("toolCallId".into(), id.into());
    chunk
}

fn input_start(part: &NormalizedToolPart, meta: &Value) -> Value {
    let mut chunk = tool_chunk("tool-input-start", &part.id);
    chunk.insert("toolName".into(), part.name.clone().into());
    chunk.insert("dynamic".into(), true.into());
    chunk.insert("title".into(), part.title.clone().into());
    chunk.insert("toolMetadata".into(), meta.clone());
    Value::Object(chunk)
}

fn input_available(part: &NormalizedToolPart, meta: &Value) -> Value {
    let mut chunk = tool_chunk("tool-input-available", &part.id);
    chunk.insert("toolName".into(), part.name.clone().into());
    chunk.insert("input".into(), part.input.clone());
    chunk.insert("dynamic".into(), true.into());
    chunk.insert("title".into(), part.title.clone().into());
    chunk.insert("toolMetadata".into(), meta.clone());
    Value::Object(chunk)
}

fn input_delta(id: &str, delta: &str) -> Value {
    let mut chunk = tool_chunk("tool-input-delta", id);
    chunk.insert("inputTextDelta".into(), delta.into());
    Value::Object(chunk)
}

/// The chunks of a streaming input: a delta when the new text extends what was sent, a
/// restart otherwise (or when the title or metadata changed, which a delta cannot say).
fn stream_input(part: &NormalizedToolPart, meta: &Value, sent: &mut Sent, chunks: &mut Vec<Value>) {
    let text = open_json(&part.input);
    let restart = sent.title != part.title || &sent.meta != meta;
    match text.strip_prefix(sent.text.as_str()) {
        Some(fresh) if !restart => {
            if !fresh.is_empty() {
                chunks.push(input_delta(&part.id, fresh));
            }
        }
        _ => {
            let just_started = chunks
                .last()
                .is_some_and(|last| last.get("type") == Some(&Value::from("tool-input-start")));
            if (!sent.text.is_empty() || restart) && !just_started {
                chunks.push(input_start(part, meta));
            }
            if !text.is_empty() {
                chunks.push(input_delta(&part.id, &text));
            }
        }
    }
    sent.text = text;
    sent.title = part.title.clone();
    sent.meta = meta.clone();
}
