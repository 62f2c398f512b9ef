//! A `toolResponse`'s `value`, read as a value but for its content items' `text`, each
//! kept apart as the JSON text it came as ([`ValueApart`], shared with a long line): a
//! tool's output can be the biggest thing in a line, and Goose's `--output-format json`
//! prints a whole run on one.

use serde_json::Value;
use toolnorm::Payload;

use crate::read::apart::{KeptAt, Step, ValueApart};

/// A result's value: the value, each content item's `text` replaced by `null`, and the
/// texts kept, in order (one for each content item with a `text`).
pub(super) type ResultValue = ValueApart<ContentTexts>;

/// Where a result's content items' texts lie.
pub(super) struct ContentTexts;

impl KeptAt for ContentTexts {
    /// In an MCP `CallToolResult` (since 1.10).
    const IN_OBJECT: &'static [Step] = &[Step::Key("content"), Step::Each, Step::Marked("text")];
    /// In a content list alone (up to 1.9).
    const IN_ARRAY: &'static [Step] = &[Step::Each, Step::Marked("text")];
}

/// The content items of `content` (a content list), each with its text: the one kept
/// when `texts` holds the list's texts, else its own.
pub(super) fn items<'v>(
    content: &'v [Value],
    texts: Option<&'v [Payload]>,
) -> Vec<(&'v Value, Option<Payload>)> {
    let mut kept = texts.map(<[Payload]>::iter);
    content
        .iter()
        .map(|item| {
            let text = item.get("text").and_then(|own| match kept.as_mut() {
                Some(kept) => kept.next().cloned(),
                None => Some(Payload::from(own.clone())),
            });
            (item, text)
        })
        .collect()
}

/// A content list given back its texts, as it was read.
pub(super) fn restore(content: Value, texts: Option<Vec<Payload>>) -> Value {
    let (mut items, texts) = match (content, texts) {
        (Value::Array(items), Some(texts)) => (items, texts),
        (content, _) => return content,
    };
    let mut texts = texts.into_iter();
    for item in &mut items {
        if let Some(text) = item.get_mut("text") {
            *text = texts.next().map(Payload::into_value).unwrap_or(Value::Null);
        }
    }
    Value::Array(items)
}
