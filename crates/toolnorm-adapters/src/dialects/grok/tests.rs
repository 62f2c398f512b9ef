//! Grok's files are detected as its own, and its claims take no other agent's lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use crate::{Dialect, Normalizer, detect_line};

/// Every fixture of a Grok dialect: `fixtures/<dir>/` and `fixtures/<dir>@<version>/`.
fn fixtures_of(wanted: &str) -> Vec<PathBuf> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&fixtures).unwrap() {
        let dir = dir.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if name != wanted && !name.starts_with(&format!("{wanted}@")) {
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
    let files = fixtures_of("grok");
    assert!(files.len() >= 10, "{files:?}");
    detected_as(&files, Dialect::GROK);
    let sessions = fixtures_of("grok-session");
    assert!(!sessions.is_empty());
    detected_as(&sessions, Dialect::GROK_SESSION);
}

/// Each file is detected as `dialect`, and none of its lines is claimed by another.
fn detected_as(files: &[PathBuf], dialect: Dialect) {
    for file in files {
        let bytes = std::fs::read(file).unwrap();
        let mut normalizer = Normalizer::new();
        normalizer.push(&bytes, &mut |_| {});
        normalizer.finish(&mut |_| {});
        assert_eq!(normalizer.dialect(), Some(dialect), "{}", file.display());
        // Each line is the dialect's or claimed by nobody, but a chat history's `system`
        // record, which Claude Code claims (every `system` line): detection puts Claude
        // Code on trial, which understands none of the lines, and goes on.
        for line in bytes
            .split(|byte| *byte == b'\n')
            .filter(|l| !l.is_empty() && !l.starts_with(br#"{"type":"system","#))
        {
            let claimant = detect_line(line);
            assert!(
                claimant.is_none() || claimant == Some(dialect),
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

#[test]
fn the_chat_history_claims_its_own_records() {
    let claimed = [
        r#"{"type":"backend_tool_call","kind":{"tool_type":"web_search","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}}"#,
        r#"{"type":"tool_result","tool_call_id":"call_1","content":"ok"}"#,
        r#"{"type":"assistant","content":"x","tool_calls":[{"id":"call_1","name":"read_file","arguments":"{}"}],"model_id":"m"}"#,
        r#"{"type":"user","content":[{"type":"text","text":"x"}],"prompt_index":0}"#,
    ];
    for line in claimed {
        assert_eq!(
            detect_line(line.as_bytes()),
            Some(Dialect::GROK_SESSION),
            "{line}"
        );
    }
    let not_claimed = [
        r#"{"type":"system","content":"You are Grok"}"#,
        r#"{"type":"reasoning","id":"rs_1","summary":[]}"#,
        r#"{"type":"user","content":"hello"}"#,
        r#"{"type":"tool_result","tool_id":"t","status":"success","output":"ok"}"#,
    ];
    for line in not_claimed {
        assert_ne!(
            detect_line(line.as_bytes()),
            Some(Dialect::GROK_SESSION),
            "{line}"
        );
    }
}

/// The diagnostics (line, kind, severity) and the parts of `input` read as `dialect`.
fn read(
    dialect: Dialect,
    input: &str,
) -> (
    Vec<(u64, String, String)>,
    Vec<toolnorm::NormalizedToolPart>,
) {
    let mut normalizer = Normalizer::builder().dialect(dialect).build();
    let mut diagnostics = Vec::new();
    let mut on_step = |step: crate::Step<'_>| {
        if let crate::Step::Diagnostic(diagnostic) = step {
            diagnostics.push((
                diagnostic.line.unwrap_or_default(),
                diagnostic.kind.as_str().to_owned(),
                format!("{:?}", diagnostic.severity),
            ));
        }
    };
    normalizer.push(input.as_bytes(), &mut on_step);
    normalizer.finish(&mut on_step);
    (diagnostics, normalizer.fold().parts())
}

#[test]
fn every_odd_headless_line_is_told_with_its_line() {
    let input = [
        r#"{"role":"user","content":"go"}"#,
        r#"{"role":"assistant","content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{not json"}},{"type":"function","function":{"name":"bash"}}]}"#,
        r#"{"role":"tool","tool_call_id":"c1","content":"Tool execution error: Unexpected token"}"#,
        r#"{"role":"tool","tool_call_id":"c1","content":"again"}"#,
        r#"{"role":"tool","content":"no id"}"#,
        r#"{"role":"tool","tool_call_id":"c9","content":"orphan"}"#,
        r#"{"role":"developer","content":"?"}"#,
        "not json",
    ]
    .join("\n");
    let (diagnostics, parts) = read(Dialect::GROK, &input);
    let kinds: Vec<(u64, &str)> = diagnostics
        .iter()
        .map(|(line, kind, _)| (*line, kind.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (2, "malformed-event"),
            (2, "malformed-event"),
            (4, "rejected"),
            (5, "malformed-event"),
            (6, "unknown-call"),
            (7, "unknown-event"),
            (8, "invalid-json"),
        ],
        "{diagnostics:?}"
    );
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].id, "c1");
    assert_eq!(parts[0].input, serde_json::json!("{not json"));
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(error.code, Some(toolnorm::ErrorCode::InvalidToolUse));
    assert_eq!(parts[1].id, "c9");
    assert_eq!(parts[1].output, Some(serde_json::json!("orphan")));
}

#[test]
fn every_odd_history_record_is_told_with_its_line() {
    let input = [
        r#"{"type":"backend_tool_call","kind":{"tool_type":"web_search","id":"ws_1","status":"in_progress","action":{"type":"search","query":"q"}}}"#,
        r#"{"type":"backend_tool_call","kind":{"tool_type":"web_search","status":"completed"}}"#,
        r#"{"type":"assistant","content":"x","tool_calls":[{"id":"c1","arguments":"{}"}]}"#,
        r#"{"type":"tool_result","content":"no id"}"#,
        r#"{"type":"compaction","summary":"?"}"#,
        r#"{"type":"tool_result","tool_call_id":"c2","content":[{"type":"text","text":"seen"}],"images":[{"type":"image","url":"x"}]}"#,
    ]
    .join("\n");
    let (diagnostics, parts) = read(Dialect::GROK_SESSION, &input);
    let kinds: Vec<(u64, &str)> = diagnostics
        .iter()
        .map(|(line, kind, _)| (*line, kind.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (2, "malformed-event"),
            (3, "malformed-event"),
            (4, "malformed-event"),
            (5, "unknown-event"),
            (6, "unknown-call"),
        ],
        "{diagnostics:?}"
    );
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].id, "ws_1");
    assert_eq!(parts[0].state, toolnorm::ToolState::Running);
    assert_eq!(
        parts[1].output,
        Some(serde_json::json!({"text": "seen", "images": [{"type": "image", "url": "x"}]}))
    );
}
