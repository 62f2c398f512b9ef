//! Grok CLI's recordings are detected as its own, and its claim takes no other agent's
//! OpenAI-style messages.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use crate::{Dialect, Normalizer, detect_line};

/// Every recorded `grok -p` output: `fixtures/grok/` and `fixtures/grok@<version>/`.
fn recordings() -> Vec<PathBuf> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&fixtures).unwrap() {
        let dir = dir.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if name != "grok" && !name.starts_with("grok@") {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|ext| ext == "jsonl") {
                files.push(file);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn detection_picks_grok_for_every_recording() {
    let files = recordings();
    assert!(files.len() >= 10, "{files:?}");
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let mut normalizer = Normalizer::new();
        normalizer.push(&bytes, &mut |_| {});
        normalizer.finish(&mut |_| {});
        assert_eq!(
            normalizer.dialect(),
            Some(Dialect::GROK),
            "{}",
            file.display()
        );
        // Each line is Grok CLI's or claimed by nobody.
        for line in bytes.split(|byte| *byte == b'\n').filter(|l| !l.is_empty()) {
            let claimant = detect_line(line);
            assert!(
                claimant.is_none() || claimant == Some(Dialect::GROK),
                "{}: {claimant:?} claims {}",
                file.display(),
                String::from_utf8_lossy(line)
            );
        }
    }
}

#[test]
fn the_claim_is_grok_clis_assistant_message_only() {
    let grok = r#"{"role":"assistant","content":"Using tools to help you...","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}"#;
    assert_eq!(detect_line(grok.as_bytes()), Some(Dialect::GROK));
    let not_claimed = [
        // Prompts, answers and results: every Chat Completions client prints them so.
        r#"{"role":"user","content":"Do the task."}"#,
        r#"{"role":"assistant","content":"Done."}"#,
        r#"{"role":"tool","tool_call_id":"c1","content":"ok"}"#,
        // Content as a list of parts, the items' keys in another order, another key.
        r#"{"role":"assistant","content":[],"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}"#,
        r#"{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"c1","function":{"name":"bash","arguments":"{}"}}]}"#,
        r#"{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}],"reasoning_content":"x"}"#,
        r#"{"type":"message","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}"#,
    ];
    for line in not_claimed {
        assert_ne!(detect_line(line.as_bytes()), Some(Dialect::GROK), "{line}");
    }
}
