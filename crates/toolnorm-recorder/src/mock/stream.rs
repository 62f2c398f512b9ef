//! Streaming helpers: SSE events and the pieces text and arguments stream in.

use serde_json::Value;

use super::WORK_PLACEHOLDER;

/// Cuts `s` into pieces of `size` characters, as a model streams a call's arguments.
///
/// `whole` (the run's working directory, when the arguments name it) is never cut and
/// counts as [`WORK_PLACEHOLDER`]'s length, so the pieces fall at the same places
/// whatever the length of the scratch path: a recording shows the same pieces once
/// the path is replaced by the one fixtures show.
pub(super) fn chunks(s: &str, size: usize, whole: Option<&str>) -> Vec<String> {
    let size = size.max(1);
    let whole = whole.filter(|w| !w.is_empty());
    let mut out = Vec::new();
    let mut current = String::new();
    let mut weight = 0;
    let mut rest = s;
    while let Some(ch) = rest.chars().next() {
        match whole.filter(|w| rest.starts_with(*w)) {
            Some(w) => {
                current.push_str(w);
                weight += WORK_PLACEHOLDER.len();
                rest = &rest[w.len()..];
            }
            None => {
                current.push(ch);
                weight += 1;
                rest = &rest[ch.len_utf8()..];
            }
        }
        if weight >= size {
            out.push(std::mem::take(&mut current));
            weight = 0;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
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

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn without_a_work_dir_pieces_have_the_size() {
        assert_eq!(chunks("abcdefg", 3, None), ["abc", "def", "g"]);
        assert_eq!(chunks("ab", 0, None), ["a", "b"]);
        assert_eq!(chunks("", 3, None), Vec::<String>::new());
    }

    #[test]
    fn the_work_dir_is_never_cut_and_the_cuts_do_not_depend_on_its_length() {
        let pieces = |work: &str| {
            let args = format!(r#"{{"file_path":"{work}/notes.txt","old":"é"}}"#);
            chunks(&args, 5, Some(work))
                .into_iter()
                .map(|piece| piece.replace(work, "/workspace"))
                .collect::<Vec<_>>()
        };
        let short = pieces("/tmp/a/work");
        assert_eq!(
            short,
            pieces("/tmp/a-much-longer-scratch-path/runs/42/work")
        );
        assert!(short.iter().any(|piece| piece.contains("/workspace")));
        assert_eq!(
            short.concat(),
            r#"{"file_path":"/workspace/notes.txt","old":"é"}"#
        );
    }
}
