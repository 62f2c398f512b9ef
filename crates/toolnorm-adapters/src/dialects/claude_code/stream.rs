//! Partial messages (`--include-partial-messages`): a tool-use block starts a call when
//! its `content_block_start` arrives, and its input grows with each `input_json_delta`.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use toolnorm_wire::claude_messages as wire;

use super::envelope::{Envelope, block_type};
use super::{OtherToolUse, ToolUse};
use crate::diagnostic::{Diagnostic, DiagnosticKind, Severity};
use crate::read::json;
use crate::read::partial_json::parse_partial;
use crate::track::Facts;

/// A tool-use block being streamed: its call, and the input JSON so far.
#[derive(Debug)]
struct StreamingBlock {
    id: String,
    json: String,
}

/// The tool-use blocks being streamed, by (parent tool call, content block index): the
/// index is only unique within one message of one agent.
#[derive(Debug, Default)]
pub(super) struct Streams {
    blocks: HashMap<(Option<String>, u64), StreamingBlock>,
}

impl Streams {
    /// A call was seen, whole or starting to stream: the tracker hears of it, and the
    /// fragments streamed for it so far are forgotten (a whole block supersedes them).
    pub fn sighted(
        &mut self,
        line: u64,
        call: ToolUse,
        envelope: &Envelope<'_>,
        out: &mut Facts<'_>,
    ) {
        self.blocks.retain(|_, block| block.id != call.id);
        out.sighted(line, call.sighting(envelope));
    }

    /// A `stream_event` line, its event already read when it was read ahead.
    pub fn event(
        &mut self,
        line: u64,
        envelope: &Envelope<'_>,
        read: Option<ReadEvent<'_>>,
        out: &mut Facts<'_>,
    ) {
        let Some(event) = envelope.event else {
            out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a stream_event without `event`",
            ));
            return;
        };
        let ReadEvent { kind, body } = read.unwrap_or_else(|| read_event(event));
        let Some(kind) = kind else {
            out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a stream event without `type`",
            ));
            return;
        };
        let parent = envelope.parent().map(str::to_owned);
        let result = match (kind.as_ref(), body) {
            (_, EventBody::Start(Ok(start))) => {
                self.block_start(line, start, parent, envelope, out);
                Ok(())
            }
            // A tool-use block the schema's type does not read (a `caller` of a newer
            // kind) still starts its call.
            (_, EventBody::Start(Err((Some(start), _))))
                if start.content_block.kind.ends_with("tool_use") =>
            {
                let OtherBlockStart {
                    index,
                    content_block: OtherBlock { kind, block },
                } = start;
                let call = ToolUse::other(block, &kind);
                self.call_start(line, call, index, parent, envelope, out);
                Ok(())
            }
            (_, EventBody::Start(Err((_, error)))) => Err(error),
            (_, EventBody::Delta(delta)) => {
                delta.map(|delta| self.block_delta(line, delta, parent, out))
            }
            ("message_start", _) => {
                self.blocks.retain(|(owner, _), _| *owner != parent);
                Ok(())
            }
            ("content_block_stop" | "message_delta" | "message_stop" | "ping" | "error", _) => {
                Ok(())
            }
            // Qwen Code's goal tracker (`/goal`), in the same stream shape.
            ("goal_state", _) => Ok(()),
            // A new `content_block_*` event may carry a tool block: an error. Any other
            // type is about the message: a notice.
            (other, _) => {
                let diagnostic = Diagnostic::at(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown stream event type `{other}`"),
                );
                out.diagnostic(if other.starts_with("content_block") {
                    diagnostic
                } else {
                    diagnostic.with_severity(Severity::Notice)
                });
                Ok(())
            }
        };
        if let Err(error) = result {
            out.diagnostic(json::malformed(
                line,
                &format!("stream event `{kind}`"),
                &error,
            ));
        }
    }

    /// A block starts: a tool-use block starts its call, with an empty input to grow.
    fn block_start(
        &mut self,
        line: u64,
        start: wire::BetaRawContentBlockStartEvent,
        parent: Option<String>,
        envelope: &Envelope<'_>,
        out: &mut Facts<'_>,
    ) {
        use wire::BetaRawContentBlockStartEventContentBlock as Block;
        let call = match start.content_block {
            Block::ToolUseBlock(block) => ToolUse::from(block),
            Block::ServerToolUseBlock(block) => ToolUse::from(block),
            Block::McpToolUseBlock(block) => ToolUse::from(block),
            _ => return,
        };
        self.call_start(line, call, start.index as u64, parent, envelope, out);
    }

    /// A tool-use block starts its call, with an empty input to grow.
    fn call_start(
        &mut self,
        line: u64,
        call: ToolUse,
        index: u64,
        parent: Option<String>,
        envelope: &Envelope<'_>,
        out: &mut Facts<'_>,
    ) {
        let call = ToolUse {
            input: json!({}),
            ..call
        };
        let id = call.id.clone();
        // Sighted first: a sighting forgets the fragments streamed for its id.
        self.sighted(line, call, envelope, out);
        self.blocks.insert(
            (parent, index),
            StreamingBlock {
                id,
                json: String::new(),
            },
        );
    }

    /// A fragment of a streaming tool-use block's input: the input so far, as far as it
    /// can be read.
    fn block_delta(
        &mut self,
        line: u64,
        delta: wire::BetaRawContentBlockDeltaEvent,
        parent: Option<String>,
        out: &mut Facts<'_>,
    ) {
        let wire::BetaRawContentBlockDelta::InputJsonDelta(fragment) = delta.delta else {
            return;
        };
        let Some(block) = self.blocks.get_mut(&(parent, delta.index as u64)) else {
            return;
        };
        block.json.push_str(&fragment.partial_json);
        if let Some(input) = parse_partial(&block.json) {
            out.update_input(line, &block.id, input, None);
        }
    }
}

/// A `stream_event`'s event, read: a pure function of its text, so read ahead with its
/// line when the line is (`READ_AHEAD`), else where it is used.
pub(super) struct ReadEvent<'a> {
    /// Its `type` (`None`: it has none).
    kind: Option<Cow<'a, str>>,
    body: EventBody,
}

/// What an event of a type that carries a tool block reads as.
enum EventBody {
    /// An event of another type: nothing more read.
    Other,
    /// `content_block_start`: its generated type, else the error, with the event read as
    /// a block the generated type does not read, if it reads so.
    Start(
        Result<wire::BetaRawContentBlockStartEvent, (Option<OtherBlockStart>, serde_json::Error)>,
    ),
    /// `content_block_delta`, as its generated type.
    Delta(Result<wire::BetaRawContentBlockDeltaEvent, serde_json::Error>),
}

/// Reads a `stream_event`'s event.
pub(super) fn read_event(event: &RawValue) -> ReadEvent<'_> {
    let Ok(kind) = block_type(event) else {
        return ReadEvent {
            kind: None,
            body: EventBody::Other,
        };
    };
    let body = match kind.as_ref() {
        "content_block_start" => {
            EventBody::Start(serde_json::from_str(event.get()).map_err(|error| {
                (
                    serde_json::from_str::<OtherBlockStart>(event.get()).ok(),
                    error,
                )
            }))
        }
        "content_block_delta" => EventBody::Delta(delta_event(event)),
        _ => EventBody::Other,
    };
    ReadEvent {
        kind: Some(kind),
        body,
    }
}

/// A `content_block_start` event whose block its generated type does not read.
#[derive(Deserialize)]
struct OtherBlockStart {
    index: u64,
    content_block: OtherBlock,
}

/// A content block the generated types do not read: its type, and what identifies a call.
#[derive(Deserialize)]
struct OtherBlock {
    #[serde(rename = "type")]
    kind: String,
    #[serde(flatten)]
    block: OtherToolUse,
}

/// A `content_block_delta` event as its generated type. The generated delta is an
/// untagged union, which serde reads by buffering the delta and trying each variant in
/// turn, formatting an error for each miss; the delta's `type` names its variant (each
/// variant's `type` takes one value), so that variant is read directly. A delta that does
/// not read so, or of a type not listed, goes through the union, which gives the same
/// value or says what is wrong with it.
fn delta_event(event: &RawValue) -> Result<wire::BetaRawContentBlockDeltaEvent, serde_json::Error> {
    match direct_delta_event(event) {
        Some(delta) => Ok(delta),
        None => serde_json::from_str(event.get()),
    }
}

/// [`wire::BetaRawContentBlockDeltaEvent`]'s fields, the delta kept raw.
#[derive(Deserialize)]
struct DeltaEvent<'a> {
    #[serde(borrow)]
    delta: &'a RawValue,
    index: f64,
    #[serde(rename = "type")]
    type_: wire::BetaRawContentBlockDeltaEventType,
}

/// The event read with its delta's variant named by the delta's `type`; `None` when it
/// does not read so.
fn direct_delta_event(event: &RawValue) -> Option<wire::BetaRawContentBlockDeltaEvent> {
    use wire::BetaRawContentBlockDelta as Delta;
    #[cfg(test)]
    if crate::read::scan_check::field_by_field() {
        return None;
    }
    let DeltaEvent {
        delta,
        index,
        type_,
    } = serde_json::from_str(event.get()).ok()?;
    let text = delta.get();
    let delta = match block_type(delta).ok()?.as_ref() {
        "input_json_delta" => Delta::InputJsonDelta(serde_json::from_str(text).ok()?),
        "text_delta" => Delta::TextDelta(serde_json::from_str(text).ok()?),
        "thinking_delta" => Delta::ThinkingDelta(serde_json::from_str(text).ok()?),
        "signature_delta" => Delta::SignatureDelta(serde_json::from_str(text).ok()?),
        _ => return None,
    };
    Some(wire::BetaRawContentBlockDeltaEvent {
        delta,
        index,
        type_,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use toolnorm::ToolState;

    use super::super::tests::part;

    fn event(event: Value) -> Value {
        json!({"type": "stream_event", "event": event, "parent_tool_use_id": null})
    }

    fn start(index: u64, id: &str) -> Value {
        event(json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": "Write", "input": {}}}))
    }

    fn delta(index: u64, fragment: &str) -> Value {
        event(json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": fragment}}))
    }

    #[test]
    fn a_streamed_block_starts_its_call_and_grows_its_input() {
        let call = part(&[
            start(1, "toolu_1"),
            delta(1, r#"{"file_path": "/w/a.txt", "content": "hel"#),
        ]);
        assert_eq!(call.state, ToolState::Started);
        assert_eq!(
            call.input,
            json!({"file_path": "/w/a.txt", "content": "hel"})
        );
        assert_eq!(call.title, "Writing /w/a.txt");
        assert_eq!(call.metadata.unwrap()["itemType"], "tool_use");
    }

    #[test]
    fn fragments_follow_their_block_until_the_next_message() {
        let message_start = event(json!({"type": "message_start", "message": {}}));
        let call = part(&[
            start(0, "toolu_1"),
            delta(0, r#"{"file_path": "/w/a.txt""#),
            // Another block's fragments, then another message: neither is this call's.
            delta(1, r#"{"file_path": "/w/b.txt"}"#),
            message_start,
            delta(0, r#", "content": "x"}"#),
        ]);
        assert_eq!(call.input, json!({"file_path": "/w/a.txt"}));
    }

    #[test]
    fn the_whole_block_supersedes_the_fragments() {
        let whole = json!({"type": "assistant", "message": {"content": [{"type": "tool_use",
            "id": "toolu_1", "name": "Write", "input": {"file_path": "/w/c.txt", "content": "c"}}]}});
        let call = part(&[
            start(0, "toolu_1"),
            delta(0, r#"{"file_path": "/w/a"#),
            whole,
            delta(0, r#".txt"}"#),
        ]);
        assert_eq!(call.input, json!({"file_path": "/w/c.txt", "content": "c"}));
        assert_eq!(call.title, "Writing /w/c.txt");
    }

    /// Deltas of every kind, and odd ones, give the same events and diagnostics whether
    /// their variant is read directly or through the generated union.
    #[test]
    fn deltas_read_directly_as_through_the_union() {
        use crate::Dialect;
        use crate::read::scan_check;
        let wrap = |event: &str| {
            format!(r#"{{"type":"stream_event","event":{event},"parent_tool_use_id":null}}"#)
        };
        let start = wrap(
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"Write","input":{}}}"#,
        );
        for event in [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"file_path\": \"/w/a"}}"#,
            r#"{"delta":{"partial_json":"{\"file_path\": \"/w/b","type":"input_json_delta"},"index":0,"type":"content_block_delta"}"#,
            r#"{"type":"content_block_delta","index":0.0,"delta":{"type":"text_delta","text":"hi"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm","estimated_tokens":null}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"c"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"hologram_delta"}}"#,
            // Missing, mistyped or repeated fields, at both levels.
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":1}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a","partial_json":"b"}}"#,
            r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"index":1,"delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":null}"#,
            r#"{"type":"content_block_delta","index":0,"delta":[]}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"t\u0065xt_delta","text":"a"}}"#,
        ] {
            let text = format!("{start}\n{}\n", wrap(event));
            scan_check::read_alike(Dialect::CLAUDE_CODE, text.as_bytes(), event);
        }
    }
}
