//! The text lines of a recording that are not JSON (a CLI's logs captured with its
//! events, `2>&1`), rewritten as text: paths, ids and times as in the JSON lines, and
//! what only a log line holds (run ids, elapsed times, epoch times).

use regex::Regex;

use super::{BASE_EPOCH_S, Normalizer};
use crate::error::{Error, Result};

/// What a log line holds that changes from run to run.
#[derive(Debug, Clone)]
pub(super) struct TextLines {
    /// Run ids and elapsed times (`run=83cdf19b`, `+1834ms`, `duration=12`), each with
    /// its replacement.
    volatile: Vec<(Regex, &'static str)>,
    /// An epoch time in milliseconds.
    epoch_ms: Regex,
}

impl TextLines {
    fn new() -> Result<Self> {
        let re = |p: &str| Regex::new(p).map_err(|e| Error::Server(format!("regex {p}: {e}")));
        Ok(TextLines {
            volatile: vec![
                (re(r"\b(run|run_id)=[0-9a-f]{8}\b")?, "${1}=00000000"),
                (re(r"(^|\s)\+\d+ms\b")?, "${1}+100ms"),
                (re(r"\bduration=\d+\b")?, "duration=100"),
            ],
            epoch_ms: re(r"\b1[6-9]\d{11}\b")?,
        })
    }
}

impl Normalizer {
    /// Keeps the lines that are not JSON, as a capture of the CLI's logs with its events
    /// (`2>&1`) has them: each rewritten as text (paths, ids, times, run ids and elapsed
    /// times), its timestamps numbered by its position in the recording.
    pub fn keep_text_lines(&mut self) -> Result<()> {
        self.text = Some(TextLines::new()?);
        Ok(())
    }

    /// One text line, rewritten; `index` is its place in the recording.
    pub(super) fn text_line(&mut self, line: &str, index: usize) -> String {
        // A time-sortable id only the logs name is numbered after the events' ones.
        let unseen: Vec<(String, String)> = self
            .sortable_id
            .captures_iter(line)
            .filter_map(|c| Some((c.get(1)?.as_str().to_owned(), c.get(0)?.as_str().to_owned())))
            .filter(|(_, full)| !self.ids.contains_key(full))
            .collect();
        for (prefix, full) in unseen {
            let taken = self
                .ids
                .values()
                .filter(|id| id.starts_with(&format!("{prefix}_")))
                .count();
            self.ids
                .entry(full)
                .or_insert_with(|| format!("{prefix}_{:026}", taken + 1));
        }
        self.position = Some((index * 10, 0));
        let mut text = self.string(line);
        self.position = None;
        let Some(lines) = self.text.clone() else {
            return text;
        };
        for (pattern, to) in &lines.volatile {
            text = pattern.replace_all(&text, *to).into_owned();
        }
        // An epoch time is the events' placeholder for it, or the base time.
        lines
            .epoch_ms
            .replace_all(&text, |c: &regex::Captures<'_>| {
                let raw = c.get(0).map_or("", |m| m.as_str());
                self.ms_map
                    .get(raw)
                    .copied()
                    .unwrap_or(BASE_EPOCH_S * 1000)
                    .to_string()
            })
            .into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Normalizer, Substitutions};
    use crate::error::Result;

    #[test]
    fn a_log_line_is_kept_in_place_and_scrubbed_as_text() -> Result<()> {
        let mut subs = Substitutions::default();
        subs.add("/tmp/run-123/work", "/workspace");
        let mut n = Normalizer::new(subs)?;
        n.keep_text_lines()?;
        let lines = vec![
            "timestamp=2026-12-04T21:40:53.458Z level=INFO run=83cdf19b message=\"creating instance\" directory=/tmp/run-123/work".to_owned(),
            r#"{"type":"step_start","timestamp":1796420462109,"sessionID":"ses_dbcff2ccfffef1DHBp9BqHyyeC"}"#.to_owned(),
            "INFO  2026-12-04T21:41:18 +1834ms service=session session.id=ses_dbcff2ccfffef1DHBp9BqHyyeC created=1796420462109 duration=12 loop".to_owned(),
            String::new(),
        ];
        let (out, dropped) = n.normalize_lines(&lines);
        assert_eq!(dropped, 0);
        assert_eq!(
            out,
            [
                "timestamp=2026-01-01T00:00:00.000Z level=INFO run=00000000 message=\"creating instance\" directory=/workspace",
                r#"{"type":"step_start","timestamp":1767225600000,"sessionID":"ses_00000000000000000000000001"}"#,
                "INFO  2026-01-01T00:00:20 +100ms service=session session.id=ses_00000000000000000000000001 created=1767225600000 duration=100 loop",
            ]
        );
        Ok(())
    }
}
