//! [`Cutter`]: a long JSON line read as a stream, each over-long string kept to its start.
//!
//! A byte-level scanner that follows strings and their escapes and copies the line
//! through, except that of any string longer than the bound it keeps only the first
//! `keep` decoded bytes, cut between two characters (never inside a UTF-8 sequence, an
//! escape or a surrogate pair), and closes it, so a valid line stays valid JSON, and
//! small. Each string cut is recorded ([`Cut`]): its full decoded size and the end of
//! what was kept, to find it again in the events made from the line. What was dropped is
//! still checked: a control character, bad UTF-8 or a bad escape in it makes the cut
//! string invalid too, so a line that was not JSON is still not JSON once cut.

/// How many decoded bytes of the end of a kept text are remembered to find it again.
const TAIL: usize = 64;

/// A string the [`Cutter`] cut short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The last (up to 64) bytes of the text kept, decoded.
    pub tail: String,
    /// Decoded bytes kept.
    pub kept: u64,
    /// Decoded bytes of the whole string.
    pub total: u64,
}

impl Cut {
    /// The decoded bytes that were dropped.
    pub fn dropped(&self) -> u64 {
        self.total.saturating_sub(self.kept)
    }
}

/// Where the scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Between values (or in a number, a literal, whitespace): bytes pass through.
    Outside,
    /// In a string.
    InString,
}

/// Copies a JSON line through, keeping at most `keep` decoded bytes of each string.
#[derive(Debug)]
pub struct Cutter {
    keep: u64,
    place: Place,
    /// The bytes of the character or escape being read (at most a surrogate pair).
    unit: [u8; 12],
    unit_len: usize,
    /// Where the current string's content starts in the output.
    start: usize,
    /// Decoded bytes of the current string kept, and seen in all.
    kept: u64,
    total: u64,
    /// The current string is past `keep`: its bytes are counted, not copied.
    dropping: bool,
    /// Something invalid was dropped from the current string.
    invalid: bool,
    cuts: Vec<Cut>,
}

impl Cutter {
    /// A cutter that keeps `keep` decoded bytes of each string.
    pub fn new(keep: usize) -> Self {
        Cutter {
            keep: keep as u64,
            place: Place::Outside,
            unit: [0; 12],
            unit_len: 0,
            start: 0,
            kept: 0,
            total: 0,
            dropping: false,
            invalid: false,
            cuts: Vec::new(),
        }
    }

    /// Reads `input`, the next bytes of the line, appending what is kept to `out`.
    pub fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
        while !input.is_empty() {
            // Runs of bytes that need no look, copied or counted at once.
            let run = match self.place {
                Place::Outside => memchr::memchr(b'"', input).unwrap_or(input.len()),
                Place::InString if self.unit_len == 0 => input
                    .iter()
                    .position(|&byte| !is_plain(byte))
                    .unwrap_or(input.len()),
                Place::InString => 0,
            };
            let (head, rest) = input.split_at(run);
            match self.place {
                Place::Outside => out.extend_from_slice(head),
                Place::InString => self.plain(head, out),
            }
            let Some((&byte, rest)) = rest.split_first() else {
                break;
            };
            self.byte(byte, out);
            input = rest;
        }
    }

    /// Plain ASCII of a string: kept while it fits, then counted.
    fn plain(&mut self, run: &[u8], out: &mut Vec<u8>) {
        let len = run.len() as u64;
        self.total = self.total.saturating_add(len);
        if self.dropping {
            return;
        }
        let room = self.keep.saturating_sub(self.kept);
        let fits = usize::try_from(room.min(len)).unwrap_or(run.len());
        out.extend_from_slice(run.get(..fits).unwrap_or(run));
        self.kept += fits as u64;
        if fits < run.len() {
            self.dropping = true;
        }
    }

    /// Ends the line: what was cut. A string still open (the line ends inside it) is left
    /// open, so the line stays as broken as it was.
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Vec<Cut> {
        if self.place == Place::InString && !self.dropping {
            let unit = self.unit;
            out.extend_from_slice(unit.get(..self.unit_len).unwrap_or_default());
        }
        self.unit_len = 0;
        self.place = Place::Outside;
        std::mem::take(&mut self.cuts)
    }

    fn byte(&mut self, byte: u8, out: &mut Vec<u8>) {
        match self.place {
            Place::Outside => {
                out.push(byte);
                if byte == b'"' {
                    self.place = Place::InString;
                    self.start = out.len();
                    self.kept = 0;
                    self.total = 0;
                    self.dropping = false;
                    self.invalid = false;
                }
            }
            Place::InString if self.unit_len == 0 => self.first(byte, out),
            Place::InString => self.more(byte, out),
        }
    }

    /// A byte that starts a character, an escape, or ends the string.
    fn first(&mut self, byte: u8, out: &mut Vec<u8>) {
        match byte {
            b'"' => self.close(out),
            b'\\' => self.begin(byte),
            0x20..=0x7f => self.unit_done(&[byte], 1, true, out),
            0xc2..=0xf4 => self.begin(byte),
            // A control character or a byte no UTF-8 character starts with.
            _ => self.unit_done(&[byte], 1, false, out),
        }
    }

    fn begin(&mut self, byte: u8) {
        self.unit[0] = byte;
        self.unit_len = 1;
    }

    /// The next byte of the unit being read.
    fn more(&mut self, byte: u8, out: &mut Vec<u8>) {
        if self.unit[0] == b'\\' {
            self.more_escape(byte, out);
        } else {
            self.more_utf8(byte, out);
        }
    }

    /// The next byte of an escape: `\x` (2 bytes), `\uXXXX` (6), or a surrogate pair
    /// `\uD8xx\uDCxx` (12).
    fn more_escape(&mut self, byte: u8, out: &mut Vec<u8>) {
        let at = self.unit_len;
        let fits = match at {
            1 => true,
            6 => byte == b'\\',
            7 => byte == b'u',
            _ => byte.is_ascii_hexdigit(),
        };
        if !fits {
            return self.broken_escape(byte, out);
        }
        if let Some(slot) = self.unit.get_mut(at) {
            *slot = byte;
        }
        self.unit_len += 1;
        match self.unit_len {
            2 => match byte {
                b'u' => {}
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.flush(1, true, out),
                // JSON has no such escape.
                _ => self.flush(1, false, out),
            },
            6 => {
                let code = hex4(&self.unit[2..6]);
                // A high surrogate waits for its low half.
                if !(0xd800..0xdc00).contains(&code) {
                    self.flush(utf8_len(code), true, out);
                }
            }
            12 => {
                if (0xdc00..0xe000).contains(&hex4(&self.unit[8..12])) {
                    self.flush(4, true, out);
                } else {
                    self.lone_surrogate(&[], out);
                }
            }
            _ => {}
        }
    }

    /// An escape that cannot go on with `byte`. After a high surrogate, the surrogate is
    /// one unit (lone: a string read as text rejects it, one skipped does not), and what
    /// followed it is read afresh; before, the escape is bad (JSON rejects it) and `byte`
    /// is read afresh.
    fn broken_escape(&mut self, byte: u8, out: &mut Vec<u8>) {
        if self.unit_len >= 6 {
            self.lone_surrogate(&[byte], out);
        } else {
            self.flush(1, false, out);
            self.byte(byte, out);
        }
    }

    /// Keeps the high surrogate read as a unit of its own; the bytes read after it, then
    /// `then`, are read afresh.
    fn lone_surrogate(&mut self, then: &[u8], out: &mut Vec<u8>) {
        let unit = self.unit;
        let after = unit.get(6..self.unit_len).unwrap_or_default();
        self.unit_len = 6;
        self.flush(3, true, out);
        for &byte in after.iter().chain(then) {
            self.byte(byte, out);
        }
    }

    fn more_utf8(&mut self, byte: u8, out: &mut Vec<u8>) {
        let lead = self.unit[0];
        let need = match lead {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            _ => 4,
        };
        if !(0x80..=0xbf).contains(&byte) {
            // A sequence cut short: it is invalid; the byte starts what follows.
            let len = self.unit_len;
            self.flush(len as u64, false, out);
            return self.byte(byte, out);
        }
        if let Some(slot) = self.unit.get_mut(self.unit_len) {
            *slot = byte;
        }
        self.unit_len += 1;
        if self.unit_len == need {
            let valid = std::str::from_utf8(self.unit.get(..need).unwrap_or_default()).is_ok();
            self.flush(need as u64, valid, out);
        }
    }

    /// The unit read is whole: `decoded` bytes once decoded, `valid` JSON or not.
    fn flush(&mut self, decoded: u64, valid: bool, out: &mut Vec<u8>) {
        let unit = self.unit;
        let len = self.unit_len;
        self.unit_len = 0;
        self.unit_done(unit.get(..len).unwrap_or_default(), decoded, valid, out);
    }

    /// Keeps a whole unit while it fits, else counts it.
    fn unit_done(&mut self, bytes: &[u8], decoded: u64, valid: bool, out: &mut Vec<u8>) {
        self.total = self.total.saturating_add(decoded);
        if !self.dropping && self.kept.saturating_add(decoded) <= self.keep {
            self.kept += decoded;
            out.extend_from_slice(bytes);
            return;
        }
        self.dropping = true;
        if !valid {
            self.invalid = true;
        }
    }

    /// The closing quote: a cut string is recorded (and marked invalid when what was
    /// dropped was).
    fn close(&mut self, out: &mut Vec<u8>) {
        self.place = Place::Outside;
        if !self.dropping {
            out.push(b'"');
            return;
        }
        let tail = tail_of(out.get(self.start..).unwrap_or_default());
        if self.invalid {
            // A raw control character: JSON rejects the string, as it did the original.
            out.push(0x01);
        }
        out.push(b'"');
        self.cuts.push(Cut {
            tail,
            kept: self.kept,
            total: self.total,
        });
    }
}

/// A string byte that is a character of its own and needs no escape.
fn is_plain(byte: u8) -> bool {
    (0x20..0x80).contains(&byte) && byte != b'"' && byte != b'\\'
}

/// The value of four hex digits (0 when they are not).
fn hex4(digits: &[u8]) -> u32 {
    std::str::from_utf8(digits)
        .ok()
        .and_then(|text| u32::from_str_radix(text, 16).ok())
        .unwrap_or(0)
}

/// The UTF-8 length of a code point below U+10000 (a lone surrogate counts as 3).
fn utf8_len(code: u32) -> u64 {
    match code {
        0..0x80 => 1,
        0x80..0x800 => 2,
        _ => 3,
    }
}

/// The last [`TAIL`] bytes (at most, on a character boundary) of the decoded `content`,
/// the raw content of a JSON string; empty when it does not decode.
fn tail_of(content: &[u8]) -> String {
    // The last bytes are enough: start a little before the tail, at a unit boundary.
    let mut quoted = Vec::with_capacity(content.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(content);
    quoted.push(b'"');
    let Ok(text) = serde_json::from_slice::<String>(&quoted) else {
        return String::new();
    };
    let from = text.ceil_char_boundary(text.len().saturating_sub(TAIL));
    text.get(from..).unwrap_or_default().to_owned()
}

#[cfg(test)]
#[path = "cut_tests.rs"]
mod tests;
