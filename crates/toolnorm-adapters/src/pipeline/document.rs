//! A JSON document written over several lines, read as one line.
//!
//! Some CLIs write a session as one indented JSON document rather than JSON lines
//! (`opencode export` prints `JSON.stringify(session, null, 2)`; an OpenHands trajectory
//! is an array, `json.dump(events, f, indent=4)`). Such a document opens with a line that
//! is `{` (or `[`) alone and closes with the first line that is `}` (or `]`) alone at the
//! margin; every line between is indented (a JSON string holds no newline, so a line
//! break always falls between tokens). The lines are joined, each without its
//! indentation, and read as one line numbered by the first; the others count as known.
//! A document that breaks off (a line at the margin that does not close it, or the end
//! of the input) was no document: its lines are read one by one, as they would have
//! been.

/// What the pipeline does with a line, given the document open (if any).
pub(super) enum Take {
    /// Not part of a document: read the line as it is.
    Line,
    /// Held: the document it belongs to is still open.
    Held,
    /// The line closed a document: read `joined` as line `first`; `inside` other
    /// lines were part of it.
    Closed {
        /// The document's first line.
        first: u64,
        /// Its lines joined.
        joined: Vec<u8>,
        /// How many of its lines are not read on their own (all but one).
        inside: u64,
    },
    /// The document broke off before this line: its lines, each to be read on its own,
    /// then this one.
    Broken(Vec<(u64, Vec<u8>)>),
}

/// The lines of the document being read, if one is open.
#[derive(Debug, Default)]
pub(super) struct Document {
    held: Vec<(u64, Vec<u8>)>,
    /// The line that closes the open document: `}` or `]`.
    closer: u8,
}

/// A line without the spaces, tabs and carriage return that end it.
fn trim_end(bytes: &[u8]) -> &[u8] {
    bytes.trim_ascii_end()
}

impl Document {
    /// Whether a document is open.
    pub(super) fn is_open(&self) -> bool {
        !self.held.is_empty()
    }

    /// Takes line `line`.
    pub(super) fn take(&mut self, line: u64, bytes: &[u8]) -> Take {
        if self.held.is_empty() {
            let closer = match trim_end(bytes) {
                b"{" => b'}',
                b"[" => b']',
                _ => return Take::Line,
            };
            self.closer = closer;
            self.held.push((line, bytes.to_vec()));
            return Take::Held;
        }
        if trim_end(bytes) == [self.closer] {
            let held = std::mem::take(&mut self.held);
            let first = held.first().map_or(line, |(first, _)| *first);
            let inside = held.len() as u64;
            let size = held.iter().map(|(_, bytes)| bytes.len()).sum::<usize>() + 1;
            let mut joined = Vec::with_capacity(size);
            for (_, bytes) in &held {
                joined.extend_from_slice(bytes.trim_ascii());
            }
            joined.push(self.closer);
            return Take::Closed {
                first,
                joined,
                inside,
            };
        }
        let indented = bytes.first().is_some_and(u8::is_ascii_whitespace);
        if indented || bytes.is_empty() {
            self.held.push((line, bytes.to_vec()));
            return Take::Held;
        }
        Take::Broken(std::mem::take(&mut self.held))
    }

    /// The lines of a document the input ended in, to be read one by one.
    pub(super) fn flush(&mut self) -> Vec<(u64, Vec<u8>)> {
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(document: &mut Document, lines: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        for (n, line) in lines.iter().enumerate() {
            match document.take(n as u64 + 1, line.as_bytes()) {
                Take::Line => out.push(format!("{}: {line}", n + 1)),
                Take::Held => {}
                Take::Closed {
                    first,
                    joined,
                    inside,
                } => out.push(format!(
                    "{first}+{inside}: {}",
                    String::from_utf8_lossy(&joined)
                )),
                Take::Broken(held) => {
                    for (n, bytes) in held {
                        out.push(format!("{n}: {}", String::from_utf8_lossy(&bytes)));
                    }
                    out.push(format!("{}: {line}", n + 1));
                }
            }
        }
        out
    }

    #[test]
    fn an_indented_document_is_one_line_numbered_by_its_first() {
        let mut document = Document::default();
        let out = feed(
            &mut document,
            &[
                r#"{"a":1}"#,
                "{",
                r#"  "info": {"#,
                r#"    "id": "s  p a c e d""#,
                "  },",
                "  \"messages\": []\r",
                "}",
                r#"{"b":2}"#,
            ],
        );
        assert_eq!(
            out,
            [
                r#"1: {"a":1}"#,
                r#"2+5: {"info": {"id": "s  p a c e d"},"messages": []}"#,
                r#"8: {"b":2}"#,
            ]
        );
        assert!(!document.is_open());
    }

    #[test]
    fn an_indented_array_is_one_line_closed_by_its_bracket() {
        let mut document = Document::default();
        let out = feed(
            &mut document,
            &["[", "    {", r#"        "id": 0"#, "    }", "]", "[]"],
        );
        assert_eq!(out, [r#"1+4: [{"id": 0}]"#, "6: []"]);
        assert!(!document.is_open());
    }

    #[test]
    fn a_document_that_breaks_off_is_read_line_by_line() {
        let mut document = Document::default();
        let out = feed(&mut document, &["{", "  \"a\": 1,", r#"{"b":2}"#]);
        assert_eq!(out, ["1: {", "2:   \"a\": 1,", r#"3: {"b":2}"#]);
        let out = feed(&mut document, &["{", "  \"a\": 1"]);
        assert!(out.is_empty());
        assert!(document.is_open());
        let held: Vec<u64> = document.flush().into_iter().map(|(n, _)| n).collect();
        assert_eq!(held, [1, 2]);
        assert!(!document.is_open());
    }
}
