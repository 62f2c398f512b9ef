//! [`Lines`]: a byte stream fed in arbitrary chunks split into numbered lines, a long
//! line read as a stream and cut when asked.
//!
//! As [`toolnorm::LineSplitter`] does, each line is handed over whole (without its `\n`,
//! and without a `\r` before it). When a line grows past [`LONG_LINE`] and strings are
//! to be cut, the rest of it is not kept as it comes: it goes through a [`Cutter`], so
//! what is held is the line with each over-long string kept to its start.

use std::sync::Arc;

use super::cut::{Cut, Cutter};

/// A line longer than this is read as a stream when strings are cut (1 MiB).
pub const LONG_LINE: usize = 1 << 20;

/// The most buffer kept between lines; after a longer line, the buffer is given back, so
/// one huge line does not hold its memory for the rest of a stream.
const KEPT_CAPACITY: usize = 1 << 20;

/// Splits a byte stream into numbered lines.
#[derive(Debug, Default)]
pub struct Lines {
    pending: Vec<u8>,
    line: u64,
    /// Decoded bytes kept of each string of a long line; `None` keeps lines whole.
    keep: Option<usize>,
    /// The cutter of the long line being read.
    cutter: Option<Cutter>,
}

impl Lines {
    /// A splitter at line 1 that keeps every line whole.
    pub fn new() -> Self {
        Lines::default()
    }

    /// A splitter at line 1 that keeps, of each string of a line longer than
    /// [`LONG_LINE`], its first `keep` decoded bytes.
    pub fn cutting(keep: usize) -> Self {
        Lines {
            keep: Some(keep),
            ..Lines::default()
        }
    }

    /// Feeds a chunk; calls `on_line(line_number, bytes, cuts)` for every line it
    /// completes, with the strings cut from it.
    pub fn push(&mut self, mut chunk: &[u8], mut on_line: impl FnMut(u64, &[u8], Vec<Cut>)) {
        while let Some(newline) = memchr::memchr(b'\n', chunk) {
            let (head, rest) = chunk.split_at(newline);
            self.line += 1;
            let whole = self.keep.is_none() || head.len() <= LONG_LINE;
            if self.pending.is_empty() && self.cutter.is_none() && whole {
                on_line(self.line, trim_cr(head), Vec::new());
            } else {
                self.append(head);
                let cuts = self.end_line();
                self.hand_over(cuts, &mut on_line);
            }
            chunk = rest.get(1..).unwrap_or_default();
        }
        self.append(chunk);
    }

    /// Ends the input; calls `on_line` for a last line that had no newline.
    pub fn finish(&mut self, mut on_line: impl FnMut(u64, &[u8], Vec<Cut>)) {
        if self.pending.is_empty() && self.cutter.is_none() {
            return;
        }
        self.line += 1;
        let cuts = self.end_line();
        self.hand_over(cuts, &mut on_line);
    }

    /// Hands the line gathered in `pending` to `on_line`. A line of [`LONG_LINE`] or more
    /// is handed over shared ([`toolnorm::read_sharing`]): a payload that is most of it
    /// is then held in the line rather than copied.
    fn hand_over(&mut self, cuts: Vec<Cut>, on_line: &mut impl FnMut(u64, &[u8], Vec<Cut>)) {
        let number = self.line;
        if self.pending.len() >= LONG_LINE {
            match String::from_utf8(std::mem::take(&mut self.pending)) {
                Ok(text) => {
                    let text = Arc::new(text);
                    toolnorm::read_sharing(&text, |line| {
                        on_line(number, trim_cr(line.as_bytes()), cuts)
                    });
                    return;
                }
                // Not UTF-8: read from the buffer as it is (the reader says what is wrong).
                Err(error) => self.pending = error.into_bytes(),
            }
        }
        on_line(number, trim_cr(&self.pending), cuts);
        self.forget_pending();
    }

    /// Adds bytes to the line being read: as they are, or through the cutter once the
    /// line is long.
    fn append(&mut self, bytes: &[u8]) {
        if let Some(cutter) = self.cutter.as_mut() {
            cutter.feed(bytes, &mut self.pending);
            return;
        }
        match self.keep {
            Some(keep) if self.pending.len().saturating_add(bytes.len()) > LONG_LINE => {
                // The line so far is read again from its start, through the cutter.
                let mut cutter = Cutter::new(keep);
                let read = std::mem::take(&mut self.pending);
                cutter.feed(&read, &mut self.pending);
                drop(read);
                cutter.feed(bytes, &mut self.pending);
                self.cutter = Some(cutter);
            }
            _ => self.pending.extend_from_slice(bytes),
        }
    }

    /// The strings cut from the line just read.
    fn end_line(&mut self) -> Vec<Cut> {
        match self.cutter.take() {
            Some(mut cutter) => cutter.finish(&mut self.pending),
            None => Vec::new(),
        }
    }

    fn forget_pending(&mut self) {
        if self.pending.capacity() > KEPT_CAPACITY {
            self.pending = Vec::new();
        } else {
            self.pending.clear();
        }
    }
}

pub(crate) fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(lines: &mut Lines, input: &[u8], chunk: usize) -> Vec<(u64, Vec<u8>, usize)> {
        let mut seen = Vec::new();
        for piece in input.chunks(chunk) {
            lines.push(piece, |line, bytes, cuts| {
                seen.push((line, bytes.to_vec(), cuts.len()))
            });
        }
        lines.finish(|line, bytes, cuts| seen.push((line, bytes.to_vec(), cuts.len())));
        seen
    }

    #[test]
    fn splits_lines_cut_anywhere() {
        let input = b"{\"a\":1}\r\n\n{\"b\":2}\nlast";
        for chunk in 1..input.len() {
            let seen = lines(&mut Lines::cutting(4), input, chunk);
            let texts: Vec<&[u8]> = seen.iter().map(|(_, bytes, _)| bytes.as_slice()).collect();
            assert_eq!(
                texts,
                [&b"{\"a\":1}"[..], b"", b"{\"b\":2}", b"last"],
                "chunk {chunk}"
            );
            assert_eq!(seen.last().map(|(line, ..)| *line), Some(4));
        }
    }

    #[test]
    fn cuts_only_long_lines_and_only_when_asked() {
        let long = format!(
            "{{\"big\":\"{}\",\"small\":\"abc\"}}",
            "é".repeat(LONG_LINE)
        );
        let input = format!("{{\"short\":\"{}\"}}\n{long}\n", "x".repeat(100));
        for chunk in [1 << 16, input.len()] {
            let whole = lines(&mut Lines::new(), input.as_bytes(), chunk);
            assert_eq!(whole[1].1, long.as_bytes(), "no cut without a cap");
            let cut = lines(&mut Lines::cutting(10), input.as_bytes(), chunk);
            assert_eq!(cut[0].1.len(), 112, "a short line is whole");
            assert_eq!(cut[1].1, r#"{"big":"ééééé","small":"abc"}"#.as_bytes());
            assert_eq!(cut[1].2, 1);
        }
    }
}
