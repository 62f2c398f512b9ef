//! Edge cases of the emitter formats, as canonical event logs: calls without output,
//! input, title, name or error message, calls seen only at their end, started twice,
//! unicode, a huge output, interleaved sessions. They are written from here into
//! `checks/ui-protocols/cases/` (one log per case, and a README listing them), which CI
//! reads with the real `ai` and `@ag-ui/*` packages, and held here to the protocols'
//! rules (`ui_streams.rs`) and to the pinned ACP schema (`acp.rs`).
//!
//! After a change here, `TOOLNORM_WRITE_UI_CASES=1 cargo test -p toolnorm-adapters --test
//! it ui_cases` rewrites the files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};
use toolnorm::ToolEvent;
use toolnorm_adapters::{AcpOptions, Dialect};

use crate::common;

/// One edge case: its name (its file is `<name>.jsonl`), why it is there, its events.
struct Case {
    name: &'static str,
    why: &'static str,
    events: Vec<Value>,
}

/// Text with what a JSON or SSE writer can get wrong: astral characters, joiners,
/// right-to-left text, line and paragraph separators, a NUL, a BOM, quotes, backslashes,
/// a carriage return and a closing script tag.
const UNICODE: &str = "ünïcödé 日本語 👩\u{200d}💻 עברית \u{2028}\u{2029} nul\u{0} bom\u{feff} \"q\" \\ \r\n </script>";

fn started(id: &str, name: &str, kind: &str, title: &str, input: Option<Value>) -> Value {
    let mut event =
        json!({"type": "toolCallStarted", "id": id, "name": name, "kind": kind, "title": title});
    if let Some(input) = input {
        event["input"] = input;
    }
    event
}

fn running(id: &str) -> Value {
    json!({"type": "toolCallRunning", "id": id})
}

fn completed(id: &str, output: Option<Value>) -> Value {
    let mut event = json!({"type": "toolCallCompleted", "id": id});
    if let Some(output) = output {
        event["output"] = output;
    }
    event
}

fn failed(id: &str, error: Value) -> Value {
    json!({"type": "toolCallFailed", "id": id, "error": error})
}

fn appended(id: &str, offset: usize, chunk: &str) -> Value {
    json!({"type": "outputAppended", "id": id, "offset": offset, "chunk": chunk})
}

/// An output of about 200 KB, in many lines: past the writers' 64 KiB step buffer.
fn huge_output() -> String {
    (0..4300)
        .map(|line| format!("{line:05} {}\n", "x".repeat(40)))
        .collect()
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "no-output",
            why: "a call that completes without output (a Codex web search): the AI SDK's `tool-output-available` requires `output`",
            events: vec![
                started(
                    "no-output",
                    "webSearch",
                    "web_search",
                    "Searching the web",
                    Some(json!({"query": ""})),
                ),
                running("no-output"),
                json!({"type": "toolCallCompleted", "id": "no-output", "input": {"query": "rust"}, "title": "Searching rust"}),
            ],
        },
        Case {
            name: "null-output",
            why: "a call whose output is JSON `null`",
            events: vec![
                started(
                    "null-output",
                    "mcp__db__query",
                    "mcp",
                    "Querying",
                    Some(json!({"sql": "select 1"})),
                ),
                running("null-output"),
                completed("null-output", Some(Value::Null)),
            ],
        },
        Case {
            name: "no-input",
            why: "a call started without input (its input is `null`), never streamed, then completed",
            events: vec![
                started("no-input", "Bash", "bash", "Running a command", None),
                running("no-input"),
                completed("no-input", Some(json!("done"))),
            ],
        },
        Case {
            name: "empty-title-and-name",
            why: "a call with an empty name and an empty title, and one whose title empties later",
            events: vec![
                started("empty-name", "", "unknown", "", Some(json!({}))),
                started(
                    "empty-title",
                    "Read",
                    "file_read",
                    "Reading a.txt",
                    Some(json!({"path": "a.txt"})),
                ),
                running("empty-name"),
                json!({"type": "titleUpdated", "id": "empty-title", "title": ""}),
                completed("empty-name", Some(json!({"ok": true}))),
                running("empty-title"),
                completed("empty-title", Some(json!("text"))),
            ],
        },
        Case {
            name: "failure-without-message",
            why: "failures with an empty message: a plain one and a subagent's",
            events: vec![
                started(
                    "failure-without-message",
                    "Bash",
                    "bash",
                    "false",
                    Some(json!({"command": "false"})),
                ),
                running("failure-without-message"),
                failed("failure-without-message", json!({"message": ""})),
                started(
                    "failure-without-message-task",
                    "Task",
                    "subagent",
                    "",
                    Some(json!({"subagent_type": ""})),
                ),
                running("failure-without-message-task"),
                failed("failure-without-message-task", json!({"message": ""})),
            ],
        },
        Case {
            name: "error-only-code",
            why: "errors with only a code: a timeout, and a refusal (the AI SDK's denial) with details",
            events: vec![
                started(
                    "error-only-code",
                    "WebFetch",
                    "web_search",
                    "Fetching",
                    Some(json!({"url": "https://example.com"})),
                ),
                running("error-only-code"),
                failed("error-only-code", json!({"message": "", "code": "timeout"})),
                started(
                    "error-only-code-refused",
                    "Write",
                    "file_write",
                    "Writing b.txt",
                    Some(json!({"path": "b.txt"})),
                ),
                failed(
                    "error-only-code-refused",
                    json!({"message": "", "code": "permission_denied", "details": {"rule": "deny"}}),
                ),
            ],
        },
        Case {
            name: "approvals",
            why: "approvals: one still waiting at the end, one approved that then ran, one denied by the user, one cancelled, one decided by policy at once",
            events: approvals(),
        },
        Case {
            name: "approvals-nested",
            why: "approvals while other calls are open: a subagent's call waits (the subagent is suspended and starts again), two calls wait at once and are answered one after the other, a call's input still streaming when another asks, a call asked before its input is told",
            events: approvals_nested(),
        },
        Case {
            name: "input-never-streamed",
            why: "a call whose input comes only with its end, never running: no input delta carries it",
            events: vec![
                started(
                    "input-never-streamed",
                    "Edit",
                    "file_edit",
                    "Editing",
                    Some(json!({})),
                ),
                json!({"type": "toolCallCompleted", "id": "input-never-streamed", "input": {"path": "c.rs", "old": "a", "new": "b"}, "output": "edited"}),
            ],
        },
        Case {
            name: "output-only",
            why: "calls seen only through their output: streamed output that becomes the output, and a start followed at once by its end",
            events: vec![
                started("output-only-streamed", "Bash", "bash", "", None),
                appended("output-only-streamed", 0, "line 1\n"),
                appended("output-only-streamed", 7, "line 2\n"),
                completed("output-only-streamed", None),
                started("output-only-result", "tool", "unknown", "", None),
                completed(
                    "output-only-result",
                    Some(json!([{"type": "text", "text": "result"}])),
                ),
            ],
        },
        Case {
            name: "started-twice",
            why: "a start repeated while the call runs and after it ended: nothing is sent again",
            events: vec![
                started(
                    "started-twice",
                    "Grep",
                    "file_read",
                    "Searching TODO",
                    Some(json!({"pattern": "TODO"})),
                ),
                running("started-twice"),
                started(
                    "started-twice",
                    "Grep",
                    "file_read",
                    "Searching TODO",
                    Some(json!({"pattern": "TODO"})),
                ),
                appended("started-twice", 0, "a.rs:1: TODO\n"),
                started(
                    "started-twice",
                    "Grep",
                    "file_read",
                    "Searching TODO",
                    Some(json!({"pattern": "TODO"})),
                ),
                completed("started-twice", Some(json!("a.rs:1: TODO\n"))),
                started(
                    "started-twice",
                    "Grep",
                    "file_read",
                    "Searching TODO",
                    Some(json!({"pattern": "TODO"})),
                ),
            ],
        },
        Case {
            name: "unicode",
            why: "unicode and JSON-hostile text in the id, name, title, input, metadata, output and error",
            events: vec![
                json!({"type": "toolCallStarted", "id": "unicode-✓", "name": format!("工具 {UNICODE}"), "kind": "bash",
                       "title": UNICODE, "input": {(UNICODE): UNICODE, "list": [UNICODE, 1.5, null]},
                       "metadata": {"note": UNICODE}}),
                running("unicode-✓"),
                appended("unicode-✓", 0, UNICODE),
                completed("unicode-✓", Some(json!(UNICODE))),
                started(
                    "unicode-failed",
                    UNICODE,
                    "mcp",
                    UNICODE,
                    Some(json!({"q": UNICODE})),
                ),
                failed(
                    "unicode-failed",
                    json!({"message": UNICODE, "code": "mcp_error", "details": {"why": UNICODE}}),
                ),
            ],
        },
        Case {
            name: "huge-output",
            why: "an output of about 200 KB, its first 70 KB streamed, then given whole",
            events: {
                let output = huge_output();
                let (head, _) = output.split_at(70_000);
                vec![
                    started(
                        "huge-output",
                        "Bash",
                        "bash",
                        "cat big.log",
                        Some(json!({"command": "cat big.log"})),
                    ),
                    running("huge-output"),
                    appended("huge-output", 0, head),
                    completed("huge-output", Some(json!(output))),
                ]
            },
        },
        Case {
            name: "never-ended",
            why: "calls the stream leaves open: one whose input was still streaming, one running",
            events: vec![
                started(
                    "never-ended-streaming",
                    "Write",
                    "file_write",
                    "Writing",
                    Some(json!({})),
                ),
                json!({"type": "inputUpdated", "id": "never-ended-streaming", "input": {"path": "d.txt"}}),
                json!({"type": "inputUpdated", "id": "never-ended-streaming", "input": {"path": "d.txt", "content": "partial"}}),
                started(
                    "never-ended-running",
                    "Bash",
                    "bash",
                    "sleep 100",
                    Some(json!({"command": "sleep 100"})),
                ),
                running("never-ended-running"),
                appended("never-ended-running", 0, "waiting\n"),
            ],
        },
        Case {
            name: "interleaved-sessions",
            why: "calls of two sessions whose events interleave: streamed output, which the UI streams do not carry, must not move a call to a new message",
            events: vec![
                json!({"type": "toolCallStarted", "id": "interleaved-a", "name": "Bash", "kind": "bash", "title": "make",
                       "input": {"command": "make"}, "metadata": {"sessionId": "session-a"}}),
                running("interleaved-a"),
                json!({"type": "toolCallStarted", "id": "interleaved-b", "name": "Bash", "kind": "bash", "title": "npm test",
                       "input": {"command": "npm test"}, "metadata": {"sessionId": "session-b"}}),
                running("interleaved-b"),
                appended("interleaved-a", 0, "cc a.c\n"),
                appended("interleaved-b", 0, "ok 1\n"),
                appended("interleaved-a", 7, "cc b.c\n"),
                appended("interleaved-b", 5, "ok 2\n"),
                json!({"type": "metadataMerged", "id": "interleaved-a", "metadata": {"exitCode": 0}}),
                completed("interleaved-a", None),
                completed("interleaved-b", Some(json!("2 passed"))),
            ],
        },
    ]
}

/// The calls of the `approvals` case.
fn approvals() -> Vec<Value> {
    let asked = |id: &str| {
        json!({"type": "approvalRequested", "id": id, "reason": "Run it?", "at": "2026-03-01T10:00:01Z",
            "options": [{"id": "yes", "label": "Yes", "decision": "approved", "scope": "once"},
                        {"id": "no", "label": "No", "decision": "denied", "scope": "once"}]})
    };
    let decided = |id: &str, decision: &str, by: Option<&str>| {
        let mut event = json!({"type": "approvalResolved", "id": id, "decision": decision, "at": "2026-03-01T10:00:04Z"});
        if let Some(by) = by {
            event["decidedBy"] = by.into();
        }
        event
    };
    let bash = |id: &str| {
        started(
            id,
            "Bash",
            "bash",
            "rm notes.txt",
            Some(json!({"command": "rm notes.txt"})),
        )
    };
    vec![
        bash("approval-waiting"),
        asked("approval-waiting"),
        bash("approval-approved"),
        asked("approval-approved"),
        decided("approval-approved", "approved", Some("user")),
        running("approval-approved"),
        appended("approval-approved", 0, "removed\n"),
        completed("approval-approved", None),
        bash("approval-denied"),
        asked("approval-denied"),
        decided("approval-denied", "denied", Some("user")),
        bash("approval-cancelled"),
        asked("approval-cancelled"),
        decided("approval-cancelled", "cancelled", None),
        bash("approval-policy"),
        json!({"type": "approvalRequested", "id": "approval-policy"}),
        decided("approval-policy", "approved", Some("policy")),
        running("approval-policy"),
        completed("approval-policy", Some(json!("done"))),
    ]
}

/// The calls of the `approvals-nested` case.
fn approvals_nested() -> Vec<Value> {
    let asked = |id: &str| json!({"type": "approvalRequested", "id": id, "reason": "Run it?"});
    let decided = |id: &str, decision: &str| json!({"type": "approvalResolved", "id": id, "decision": decision, "decidedBy": "user"});
    let child = |id: &str| {
        json!({"type": "toolCallStarted", "id": id, "name": "Bash", "kind": "bash", "title": "rm a.txt",
               "input": {"command": "rm a.txt"}, "metadata": {"parentToolCallId": "nested-task"}})
    };
    vec![
        started(
            "nested-task",
            "Task",
            "subagent",
            "Clean up",
            Some(json!({"subagent_type": "cleaner", "prompt": "clean up"})),
        ),
        running("nested-task"),
        started(
            "nested-streaming",
            "Write",
            "file_write",
            "Writing",
            Some(json!({})),
        ),
        json!({"type": "inputUpdated", "id": "nested-streaming", "input": {"path": "e.txt"}}),
        child("nested-child"),
        asked("nested-child"),
        decided("nested-child", "approved"),
        running("nested-child"),
        completed("nested-child", Some(json!("removed"))),
        json!({"type": "inputUpdated", "id": "nested-streaming", "input": {"path": "e.txt", "content": "done"}}),
        completed("nested-streaming", None),
        completed("nested-task", Some(json!("cleaned up"))),
        started(
            "nested-first",
            "Bash",
            "bash",
            "rm b.txt",
            Some(json!({"command": "rm b.txt"})),
        ),
        asked("nested-first"),
        started(
            "nested-second",
            "Bash",
            "bash",
            "rm c.txt",
            Some(json!({"command": "rm c.txt"})),
        ),
        asked("nested-second"),
        decided("nested-second", "denied"),
        decided("nested-first", "approved"),
        running("nested-first"),
        completed("nested-first", Some(json!("removed"))),
        // Asked before the agent told the call's input (codex-acp asks first).
        started("nested-late-input", "Bash", "bash", "", Some(json!({}))),
        asked("nested-late-input"),
        decided("nested-late-input", "approved"),
        json!({"type": "inputUpdated", "id": "nested-late-input", "input": {"command": "rm d.txt"}}),
        running("nested-late-input"),
        completed("nested-late-input", Some(json!("removed"))),
    ]
}

/// Where the check with the real packages reads the cases.
fn cases_dir() -> PathBuf {
    common::fixtures().join("../checks/ui-protocols/cases")
}

/// The files of the cases, by name: each case's log (every event through `ToolEvent`,
/// so a case is a valid log), and the README.
fn case_files() -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut readme = String::from(
        "# Edge cases of the UI stream formats\n\n\
         Canonical event logs (`--provider events`) written by\n\
         `crates/toolnorm-adapters/tests/it/ui_cases.rs`; `check.mjs` runs each, and all of\n\
         them as one stream, through the real `ai` and `@ag-ui/*` packages. Do not edit: change\n\
         the test and run `TOOLNORM_WRITE_UI_CASES=1 cargo test -p toolnorm-adapters --test it\n\
         ui_cases`.\n\n",
    );
    for case in cases() {
        let mut log = String::new();
        for event in case.events {
            let event: ToolEvent = serde_json::from_value(event)
                .unwrap_or_else(|error| panic!("{}: not an event: {error}", case.name));
            log.push_str(&serde_json::to_string(&event).unwrap());
            log.push('\n');
        }
        readme.push_str(&format!("- `{}.jsonl`: {}\n", case.name, case.why));
        files.insert(format!("{}.jsonl", case.name), log);
    }
    files.insert("README.md".into(), readme);
    files
}

#[test]
fn the_cases_the_check_reads_are_written_from_here() {
    let dir = cases_dir();
    let files = case_files();
    if std::env::var_os("TOOLNORM_WRITE_UI_CASES").is_some() {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    let mut on_disk = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        on_disk.insert(name, std::fs::read_to_string(&path).unwrap());
    }
    let stale: Vec<&String> = files
        .keys()
        .chain(on_disk.keys())
        .filter(|name| files.get(*name) != on_disk.get(*name))
        .collect();
    assert!(
        stale.is_empty(),
        "{}: {stale:?} differ from ui_cases.rs; rewrite them with \
         TOOLNORM_WRITE_UI_CASES=1 cargo test -p toolnorm-adapters --test it ui_cases",
        dir.display()
    );
}

/// Every case, and all of them as one stream, follows the protocols' rules in the three
/// emitter formats: the UI streams' sequence rules and no repeated chunk; ACP frames
/// valid against the pinned schema, in order, and read back into the same parts.
#[test]
fn every_case_streams_by_the_protocols_rules() {
    let files = case_files();
    let logs: Vec<(&str, &str)> = files
        .iter()
        .filter(|(name, _)| name.ends_with(".jsonl"))
        .map(|(name, text)| (name.as_str(), text.as_str()))
        .collect();
    assert!(logs.len() >= 10, "{} cases", logs.len());
    let all: String = logs.iter().map(|(_, text)| *text).collect();
    for (origin, log) in logs.iter().copied().chain([("every case", all.as_str())]) {
        let bytes = log.as_bytes();
        let (all, last) = crate::ui_streams::snapshots(bytes);
        assert!(!last.is_empty(), "{origin}: no call");
        let chunks = crate::ui_streams::ai_sdk(&all);
        crate::ui_streams::check_ai_sdk(&chunks, &last, origin);
        crate::ui_streams::check_no_repeats(&chunks, origin);
        crate::ui_streams::check_messages_show_changes(&chunks, origin);
        let events = crate::ui_streams::ag_ui(&all);
        crate::ui_streams::check_ag_ui(&events, &last, origin);
        crate::ui_streams::check_no_repeats(&events, origin);

        let (frames, _) = crate::acp::emit(bytes, Some(Dialect::EVENTS), AcpOptions::default());
        for frame in &frames {
            crate::acp::assert_valid(frame, origin);
        }
        crate::acp::check_sequence(&frames, origin);
        let (parts, diagnostics) = crate::acp::ingest(&frames);
        assert!(diagnostics.is_empty(), "{origin}: {diagnostics:#?}");
        let (expected, _) = common::normalize(bytes, Some(Dialect::EVENTS));
        assert_eq!(parts, expected, "{origin}");
    }
}
