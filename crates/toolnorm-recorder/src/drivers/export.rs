//! OpenCode's stored sessions: once an `opencode serve` run is over, `opencode export
//! <session>` of its session and of each child session it started (a subagent's), in
//! the order the event stream announced them (`fixtures/opencode-export/`). Each export
//! is one JSON document, which the CLI prints indented over many lines; the fixture
//! keeps it on one line, the same JSON text without the whitespace between tokens.

use serde_json::Value;

use super::Recorder;
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

/// Appended to the command of an export fixture: what it holds.
pub(super) const EXPORT_SHOWN: &str = "  # then, the server stopped, opencode export <session> for the session and each child session, one document a line";

/// The sessions a serve event stream announced (`session.created`), in order.
pub(super) fn sessions(events: &[String]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for event in events {
        let Ok(value) = serde_json::from_str::<Value>(event) else {
            continue;
        };
        if value.get("type").and_then(Value::as_str) != Some("session.created") {
            continue;
        }
        if let Some(id) = value.pointer("/properties/info/id").and_then(Value::as_str)
            && !ids.iter().any(|known| known == id)
        {
            ids.push(id.to_owned());
        }
    }
    ids
}

/// A JSON text on one line: the whitespace outside strings left out, every other byte
/// as it was (key order, numbers and escapes are the CLI's).
pub(super) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}

impl Recorder {
    /// `opencode export` of each session, each document on one line. The server has
    /// stopped: the CLI reads the sessions from the storage the server wrote.
    pub(super) fn opencode_exports(
        &self,
        sc: &Scenario,
        dirs: &RunDirs,
        sessions: &[String],
    ) -> Result<Vec<String>> {
        let fail = |message: String| Error::Recording {
            provider: "opencode-export".into(),
            scenario: sc.name.clone(),
            message,
        };
        let mut lines = Vec::new();
        for (n, id) in sessions.iter().enumerate() {
            let mut cmd = self.opencode_command(sc, dirs)?;
            cmd.args(["export", id.as_str()]);
            let cap = run::run(&mut cmd, self.timeout, None)?;
            run::write_lines(
                &dirs.root.join(format!("export-{n}.stderr.log")),
                &cap.stderr,
            )?;
            if cap.timed_out {
                return Err(fail(format!("opencode export {id} did not finish")));
            }
            let line = one_line(&cap.stdout.join("\n"));
            if serde_json::from_str::<Value>(&line).is_err() {
                return Err(fail(format!(
                    "opencode export {id} printed no JSON document: {}",
                    cap.stderr.join(" / ")
                )));
            }
            lines.push(line);
        }
        if lines.is_empty() {
            return Err(fail("the event stream announced no session".into()));
        }
        Ok(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_keeps_strings_and_drops_the_indentation() {
        let text = "{\n  \"a\": \"x  y\\\" }\",\n  \"b\": [\n    1,\n    2.50\n  ]\n}";
        assert_eq!(one_line(text), r#"{"a":"x  y\" }","b":[1,2.50]}"#);
    }

    #[test]
    fn sessions_in_the_order_announced() {
        let events = [
            r#"{"type":"server.connected","properties":{}}"#,
            r#"{"type":"session.created","properties":{"info":{"id":"ses_b"}}}"#,
            r#"{"type":"session.updated","properties":{"info":{"id":"ses_b"}}}"#,
            r#"{"type":"session.created","properties":{"info":{"id":"ses_a","parentID":"ses_b"}}}"#,
        ]
        .map(str::to_owned);
        assert_eq!(sessions(&events), ["ses_b", "ses_a"]);
    }
}
