//! The input's text encoding, told by its first bytes: UTF-8 (a byte order mark, if any,
//! left out) or UTF-16, which is read as the UTF-8 it stands for.
//!
//! Windows writes both: Windows PowerShell 5.1 redirects a command's output to a file as
//! UTF-16LE (`claude -p … > session.jsonl`), and several of its tools save UTF-8 with a
//! byte order mark. Without this, the first line of such a file would not read, and none
//! of a UTF-16 one would.

use encoding_rs::{Decoder, UTF_16BE, UTF_16LE};

/// The bytes looked at before the encoding is decided.
const SNIFFED: usize = 3;

/// The UTF-8 byte order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The input's bytes as UTF-8 text: passed through, or decoded from UTF-16.
pub(crate) struct Decoding {
    state: State,
}

impl Default for Decoding {
    fn default() -> Self {
        Decoding {
            state: State::Sniffing(Vec::new()),
        }
    }
}

enum State {
    /// The first bytes, until there are enough to tell.
    Sniffing(Vec<u8>),
    /// UTF-8 (or anything else): passed through.
    Utf8,
    /// UTF-16, decoded into `text`, a buffer reused for each chunk.
    Utf16 { decoder: Decoder, text: Vec<u8> },
}

impl Decoding {
    /// Gives `read` the UTF-8 text of `chunk`, the next bytes of the input (cut anywhere).
    pub fn push(&mut self, chunk: &[u8], read: impl FnMut(&[u8])) {
        match &mut self.state {
            State::Utf8 => pass(chunk, read),
            State::Utf16 { decoder, text } => decode(decoder, text, chunk, false, read),
            State::Sniffing(held) => {
                held.extend_from_slice(chunk);
                if held.len() >= SNIFFED {
                    let start = std::mem::take(held);
                    self.decide(start, false, read);
                }
            }
        }
    }

    /// The end of the input: what is left of it, as UTF-8 text.
    pub fn finish(&mut self, read: impl FnMut(&[u8])) {
        match &mut self.state {
            State::Utf8 => {}
            State::Utf16 { decoder, text } => decode(decoder, text, &[], true, read),
            State::Sniffing(held) => {
                let start = std::mem::take(held);
                self.decide(start, true, read);
            }
        }
    }

    /// Decides the encoding from the input's first bytes, `start`, and reads them.
    fn decide(&mut self, start: Vec<u8>, last: bool, read: impl FnMut(&[u8])) {
        let decoder = match start.as_slice() {
            [0xFF, 0xFE, ..] => Some(UTF_16LE.new_decoder_with_bom_removal()),
            [0xFE, 0xFF, ..] => Some(UTF_16BE.new_decoder_with_bom_removal()),
            // No mark, but a JSON text's first character with a zero byte after it (or
            // before it): UTF-16 of the ASCII that starts every event.
            [b'{' | b'[', 0, ..] => Some(UTF_16LE.new_decoder_without_bom_handling()),
            [0, b'{' | b'[', ..] => Some(UTF_16BE.new_decoder_without_bom_handling()),
            _ => None,
        };
        match decoder {
            Some(mut decoder) => {
                let mut text = Vec::new();
                decode(&mut decoder, &mut text, &start, last, read);
                self.state = State::Utf16 { decoder, text };
            }
            None => {
                self.state = State::Utf8;
                pass(start.strip_prefix(UTF8_BOM).unwrap_or(&start), read);
            }
        }
    }
}

/// Gives `read` the bytes, when there are any.
fn pass(bytes: &[u8], mut read: impl FnMut(&[u8])) {
    if !bytes.is_empty() {
        read(bytes);
    }
}

/// Decodes UTF-16 `bytes` into `text` and gives it to `read`. An unpaired surrogate or a
/// last odd byte becomes U+FFFD, as everywhere else toolnorm reads text.
fn decode(
    decoder: &mut Decoder,
    text: &mut Vec<u8>,
    bytes: &[u8],
    last: bool,
    read: impl FnMut(&[u8]),
) {
    // UTF-16 takes at most three UTF-8 bytes for two of its own, plus what the decoder
    // holds from the chunk before.
    let room = decoder
        .max_utf8_buffer_length(bytes.len())
        .unwrap_or(bytes.len().saturating_mul(2).saturating_add(16));
    text.clear();
    text.resize(room, 0);
    let (_, _, written, _) = decoder.decode_to_utf8(bytes, text, last);
    text.truncate(written);
    pass(text, read);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `input` cut into pieces of `size` bytes, read: the UTF-8 text given.
    fn read_in(input: &[u8], size: usize) -> Vec<u8> {
        let mut decoding = Decoding::default();
        let mut out = Vec::new();
        for piece in input.chunks(size.max(1)) {
            decoding.push(piece, |text| out.extend_from_slice(text));
        }
        decoding.finish(|text| out.extend_from_slice(text));
        out
    }

    fn utf16(text: &str, big_endian: bool, mark: bool) -> Vec<u8> {
        let mut bytes = Vec::new();
        let units = mark
            .then_some(0xFEFF)
            .into_iter()
            .chain(text.encode_utf16());
        for unit in units {
            match big_endian {
                true => bytes.extend_from_slice(&unit.to_be_bytes()),
                false => bytes.extend_from_slice(&unit.to_le_bytes()),
            }
        }
        bytes
    }

    const TEXT: &str = "{\"type\":\"system\",\"text\":\"héllo 😀\"}\n{\"type\":\"x\"}\n";

    #[test]
    fn utf16_of_either_order_with_or_without_a_mark_is_read_as_utf8() {
        for big_endian in [false, true] {
            for mark in [true, false] {
                let input = utf16(TEXT, big_endian, mark);
                for size in [1, 2, 3, 5, 64, 4096] {
                    assert_eq!(
                        read_in(&input, size),
                        TEXT.as_bytes(),
                        "big endian {big_endian}, mark {mark}, pieces of {size}"
                    );
                }
            }
        }
    }

    #[test]
    fn utf8_is_passed_through_without_its_mark() {
        for size in [1, 2, 3, 4, 4096] {
            assert_eq!(read_in(TEXT.as_bytes(), size), TEXT.as_bytes());
            let marked = [UTF8_BOM, TEXT.as_bytes()].concat();
            assert_eq!(read_in(&marked, size), TEXT.as_bytes());
        }
        // Shorter than what is looked at, and empty.
        assert_eq!(read_in(b"{}", 1), b"{}");
        assert_eq!(read_in(b"", 1), b"");
        assert_eq!(read_in(UTF8_BOM, 1), b"");
        // Not JSON, not a mark: as it is.
        assert_eq!(read_in(b"\xFF\x00\x01\x02", 1), b"\xFF\x00\x01\x02");
    }

    #[test]
    fn broken_utf16_reads_as_u_fffd() {
        // A high surrogate without its low half, then a last odd byte.
        let mut input = utf16("{\"a\":\"x", false, true);
        input.extend_from_slice(&0xD83Du16.to_le_bytes());
        input.extend_from_slice(&utf16("\"}", false, false));
        input.push(b'!');
        assert_eq!(
            String::from_utf8(read_in(&input, 3)).unwrap_or_default(),
            "{\"a\":\"x\u{FFFD}\"}\u{FFFD}"
        );
    }
}
