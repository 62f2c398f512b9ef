//! The event log as JSON Lines: one [`ToolEvent`] per line.
//!
//! Input may arrive in chunks cut anywhere, even inside a UTF-8 character:
//! [`LineSplitter`] reassembles lines and numbers them, and [`EventLogDecoder`] turns
//! them into events. Blank lines carry nothing and are skipped. A last line without a
//! newline is still read; if it is not a whole event it is reported as truncated.

use std::io::{BufRead, Write};

use crate::error::Error;
use crate::event::ToolEvent;
use crate::fold::{Replay, Replaying};

/// The most buffer a splitter keeps between lines; after a longer line, the buffer is
/// given back, so one huge line does not hold its memory for the rest of a stream.
const KEPT_CAPACITY: usize = 1 << 20;

/// Splits a byte stream fed in arbitrary chunks into numbered lines.
#[derive(Debug, Default)]
pub struct LineSplitter {
    pending: Vec<u8>,
    line: u64,
}

impl LineSplitter {
    /// A splitter at line 1.
    pub fn new() -> Self {
        LineSplitter::default()
    }

    /// Feeds a chunk; calls `on_line(line_number, bytes)` for every line it completes
    /// (without the `\n`, and without a `\r` before it).
    pub fn push(&mut self, mut chunk: &[u8], mut on_line: impl FnMut(u64, &[u8])) {
        while let Some(newline) = memchr::memchr(b'\n', chunk) {
            let (head, rest) = chunk.split_at(newline);
            self.line += 1;
            if self.pending.is_empty() {
                on_line(self.line, trim_cr(head));
            } else {
                self.pending.extend_from_slice(head);
                on_line(self.line, trim_cr(&self.pending));
                self.forget_pending();
            }
            chunk = rest.get(1..).unwrap_or_default();
        }
        self.pending.extend_from_slice(chunk);
    }

    /// Ends the input; calls `on_line` for a last line that had no newline.
    /// Returns whether there was such a line.
    pub fn finish(&mut self, mut on_line: impl FnMut(u64, &[u8])) -> bool {
        if self.pending.is_empty() {
            return false;
        }
        self.line += 1;
        on_line(self.line, trim_cr(&self.pending));
        self.forget_pending();
        true
    }

    fn forget_pending(&mut self) {
        if self.pending.capacity() > KEPT_CAPACITY {
            self.pending = Vec::new();
        } else {
            self.pending.clear();
        }
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Decodes one event-log line. Blank lines give `Ok(None)`.
pub fn decode_line(line: u64, bytes: &[u8]) -> Result<Option<ToolEvent>, Error> {
    if is_blank(bytes) {
        return Ok(None);
    }
    serde_json::from_slice(bytes)
        .map(Some)
        .map_err(|source| Error::InvalidLine { line, source })
}

/// Turns a chunked event log into events, reporting bad lines by number.
///
/// Chunks may be cut anywhere, even inside a character; a bad line is reported and
/// decoding goes on.
///
/// ```
/// use toolnorm::{Error, EventLogDecoder, Fold, ToolEvent, ToolState};
///
/// let log = concat!(
///     r#"{"type":"toolCallStarted","id":"c1","name":"Bash","kind":"bash","title":"ls"}"#, "\n",
///     "not an event\n",
///     r#"{"type":"toolCallRunning","id":"c1"}"#, "\n",
/// );
/// let mut decoder = EventLogDecoder::new();
/// let mut fold = Fold::new();
/// let mut bad_lines = Vec::new();
/// let mut on_event = |result: Result<ToolEvent, Error>| match result {
///     Ok(event) => drop(fold.apply(event)),
///     Err(error) => bad_lines.push(error.line()),
/// };
/// for chunk in log.as_bytes().chunks(7) {
///     decoder.push(chunk, &mut on_event);
/// }
/// decoder.finish(&mut on_event);
/// assert_eq!(bad_lines, [Some(2)]);
/// assert_eq!(fold.get("c1").map(|call| call.state()), Some(ToolState::Running));
/// ```
#[derive(Debug, Default)]
pub struct EventLogDecoder {
    lines: LineSplitter,
}

impl EventLogDecoder {
    /// A decoder at line 1.
    pub fn new() -> Self {
        EventLogDecoder::default()
    }

    /// Feeds a chunk; calls `on_event` for each complete line that holds anything.
    pub fn push(&mut self, chunk: &[u8], mut on_event: impl FnMut(Result<ToolEvent, Error>)) {
        self.lines.push(chunk, |line, bytes| {
            if let Some(result) = decode_line(line, bytes).transpose() {
                on_event(result);
            }
        });
    }

    /// Ends the input, decoding a last line that had no newline.
    pub fn finish(&mut self, mut on_event: impl FnMut(Result<ToolEvent, Error>)) {
        self.lines.finish(|line, bytes| {
            let result = decode_line(line, bytes).map_err(|error| match error {
                Error::InvalidLine { line, source } if source.is_eof() => {
                    Error::TruncatedLine { line, source }
                }
                other => other,
            });
            if let Some(result) = result.transpose() {
                on_event(result);
            }
        });
    }
}

/// Folds an event log read from `reader` (streamed; never read whole): [`replay`](crate::replay)
/// for JSON Lines, with the lines that are not events among the diagnostics.
///
/// ```
/// use toolnorm::{ToolState, replay_log};
///
/// let log = concat!(
///     r#"{"type":"toolCallStarted","id":"c1","name":"Bash","kind":"bash","title":"ls"}"#, "\n",
///     r#"{"type":"toolCallFailed","id":"c1","error":{"message":"exit 2","code":"exit_code"}}"#, "\n",
///     r#"{"type":"toolCallStart"#,
/// );
/// let replayed = replay_log(log.as_bytes());
/// assert_eq!(replayed.parts[0].state, ToolState::Error);
/// assert_eq!(replayed.diagnostics[0].line(), Some(3), "the cut last line");
/// ```
pub fn replay_log(mut reader: impl BufRead) -> Replay {
    let mut replaying = Replaying::default();
    let mut decoder = EventLogDecoder::new();
    let mut apply = |result: Result<ToolEvent, Error>| replaying.feed(result);
    loop {
        let consumed = match reader.fill_buf() {
            Ok([]) => break,
            Ok(chunk) => {
                decoder.push(chunk, &mut apply);
                chunk.len()
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                apply(Err(Error::Io(error)));
                break;
            }
        };
        reader.consume(consumed);
    }
    decoder.finish(&mut apply);
    replaying.finish()
}

/// Writes events as JSON Lines.
pub fn write_log<'a>(
    mut writer: impl Write,
    events: impl IntoIterator<Item = &'a ToolEvent>,
) -> std::io::Result<()> {
    for event in events {
        serde_json::to_writer(&mut writer, event)?;
        writer.write_all(b"\n")?;
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_line_does_not_keep_its_buffer() {
        let mut splitter = LineSplitter::new();
        let huge = vec![b'x'; 3 * KEPT_CAPACITY];
        let mut seen = Vec::new();
        splitter.push(b"{", |_, _| {});
        splitter.push(&huge, |_, _| {});
        splitter.push(b"}\nnext", |line, bytes| seen.push((line, bytes.len())));
        assert_eq!(seen, [(1, huge.len() + 2)]);
        assert!(splitter.pending.capacity() <= KEPT_CAPACITY);
        splitter.push(b"\n", |line, bytes| seen.push((line, bytes.len())));
        assert_eq!(seen.last(), Some(&(2, 4)));
    }

    fn split(chunks: &[&[u8]]) -> Vec<(u64, String)> {
        let mut splitter = LineSplitter::new();
        let mut lines = Vec::new();
        for chunk in chunks {
            splitter.push(chunk, |n, bytes| {
                lines.push((n, String::from_utf8_lossy(bytes).into_owned()))
            });
        }
        splitter.finish(|n, bytes| lines.push((n, String::from_utf8_lossy(bytes).into_owned())));
        lines
    }

    #[test]
    fn lines_are_reassembled_across_chunks() {
        let whole = split(&[b"ab\ncd\r\n\nef"]);
        assert_eq!(
            whole,
            [
                (1, "ab".into()),
                (2, "cd".into()),
                (3, "".into()),
                (4, "ef".into())
            ]
        );
        assert_eq!(split(&[b"a", b"b\nc", b"d\r", b"\n", b"\ne", b"f"]), whole);
    }

    #[test]
    fn a_character_cut_between_chunks_survives() {
        let text = "é\n".as_bytes();
        assert_eq!(split(&[&text[..1], &text[1..]]), [(1, "é".into())]);
    }

    #[test]
    fn a_cut_last_line_is_reported_as_truncated() {
        let mut decoder = EventLogDecoder::new();
        let mut results = Vec::new();
        decoder.push(br#"{"type":"toolCallRunning","id":"a"}"#, |r| {
            results.push(r)
        });
        decoder.push(b"\n{\"type\":\"toolCallRun", |r| results.push(r));
        decoder.finish(|r| results.push(r));
        assert!(results[0].is_ok());
        let error = results[1].as_ref().unwrap_err();
        assert!(
            matches!(error, Error::TruncatedLine { line: 2, .. }),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .starts_with("line 2: the input ends in the middle of this line")
        );
    }

    #[test]
    fn a_bad_line_is_reported_and_reading_goes_on() {
        let log = b"not json\n\n{\"type\":\"toolCallStarted\",\"id\":\"a\",\"name\":\"Bash\",\"kind\":\"bash\",\"title\":\"ls\"}\n";
        let replay = replay_log(&log[..]);
        assert_eq!(replay.parts.len(), 1);
        assert_eq!(replay.diagnostics.len(), 1);
        assert_eq!(replay.diagnostics[0].line(), Some(1));
    }
}
