//! JSON text written without serde's serializer: strings escaped eight bytes at a time
//! (most bytes of a tool's text need no escape), values and payloads walked directly.
//! What it writes is, byte for byte, what serde_json's compact writer writes (the tests
//! compare the two over generated values).
//!
//! serde_json looks each byte of a string up in a table; a frame is mostly strings, and
//! that lookup was the largest single cost of writing one.

use std::sync::LazyLock;

use serde_json::{Number, Value};
use toolnorm::{MetaValue, PartField, PartView, Payload, Timestamp, Timing, ToolKind, ToolState};

use super::json::{Bytes, Object};

/// A byte repeated in each of a word's eight bytes.
const fn each_byte(byte: u8) -> u64 {
    0x0101_0101_0101_0101 * byte as u64
}

/// The bytes of `word` (read little-endian) that need an escape, a control character
/// (below 0x20), `"` or `\`, each marked by its high bit: each test sets the high bit of
/// a byte where it holds (bytes of 0x80 and above are left out by `!word`), and a borrow
/// only carries into bytes above one that holds, so the lowest mark is always a byte that
/// needs an escape.
fn escapes(word: u64) -> u64 {
    let control = word.wrapping_sub(each_byte(0x20)) & !word;
    let quote = word ^ each_byte(b'"');
    let quote = quote.wrapping_sub(each_byte(1)) & !quote;
    let backslash = word ^ each_byte(b'\\');
    let backslash = backslash.wrapping_sub(each_byte(1)) & !backslash;
    (control | quote | backslash) & each_byte(0x80)
}

/// Where the first byte from `at` on that needs an escape lies, eight bytes at a time
/// (the last few padded with spaces, which need none).
fn next_escape(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let word = match bytes.get(at..at + 8) {
            Some(word) => <[u8; 8]>::try_from(word).ok()?,
            None => {
                let rest = bytes.get(at..).filter(|rest| !rest.is_empty())?;
                let mut word = [b' '; 8];
                word.iter_mut().zip(rest).for_each(|(to, from)| *to = *from);
                word
            }
        };
        let marks = escapes(u64::from_le_bytes(word));
        if marks != 0 {
            return Some(at + (marks.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
}

/// Writes the escape serde_json writes for `byte`; `false` for a byte it writes as it is.
fn escape<B: Bytes + ?Sized>(out: &mut B, byte: u8) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let letter = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0..=0x1f => {
            let hex = |digit: u8| HEX.get(usize::from(digit)).copied().unwrap_or(b'0');
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', hex(byte >> 4), hex(byte & 0xf)]);
            return true;
        }
        _ => return false,
    };
    out.push(b'\\');
    out.push(letter);
    true
}

/// Writes `text` as a JSON string.
pub(crate) fn string<B: Bytes + ?Sized>(out: &mut B, text: &str) {
    let bytes = text.as_bytes();
    out.push(b'"');
    // `done`: where the bytes not yet written begin; `from`: where the search goes on.
    let (mut done, mut from) = (0, 0);
    while let Some(at) = next_escape(bytes, from) {
        let Some(&byte) = bytes.get(at) else { break };
        out.extend_from_slice(bytes.get(done..at).unwrap_or_default());
        done = if escape(out, byte) { at + 1 } else { at };
        from = at + 1;
    }
    out.extend_from_slice(bytes.get(done..).unwrap_or_default());
    out.push(b'"');
}

/// Writes `value` as JSON.
pub(crate) fn value<B: Bytes + ?Sized>(out: &mut B, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => self::number(out, number),
        Value::String(text) => string(out, text),
        Value::Array(items) => {
            out.push(b'[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                self::value(out, item);
            }
            out.push(b']');
        }
        Value::Object(object) => {
            out.push(b'{');
            for (n, (key, item)) in object.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                string(out, key);
                out.push(b':');
                self::value(out, item);
            }
            out.push(b'}');
        }
    }
}

/// Writes a number as serde_json writes it (its `Display` is its JSON text), through
/// [`Bytes`], which keeps a write's error for the writer to return.
fn number<B: Bytes + ?Sized>(out: &mut B, number: &Number) {
    let mut digits = itoa::Buffer::new();
    let text = match (number.as_u64(), number.as_i64()) {
        (Some(whole), _) => digits.format(whole),
        (None, Some(negative)) => digits.format(negative),
        (None, None) => return out.extend_from_slice(number.to_string().as_bytes()),
    };
    out.extend_from_slice(text.as_bytes());
}

/// Writes a payload: its kept text as it came, or its value.
pub(crate) fn payload<B: Bytes + ?Sized>(out: &mut B, payload: &Payload) {
    match payload.raw_text() {
        Some(text) => out.extend_from_slice(text.as_bytes()),
        None => value(out, payload.value()),
    }
}

/// Writes a metadata value.
pub(crate) fn meta_value<B: Bytes + ?Sized>(
    out: &mut B,
    meta: &MetaValue<'_>,
) -> serde_json::Result<()> {
    match meta {
        MetaValue::Json(json) => value(out, json),
        MetaValue::Text(text) => string(out, text),
        other => serde_json::to_writer(out, other)?,
    }
    Ok(())
}

/// Writes a part as serde_json writes a [`PartView`]: its [`fields`](PartView::fields),
/// each written here (the tests compare the two).
pub(crate) fn part<B: Bytes + ?Sized>(out: &mut B, part: &PartView<'_>) -> serde_json::Result<()> {
    out.push(b'{');
    for (place, field) in part.fields().enumerate() {
        if place > 0 {
            out.push(b',');
        }
        out.extend_from_slice(field.json_key().as_bytes());
        match field {
            PartField::Id(text) | PartField::Name(text) | PartField::Title(text) => {
                string(out, text);
            }
            PartField::Kind(value) => out.extend_from_slice(kind(value)),
            PartField::State(value) => out.extend_from_slice(state(value)),
            PartField::Input(value) | PartField::Output(value) => payload(out, value),
            PartField::Metadata(metadata) => {
                let mut entries = Object::open(&mut *out);
                for (key, value) in metadata.iter() {
                    entries.escaped_key(key);
                    meta_value(entries.out(), &value)?;
                }
                entries.close();
            }
            PartField::Timing(value) => timing(out, value),
            PartField::Error(_) => serde_json::to_writer(&mut *out, &field)?,
        }
    }
    out.push(b'}');
    Ok(())
}

/// Writes a part's timing: its times as they came (a string or an epoch number), then
/// the milliseconds it took, each only when known.
pub(crate) fn timing<B: Bytes + ?Sized>(out: &mut B, timing: &Timing) {
    let mut entries = Object::open(&mut *out);
    for (key, at) in [
        ("startedAt", &timing.started_at),
        ("completedAt", &timing.completed_at),
    ] {
        match at {
            Some(Timestamp::Text(text)) => entries.str(key, text),
            Some(Timestamp::Epoch(number)) => {
                entries.key(key);
                self::number(entries.out(), number);
            }
            None => {}
        }
    }
    if let Some(elapsed) = timing.elapsed_ms {
        entries.key("elapsedMs");
        entries
            .out()
            .extend_from_slice(itoa::Buffer::new().format(elapsed).as_bytes());
    }
    entries.close();
}

/// A kind's JSON text.
pub(crate) fn kind(kind: ToolKind) -> &'static [u8] {
    name_of(&KIND_NAMES, &ToolKind::ALL, kind)
}

/// A state's JSON text.
pub(crate) fn state(state: ToolState) -> &'static [u8] {
    name_of(&STATE_NAMES, &ToolState::ALL, state)
}

/// Each kind's JSON text, in [`ToolKind::ALL`]'s order.
static KIND_NAMES: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| names(&ToolKind::ALL));

/// Each state's JSON text, in [`ToolState::ALL`]'s order.
static STATE_NAMES: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| names(&ToolState::ALL));

/// The JSON text of each of `all`.
fn names<T: serde::Serialize>(all: &[T]) -> Vec<Vec<u8>> {
    all.iter()
        .map(|item| serde_json::to_vec(item).unwrap_or_else(|_| b"null".to_vec()))
        .collect()
}

/// The name of `item` among `names`, given in `all`'s order (`null` for one not there).
pub(crate) fn name_of<'n, T: PartialEq>(names: &'n [Vec<u8>], all: &[T], item: T) -> &'n [u8] {
    all.iter()
        .position(|each| *each == item)
        .and_then(|index| names.get(index))
        .map_or(&b"null"[..], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    /// Strings rich in what needs escaping, around the eight-byte words.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("\"".to_owned()),
            Just("\\".to_owned()),
            Just("\n".to_owned()),
            Just("\u{7f}".to_owned()),
            Just("é€𝄞".to_owned()),
            (0u8..0x20).prop_map(|byte| char::from(byte).to_string()),
            "[a-z ]{0,9}",
            any::<String>(),
        ];
        prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// A time as a provider gives it: a string, or an epoch number of any JSON kind.
    fn timestamp() -> impl Strategy<Value = Timestamp> {
        prop_oneof![
            text().prop_map(Timestamp::Text),
            any::<u64>().prop_map(|at| Timestamp::Epoch(at.into())),
            any::<i64>().prop_map(|at| Timestamp::Epoch(at.into())),
            any::<f64>().prop_filter_map("finite", |at| Number::from_f64(at).map(Timestamp::Epoch)),
        ]
    }

    proptest! {
        #[test]
        fn a_timing_is_written_as_serde_json_writes_it(
            started_at in proptest::option::of(timestamp()),
            completed_at in proptest::option::of(timestamp()),
            elapsed_ms in proptest::option::of(any::<u64>()),
        ) {
            let timing = Timing { started_at, completed_at, elapsed_ms };
            let mut written = Vec::new();
            super::timing(&mut written, &timing);
            prop_assert_eq!(String::from_utf8(written).unwrap(), serde_json::to_string(&timing).unwrap());
        }

        #[test]
        fn a_string_is_written_as_serde_json_writes_it(text in text()) {
            let mut written = Vec::new();
            string(&mut written, &text);
            prop_assert_eq!(written, serde_json::to_vec(&text).unwrap());
        }

        #[test]
        fn a_value_is_written_as_serde_json_writes_it(value in json_value()) {
            let mut written = Vec::new();
            self::value(&mut written, &value);
            prop_assert_eq!(written, serde_json::to_vec(&value).unwrap());
        }
    }

    #[test]
    fn every_byte_is_escaped_as_serde_json_escapes_it() {
        for byte in 0..=0x7f_u8 {
            let text = char::from(byte).to_string();
            for text in [
                text.clone(),
                format!("abcdefg{text}hijklmn"),
                text.repeat(9),
            ] {
                let mut written = Vec::new();
                string(&mut written, &text);
                assert_eq!(written, serde_json::to_vec(&text).unwrap(), "{byte:#x}");
            }
        }
    }

    #[test]
    fn a_part_is_written_as_serde_json_writes_it() {
        // The event cases of the UI protocol checks (approvals, errors, streamed and huge
        // outputs, timing, metadata), and every part snapshot they fold into.
        let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../checks/ui-protocols/cases");
        let mut parts = 0;
        for case in std::fs::read_dir(cases).unwrap() {
            let text = std::fs::read_to_string(case.unwrap().path()).unwrap();
            let mut fold = toolnorm::Fold::new();
            for line in text.lines().filter(|line| !line.trim().is_empty()) {
                let Ok(event) = serde_json::from_str::<toolnorm::ToolEvent>(line) else {
                    continue;
                };
                if let Ok(update) = fold.apply(event) {
                    let view = update.call.part_view();
                    let mut written = Vec::new();
                    part(&mut written, &view).unwrap();
                    assert_eq!(
                        String::from_utf8(written).unwrap(),
                        serde_json::to_string(&view).unwrap()
                    );
                    parts += 1;
                }
            }
        }
        assert!(parts > 30, "{parts}");
    }

    #[test]
    fn a_kept_payload_is_written_as_it_came() {
        let kept = Payload::from_json(r#"{"a": [1, "x\ny"]}"#).unwrap();
        assert!(kept.raw_text().is_some());
        let mut written = Vec::new();
        payload(&mut written, &kept);
        assert_eq!(written, serde_json::to_vec(&kept).unwrap());
        let mut written = Vec::new();
        payload(&mut written, &Payload::from(json!({"b": "x\ny"})));
        assert_eq!(written, br#"{"b":"x\ny"}"#);
    }
}
