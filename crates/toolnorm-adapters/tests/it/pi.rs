//! Pi: a run reads the same from its `--mode json` stream and from the session file it
//! wrote, and neither is taken for another agent's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::Value;
use toolnorm::{NormalizedToolPart, ToolState};
use toolnorm_adapters::{Dialect, detect_line};

/// What a call says, beside when it happened (the stream carries no times for a call's
/// end) and how far it got.
fn essence(part: &NormalizedToolPart) -> Value {
    let mut value = serde_json::to_value(part).unwrap();
    let object = value.as_object_mut().unwrap();
    object.remove("timing");
    object.remove("state");
    if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
        metadata.shift_remove("partialOutput");
    }
    value
}

#[test]
fn every_run_reads_the_same_from_its_stream_and_its_session_file() {
    for version in ["", "@0.52.12"] {
        let streams = common::recordings(&format!("pi{version}"));
        assert!(streams.len() >= 10, "pi{version}: {}", streams.len());
        for (name, _) in streams {
            let stream = common::fixture(&format!("pi{version}/{name}"));
            let session = common::fixture(&format!("pi-session{version}/{name}"));
            assert!(!stream.is_empty(), "pi{version}/{name}");
            let essences = |parts: &[NormalizedToolPart]| -> Vec<Value> {
                parts.iter().map(essence).collect()
            };
            assert_eq!(essences(&stream), essences(&session), "pi{version}/{name}");
            for (streamed, stored) in stream.iter().zip(&session) {
                // An interrupted run: the stream saw the command run, the file only its call.
                let ended =
                    |state: ToolState| matches!(state, ToolState::Complete | ToolState::Error);
                assert!(
                    streamed.state == stored.state
                        || !(ended(streamed.state) || ended(stored.state)),
                    "pi{version}/{name}: {:?} and {:?}",
                    streamed.state,
                    stored.state
                );
            }
        }
    }
}

#[test]
fn pi_lines_are_pis_own_and_the_header_is_left_to_the_next_line() {
    for (dir, dialect) in [("pi", Dialect::PI), ("pi-session", Dialect::PI_SESSION)] {
        for (name, text) in common::recordings(dir) {
            let mut lines = text.lines();
            let header = lines.next().unwrap();
            assert!(header.starts_with(r#"{"type":"session","#), "{dir}/{name}");
            assert_eq!(detect_line(header.as_bytes()), None, "{dir}/{name}");
            for line in lines {
                let detected = detect_line(line.as_bytes());
                assert!(
                    detected.is_none() || detected == Some(dialect),
                    "{dir}/{name}: {detected:?} claims {line}"
                );
            }
            let (parts, diagnostics) = common::normalize(text.as_bytes(), None);
            assert!(diagnostics.is_empty(), "{dir}/{name}: {diagnostics:?}");
            assert!(!parts.is_empty(), "{dir}/{name}");
        }
    }
}

#[test]
fn pi_0_52_reads_like_the_pinned_release() {
    // The older release words some results otherwise (`Successfully replaced text in …`,
    // `Tool execution was blocked by an extension`): the calls, their kinds, titles,
    // states and error codes are the same.
    for dir in ["pi", "pi-session"] {
        for (name, _) in common::recordings(&format!("{dir}@0.52.12")) {
            let older = common::fixture(&format!("{dir}@0.52.12/{name}"));
            let pinned = common::fixture(&format!("{dir}/{name}"));
            let outline = |parts: &[NormalizedToolPart]| -> Vec<Value> {
                parts
                    .iter()
                    .map(|part| {
                        serde_json::json!([
                            part.id,
                            part.name,
                            part.kind,
                            part.title,
                            part.state,
                            part.error.as_ref().map(|error| error.code.clone()),
                        ])
                    })
                    .collect()
            };
            assert_eq!(outline(&older), outline(&pinned), "{dir}@0.52.12/{name}");
        }
    }
}
