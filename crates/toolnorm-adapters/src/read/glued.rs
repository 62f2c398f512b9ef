//! Lines that hold more than one event: what concatenated logs and interrupted writes
//! leave behind.
//!
//! `cat a.jsonl b.jsonl`, when `a.jsonl` does not end with a newline, puts the last event
//! of one and the first of the other on one line; a writer killed in the middle of a line
//! leaves it cut short, and the next event appended to the file goes on after it. Either
//! line is not one JSON value, and reading it as one would lose every event on it. Such a
//! line is read as the JSON objects it holds, each on its own, after the cut-off start if
//! there is one.

use serde::de::IgnoredAny;

/// What a line that is not one JSON value holds.
#[derive(Debug, PartialEq, Eq)]
pub struct Glued<'a> {
    /// The bytes at the start that are no whole JSON object (a line cut short), 0 for
    /// none.
    pub skipped: usize,
    /// The JSON objects after them, one after the other, each with its own bytes.
    pub objects: Vec<&'a [u8]>,
}

/// How many places a cut-off line is tried from, at most: a line is read again only
/// this many times, however many objects start in it.
const TRIED: usize = 16;

/// The JSON objects `line` holds, when it does not read as one JSON value: two or more
/// from its start, or one or more after a cut-off start (from the first `{"` after the
/// start that begins a run of whole objects to the end, among the first [`TRIED`]).
/// `None` when it holds nothing of the sort.
pub fn split(line: &[u8]) -> Option<Glued<'_>> {
    if let Some(objects) = objects(line).filter(|objects| objects.len() >= 2) {
        return Some(Glued {
            skipped: 0,
            objects,
        });
    }
    memchr::memmem::find_iter(line, b"{\"")
        .filter(|&at| at > 0)
        .take(TRIED)
        .find_map(|at| {
            let objects = objects(line.get(at..)?)?;
            Some(Glued {
                skipped: at,
                objects,
            })
        })
}

/// `text` as a run of whole JSON objects (blanks between them), to its end; `None` when
/// it is not one.
fn objects(text: &[u8]) -> Option<Vec<&[u8]>> {
    let mut stream = serde_json::Deserializer::from_slice(text).into_iter::<IgnoredAny>();
    let mut objects = Vec::new();
    let mut start = 0;
    while let Some(value) = stream.next() {
        value.ok()?;
        let end = stream.byte_offset();
        let object = text.get(start..end)?.trim_ascii_start();
        if !object.starts_with(b"{") {
            return None;
        }
        objects.push(object);
        start = end;
    }
    (!objects.is_empty()).then_some(objects)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(glued: Glued<'_>) -> (usize, Vec<String>) {
        let objects = glued
            .objects
            .iter()
            .map(|object| String::from_utf8_lossy(object).into_owned())
            .collect();
        (glued.skipped, objects)
    }

    #[test]
    fn whole_objects_one_after_the_other() {
        let line = br#"{"a":1}{"b":{"c":[1,2]}} {"d":"}{"}"#;
        assert_eq!(
            split(line).map(texts),
            Some((
                0,
                vec![
                    r#"{"a":1}"#.to_owned(),
                    r#"{"b":{"c":[1,2]}}"#.to_owned(),
                    r#"{"d":"}{"}"#.to_owned()
                ]
            ))
        );
    }

    #[test]
    fn a_cut_off_start_is_skipped() {
        let line = br#"{"type":"assistant","message":{"content":[{"type":"te{"type":"system","n":{"x":1}}"#;
        let (skipped, objects) = split(line).map(texts).unwrap_or_default();
        assert_eq!(
            &line[..skipped],
            br#"{"type":"assistant","message":{"content":[{"type":"te"#
        );
        assert_eq!(objects, [r#"{"type":"system","n":{"x":1}}"#]);
        // The start cut off, then two whole ones.
        let line = br#"{"a":"cu{"b":1}{"c":2}"#;
        assert_eq!(
            split(line).map(texts),
            Some((8, vec![r#"{"b":1}"#.to_owned(), r#"{"c":2}"#.to_owned()]))
        );
    }

    #[test]
    fn nothing_to_split() {
        for line in [
            &br#"{"a":1}"#[..],
            br#"{"a":1} "#,
            br#"{"a":"cut"#,
            br#"{"a":1}[1]"#,
            br#"[1]{"a":1"#,
            b"not json",
            b"",
            br#"{"a":1}{"b":"#,
        ] {
            assert_eq!(split(line), None, "{}", String::from_utf8_lossy(line));
        }
    }
}
