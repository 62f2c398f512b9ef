//! Whether a JSON text is exactly what `serde_json` writes for the value it holds, so
//! that writing the text again gives the same bytes as parsing and writing the value.
//!
//! `serde_json` writes no whitespace, escapes only `"`, `\` and the control characters
//! (`\b \f \n \r \t`, the others as `\u00xx` in lowercase), writes integers as they are,
//! keeps an object's first key position and its last value (so duplicate keys do not
//! survive), and writes floats in its own shortest form. A text that differs only by
//! whitespace between tokens (pretty-printed JSON, Python's default separators) is
//! canonical once that whitespace is taken out ([`compact`]). A text with anything else
//! is not canonical and is parsed instead; so is a float (its shortest form is not checked
//! here) and a text nested deeper than [`MAX_DEPTH`], which the parse then bounds as usual.

/// Nesting deeper than this is parsed, so the parser's recursion limit applies to it.
pub(super) const MAX_DEPTH: usize = 100;

/// How a valid JSON text stands against what `serde_json` writes for its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// Exactly what `serde_json` writes.
    Canonical,
    /// What `serde_json` writes once the whitespace between tokens is taken out.
    Spaced,
    /// Anything else (or in doubt): to be parsed.
    Other,
}

/// How `text`, a valid JSON text, stands (module docs). Any doubt says [`Form::Other`].
pub(super) fn form(text: &str) -> Form {
    let mut scan = Scan {
        bytes: text.as_bytes(),
        at: 0,
        keys: Vec::new(),
        objects: Vec::new(),
        depth: 0,
        spaced: false,
    };
    match (scan.run(), scan.spaced) {
        (true, false) => Form::Canonical,
        (true, true) => Form::Spaced,
        (false, _) => Form::Other,
    }
}

/// Whether `text` is exactly what `serde_json` writes for its value.
#[cfg(test)]
pub(super) fn is_canonical(text: &str) -> bool {
    form(text) == Form::Canonical
}

/// `text` without the whitespace between its tokens (strings kept as they are).
pub(super) fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for char in text.chars() {
        if in_string {
            out.push(char);
            match char {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if !matches!(char, ' ' | '\t' | '\n' | '\r') {
            in_string = char == '"';
            out.push(char);
        }
    }
    out
}

/// A scan over the text: the position, the keys of the objects open around it, and where
/// each open object's keys begin in `keys`.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
    keys: Vec<&'a [u8]>,
    objects: Vec<usize>,
    depth: usize,
    /// Whether whitespace was found between tokens.
    spaced: bool,
}

impl<'a> Scan<'a> {
    fn run(&mut self) -> bool {
        self.space();
        let valid = self.value();
        self.space();
        valid && self.at == self.bytes.len()
    }

    /// Steps over whitespace between tokens, noting it.
    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
            self.spaced = true;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let ate = self.peek() == Some(byte);
        self.at += usize::from(ate);
        ate
    }

    fn value(&mut self) -> bool {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().is_some(),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.integer(),
            _ => false,
        }
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        let end = self.at + word.len();
        let matches = self.bytes.get(self.at..end) == Some(word);
        self.at = end;
        matches
    }

    /// An integer `serde_json` reads as one and writes back the same: no fraction or
    /// exponent, no `-0` (read as a float), inside `i64` or `u64`.
    fn integer(&mut self) -> bool {
        let start = self.at;
        let negative = self.eat(b'-');
        let digits = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return false;
        }
        let (Some(number), Some(digits)) = (
            self.bytes.get(start..self.at),
            self.bytes.get(digits..self.at),
        ) else {
            return false;
        };
        match digits {
            [] => false,
            [b'0'] => !negative,
            [b'0', ..] => false,
            _ if digits.len() < 19 => true,
            _ => {
                let number = std::str::from_utf8(number).unwrap_or("");
                if negative {
                    number.parse::<i64>().is_ok()
                } else {
                    number.parse::<u64>().is_ok()
                }
            }
        }
    }

    /// A string with only the escapes `serde_json` writes; gives its text as written.
    /// The text is valid JSON, so no raw control character is inside a string: the scan
    /// jumps from one quote or backslash to the next.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.at + 1;
        self.at = start;
        loop {
            self.at += memchr::memchr2(b'"', b'\\', self.bytes.get(self.at..)?)?;
            if self.bytes.get(self.at) == Some(&b'"') {
                let text = self.bytes.get(start..self.at);
                self.at += 1;
                return text;
            }
            let escaped = *self.bytes.get(self.at + 1)?;
            self.at += 2;
            match escaped {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                b'u' => {
                    let code = self.bytes.get(self.at..self.at + 4)?;
                    self.at += 4;
                    if !control_escape(code) {
                        return None;
                    }
                }
                _ => return None,
            }
        }
    }

    fn enter(&mut self) -> bool {
        self.at += 1;
        self.depth += 1;
        self.depth <= MAX_DEPTH
    }

    fn array(&mut self) -> bool {
        if !self.enter() {
            return false;
        }
        let valid = self.items(b']', Self::value);
        self.depth -= 1;
        valid
    }

    /// The items of an array or the entries of an object, each read by `item`, separated
    /// by commas, up to `close`.
    fn items(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> bool) -> bool {
        self.space();
        if self.eat(close) {
            return true;
        }
        loop {
            self.space();
            if !item(self) {
                return false;
            }
            self.space();
            if self.eat(close) {
                return true;
            }
            if !self.eat(b',') {
                return false;
            }
        }
    }

    fn object(&mut self) -> bool {
        if !self.enter() {
            return false;
        }
        self.objects.push(self.keys.len());
        if !self.items(b'}', Self::entry) {
            return false;
        }
        let first = self.objects.pop().unwrap_or(0);
        let unique = self.keys.get(first..).is_some_and(all_different);
        self.keys.truncate(first);
        self.depth -= 1;
        unique
    }

    /// One entry of an object: its key (noted, to find a repeated one), `:`, its value.
    fn entry(&mut self) -> bool {
        if self.peek() != Some(b'"') {
            return false;
        }
        let Some(key) = self.string() else {
            return false;
        };
        self.keys.push(key);
        self.space();
        if !self.eat(b':') {
            return false;
        }
        self.space();
        self.value()
    }
}

/// Whether `\u` followed by `code` is how `serde_json` writes a character: a control
/// character without a short escape, in lowercase hex.
fn control_escape(code: &[u8]) -> bool {
    match code {
        [
            b'0',
            b'0',
            high @ (b'0' | b'1'),
            low @ (b'0'..=b'9' | b'a'..=b'f'),
        ] => {
            let low = if low.is_ascii_digit() {
                low - b'0'
            } else {
                low - b'a' + 10
            };
            let byte = (high - b'0') * 16 + low;
            !matches!(byte, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d)
        }
        _ => false,
    }
}

/// Whether no two keys are the same text (canonical escapes make equal keys equal text).
fn all_different(keys: &[&[u8]]) -> bool {
    if keys.len() <= 16 {
        return keys
            .iter()
            .enumerate()
            .all(|(index, key)| !keys.iter().skip(index + 1).any(|other| other == key));
    }
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).all(|pair| pair.first() != pair.get(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What the module promises: canonical exactly when serde_json writes the same text.
    fn written_again(text: &str) -> bool {
        let value: Value = serde_json::from_str(text).unwrap();
        serde_json::to_string(&value).unwrap() == text
    }

    #[test]
    fn canonical_texts_are_what_serde_json_writes() {
        let texts = [
            r#"{"command":"ls -la","timeout":120000,"nested":{"a":[1,-2,true,false,null]}}"#,
            r#""tab\there \"quoted\" back\\slash \u001f é ✓ 🦀""#,
            r#"[]"#,
            r#"{}"#,
            r#"0"#,
            r#"-9223372036854775808"#,
            r#"18446744073709551615"#,
            r#"{"a":{"a":{"a":1}}}"#,
            "\"\u{7f}\"",
        ];
        for text in texts {
            assert!(is_canonical(text), "{text}");
            assert!(written_again(text), "{text}");
        }
    }

    #[test]
    fn texts_serde_json_writes_differently_are_not_canonical() {
        let texts = [
            r#""\/""#,
            r#""\u0041""#,
            r#""\u000A""#,
            r#""\u000a""#,
            r#""\u0008""#,
            r#"1e3"#,
            r#"1.50"#,
            r#"-0"#,
            r#"18446744073709551616"#,
            r#"-9223372036854775809"#,
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":3}"#,
        ];
        for text in texts {
            assert!(!is_canonical(text), "{text}");
            assert!(!written_again(text), "{text}");
        }
    }

    #[test]
    fn whitespace_between_tokens_is_taken_out() {
        let value = serde_json::json!({"a": [1, {"b": "x y\n\"q\" \\"}], "c": null, "d": {}});
        for text in [
            serde_json::to_string_pretty(&value).unwrap(),
            r#" { "a" : [ 1 , { "b" : "x y\n\"q\" \\" } ] , "c" : null , "d" : { } } "#.to_owned(),
            "{\r\n\t\"a\": [1, {\"b\": \"x y\\n\\\"q\\\" \\\\\"}], \"c\": null, \"d\": {}}"
                .to_owned(),
        ] {
            assert_eq!(form(&text), Form::Spaced, "{text}");
            assert_eq!(
                compact(&text),
                serde_json::to_string(&value).unwrap(),
                "{text}"
            );
        }
        assert_eq!(form(r#"{"a": 1.5}"#), Form::Other);
        assert_eq!(form(r#"{"a": 1, "a": 2}"#), Form::Other);
    }

    #[test]
    fn floats_are_parsed_even_when_written_the_same() {
        for text in ["1.0", "1.5", "[0.1]"] {
            assert!(!is_canonical(text), "{text}");
        }
    }

    #[test]
    fn keys_repeat_across_objects_but_not_within_one() {
        assert!(is_canonical(r#"{"a":{"a":1},"b":{"a":2}}"#));
        assert!(!is_canonical(r#"{"a":{"b":1,"b":2}}"#));
    }

    #[test]
    fn deep_nesting_is_left_to_the_parser() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(!is_canonical(&deep));
        let shallow = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(is_canonical(&shallow));
    }
}
