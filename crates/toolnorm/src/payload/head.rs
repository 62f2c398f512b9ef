//! The beginning of a kept JSON string, decoded without decoding the rest: for telling
//! an output's kind by how it begins when the output may be huge.

use std::borrow::Cow;

/// The text of `quoted`, a kept JSON string with its quotes (canonical: escapes are
/// `\"`, `\\`, `\b \f \n \r \t` and `\u00xx`), when it is shorter than `max` bytes;
/// else a prefix of it at least `max` bytes long, cut only where a character ends. `None`
/// when the text does not decode (not reached for a kept string).
pub(super) fn string_head(quoted: &str, max: usize) -> Option<Cow<'_, str>> {
    let content = quoted.get(1..quoted.len().checked_sub(1)?)?;
    // An escape writes a character in more bytes than it decodes to, never fewer: a
    // prefix of `want` bytes of the JSON decodes to at most `want` bytes, so the cut
    // moves on until it decodes to `max`.
    let mut want = max.max(1);
    loop {
        let cut = boundary_at(content.as_bytes(), want);
        let head = content.get(..cut)?;
        let decoded = if head.contains('\\') {
            Cow::Owned(serde_json::from_str::<String>(&format!("\"{head}\"")).ok()?)
        } else {
            Cow::Borrowed(head)
        };
        if decoded.len() >= max || cut == content.len() {
            return Some(decoded);
        }
        want = want.saturating_mul(2);
    }
}

/// The first place at or after byte `at` of `content` (a JSON string's inside) where a
/// character ends: not inside an escape (`\uXXXX` is six bytes, a surrogate pair twelve)
/// or inside a UTF-8 sequence; the end when `at` is past it.
fn boundary_at(content: &[u8], at: usize) -> usize {
    let mut position = 0;
    while position < at {
        let Some(&byte) = content.get(position) else {
            break;
        };
        position += match byte {
            b'\\' if content.get(position + 1) == Some(&b'u') => {
                // A high surrogate (`\ud800`-`\udbff`) is followed by its low one.
                let high = matches!(content.get(position + 2), Some(b'd' | b'D'))
                    && matches!(
                        content.get(position + 3),
                        Some(b'8'..=b'9' | b'a'..=b'b' | b'A'..=b'B')
                    );
                if high && content.get(position + 6) == Some(&b'\\') {
                    12
                } else {
                    6
                }
            }
            b'\\' => 2,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xFF => 4,
            _ => 1,
        };
    }
    position.min(content.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `max` from 0 to past the text: the head is a prefix of the decoded text,
    /// whole when the text is shorter than `max`, else at least `max` long.
    fn check(text: &str) {
        let quoted = serde_json::to_string(text).unwrap();
        for max in 0..quoted.len() + 3 {
            let head = string_head(&quoted, max).unwrap();
            assert!(text.starts_with(&*head), "{quoted} at {max}: {head:?}");
            if text.len() < max {
                assert_eq!(head, text, "{quoted} at {max}");
            } else {
                assert!(head.len() >= max, "{quoted} at {max}: {head:?}");
            }
        }
    }

    #[test]
    fn a_head_is_a_prefix_cut_where_a_character_ends() {
        for text in [
            "",
            "plain text",
            "a\nb\tc \"q\" \\ \u{1} \u{1f}",
            "é and 😀 and 漢字",
            "\n\n\n\n\n\n",
            "\u{1}\u{2}\u{3}x",
            "x😀\n😀\u{7}é",
        ] {
            check(text);
        }
    }

    #[test]
    fn a_text_without_escapes_is_borrowed() {
        let head = string_head(r#""Error: no such file or directory""#, 5).unwrap();
        assert!(matches!(head, Cow::Borrowed("Error")));
    }

    #[test]
    fn a_surrogate_pair_is_not_cut_in_two() {
        let quoted = r#""\ud83d\ude00x""#;
        for max in 0..8 {
            let head = string_head(quoted, max).unwrap();
            assert!("😀x".starts_with(&*head), "{max}: {head:?}");
        }
    }
}
