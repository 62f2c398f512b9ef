//! What the two UI stream formats (`ai-sdk`, `ag-ui`) share: the `toolnorm` object that
//! carries the contract fields the protocols have no field for, how a call is grouped
//! with its session, and the argument text of a partial input.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value, json};
use toolnorm::{
    Approval, ErrorCode, JsonObject, MetaValue, MetadataView, NormalizedToolPart, Payload, Timing,
    ToolError, ToolKind, ToolState, meta,
};

use super::acp::Fields;
use super::frames::Frames;
use super::json::{Bytes, Object, json};
use super::json_text;
use super::writer::{FormatWriter, StepOut, WriterOptions};
use crate::pipeline::Step;
use toolnorm::Fold;

/// The key under which both formats carry [`UiMeta`] (`toolMetadata.toolnorm` in the
/// AI SDK chunks, `metadata.toolnorm` in AG-UI events), as `_meta.toolnorm` in ACP.
pub const UI_META_KEY: &str = "toolnorm";

/// The contract fields a UI protocol has no field for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UiMeta {
    /// The part's `kind`.
    pub kind: ToolKind,
    /// The part's `title` (AG-UI has no field for it; the AI SDK chunks carry it as
    /// `title` and leave this out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The part's `state` (AG-UI only: its events say no more than started, arguments
    /// complete, result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<ToolState>,
    /// The part's `error`: message, code and details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// The part's `timing`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// The part's `metadata`, without the streamed-output keys of a running call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

impl UiMeta {
    /// The fields of `part`; `title` and `state` only when `with_title_and_state`.
    pub fn of(part: &NormalizedToolPart, with_title_and_state: bool) -> UiMeta {
        let metadata = part.metadata.as_ref().map(|metadata| {
            let mut metadata = metadata.clone();
            for key in STREAMED_KEYS {
                metadata.remove(*key);
            }
            metadata
        });
        UiMeta {
            kind: part.kind,
            title: with_title_and_state.then(|| part.title.clone()),
            state: with_title_and_state.then_some(part.state),
            error: part.error.clone(),
            timing: part.timing.clone().filter(|timing| !timing.is_empty()),
            metadata: metadata.filter(|metadata| !metadata.is_empty()),
        }
    }

    /// `{"toolnorm": {…}}`.
    pub fn wrapped(&self) -> Value {
        let mut object = Map::new();
        object.insert(UI_META_KEY.into(), json!(self));
        Value::Object(object)
    }
}

/// Metadata keys the core derives from the streamed output of a running call; left out
/// (the output itself travels with the result).
const STREAMED_KEYS: &[&str] = &[
    toolnorm::meta::PARTIAL_OUTPUT,
    toolnorm::meta::OUTPUT_TRUNCATED,
    toolnorm::meta::OUTPUT_TOTAL_BYTES,
    toolnorm::meta::OUTPUT_CAP_BYTES,
];

/// Writes `{"toolnorm":{…}}`, the [`UiMeta`] of `part` wrapped, straight from the
/// borrowed part: the same bytes as [`UiMeta::of`] then [`UiMeta::wrapped`] give.
pub(crate) fn write_meta<B: Bytes + ?Sized>(
    out: &mut B,
    part: &Fields<'_>,
    with_title_and_state: bool,
) -> serde_json::Result<()> {
    let mut wrapped = Object::open(out);
    wrapped.key(UI_META_KEY);
    let mut meta = Object::open(wrapped.out());
    meta.raw("kind", json_text::kind(part.kind));
    if with_title_and_state {
        meta.str("title", part.title);
        meta.raw("state", json_text::state(part.state));
    }
    if let Some(error) = part.error {
        meta.value("error", error)?;
    }
    if let Some(timing) = part.timing.filter(|timing| !timing.is_empty()) {
        meta.key("timing");
        json_text::timing(meta.out(), timing);
    }
    write_metadata(&mut meta, part.metadata)?;
    meta.close();
    wrapped.close();
    Ok(())
}

/// The `metadata` entry of [`UiMeta`]: the part's metadata without [`STREAMED_KEYS`], in
/// the order a `serde_json::Map` is left in when they are removed one by one (each
/// removal moves the last entry into the hole); nothing when no entry is left.
fn write_metadata<B: Bytes + ?Sized>(
    meta: &mut Object<'_, B>,
    metadata: MetadataView<'_>,
) -> serde_json::Result<()> {
    let streamed = |key: &str| STREAMED_KEYS.contains(&key);
    let any_streamed = metadata.iter().any(|(key, _)| streamed(key));
    // One look for the common case (no streamed entry): written as it is, when not empty.
    if !any_streamed && metadata.is_empty()
        || any_streamed && metadata.iter().all(|(key, _)| streamed(key))
    {
        return Ok(());
    }
    meta.key("metadata");
    let mut object = Object::open(meta.out());
    if !any_streamed {
        for (key, value) in metadata.iter() {
            object.escaped_key(key);
            json_text::meta_value(object.out(), &value)?;
        }
    } else {
        let mut entries: Vec<(&str, MetaValue<'_>)> = metadata.iter().collect();
        for key in STREAMED_KEYS {
            if let Some(at) = entries.iter().position(|(name, _)| name == key) {
                entries.swap_remove(at);
            }
        }
        for (key, value) in entries {
            object.escaped_key(key);
            json_text::meta_value(object.out(), &value)?;
        }
    }
    object.close();
    Ok(())
}

/// Whether two `{"toolnorm":{…}}` texts (as [`write_meta`] writes them) stand for
/// different values: equal bytes are the same value; different bytes may still be (the
/// same entries in another order), which the values themselves decide.
pub(crate) fn meta_differs(now: &[u8], then: &[u8]) -> bool {
    if now == then {
        return false;
    }
    // Texts of different lengths stand for different values when each is the one text of
    // its entries: what is written here is, but for the order of entries, a zero's sign
    // (`-0.0` equals `0.0`) and an error's `details` (kept as the provider wrote them).
    let canonical = |text: &[u8]| {
        memchr::memmem::find(text, b"-0.0").is_none()
            && memchr::memmem::find(text, b"\"details\"").is_none()
    };
    if now.len() != then.len() && canonical(now) && canonical(then) {
        return true;
    }
    match (parse(now), parse(then)) {
        (Some(now), Some(then)) => now != then,
        _ => true,
    }
}

/// `text` read back as a value, without serde_json's depth limit (it is no deeper than
/// the part it was written from).
pub(crate) fn parse(text: &[u8]) -> Option<Value> {
    let mut reader = serde_json::Deserializer::from_slice(text);
    reader.disable_recursion_limit();
    serde::Deserialize::deserialize(&mut reader).ok()
}

/// Whether a failed call was refused rather than run: a permission check or the user
/// said no (`permission_denied`, `user_rejected`).
pub(crate) fn is_denial(part: &Fields<'_>) -> bool {
    part.state == ToolState::Error
        && part.error.is_some_and(|error| {
            matches!(
                error.code,
                Some(ErrorCode::PermissionDenied | ErrorCode::UserRejected)
            )
        })
}

/// The part's session (`metadata.sessionId`), if it names one.
pub(crate) fn session_of<'a>(part: &Fields<'a>) -> Option<&'a str> {
    part.metadata.text(toolnorm::meta::SESSION_ID)
}

/// The call that spawned this one (`metadata.parentToolCallId`), if any.
pub(crate) fn parent_of<'a>(part: &Fields<'a>) -> Option<&'a str> {
    part.metadata.text(toolnorm::meta::PARENT_TOOL_CALL_ID)
}

/// The argument text of an input that may still grow: its JSON without the closing
/// brackets at the end, so that a later input with more keys or items extends it. A
/// partial-JSON parser (the AI SDK's) reads it back as the input itself.
pub(crate) fn open_json(input: &Payload) -> String {
    let mut text = Vec::new();
    json_text::payload(&mut text, input);
    let open = text.len()
        - text
            .iter()
            .rev()
            .take_while(|&&byte| matches!(byte, b'}' | b']'))
            .count();
    text.truncate(open);
    // JSON text cut after a bracket is UTF-8 still; the formatter's text otherwise.
    String::from_utf8(text).unwrap_or_else(|_| {
        let mut text = input.to_string();
        text.truncate(text.trim_end_matches(['}', ']']).len());
        text
    })
}

/// The JSON text of `value`, as serde_json writes it (without its formatter).
pub(crate) fn json_text_of(value: &Value) -> String {
    let mut text = Vec::new();
    json_text::value(&mut text, value);
    String::from_utf8(text).unwrap_or_else(|_| value.to_string())
}

/// Writes, as a JSON string, the text a result shows: a string output as it is,
/// anything else as JSON; `""` for a missing or `null` output.
pub(crate) fn output_text<B: Bytes + ?Sized>(out: &mut B, output: Option<&Payload>) {
    let Some(output) = output else {
        return json(out, "");
    };
    // Nothing for `null`, a string as it is, anything else as its JSON text (a kept
    // text as it is).
    if output.is_null() {
        return json(out, "");
    }
    // A kept string is the JSON its text is written as (not decoded to be escaped again).
    if output.is_string()
        && let Some(quoted) = output.raw_text()
    {
        return out.extend_from_slice(quoted.as_bytes());
    }
    match (output.text(), output.raw_text()) {
        (Some(text), _) => json(out, &text),
        (None, Some(kept)) => json(out, kept),
        (None, None) => json(out, &output.to_json()),
    }
}

/// The part's approval, when it has one.
pub(crate) fn approval_of<'a>(part: &Fields<'a>) -> Option<Cow<'a, Approval>> {
    part.metadata.get(meta::APPROVAL)?.approval()
}

/// What the writer of a UI stream format needs of its emitter: the AI SDK's and AG-UI's
/// emitters write the same steps, each in its own frames.
pub(crate) trait UiEmitter: Send + 'static {
    /// An emitter for calls that name no session of their own.
    fn new(session_id: &str) -> Self;
    /// Writes the frames of a new snapshot of `part`.
    fn write(&mut self, part: Fields<'_>, frames: &mut Frames<'_>) -> serde_json::Result<()>;
    /// Writes the frames that close the stream.
    fn write_finish(&mut self, frames: &mut Frames<'_>);
}

/// The writer of a UI stream format: every applied step's part through `E`, its frames
/// written through one buffer kept between steps.
struct UiWriter<E> {
    emitter: E,
    sse: bool,
    buffer: Vec<u8>,
}

/// A fresh writer of the UI stream format `E` emits (a format row's `make`).
pub(crate) fn ui_writer<E: UiEmitter>(options: &WriterOptions) -> Box<dyn FormatWriter> {
    Box::new(UiWriter {
        emitter: E::new(&options.acp.session_id),
        sse: options.sse,
        buffer: Vec::new(),
    })
}

impl<E: UiEmitter> UiWriter<E> {
    /// Writes the frames `fill` makes into `out`, as they are made.
    fn write_frames(
        &mut self,
        out: &mut StepOut<'_>,
        fill: impl FnOnce(&mut E, &mut Frames<'_>) -> serde_json::Result<()>,
    ) -> std::io::Result<()> {
        let mut frames = Frames::spilling(self.sse, std::mem::take(&mut self.buffer), out);
        let filled = fill(&mut self.emitter, &mut frames);
        let (buffer, written) = frames.finish();
        self.buffer = buffer;
        // The output's own error first: serde_json's would only wrap it.
        written?;
        filled?;
        Ok(())
    }
}

impl<E: UiEmitter> FormatWriter for UiWriter<E> {
    fn step(&mut self, step: &Step<'_>, out: &mut StepOut<'_>) -> std::io::Result<()> {
        let Step::Applied { update, .. } = step else {
            return Ok(());
        };
        let view = update.call.part_view();
        self.write_frames(out, |emitter, frames| emitter.write((&view).into(), frames))
    }

    fn finish(&mut self, _: &Fold, out: &mut StepOut<'_>) -> std::io::Result<()> {
        self.write_frames(out, |emitter, frames| {
            emitter.write_finish(frames);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn open_json_is_extended_by_a_grown_input() {
        let small = open_json(&json!({"command": "ls"}).into());
        let grown = open_json(&json!({"command": "ls", "cwd": "/tmp"}).into());
        assert_eq!(small, r#"{"command":"ls""#);
        assert!(grown.starts_with(&small));
        assert_eq!(open_json(&json!({"a": "}"}).into()), r#"{"a":"}""#);
        assert_eq!(open_json(&json!([[1], {}]).into()), "[[1],{");
        assert_eq!(open_json(&json!("text").into()), r#""text""#);
    }

    #[test]
    fn metadata_loses_the_streamed_keys_as_a_map_does() {
        let metadata: JsonObject = serde_json::from_value(json!({
            "a": 1,
            "partialOutput": "x",
            "b": 2,
            "outputTruncated": true,
            "c": 3,
        }))
        .unwrap();
        let mut removed = metadata.clone();
        for key in STREAMED_KEYS {
            removed.remove(*key);
        }
        let mut out = Vec::new();
        let mut object = Object::open(&mut out);
        write_metadata(&mut object, MetadataView::of(Some(&metadata))).unwrap();
        object.close();
        let expected = serde_json::to_string(&json!({ "metadata": removed })).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert_eq!(expected, r#"{"metadata":{"a":1,"c":3,"b":2}}"#);
    }

    /// Small values, so that two of them are often equal: few keys, zeros of both signs.
    fn small_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!(0)),
            Just(json!(0.0)),
            Just(json!(-0.0)),
            Just(json!(1)),
            Just(json!("2026-01-01")),
            Just(json!(true)),
            Just(Value::Null),
        ];
        leaf.prop_recursive(2, 12, 3, |inner| {
            prop::collection::vec((prop::sample::select(vec!["a", "b", "c"]), inner), 0..3)
                .prop_map(|entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                })
        })
    }

    /// `value` with each object's entries in reverse order and each float zero's sign
    /// flipped: the same value, written otherwise.
    fn rewritten(value: &Value) -> Value {
        match value {
            Value::Object(entries) => Value::Object(
                entries
                    .iter()
                    .rev()
                    .map(|(key, item)| (key.clone(), rewritten(item)))
                    .collect(),
            ),
            Value::Number(number) if number.as_f64() == Some(0.0) && number.is_f64() => {
                json!(-number.as_f64().unwrap_or_default())
            }
            other => other.clone(),
        }
    }

    proptest! {
        #[test]
        fn written_metadata_differs_as_its_values_do(
            now in small_value(),
            then in small_value(),
            rewrite in any::<bool>(),
        ) {
            let then = if rewrite { rewritten(&now) } else { then };
            let written = |value: &Value| {
                let mut out = Vec::new();
                json_text::value(&mut out, value);
                out
            };
            prop_assert_eq!(meta_differs(&written(&now), &written(&then)), now != then);
        }
    }

    #[test]
    fn an_errors_details_kept_as_written_differ_only_in_value() {
        let now = br#"{"toolnorm":{"kind":"other","error":{"message":"x","details":{"a": 1}}}}"#;
        let then = br#"{"toolnorm":{"kind":"other","error":{"message":"x","details":{"a":1}}}}"#;
        assert!(!meta_differs(now, then));
        assert!(meta_differs(now, br#"{"toolnorm":{"kind":"other"}}"#));
    }
}
