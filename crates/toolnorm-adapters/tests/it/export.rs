//! OpenCode's stored sessions read like the live stream of the same session: each
//! `fixtures/opencode-export*/<scenario>.jsonl` is `opencode export` of the sessions the
//! `opencode serve` run recorded in `fixtures/opencode-serve*/<scenario>.jsonl` stored,
//! and both give the same calls (ids, names, kinds, titles, states, error codes,
//! sessions, parents). An export as the CLI prints it, indented over many lines, reads
//! as the one-line fixture does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::ToolState;
use toolnorm_adapters::{Dialect, Normalizer, Step};

/// The export fixture directories and the stream directory of the same runs.
const PAIRS: &[(&str, &str)] = &[
    ("opencode-export", "opencode-serve"),
    ("opencode-export@1.17.19", "opencode-serve@1.17.19"),
];

fn scenarios(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(common::fixtures().join(dir))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_export_gives_the_calls_of_its_live_stream() {
    let mut compared = 0;
    for (export_dir, stream_dir) in PAIRS {
        let names = scenarios(export_dir);
        assert!(names.len() >= 13, "{export_dir}: {names:?}");
        for name in names {
            let export = common::call_summaries(&common::fixture(&format!("{export_dir}/{name}")));
            let stream = common::call_summaries(&common::fixture(&format!("{stream_dir}/{name}")));
            assert!(!stream.is_empty(), "{stream_dir}/{name} has no call");
            assert_eq!(
                export, stream,
                "{export_dir}/{name} against {stream_dir}/{name}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 26, "{compared} pairs");
}

/// Every line of a fixture (one export each) indented as `opencode export` prints it.
fn indented(bytes: &[u8]) -> String {
    bytes
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let value: Value = serde_json::from_slice(line).unwrap();
            format!("{}\n", serde_json::to_string_pretty(&value).unwrap())
        })
        .collect()
}

#[test]
fn an_export_as_printed_reads_as_its_one_line_form() {
    for name in ["subagent.jsonl", "shell-exit-3.jsonl", "parallel.jsonl"] {
        let bytes = std::fs::read(common::fixtures().join("opencode-export").join(name)).unwrap();
        let text = indented(&bytes);
        assert!(text.lines().count() > 50, "{name}");
        let mut normalizer = Normalizer::builder().build();
        let (printed, diagnostics) = common::run(Normalizer::builder().build(), text.as_bytes());
        assert!(diagnostics.is_empty(), "{name}: {diagnostics:?}");
        let mut steps = 0;
        normalizer.push(text.as_bytes(), &mut |_: Step<'_>| steps += 1);
        normalizer.finish(&mut |_: Step<'_>| steps += 1);
        assert_eq!(normalizer.dialect(), Some(Dialect::OPENCODE_EXPORT));
        let stats = normalizer.stats();
        assert_eq!(stats.lines, text.lines().count() as u64, "{name}");
        assert_eq!(stats.accounted_lines(), stats.lines, "{name}: {stats:?}");
        assert!(stats.applied_lines >= 1, "{name}: {stats:?}");
        let one_line = common::fixture(&format!("opencode-export/{name}"));
        assert_eq!(
            serde_json::to_value(&printed).unwrap(),
            serde_json::to_value(&one_line).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn a_document_cut_short_is_read_line_by_line() {
    let text = "{\n  \"info\": {\"id\": \"ses_1\", \"directory\": \"/w\"},\n  \"messages\": [\n";
    let mut normalizer = Normalizer::builder()
        .dialect(Some(Dialect::OPENCODE_EXPORT))
        .build();
    let mut diagnostics = Vec::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = step {
            diagnostics.push(diagnostic.line);
        }
    };
    normalizer.push(text.as_bytes(), &mut on_step);
    normalizer.finish(&mut on_step);
    assert_eq!(diagnostics, [Some(1), Some(2), Some(3)]);
    let stats = normalizer.stats();
    assert_eq!((stats.lines, stats.error_lines), (3, 3), "{stats:?}");
}

#[test]
fn stored_parts_are_read_as_the_live_stream_reads_them() {
    let export = json!({
        "info": {"id": "ses_1", "directory": "/w", "projectID": "p", "slug": "s", "title": "t", "version": "1", "time": {"created": 1, "updated": 2}},
        "messages": [
            {"info": {"id": "msg_1", "sessionID": "ses_1", "role": "user", "time": {"created": 1}, "agent": "build", "model": {"providerID": "mock", "modelID": "m"}},
             "parts": [{"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "text", "text": "hi"}]},
            {"info": {"id": "msg_2", "sessionID": "ses_1", "role": "assistant", "time": {"created": 2}, "parentID": "msg_1", "modelID": "m", "providerID": "mock", "mode": "build", "agent": "build", "path": {"cwd": "/w", "root": "/w"}, "cost": 0, "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}},
             "parts": [
                {"id": "prt_2", "sessionID": "ses_1", "messageID": "msg_2", "type": "tool", "callID": "call_1", "tool": "bash",
                 "state": {"status": "completed", "input": {"command": "false", "description": "fails"}, "output": "", "title": "false", "metadata": {"exit": 1}, "time": {"start": 3, "end": 4}}},
                {"id": "prt_3", "sessionID": "ses_1", "messageID": "msg_2", "type": "tool", "callID": "call_2", "tool": "read",
                 "state": {"status": "completed", "input": {"filePath": "/w/src/a.rs"}, "output": "x", "title": "src/a.rs", "metadata": {}, "time": {"start": 5, "end": 6}}}
             ]}
        ],
        "todos": []
    });
    let parts = common::lines(Dialect::OPENCODE_EXPORT, &[export]);
    let got: Vec<(&str, &str, ToolState)> = parts
        .iter()
        .map(|part| (part.id.as_str(), part.title.as_str(), part.state))
        .collect();
    assert_eq!(
        got,
        [
            ("call_1", "false", ToolState::Error),
            ("call_2", "Reading src/a.rs", ToolState::Complete)
        ]
    );
    let failed = serde_json::to_value(&parts[0]).unwrap();
    assert_eq!(failed["error"]["code"], "exit_code");
    assert_eq!(failed["metadata"]["sessionId"], "ses_1");
}
