//! Log lines among the events: an agent run with its logs on (`opencode run
//! --print-logs`, a fork that logs to the same stream) and captured with `2>&1` writes
//! its logger's lines, and its runtime's warnings and stack traces, between the JSON
//! lines. Such a line carries no event: it is known and skipped, not an error.
//!
//! A logger's line has a level word (`trace`, `debug`, `info`, `warn`, `warning`,
//! `error`, `fatal`, `critical`) and a date that cannot be a piece of JSON, after any
//! terminal colour codes are taken off, in one of three shapes:
//!
//! - logfmt with a `level` key among its first keys and a time key (`timestamp=…
//!   level=INFO …`, OpenCode since 1.18);
//! - the level, then the date (`INFO  2026-12-04T21:41:18 +14ms service=…`, OpenCode
//!   before 1.18; `[WARN] 2026-…`);
//! - the date, then the level (`2026-12-04T21:41:06.332Z  INFO module: …`, Rust's
//!   `tracing`; `[2026-12-04 21:41:06] ERROR …`; `2026-12-04 21:41:06,332 - INFO - …`,
//!   Python's `logging`).
//!
//! A runtime's text is taken in blocks ([`LogLines`]): a line that starts with a
//! lowercase level and a colon (`warn: Unable to connect`), or names an exception
//! (`PostHogFetchNetworkError: Network error`, `Traceback (most recent call last):`),
//! or is a stack frame (`    at f (/src/index.js:345:16)`, `  File "x.py", line 3`),
//! and the indented lines after any of these (an error's fields, its frames).
//!
//! A line that starts like JSON (`{`, `"`; `[` unless a bracketed date or level) is never
//! a log line, nor is text holding a piece of a JSON object (`{"` or `":`) outside a
//! logger's line: a cut or damaged event stays the error it is.

/// Tells the lines of a stream that a logger or a runtime wrote, a line at a time: a
/// runtime's text is known by its first line, and the indented lines after it belong to
/// it.
#[derive(Debug, Default, Clone)]
pub struct LogLines {
    /// The line before was a log line, whose indented lines may follow.
    in_block: bool,
}

impl LogLines {
    /// Whether `bytes`, the next line of the stream, is a log line (see the module
    /// documentation).
    pub fn take(&mut self, bytes: &[u8]) -> bool {
        let taken = self.is_log_line(bytes);
        self.in_block = taken;
        taken
    }

    fn is_log_line(&self, bytes: &[u8]) -> bool {
        // An event's line is told by its first byte, before any of the rest is looked at.
        match bytes.iter().find(|byte| !byte.is_ascii_whitespace()) {
            None | Some(b'{' | b'"') => return false,
            Some(_) => {}
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            return false;
        };
        let text = without_colours(text.trim_end());
        if is_logger_line(text.trim_start()) {
            return true;
        }
        if text.contains("{\"") || text.contains("\":") {
            return false;
        }
        let indented = text.starts_with([' ', '\t']);
        let text = text.trim_start();
        (indented && self.in_block) || is_stack_frame(text) || is_runtime_message(text)
    }
}

/// Whether `bytes` is a line a logger wrote, read on its own (no block of lines: see
/// [`LogLines`]).
pub fn is_log_line(bytes: &[u8]) -> bool {
    LogLines::default().take(bytes)
}

/// A logger's line: logfmt, the level then the date, or the date then the level.
fn is_logger_line(text: &str) -> bool {
    if text.starts_with('[') && !text.starts_with("[20") && !bracketed_level(text) {
        return false;
    }
    is_logfmt(text) || level_then_date(text) || date_then_level(text)
}

/// `at f (/src/index.js:345:16)`, `at /src/index.js:3:1`, `File "x.py", line 3, in f`.
fn is_stack_frame(text: &str) -> bool {
    let js = text.strip_prefix("at ").is_some_and(|rest| {
        let place = rest.trim_end_matches(')');
        let mut numbers = place.rsplit(':').take(2);
        numbers.all(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
    });
    let python = text.starts_with("File \"") && text.contains("\", line ");
    js || python
}

/// `warn: …`, `error[E0425]: …`, `TypeError: …`, `Traceback (most recent call last):`.
fn is_runtime_message(text: &str) -> bool {
    if text.starts_with("Traceback (most recent call last)") {
        return true;
    }
    let Some((head, _)) = text.split_once(": ") else {
        return false;
    };
    let level = head.split('[').next().unwrap_or(head);
    let lowercase_level = level.bytes().all(|b| b.is_ascii_lowercase()) && is_level(level);
    // An exception's name, the last word before the colon: `…failed PostHogFetchNetworkError`.
    let exception = head.rsplit(' ').next().is_some_and(|name| {
        name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')
            && (name.ends_with("Error") || name.ends_with("Exception"))
    });
    lowercase_level || exception
}

/// The level words a logger writes, in any case.
const LEVELS: &[&str] = &[
    "trace", "debug", "info", "notice", "warn", "warning", "error", "err", "fatal", "critical",
];

fn is_level(word: &str) -> bool {
    LEVELS.iter().any(|level| word.eq_ignore_ascii_case(level))
}

/// A level word, bare or in brackets (`[INFO]`).
fn level_word(word: &str) -> bool {
    let word = word
        .strip_prefix('[')
        .and_then(|inner| inner.strip_suffix(']'))
        .unwrap_or(word);
    is_level(word)
}

/// `[INFO]…` at the start.
fn bracketed_level(text: &str) -> bool {
    text.split_whitespace()
        .next()
        .is_some_and(|word| word.starts_with('[') && word.ends_with(']') && level_word(word))
}

/// logfmt (`key=value key="quoted value" …`) with a level and a time among the first
/// eight keys.
fn is_logfmt(text: &str) -> bool {
    let mut level = false;
    let mut time = false;
    for pair in logfmt_pairs(text).take(8) {
        let Some((key, value)) = pair else {
            return false;
        };
        match key {
            "level" | "lvl" | "severity" => level |= is_level(value.trim_matches('"')),
            "timestamp" | "time" | "ts" | "t" => time |= starts_with_date(value.trim_matches('"')),
            _ => {}
        }
        if level && time {
            return true;
        }
    }
    false
}

/// The `key=value` pairs at the start of `text`; `None` for a word that is not one.
fn logfmt_pairs(text: &str) -> impl Iterator<Item = Option<(&str, &str)>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        let Some((key, after)) = rest.split_once('=') else {
            rest = "";
            return Some(None);
        };
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        {
            rest = "";
            return Some(None);
        }
        let end = match after.strip_prefix('"') {
            Some(quoted) => closing_quote(quoted).map_or(after.len(), |end| end + 2),
            None => after.find(' ').unwrap_or(after.len()),
        };
        let (value, next) = after.split_at(end);
        rest = next;
        Some(Some((key, value)))
    })
}

/// Where the quoted text that starts `quoted` (its opening quote taken off) ends.
fn closing_quote(quoted: &str) -> Option<usize> {
    let mut escaped = false;
    for (index, byte) in quoted.bytes().enumerate() {
        match byte {
            b'\\' if !escaped => escaped = true,
            b'"' if !escaped => return Some(index),
            _ => escaped = false,
        }
    }
    None
}

/// `INFO  2026-12-04T21:41:18 …`, `[WARN] 2026-12-04 …`.
fn level_then_date(text: &str) -> bool {
    let mut words = text.split_whitespace();
    words.next().is_some_and(level_word) && words.next().is_some_and(starts_with_date)
}

/// `2026-12-04T21:41:06.332Z  INFO …`, `[2026-12-04 21:41:06] ERROR …`,
/// `2026-12-04 21:41:06,332 - INFO - …`.
fn date_then_level(text: &str) -> bool {
    let text = text.strip_prefix('[').unwrap_or(text);
    if !starts_with_date(text) {
        return false;
    }
    // The date's own words (a date and a time apart) and separators, then the level.
    text.split_whitespace()
        .skip(1)
        .take(3)
        .map(|word| word.trim_matches(|c| c == '[' || c == ']' || c == ':'))
        .any(level_word)
}

/// `YYYY-MM-DD` followed by the end, a space, `T` or `]`.
fn starts_with_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|part| part.iter().all(u8::is_ascii_digit))
    };
    digits(0..4)
        && bytes.get(4) == Some(&b'-')
        && digits(5..7)
        && bytes.get(7) == Some(&b'-')
        && digits(8..10)
        && bytes
            .get(10)
            .is_none_or(|next| matches!(next, b' ' | b'T' | b']'))
}

/// `text` without ANSI colour codes (`ESC [ … m`): a logger colours its level on a
/// terminal, and a capture may keep them.
fn without_colours(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('\u{1b}') {
        plain.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        rest = match after.strip_prefix('[') {
            Some(code) => match code.find(|c: char| c.is_ascii_alphabetic()) {
                Some(end) => &code[end + 1..],
                None => "",
            },
            None => after,
        };
    }
    plain.push_str(rest);
    std::borrow::Cow::Owned(plain)
}

#[cfg(test)]
mod tests {
    use super::{LogLines, is_log_line};

    #[test]
    fn loggers_lines_are_log_lines() {
        for line in [
            // OpenCode 1.18 (logfmt).
            r#"timestamp=2026-12-04T21:40:53.458Z level=INFO run=83cdf19b message="creating instance" directory=/tmp/w"#,
            r#"timestamp=2026-12-04T21:41:05.750Z level=INFO run=83cdf19b message=evaluated permission=bash pattern="echo \"hi\"" action.action=allow"#,
            // OpenCode before 1.18.
            r#"INFO  2026-12-04T21:41:18 +1834ms service=default version=1.1.53 args=["run","--print-logs"] opencode"#,
            "ERROR 2026-12-04T21:41:18 +0ms service=session error=boom failed",
            "[WARN] 2026-12-04 21:41:18 slow response",
            // tracing, plain and coloured.
            "2026-12-04T21:41:06.332415Z  INFO codex_core::codex: turn started",
            "\u{1b}[2m2026-12-04T21:41:06.332415Z\u{1b}[0m \u{1b}[33m WARN\u{1b}[0m codex: retrying",
            // Python logging and bracketed dates.
            "2026-12-04 21:41:06,332 - INFO - agent started",
            "[2026-12-04 21:41:06] ERROR: tool failed",
            "level=warn ts=2026-12-04T21:41:06Z msg=retry",
        ] {
            assert!(is_log_line(line.as_bytes()), "{line}");
        }
    }

    #[test]
    fn events_and_other_text_are_not() {
        for line in [
            r#"{"type":"tool_use","timestamp":1796420466581}"#,
            r#"{"level":"info","timestamp":"2026-12-04T21:41:06Z"}"#,
            r#"["INFO 2026-12-04"]"#,
            r#"ut":"echo"},"state":"completed"}}"#,
            "INFO starting",
            "The command printed INFO 2026-12-04 somewhere",
            "level=INFO message=no-time",
            "2026-12-04 a date alone",
            "timestamp=2026-12-04T21:41:06Z message=no-level",
            "",
            "> build · mock-model",
            r#"  "command": "echo", "at": 3"#,
            "Error: {\"type\":\"tool_use\"}",
            "at the end",
            "warning",
        ] {
            assert!(!is_log_line(line.as_bytes()), "{line}");
        }
        assert!(!is_log_line(b"\xff INFO 2026-12-04"));
    }

    #[test]
    fn a_runtime_error_is_taken_with_its_indented_lines() {
        // Kilo Code 7.7.9 offline, `--print-logs 2>&1` (Bun's error print).
        let block = [
            "telemetry background flush failed PostHogFetchNetworkError: Network error while fetching PostHog",
            "      at <anonymous> (/$bunfs/root/src/index.js:345:16987)",
            "warn: Unable to connect. Is the computer able to access the url?",
            r#"  path: "https://us.i.posthog.com/batch/","#,
            " errno: 0,",
            r#"  code: "ConnectionRefused""#,
            "      at async Xu8 (/$bunfs/root/src/index.js:345:6016)",
            "Traceback (most recent call last):",
            r#"  File "agent.py", line 3, in <module>"#,
            "    run()",
            "TypeError: run() missing 1 required positional argument",
            "error[E0425]: cannot find value `x` in this scope",
        ];
        let mut lines = LogLines::default();
        for line in block {
            assert!(lines.take(line.as_bytes()), "{line}");
        }
        // An indented line after an event is not part of a block.
        assert!(!lines.take(br#"{"type":"text"}"#));
        assert!(!lines.take(br#"  path: "/x","#));
        // Nor a piece of JSON inside one.
        assert!(lines.take(b"warn: retrying"));
        assert!(!lines.take(br#"  "input":{"command":"ls"}}"#));
    }
}
