//! `--format pretty`: a tree by parent with human durations (goldens), colour, and the
//! options that do not apply to a format refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;

use crate::common;

fn toolnorm() -> Command {
    let mut command = common::toolnorm();
    command.env_remove("NO_COLOR");
    command
}

/// Recordings with subagents, errors, open calls and parallel calls.
const FIXTURES: &[&str] = &[
    "claude-code/subagent.jsonl",
    "claude-code-transcript/subagent.jsonl",
    "claude-code-acp/subagent.jsonl",
    "codex-app-server/subagent.jsonl",
    "codex-exec/subagent.jsonl",
    "opencode-run/subagent.jsonl",
    "opencode-serve/subagent.jsonl",
    "claude-code/mcp-error.jsonl",
    "claude-code/interrupted.jsonl",
    "codex-exec/shell-exit-3.jsonl",
    "opencode-serve/parallel.jsonl",
];

#[test]
fn pretty_goldens() {
    for fixture in FIXTURES {
        let output = toolnorm()
            .args(["normalize", "--format", "pretty"])
            .arg(format!("fixtures/{fixture}"))
            .output()
            .unwrap();
        assert!(output.status.success(), "{fixture}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(!text.contains('\x1b'), "{fixture}: no colour into a pipe");
        let name = fixture.trim_end_matches(".jsonl").replace('/', "__");
        insta::assert_snapshot!(format!("pretty__{name}"), text);
    }
}

#[test]
fn children_are_indented_under_their_subagent() {
    let output = toolnorm()
        .args([
            "normalize",
            "--format",
            "pretty",
            "fixtures/claude-code/subagent.jsonl",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("✓ complete  subagent"), "{text}");
    assert!(lines[1].starts_with("  ✓ complete  bash"), "{text}");
    assert!(lines[1].ends_with("20.0 s"), "{text}");
}

#[test]
fn colour_when_asked_and_never_into_a_pipe_or_with_no_color() {
    let run = |args: &[&str], no_color: Option<&str>| {
        let mut command = toolnorm();
        command.args(["normalize", "--format", "pretty"]).args(args);
        if let Some(value) = no_color {
            command.env("NO_COLOR", value);
        }
        let output = command
            .arg("fixtures/claude-code/mcp-error.jsonl")
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let coloured = run(&["--color", "always"], None);
    assert!(coloured.contains("\x1b[31m✗\x1b[0m"), "{coloured:?}");
    insta::assert_snapshot!("pretty__color_always", coloured.replace('\x1b', "<ESC>"));
    assert!(!run(&[], None).contains('\x1b'));
    assert!(!run(&["--color", "auto"], Some("1")).contains('\x1b'));
    assert!(!run(&["--color", "never"], None).contains('\x1b'));
}

#[test]
fn options_that_do_not_apply_to_the_format_are_refused() {
    for (args, message) in [
        (
            &["--format", "pretty", "--session-id", "s"][..],
            "--session-id applies to --format acp, ai-sdk, ag-ui and otel, not pretty",
        ),
        (
            &["--session-id", "s"][..],
            "--session-id applies to --format acp, ai-sdk, ag-ui and otel, not parts",
        ),
        (
            &["--format", "parts", "--color", "always"][..],
            "--color applies to --format pretty, not parts",
        ),
        (
            &["--format", "parts", "--otel-content"][..],
            "--otel-content applies to --format otel, not parts",
        ),
        (
            &["--format", "pretty", "--sse"][..],
            "--sse frames only --format ai-sdk and --format ag-ui, not pretty",
        ),
    ] {
        let output = toolnorm()
            .arg("normalize")
            .args(args)
            .arg("fixtures/claude-code/shell-ok.jsonl")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr, format!("toolnorm: {message}\n"), "{args:?}");
    }
    for format in ["acp", "ai-sdk", "ag-ui", "otel"] {
        let output = toolnorm()
            .args(["normalize", "--format", format, "--session-id", "s"])
            .arg("fixtures/claude-code/shell-ok.jsonl")
            .output()
            .unwrap();
        assert!(output.status.success(), "{format}");
    }
}
