//! Lone UTF-16 surrogates in JSON text, read as U+FFFD.
//!
//! A JSON writer in JavaScript escapes a string's lone surrogate (`\ud83d` with no low
//! half after it), and JavaScript makes them whenever it cuts a string between the two
//! halves of a pair: a tool output cut to a length, say, when it ends in an emoji. A
//! Rust string cannot hold one, so such a line would not read at all and its tool call
//! would be lost. Each lone surrogate's escape is replaced by `\ufffd` (the replacement
//! character, as `String.prototype.toWellFormed` does), six bytes for six: the line
//! keeps its length and every other byte.

/// A line whose lone surrogates were replaced.
#[derive(Debug, PartialEq, Eq)]
pub struct Repaired {
    /// The line with `\ufffd` for each lone surrogate's escape.
    pub bytes: Vec<u8>,
    /// The escapes replaced, as written (`\ud83d`), in order.
    pub replaced: Vec<String>,
}

/// Finds `\u`: two bytes compared at once, so no other escape is a candidate.
static ESCAPE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));

/// Whether the backslash at `at` is itself escaped (an odd run of backslashes before it).
fn escaped(line: &[u8], at: usize) -> bool {
    let before = line.get(..at).unwrap_or_default();
    before
        .iter()
        .rev()
        .take_while(|&&byte| byte == b'\\')
        .count()
        % 2
        == 1
}

/// The escape written for each lone surrogate.
const REPLACEMENT: &[u8; 6] = b"\\ufffd";

/// `line` with each escaped lone surrogate replaced by `\ufffd`; `None` when it has none
/// (the common case, found by one search).
pub fn repair(line: &[u8]) -> Option<Repaired> {
    let lone = lone(line);
    if lone.is_empty() {
        return None;
    }
    let mut bytes = line.to_vec();
    let mut replaced = Vec::with_capacity(lone.len());
    for at in lone {
        if let Some(escape) = bytes.get_mut(at..at + REPLACEMENT.len()) {
            replaced.push(String::from_utf8_lossy(escape).into_owned());
            escape.copy_from_slice(REPLACEMENT);
        }
    }
    Some(Repaired { bytes, replaced })
}

/// Whether `line` has no lone surrogate's escape: [`repair`] would leave it as it is.
pub fn is_whole(line: &[u8]) -> bool {
    lone(line).is_empty()
}

/// Where the lone surrogates' escapes of `line` start.
fn lone(line: &[u8]) -> Vec<usize> {
    if line.len() < SHORT {
        lone_in_short(line)
    } else {
        lone_in_long(line)
    }
}

/// Lines shorter than this are searched backslash by backslash: setting up the search
/// for `\u` costs more than it saves on them.
const SHORT: usize = 256;

/// Where the lone surrogates' escapes of a short line start: each backslash looked at.
fn lone_in_short(line: &[u8]) -> Vec<usize> {
    let mut lone = Vec::new();
    // Where the next escape may start: a backslash escaped (`\\u` is text) or inside a
    // pair just read cannot.
    let mut next = 0;
    for at in memchr::memchr_iter(b'\\', line) {
        if at < next {
            continue;
        }
        next = at + 2;
        if line.get(at + 1) == Some(&b'u') {
            next = lone_at(line, at, &mut lone);
        }
    }
    lone
}

/// Where the lone surrogates' escapes of a long line start: each `\u` looked at.
fn lone_in_long(line: &[u8]) -> Vec<usize> {
    let mut lone = Vec::new();
    let mut next = 0;
    for at in ESCAPE.find_iter(line) {
        if at >= next && !escaped(line, at) {
            next = lone_at(line, at, &mut lone);
        }
    }
    lone
}

/// Looks at the `\u` escape at `at`: records it when it is a lone surrogate; where the
/// next escape may start (after a pair, after both halves).
fn lone_at(line: &[u8], at: usize, lone: &mut Vec<usize>) -> usize {
    match surrogate(line, at) {
        Some(Half::High) if surrogate(line, at + 6) == Some(Half::Low) => at + 12,
        Some(_) => {
            lone.push(at);
            at + 6
        }
        None => at + 2,
    }
}

/// Which half of a pair a surrogate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Half {
    High,
    Low,
}

/// The half of a pair that the `\uXXXX` escape at `at` is, if it is a surrogate.
fn surrogate(line: &[u8], at: usize) -> Option<Half> {
    let escape = line.get(at..at + 6)?;
    if escape.get(1) != Some(&b'u') {
        return None;
    }
    let digits = std::str::from_utf8(escape.get(2..)?).ok()?;
    match u16::from_str_radix(digits, 16).ok()? {
        0xD800..=0xDBFF => Some(Half::High),
        0xDC00..=0xDFFF => Some(Half::Low),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(line: &str) -> Option<(String, Vec<String>)> {
        repair(line.as_bytes()).map(|repaired| {
            let text = String::from_utf8(repaired.bytes).unwrap_or_default();
            (text, repaired.replaced)
        })
    }

    #[test]
    fn lone_halves_become_the_replacement_character() {
        assert_eq!(
            repaired(r#"{"a":"cut \ud83d","b":"\uDC00 x"}"#),
            Some((
                r#"{"a":"cut \ufffd","b":"\ufffd x"}"#.to_owned(),
                vec![r"\ud83d".to_owned(), r"\uDC00".to_owned()]
            ))
        );
        // A high half followed by another high half, or by a non-surrogate escape.
        assert_eq!(
            repaired(r#""\ud83d\ud83d\ude00\ud800\u0041""#).map(|(text, _)| text),
            Some(r#""\ufffd\ud83d\ude00\ufffd\u0041""#.to_owned())
        );
    }

    #[test]
    fn pairs_other_escapes_and_escaped_backslashes_are_left_alone() {
        for line in [
            r#"{"a":"\ud83d\ude00 \uD83D\uDE00 \u00e9 \n"}"#,
            r#"{"a":"\\ud83d is text, so is \\\\\\ud800"}"#,
            r#"{"a":"\ud83"}"#,
            r#"{"a":"\u"}"#,
            "plain",
            "",
        ] {
            assert_eq!(repair(line.as_bytes()), None, "{line}");
            let long = format!("{}{line}", " ".repeat(SHORT));
            assert_eq!(repair(long.as_bytes()), None, "{long}");
        }
        // After an even run of backslashes, `\u` is an escape again.
        assert!(repair(br#"{"a":"\\\ud800"}"#).is_some());
        let long = format!(r#"{}{{"a":"\\\ud800"}}"#, " ".repeat(SHORT));
        assert!(repair(long.as_bytes()).is_some());
    }

    /// `units` as a JSON string literal: each unit as itself when it may be (a pair as its
    /// character, a backslash as `\\`), or as a `\u` escape; a lone surrogate always
    /// escaped (as JavaScript does), in lower or upper case.
    fn literal(units: &[u16], escape_all: bool, upper: bool) -> String {
        let mut out = String::from("\"");
        for decoded in char::decode_utf16(units.iter().copied()) {
            match decoded {
                Ok('\\') if !escape_all => out.push_str("\\\\"),
                Ok(c) if !escape_all && c != '"' && c >= ' ' => out.push(c),
                Ok(c) => {
                    for unit in c.encode_utf16(&mut [0; 2]) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
            }
        }
        out.push('"');
        if upper {
            out.replace("\\ud", "\\uD")
        } else {
            out
        }
    }

    proptest::proptest! {
        /// Any UTF-16 text, lone surrogates and all, reads after the repair as its
        /// well-formed form (each lone surrogate U+FFFD), and a line with none is left as
        /// it is.
        #[test]
        fn any_utf16_reads_as_its_well_formed_form(
            units in proptest::collection::vec(
                proptest::prop_oneof![
                    0xD7F0u16..0xE010,
                    0x0000u16..0x0080,
                    proptest::strategy::Just(u16::from(b'\\')),
                    proptest::num::u16::ANY,
                ],
                0..24,
            ),
            escape_all: bool,
            upper: bool,
            long: bool,
        ) {
            // A long line (searched otherwise) is the same literal after blanks.
            let blanks = if long { SHORT } else { 0 };
            let line = format!("{}{}", " ".repeat(blanks), literal(&units, escape_all, upper));
            let expected = String::from_utf16_lossy(&units);
            let lone = char::decode_utf16(units.iter().copied()).filter(Result::is_err).count();
            match repair(line.as_bytes()) {
                None => {
                    proptest::prop_assert_eq!(lone, 0);
                    let read: String = serde_json::from_str(&line).unwrap_or_default();
                    proptest::prop_assert_eq!(read, expected);
                }
                Some(repaired) => {
                    proptest::prop_assert_eq!(repaired.replaced.len(), lone);
                    proptest::prop_assert_eq!(repaired.bytes.len(), line.len());
                    let read: Result<String, _> = serde_json::from_slice(&repaired.bytes);
                    proptest::prop_assert_eq!(read.ok(), Some(expected));
                }
            }
        }
    }

    #[test]
    fn the_repaired_line_reads_as_json() {
        let line = br#"{"content":"emoji cut \ud83d","pair":"\ud83d\ude00"}"#;
        assert!(serde_json::from_slice::<serde_json::Value>(line).is_err());
        let Some(repaired) = repair(line) else {
            panic!("nothing repaired")
        };
        let value: serde_json::Value = serde_json::from_slice(&repaired.bytes).unwrap_or_default();
        assert_eq!(value["content"], "emoji cut \u{FFFD}");
        assert_eq!(value["pair"], "\u{1F600}");
    }
}
