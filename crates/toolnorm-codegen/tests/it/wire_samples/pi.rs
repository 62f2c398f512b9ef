//! Pi's `--mode json` stream and session files against its own declarations
//! (`AgentSessionEvent` and `FileEntry` of `@mariozechner/pi-coding-agent`,
//! `toolnorm_wire::pi_events` and `toolnorm_wire::pi_session`).
//!
//! The `pi` dialects read the fields they need with serde structs of their own; this is
//! the drift guard between the recordings and the pinned declarations: every line of a
//! stream (its first, the session header, as the session file's) and of a session file
//! parses into the declared type, and survives the round trip through it whole.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolnorm_wire::{pi_events as pe, pi_session as ps};

use super::{of_source, recorded_lines, require_lossless, round_trip};

/// Parses a line as `T` and requires the whole line back.
fn whole<T: DeserializeOwned + Serialize>(what: &str, line: &Value) -> Result<(), String> {
    let back = round_trip::<T>(what, line)?;
    require_lossless(what, line, &back, "")
}

/// Checks every line of every recording of `form` with `check`; returns the lines read.
fn check_all(form: &str, check: fn(&Value) -> Result<(), String>) -> usize {
    let mut failures = Vec::new();
    let lines = recorded_lines(|name| of_source(name, form), &mut failures);
    assert!(
        lines
            .iter()
            .any(|(at, _)| at.contains(&format!("/fixtures/{form}/"))),
        "no fixtures/{form} recordings"
    );
    let count = lines.len();
    for (at, value) in lines {
        if let Err(e) = check(&value) {
            failures.push(format!("{at}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    count
}

/// Every line of every `pi --mode json` recording: the session header, then the
/// session's events, each whole.
#[test]
fn every_pi_stream_line_parses_as_its_declared_type() {
    let lines = check_all("pi", |line| {
        if line.get("type").and_then(Value::as_str) == Some("session") {
            whole::<ps::SessionHeader>("SessionHeader", line)
        } else {
            whole::<pe::AgentSessionEvent>("AgentSessionEvent", line)
        }
    });
    assert!(lines >= 100, "{lines} lines");
}

/// Every line of every Pi session file is a `FileEntry`, whole.
#[test]
fn every_pi_session_line_parses_as_a_file_entry() {
    let lines = check_all("pi-session", |line| {
        whole::<ps::FileEntry>("FileEntry", line)
    });
    assert!(lines >= 50, "{lines} lines");
}
