//! `toolnorm view`: the page is self-contained, its data cannot end its script element,
//! and its script is the one the Content-Security-Policy allows. (The page itself is
//! checked in Chromium by `checks/view`.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::common::{root, toolnorm};

fn view(args: &[&str]) -> String {
    let output = toolnorm().arg("view").args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The text between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).unwrap() + start.len();
    let to = from + text[from..].find(end).unwrap();
    &text[from..to]
}

fn data(page: &str) -> serde_json::Value {
    let json = between(
        page,
        r#"<script type="application/json" id="toolnorm-data">"#,
        "</script>",
    );
    serde_json::from_str(json).unwrap()
}

#[test]
fn the_page_holds_every_call_with_its_source() {
    let page = view(&["fixtures/claude-code/subagent.jsonl"]);
    let data = data(&page);
    let sessions = data["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    let session = &sessions[0];
    assert_eq!(session["dialect"], "claude-code");
    assert_eq!(session["source"], "fixtures/claude-code/subagent.jsonl");
    let parts = session["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    // In the order first seen: the subagent, then its call.
    assert_eq!(parts[0]["kind"], "subagent");
    assert_eq!(parts[1]["metadata"]["parentToolCallId"], parts[0]["id"]);
    for part in parts {
        assert_eq!(
            part["metadata"]["source"],
            "fixtures/claude-code/subagent.jsonl"
        );
    }
    assert_eq!(session["lines"]["lines"], 17);
}

#[test]
fn the_script_is_the_one_the_policy_allows_and_nothing_is_loaded() {
    let page = view(&["fixtures/claude-code/shell-ok.jsonl"]);
    let policy = between(
        &page,
        r#"http-equiv="Content-Security-Policy" content=""#,
        "\"",
    );
    assert!(policy.starts_with("default-src 'none'; "), "{policy}");
    assert!(policy.contains("connect-src 'none'"), "{policy}");
    let script = between(&page, "<script>", "</script>");
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(script));
    assert!(
        policy.contains(&format!("script-src 'sha256-{hash}';")),
        "{policy}"
    );
    for remote in ["http://", "https://", "//cdn", "src=", "href="] {
        assert!(!page.contains(remote), "the page names {remote}");
    }
}

#[test]
fn nothing_in_a_session_can_end_the_data_element() {
    let hostile = "</script><script>alert(1)</script><!-- \u{2028} & {{SCRIPT}}";
    let line = std::fs::read_to_string(root().join("fixtures/claude-code/shell-ok.jsonl"))
        .unwrap()
        .replace("echo hello from the shell", &hostile.replace('"', "\\\""));
    let file = std::env::temp_dir().join(format!("toolnorm-view-{}.jsonl", std::process::id()));
    std::fs::write(&file, line).unwrap();
    let page = view(&[file.to_str().unwrap()]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(page.matches("</script>").count(), 2);
    assert_eq!(page.matches("<script").count(), 2);
    assert!(!page.contains('\u{2028}'));
    // The placeholder planted stayed text: the page's script went in once, after the data.
    let script = between(&page, "<script>", "</script>");
    assert!(
        script.starts_with("\"use strict\";\n(function () {\n// Shared by the view's page"),
        "{script:.80}"
    );
    assert!(!script.contains("alert(1)"));
    let data = data(&page);
    assert_eq!(data["sessions"][0]["parts"][0]["input"]["command"], hostile);
}

#[test]
fn a_directory_is_every_jsonl_file_in_it_sorted() {
    let page = view(&["fixtures/codex-exec", "fixtures/claude-code/shell-ok.jsonl"]);
    let sources: Vec<String> = data(&page)["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|session| session["source"].as_str().unwrap().to_owned())
        .collect();
    let mut expected: Vec<String> = std::fs::read_dir(root().join("fixtures/codex-exec"))
        .unwrap()
        .map(|entry| {
            format!(
                "fixtures/codex-exec/{}",
                entry.unwrap().file_name().to_str().unwrap()
            )
        })
        .collect();
    expected.sort();
    expected.push("fixtures/claude-code/shell-ok.jsonl".to_owned());
    assert_eq!(sources, expected);
}

#[test]
fn writes_the_file_named_and_reports_what_it_could_not_read() {
    let out = std::env::temp_dir().join(format!("toolnorm-view-{}.html", std::process::id()));
    let output = toolnorm()
        .args([
            "view",
            "fixtures/claude-code/shell-ok.jsonl",
            "missing.jsonl",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "toolnorm: missing.jsonl: No such file or directory\n"
    );
    let page = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert_eq!(data(&page)["sessions"].as_array().unwrap().len(), 1);

    let output = toolnorm().args(["view", "Cargo.toml"]).output().unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("toolnorm: Cargo.toml: no line is an event toolnorm reads"),
        "{stderr}"
    );
}
