//! Streaming helpers: SSE events and the pieces text and arguments stream in.

use serde_json::Value;

pub(super) fn chunks(s: &str, size: usize) -> Vec<String> {
    let size = size.max(1);
    let chars: Vec<char> = s.chars().collect();
    chars
        .chunks(size)
        .map(|c| c.iter().collect::<String>())
        .collect()
}

pub(super) fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in s.chars() {
        cur.push(ch);
        if ch == ' ' {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// JSON as the mock model sends it: compact, the keys of every object sorted. The
/// CLIs echo the model's messages into their streams, so the order must not depend on
/// how a reply was built (the workspace's serde_json keeps insertion order).
pub(super) fn to_wire(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(key, value)| (key.clone(), sorted(value)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

pub(super) fn sse_event(out: &mut String, event: &str, data: &Value) {
    out.push_str("event: ");
    out.push_str(event);
    out.push_str("\ndata: ");
    out.push_str(&to_wire(data));
    out.push_str("\n\n");
}
