//! A lone UTF-16 surrogate in a string (what JavaScript writes when it cut a string
//! between the halves of a pair) is read as U+FFFD, with a notice for its line: in every
//! dialect, the recording's calls are all there, as they were without it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use toolnorm::NormalizedToolPart;
use toolnorm_adapters::{DiagnosticKind, Severity};

/// Recordings of CLIs written in JavaScript or TypeScript, and one in Rust, each with the
/// word `hello` in a call's input or output.
const RECORDINGS: &[&str] = &[
    "claude-code/shell-ok.jsonl",
    "claude-code-transcript/shell-ok.jsonl",
    "claude-code-acp/shell-ok.jsonl",
    "gemini-cli/shell-ok.jsonl",
    "gemini-cli-session/shell-ok.jsonl",
    "qwen-code/shell-ok.jsonl",
    "qwen-code-session/shell-ok.jsonl",
    "opencode-run/shell-ok.jsonl",
    "opencode-export/shell-ok.jsonl",
    "codex-exec/shell-ok.jsonl",
];

fn summary(parts: &[NormalizedToolPart]) -> Vec<(String, String, String)> {
    parts
        .iter()
        .map(|part| {
            (
                part.id.clone(),
                part.name.clone(),
                format!("{:?}", part.state),
            )
        })
        .collect()
}

#[test]
fn every_call_is_kept_and_each_lone_half_is_u_fffd() {
    for recording in RECORDINGS {
        let text = std::fs::read_to_string(common::fixtures().join(recording)).unwrap();
        let (expected, diagnostics) = common::normalize(text.as_bytes(), None);
        assert!(diagnostics.is_empty(), "{recording}: {diagnostics:?}");
        // A high half cut from its pair, and a low half alone.
        let damaged = text
            .replace("hello", r"hello\ud83d")
            .replace("from", r"\ude00from");
        let changed: Vec<usize> = (1..)
            .zip(text.lines().zip(damaged.lines()))
            .filter(|(_, (before, after))| before != after)
            .map(|(line, _)| line)
            .collect();
        assert!(!changed.is_empty(), "{recording}");
        let (parts, diagnostics) = common::normalize(damaged.as_bytes(), None);
        assert_eq!(summary(&parts), summary(&expected), "{recording}");
        let read_as: Vec<usize> = diagnostics
            .iter()
            .map(|diagnostic| {
                assert_eq!(
                    diagnostic.kind,
                    DiagnosticKind::LoneSurrogate,
                    "{recording}"
                );
                assert_eq!(diagnostic.severity, Severity::Notice, "{recording}");
                diagnostic.line.unwrap() as usize
            })
            .collect();
        assert_eq!(read_as, changed, "{recording}");
        let all = serde_json::to_string(&parts).unwrap();
        assert!(all.contains("hello\u{FFFD}"), "{recording}: {all}");
    }
}

#[test]
fn a_notice_names_each_half_read_as_u_fffd() {
    let line = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"a \uD83D b \udc00 c \ud83d\ude00"}]},"session_id":"s"}"#;
    let (_, diagnostics) = common::normalize(
        line.as_bytes(),
        Some(toolnorm_adapters::Dialect::CLAUDE_CODE),
    );
    let messages: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    assert!(
        messages
            .first()
            .is_some_and(|first| first
                == r"line 1: notice: lone UTF-16 surrogate \uD83D, \udc00 read as U+FFFD"),
        "{messages:?}"
    );
}
