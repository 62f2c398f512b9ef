//! Joining a stream in the middle: a UI that attaches to a running agent sees updates of
//! calls whose start it never saw. When the update says what the call is, the call is
//! opened from it, with a notice, instead of being rejected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use toolnorm::ToolState;
use toolnorm_adapters::{Dialect, Severity};

/// The parts and the (severity, message) of each diagnostic of `text` read as `dialect`.
fn run(
    dialect: Dialect,
    text: &str,
) -> (Vec<toolnorm::NormalizedToolPart>, Vec<(Severity, String)>) {
    let (parts, diagnostics) = common::normalize(text.as_bytes(), Some(dialect));
    let shown = diagnostics
        .iter()
        .map(|d| (d.severity, d.to_string()))
        .collect();
    (parts, shown)
}

/// The recording from the first line that mentions `marker` on.
fn from(relative: &str, marker: &str) -> String {
    let text = std::fs::read_to_string(common::fixtures().join(relative)).unwrap();
    let start = text.find(marker).unwrap();
    let start = text[..start].rfind('\n').map_or(0, |newline| newline + 1);
    text[start..].to_owned()
}

#[test]
fn codex_app_server_output_deltas_open_their_call() {
    let text = from(
        "codex-app-server/shell-stream.jsonl",
        "item/commandExecution/outputDelta",
    );
    let (parts, diagnostics) = run(Dialect::CODEX_APP_SERVER, &text);
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Notice),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert!(
        diagnostics[0].1.contains("`commandExecution` item"),
        "{diagnostics:?}"
    );
    let whole = common::fixture("codex-app-server/shell-stream.jsonl");
    assert_eq!(parts.len(), whole.len());
    let (joined, recorded) = (&parts[0], &whole[0]);
    assert_eq!(joined.id, recorded.id);
    assert_eq!(joined.state, ToolState::Complete);
    assert_eq!(joined.kind, recorded.kind);
    assert_eq!(joined.output, recorded.output);
}

#[test]
fn an_acp_update_without_its_tool_call_opens_the_call() {
    let text =
        std::fs::read_to_string(common::fixtures().join("claude-code-acp/shell-ok.jsonl")).unwrap();
    let without_start: String = text
        .lines()
        .filter(|line| !line.contains(r#""sessionUpdate":"tool_call""#))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_ne!(
        without_start.len(),
        text.len(),
        "the recording has a tool_call"
    );
    let (parts, diagnostics) = run(Dialect::ACP, &without_start);
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Notice),
        "{diagnostics:?}"
    );
    assert!(!diagnostics.is_empty());
    let whole = common::fixture("claude-code-acp/shell-ok.jsonl");
    assert_eq!(parts.len(), whole.len());
    assert_eq!(parts[0].id, whole[0].id);
    assert_eq!(parts[0].state, whole[0].state);
}
