//! Texts cut to the cap of `rawOutput` and of a text `content` block, from a decoded text
//! or straight from a kept JSON string.

/// `text` cut to at most `cap` bytes (on a character boundary), and its length when cut.
pub(super) fn capped_text(text: &str, cap: usize) -> (&str, Option<usize>) {
    if text.len() <= cap {
        return (text, None);
    }
    let cut = (0..=cap)
        .rev()
        .find_map(|end| text.get(..end))
        .unwrap_or_default();
    (cut, Some(text.len()))
}

/// Writes a kept JSON string (`quoted`, as serde_json writes it) cut to `cap` bytes of
/// its text, straight from the kept text: its escapes are what [`json`](crate::emit::json::json) writes, and each
/// stands for one byte of text, so no copy of a huge output is decoded. Returns the
/// text's length when cut; the same bytes as [`capped_text`] of the decoded text.
pub(super) fn capped_kept_string(out: &mut Vec<u8>, quoted: &str, cap: usize) -> Option<usize> {
    let inner = quoted
        .get(1..quoted.len().saturating_sub(1))
        .unwrap_or_default()
        .as_bytes();
    // The text is never longer than its escaped form.
    if inner.len() <= cap {
        out.extend_from_slice(quoted.as_bytes());
        return None;
    }
    // Walk the characters up to the cap: `kept` is where the longest prefix of at most
    // `cap` bytes of text ends in the kept text, `length` the text's length so far.
    let (mut at, mut length, mut kept) = (0, 0, 0);
    while length <= cap {
        kept = at;
        let (step, bytes) = match inner.get(at) {
            Some(b'\\') if inner.get(at + 1) == Some(&b'u') => (6, 1),
            Some(b'\\') => (2, 1),
            Some(&lead) => {
                let width = utf8_width(lead);
                (width, width)
            }
            None => break,
        };
        at += step;
        length += bytes;
    }
    if length <= cap {
        out.extend_from_slice(quoted.as_bytes());
        return None;
    }
    // The rest is counted, not walked: a byte of text each, less what escapes add.
    let rest = inner.get(at..).unwrap_or_default();
    let mut escapes = 0;
    let mut from = 0;
    while let Some(found) = rest
        .get(from..)
        .and_then(|tail| memchr::memchr(b'\\', tail))
    {
        let width = match rest.get(from + found + 1) {
            Some(b'u') => 6,
            _ => 2,
        };
        escapes += width - 1;
        from += found + width;
    }
    length += rest.len().saturating_sub(escapes);
    out.push(b'"');
    out.extend_from_slice(inner.get(..kept).unwrap_or_default());
    out.push(b'"');
    Some(length)
}

/// The length of the UTF-8 character that starts with byte `lead`.
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}
