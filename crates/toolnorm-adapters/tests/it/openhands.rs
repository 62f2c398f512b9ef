//! OpenHands: a trajectory reads the same indented, as OpenHands saves it
//! (`json.dump(events, f, indent=4)`), as on one line, and as its events one a line, as
//! the file store keeps them (`events/<id>.json`, joined in the order of their ids).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde::Serialize;
use serde_json::Value;
use toolnorm::{NormalizedToolPart, ToolState};

use crate::common;

/// What a call came to: its id, name, kind, state and error code.
fn outcome(part: &NormalizedToolPart) -> (String, String, String, ToolState, Option<String>) {
    (
        part.id.clone(),
        part.name.clone(),
        part.kind.as_str().to_owned(),
        part.state,
        part.error
            .as_ref()
            .and_then(|error| error.code.as_ref())
            .map(|code| code.as_str().to_owned()),
    )
}

/// `value` as Python's `json.dump(value, f, indent=4)` writes it.
fn indented(value: &Value) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut serializer).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn a_trajectory_reads_the_same_indented_on_one_line_and_as_stored_events() {
    let mut seen = 0;
    for (path, line) in common::recordings("openhands") {
        let trajectory: Value = serde_json::from_str(&line).unwrap();
        let (whole, diagnostics) = common::normalize(line.as_bytes(), None);
        assert!(diagnostics.is_empty(), "{}: {diagnostics:?}", path);
        assert!(!whole.is_empty(), "{}", path);
        // As saved, with no newline at its end.
        let (pretty, diagnostics) = common::normalize(indented(&trajectory).as_bytes(), None);
        assert!(diagnostics.is_empty(), "{}: {diagnostics:?}", path);
        // As stored, one event a line.
        let events: String = trajectory
            .as_array()
            .unwrap()
            .iter()
            .map(|event| format!("{event}\n"))
            .collect();
        let (stored, diagnostics) = common::normalize(events.as_bytes(), None);
        assert!(diagnostics.is_empty(), "{}: {diagnostics:?}", path);
        let outcomes = |parts: &[NormalizedToolPart]| parts.iter().map(outcome).collect::<Vec<_>>();
        assert_eq!(outcomes(&whole), outcomes(&pretty), "{}", path);
        assert_eq!(outcomes(&whole), outcomes(&stored), "{}", path);
        seen += 1;
    }
    assert!(seen >= 4, "{seen}");
}
