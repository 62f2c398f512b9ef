//! `--audit FILE`: every input line that produced a diagnostic, verbatim, with its number.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use assert_cmd::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("audit");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn writes_each_line_with_a_diagnostic_once_verbatim() {
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code/shell-ok.jsonl");
    let mut input = std::fs::read(fixture).unwrap();
    // Line 7: not JSON, and not UTF-8 either; line 8: blank (skipped, not a problem);
    // line 9: a result for a call that finished (one diagnostic per block: written once);
    // line 10: cut short by the end of input.
    input.extend_from_slice(b"not json \xff\xfe\n\n");
    let late = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_mock_1_1","type":"tool_result","content":"again"},{"tool_use_id":"toolu_mock_1_1","type":"tool_result","content":"and again"}]}}"#;
    input.extend_from_slice(late.as_bytes());
    input.extend_from_slice(b"\n{\"type\":\"assi");
    let audit = scratch("lines.tsv");
    let output = Command::cargo_bin("toolnorm")
        .unwrap()
        .args(["normalize", "--audit"])
        .arg(&audit)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr
            .lines()
            .filter(|line| line.starts_with("line "))
            .count(),
        4,
        "{stderr}"
    );
    let mut expected = b"7\tnot json \xff\xfe\n9\t".to_vec();
    expected.extend_from_slice(late.as_bytes());
    expected.extend_from_slice(b"\n10\t{\"type\":\"assi\n");
    let written = std::fs::read(&audit).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&written),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(written, expected);
}

#[test]
fn an_unwritable_audit_file_is_a_usage_error() {
    let output = Command::cargo_bin("toolnorm")
        .unwrap()
        .args(["normalize", "--audit", "/nonexistent-dir/audit.tsv"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("toolnorm: /nonexistent-dir/audit.tsv: "),
        "{stderr}"
    );
}
