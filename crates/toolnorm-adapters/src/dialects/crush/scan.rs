//! One scan of a Crush row: its columns, and each part's `data` read as the type its
//! `type` names, in one pass over the line.
//!
//! Read field by field, a message's parts are read three times: kept raw in the row, each
//! part's `data` kept raw in the part, and that data read as a call or a result. The scan
//! reads only the common shape: the parts a list, each part an object whose `type` (a
//! known part's, a call's or a result's) comes first and whose `data` comes once, and
//! every part reading. Anything else (the parts as their JSON text, a part of another
//! type, a part or a data that does not read, a line that is not JSON) makes the scan give
//! up before anything of the line is told, and the line is read field by field
//! ([`super::CrushAdapter`]), which says what is wrong with it: the scan changes how often
//! the bytes are read, never what a line means.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::parts::KNOWN;
use super::wire::{Row, ToolCall, ToolResult};
use crate::read::json::give_up;

/// The row read in one scan, or `None` when it is not of the shape the scan reads.
pub(super) fn scan(bytes: &[u8]) -> Option<Row<Scanned>> {
    crate::read::json::scan_line(bytes)
}

/// A message's parts, each read.
pub(super) struct Scanned(pub Vec<ScannedPart>);

/// A part, read.
pub(super) enum ScannedPart {
    /// A `tool_call` part's data.
    Call(ToolCall),
    /// A `tool_result` part's data.
    Result(ToolResult),
    /// A part that carries nothing about a call ([`KNOWN`]).
    Quiet,
}

impl<'de> Deserialize<'de> for Scanned {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(PartsVisitor)
    }
}

struct PartsVisitor;

impl<'de> Visitor<'de> for PartsVisitor {
    type Value = Scanned;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a list of parts")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scanned, A::Error> {
        // Room for a message's few parts at once (`Vec`'s own reading starts empty).
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(4));
        while let Some(part) = seq.next_element()? {
            parts.push(part);
        }
        Ok(Scanned(parts))
    }
}

impl<'de> Deserialize<'de> for ScannedPart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(PartVisitor)
    }
}

struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = ScannedPart;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a part, its type first")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ScannedPart, A::Error> {
        // A key with an escape does not borrow: the scan gives up.
        if map.next_key::<&'de str>()? != Some("type") {
            return Err(give_up());
        }
        let kind = map.next_value::<&'de str>()?;
        let mut read = None;
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "data" if read.is_none() => {
                    read = Some(match kind {
                        "tool_call" => ScannedPart::Call(map.next_value()?),
                        "tool_result" => ScannedPart::Result(map.next_value()?),
                        known if KNOWN.contains(&known) => {
                            map.next_value::<IgnoredAny>()?;
                            ScannedPart::Quiet
                        }
                        _ => return Err(give_up()),
                    });
                }
                // A key given twice is left to the field-by-field reading (it says so).
                "data" | "type" => return Err(give_up()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        read.ok_or_else(give_up)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dialect;
    use crate::dialects::claim_checks::fixtures;
    use crate::read::scan_check;

    #[test]
    fn the_sample_is_read_in_one_scan_as_field_by_field() {
        let text = std::fs::read(fixtures().join("crush/session.jsonl")).unwrap();
        let steps = scan_check::read_alike(Dialect::CRUSH, &text, "the sample");
        assert!(
            scan_check::told(&steps, "toolCallCompleted") > 3,
            "{steps:?}"
        );
        let scanned = text
            .split(|&byte| byte == b'\n')
            .filter(|line| scan(line).is_some_and(|row| row.parts.is_some()))
            .count();
        assert!(scanned > 10, "{scanned} messages read in one scan");
    }

    #[test]
    fn odd_rows_read_as_the_field_by_field_reading_reads_them() {
        let row = |parts: &str| {
            format!(
                r#"{{"id":"m","session_id":"s","role":"assistant","parts":{parts},"created_at":1764921601,"updated_at":1764921601}}"#
            )
        };
        let call = r#"{"type":"tool_call","data":{"id":"c1","name":"view","input":"{\"file_path\":\"a\"}","finished":true}}"#;
        let result = r#"{"type":"tool_result","data":{"tool_call_id":"c1","name":"view","content":"x","metadata":"{\"start_time\":1,\"end_time\":3}"}}"#;
        let lines = [
            row(&format!("[{call}]")),
            row(&format!("[{result}]")),
            row(&format!(r#"[{{"type":"text","data":{{"text":"hi"}}}},{call},{result}]"#)),
            // The data first, a key twice, a part of no or another type, data that does
            // not read, a part that is not an object: each left to the field-by-field
            // reading, which reads the other parts and tells what is wrong.
            row(r#"[{"data":{"id":"c2","name":"ls","finished":true},"type":"tool_call"}]"#),
            row(r#"[{"type":"tool_call","data":{"id":"c3","name":"ls"},"data":{"id":"c4"}}]"#),
            row(r#"[{"type":"tool_call","type":"text","data":{"id":"c5","name":"ls"}}]"#),
            row(r#"[{"type":"hologram","data":{"id":"c6","name":"ls"}}]"#),
            row(r#"[{"type":null,"data":{}},{"type":"tool_call","data":{"id":"c7"}}]"#),
            row(r#"[{"type":"tool_call","data":{"id":7}},{"type":"tool_call","data":{"id":"c8"}}]"#),
            row(r#"[{"type":"tool_call","data":null},{"type":"tool_call"}]"#),
            row(r#"[{"type":"text"},["tool_call",{"id":"c9","name":"ls"}],7]"#),
            row(r#"[{"type":"tool_result","data":{"tool_call_id":"c1","content":{"a":1}}}]"#),
            row(r#"[{"type":"tool_result","data":{"tool_call_id":"c10","is_error":true,"content":"no"}}]"#),
            row(r#"[{"\u0074ype":"tool_call","data":{"id":"c11","name":"ls"}}]"#),
            row(r#"[{"type":"tool_\u0063all","data":{"id":"c12","name":"ls"}}]"#),
            row(r#"[{"type":"tool_call","extra":[1,{"a":null}],"data":{"id":"c13","name":"ls","finished":false,"input":"{\"a\":"}}]"#),
            row(r#""[{\"type\":\"tool_call\",\"data\":{\"id\":\"c14\",\"name\":\"ls\"}}]""#),
            row(r#"{"type":"tool_call"}"#),
            row("null"),
            row("[]"),
            r#"{"id":"s2$$c1","parent_session_id":"s","title":"t","message_count":1,"prompt_tokens":1,"completion_tokens":1,"cost":0}"#.to_owned(),
            r#"{"id":"m2","session_id":"s","parts":[],"parts":[]}"#.to_owned(),
            r#"{"id":"m3","session_id":"s","role":"user","parts":[{"type":"text","data":{"text":"x"}}]"#.to_owned(),
            r#"{"hello":1}"#.to_owned(),
        ];
        let text = lines.join("\n");
        let steps = scan_check::read_alike(Dialect::CRUSH, text.as_bytes(), "the rows above");
        assert!(scan_check::told(&steps, "toolCallStarted") > 5, "{steps:?}");
    }

    #[test]
    fn the_common_rows_are_read_in_one_scan() {
        let line = br#"{"id":"m","session_id":"s","role":"assistant","parts":[{"type":"reasoning","data":{"thinking":"t"}},{"type":"tool_call","data":{"id":"c","name":"view","input":"{}","finished":true}},{"type":"finish","data":{"reason":"tool_use"}}],"created_at":1}"#;
        let parts = scan(line).and_then(|row| row.parts).unwrap().0;
        assert!(matches!(
            parts.as_slice(),
            [ScannedPart::Quiet, ScannedPart::Call(_), ScannedPart::Quiet]
        ));
        let line = br#"{"id":"m","session_id":"s","role":"assistant","parts":[{"data":{},"type":"text"}]}"#;
        assert!(scan(line).is_none());
    }
}
