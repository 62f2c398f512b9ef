//! Reading JSON that is still streaming in: `{"command": "ls -l` → `{"command": "ls -l"}`.
//!
//! Tool inputs stream as fragments of one JSON text. To show the input as it grows,
//! the text so far is closed (open string, arrays and objects) and parsed; a trailing
//! fragment that cannot be completed (half a key, a dangling `:`) is dropped.

use serde_json::Value;

/// The value that `text`, a prefix of a JSON text, is heading for, as far as it goes.
pub fn parse_partial(text: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    let mut end = text.len();
    // Each round drops the last token that could not be completed; a few are enough.
    for _ in 0..8 {
        let prefix = text.get(..end)?.trim_end();
        let prefix = prefix.strip_suffix(',').unwrap_or(prefix);
        if let Some(closed) = close(prefix)
            && let Ok(value) = serde_json::from_str(&closed)
        {
            return Some(value);
        }
        end = last_boundary(prefix)?;
    }
    None
}

/// `prefix` with its open string, arrays and objects closed.
fn close(prefix: &str) -> Option<String> {
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in prefix.chars() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                stack.pop()?;
            }
            _ => {}
        }
    }
    let mut closed = prefix.to_owned();
    if in_string {
        if escaped {
            closed.pop();
        }
        closed.push('"');
    }
    if closed.trim_end().ends_with(':') {
        closed.push_str("null");
    }
    closed.extend(stack.iter().rev());
    Some(closed)
}

/// Where the last `,`, `{` or `[` outside a string ends (the prefix to retry with).
fn last_boundary(prefix: &str) -> Option<usize> {
    let mut in_string = false;
    let mut escaped = false;
    let mut boundary = None;
    for (at, c) in prefix.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                // A string that starts here may be a half key: retry without it.
                boundary = Some(at);
            }
            '{' | '[' => boundary = Some(at + 1),
            ',' => boundary = Some(at),
            _ => {}
        }
    }
    boundary.filter(|&at| at < prefix.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn completes_prefixes() {
        let full = r#"{"command": "ls -l \"a b\"", "timeout": 120, "flags": [1, 2]}"#;
        for end in 0..=full.len() {
            let Some(prefix) = full.get(..end) else {
                continue;
            };
            if let Some(value) = parse_partial(prefix) {
                assert!(value.is_object(), "{prefix:?} gave {value}");
            }
        }
        assert_eq!(
            parse_partial(full),
            Some(serde_json::from_str(full).unwrap())
        );
        assert_eq!(
            parse_partial(r#"{"command": "ls -l"#),
            Some(json!({"command": "ls -l"}))
        );
        assert_eq!(
            parse_partial(r#"{"command": "ls", "tim"#),
            Some(json!({"command": "ls"}))
        );
        assert_eq!(
            parse_partial(r#"{"command": "ls", "timeout":"#),
            Some(json!({"command": "ls", "timeout": null}))
        );
        assert_eq!(parse_partial(r#"{"a": [1, 2"#), Some(json!({"a": [1, 2]})));
        assert_eq!(parse_partial(r#"{"a": "x\"#), Some(json!({"a": "x"})));
        assert_eq!(parse_partial(""), None);
    }
}
