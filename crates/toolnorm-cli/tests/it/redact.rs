//! `--redact`: secrets planted in real recordings never leave toolnorm, in any format,
//! the audit file or a diagnostic, and redaction changes no id, line or JSON structure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use assert_cmd::Command;

/// Made-up secrets of real formats (none is a real credential).
const ANTHROPIC: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdEFGH";
const GITHUB: &str = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const PASSWORD: &str = "hunter2secret";
const URL_PASSWORD: &str = "pw123url";

fn secrets() -> [&'static str; 4] {
    [ANTHROPIC, GITHUB, PASSWORD, URL_PASSWORD]
}

fn fixture(relative: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative);
    std::fs::read_to_string(path).unwrap()
}

/// A shell command that carries every kind of secret, in place of `command` (JSON-escaped
/// for where it is planted).
fn secret_command() -> String {
    format!(
        "DB_PASSWORD={PASSWORD} curl -H 'Authorization: Bearer {ANTHROPIC}' https://me:{URL_PASSWORD}@example.com"
    )
}

/// Real recordings with the secret command in place of their command, and a token in
/// their output.
fn planted() -> Vec<(&'static str, String)> {
    let plant = |text: String, command: &str, output: &str| {
        let escaped = serde_json::to_string(&secret_command()).unwrap();
        let escaped = &escaped[1..escaped.len() - 1];
        text.replace(command, escaped)
            .replace(output, &format!("token {GITHUB} printed"))
    };
    // Other positions: a file's content, an error's output, MCP arguments.
    let secret_file = format!("API_KEY={GITHUB}\\nDB_URL=postgres://app:{URL_PASSWORD}@db/x");
    let secret_error = format!("check failed: password={PASSWORD}");
    vec![
        (
            "claude-code write",
            fixture("claude-code/write-file.jsonl").replace("Hello, world!", &secret_file),
        ),
        (
            "opencode write",
            fixture("opencode-serve/write-file.jsonl").replace("Hello, world!", &secret_file),
        ),
        (
            "claude-code error",
            fixture("claude-code/shell-exit-3.jsonl").replace("check failed", &secret_error),
        ),
        (
            "codex error",
            fixture("codex-app-server/shell-exit-3.jsonl").replace("check failed", &secret_error),
        ),
        (
            "claude-code mcp",
            fixture("claude-code/mcp-ok.jsonl").replace("ping", &format!("Bearer {ANTHROPIC}")),
        ),
        (
            "codex mcp",
            fixture("codex-app-server/mcp-ok.jsonl")
                .replace("ping", &format!("Bearer {ANTHROPIC}")),
        ),
        (
            "claude-code",
            plant(
                fixture("claude-code/shell-ok.jsonl"),
                "echo hello from the shell",
                "hello from the shell",
            ),
        ),
        (
            "codex-exec",
            plant(
                fixture("codex-exec/shell-ok.jsonl"),
                "echo hello from the shell",
                "hello from the shell",
            ),
        ),
        (
            "opencode-serve",
            plant(
                fixture("opencode-serve/shell-ok.jsonl"),
                "echo hello from the shell",
                "hello from the shell",
            ),
        ),
        (
            "claude-code-acp",
            plant(
                fixture("claude-code-acp/shell-ok.jsonl"),
                "echo hello from the shell",
                "hello from the shell",
            ),
        ),
    ]
}

fn run(args: &[&str], input: &str) -> std::process::Output {
    Command::cargo_bin("toolnorm")
        .unwrap()
        .arg("normalize")
        .args(args)
        .write_stdin(input.to_owned())
        .output()
        .unwrap()
}

#[test]
fn no_planted_secret_reaches_any_format() {
    for (name, text) in planted() {
        let planted = secrets()
            .iter()
            .filter(|secret| text.contains(**secret))
            .count();
        assert!(planted >= 1, "{name}: not planted");
        for format in [
            "parts", "updates", "events", "acp", "pretty", "ai-sdk", "ag-ui",
        ] {
            let plain = run(&["--format", format], &text);
            let redacted = run(&["--redact", "--format", format], &text);
            assert!(redacted.status.success(), "{name} {format}");
            let out = String::from_utf8(redacted.stdout.clone()).unwrap();
            let err = String::from_utf8(redacted.stderr.clone()).unwrap();
            for secret in secrets() {
                assert!(!out.contains(secret), "{name} {format}: {secret} in\n{out}");
                assert!(!err.contains(secret), "{name} {format}: {secret} in\n{err}");
            }
            // (`pretty` shows titles only, which hold no secret in some of these.)
            assert!(
                format == "pretty" || out.contains("[REDACTED:"),
                "{name} {format}: nothing redacted"
            );
            // The secrets were there without --redact: the test can fail.
            let plain = String::from_utf8(plain.stdout).unwrap();
            if format != "pretty" {
                assert!(
                    secrets().iter().any(|secret| plain.contains(secret)),
                    "{name} {format}"
                );
                // Each line still JSON; one part per call (the other formats may have a
                // line more: the `metadata.redactions` count is a metadata change).
                if format == "parts" {
                    assert_eq!(plain.lines().count(), out.lines().count(), "{name}");
                }
                for line in out.lines() {
                    serde_json::from_str::<serde_json::Value>(line).unwrap();
                }
            }
        }
    }
}

#[test]
fn parts_keep_their_ids_and_count_their_redactions() {
    for (name, text) in planted() {
        let parse = |output: std::process::Output| -> Vec<serde_json::Value> {
            String::from_utf8(output.stdout)
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect()
        };
        let plain = parse(run(&[], &text));
        let redacted = parse(run(&["--redact"], &text));
        let ids = |parts: &[serde_json::Value]| -> Vec<String> {
            parts
                .iter()
                .map(|part| format!("{} {}", part["id"], part["state"]))
                .collect()
        };
        assert_eq!(ids(&plain), ids(&redacted), "{name}");
        let counted: u64 = redacted
            .iter()
            .filter_map(|part| part["metadata"]["redactions"].as_u64())
            .sum();
        assert!(counted >= 1, "{name}: {counted} redactions counted");
        assert!(
            plain
                .iter()
                .all(|part| part["metadata"].get("redactions").is_none())
        );
    }
}

#[test]
fn a_secret_split_over_streamed_chunks_is_still_found() {
    // Codex streams a command's output in deltas: cut a token over two of them.
    let (head, tail) = GITHUB.split_at(12);
    let text = fixture("codex-app-server/shell-stream.jsonl")
        .replacen(
            "\"delta\":\"tick 2\\n\"",
            &format!("\"delta\":\"token {head}\""),
            1,
        )
        .replacen(
            "\"delta\":\"tick 3\\n\"",
            &format!("\"delta\":\"{tail} ok\\n\""),
            1,
        );
    assert!(text.contains(head) && text.contains(tail));
    for format in ["updates", "acp", "events"] {
        let output = run(&["--redact", "--format", format], &text);
        let out = String::from_utf8(output.stdout).unwrap();
        // Neither half alone, nor the whole token, is written anywhere.
        assert!(
            !out.contains(GITHUB) && !out.contains(head),
            "{format}:\n{out}"
        );
        assert!(out.contains("[REDACTED:github_token]"), "{format}");
    }
}

#[test]
fn the_audit_file_is_redacted_unless_raw_is_asked_for() {
    let audit =
        std::env::temp_dir().join(format!("toolnorm-redact-audit-{}.tsv", std::process::id()));
    let text = format!(
        "{}\n{{\"type\":\"{GITHUB}\",\"password\":\"{PASSWORD}\"}}\n",
        fixture("claude-code/shell-ok.jsonl").trim_end()
    );
    let output = run(&["--redact", "--audit", audit.to_str().unwrap()], &text);
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(!err.contains(GITHUB), "{err}");
    assert!(
        err.contains("[REDACTED:github_token]"),
        "the diagnostic names the type: {err}"
    );
    let written = std::fs::read_to_string(&audit).unwrap();
    assert!(
        !written.contains(GITHUB) && !written.contains(PASSWORD),
        "{written}"
    );
    let (number, line) = written.trim_end().split_once('\t').unwrap();
    let last = text.lines().count().to_string();
    assert_eq!(number, last);
    serde_json::from_str::<serde_json::Value>(line).unwrap();
    run(
        &[
            "--redact",
            "--audit-raw",
            "--audit",
            audit.to_str().unwrap(),
        ],
        &text,
    );
    assert!(std::fs::read_to_string(&audit).unwrap().contains(GITHUB));
    std::fs::remove_file(&audit).unwrap();
}

#[test]
fn user_patterns_are_redacted_and_bad_ones_refused() {
    let text = fixture("claude-code/shell-ok.jsonl")
        .replace("hello from the shell", "ticket TICKET-4242 done");
    let output = run(&["--redact-pattern", "ticket=TICKET-[0-9]+"], &text);
    let out = String::from_utf8(output.stdout).unwrap();
    assert!(
        out.contains("[REDACTED:ticket]") && !out.contains("TICKET-4242"),
        "{out}"
    );
    let output = run(&["--redact-pattern", "bad=(unclosed"], &text);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("pattern `bad`")
    );
}
