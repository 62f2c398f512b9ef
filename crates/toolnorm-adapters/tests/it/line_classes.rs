//! Every input line is accounted for: applied, known non-tool, notice or error, exactly
//! one of them; and diagnostics have the severity their case calls for.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use toolnorm_adapters::{Diagnostic, Dialect, Normalizer, Severity, Stats, Step};

fn run(bytes: &[u8], dialect: Option<Dialect>) -> (Stats, Vec<Diagnostic>) {
    let mut normalizer = Normalizer::builder()
        .dialect(dialect)
        .evict_finished(true)
        .build();
    let mut diagnostics = Vec::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = step {
            diagnostics.push(diagnostic.clone());
        }
    };
    normalizer.push(bytes, &mut on_step);
    normalizer.finish(&mut on_step);
    (normalizer.stats(), diagnostics)
}

#[test]
fn every_fixture_line_is_in_one_class_and_none_is_an_error() {
    let mut files = 0;
    let mut applied = 0;
    for dir in std::fs::read_dir(common::fixtures()).unwrap() {
        let dir = dir.unwrap().path();
        // `unclaimed/` holds files of agents toolnorm does not read (`unclaimed.rs`).
        if !dir.is_dir() || dir.ends_with("unclaimed") {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            // Session folders (`claude-code-session/<scenario>/`) hold one stream in
            // several files.
            if !file.is_file() {
                continue;
            }
            let bytes = std::fs::read(&file).unwrap();
            let (stats, diagnostics) = run(&bytes, None);
            let name = file.display();
            let lines = bytes.split(|&byte| byte == b'\n').count() as u64
                - u64::from(bytes.ends_with(b"\n"));
            assert_eq!(stats.lines, lines, "{name}");
            assert_eq!(stats.accounted_lines(), stats.lines, "{name}: {stats:?}");
            assert_eq!(stats.error_lines, 0, "{name}: {diagnostics:?}");
            assert_eq!(stats.errors, 0, "{name}: {diagnostics:?}");
            files += 1;
            applied += stats.applied_lines;
        }
    }
    assert!(files > 50, "{files} fixtures");
    assert!(applied > files, "{applied} lines applied");
}

/// Codex app-server lines: `initialize` response, then the given method.
fn app_server(method: &str) -> String {
    format!(
        "{}\n{}\n",
        r#"{"id":0,"result":{"userAgent":"codex"}}"#,
        serde_json::json!({"method": method, "params": {"threadId": "t"}})
    )
}

#[test]
fn a_new_session_method_and_a_new_item_method_are_notices() {
    let (stats, diagnostics) = run(
        app_server("thread/teleported").as_bytes(),
        Some(Dialect::from_name("codex-app-server").unwrap()),
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].severity, Severity::Notice);
    assert_eq!(
        diagnostics[0].to_string(),
        "line 2: notice: unknown Codex app-server method `thread/teleported`"
    );
    assert_eq!((stats.notice_lines, stats.error_lines), (1, 0));
    assert_eq!((stats.notices, stats.errors), (1, 0));
    assert_eq!(stats.known_lines, 1, "the response carries no tool");

    let (stats, diagnostics) = run(
        app_server("item/hologram/delta").as_bytes(),
        Some(Dialect::from_name("codex-app-server").unwrap()),
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].severity, Severity::Notice);
    assert_eq!((stats.notice_lines, stats.error_lines), (1, 0));

    // An `item/*` method that is not JSON-RPC params at all is an error.
    let (stats, diagnostics) = run(
        format!(
            "{}
{}
",
            r#"{"id":0,"result":{"userAgent":"codex"}}"#,
            r#"{"method":"item/hologram/delta","params":{"itemId":7}}"#
        )
        .as_bytes(),
        Some(Dialect::from_name("codex-app-server").unwrap()),
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].severity, Severity::Error);
    assert_eq!((stats.notice_lines, stats.error_lines), (0, 1));
}

#[test]
fn codex_exec_claude_and_opencode_drift() {
    let cases = [
        (
            "codex-exec",
            r#"{"type":"session.teleported"}"#,
            Severity::Notice,
        ),
        (
            "codex-exec",
            r#"{"type":"item.teleported"}"#,
            Severity::Notice,
        ),
        ("claude-code", r#"{"type":"telepathy"}"#, Severity::Notice),
        (
            "claude-code",
            r#"{"type":"system","subtype":"telepathy"}"#,
            Severity::Notice,
        ),
        (
            "claude-code",
            r#"{"type":"stream_event","event":{"type":"message_teleported"}}"#,
            Severity::Notice,
        ),
        (
            "claude-code",
            r#"{"type":"stream_event","event":{"type":"content_block_teleported"}}"#,
            Severity::Error,
        ),
        (
            "opencode",
            r#"{"type":"session.teleported","properties":{}}"#,
            Severity::Notice,
        ),
        (
            "opencode",
            r#"{"type":"message.part.teleported","properties":{}}"#,
            Severity::Notice,
        ),
    ];
    for (dialect, line, severity) in cases {
        let (stats, diagnostics) = run(
            format!("{line}\n").as_bytes(),
            Some(Dialect::from_name(dialect).unwrap()),
        );
        assert_eq!(diagnostics.len(), 1, "{dialect} {line}: {diagnostics:?}");
        assert_eq!(diagnostics[0].severity, severity, "{dialect} {line}");
        assert_eq!(stats.accounted_lines(), 1, "{dialect} {line}");
        let notice = severity == Severity::Notice;
        assert_eq!(
            (stats.notice_lines, stats.error_lines),
            (u64::from(notice), u64::from(!notice)),
            "{dialect} {line}"
        );
    }
}

#[test]
fn blank_broken_and_truncated_lines_have_their_class() {
    let shell_ok = std::fs::read(common::fixtures().join("codex-exec/shell-ok.jsonl")).unwrap();
    let mut bytes = b"\n   \nnot json\n".to_vec();
    bytes.extend_from_slice(&shell_ok);
    bytes.extend_from_slice(br#"{"type":"item.started","item":{"#);
    let (stats, _) = run(&bytes, None);
    assert_eq!(stats.accounted_lines(), stats.lines, "{stats:?}");
    assert_eq!(stats.error_lines, 2, "not json, truncated: {stats:?}");
    assert!(stats.known_lines >= 2, "the blank lines: {stats:?}");
    assert_eq!(
        stats.to_string(),
        format!(
            "{} lines: {} applied, {} known non-tool, 0 notices, 2 errors",
            stats.lines, stats.applied_lines, stats.known_lines
        )
    );
}

/// A call seen again with nothing new (`codex exec`'s item at its end repeats the item's
/// type) counts as the duplicate event it would make: the same events, changes and
/// duplicates whether or not that event is made.
#[test]
fn a_call_seen_again_with_nothing_new_is_a_duplicate() {
    let item = |status: &str, output: &str, exit: &str| {
        format!(
            r#"{{"type":"item.{status}","item":{{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"{output}","exit_code":{exit},"status":"{}"}}}}"#,
            if status == "started" {
                "in_progress"
            } else {
                "completed"
            }
        )
    };
    let stream = [
        r#"{"type":"thread.started","thread_id":"t1"}"#.to_owned(),
        item("started", "", "null"),
        item("completed", "a", "0"),
    ]
    .join("\n");
    let (stats, diagnostics) = run(stream.as_bytes(), Some(Dialect::CODEX_EXEC));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(stats.applied_lines, 2, "{stats:?}");
    assert_eq!(stats.duplicates, 1, "{stats:?}");
    assert_eq!(stats.events, stats.changes + stats.duplicates, "{stats:?}");
    assert_eq!(stats.changes, 3, "{stats:?}");
}
