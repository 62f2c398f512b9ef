//! The dialect table: its rows, its rules files, detection over every fixture.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::*;

#[test]
fn builtin_rules_parse() {
    for (origin, text) in rules_files() {
        TitleRules::from_toml(text, origin).unwrap();
    }
    assert!(TitleRules::builtin().rules_len() > 0);
    let builtin = TitleRules::from_sources(&rules_files()).unwrap();
    assert_eq!(builtin.rules_len(), TitleRules::builtin().rules_len());
    let opencode = TitleRules::from_sources(&[opencode::RULES]).unwrap();
    assert!(opencode.knows("opencode", "bash") && !opencode.knows("codex", "shell"));
}

#[test]
fn one_providers_built_in_rules_compiled_alone_are_the_whole_sets_for_it() {
    // Compiling only a provider's files (and the generic ones) gives the rules, in the
    // same order, that the whole set gives that provider: every dialect's file holds its
    // provider's rules only, and no file defines kinds another relies on.
    let whole = builtin_rules();
    for entry in TABLE {
        let provider = entry.dialect.provider();
        let alone = TitleRules::from_sources_that_parse(&rules_files_for(provider));
        let expected = whole.for_provider(provider).rules_said();
        assert!(expected.len() > 1, "{provider}");
        assert_eq!(
            alone.for_provider(provider).rules_said(),
            expected,
            "{provider}"
        );
        let lazy = TitleRules::builtin().for_provider(provider);
        assert_eq!(lazy.rules_said(), expected, "{provider}");
    }
}

#[test]
fn every_rules_file_is_built_in_once_and_the_generic_ones_last() {
    let files = rules_files();
    let origins: Vec<&str> = files.iter().map(|(origin, _)| *origin).collect();
    assert_eq!(
        origins,
        [
            "src/dialects/claude_code/rules.toml",
            "src/dialects/codex/rules.toml",
            "src/dialects/opencode/rules.toml",
            "src/dialects/acp/rules.toml",
            "src/dialects/gemini_cli/rules.toml",
            "src/dialects/qwen_code/rules.toml",
            "src/dialects/cursor/rules.toml",
            "src/dialects/amp/rules.toml",
            "src/dialects/cline/rules.toml",
            "src/dialects/cline_sdk/rules.toml",
            "src/dialects/droid/rules.toml",
            "src/dialects/copilot/rules.toml",
            "src/dialects/pi/rules.toml",
            "src/dialects/grok/rules.toml",
            "src/dialects/kimi/rules.toml",
            "src/dialects/vibe/rules.toml",
            "src/dialects/goose/rules.toml",
            "src/dialects/continue_cli/rules.toml",
            "src/dialects/openhands/rules.toml",
            "src/dialects/crush/rules.toml",
            "rules/default.toml"
        ]
    );
}

#[test]
fn no_line_of_any_fixture_is_claimed_by_two_dialects() {
    let mut lines = 0;
    // Every `.jsonl` file under `fixtures/`, session folders included.
    for file in claim_checks::files_under(&claim_checks::fixtures(), &["jsonl"]) {
        let bytes = std::fs::read(file).unwrap();
        for line in bytes.split(|byte| *byte == b'\n') {
            let Some(keys) = LineKeys::of(line) else {
                continue;
            };
            let claims: Vec<&str> = TABLE
                .iter()
                .filter(|entry| (entry.claims)(&keys))
                .map(|entry| entry.dialect.as_str())
                .collect();
            assert!(
                claims.len() <= 1,
                "{claims:?} all claim {}",
                String::from_utf8_lossy(line)
            );
            lines += 1;
        }
    }
    assert!(lines > 1000, "{lines} lines");
}

#[test]
fn names_are_unique_and_found_again() {
    let names: Vec<&str> = Dialect::all().map(Dialect::as_str).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len());
    for dialect in Dialect::all() {
        assert_eq!(Dialect::from_name(dialect.as_str()), Some(dialect));
        assert!(dialect.summary().is_some());
    }
    assert_eq!(Dialect::from_name("auto"), None);
}

#[test]
fn each_dialect_is_recognised() {
    let cases: &[(&str, Option<Dialect>)] = &[
        (
            r#"{"type":"toolCallRunning","id":"a"}"#,
            Some(Dialect::EVENTS),
        ),
        (
            r#"{"type":"system","subtype":"init","cwd":"/w"}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (
            r#"{"parentUuid":null,"type":"user","message":{}}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (
            r#"{"type":"thread.started","thread_id":"t"}"#,
            Some(Dialect::CODEX_EXEC),
        ),
        (
            r#"{"method":"item/started","params":{}}"#,
            Some(Dialect::CODEX_APP_SERVER),
        ),
        (r#"{"id":1,"result":{}}"#, None),
        (
            r#"{"id":"e","type":"message.part.updated","properties":{}}"#,
            Some(Dialect::OPENCODE),
        ),
        (
            r#"{"directory":"/w","payload":{"type":"server.connected"}}"#,
            Some(Dialect::OPENCODE),
        ),
        (
            r#"{"type":"step_start","timestamp":1,"sessionID":"s","part":{}}"#,
            Some(Dialect::OPENCODE),
        ),
        (
            r#"{"info":{"id":"ses_1","directory":"/w"},"messages":[],"todos":[]}"#,
            Some(Dialect::OPENCODE_EXPORT),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#,
            Some(Dialect::ACP),
        ),
        (
            r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}"#,
            Some(Dialect::ACP),
        ),
        (r#"{"method":"session/update","params":{}}"#, None),
        (
            r#"{"jsonrpc":"2.0","method":"_auth/status_update","params":{}}"#,
            Some(Dialect::ACP),
        ),
        (r#"{"type":"mystery"}"#, None),
        (
            r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/w"}}"#,
            Some(Dialect::CODEX_ROLLOUT),
        ),
        (
            r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}"#,
            Some(Dialect::CODEX_ROLLOUT),
        ),
        (
            r#"{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c"}}"#,
            Some(Dialect::CODEX_ROLLOUT),
        ),
        (
            r#"{"sessionId":"s","projectHash":"h","startTime":"t","kind":"main"}"#,
            Some(Dialect::GEMINI_CLI),
        ),
        (
            r#"{"id":"m","timestamp":"t","type":"gemini","content":"","toolCalls":[]}"#,
            Some(Dialect::GEMINI_CLI),
        ),
        (
            r#"{"id":"m","timestamp":"t","type":"user","content":[{"text":"hi"}]}"#,
            Some(Dialect::GEMINI_CLI),
        ),
        (r#"{"$set":{"lastUpdated":"t"}}"#, Some(Dialect::GEMINI_CLI)),
        (
            r#"{"type":"init","timestamp":"t","session_id":"s","model":"m"}"#,
            Some(Dialect::GEMINI_CLI),
        ),
        (
            r#"{"type":"result","timestamp":"t","status":"success"}"#,
            Some(Dialect::GEMINI_CLI),
        ),
        (
            r#"{"type":"result","subtype":"success","session_id":"s"}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (
            r#"{"type":"system","subtype":"init","session_id":"s","qwen_code_version":"0.24.4"}"#,
            Some(Dialect::QWEN_CODE),
        ),
        (
            r#"{"type":"system","subtype":"init","session_id":"s","claude_code_version":"2.1.332"}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (
            r#"{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}"#,
            Some(Dialect::QWEN_CODE_SESSION),
        ),
        (
            r#"{"uuid":"u","sessionId":"s","type":"assistant","message":{"role":"model","parts":[]}}"#,
            Some(Dialect::QWEN_CODE_SESSION),
        ),
        (
            r#"{"uuid":"u","sessionId":"s","type":"tool_result","message":{"role":"user","parts":[]},"toolCallResult":{}}"#,
            Some(Dialect::QWEN_CODE_SESSION),
        ),
        (
            r#"{"uuid":"u","sessionId":"s","type":"system","subtype":"ui_telemetry","systemPayload":{}}"#,
            Some(Dialect::QWEN_CODE_SESSION),
        ),
        (
            r#"{"uuid":"u","sessionId":"s","type":"system","subtype":"turn_duration","durationMs":1}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (
            r#"{"uuid":"u","sessionId":"s","type":"assistant","message":{"role":"assistant","content":[]}}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (
            r#"{"type":"user","message":"parts"}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (
            r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s","model":"Auto","permissionMode":"default"}"#,
            Some(Dialect::CURSOR),
        ),
        (
            r#"{"type":"user","message":{"role":"user","content":[]},"session_id":"s"}"#,
            Some(Dialect::CURSOR),
        ),
        (
            r#"{"type":"assistant","message":{"role":"assistant","content":[]},"session_id":"s","model_call_id":"m","timestamp_ms":1}"#,
            Some(Dialect::CURSOR),
        ),
        (
            r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{},"session_id":"s"}"#,
            Some(Dialect::CURSOR),
        ),
        (
            r#"{"type":"thinking","subtype":"delta","text":"t","session_id":"s","timestamp_ms":1}"#,
            Some(Dialect::CURSOR),
        ),
        (
            r#"{"type":"result","subtype":"success","duration_ms":1,"duration_api_ms":1,"is_error":false,"result":"","session_id":"s","request_id":"r"}"#,
            Some(Dialect::CURSOR),
        ),
        (
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"T-01a23b47-667c-70cc-b630-c7749aeedb07","tools":["Bash"],"mcp_servers":[]}"#,
            Some(Dialect::AMP),
        ),
        (
            r#"{"type":"user","message":{"role":"user","content":[]},"parent_tool_use_id":null,"session_id":"T-01a23b47-667c-70cc-b630-c7749aeedb07"}"#,
            Some(Dialect::AMP),
        ),
        (
            r#"{"type":"result","subtype":"success","duration_ms":1,"is_error":false,"num_turns":1,"result":"","session_id":"T-01a23b47-667c-70cc-b630-c7749aeedb07"}"#,
            Some(Dialect::AMP),
        ),
        (
            r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[]},"parent_tool_use_id":null,"session_id":"0f6fa7cf-4483-4a6d-ab20-21fb703f6e97","uuid":"u"}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (
            r#"{"type":"system","subtype":"init","apiKeySource":"none","cwd":"/w","session_id":"s","tools":["Bash"],"permissionMode":"default","uuid":"u"}"#,
            Some(Dialect::CLAUDE_CODE),
        ),
        (r#"{"type":"error","message":"m"}"#, None),
        (
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}"#,
            None,
        ),
        (r#"{"type":"agent_start"}"#, None),
        (
            r#"{"type":"tool_execution_start","toolCallId":"c","toolName":"bash","args":{}}"#,
            Some(Dialect::PI),
        ),
        (
            r#"{"type":"message_end","message":{"role":"assistant","content":[],"timestamp":1}}"#,
            Some(Dialect::PI),
        ),
        (
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[]}}"#,
            None,
        ),
        (
            r#"{"type":"message","id":"e1","parentId":"e0","timestamp":"t","message":{"role":"toolResult","toolCallId":"c"}}"#,
            Some(Dialect::PI_SESSION),
        ),
        (
            r#"{"type":"model_change","id":"e0","parentId":null,"timestamp":"t","provider":"p","modelId":"m"}"#,
            Some(Dialect::PI_SESSION),
        ),
        ("not json", None),
    ];
    for (line, expected) in cases {
        assert_eq!(detect_line(line.as_bytes()), *expected, "{line}");
    }
}

/// The features `all-dialects` lists in `Cargo.toml`.
fn all_dialects_features() -> Vec<String> {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&manifest).unwrap();
    let features = manifest["features"].as_table().unwrap();
    assert_eq!(
        features["default"].as_array().unwrap(),
        &vec![toml::Value::from("all-dialects"), toml::Value::from("otel")]
    );
    let listed: Vec<String> = features["all-dialects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|feature| feature.as_str().unwrap().to_owned())
        .collect();
    for feature in &listed {
        assert!(features.contains_key(feature), "no feature `{feature}`");
    }
    listed
}

#[test]
fn the_feature_list_is_the_tables() {
    let mut listed = all_dialects_features();
    listed.sort();
    let mut table: Vec<String> = TABLE
        .iter()
        .map(|entry| entry.feature.to_owned())
        .filter(|feature| !feature.is_empty())
        .collect();
    table.sort();
    table.dedup();
    assert_eq!(
        listed, table,
        "`all-dialects` in Cargo.toml and the table's features"
    );
    for dialect in Dialect::all() {
        assert_eq!(dialect.feature(), entry(dialect).unwrap().feature);
    }
    assert_eq!(Dialect::CODEX_EXEC.feature(), "codex");
    assert_eq!(Dialect::EVENTS.feature(), "");
    assert_eq!(Dialect::new("mine", "mine").feature(), "");
}

#[test]
fn each_dialect_folder_is_the_feature_of_its_name() {
    let dialects = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/dialects");
    let mut folders: Vec<String> = std::fs::read_dir(&dialects)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .map(|path| {
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .replace('_', "-")
        })
        .filter(|name| name != "event-log")
        .collect();
    folders.sort();
    let mut listed = all_dialects_features();
    listed.sort();
    assert_eq!(folders, listed, "the dialect folders and `all-dialects`");
}

#[test]
fn every_dialect_folder_has_its_call_ids() {
    let dialects = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/dialects");
    for entry in std::fs::read_dir(&dialects).unwrap() {
        let folder = entry.unwrap().path();
        if folder.is_dir() {
            assert!(
                folder.join("call_ids.toml").is_file(),
                "{}",
                folder.display()
            );
        }
    }
}
