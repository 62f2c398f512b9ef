//! The beginning of a kept JSON string, decoded without decoding the rest: for telling
//! an output's kind by how it begins when the output may be huge.

use std::borrow::Cow;

/// The text of `quoted`, a kept JSON string with its quotes, when it is shorter than
/// `max` bytes; else a prefix of it at least `max` bytes long, cut only where a character
/// ends: the text between escapes copied as it is, each escape decoded, up to there.
/// `None` when the text does not decode (not reached for a kept string).
pub(super) fn string_head(quoted: &str, max: usize) -> Option<Cow<'_, str>> {
    let mut rest = quoted.get(1..quoted.len().checked_sub(1)?)?;
    let mut head = String::new();
    loop {
        let wanted = max.saturating_sub(head.len());
        let escape = rest.bytes().take(wanted).position(|byte| byte == b'\\');
        let Some(at) = escape else {
            // No escape before the head is long enough: the rest of it as it is.
            let mut end = wanted.min(rest.len());
            while !rest.is_char_boundary(end) {
                end += 1;
            }
            let run = rest.get(..end)?;
            if head.is_empty() {
                return Some(Cow::Borrowed(run));
            }
            head.push_str(run);
            return Some(Cow::Owned(head));
        };
        if head.is_empty() {
            head.reserve(max.min(rest.len()) + 4);
        }
        head.push_str(rest.get(..at)?);
        let mut chars = rest.get(at + 1..)?.chars();
        head.push(unescape(&mut chars)?);
        rest = chars.as_str();
        if head.len() >= max {
            return Some(Cow::Owned(head));
        }
    }
}

/// The character of the escape whose backslash `chars` is just past; `None` for one that
/// is not valid JSON.
fn unescape(chars: &mut std::str::Chars<'_>) -> Option<char> {
    Some(match chars.next()? {
        '"' => '"',
        '\\' => '\\',
        '/' => '/',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'u' => {
            let code = hex4(chars)?;
            if (0xD800..0xDC00).contains(&code) {
                // A high surrogate: its low one follows.
                let (Some('\\'), Some('u')) = (chars.next(), chars.next()) else {
                    return None;
                };
                let low = hex4(chars)?;
                if !(0xDC00..0xE000).contains(&low) {
                    return None;
                }
                char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))?
            } else {
                char::from_u32(code)?
            }
        }
        _ => return None,
    })
}

/// Four hex digits of a `\u` escape.
fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    (0..4).try_fold(0, |code, _| Some(code * 16 + chars.next()?.to_digit(16)?))
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
